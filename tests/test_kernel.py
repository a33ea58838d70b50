"""Kernel learners against their literal NumPy oracles (tests/reference/kernel.py), the linear
engine, and each other."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from reference.kernel import KernelOracle
from sklearn.datasets import make_blobs, make_moons

from olearn import (
    BudgetedSGDClassifier,
    KernelPAClassifier,
    KernelPARegressor,
    KernelPegasosClassifier,
    KernelPerceptronClassifier,
    NORMAClassifier,
    NORMARegressor,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
)

N = 600  # rounds per oracle comparison (≥ 500)


def moons(n=N, seed=0):
    X, y = make_moons(n, noise=0.35, random_state=seed)
    return X, y


def blobs(n=N, seed=0):
    X, y = make_blobs(n, centers=3, n_features=4, cluster_std=3.0, random_state=seed)
    return X / 4.0, y


def wave(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


_RULES = {
    KernelPerceptronClassifier: lambda e: ("perceptron", ()),
    KernelPAClassifier: lambda e: (
        {"PA": "pa", "PA-I": "pa1", "PA-II": "pa2"}[e.variant],
        () if e.variant == "PA" else (e.C,),
    ),
    KernelPARegressor: lambda e: (
        {"PA": "pa", "PA-I": "pa1", "PA-II": "pa2"}[e.variant],
        () if e.variant == "PA" else (e.C,),
    ),
    NORMAClassifier: lambda e: ("norma_hinge", (e.eta, e.lam, e.rho)),
    NORMARegressor: lambda e: ("norma_epsilon", (e.eta, e.lam)),
    KernelPegasosClassifier: lambda e: ("pegasos", (e.lam,)),
    BudgetedSGDClassifier: lambda e: ("pegasos", (e.lam,)),
}


def oracle_for(est, y):
    """An oracle with the estimator's fitted configuration, and y encoded for it."""
    rule, hp = _RULES[type(est)](est)
    regression = isinstance(est, (KernelPARegressor, NORMARegressor))
    if regression:
        task, n_rows, y_enc = "regression", 1, np.asarray(y, float)
    elif len(est.classes_) > 2:
        task, n_rows = "multiclass", len(est.classes_)
        y_enc = np.searchsorted(est.classes_, y).astype(float)
    else:
        task, n_rows = "binary", 1
        y_enc = np.where(y == est.classes_[1], 1.0, -1.0)
    budget = est.budget or 0
    maintenance = est.maintenance
    if getattr(est, "truncation", None):
        budget, maintenance = est.truncation, "oldest"
    oracle = KernelOracle(
        rule=rule,
        hp=hp,
        kernel=est.kernel,
        gamma=est.gamma_,
        degree=est.degree,
        coef0=est.coef0,
        bias=1.0 if est.fit_intercept else 0.0,
        task=task,
        n_rows=n_rows,
        budget=budget,
        maintenance=maintenance,
        epsilon=getattr(est, "epsilon", 0.0),
        jitter=est._jitter,
    )
    return oracle, y_enc


def dense(a):
    return a.toarray() if sp.issparse(a) else a


def assert_matches_oracle(est, X, y, X_test, tol=1e-9):
    oracle, y_enc = oracle_for(est, y)
    Xd = dense(X)
    for x, target in zip(Xd, y_enc, strict=True):
        oracle.learn(x, target)
    assert est.n_rounds_ == len(y) >= 500
    assert est.n_updates_ == oracle.updates
    assert est.n_mistakes_ == oracle.mistakes
    assert est.n_support_ == len(oracle.SV)
    assert est.n_support_ > 0
    np.testing.assert_allclose(dense(est.support_vectors_), np.array(oracle.SV), rtol=tol, atol=tol)
    np.testing.assert_allclose(est.dual_coef_, oracle.dual_coef(), rtol=tol, atol=tol)
    np.testing.assert_allclose(est.intercept_, oracle.b * oracle.bias, rtol=tol, atol=tol)
    np.testing.assert_allclose(
        est._scores(X_test), oracle.decision(dense(X_test)), rtol=tol, atol=tol
    )


