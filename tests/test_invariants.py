"""Invariants that must hold across the estimators, checked as a property-based tester would:
the same examples reached by different paths (fit, partial_fit over any chunks, learn_one,
input forms, weights, labels, copies, model files) give the same model.

Each assertion is a promise of the docs (README, docs/tasks.md, docs/kernels.md): bit for bit
where they say so, else to 1e-12. Small data, few examples: the file runs in seconds."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import olearn
from olearn import (
    AROWClassifier,
    AROWRegressor,
    BudgetedSGDClassifier,
    CWClassifier,
    JointFeatureClassifier,
    KernelPAClassifier,
    KernelPARegressor,
    KernelPegasosClassifier,
    KernelPerceptronClassifier,
    NORMAClassifier,
    NORMARegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
    SGDRegressor,
)

pytestmark = pytest.mark.filterwarnings("ignore")

LINEAR = [
    (PerceptronClassifier, {}),
    (PerceptronClassifier, {"average": True}),
    (PassiveAggressiveClassifier, {}),
    (PassiveAggressiveClassifier, {"variant": "PA-II"}),
    (SecondOrderPerceptronClassifier, {}),
    (CWClassifier, {}),
    (CWClassifier, {"covariance": "full"}),
    (AROWClassifier, {}),
    (AROWClassifier, {"covariance": "full"}),
    (SCWClassifier, {}),
    (SCWClassifier, {"variant": "II"}),
]
# a fixed gamma: "scale" is computed from the first batch (docs/kernels.md)
KERNEL = [
    (KernelPerceptronClassifier, {"gamma": 0.5}),
    (KernelPAClassifier, {"gamma": 0.5}),
    (NORMAClassifier, {"gamma": 0.5}),
    (KernelPegasosClassifier, {"gamma": 0.5}),
    (BudgetedSGDClassifier, {"gamma": 0.5, "budget": 8}),
]
REGRESSORS = [
    (PassiveAggressiveRegressor, {}),
    (AROWRegressor, {}),
    (AROWRegressor, {"covariance": "full"}),
    (SGDRegressor, {}),
    (KernelPARegressor, {"gamma": 0.5}),
    (NORMARegressor, {"gamma": 0.5}),
]
CLASSIFIERS = LINEAR + KERNEL
COUNTERS = ("n_mistakes_", "n_updates_", "n_rounds_")


def _ids(cases):
    return [f"{cls.__name__}{kw or ''}" for cls, kw in cases]


def _data(seed=0, n=30, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    ym = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(n, 3)), axis=1)
    yr = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    return X, y, ym, yr


def _out(model, X):
    return model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)


def _same(a, b, atol=0.0):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    if atol:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=atol)
    else:
        np.testing.assert_array_equal(a, b)


def _same_counters(a, b):
    for name in COUNTERS:
        if hasattr(a, name):
            assert getattr(a, name) == getattr(b, name), name


# -- a row of weight 0 is as if absent ------------------------------------------------------


@pytest.mark.parametrize(("cls", "kw"), CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_zero_weight_row_of_a_new_label_adds_no_class(cls, kw):
    """docs/tasks.md: "A row of weight 0 is skipped ... exactly as if it were absent". Its
    label used to join classes_ in fit and partial_fit (not in learn_one): a binary model
    became a three-class one and predicted a class it never learned."""
    X, y, _, _ = _data(1, n=20)
    y = y.copy()
    y[-2:] = 2
    w = np.ones(20)
    w[-2:] = 0.0
    weighted = cls(**kw).fit(X, y, sample_weight=w)
    removed = cls(**kw).fit(X[:-2], y[:-2])
    assert list(weighted.classes_) == [0, 1]
    if cls not in (KernelPerceptronClassifier, KernelPAClassifier, NORMAClassifier):
        _same(_out(weighted, X), _out(removed, X))  # (fixed gamma: same expansion)
    else:
        _same(_out(weighted, X), _out(removed, X), atol=1e-12)
    _same_counters(weighted, removed)
    # partial_fit, one call and row by row; learn_one already skipped the label
    chunk = cls(**kw).partial_fit(X, y, sample_weight=w)
    assert list(chunk.classes_) == [0, 1]
    by_row, events = cls(**kw), cls(**kw)
    for i in range(20):
        by_row.partial_fit(X[i : i + 1], y[i : i + 1], sample_weight=w[i : i + 1])
        first = {"n_features": X.shape[1]} if i == 0 else {}
        events.learn_one((np.arange(X.shape[1]), X[i]), y[i], sample_weight=w[i], **first)
    assert list(by_row.classes_) == list(events.classes_) == [0, 1]
    _same(_out(by_row, X), _out(events, X), atol=1e-12)
    # an announced label stays a class
    announced = cls(**kw).partial_fit(X, y, classes=[0, 1, 2], sample_weight=w)
    assert list(announced.classes_) == [0, 1, 2]


def test_zero_weight_row_of_a_new_label_adds_no_class_multiclass_and_joint():
    X, _, ym, _ = _data(2, n=24)
    y = ym.copy()
    y[5] = 7
    w = np.ones(24)
    w[5] = 0.0
    keep = w > 0
    model = AROWClassifier().fit(X, y, sample_weight=w)
    assert list(model.classes_) == [0, 1, 2]
    _same(model.decision_function(X), AROWClassifier().fit(X[keep], y[keep]).decision_function(X))
    fitted = AROWClassifier().fit(X, ym)
    fitted.partial_fit(X[:6], y[:6], sample_weight=w[:6])
    assert list(fitted.classes_) == [0, 1, 2]

    def phi(Z, label):
        out = np.zeros((Z.shape[0], 3 * Z.shape[1]))
        j = int(label) % 3
        out[:, j * Z.shape[1] : (j + 1) * Z.shape[1]] = Z
        return out

    joint = JointFeatureClassifier(feature_map=phi).fit(X, y, sample_weight=w)
    plain = JointFeatureClassifier(feature_map=phi).fit(X[keep], y[keep])
    assert list(joint.classes_) == [0, 1, 2]
    _same(joint.predict(X), plain.predict(X))
    streamed = JointFeatureClassifier(feature_map=phi).partial_fit(X, y, sample_weight=w)
    assert list(streamed.classes_) == [0, 1, 2]


# -- paths to the same model -----------------------------------------------------------------


@settings(max_examples=6, deadline=None)
@given(cuts=st.lists(st.integers(1, 29), max_size=4, unique=True), multiclass=st.booleans())
def test_fit_equals_partial_fit_over_any_chunks(cuts, multiclass):
    X, y, ym, _ = _data(3)
    labels = ym if multiclass else y
    bounds = [0, *sorted(cuts), len(X)]
    for cls, kw in CLASSIFIERS:
        whole = cls(**kw).fit(X, labels)
        chunked = cls(**kw)
        for a, b in zip(bounds, bounds[1:], strict=False):
            chunked.partial_fit(X[a:b], labels[a:b], classes=np.unique(labels))
        _same(_out(chunked, X), _out(whole, X), atol=1e-12)
        _same_counters(chunked, whole)


@settings(max_examples=4, deadline=None)
@given(cuts=st.lists(st.integers(1, 29), max_size=3, unique=True))
def test_regressors_fit_equals_partial_fit_over_any_chunks(cuts):
    X, _, _, yr = _data(4)
    bounds = [0, *sorted(cuts), len(X)]
    for cls, kw in REGRESSORS:
        whole = cls(**kw).fit(X, yr)
        chunked = cls(**kw)
        for a, b in zip(bounds, bounds[1:], strict=False):
            chunked.partial_fit(X[a:b], yr[a:b])
        # (SGD folds its weight scale at the end of each call: equal up to rounding)
        _same(chunked.predict(X), whole.predict(X), atol=1e-12)
        _same_counters(chunked, whole)


@pytest.mark.parametrize(
    ("cls", "kw"), CLASSIFIERS + REGRESSORS, ids=_ids(CLASSIFIERS + REGRESSORS)
)
def test_learn_one_is_a_one_row_partial_fit(cls, kw):
    X, y, ym, yr = _data(5, n=20)
    targets = [yr] if cls in dict(REGRESSORS) else [y, ym]
    kernel = "gamma" in kw
    for labels in targets:
        rows, events = cls(**kw), cls(**kw)
        for i in range(len(X)):
            # a kernel model started by learn_one stores sparse vectors: compare CSR rows
            rows.partial_fit(
                sp.csr_matrix(X[i : i + 1]) if kernel else X[i : i + 1], labels[i : i + 1]
            )
            first = {"n_features": X.shape[1]} if i == 0 else {}
            events.learn_one(dict(enumerate(X[i])), labels[i], **first)
        _same(_out(events, X), _out(rows, X), atol=0.0 if kernel else 1e-12)
        _same_counters(events, rows)
        one = [events.predict_one(dict(enumerate(x))) for x in X[:5]]
        if cls in dict(REGRESSORS):
            _same(one, rows.predict(X[:5]), atol=1e-12)
        else:
            assert one == list(rows.predict(X[:5]))


@pytest.mark.parametrize(("cls", "kw"), LINEAR + REGRESSORS[:4], ids=_ids(LINEAR + REGRESSORS[:4]))
def test_input_forms_give_the_same_model_bit_for_bit(cls, kw):
    X, y, ym, yr = _data(6)
    targets = [yr] if cls in dict(REGRESSORS) else [y, ym]
    X32 = X.astype(np.float32)
    for labels in targets:
        reference = cls(**kw).fit(X, labels).weights_
        for form in (
            sp.csr_matrix(X),
            sp.csc_matrix(X),
            sp.coo_matrix(X),
            np.asfortranarray(X),
            pd.DataFrame(X, columns=list("abcd")),
            np.zeros((30, 8))[:, ::2] + X,
        ):
            _same(cls(**kw).fit(form, labels).weights_, reference)
        reference32 = cls(**kw).fit(X32.astype(np.float64), labels).weights_
        for form in (X32, np.asfortranarray(X32), sp.csr_matrix(X32)):
            _same(cls(**kw).fit(form, labels).weights_, reference32)


# -- weights and labels ----------------------------------------------------------------------


@pytest.mark.parametrize(("cls", "kw"), CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_weights_and_class_weights_of_one_are_none(cls, kw):
    X, y, ym, _ = _data(7)
    for labels in (y, ym):
        reference = _out(cls(**kw).fit(X, labels), X)
        _same(_out(cls(**kw).fit(X, labels, sample_weight=np.ones(len(X))), X), reference)
        ones = {c: 1.0 for c in np.unique(labels)}
        _same(_out(cls(class_weight=ones, **kw).fit(X, labels), X), reference)
        by_class = {c: float(i + 2) for i, c in enumerate(np.unique(labels))}
        sw = np.array([by_class[c] for c in labels])
        _same(
            _out(cls(class_weight=by_class, **kw).fit(X, labels), X),
            _out(cls(**kw).fit(X, labels, sample_weight=sw), X),
        )


@pytest.mark.parametrize(("cls", "kw"), CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_relabelled_classes_give_the_same_scores(cls, kw):
    """Binary labels of any kind (the last sorted class is +1), and an order-preserving
    renaming of the classes (a permutation that changes their order changes which wrong
    class wins a tie, so it may change the model)."""
    X, y, ym, _ = _data(8)
    reference = cls(**kw).fit(X, y)
    for labels in (np.where(y == 1, "b", "a"), np.where(y == 1, 1, -1), y.astype(bool), y + 10.0):
        model = cls(**kw).fit(X, labels)
        _same(model.decision_function(X), reference.decision_function(X))
        assert list(model.predict(X)) == list(model.classes_[reference.predict(X)])
    reference = cls(**kw).fit(X, ym)
    names = np.array(["ant", "bee", "cat"])
    model = cls(**kw).fit(X, names[ym])
    _same(model.decision_function(X), reference.decision_function(X))
    assert list(model.predict(X)) == list(names[reference.predict(X)])


@pytest.mark.parametrize("average", [False, True])
def test_perceptron_without_intercept_is_invariant_to_positive_scaling(average):
    X, y, ym, _ = _data(9)
    for labels in (y, ym):
        model = PerceptronClassifier(fit_intercept=False, average=average).fit(X, labels)
        scaled = PerceptronClassifier(fit_intercept=False, average=average).fit(3.5 * X, labels)
        assert scaled.n_mistakes_ == model.n_mistakes_
        np.testing.assert_allclose(scaled.coef_, 3.5 * model.coef_, rtol=1e-12, atol=1e-12)
        assert list(scaled.predict(X)) == list(model.predict(X))


# -- predictions -----------------------------------------------------------------------------


@pytest.mark.parametrize(("cls", "kw"), CLASSIFIERS, ids=_ids(CLASSIFIERS))
def test_predict_is_the_argmax_and_probabilities_follow_the_classes(cls, kw):
    X, y, ym, _ = _data(10)
    for labels in (np.where(y == 1, "yes", "no"), ym):
        model = cls(**kw).fit(X, labels)
        scores = model.decision_function(X)
        best = (scores > 0).astype(int) if scores.ndim == 1 else np.argmax(scores, axis=1)
        assert list(model.predict(X)) == list(model.classes_[best])
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(X)
            assert proba.shape == (len(X), len(model.classes_))
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
            if scores.ndim == 1:  # P(classes_[1]) = Φ(s/√v): above 1/2 where s > 0
                assert list(proba[:, 1] > 0.5) == list(scores > 0)
            one = model.predict_proba_one(dict(enumerate(X[0])))
            _same([one[c] for c in model.classes_], proba[0], atol=1e-12)


# -- copies, files, parameters --------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "kw"), CLASSIFIERS + REGRESSORS, ids=_ids(CLASSIFIERS + REGRESSORS)
)
def test_copies_and_model_files_predict_and_learn_on_identically(cls, kw, tmp_path):
    X, y, ym, yr = _data(11)
    targets = [yr] if cls in dict(REGRESSORS) else [y, ym]
    for k, labels in enumerate(targets):
        model = cls(**kw).fit(X, labels)
        olearn.save(model, tmp_path / f"m{k}.olearn")
        loaded = olearn.load(tmp_path / f"m{k}.olearn")
        copied = copy.deepcopy(model)
        refitted = clone(model).set_params(**model.get_params()).fit(X, labels)
        for other in (loaded, copied, refitted):
            _same(_out(other, X), _out(model, X))
            _same_counters(other, model)
        for other in (loaded, copied, model):
            other.partial_fit(X[:7], labels[:7])
            other.learn_one(dict(enumerate(X[8])), labels[8])
        for other in (loaded, copied):
            _same(_out(other, X), _out(model, X))
            _same_counters(other, model)


@pytest.mark.parametrize(
    ("cls", "kw"), CLASSIFIERS + REGRESSORS, ids=_ids(CLASSIFIERS + REGRESSORS)
)
def test_max_iter_passes_are_fit_then_partial_fits(cls, kw):
    X, y, ym, yr = _data(12, n=20)
    labels = yr if cls in dict(REGRESSORS) else ym
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        twice = cls(max_iter=2, **kw).fit(X, labels)
        stepwise = cls(**kw).fit(X, labels).partial_fit(X, labels)
    _same(_out(twice, X), _out(stepwise, X), atol=1e-12)
    _same_counters(twice, stepwise)


def test_headless_training_skips_the_label_of_a_zero_weight_row():
    """``olearn train`` (the headless model) learns VW importance weights as partial_fit
    does: a line of weight 0 is as if absent, its label included."""
    from olearn.cli import algorithms
    from olearn.estimators import _headless

    X, y, _, _ = _data(13, n=20)
    X = sp.csr_matrix(X)
    y = y.astype(np.float64)
    y[-2:] = 2.0
    w = np.ones(20)
    w[-2:] = 0.0
    path = "olearn.estimators.arow.AROWClassifier"
    model = _headless.headless_model(path, algorithms.catalogue()[path]["init"])
    model.learn_rows(X.data, X.indptr, X.indices, X.shape[1], y, 0, 20, sample_weight=w)
    estimator = AROWClassifier().partial_fit(X, y, sample_weight=w)
    assert list(model.classes_) == list(estimator.classes_) == [0.0, 1.0]
    _same(model.weights_, estimator.weights_)
    _same(model.variances_, estimator.variances_)


@pytest.mark.parametrize(
    "cls",
    [AROWClassifier, CWClassifier, SCWClassifier, SecondOrderPerceptronClassifier, AROWRegressor],
)
def test_the_prior_a_cannot_change_after_fitting(cls):
    """docs/tasks.md: a fitted model follows set_params, or refuses a parameter that its
    state was built from. The prior a·I was silently half-followed: the fitted covariance
    kept the old prior while classes met later and the variance floor took the new one."""
    X, y, _, yr = _data(14, n=20)
    labels = yr if cls is AROWRegressor else y
    model = cls().fit(X, labels)
    before = _out(model, X)
    model.set_params(a=10.0)
    with pytest.raises(ValueError, match="a cannot change after fitting"):
        model.partial_fit(X, labels)
    with pytest.raises(ValueError, match="a cannot change after fitting"):
        model.predict(X)
    _same(_out(model.set_params(a=1.0), X), before)  # set back: the model as it was
    continued = copy.deepcopy(model).partial_fit(X, labels)
    _same(_out(model.partial_fit(X, labels), X), _out(continued, X))
    _same(_out(model.set_params(a=10.0).fit(X, labels), X), _out(cls(a=10.0).fit(X, labels), X))


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
@pytest.mark.parametrize("sparse", [False, True])
def test_projection_follows_a_new_gamma(kernel, sparse):
    """docs/kernels.md: a numeric gamma set on a fitted model replaces gamma_, and projection
    keeps (K + δI)⁻¹ over the support vectors. The inverse kept the old kernel's: every
    projection after set_params(gamma=...) used another kernel's Gram matrix."""
    from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

    rng = np.random.default_rng(15)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    form = sp.csr_matrix if sparse else np.asarray
    model = KernelPAClassifier(kernel=kernel, budget=6, maintenance="project", gamma=0.5)
    model.fit(form(X[:30]), y[:30])
    model.set_params(gamma=2.0)
    model.partial_fit(form(X[30:]), y[30:])
    assert model.stats_[5] > 0  # projections ran after the change
    n = int(model.n_support_)
    SV = model.support_vectors_
    SV = SV.toarray() if sp.issparse(SV) else SV
    if kernel == "rbf":
        K = rbf_kernel(SV, SV, gamma=2.0)
    else:
        K = polynomial_kernel(SV, SV, degree=model.degree, gamma=2.0, coef0=model.coef0)
    inverse = model._G[:n, :n]
    np.testing.assert_allclose(inverse @ (K + model._jitter * np.eye(n)), np.eye(n), atol=1e-6)


