"""River-style events on kernel models: ``learn_one``/``predict_one`` as the linear models
have them (tests/test_river_conventions.py), through the kernel models' one-row path.

* ``learn_one`` is ``partial_fit`` of the event as a one-row matrix: the same support
  vectors, coefficients and counters, bit for bit — from an unfitted model (width ``2**18``,
  names hashed as the VW reader hashes them) or a fitted one, sparse or dense storage.
* ``predict_one`` is ``predict`` of that row; a feature beyond the width is ignored, as by
  ``predict`` of wider sparse rows.
* Bad events, weights and labels: the linear models' errors and ``partial_fit``'s handling.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_same_state, model_state

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
from olearn.io import murmurhash3_32
from olearn.kernels.loop import STATE

WIDTH = 2**18
WORDS = ["price", "cheap", "offer", "meeting", "agenda", "report", "won", "free", "été"]

MODELS = {
    "perceptron": lambda: KernelPerceptronClassifier(gamma=0.5),
    "pa": lambda: KernelPAClassifier(gamma=0.5),
    "norma-truncation": lambda: NORMAClassifier(gamma=0.5, truncation=15),
    "pegasos": lambda: KernelPegasosClassifier(gamma=0.5, lam=0.01),
    "bsgd-merge": lambda: BudgetedSGDClassifier(budget=10, gamma=0.5),
    "bsgd-project": lambda: BudgetedSGDClassifier(budget=10, maintenance="project", gamma=0.5),
    "pa-regressor": lambda: KernelPARegressor(gamma=0.5, budget=12),
    "norma-regressor": lambda: NORMARegressor(gamma=0.5),
}


def is_regressor(model) -> bool:
    return type(model).__name__.endswith("Regressor")


def events(n=120, seed=0, regression=False):
    """Events of names; labels: one class first, a second, then a third one after 60."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        words = rng.choice(WORDS, size=rng.integers(1, 5), replace=False)
        x = {str(w): float(rng.integers(1, 4)) for w in words}
        if regression:
            y = sum(x.values()) - 4.0
        elif i < 3:
            y = "spam"
        else:
            spam = sum(x.get(w, 0) for w in ("cheap", "offer", "won", "free")) > 2
            y = "spam" if spam else "eggs" if i > 60 and "report" in x else "ham"
        out.append((x, y))
    return out


def hashed(x, width=WIDTH):
    """The event as the one-row CSR matrix of its hashed columns (VW's hash of names)."""
    idx = [murmurhash3_32(k) % width if isinstance(k, str) else int(k) for k in x]
    return sp.csr_matrix((list(x.values()), idx, [0, len(idx)]), shape=(1, width))