CASES = {
    "perceptron-rbf": (KernelPerceptronClassifier(gamma=1.0), moons),
    "perceptron-poly-multiclass": (
        KernelPerceptronClassifier(kernel="poly", gamma=0.5, degree=2, coef0=1.0),
        blobs,
    ),
    "pa-linear-no-intercept": (
        KernelPAClassifier(variant="PA", kernel="linear", fit_intercept=False),
        moons,
    ),
    "pa1-rbf-multiclass": (KernelPAClassifier(variant="PA-I", C=0.5, gamma=0.5), blobs),
    "pa2-poly": (
        KernelPAClassifier(variant="PA-II", C=2.0, kernel="poly", degree=3, gamma=0.5, coef0=1),
        moons,
    ),
    "pa-regression": (KernelPARegressor(variant="PA-I", C=1.0, epsilon=0.1, gamma=1.0), wave),
    "pa2-regression-budget": (
        KernelPARegressor(
            variant="PA-II", C=1.0, epsilon=0.2, gamma=3.0, budget=40, maintenance="project"
        ),
        wave,
    ),
    "norma": (NORMAClassifier(eta=0.5, lam=0.1, rho=1.0, gamma=1.0), moons),
    "norma-truncation": (NORMAClassifier(eta=0.5, lam=0.05, rho=0.5, truncation=30), moons),
    "norma-regression": (NORMARegressor(eta=0.5, lam=0.1, epsilon=0.1), wave),
    "pegasos-multiclass": (KernelPegasosClassifier(lam=0.01, gamma=0.5), blobs),
    "bsgd-remove": (BudgetedSGDClassifier(budget=20, maintenance="remove", lam=0.01), moons),
    # Projection solves a kernel system: a well-conditioned one (narrow RBF) for 1e-9 equality.
    "bsgd-project": (
        BudgetedSGDClassifier(budget=20, maintenance="project", lam=0.01, gamma=3.0),
        moons,
    ),
    "bsgd-merge": (BudgetedSGDClassifier(budget=20, maintenance="merge", lam=0.01), moons),
    "bsgd-merge-multiclass": (
        BudgetedSGDClassifier(budget=15, maintenance="merge", lam=0.01, gamma=0.5),
        blobs,
    ),
    "bsgd-project-poly-multiclass": (
        BudgetedSGDClassifier(
            budget=10,
            maintenance="project",
            lam=0.01,
            kernel="poly",
            degree=3,
            gamma=0.5,
            coef0=1.0,
        ),
        blobs,
    ),
    "perceptron-budget-remove-linear": (
        KernelPerceptronClassifier(kernel="linear", budget=10, maintenance="remove"),
        moons,
    ),
}


SPARSE_CASES = ["pa1-rbf-multiclass", "norma", "bsgd-project", "bsgd-merge"]


@pytest.mark.parametrize(
    "name, sparse",
    [(name, False) for name in CASES] + [(name, True) for name in SPARSE_CASES],
)
def test_matches_oracle(name, sparse):
    """≥ 500 rounds of every algorithm equal the literal NumPy oracle to 1e-9 (dense input, and
    CSR input on a representative subset: sparse storage, pool compaction, sparse merging)."""
    est, data = CASES[name]
    X, y = data()
    X_test, _ = data(50, seed=1)
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    est = est.__class__(**est.get_params()).fit(X, y)
    if "budget" in name or "bsgd" in name or "truncation" in name:
        assert est.stats_[5] > 50, "budget maintenance must run often in this test"
    assert_matches_oracle(est, X, y, X_test)


