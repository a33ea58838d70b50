"""Regression: ε-insensitive PA, AROW (recursive least squares) and SGD against literal
oracles and scikit-learn, the PA regression bounds, event streams and bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import tasks as ref

import olearn


def _data(n=500, d=5, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if sparse:
        X[rng.random((n, d)) < 0.5] = 0.0
    y = X @ rng.normal(size=d) + 0.7 + 0.3 * rng.normal(size=n)
    return (sp.csr_matrix(X) if sparse else X), X, y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_pa_regression_equals_oracle(variant, sparse):
    X, Xd, y = _data(sparse=sparse)
    model = olearn.PassiveAggressiveRegressor(variant=variant, C=0.3, epsilon=0.2).fit(X, y)
    w, losses = ref.pa_regression(Xd, y, variant, C=0.3, epsilon=0.2)
    np.testing.assert_allclose(model.weights_[0], w, atol=1e-9)
    assert model.n_mistakes_ == np.count_nonzero(losses > 0)
    assert model.n_updates_ == np.count_nonzero(losses > 0)


def test_pa_regression_without_intercept_and_online_errors():
    X, Xd, y = _data(seed=1)
    model = olearn.PassiveAggressiveRegressor(epsilon=0.0, fit_intercept=False).fit(X, y)
    w, _ = ref.pa_regression(Xd, y, "PA-I", epsilon=0.0, bias=0.0)
    np.testing.assert_allclose(model.coef_, w[:-1], atol=1e-9)
    assert model.intercept_[0] == 0.0
    # progressive errors: the prediction before each update, recomputed by hand
    errors = []
    w = np.zeros(5)
    for x, target in zip(Xd, y, strict=True):
        errors.append(abs(target - w @ x))
        loss = errors[-1]
        w = w + np.sign(target - w @ x) * min(1.0, loss / (x @ x)) * x
    np.testing.assert_allclose(model.online_absolute_error_, np.mean(errors), rtol=1e-9)
    np.testing.assert_allclose(model.online_squared_error_, np.mean(np.square(errors)),
                               rtol=1e-9)  # fmt: skip


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_arow_regression_is_recursive_least_squares(covariance, sparse):
    X, Xd, y = _data(sparse=sparse, seed=2)
    model = olearn.AROWRegressor(r=0.5, a=2.0, covariance=covariance).fit(X, y)
    mu = ref.recursive_least_squares(Xd, y, r=0.5, a=2.0, covariance=covariance)
    np.testing.assert_allclose(model.weights_[0], mu, atol=1e-9)


def test_full_rls_converges_to_ridge_solution():
    """RLS after one pass is the ridge solution with penalty r/a (no noise in the algebra)."""
    X, _, y = _data(n=300, seed=3)
    model = olearn.AROWRegressor(r=1.0, a=1.0, covariance="full").fit(X, y)
    Xt = np.hstack([X, np.ones((300, 1))])
    ridge = np.linalg.solve(Xt.T @ Xt + np.eye(6), Xt.T @ y)
    np.testing.assert_allclose(model.weights_[0], ridge, atol=1e-8)


SGD_CASES = [
    (loss, schedule, alpha)
    for loss in ("squared", "epsilon_insensitive", "huber")
    for schedule, alpha in (("invsqrt", 1e-3), ("invsqrt", 1.0), ("inverse", 2.0))
]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss, schedule, alpha", SGD_CASES)
def test_sgd_equals_oracle(loss, schedule, alpha, sparse):
    """alpha = 1 drives the O(1) scale below 10⁻⁹ (folded back); 1/(λt) with λ = 2 makes
    the first decay factor negative, which restarts w from 0."""
    X, Xd, y = _data(n=600, sparse=sparse, seed=4)
    params = dict(loss=loss, alpha=alpha, eta0=0.05, schedule=schedule, epsilon=0.2, delta=0.5)
    model = olearn.SGDRegressor(**params).fit(X, y)
    w, b = ref.sgd_regression(Xd, y, loss, alpha, 0.05, schedule, epsilon=0.2, delta=0.5)
    np.testing.assert_allclose(model.coef_, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.intercept_[0], b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "loss, sk_loss", [("squared", "squared_error"), ("epsilon_insensitive", None), ("huber", None)]
)
def test_sgd_agrees_with_scikit_learn(loss, sk_loss):
    from sklearn.linear_model import SGDRegressor

    X, _, y = _data(n=400, seed=5)
    ours = olearn.SGDRegressor(loss=loss, alpha=1e-3, eta0=0.05, epsilon=0.2, delta=0.2)
    ours.fit(X, y)
    theirs = SGDRegressor(
        loss=sk_loss or loss,
        alpha=1e-3,
        eta0=0.05,
        learning_rate="invscaling",
        power_t=0.5,
        epsilon=0.2,
        max_iter=1,
        shuffle=False,
        tol=None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-9)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-9)


def _realizable(seed, n, d, R, epsilon, noise):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= (R * rng.random(n) / np.linalg.norm(X, axis=1))[:, None]
    u = rng.normal(size=d)
    y = X @ u + rng.uniform(-noise, noise, size=n)
    star = np.maximum(0.0, np.abs(X @ u - y) - epsilon)
    return X, y, u, star


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), R=st.floats(0.5, 5.0), epsilon=st.floats(0.01, 0.5))
def test_pa_regression_bound_realizable(seed, R, epsilon):
    """§5 with Theorem 2: if some u has ℓ_ε(u) = 0 on every round, Σ ℓ_t² ≤ ‖u‖² R²."""
    X, y, u, star = _realizable(seed, 300, 4, R, epsilon, noise=0.9 * epsilon)
    assert star.max() == 0.0
    model = olearn.PassiveAggressiveRegressor(variant="PA", epsilon=epsilon, fit_intercept=False)
    model.fit(X, y)
    w, losses = ref.pa_regression(X, y, "PA", epsilon=epsilon, bias=0.0)
    np.testing.assert_allclose(model.coef_, w[:-1], atol=1e-8)  # the losses are the model's
    assert np.sum(losses**2) <= u @ u * R * R * (1 + 1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), C=st.floats(0.01, 10.0), noise=st.floats(0.1, 2.0))
def test_pa2_regression_bound_noisy(seed, C, noise):
    """§5 with Theorem 5: Σ ℓ_t² ≤ (R² + 1/(2C))(‖u‖² + 2C Σ (ℓ*_t)²)."""
    R, epsilon = 2.0, 0.1
    X, y, u, star = _realizable(seed, 300, 4, R, epsilon, noise=noise)
    params = dict(variant="PA-II", C=C, epsilon=epsilon, fit_intercept=False)
    model = olearn.PassiveAggressiveRegressor(**params).fit(X, y)
    # recompute the online ε-losses from the model's own trajectory: replay with learn_one
    replay = olearn.PassiveAggressiveRegressor(**params).partial_fit(X[:1], y[:1])
    losses = [max(0.0, abs(y[0]) - epsilon)]
    for x, target in zip(X[1:], y[1:], strict=True):
        losses.append(max(0.0, abs(target - replay.predict_one((np.arange(4), x))) - epsilon))
        replay.learn_one((np.arange(4), x), target)
    np.testing.assert_allclose(replay.coef_, model.coef_, atol=1e-9)
    bound = (R * R + 1 / (2 * C)) * (u @ u + 2 * C * np.sum(star**2))
    assert np.sum(np.square(losses)) <= bound * (1 + 1e-9)


def test_learn_one_equals_partial_fit():
    X, Xd, y = _data(n=100, sparse=True, seed=6)
    a = olearn.SGDRegressor(alpha=0.1).partial_fit(X[:5], y[:5])
    b = olearn.SGDRegressor(alpha=0.1).partial_fit(X[:5], y[:5])
    a.partial_fit(X[5:], y[5:])
    for i in range(5, 100):
        row = X[i]
        b.learn_one(dict(zip(row.indices.tolist(), row.data.tolist(), strict=True)), y[i])
    np.testing.assert_allclose(a.predict(Xd), b.predict(Xd), rtol=1e-9)
    assert b.predict_one({0: 1.0}) == pytest.approx(b.predict(np.array([[1.0, 0, 0, 0, 0]]))[0])


@pytest.mark.parametrize("bad, match", [(np.nan, "NaN"), ("a", "numeric")])
def test_bad_targets_leave_the_model_untouched(bad, match):
    X, _, y = _data(n=50, seed=7)
    model = olearn.AROWRegressor().fit(X, y)
    state = {k: v.copy() for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    targets = np.array([1.0, bad, 2.0], dtype=object if isinstance(bad, str) else float)
    with pytest.raises(ValueError, match=match):
        model.partial_fit(X[:3], targets)
    for key, value in state.items():
        np.testing.assert_array_equal(getattr(model, key), value)


@pytest.mark.parametrize(
    "make", [olearn.PassiveAggressiveRegressor, olearn.SGDRegressor, olearn.NORMARegressor]
)
def test_targets_of_every_numeric_form_learn_as_float64(make):
    """Integer, float32, strided (a column of a 2-D array), list and Series targets, and NaN
    among them, are read as the float64 copy is (``check_regression_targets``: arrays and
    Series skip ``column_or_1d``, lists take it)."""
    X, _, y = _data(n=60, seed=8)
    y = np.round(y * 4)  # exact in every form below
    expected = make().partial_fit(X[:30], y[:30]).partial_fit(X[30:], y[30:]).predict(X)
    import pandas as pd

    forms = (y.astype(np.int64), y.astype(np.float32), np.c_[y, y][:, 1], y.tolist(), pd.Series(y))
    for form in forms:
        model = make()
        model.partial_fit(X[:30], form[:30])
        model.partial_fit(X[30:], form[30:])
        np.testing.assert_array_equal(model.predict(X), expected)
        kind = np.asarray(form).dtype
        bad = np.array([1.0, np.nan], dtype=kind if kind.kind == "f" else np.float64)
        with pytest.raises(ValueError, match="NaN or infinity"):
            model.partial_fit(X[:2], bad)


def test_invalid_hyperparameters():
    X, _, y = _data(n=10)
    with pytest.raises(ValueError, match="alpha > 0"):
        olearn.SGDRegressor(schedule="inverse", alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        olearn.PassiveAggressiveRegressor(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="r"):
        olearn.AROWRegressor(r=0.0).fit(X, y)
