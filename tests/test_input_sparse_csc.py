"""``fit`` on CSC matrices: the model of the CSR matrix, bit for bit, on every path.

``fit`` learns a large CSC matrix as a second thread converts it, slice of rows by slice
(``_csc.CscPipeline``); other calls convert a large one on two threads
(``_validation._csc_on_two_threads``: each thread a range of columns, then half the rows
scanned), a small one — or any one when the process may use a single CPU — in one compiled
call (``fastpath.csc_to_csr``). These tests force each path on small matrices (the size
thresholds lowered) and compare the models and the converted arrays with scipy's, the errors
with the CSR matrix's, and check that no thread outlives a call. Speed is measured in
benchmarks/bench_inputs.py, not here.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import LEARNED_STATE

from olearn import (
    AROWClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    SCWClassifier,
    engine,
)
from olearn.estimators import _blocks, _csc, _validation
from olearn.representations import fastpath


@pytest.fixture(params=["pipeline", "two-threads", "one-cpu"])
def path(request, monkeypatch):
    """Every CSC matrix of the test converted as ``fit`` learns it (four slices), converted
    on two threads, or with one usable CPU."""
    monkeypatch.setattr(_validation, "PARALLEL_CSC_VALUES", 1)
    if request.param == "pipeline":
        monkeypatch.setattr(_csc, "PIPELINE_VALUES", 1)
        monkeypatch.setattr(_csc, "SLICE_VALUES", 500)
    if request.param == "one-cpu":
        monkeypatch.setattr(_blocks.os, "sched_getaffinity", lambda pid: {0})

        def no_thread(*args, **kwargs):
            raise AssertionError("a thread started with one usable CPU")

        monkeypatch.setattr(_validation.threading, "Thread", no_thread)
    return request.param


def text_like(n=300, width=4_000, per_row=25, seed=0):
    """Rows of distinct columns, some columns frequent (as words), canonical CSR."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, width + 1)
    weights /= weights.sum()
    rows = []
    for _ in range(n):
        m = int(rng.integers(1, per_row))
        rows.append(np.unique(rng.choice(width, size=m, p=weights)))
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    indices = np.concatenate(rows)
    X = sp.csr_matrix((rng.normal(size=len(indices)), indices, indptr), shape=(n, width))
    y = np.where(X @ rng.normal(size=width) > 0, 1, -1)
    return X, y


def assert_same_model(a, b):
    for name in LEARNED_STATE:
        if hasattr(a, name):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def no_conversion_thread() -> bool:
    return not any(t.name == "olearn-csc" for t in threading.enumerate())


def converted(X):
    """The CSR arrays ``as_rows`` makes of X for learning."""
    model = PassiveAggressiveClassifier()
    return _validation.as_rows(model, X, reset=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PassiveAggressiveClassifier(variant="PA-I"),
        AROWClassifier,
        SCWClassifier,
        lambda: AROWClassifier(max_iter=3),
        lambda: PassiveAggressiveClassifier(max_iter=2, shuffle=True, random_state=0),
    ],
)
def test_a_csc_fit_is_the_csr_fit_bit_for_bit(make, path):
    X, y = text_like()
    reference = make().fit(X, y)
    for csc in (X.tocsc(), sp.csc_array(X), X.astype(np.float32).tocsc()):
        expected = reference if csc.dtype == np.float64 else make().fit(csc.tocsr(), y)
        assert_same_model(make().fit(csc, y), expected)
    assert no_conversion_thread()


def test_multiclass_regression_and_weights_learn_as_from_csr(path):
    X, y = text_like(seed=1)
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 4, size=X.shape[0])
    weights = rng.uniform(0, 2, size=X.shape[0])
    targets = rng.normal(size=X.shape[0])
    costs = rng.uniform(0, 1, size=(X.shape[0], 4))
    costs[np.arange(X.shape[0]), labels] = 0.0
    cases = [
        (AROWClassifier, labels, {}),
        (AROWClassifier, labels, {"cost": costs}),  # (a label row per example: ``run_task``)
        (lambda: PassiveAggressiveClassifier(variant="PA-II"), y, {"sample_weight": weights}),
        (PassiveAggressiveRegressor, targets, {}),
    ]
    for make, target, extra in cases:
        assert_same_model(make().fit(X.tocsc(), target, **extra), make().fit(X, target, **extra))


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_the_conversion_is_scipys_csr_matrix(index_type, path):
    """Columns in order within each row, whatever the order of the rows within a column
    (unsorted CSC), for either index type; predict reads the same rows."""
    X, y = text_like(seed=2)
    csc = X.tocsc()
    csc.indices = csc.indices.astype(index_type)
    csc.indptr = csc.indptr.astype(index_type)
    rng = np.random.default_rng(2)
    shuffled = csc.copy()
    for c in range(shuffled.shape[1]):  # the rows of each column in a random order
        a, b = shuffled.indptr[c], shuffled.indptr[c + 1]
        order = a + rng.permutation(b - a)
        shuffled.indices[a:b] = shuffled.indices[order]
        shuffled.data[a:b] = shuffled.data[order]
    shuffled.has_sorted_indices = False
    for matrix in (csc, shuffled):
        rows = converted(matrix)
        assert rows.verdict == fastpath.CANONICAL
        np.testing.assert_array_equal(rows.indptr, X.indptr)
        np.testing.assert_array_equal(rows.indices, X.indices)
        np.testing.assert_array_equal(rows.data, X.data)
    model = PassiveAggressiveClassifier().fit(X, y)
    np.testing.assert_array_equal(model.decision_function(shuffled), model.decision_function(X))
    assert_same_model(PassiveAggressiveClassifier().fit(shuffled, y), model)