# -- the linear engine as a cross-check -------------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize(
    "kernel_model, linear_model",
    [
        (KernelPerceptronClassifier(kernel="linear"), PerceptronClassifier()),
        (KernelPAClassifier(variant="PA", kernel="linear"), PassiveAggressiveClassifier("PA")),
        (
            KernelPAClassifier(variant="PA-I", C=0.3, kernel="linear"),
            PassiveAggressiveClassifier("PA-I", C=0.3),
        ),
        (
            KernelPAClassifier(variant="PA-II", C=0.3, kernel="linear"),
            PassiveAggressiveClassifier("PA-II", C=0.3),
        ),
    ],
    ids=["perceptron", "pa", "pa1", "pa2"],
)
def test_linear_kernel_equals_linear_engine(kernel_model, linear_model, fit_intercept):
    """With k(x, z) = x·z and no budget, the expansion is the linear model: w = Σ α_i x_i and
    the intercept is the coefficient of the constant feature in both."""
    X, y = moons()
    X_test, _ = moons(200, seed=1)
    kernel_model.set_params(fit_intercept=fit_intercept).fit(X, y)
    linear_model.set_params(fit_intercept=fit_intercept).fit(X, y)
    w = kernel_model.dual_coef_ @ kernel_model.support_vectors_
    np.testing.assert_allclose(w, linear_model.coef_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(kernel_model.intercept_, linear_model.intercept_, atol=1e-9)
    np.testing.assert_allclose(
        kernel_model.decision_function(X_test),
        linear_model.decision_function(X_test),
        rtol=1e-9,
        atol=1e-9,
    )
    np.testing.assert_array_equal(kernel_model.predict(X_test), linear_model.predict(X_test))
    assert kernel_model.n_mistakes_ == linear_model.n_mistakes_
    assert kernel_model.n_updates_ == linear_model.n_updates_


# -- budgets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("maintenance", ["remove", "project", "merge"])
@pytest.mark.parametrize(
    "model, data",
    [
        (KernelPegasosClassifier(lam=0.01), moons),  # with a budget: BudgetedSGDClassifier
        (KernelPAClassifier(), blobs),
        (KernelPARegressor(), wave),
    ],
    ids=["bsgd", "pa-multiclass", "pa-regression"],
)
def test_large_budget_equals_unbudgeted(model, data, maintenance):
    """B ≥ number of updates: maintenance never runs and every strategy is the plain model."""
    X, y = data(300)
    free = model.set_params(budget=None).fit(X, y)
    budgeted = clone_with(model, budget=free.n_support_, maintenance=maintenance).fit(X, y)
    assert budgeted.stats_[5] == 0
    np.testing.assert_array_equal(budgeted.dual_coef_, free.dual_coef_)
    np.testing.assert_array_equal(budgeted.support_vectors_, free.support_vectors_)
    np.testing.assert_array_equal(budgeted._scores(X), free._scores(X))
    # One vector fewer and maintenance runs: the models differ.
    tight = clone_with(model, budget=free.n_support_ - 1, maintenance=maintenance).fit(X, y)
    assert tight.stats_[5] == 1
    assert not np.array_equal(tight._scores(X), free._scores(X))


def clone_with(model, **params):
    from sklearn.base import clone

    return clone(model).set_params(**params)


@pytest.mark.parametrize("maintenance", ["remove", "project", "merge"])
def test_budget_is_respected_and_sparse_equals_dense(maintenance):
    X, y = blobs(400)
    dense_model = BudgetedSGDClassifier(budget=12, maintenance=maintenance, lam=0.01).fit(X, y)
    sparse_model = BudgetedSGDClassifier(budget=12, maintenance=maintenance, lam=0.01).fit(
        sp.csr_matrix(X), y
    )
    assert dense_model.n_support_ == sparse_model.n_support_ == 12
    assert dense_model.dual_coef_.shape == (3, 12)
    np.testing.assert_allclose(
        sparse_model.support_vectors_.toarray(), dense_model.support_vectors_, atol=1e-12
    )
    np.testing.assert_allclose(sparse_model.dual_coef_, dense_model.dual_coef_, atol=1e-12)


def test_streaming_equals_batch_and_grows_storage():
    """partial_fit in chunks is fit; the unbudgeted set outgrows its initial capacity."""
    X, y = moons(1500)
    batch = KernelPAClassifier(gamma=1.0).fit(X, y)
    stream = KernelPAClassifier(gamma=1.0)
    for chunk in np.array_split(np.arange(len(y)), 7):
        stream.partial_fit(X[chunk], y[chunk], classes=[0, 1])
    assert stream.n_support_ > 2 * len(y) // 7  # more than the first chunk's capacity
    # gamma is fixed, so the chunks see the same kernel as the batch.
    np.testing.assert_allclose(stream.dual_coef_, batch.dual_coef_, atol=1e-12)
    Xs = sp.csr_matrix(X)
    sparse_stream = KernelPAClassifier(gamma=1.0)
    for chunk in np.array_split(np.arange(len(y)), 15):  # small pool: it must grow
        sparse_stream.partial_fit(Xs[chunk], y[chunk], classes=[0, 1])
    np.testing.assert_allclose(sparse_stream.dual_coef_, batch.dual_coef_, atol=1e-12)
    assert sparse_stream._pool_val.shape[0] > 4 * 100 * 2


def test_new_class_in_partial_fit_keeps_binary_decisions():
    X, y = blobs(300)
    two = y < 2
    model = KernelPAClassifier(gamma=0.5).partial_fit(X[two], y[two])
    before = model.predict(X)
    binary_scores = model.decision_function(X)
    model._grow_classes(np.array([2]))  # what partial_fit does on meeting label 2
    assert list(model.classes_) == [0, 1, 2]
    scores = model.decision_function(X)
    # Rows ±w/2: the old classes keep their score difference, the new one starts at 0.
    np.testing.assert_allclose(scores[:, 1] - scores[:, 0], binary_scores, atol=1e-12)
    np.testing.assert_array_equal(scores[:, 2], 0.0)
    np.testing.assert_array_equal(np.where(scores[:, 1] > scores[:, 0], 1, 0), before)
    model.partial_fit(X, y)
    assert model.score(X, y) > 0.6


def test_user_kernel_equals_builtin():
    """A plain Python kernel (olearn compiles it with numba) reproduces the built-in RBF."""

    def rbf(a, b):
        s = 0.0
        for j in range(a.shape[0]):
            s += (a[j] - b[j]) ** 2
        return np.exp(-0.7 * s)

    X, y = blobs(300)
    builtin = BudgetedSGDClassifier(budget=10, maintenance="project", lam=0.01, gamma=0.7)
    user = BudgetedSGDClassifier(budget=10, maintenance="project", lam=0.01, kernel=rbf)
    builtin.fit(X, y)
    user.fit(sp.csr_matrix(X), y)  # user kernels see dense rows
    np.testing.assert_allclose(user.dual_coef_, builtin.dual_coef_, atol=1e-9)
    np.testing.assert_allclose(user.decision_function(X), builtin.decision_function(X), atol=1e-9)


# -- what the models learn ------------------------------------------------------------------------


def test_rbf_models_solve_a_nonlinear_task_linear_ones_cannot():
    X, y = make_moons(1000, noise=0.1, random_state=0)
    X_test, y_test = make_moons(500, noise=0.1, random_state=1)
    linear = PassiveAggressiveClassifier().fit(X, y).score(X_test, y_test)
    for model in (
        KernelPerceptronClassifier(gamma=2.0),
        KernelPAClassifier(gamma=2.0),
        NORMAClassifier(gamma=2.0, lam=0.01),
        KernelPegasosClassifier(gamma=2.0, lam=1e-3),
        BudgetedSGDClassifier(budget=30, gamma=2.0, lam=1e-3),
    ):
        assert model.fit(X, y).score(X_test, y_test) > max(linear + 0.05, 0.9), model


def test_perceptron_mistake_bound_in_feature_space():
    """Novikoff: on data separable with margin γ in the RBF feature space (‖φ(x)‖ = 1, plus the
    constant feature: R² = 2), mistakes ≤ R²/γ² — here the labels come from a known expansion."""
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(5, 2))
    coef = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    X = rng.normal(size=(3000, 2))
    f = np.exp(-((X[:, None, :] - centres[None]) ** 2).sum(-1)) @ coef
    keep = np.abs(f) > 0.2
    X, y = X[keep], np.sign(f[keep])
    # u = Σ coef_i φ(c_i) has ‖u‖² = coefᵀ K coef; margin y u·φ(x) ≥ 0.2.
    K = np.exp(-((centres[:, None] - centres[None]) ** 2).sum(-1))
    bound = 2.0 * (coef @ K @ coef) / 0.2**2
    model = KernelPerceptronClassifier(gamma=1.0).fit(X, y)
    assert model.n_mistakes_ <= bound


