"""Multiclass (multi-prototype and one-vs-rest): the engine against the literal oracle, the
binary path, growing label sets, event streams and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from reference import tasks as ref

import olearn

N, D, K = 600, 5, 4


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "name, covariance",
    [(r, None) for r in ref.RULES[:4]]
    + [(r, c) for r in ref.RULES[4:] for c in ("diagonal", "full")],
)
def test_multiclass_equals_oracle(name, covariance, sparse):
    X, Xd, y = ref.stream(N, D, K, seed=1, sparse=sparse)
    model = ref.estimator(name, covariance or "diagonal").fit(X, y)
    oracle = ref.multiclass(Xd, y, K, name, ref.HYPER, covariance)
    assert model.task_ == "multiclass"
    np.testing.assert_allclose(model.weights_, oracle.W, rtol=0, atol=1e-9)
    assert model.n_mistakes_ == oracle.mistakes
    assert model.n_updates_ == oracle.updates
    assert oracle.updates > 20  # the stream exercises the rule
    if covariance == "diagonal":
        np.testing.assert_allclose(model.variances_, np.array(oracle.Sigma), atol=1e-9)
    if covariance == "full":
        np.testing.assert_allclose(model.covariance_, np.array(oracle.Sigma)[:, :-1, :-1],
                                   atol=1e-9)  # fmt: skip


def test_pa_step_is_half_the_binary_one():
    """§7: τ = ℓ / (2‖x‖²) from v = v_r + v_s, first row up, second row down (the erratum)."""
    x = np.array([[3.0, 4.0]])
    model = olearn.PassiveAggressiveClassifier(variant="PA", fit_intercept=False)
    model.partial_fit(x, [2], classes=[0, 1, 2])
    tau = 1.0 / (2 * 25.0)  # ℓ = 1 at zero scores; best wrong label: 0 (first on ties)
    np.testing.assert_allclose(model.weights_[:, :2], [[-3 * tau, -4 * tau], [0, 0],
                                                       [3 * tau, 4 * tau]])  # fmt: skip


def test_averaged_multiclass_equals_oracle():
    X, Xd, y = ref.stream(N, D, K, seed=2)
    model = olearn.PerceptronClassifier(average=True).fit(X, y)
    oracle = ref.multiclass(Xd, y, K, "perceptron", ref.HYPER)
    np.testing.assert_allclose(model.coef_, oracle.averaged()[:, :-1], atol=1e-9)


@pytest.mark.parametrize("name, covariance", [("pa1", None), ("arow", "full"), ("sop", "diagonal")])
def test_one_vs_rest_equals_oracle(name, covariance):
    X, Xd, y = ref.stream(300, D, K, seed=3)
    model = ref.estimator(name, covariance or "diagonal", multiclass="ovr").fit(X, y)
    oracle = ref.one_vs_rest(Xd, y, K, name, ref.HYPER, covariance)
    assert model.task_ == "ovr"
    np.testing.assert_allclose(model.weights_, oracle.W, atol=1e-9)


class _MultiPrototype:
    """Forces the multi-prototype path for two classes (the estimators pick binary)."""

    def _label_task(self, n_classes, cost):
        return "multiclass"


@pytest.mark.parametrize("variant", ["perceptron", "PA", "PA-I", "PA-II"])
def test_two_classes_through_multiclass_path_predict_like_binary(variant):
    """The pair (r, s) moves w_r − w_s by 2α x with α from v = 2‖x‖²: the binary step of PA
    exactly, of PA-I / PA-II with C doubled, and twice the Perceptron's (same predictions)."""
    X, _, y = ref.stream(800, D, 2, seed=4)
    if variant == "perceptron":
        binary, joint_cls = olearn.PerceptronClassifier(), olearn.PerceptronClassifier
        joint = type("J", (_MultiPrototype, joint_cls), {})()
    else:
        binary = olearn.PassiveAggressiveClassifier(variant=variant, C=1.0)
        J = type("J", (_MultiPrototype, olearn.PassiveAggressiveClassifier), {})
        joint = J(variant=variant, C=0.5)
    binary.fit(X, y)
    joint.fit(X, y)
    assert binary.task_ == "binary" and joint.task_ == "multiclass"
    np.testing.assert_array_equal(joint.predict(X), binary.predict(X))
    difference = joint.weights_[1] - joint.weights_[0]
    scale = 2.0 if variant == "perceptron" else 1.0
    np.testing.assert_allclose(difference, scale * binary.weights_[0], atol=1e-9)
    assert joint.n_mistakes_ == binary.n_mistakes_


def test_binary_path_unchanged_for_two_classes():
    X, _, y = ref.stream(300, D, 2, seed=5)
    model = olearn.AROWClassifier().fit(X, np.where(y == 1, "yes", "no"))
    assert model.task_ == "binary" and model.weights_.shape == (1, D + 1)
    assert model.decision_function(X).shape == (300,)