def assert_same_model(a, b):
    for name in (*STATE, "n_features_in_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    if hasattr(b, "classes_"):
        np.testing.assert_array_equal(a.classes_, b.classes_)


@pytest.mark.parametrize("make", MODELS.values(), ids=list(MODELS))
def test_learn_one_from_scratch_equals_partial_fit_of_the_hashed_rows(make):
    model, reference = make(), make()
    stream = events(regression=is_regressor(model))
    assert model.predict_one(stream[0][0]) == (0.0 if is_regressor(model) else None)
    for x, y in stream:
        model.learn_one(x, y)
        reference.partial_fit(hashed(x), [y])
    assert model.n_features_in_ == WIDTH and model.n_support_ > 5
    assert_same_model(model, reference)
    predictions = [model.predict_one(x) for x, _ in stream[:40]]
    assert predictions == [reference.predict(hashed(x))[0] for x, _ in stream[:40]]
    if not is_regressor(model):
        assert len(model.classes_) == 3


@pytest.mark.parametrize("make", [MODELS["pa"], MODELS["bsgd-merge"], MODELS["pa-regressor"]])
def test_every_event_form_learns_as_the_dense_row_of_a_model_fitted_on_dense_rows(make):
    """Dense storage: a dict of int or NumPy-int keys in any order, a pair of arrays
    (int32 indices, unsorted) — each the dense row it stands for."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 5)) * (rng.random((100, 5)) < 0.7)
    y = X[:, 0] + X[:, 1] if is_regressor(make()) else np.where(X[:, 0] > X[:, 1], 2, 7)
    model = make().fit(X[:30], y[:30])
    reference = make().fit(X[:30], y[:30])
    forms = [
        lambda row: {j: v for j, v in reversed(list(enumerate(row))) if v},
        lambda row: {np.int64(j): v for j, v in enumerate(row)},
        lambda row: (np.flatnonzero(row)[::-1].astype(np.int32), row[np.flatnonzero(row)][::-1]),
        lambda row: (np.flatnonzero(row), row[np.flatnonzero(row)]),
    ]
    for i in range(30, 100):
        model.learn_one(forms[i % 4](X[i]), y[i].item())
        reference.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_same_model(model, reference)
    for i in range(30):
        assert model.predict_one(forms[i % 4](X[i])) == reference.predict(X[i : i + 1])[0]


def test_names_hash_as_the_linear_models_hash_them():
    """A name is a column of ``murmurhash3_32(name) % width`` and colliding names add up,
    as in the linear models: a kernel Perceptron's first support vector is the event, a
    linear Perceptron's first weights are too."""
    names = [f"w{i}" for i in range(12)]
    x = {name: float(i + 1) for i, name in enumerate(names)}
    kernel, linear = KernelPerceptronClassifier(), PerceptronClassifier()
    kernel.learn_one(x, "yes", n_features=8)
    linear.learn_one(x, "yes", n_features=8)
    stored = kernel.support_vectors_.toarray()[0]
    assert len(set(murmurhash3_32(name) % 8 for name in names)) < len(names)  # collisions
    np.testing.assert_array_equal(stored, linear.weights_[0, :8])
    np.testing.assert_array_equal(stored, hashed(x, 8).toarray()[0])


def test_an_unfitted_model_starts_with_its_first_event():
    model = KernelPAClassifier()
    model.learn_one({"a": 1.0, 3: 2.0}, 1, n_features=100)
    assert model.n_features_in_ == 100 and model.classes_.tolist() == [1]
    assert model.support_vectors_.shape == (1, 100)
    with pytest.raises(ValueError, match="unfitted model only"):
        model.learn_one({1: 1.0}, 0, n_features=50)
    model.learn_one({1: 1.0}, 0, n_features=100)  # its own width: fine
    assert model.classes_.tolist() == [0, 1]
    regressor = KernelPARegressor()
    regressor.learn_one({"a": 1.0}, 3.0)
    assert regressor.n_features_in_ == WIDTH and regressor.predict_one({"a": 1.0}) != 0.0


def test_a_user_kernel_asks_its_first_event_for_a_width():
    """A user kernel reads dense rows: the default width would store 2 MiB a vector."""
    model = KernelPerceptronClassifier(kernel=lambda a, b: float(np.dot(a, b)))
    with pytest.raises(ValueError, match="n_features="):
        model.learn_one({"a": 1.0}, 1)
    assert not hasattr(model, "n_features_in_")


def _error(call) -> str:
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


BAD_EVENTS = {
    "negative-index": {-1: 1.0},
    "nan-value": {0: np.nan, 1: 1.0},
    "inf-in-a-pair": (np.array([1]), np.array([np.inf])),
    "mismatched-pair": (np.array([0, 1]), np.array([1.0])),
    "float-index": {1.5: 1.0},
    "not-an-event": "price",
    "index-beyond-the-width": {8: 1.0},
}


@pytest.mark.parametrize("case", BAD_EVENTS, ids=list(BAD_EVENTS))
@pytest.mark.parametrize("storage", ["sparse", "dense"])
def test_bad_events_raise_the_linear_models_errors_and_change_nothing(case, storage):
    x = BAD_EVENTS[case]
    linear = PassiveAggressiveClassifier()
    linear.learn_one({0: 1.0}, 1, n_features=8)
    if storage == "sparse":
        model = KernelPAClassifier()
        model.learn_one({0: 1.0}, 1, n_features=8)
    else:
        model = KernelPAClassifier().fit(np.eye(8), [0, 1] * 4)
    before = model_state(model)
    message = _error(lambda: linear.learn_one(x, 1))
    assert _error(lambda: model.learn_one(x, 1)) == message
    assert _error(lambda: model.learn_one(x, 1, sample_weight=0.0)) == message
    if case == "index-beyond-the-width":  # scored: a feature never seen, ignored
        assert model.predict_one(x) == model.predict_one({})
    else:
        assert _error(lambda: model.predict_one(x)) == _error(lambda: linear.predict_one(x))
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize("x", [{0: np.nan}, {-1: 1.0}, {2**18: 1.0}, {"a": 1.0}])
def test_bad_first_events_leave_the_model_unfitted(x):
    model, linear = KernelPAClassifier(), PassiveAggressiveClassifier()
    y = None if x == {"a": 1.0} else 1
    if y is None:  # (clearer than the linear models' first-event error: sklearn's)
        assert _error(lambda: model.learn_one(x, y)) == "y is None, not a label."
    else:
        assert _error(lambda: model.learn_one(x, y)) == _error(lambda: linear.learn_one(x, y))
    assert not hasattr(model, "n_features_in_") and not hasattr(model, "classes_")


def test_sample_weight_is_partial_fits():
    """A Perceptron stores the event with coefficient ±h; a weight 0 skips the event (an
    unfitted model stays unfitted, a fitted one gains no label); a bad weight is refused
    as the linear models refuse it."""
    stream = events()
    model, reference = KernelPerceptronClassifier(), KernelPerceptronClassifier()
    model.learn_one(stream[0][0], "spam", sample_weight=0.0)
    assert not hasattr(model, "classes_") and model.predict_one(stream[0][0]) is None
    for i, (x, y) in enumerate(stream[:60]):
        weight = 0.5 + i % 3
        model.learn_one(x, y, sample_weight=weight)
        reference.partial_fit(hashed(x), [y], sample_weight=[weight])
    assert_same_model(model, reference)
    assert set(np.abs(model.dual_coef_[0]).tolist()) == {0.5, 1.5, 2.5}
    before = model_state(model)
    model.learn_one({"new": 1.0}, "eggs", sample_weight=0)
    linear = PassiveAggressiveClassifier()
    linear.learn_one({0: 1.0}, 1)
    for bad in (-1.0, np.nan, [1.0, 2.0]):
        expected = _error(lambda w=bad: linear.learn_one({0: 1.0}, 1, sample_weight=w))
        assert _error(lambda w=bad: model.learn_one({"a": 1.0}, "ham", sample_weight=w)) == expected
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize("storage", ["sparse", "dense"])
def test_a_feature_beyond_the_width_is_ignored_when_scoring(storage):
    """As the linear models do — ``predict_one`` and ``predict`` of wider sparse rows alike
    (a value beyond the width is still checked) — and refused when learning."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 16)) * (rng.random((60, 16)) < 0.3)
    y = (X[:, 0] > 0).astype(int)
    model = KernelPAClassifier(gamma=0.5).fit(sp.csr_matrix(X) if storage == "sparse" else X, y)
    x = {j: v for j, v in enumerate(X[0]) if v}
    scores = model.decision_function(X[:5])
    wider = sp.hstack([sp.csr_matrix(X[:5]), sp.random(5, 30, density=0.5, random_state=0)])
    np.testing.assert_array_equal(model.decision_function(wider.tocsr()), scores)
    np.testing.assert_array_equal(model.predict(wider.tocoo()), model.predict(X[:5]))
    # rows narrower than the width lack the last columns (zeros), as for the linear models
    X_narrow = X[:5].copy()
    X_narrow[:, 12:] = 0.0
    narrower = sp.csr_matrix(X_narrow[:, :12])
    np.testing.assert_array_equal(model.decision_function(narrower),
                                  model.decision_function(X_narrow))  # fmt: skip
    np.testing.assert_array_equal(model.predict(narrower.tocsc()), model.predict(X_narrow))
    assert model.predict_one({**x, 16: 5.0, 40: -3.0}) == model.predict_one(x)
    assert model.predict_one({**x, 16: 5.0}) == model.predict(X[:1])[0]
    linear = PassiveAggressiveClassifier().fit(X, y)
    for bad in ({**x, 40: np.nan}, (np.array([0, 40]), np.array([1.0, np.inf]))):
        expected = _error(lambda b=bad: linear.predict_one(b))
        assert _error(lambda b=bad: model.predict_one(b)) == expected
    nan_beyond = sp.csr_matrix(([1.0, np.nan], [0, 40], [0, 2]), shape=(1, 46))
    with pytest.raises(ValueError, match="NaN or infinity"):
        model.predict(nan_beyond)
    with pytest.raises(ValueError, match=r"out of range \[0, 16\)"):
        model.learn_one({**x, 16: 5.0}, 1)


def test_a_model_fitted_on_named_columns_reads_event_names_as_those_columns():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    y = X["b"] * 2.0
    model, twin = KernelPARegressor().fit(X, y), KernelPARegressor().fit(X, y)
    row = pd.DataFrame([[0.0, 5.0, 0.0]], columns=["a", "b", "c"])
    assert model.predict_one({"b": 5.0, "zzz": 1.0}) == model.predict(row)[0]
    with pytest.raises(ValueError, match="'zzz', which is not among the names"):
        model.learn_one({"zzz": 1.0}, 1.0)
    model.learn_one({"b": 1.0, "a": -2.0}, 1.0)
    twin.learn_one({1: 1.0, 0: -2.0}, 1.0)
    assert_same_model(model, twin)


def test_labels_are_partial_fits():
    """A new label grows the classes as ``partial_fit`` grows them; a label of another kind
    than the model's classes is refused (it would have turned them into strings)."""
    model = KernelPAClassifier()
    model.learn_one({"a": 1.0}, "x")
    model.learn_one({"b": 1.0}, "y")
    before = model_state(model)
    for y, message in [(3, "y has numeric labels, but the model's classes are string"),
                       (None, "y is None, not a label"),
                       (np.nan, "NaN or infinity"),
                       ([1, 2], "y must be one label")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            model.learn_one({"a": 1.0}, y)
    assert_same_state(before, model_state(model))
    with pytest.raises(ValueError, match="numeric labels, but the model's classes are string"):
        model.partial_fit(hashed({"a": 1.0}), [3])
    numbers = KernelPAClassifier().fit(np.eye(2), [0, 1])
    with pytest.raises(ValueError, match="string labels, but the model's classes are numeric"):
        numbers.partial_fit(np.eye(2)[:1], ["a"])
    assert numbers.classes_.tolist() == [0, 1]


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_a_few_sparse_rows_score_against_the_pool_as_blocks_of_rows_do(kernel, monkeypatch):
    """A few sparse rows (a stream's, ``predict_one``'s) are scored against the sparse pool
    in place (``expansion.sparse_products``, ``_row_squares``), more by scipy's product by
    blocks: the two give the same scores bit for bit — an empty row and a stored zero
    included — and the scoring leaves each thread's scatter buffer zero."""
    from olearn.estimators import kernel as kernel_module

    rng = np.random.default_rng(3)
    X = sp.random(80, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(X.sum(axis=1).A1 > np.median(X.sum(axis=1).A1), 1, -1)
    model = KernelPAClassifier(kernel=kernel, gamma=0.5, degree=2).fit(X[:60], y[:60])
    rows = X[60:65].tolil()
    rows[1, :] = 0.0  # an empty row
    # 40 values (NumPy sums more than 8 by pairs) whose squares sum to other bits with a
    # stored zero among them than without it, as scipy's squares leave it out
    values = 0.1 * np.random.default_rng(0).normal(size=40)
    values[3] = 0.0
    assert np.add.reduceat(values**2, [0]) != np.add.reduceat(np.delete(values, 3) ** 2, [0])
    rows[2, :] = 0.0
    rows[2, :40] = values + (values == 0.0)
    rows = rows.tocsr()
    zero = rows.copy()
    zero.data[zero.indptr[2] + 3] = 0.0  # a stored zero
    for few in (rows, zero):
        assert few.shape[0] <= kernel_module._FEW_SPARSE_ROWS
        squares = np.asarray(few.multiply(few).sum(axis=1)).ravel()
        assert np.array_equal(kernel_module._row_squares(few), squares)
        in_place = model.decision_function(few)
        assert not kernel_module._thread_scatter(300).any()
        monkeypatch.setattr(kernel_module, "_FEW_SPARSE_ROWS", 0)
        assert np.array_equal(model.decision_function(few), in_place)
        monkeypatch.setattr(kernel_module, "_FEW_SPARSE_ROWS", 32)
        assert np.abs(in_place).max() > 0
