"""The per-call fast paths (learn_one, predict_one, small partial_fit) change nothing observable.

* A dict event is read in place by compiled code (``fastpath.read_dict``) when its keys and
  values allow, else converted in Python: every form of the same event — dict with Python or
  NumPy numbers, (indices, values) arrays — learns exactly the same model, bit for bit.
* Bad events raise a clear ValueError and change nothing; a non-integer key is an error,
  never truncated to an index.
* The compiled helpers equal the NumPy expressions they replace.
* A second process serves the dict reader from the disk cache (it calls the C API).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_same_state, model_state

import olearn
from olearn import (
    AROWClassifier,
    AROWRegressor,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
)
from olearn.estimators import _events, _validation, base
from olearn.representations import fastpath

MODELS = {
    "pa1": lambda: PassiveAggressiveClassifier(C=0.5),
    "perceptron-averaged": lambda: PerceptronClassifier(average=True),
    "arow-diagonal": lambda: AROWClassifier(),
    "arow-full": lambda: AROWClassifier(covariance="full"),  # general round (run_one)
    "scw2-diagonal": lambda: SCWClassifier(variant="II"),
}

STATE = ("weights_", "average_sums_", "variances_", "precision_cholesky_", "stats_")


def stream(n=120, d=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    y = np.where(X @ rng.normal(size=d) + 0.2 * rng.normal(size=n) > 0, "yes", "no")
    return X, y


def rows(X):
    for row in X:
        nz = np.flatnonzero(row)
        yield nz, row[nz]


# Every way of writing one event; the dict reader takes the first three in place.
FORMS = {
    "dict-int-float": lambda nz, v: dict(zip(nz.tolist(), v.tolist(), strict=True)),
    "dict-int-npfloat64": lambda nz, v: dict(zip(nz.tolist(), v, strict=True)),
    "dict-int-int": lambda nz, v: dict(
        zip(nz.tolist(), np.round(v * 4).astype(int).tolist(), strict=True)
    ),
    "dict-npint64-float": lambda nz, v: dict(zip(nz, v.tolist(), strict=True)),
    "dict-int-npfloat32": lambda nz, v: dict(zip(nz.tolist(), v.astype(np.float32), strict=True)),
    "dict-float-keys": lambda nz, v: dict(zip(nz.astype(float).tolist(), v.tolist(), strict=True)),
    "pair-int64": lambda nz, v: (nz.astype(np.int64), v),
    "pair-lists": lambda nz, v: (nz.tolist(), v.tolist()),
    "pair-int32-float32": lambda nz, v: (nz.astype(np.int32), v.astype(np.float32)),
}


def reference_values(form, v):
    """The float64 values a form stands for (what fit sees)."""
    if form == "dict-int-int":
        return np.round(v * 4).astype(int).astype(np.float64)
    if form in ("dict-int-npfloat32", "pair-int32-float32"):
        return v.astype(np.float32).astype(np.float64)
    return v


@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_every_event_form_learns_what_partial_fit_learns(name, form):
    X, y = stream()
    make = FORMS[form]
    events = [make(nz, v) for nz, v in rows(X)]
    dense = np.zeros_like(X)
    for i, (nz, v) in enumerate(rows(X)):
        dense[i, nz] = reference_values(form, v)
    single = MODELS[name]().partial_fit(dense[:10], y[:10])
    batch = MODELS[name]().partial_fit(dense[:10], y[:10])
    for i in range(10, X.shape[0]):
        single.learn_one(events[i], y[i])
        batch.partial_fit(dense[i : i + 1], y[i : i + 1])
    for attribute in STATE:
        np.testing.assert_array_equal(getattr(single, attribute), getattr(batch, attribute))
    predicted = batch.predict(dense)
    assert [single.predict_one(event) for event in events] == predicted.tolist()


# Models whose events take each path: the compiled binary round, the general round of a
# multiclass model, a regressor's.
REPEAT_MODELS = {
    "pa1": (lambda: PassiveAggressiveClassifier(C=0.5), "binary"),
    "arow-diagonal": (lambda: AROWClassifier(), "binary"),
    "arow-multiclass": (lambda: AROWClassifier(), "multiclass"),
    "arow-regressor": (lambda: AROWRegressor(), "regression"),
}
PAIR_FORMS = {
    "int64": lambda idx, val: (idx.astype(np.int64), val),
    "int32": lambda idx, val: (idx.astype(np.int32), val),
    "lists": lambda idx, val: (idx.tolist(), val.tolist()),
    "float-indices": lambda idx, val: (idx.astype(np.float64), val),
}


@pytest.mark.parametrize("form", PAIR_FORMS, ids=list(PAIR_FORMS))
@pytest.mark.parametrize("name", REPEAT_MODELS, ids=list(REPEAT_MODELS))
def test_a_repeated_index_is_learned_and_scored_as_its_sum(name, form):
    """An (indices, values) pair that repeats an index is the example with those values
    summed, as a CSR row that repeats it (scipy's meaning, what fit learns): learn_one,
    predict_one and predict_proba_one equal the summed pair's and the CSR row's, bit for bit
    (PA's ‖x‖² and AROW's xᵀΣx squared entry by entry would be another example). The
    caller's arrays are not changed."""
    make, task = REPEAT_MODELS[name]
    rng = np.random.default_rng(11)
    d = 40
    X, _ = stream(n=20, d=d)
    labels = {"binary": ["no", "yes"], "multiclass": ["a", "b", "c"]}.get(task)

    def target():
        return float(rng.normal()) if labels is None else labels[rng.integers(len(labels))]

    y0 = np.array([target() for _ in range(len(X))])
    paired, summed, by_row = (make().partial_fit(X, y0) for _ in range(3))
    for _ in range(30):
        distinct = rng.choice(d, 6, replace=False)
        idx = rng.permutation(np.r_[distinct, rng.choice(distinct, 3)])  # 3 repeats, unsorted
        val = rng.normal(size=len(idx))
        x = PAIR_FORMS[form](idx, val)
        kept = [np.array(part, copy=True) for part in x]
        row = sp.csr_matrix((val, idx, [0, len(idx)]), shape=(1, d))
        canonical = row.copy()
        canonical.sum_duplicates()
        pair = (canonical.indices.astype(np.int64), canonical.data)
        assert fastpath._has_repeat(idx) and len(pair[0]) < len(idx)
        yi = target()
        if hasattr(paired, "predict_proba_one"):
            p = paired.predict_proba_one(x)
            assert p == summed.predict_proba_one(pair)
            assert list(p.values()) == by_row.predict_proba(row)[0].tolist()
        assert paired.predict_one(x) == summed.predict_one(pair)
        if labels is not None:
            assert paired.predict_one(x) == by_row.predict(row)[0]
        paired.learn_one(x, yi)
        summed.learn_one(pair, yi)
        by_row.partial_fit(row, [yi])
        for attribute in ("weights_", "variances_", "stats_"):
            expected = getattr(summed, attribute)
            np.testing.assert_array_equal(getattr(paired, attribute), expected)
            np.testing.assert_array_equal(getattr(by_row, attribute), expected)
        for part, copy in zip(x, kept, strict=True):
            np.testing.assert_array_equal(np.asarray(part), copy)


def test_dict_reader_reads_python_numbers_exactly():
    keys = [0, 5, 2**62, 3]
    values = [0.1, -2.5e-300, 7, np.float64(1 / 3)]
    x = dict(zip(keys, values, strict=True))
    idx, val, ok = fastpath.read_dict(id(x), len(x))
    assert ok
    np.testing.assert_array_equal(idx, np.fromiter(x.keys(), np.int64))
    assert val.tobytes() == np.fromiter(x.values(), np.float64).tobytes()
    empty: dict = {}
    idx, val, ok = fastpath.read_dict(id(empty), 0)
    assert ok and idx.shape == val.shape == (0,)


def test_dict_reader_reads_numpy_scalars_and_bools_as_numpy_does():
    x = {np.int64(3): np.float32(0.5), np.uint8(7): np.int64(-2), True: 1, np.int32(0): 0.25}
    idx, val, ok = fastpath.read_dict(id(x), len(x))
    assert ok
    np.testing.assert_array_equal(idx, [3, 7, 1, 0])
    assert val.tobytes() == np.fromiter(x.values(), np.float64).tobytes()


class IndexLike:
    """A Python class with __index__: read in Python, never by the compiled reader (its
    __index__ is Python code)."""

    def __index__(self):
        return 2

    def __repr__(self):
        return "IndexLike()"


@pytest.mark.parametrize(
    "x",
    [
        {1.5: 1.0},
        {"3": 1.0},
        {IndexLike(): 1.0},
        {np.uint64(2**63): 1.0},
        {2**63: 1.0},
        {1: "a"},
        {1: None},
        {1: 10**400},
    ],
    ids=repr,
)
def test_dict_reader_declines_what_it_does_not_read_and_leaves_no_error_set(x):
    _, _, ok = fastpath.read_dict(id(x), len(x))
    assert not ok
    # a conversion error inside the reader was cleared: Python carries on normally
    assert sum(range(3)) == 3


def fitted(name="pa1"):
    X, y = stream()
    return MODELS[name]().fit(X, y)


BAD_EVENTS = {
    "float-key": ({1.5: 1.0}, "feature indices must be integers or names .str., got 1.5"),
    "nan-key": ({float("nan"): 1.0}, "feature indices must be integers"),
    "bytes-key": ({b"3": 1.0}, "feature indices must be integers or names .str., got b'3'"),
    "none-key": ({None: 1.0}, "feature indices must be integers"),
    "huge-key": ({2**70: 1.0}, rf"feature index out of range \[0, 9\): {2**70}\."),
    "npint-key-too-large": ({np.int64(9): 1.0}, r"out of range \[0, 9\): 9\."),
    "negative-key": ({2: 1.0, -1: 1.0}, r"out of range \[0, 9\): -1\."),
    "float-key-too-large": ({9.0: 1.0}, r"out of range \[0, 9\): 9.0\."),
    "nan-value": ({1: float("nan")}, "NaN or infinity"),
    "none-value": ({1: None}, "NaN or infinity"),
    "npfloat-inf-value": ({1: np.float64(np.inf)}, "NaN or infinity"),
    "float-index-array": ((np.array([0.5]), np.array([1.0])), r"names \(str\), got 0.5"),
    "index-array-too-large": ((np.array([9]), np.array([1.0])), r"out of range \[0, 9\): 9\."),
    "uint64-index-beyond-int64": (
        (np.array([2**63], dtype=np.uint64), np.array([1.0])),
        "out of range",
    ),
    "2d-index-array": ((np.zeros((1, 1), dtype=np.int64), np.ones((1, 1))), "equal-length"),
    "mismatched-pair": ((np.array([0, 1]), np.array([1.0])), "equal-length"),
}


#: Indices beyond the width: an error to learn, a feature never seen to score (ignored).
UNSEEN = {
    "huge-key",
    "npint-key-too-large",
    "float-key-too-large",
    "index-array-too-large",
    "uint64-index-beyond-int64",
}


@pytest.mark.parametrize("case", BAD_EVENTS, ids=list(BAD_EVENTS))
@pytest.mark.parametrize("name", ["pa1", "arow-full"])
def test_bad_event_is_a_clear_error_and_changes_nothing(name, case):
    x, message = BAD_EVENTS[case]
    model = fitted(name)
    before = model_state(model)
    with pytest.raises(ValueError, match=message):
        model.learn_one(x, "yes")
    if case in UNSEEN:
        assert model.predict_one(x) == model.predict_one({})
    else:
        with pytest.raises(ValueError, match=message):
            model.predict_one(x)
    assert_same_state(before, model_state(model))


def test_integral_float_keys_are_indices():
    a, b = fitted(), fitted()
    a.learn_one({3.0: 1.0, np.float64(5): -2.0}, "yes")
    b.learn_one({3: 1.0, 5: -2.0}, "yes")
    np.testing.assert_array_equal(a.weights_, b.weights_)


def test_label_forms_take_the_same_path():
    """Python and NumPy scalar labels (and a 0-d array) learn the same."""
    X, _ = stream()
    y = np.where(X[:, 0] > 0, 1, 0)
    models = [PassiveAggressiveClassifier().fit(X[:20], y[:20]) for _ in range(4)]
    for i in range(20, 60):
        event = dict(enumerate(X[i].tolist()))
        for model, label in zip(
            models, (int(y[i]), np.int64(y[i]), np.array(y[i]), float(y[i])), strict=True
        ):
            model.learn_one(event, label)
    for model in models[1:]:
        np.testing.assert_array_equal(model.weights_, models[0].weights_)


@pytest.mark.parametrize("labels", ["int", "str", "nullable"])
def test_a_series_of_labels_learns_as_its_array(labels):
    """pandas Series labels (read by ``to_numpy``, or ``np.asarray`` for pandas' own dtypes)
    stream as their NumPy array does, one row or a chunk at a time."""
    pd = pytest.importorskip("pandas")
    X, y = stream(n=60)
    y = {"int": np.where(y == "yes", 1, 0), "str": y, "nullable": np.where(y == "yes", 1, 0)}[
        labels
    ]
    series = pd.Series(
        y, index=np.arange(100, 160), dtype="Int64" if labels == "nullable" else None
    )
    reference = PassiveAggressiveClassifier().fit(X[:10], y[:10])
    model = PassiveAggressiveClassifier().fit(X[:10], y[:10])
    for start, stop in [(i, i + 1) for i in range(10, 30)] + [(30, 45), (45, 60)]:
        reference.partial_fit(X[start:stop], y[start:stop])
        model.partial_fit(X[start:stop], series.iloc[start:stop])
    np.testing.assert_array_equal(model.weights_, reference.weights_)


def test_labels_compare_as_numpy_compares_them():
    """The Python int 2**24 + 1 is the float32 class 2**24 for NumPy (not for Python):
    learn_one must learn it as that class, as before the fast comparison, not grow a
    third class."""
    X, _ = stream(n=40)
    big = np.float32(2**24)
    y = np.where(X[:, 0] > 0, big, np.float32(0.0))
    model = PassiveAggressiveClassifier().fit(X[:20], y[:20])
    reference = PassiveAggressiveClassifier().fit(X[:20], y[:20])
    for i in range(20, 40):
        event = dict(enumerate(X[i].tolist()))
        model.learn_one(event, 2**24 + 1 if y[i] == big else 0)
        reference.learn_one(event, y[i])
    np.testing.assert_array_equal(model.classes_, reference.classes_)
    np.testing.assert_array_equal(model.weights_, reference.weights_)


@pytest.mark.parametrize("shape", [(0,), (7,), (300,), (4, 9)])
def test_all_finite_equals_numpy(shape):
    rng = np.random.default_rng(1)
    values = rng.normal(size=shape)
    assert fastpath.all_finite(values) == np.isfinite(values).all()
    if values.size:
        for bad in (np.nan, np.inf, -np.inf):
            spoilt = values.copy()
            spoilt.flat[rng.integers(values.size)] = bad
            assert not fastpath.all_finite(spoilt)
    assert fastpath.all_finite(np.full(5, np.finfo(float).max))  # a sum would overflow


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_binary_labels_equals_numpy(dtype):
    rng = np.random.default_rng(2)
    negative, positive = np.array([3, 7], dtype=dtype)
    y = np.where(rng.random(50) > 0.5, positive, negative).astype(dtype)
    signed, ok = fastpath.binary_labels(y, negative, positive)
    np.testing.assert_array_equal(signed, np.where(y == positive, 1.0, -1.0))
    assert ok
    y[17] = 5
    assert not fastpath.binary_labels(y, negative, positive)[1]
    if dtype is np.float64:
        y[17] = np.nan
        assert not fastpath.binary_labels(y, negative, positive)[1]


@pytest.mark.parametrize(
    "label_dtype", [np.float64, np.int64, np.int32, np.uint8, np.str_, np.bool_]
)
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_single_rows_through_the_fast_path_equal_fit(fmt, label_dtype, monkeypatch):
    X, y = stream(n=60)
    y = np.where(y == "yes", 1, 0).astype(label_dtype)
    data = sp.csr_matrix(X) if fmt == "csr" else X
    reference = PassiveAggressiveClassifier().fit(data, y)
    model = PassiveAggressiveClassifier().partial_fit(data[:10], y[:10])

    def generic_check(*args, **kwargs):
        raise AssertionError("the generic path ran: the fast path was not taken")

    monkeypatch.setattr(base.OnlineLinearClassifier, "_check_targets", generic_check)
    monkeypatch.setattr(_validation, "validate_data", generic_check)
    for i in range(10, X.shape[0]):
        model.partial_fit(data[i : i + 1], y[i : i + 1])
    for attribute in STATE:
        np.testing.assert_array_equal(getattr(model, attribute), getattr(reference, attribute))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_bad_single_row_is_rejected_and_changes_nothing(fmt):
    X, y = stream(n=60)
    model = AROWClassifier().fit(X, y)
    before = model_state(model)
    for value in (np.nan, np.inf):
        row = X[:1].copy()
        row[0, np.flatnonzero(row[0])[0]] = value
        data = sp.csr_matrix(row) if fmt == "csr" else row
        with pytest.raises(ValueError, match="NaN|infinity"):
            model.partial_fit(data, y[:1])
        assert_same_state(before, model_state(model))
    with pytest.raises(ValueError, match="labels, but the model's classes are"):
        model.partial_fit(X[:1], np.array([1.0]))
    assert_same_state(before, model_state(model))


def test_packers_are_bounded():
    for n in range(_events._MAX_PACKERS + 5):
        _events.pack_dict(dict.fromkeys(range(n), 1.0))
    assert len(_events._PACKERS) <= _events._MAX_PACKERS


SCRIPT = """
import json
import numpy as np
from olearn.representations import fastpath

x = {3: 0.5, 0: -2.0}
problem, score = fastpath.binary_score(
    id(x), len(x), 4, np.array([[1.0, 2.0, 3.0, 4.0, 0.25]]), np.zeros((0, 0)), 1.0, 0.0
)
stats = fastpath.binary_score.stats
hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
print(json.dumps([problem, score, hits, misses]))
"""


def test_dict_reader_is_served_from_the_disk_cache(tmp_path):
    """The reader's code names C API symbols (PyDict_Next, PyLong_Type, ...): a second
    process must load it from the cache, link it, and read correctly."""
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    src = Path(olearn.__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    env.pop("OLEARN_NO_CACHE", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    outputs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        outputs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    first, second = outputs
    expected = 4.0 * 0.5 + 1.0 * -2.0 + 0.25
    assert first[:2] == second[:2] == [0, expected]
    assert first[3] > 0  # compiled in the first process
    assert second[2] > 0 and second[3] == 0  # served from the cache in the second