def test_sparse_equals_dense_multiclass():
    X, Xd, y = ref.stream(400, D, K, seed=6, sparse=True)
    a = olearn.SCWClassifier(covariance="full").fit(X, y)
    b = olearn.SCWClassifier(covariance="full").fit(Xd, y)
    np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-12)


def test_growing_label_sets_keep_predictions_and_learn_new_classes():
    X, _, y = ref.stream(900, D, K, seed=7, noise=0.0)
    model = olearn.AROWClassifier(covariance="full")
    model.partial_fit(X[:300][y[:300] < 2], y[:300][y[:300] < 2])  # binary at first
    assert model.task_ == "binary"
    before = model.predict(X)
    first_three = y[300:600] < 3
    # a third class arrives: the binary row becomes two prototypes with the same predictions
    model._grow_classes(np.array([0, 1, 2]), "multiclass")
    assert model.task_ == "multiclass" and model.weights_.shape == (3, D + 1)
    assert model.precision_cholesky_.shape == (3, D + 1, D + 1)
    after = model.predict(X)
    np.testing.assert_array_equal(after[after != 2], before[after != 2])
    assert (after == 2).sum() == 0  # the new prototype is zero: never strictly the best
    model.partial_fit(X[300:600][first_three], y[300:600][first_three])
    model.partial_fit(X[600:], y[600:])  # and a fourth, without classes=
    np.testing.assert_array_equal(model.classes_, [0, 1, 2, 3])
    assert model.score(X, y) > 0.6


def test_new_class_inserted_in_sorted_position():
    X, _, y = ref.stream(200, D, 3, seed=8)
    labels = np.array(["b", "c", "d"])[y]
    model = olearn.PassiveAggressiveClassifier().fit(X, labels)
    W = model.weights_.copy()
    model.partial_fit(X[:1], ["a"])
    np.testing.assert_array_equal(model.classes_, ["a", "b", "c", "d"])
    assert model.weights_.shape == (4, D + 1)
    # rows b, c, d carried over (only the pair of the new round moved)
    moved = np.flatnonzero(np.abs(model.weights_[1:] - W).sum(axis=1) > 0)
    assert len(moved) <= 1


def test_classes_argument_is_optional_and_checked():
    X, _, y = ref.stream(100, D, K, seed=9)
    model = olearn.PerceptronClassifier().partial_fit(X, y, classes=[0, 1, 2, 3, 4])
    assert model.weights_.shape == (5, D + 1)
    with pytest.raises(ValueError, match="not in classes"):
        olearn.PerceptronClassifier().partial_fit(X, y, classes=[0, 1])


def test_learn_one_equals_partial_fit():
    X, Xd, y = ref.stream(200, D, K, seed=10, sparse=True)
    a = olearn.AROWClassifier().partial_fit(X[:10], y[:10], classes=range(K))
    b = olearn.AROWClassifier().partial_fit(X[:10], y[:10], classes=range(K))
    a.partial_fit(X[10:], y[10:])
    for i in range(10, 200):
        row = X[i]
        b.learn_one((row.indices, row.data), y[i])
    np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-12)
    assert b.predict_one({0: 1.0, 3: -2.0}) == b.predict(np.array([[1.0, 0, 0, -2.0, 0]]))[0]


@pytest.mark.parametrize(
    "labels, match",
    [
        (np.array([0.0, np.nan, 1.0]), "NaN"),
        (np.array(["a", "b", "c"]), "labels"),
    ],
)
def test_bad_labels_leave_the_model_untouched(labels, match):
    X, _, y = ref.stream(60, D, K, seed=11)
    model = olearn.AROWClassifier().fit(X, y)
    state = {k: v.copy() for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X[:3], labels)
    for key, value in state.items():
        np.testing.assert_array_equal(getattr(model, key), value)


def test_scores_cost_k_rows_and_predict_argmax():
    X, _, y = ref.stream(300, D, K, seed=12)
    model = olearn.PassiveAggressiveClassifier().fit(sp.csr_matrix(X), y)
    scores = model.decision_function(X)
    assert scores.shape == (300, K)
    np.testing.assert_array_equal(model.predict(X), np.argmax(scores, axis=1))


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_an_update_moves_only_the_true_and_the_best_wrong_rows(covariance):
    X, _, y = ref.stream(50, D, 6, seed=13)
    model = olearn.AROWClassifier(covariance=covariance).fit(X, y)
    W, S = model.weights_.copy(), model.covariance_.copy()
    x = X[:1]
    scores = model.decision_function(x)[0]
    true = int(np.argmin(scores))  # a label that loses: the round must update
    wrong = int(np.argmax(scores))
    model.partial_fit(x, [true])
    moved = np.flatnonzero(np.abs(model.weights_ - W).sum(axis=1) > 0)
    np.testing.assert_array_equal(moved, sorted([true, wrong]))
    shrunk = np.flatnonzero(np.abs(model.covariance_ - S).reshape(6, -1).sum(axis=1) > 0)
    np.testing.assert_array_equal(shrunk, sorted([true, wrong]))
