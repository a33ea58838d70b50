"""``fit`` on CSC matrices: the model of the CSR matrix, bit for bit, on every path.

A large CSC matrix is converted to CSR rows on two threads (``_validation._csc_on_two_threads``:
each thread a range of columns, then half the rows scanned), a small one — or any one when
the process may use a single CPU — in one compiled call (``fastpath.csc_to_csr``). These
tests force each path on small matrices (the size threshold lowered) and compare the models
and the converted arrays with scipy's, the errors with the CSR matrix's, and check that no
thread outlives a call. Speed is measured in benchmarks/bench_inputs.py, not here.
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
)
from olearn.estimators import _validation
from olearn.representations import fastpath


@pytest.fixture(params=["two-threads", "one-cpu"])
def path(request, monkeypatch):
    """Every CSC matrix of the test converted on two threads, or with one usable CPU."""
    monkeypatch.setattr(_validation, "PARALLEL_CSC_VALUES", 1)
    if request.param == "one-cpu":
        monkeypatch.setattr(_validation.os, "sched_getaffinity", lambda pid: {0})

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
    cases = [
        (AROWClassifier, labels, {}),
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
def test_an_interruption_on_either_thread_leaves_no_thread_and_no_change(monkeypatch, on_main):
    """An exception while converting — on the calling thread (Ctrl-C arrives there) or on the
    second one — is raised by ``fit`` after the second thread has ended; the model is as
    it was."""
    monkeypatch.setattr(_validation, "PARALLEL_CSC_VALUES", 1)
    monkeypatch.setattr(_validation, "two_cpus", lambda: True)
    X, y = text_like(seed=6)
    model = PassiveAggressiveClassifier().fit(X, y)
    weights = model.weights_.copy()
    main = threading.current_thread()
    original = fastpath.csc_columns_to_csr

    def interrupted(*args):
        if (threading.current_thread() is main) == on_main:
            raise Interrupted
        original(*args)

    stub = type("Stub", (), {"__getattr__": lambda self, name: getattr(fastpath, name)})()
    stub.csc_columns_to_csr = interrupted
    monkeypatch.setattr(_validation, "fastpath", stub)
    with pytest.raises(Interrupted):
        model.fit(X.tocsc(), y)
    assert no_conversion_thread()
    np.testing.assert_array_equal(model.weights_, weights)