def test_rows_out_of_order_in_a_late_column_are_learned_right(path):
    """Only the rows of the last slice are out of order in one column: ``fit`` learns the
    slices before it as they are converted, then the rest from the whole conversion — the
    model of the CSR matrix."""
    X, y = text_like(seed=7)
    csc = X.tocsc()
    ends = csc.indptr[1:]
    late = (np.diff(csc.indptr) >= 4) & (csc.indices[np.maximum(ends - 2, 0)] > 0.8 * X.shape[0])
    column = int(np.flatnonzero(late)[0])
    b = csc.indptr[column + 1]
    csc.indices[b - 2 : b] = csc.indices[b - 2 : b][::-1].copy()  # its two last rows swapped
    csc.data[b - 2 : b] = csc.data[b - 2 : b][::-1].copy()
    csc.has_sorted_indices = False
    for make in (PassiveAggressiveClassifier, AROWClassifier):
        assert_same_model(make().fit(csc, y), make().fit(X, y))


def test_a_value_stored_twice_is_learned_as_scipys_sum(path):
    X, y = text_like(seed=3)
    csc = X.tocsc()
    column = int(np.argmax(np.diff(csc.indptr)))  # a column of several rows: store one twice
    a = csc.indptr[column]
    indices = np.insert(csc.indices, a + 1, csc.indices[a])
    data = np.insert(csc.data, a + 1, 0.5)
    indptr = csc.indptr.copy()
    indptr[column + 1 :] += 1
    twice = sp.csc_matrix((data, indices, indptr), shape=csc.shape)
    summed = twice.tocsr()
    summed.sum_duplicates()
    assert summed.nnz == X.nnz
    for make in (PassiveAggressiveClassifier, AROWClassifier):
        assert_same_model(make().fit(twice, y), make().fit(summed, y))