def test_projection_ridge_is_fixed_by_the_first_batch():
    """docs/kernels.md: δ = 1e-6 · mean k(x, x) over the first batch (1e-6 for RBF), so an
    RBF model projects as fit does over any chunks; a polynomial one has its first chunk's δ."""
    rng = np.random.default_rng(16)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    for kernel in ("rbf", "poly"):
        kw = {"kernel": kernel, "budget": 5, "maintenance": "project", "gamma": 0.5}
        whole = KernelPAClassifier(**kw).fit(X, y)
        chunked = KernelPAClassifier(**kw).partial_fit(X[:9], y[:9]).partial_fit(X[9:], y[9:])
        first = KernelPAClassifier(**kw).fit(X[:9], y[:9])
        assert chunked._jitter == first._jitter
        if kernel == "rbf":
            assert whole._jitter == chunked._jitter == 1e-6
            _same(chunked.decision_function(X), whole.decision_function(X), atol=1e-12)


@settings(max_examples=4, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 29), min_size=1, max_size=3, unique=True),
    weights=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=30, max_size=30),
    sparse=st.booleans(),
)
def test_weighted_fit_equals_weighted_partial_fit_over_any_chunks(cuts, weights, sparse):
    X, y, ym, yr = _data(17)
    w = np.array(weights)
    for labels in (y, ym):  # every class learned (fit's classes are those of the learned rows)
        w[[np.flatnonzero(labels == c)[0] for c in np.unique(labels)]] = 1.0
    bounds = [0, *sorted(cuts), len(X)]
    form = sp.csr_matrix if sparse else np.asarray
    for cls, kw in CLASSIFIERS + REGRESSORS:
        regressor = cls in dict(REGRESSORS)
        for labels in [yr] if regressor else [y, ym]:
            whole = cls(**kw).fit(form(X), labels, sample_weight=w)
            chunked = cls(**kw)
            for a, b in zip(bounds, bounds[1:], strict=False):
                extra = {} if regressor else {"classes": np.unique(labels)}
                chunked.partial_fit(form(X[a:b]), labels[a:b], sample_weight=w[a:b], **extra)
            _same(_out(chunked, X), _out(whole, X), atol=1e-12)
            _same_counters(chunked, whole)


