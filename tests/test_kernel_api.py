"""Kernel estimators: scikit-learn conformance, bad input, fitted attributes."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_moons
from sklearn.utils.estimator_checks import parametrize_with_checks

from olearn import (
    BudgetedSGDClassifier,
    KernelPAClassifier,
    KernelPARegressor,
    KernelPegasosClassifier,
    KernelPerceptronClassifier,
    NORMAClassifier,
    NORMARegressor,
    PerceptronClassifier,
)

# One pass of online learning is not a batch solver: checks that demand a batch-quality fit
# of scikit-learn's tiny test sets fail for reasons of the algorithm, not of the API.
_ONE_PASS = "one online pass does not reach the batch accuracy this check demands"
# Integer weights against repeated rows fitted in another order (the check shuffles one side):
# an online model depends on the order of its examples (tests/test_check_estimator.py).
_ORDER = (
    "the check fits the weighted rows in a shuffled order and the repeated rows in theirs; an "
    "online model depends on the order of its examples (tests/test_weights.py tests weight 0 "
    "= the row removed and the step scaled by h)"
)
_SAMPLE_WEIGHT_ORDER = {
    "check_sample_weight_equivalence_on_dense_data": _ORDER,
    "check_sample_weight_equivalence_on_sparse_data": _ORDER,
}
_EXPECTED = {
    "NORMARegressor": {"check_regressors_train": _ONE_PASS},
}


def _expected_failed_checks(estimator):
    return {**_SAMPLE_WEIGHT_ORDER, **_EXPECTED.get(type(estimator).__name__, {})}


ESTIMATORS = [
    KernelPerceptronClassifier(),
    KernelPAClassifier(),
    KernelPARegressor(),
    NORMAClassifier(),
    NORMARegressor(),
    KernelPegasosClassifier(),
    BudgetedSGDClassifier(budget=20),
    BudgetedSGDClassifier(budget=20, maintenance="project"),
    KernelPerceptronClassifier(kernel="poly", budget=15, maintenance="remove"),
]


def _check_name(case) -> str:
    check = case.values[1] if hasattr(case, "values") else case[1]
    return getattr(check, "func", check).__name__


def _affordable(case) -> bool:
    """check_class_weight_classifiers fits 1,000 passes: an unbudgeted expansion grows to
    10,000 support vectors (20–30 s a model). It runs on the budgeted models of the list
    (the same weighted loop); tests/test_weights.py tests class_weight = sample_weight bit for
    bit on every kernel classifier."""
    estimator = case.values[0] if hasattr(case, "values") else case[0]
    return _check_name(case) != "check_class_weight_classifiers" or estimator.budget is not None


_CHECKS = parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)


@pytest.mark.parametrize(
    _CHECKS.args[0], [case for case in _CHECKS.args[1] if _affordable(case)], **_CHECKS.kwargs
)
def test_sklearn_conformance(estimator, check):
    check(estimator)


def _state(model):
    return {
        name: getattr(model, name).copy()
        for name in ("_SV", "_pool_val", "_A", "_b", "_sq", "_G", "_counts", "stats_")
    } | {"classes_": model.classes_.copy()}


def _assert_untouched(model, before):
    after = _state(model)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)


@pytest.fixture
def data():
    return make_moons(100, noise=0.2, random_state=0)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": -1.0}, "gamma"),
        ({"degree": 0, "kernel": "poly"}, "degree"),
        ({"budget": 0}, "budget"),
        ({"kernel": "sigmoid"}, "kernel"),
        ({"maintenance": "merge", "kernel": "linear", "budget": 5}, "merge"),
        ({"maintenance": "shrink"}, "maintenance"),
        ({"C": 0.0}, "C"),
    ],
)
def test_invalid_parameters(data, params, message):
    X, y = data
    fitted = KernelPAClassifier(gamma=1.0).fit(X, y)
    before = _state(fitted)
    bad = KernelPAClassifier(**params)
    with pytest.raises(ValueError, match=message):
        bad.fit(X, y)
    assert not hasattr(bad, "classes_")
    # set_params on a fitted model, then fit: the error leaves the old model intact.
    with pytest.raises(ValueError, match=message):
        fitted.set_params(**params).fit(X, y)
    _assert_untouched(fitted, before)


@pytest.mark.parametrize("model", [NORMAClassifier, NORMARegressor])
@pytest.mark.parametrize("eta, lam", [(1.0, 1.0), (2.0, 0.75), (100.0, 0.5)])
def test_norma_refuses_eta_lam_of_one_or_more(data, model, eta, lam):
    """The decay 1 − η_t λ is largest at t = 1, η_1 = η: ηλ ≥ 1 would zero or flip every
    old coefficient; refused, naming both values, also after set_params on a fitted model."""
    X, y = data
    with pytest.raises(ValueError, match=rf"eta·lam < 1.*eta={eta!r}, lam={lam!r}"):
        model(eta=eta, lam=lam).fit(X, y)
    fitted = model(eta=1.0, lam=0.5).fit(X, y)
    with pytest.raises(ValueError, match="eta·lam < 1"):
        fitted.set_params(lam=lam, eta=eta).partial_fit(X, y)
    model(eta=1e6, lam=0.0).fit(X, y)  # no regulariser: any step size


def test_truncation_and_budget_are_exclusive(data):
    with pytest.raises(ValueError, match="truncation"):
        NORMAClassifier(truncation=5, budget=5).fit(*data)
    # truncation removes the oldest vector: a maintenance beside it was ignored silently
    for maintenance in ("merge", "project"):
        with pytest.raises(ValueError, match="give budget= instead of truncation"):
            NORMAClassifier(truncation=5, maintenance=maintenance).fit(*data)


@pytest.mark.parametrize("model", [BudgetedSGDClassifier(budget=10), KernelPARegressor()])
def test_bad_input_leaves_model_untouched(data, model):
    X, y = data
    model.fit(X, y)
    before = _state(model) if hasattr(model, "classes_") else None
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    bad_inputs = [
        (X_nan, y, "NaN"),
        (X[:, :1], y, "features"),
        (X[:50], y, "inconsistent"),
        (np.zeros((0, 2)), np.zeros(0), "0 sample"),
    ]
    if isinstance(model, KernelPARegressor):
        y_nan = y.astype(float)
        y_nan[0] = np.nan
        bad_inputs.append((X, y_nan, "NaN"))
        bad_inputs.append((X, np.array(["a"] * len(y)), "numeric"))
    for X_bad, y_bad, message in bad_inputs:
        state = {name: getattr(model, name).copy() for name in ("_A", "_b", "stats_")}
        with pytest.raises(ValueError, match=message):
            model.partial_fit(X_bad, y_bad)
        for name, value in state.items():
            np.testing.assert_array_equal(getattr(model, name), value)
    if before is not None:
        _assert_untouched(model, before)


def test_user_kernel_returning_nan_is_an_error_and_rolls_back(data):
    numba = pytest.importorskip("numba")

    @numba.njit
    def fragile(a, b):
        # Finite on the training data, NaN once a coordinate exceeds 5.
        if a[0] > 5.0 or b[0] > 5.0:
            return np.nan
        return np.exp(-np.sum((a - b) ** 2))

    X, y = data
    model = KernelPAClassifier(kernel=fragile).fit(X, y)
    before = _state(model)
    X_far = X.copy()
    X_far[40:, 0] = 10.0  # the error happens mid-batch, after 40 rounds were applied
    with pytest.raises(ValueError, match="non-finite"):
        model.partial_fit(X_far, y)
    _assert_untouched(model, before)
    with pytest.raises(ValueError, match="non-finite"):
        KernelPAClassifier(kernel=fragile).fit(X_far, y)


def test_polynomial_overflow_is_an_error(data):
    X, y = data
    with pytest.raises(ValueError, match="non-finite"):
        KernelPerceptronClassifier(kernel="poly", degree=200, gamma=1e3).fit(X * 1e3, y)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("sparse", [False, True])
def test_polynomial_overflow_in_prediction_is_an_error(data, sparse):
    """Prediction refuses what training refuses: a kernel value that overflows, as a clear
    error naming the row and what to do, not NaN scores (and labels made of them)."""
    X, y = data
    model = KernelPerceptronClassifier(kernel="poly", degree=9).fit(X, y)
    huge = np.array([[1.0, 1.0], [1e60, 1e60]])  # (γ·x·z + c)⁹ overflows on row 1
    huge = sp.csr_matrix(huge) if sparse else huge
    for method in (model.decision_function, model.predict):
        with pytest.raises(ValueError, match=r"non-finite value .* on row 1.*lower degree"):
            method(huge)
    with pytest.raises(ValueError, match="non-finite"):
        model.predict_one({0: 1e60, 1: 1e60})
    assert np.isfinite(model.decision_function(X)).all()  # the normal path is untouched


@pytest.mark.parametrize("budget", [None, 5])
@pytest.mark.parametrize("one_class_first", [False, True])
def test_a_one_row_call_that_fails_changes_nothing(data, budget, one_class_first):
    """A one-row ``partial_fit`` is not snapshotted whole (its round fails before anything
    of it is applied): it must still leave the model as it was, bit for bit — also when
    its label turns a one-class model binary (the coefficients change sign in place)."""
    X, y = data
    if one_class_first:
        X, y = X[y == 1], y[y == 1]
    model = KernelPerceptronClassifier(kernel="poly", degree=9, budget=budget).fit(X, y)
    before = _state(model)
    huge = np.full((1, 2), 1e60)  # (γ·x·z + c)⁹ overflows
    with pytest.raises(ValueError, match="non-finite"):
        model.partial_fit(huge, np.array([2 if one_class_first else 0]))
    _assert_untouched(model, before)
    model.partial_fit(X[:3], y[:3])  # and it goes on learning


@pytest.mark.parametrize("maintenance", ["merge", "project"])
def test_a_sparse_model_learns_the_same_whatever_calls_came_before(maintenance):
    """A sparse model's loop scatters each row into a buffer kept from call to call, one per
    thread for every model (zeroing 2**18 floats per call cost more than a one-row round):
    each call must leave it zeroed, so that a model learns as a fresh copy of itself does —
    also after a call that fails on a non-finite kernel value."""
    from olearn.estimators import kernel as kernel_module

    rng = np.random.default_rng(4)
    X = sp.random(80, 2**18, density=8 / 2**18, format="csr", random_state=5)
    X.data = rng.normal(size=X.nnz)
    y = rng.integers(0, 3, 80)
    model = BudgetedSGDClassifier(budget=6, maintenance=maintenance, gamma=0.5)
    model.fit(X[:10], y[:10])
    fresh = copy.deepcopy(model)
    poly = KernelPerceptronClassifier(kernel="poly", degree=9).fit(X[:10], y[:10])
    for i in range(10, 80):
        model.partial_fit(X[i], y[i : i + 1])
        fresh = copy.deepcopy(fresh)
        fresh.partial_fit(X[i], y[i : i + 1])
        with pytest.raises(ValueError, match="non-finite"):
            poly.partial_fit(X[i] * 1e60, y[i : i + 1])
        assert not kernel_module._thread_scatter(0).any()  # (shared: the copies would agree)
        poly.partial_fit(X[i], y[i : i + 1])
    for name in ("_A", "_b", "_pool_val", "_pool_idx", "_G", "stats_"):
        np.testing.assert_array_equal(getattr(model, name), getattr(fresh, name))
    twin = KernelPerceptronClassifier(kernel="poly", degree=9).fit(X[:10], y[:10])
    for i in range(10, 80):
        twin = copy.deepcopy(twin)
        twin.partial_fit(X[i], y[i : i + 1])
    np.testing.assert_array_equal(poly._A, twin._A)


def test_fitted_attributes(data):
    X, y = data
    model = BudgetedSGDClassifier(budget=7, maintenance="remove", lam=0.01).fit(X, y)
    assert model.support_vectors_.shape == (7, 2)
    assert model.dual_coef_.shape == (1, 7)
    assert model.intercept_.shape == (1,)
    assert model.n_support_ == 7
    assert model.n_updates_ >= 7
    assert 0 < model.n_mistakes_ <= model.n_rounds_ == 100
    sparse = BudgetedSGDClassifier(budget=7, maintenance="remove", lam=0.01).fit(
        sp.csr_matrix(X), y
    )
    assert sp.issparse(sparse.support_vectors_)
    # w(x) = Σ α_i k(x_i, x) + b reproduces decision_function.
    K = np.exp(-model.gamma_ * ((X[:, None] - model.support_vectors_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(
        K @ model.dual_coef_[0] + model.intercept_[0], model.decision_function(X), atol=1e-12
    )


def test_pickle_round_trip(data):
    import pickle

    X, y = data
    model = BudgetedSGDClassifier(budget=9, maintenance="merge", lam=0.01).fit(X[:60], y[:60])
    copy = pickle.loads(pickle.dumps(model))
    model.partial_fit(X[60:], y[60:])
    copy.partial_fit(X[60:], y[60:])
    np.testing.assert_array_equal(copy.decision_function(X), model.decision_function(X))


def test_second_process_loads_the_kernel_loop_from_the_disk_cache(data):
    """Built-in kernels use an integer switch, so the loop is cached: a fresh process that
    fits must not compile it again."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    X, y = data
    BudgetedSGDClassifier(budget=5, maintenance="merge").fit(X, y)  # compiled or cached here
    code = (
        "import numpy as np; from sklearn.datasets import make_moons;"
        "from olearn import BudgetedSGDClassifier; from olearn.kernels import loop;"
        "X, y = make_moons(50, random_state=0);"
        "BudgetedSGDClassifier(budget=5, maintenance='merge').fit(X, y).predict(X);"
        "print(sum(loop.run.stats.cache_hits.values()), sum(loop.run.stats.cache_misses.values()))"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    hits, misses = map(int, out)
    assert hits >= 1
    assert misses == 0


def test_kernel_numba_cannot_compile_is_a_value_error(data):
    def not_numeric(a, b):
        return "near" if a[0] == b[0] else "far"

    model = KernelPerceptronClassifier(kernel=not_numeric)
    with pytest.raises(ValueError, match="numba-compilable"):
        model.fit(*data)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("make", [KernelPerceptronClassifier, PerceptronClassifier])
def test_a_one_class_model_keeps_its_label_when_a_class_sorting_first_arrives(make):
    """A one-class model learns its label as +1; when a label sorting before it arrives, the
    binary model's +1 is the last class, so the old label's predictions must not flip (the
    kernel models negated their coefficients the wrong way round before they shared the
    linear models' label growth)."""
    X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    model = make().partial_fit(X[:2], ["b", "b"])
    model.partial_fit(X[2:], ["a"])
    assert list(model.predict(X[:2])) == ["b", "b"]
    assert np.all(model.decision_function(X[:2]) > 0)  # "b", the last class, is +1


def test_gradient_kernel_models_leave_the_intercept_out_by_default():
    """Pegasos' steps 1/(λt) move an undecayed intercept most of all (MNIST 3 vs 5: 0.918
    with it, 0.955 without; docs/kernels.md): off by default there, on for the others."""
    assert KernelPegasosClassifier().fit_intercept is False
    assert BudgetedSGDClassifier().fit_intercept is False
    for cls in (KernelPerceptronClassifier, KernelPAClassifier, NORMAClassifier):
        assert cls().fit_intercept is True
    X, y = make_moons(200, noise=0.2, random_state=0)
    model = KernelPegasosClassifier(lam=0.01).fit(X, y)
    assert model.intercept_[0] == 0.0


def test_an_unbudgeted_expansion_warns_once_past_the_documented_size(monkeypatch):
    from olearn.estimators import kernel

    monkeypatch.setattr(kernel, "LARGE_EXPANSION", 30)
    X, y = make_moons(300, noise=0.3, random_state=0)
    model = KernelPerceptronClassifier()
    with pytest.warns(kernel.LargeExpansionWarning, match="budget"):
        model.fit(X, y)
    assert model.n_support_ > 30
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", kernel.LargeExpansionWarning)
        model.partial_fit(X, y)  # once per model
        KernelPerceptronClassifier(budget=20).fit(X, y)  # budgeted: never


def test_classes_given_to_a_fitted_kernel_model_are_announced_labels():
    """As for the linear models: new labels in ``classes`` are added, a set that leaves out
    a learned label or a y label outside it is refused, before anything changes."""
    from olearn import KernelPAClassifier

    X = np.random.default_rng(0).normal(size=(30, 3))
    y = np.arange(30) % 2
    model = KernelPAClassifier().partial_fit(X, y, classes=[0, 1])
    model.partial_fit(X, y, classes=[0, 1, 5])
    assert model.classes_.tolist() == [0, 1, 5]
    with pytest.raises(ValueError, match=r"leaves out labels the model has learned: \[5\]"):
        model.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"y has labels \[7\] not in classes"):
        model.partial_fit(X, np.where(y == 1, 7, 0), classes=[0, 1, 5, 6])
    assert model.classes_.tolist() == [0, 1, 5]


@pytest.mark.parametrize(
    "make",
    [
        KernelPerceptronClassifier,
        KernelPAClassifier,
        NORMAClassifier,
        KernelPegasosClassifier,
        BudgetedSGDClassifier,
    ],
)
def test_every_kernel_classifier_validates_class_weight_itself(make):
    """A bad class_weight is refused by the estimator's own parameter check, naming it (it
    failed late, inside scikit-learn's compute_class_weight, for four of the five)."""
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=f"'class_weight' parameter of {make.__name__}"):
        make(class_weight="bogus").fit([[0.0], [1.0]], [0, 1])