def test_bad_matrices_raise_as_their_csr_form_and_change_nothing(path):
    X, y = text_like(seed=4)
    model = AROWClassifier().fit(X, y)
    before = model.variances_.copy()
    nan = X.copy()
    nan.data[nan.indptr[123] + 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 123\)"):
        model.fit(nan.tocsc(), y)
    late = X.copy()
    late.data[late.indptr[290]] = np.inf  # in the second half of the rows
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 290\)"):
        model.fit(late.tocsc(), y)
    outside = X.tocsc()
    outside.indices[outside.nnz // 3] = X.shape[0]  # a row index beyond the last row
    with pytest.raises(ValueError, match="malformed sparse matrix"):
        model.fit(outside, y)
    decreasing = X.tocsc()
    column = decreasing.shape[1] // 2 + 1  # pointers that go back in the second half
    decreasing.indptr[column] = decreasing.indptr[column + 1] + 1
    with pytest.raises(ValueError, match=r"malformed sparse matrix: its row pointers"):
        model.fit(decreasing, y)
    np.testing.assert_array_equal(model.variances_, before)
    assert no_conversion_thread()


def test_the_two_halves_of_csc_to_csr_check_what_it_checks():
    """``csc_count_rows`` on a range of columns: decreasing pointers and rows outside the
    shape are problems; the counts are those of the range only."""
    X, _ = text_like(n=40, width=300, seed=5)
    csc = X.tocsc()
    middle = 150
    counts = np.zeros(41, dtype=np.int32)
    assert fastpath.csc_count_rows(csc.indptr, csc.indices, middle, 300, counts) == 0
    expected = np.bincount(csc.indices[csc.indptr[middle] :], minlength=40)
    np.testing.assert_array_equal(counts[1:], expected)
    bad = csc.indptr.copy()
    bad[200] = bad[201] + 1
    assert fastpath.csc_count_rows(bad, csc.indices, 0, middle, counts) == 0
    assert fastpath.csc_count_rows(bad, csc.indices, middle, 300, counts) == fastpath.BAD_INDPTR
    rows = csc.indices.copy()
    rows[-1] = -1
    assert fastpath.csc_count_rows(csc.indptr, rows, 0, 300, counts) == fastpath.OUT_OF_RANGE


class Interrupted(BaseException):
    """Stands for a KeyboardInterrupt (which pytest would take as the user's)."""


@pytest.mark.parametrize("on_main", [True, False])
@pytest.mark.parametrize("pipeline", [True, False])
def test_an_interruption_on_either_thread_leaves_no_thread_and_no_change(
    monkeypatch, on_main, pipeline
):
    """An exception — on the calling thread (Ctrl-C arrives there: while it converts, or
    learns a slice) or on the second one (while it converts) — is raised by ``fit`` after
    the second thread has ended; the model is as it was."""
    monkeypatch.setattr(_validation, "PARALLEL_CSC_VALUES", 1)
    monkeypatch.setattr(_validation, "two_cpus", lambda: True)
    if pipeline:
        monkeypatch.setattr(_csc, "PIPELINE_VALUES", 1)
        monkeypatch.setattr(_csc, "SLICE_VALUES", 500)
    X, y = text_like(seed=6)
    model = PassiveAggressiveClassifier().fit(X, y)
    weights = model.weights_.copy()
    main = threading.current_thread()
    if pipeline and on_main:  # the second slice's learning interrupted
        calls = []
        learn = engine.run_pass

        def interrupted_learning(*args):
            calls.append(1)
            if len(calls) == 2:
                raise Interrupted
            return learn(*args)

        monkeypatch.setattr(engine, "run_pass", interrupted_learning)
    else:
        name = "csc_rows_to_csr" if pipeline else "csc_columns_to_csr"
        original = getattr(fastpath, name)

        def interrupted(*args):
            if (threading.current_thread() is main) == on_main:
                raise Interrupted
            return original(*args)

        stub = type("Stub", (), {"__getattr__": lambda self, name: getattr(fastpath, name)})()
        setattr(stub, name, interrupted)
        monkeypatch.setattr(_validation, "fastpath", stub)
        monkeypatch.setattr(_csc, "fastpath", stub)
    with pytest.raises(Interrupted):
        model.fit(X.tocsc(), y)
    assert no_conversion_thread()
    np.testing.assert_array_equal(model.weights_, weights)


def test_the_pipeline_converts_slices_as_csc_to_csr_does():
    """``csc_rows_to_csr`` slice by slice on the columns' two halves writes the arrays of
    ``csc_to_csr``; a row below the slice or twice in a column is ``UNSORTED``."""
    X, _ = text_like(n=60, width=500, seed=8)
    csc = X.tocsc()
    n = X.shape[0]
    indptr = np.diff(X.indptr, prepend=0).astype(np.int32)
    indptr = np.cumsum(indptr).astype(np.int32)
    halves = ((0, 200), (200, 500))
    first = np.zeros(n + 1, dtype=np.int32)
    fastpath.csc_count_rows(csc.indptr, csc.indices, 0, 200, first)
    positions = (indptr[:-1].copy(), indptr[:-1] + first[1:])
    indices = np.empty(X.nnz, dtype=np.int32)
    values = np.empty(X.nnz)
    used = []
    for c0, c1 in halves:
        parts = [np.empty(c1 - c0, dtype=np.int32) for _ in range(3)]
        used.append([*parts, fastpath.csc_columns_in_use(csc.indices, csc.indptr, c0, c1, *parts)])
    for lo, hi in ((0, 7), (7, 31), (31, 60)):
        for half in (0, 1):
            columns, cursors, rows, m = used[half]
            kept, problem, _ = fastpath.csc_rows_to_csr(
                csc.indptr, csc.indices, csc.data, columns, cursors, rows, m, lo, hi,
                positions[half], indices, values,
            )  # fmt: skip
            assert problem == 0
            used[half][3] = kept
    assert used[0][3] == used[1][3] == 0
    np.testing.assert_array_equal(indices, X.indices)
    np.testing.assert_array_equal(values, X.data)
    twice = csc.indices.copy()
    column = int(np.argmax(np.diff(csc.indptr)))
    twice[csc.indptr[column] + 1] = twice[csc.indptr[column]]
    parts = [np.empty(500, dtype=np.int32) for _ in range(3)]
    m = fastpath.csc_columns_in_use(twice, csc.indptr, 0, 500, *parts)
    _, problem, _ = fastpath.csc_rows_to_csr(
        csc.indptr, twice, csc.data, *parts, m, 0, n, indptr[:-1].copy(), indices, values
    )
    assert problem == fastpath.UNSORTED