def test_full_arow_regression_is_weighted_ridge_regression():
    """docs/tasks.md: with the full covariance one pass equals ridge regression with penalty
    r/a (the intercept a penalised constant feature); integer weights are order-free."""
    X, _, _, yr = _data(18, n=40)
    Xt = np.hstack([X, np.ones((40, 1))])
    counts = np.random.default_rng(18).integers(0, 4, 40).astype(float)
    counts[0] = 1.0
    for r, a in [(1.0, 1.0), (2.0, 0.5), (0.3, 4.0)]:
        for w in (np.ones(40), counts):
            model = AROWRegressor(covariance="full", r=r, a=a).fit(X, yr, sample_weight=w)
            ridge = np.linalg.solve(Xt.T @ (w[:, None] * Xt) + (r / a) * np.eye(5), Xt.T @ (w * yr))
            _same(np.r_[model.coef_.ravel(), model.intercept_], ridge, atol=1e-12)


@pytest.mark.parametrize(("cls", "kw"), LINEAR, ids=_ids(LINEAR))
def test_zero_one_costs_are_the_multiclass_round_exactly(cls, kw):
    """docs/tasks.md: with 0/1 costs the max-loss update "is exactly the plain multiclass
    update". The margin was s_y − s_ŷ + 1 − √1 (off in the last bits), and a tie that the
    argmax resolved to the true label was no mistake, where the multiclass task counts every
    tie (a tie is no prediction): n_mistakes_ differed by the first round."""
    X, _, ym, _ = _data(19)
    plain = cls(**kw).fit(X, ym)
    costly = cls(**kw).fit(X, ym, cost=1.0 - np.eye(3))
    _same(costly.weights_, plain.weights_)
    _same_counters(costly, plain)
    assert costly.cumulative_cost_ <= plain.n_mistakes_  # (argmax ties cost nothing)
