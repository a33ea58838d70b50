"""Cost-sensitive multiclass (§8): oracle equality for both updates, the 0/1 reduction to
plain multiclass, the online cost, bad cost input."""

import numpy as np
import pytest
from reference import tasks as ref

import olearn

N, D, K = 500, 5, 4


def _costs(seed):
    rng = np.random.default_rng(seed)
    C = rng.uniform(0.2, 3.0, size=(K, K))
    np.fill_diagonal(C, 0.0)
    return C


@pytest.mark.parametrize("per_example", [False, True], ids=["matrix", "vectors"])
@pytest.mark.parametrize("mode", ["prediction", "max_loss"])
@pytest.mark.parametrize("name, covariance", [("perceptron", None), ("pa2", None),
                                              ("arow", "full"), ("sop", "diagonal")])  # fmt: skip
def test_cost_sensitive_equals_oracle(name, covariance, mode, per_example):
    X, _, y = ref.stream(N, D, K, seed=0)
    C = _costs(1)
    rows = C[y]
    if per_example:
        rows = rows * np.random.default_rng(2).uniform(0.5, 2.0, size=rows.shape)
    model = ref.estimator(name, covariance or "diagonal", cost_update=mode)
    model.fit(X, y, cost=rows if per_example else C)
    oracle, total = ref.cost_sensitive(X, y, rows, K, name, ref.HYPER, mode, covariance)
    assert model.task_ == f"cost_{mode}"
    np.testing.assert_allclose(model.weights_, oracle.W, atol=1e-9)
    assert model.cumulative_cost_ == pytest.approx(total, rel=1e-12)
    assert oracle.updates > 10


@pytest.mark.parametrize("name, covariance", [(r, "full") for r in ref.RULES])
def test_zero_one_max_loss_reduces_to_multiclass(name, covariance):
    X, _, y = ref.stream(N, D, K, seed=3)
    plain = ref.estimator(name, covariance).fit(X, y)
    costly = ref.estimator(name, covariance, cost_update="max_loss")
    costly.fit(X, y, cost=1.0 - np.eye(K))
    np.testing.assert_allclose(costly.weights_, plain.weights_, atol=1e-9)
    # the 0/1 online cost counts the argmax mistakes (ties resolved to the first label)
    assert costly.cumulative_cost_ <= plain.n_mistakes_


def test_costs_shape_the_errors():
    """Making one confusion expensive makes it rarer than under 0/1 costs."""
    X, Xd, y = ref.stream(3000, D, K, seed=4, noise=0.3)
    C = 1.0 - np.eye(K)
    C[0, 1] = 25.0  # predicting 1 for a true 0 is very costly
    cheap = olearn.PassiveAggressiveClassifier().fit(X, y, cost=1.0 - np.eye(K))
    costly = olearn.PassiveAggressiveClassifier().fit(X, y, cost=C)
    confusions = [np.sum((m.predict(Xd) == 1) & (y == 0)) for m in (cheap, costly)]
    assert confusions[1] < confusions[0]


def test_partial_fit_and_learn_one_continue_with_costs():
    X, _, y = ref.stream(200, D, K, seed=5)
    C = _costs(6)
    a = olearn.AROWClassifier().fit(X, y, cost=C)
    b = olearn.AROWClassifier().partial_fit(X[:100], y[:100], classes=range(K), cost=C)
    for i in range(100, 200):
        b.learn_one((np.arange(D), X[i]), y[i], cost=C[y[i]])
    np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-12)
    with pytest.raises(ValueError, match="cost"):
        b.partial_fit(X[:5], y[:5])
    b.learn_one((np.arange(D), X[0]), y[0], cost=C[y[0]], sample_weight=2.0)  # (weighted)
    unfitted = olearn.AROWClassifier()
    with pytest.raises(ValueError, match=r"learn_one cannot start .*partial_fit\(X, y, classes="):
        unfitted.learn_one((np.arange(D), X[0]), y[0], cost=C[y[0]])
    assert not hasattr(unfitted, "classes_")


@pytest.mark.parametrize(
    "cost, match",
    [
        (np.ones((3, 5)), "shape"),
        (-(1.0 - np.eye(K)), "non-negative"),
        (np.ones((K, K)), "diagonal"),
        (np.full((K, K), np.nan), "NaN"),
    ],
)
def test_bad_costs_leave_the_model_untouched(cost, match):
    X, _, y = ref.stream(60, D, K, seed=7)
    model = olearn.PassiveAggressiveClassifier().fit(X, y, cost=1.0 - np.eye(K))
    state = {k: v.copy() for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X[:10], y[:10], cost=cost)
    with pytest.raises(ValueError, match=match):
        olearn.PassiveAggressiveClassifier().fit(X, y, cost=cost)
    for key, value in state.items():
        np.testing.assert_array_equal(getattr(model, key), value)


def test_per_example_cost_must_be_zero_at_the_label():
    X, _, y = ref.stream(60, D, K, seed=8)
    rows = np.ones((60, K))
    with pytest.raises(ValueError, match="own label"):
        olearn.PassiveAggressiveClassifier().fit(X, y, cost=rows)