# -- properties on random streams -------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@hypothesis.settings(max_examples=40, deadline=None)
@hypothesis.given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 60),
    d=st.integers(1, 4),
    n_classes=st.integers(1, 4),
    budget=st.integers(1, 12),
    maintenance=st.sampled_from(["remove", "project", "merge"]),
    sparse=st.booleans(),
)
def test_budget_bound_and_expansion_on_random_streams(
    seed, n, d, n_classes, budget, maintenance, sparse
):
    """Whatever the stream: never more than B support vectors, finite coefficients, and the
    scores are exactly the expansion Σ_i A[i, r] k(x_i, x) + b_r of the stored vectors."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    y = rng.integers(0, n_classes, size=n)
    model = BudgetedSGDClassifier(budget=budget, maintenance=maintenance, lam=0.05, gamma=0.5)
    model.fit(sp.csr_matrix(X) if sparse else X, y)
    assert model.n_support_ <= budget
    assert np.isfinite(model.dual_coef_).all()
    SV = dense(model.support_vectors_)
    K = np.exp(-0.5 * ((X[:, None, :] - SV[None]) ** 2).sum(-1))
    expected = K @ model.dual_coef_.T + model.intercept_
    np.testing.assert_allclose(model._scores(X), expected, rtol=1e-9, atol=1e-9)
