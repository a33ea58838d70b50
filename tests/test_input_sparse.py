"""Sparse rows as users have them: rows out of order, repeated indices, a one-row CSC matrix.

``fastpath.csr_scan`` decides how a CSR matrix is read: in place (canonical, or rows out of
order without a repeated index) or summed first (an index twice in a row: scipy's meaning is
the sum, and ‖x‖² and second-order rules see the difference). Rows out of order are searched
for a repeat through a table of row stamps that may flag rows falsely (two indices sharing a
slot) but must never miss a repeat; these tests compare its verdict with a plain NumPy
reference on matrices that reach each of its paths. Speed is measured in
benchmarks/bench_inputs.py, not here.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import LEARNED_STATE, assert_same_state, model_state, returns_of
from hypothesis import given, settings
from hypothesis import strategies as st

from olearn import AROWClassifier, PassiveAggressiveClassifier
from olearn.representations import fastpath


def reference_verdict(indptr, indices) -> int:
    """CANONICAL, UNSORTED or DUPLICATES, row by row with NumPy."""
    verdict = fastpath.CANONICAL
    for i in range(len(indptr) - 1):
        row = indices[indptr[i] : indptr[i + 1]]
        if len(np.unique(row)) < len(row):
            return fastpath.DUPLICATES
        if np.any(np.diff(row) < 0):
            verdict = fastpath.UNSORTED
    return verdict


def rows_of(lengths, width, rng, *, low_bits_shared=False):
    """Rows of distinct indices in a random order; with ``low_bits_shared`` every index is
    a multiple of 2¹⁶ (all in one slot of the stamp table's first test)."""
    rows = []
    for m in lengths:
        if low_bits_shared:
            choices = max(1, width // 2**16)
            m = min(m, choices)
            row = rng.choice(choices, size=m, replace=False).astype(np.int64) * 2**16
        elif width > 4 * m:
            row = np.unique(rng.integers(0, width, size=m))
        else:
            row = rng.choice(width, size=min(m, width), replace=False)
        rows.append(rng.permutation(row))
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    indices = np.concatenate([np.zeros(0, np.int64), *rows]).astype(np.int64)
    return indptr, indices


def plant_repeat(indptr, indices, rng, row=None):
    """Copy one index of a row (of ≥ 2 values) over another of the same row."""
    lengths = np.diff(indptr)
    candidates = np.flatnonzero(lengths >= 2) if row is None else [row]
    i = int(rng.choice(candidates))
    p, q = rng.choice(lengths[i], size=2, replace=False)
    indices[indptr[i] + p] = indices[indptr[i] + q]
    return i


# (width, row lengths, low bits shared): every path of ``_repeated_in_rows`` — a table as
# wide as the matrix (exact), a filter with its second test and the exact one, rows too
# long for the table, and too few values for a table at all.
CASES = {
    "narrow-exact-table": (3_000, (10, 60), False),
    "wide-filter": (2**20, (60, 120), False),
    "wide-int64": (2**40, (60, 120), False),
    "shared-low-bits": (2**26, (10, 40), True),
    "long-rows": (2**20, (300, 900), False),
    "few-values": (2**20, (1, 6), False),
}


SCAN_CASES = [(case, index_type) for case in CASES for index_type in (np.int32, np.int64)
              if index_type is np.int64 or CASES[case][0] < 2**31]  # fmt: skip


@pytest.mark.parametrize("case, index_type", SCAN_CASES,
                         ids=[f"{c}-{t.__name__}" for c, t in SCAN_CASES])  # fmt: skip
def test_rows_out_of_order_are_searched_for_repeats_exactly(case, index_type):
    width, (low, high), shared = CASES[case]
    rng = np.random.default_rng(7)
    n = 3 if case == "few-values" else 400
    for trial in range(8):
        lengths = rng.integers(low, high + 1, size=n)
        indptr, indices = rows_of(lengths, width, rng, low_bits_shared=shared)
        if trial % 2:
            plant_repeat(indptr, indices, rng)
        data = np.ones(indices.shape[0])
        arrays = (indptr.astype(index_type), indices.astype(index_type), data, width)
        expected = reference_verdict(indptr, indices)
        assert fastpath.csr_scan(*arrays, True) == (expected, 0), (case, trial)
        assert expected == (fastpath.DUPLICATES if trial % 2 else fastpath.UNSORTED)


def test_a_repeat_in_any_row_is_found_after_the_stamps_start_again():
    """The table's uint16 stamps start again on a cleared table every ~65,000 rows: a
    repeat in a row just before or after that, or in the last row, is found; none invented."""
    rng = np.random.default_rng(11)
    n = 70_000
    indptr, indices = rows_of(np.full(n, 3), 2**20, rng)
    data = np.ones(indices.shape[0])
    assert fastpath.csr_scan(indptr, indices, data, 2**20, True) == (fastpath.UNSORTED, 0)
    for row in (0, 32_766, 32_767, 65_533, 65_534, n - 1):
        planted = indices.copy()
        plant_repeat(indptr, planted, rng, row=row)
        assert fastpath.csr_scan(indptr, planted, data, 2**20, True) == (fastpath.DUPLICATES, 0), (
            row
        )


def test_a_problem_is_still_reported_at_its_row_when_rows_are_out_of_order():
    rng = np.random.default_rng(3)
    indptr, indices = rows_of(np.full(50, 8), 1000, rng)
    data = np.ones(indices.shape[0])
    bad = indices.copy()
    bad[indptr[17] + 3] = 1000
    assert fastpath.csr_scan(indptr, bad, data, 1000, True) == (fastpath.OUT_OF_RANGE, 17)
    nan = data.copy()
    nan[indptr[31]] = np.nan
    plant_repeat(indptr, indices, rng, row=40)
    assert fastpath.csr_scan(indptr, indices, nan, 1000, True) == (fastpath.NOT_FINITE, 31)


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
def test_a_repeated_index_in_a_wide_unsorted_matrix_is_learned_as_scipys_sum(make, monkeypatch):
    """A matrix wide enough for the filtering table, its rows out of order, one index twice
    in one row: the model is the one of the summed matrix; read as two values (the scan
    made to miss the repeat), it would differ — ‖x‖² and the variances see them."""
    rng = np.random.default_rng(5)
    width, n = 2**20, 600
    indptr, indices = rows_of(rng.integers(40, 90, size=n), width, rng)
    data = rng.normal(size=indices.shape[0])
    plant_repeat(indptr, indices, rng, row=n // 2)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, width))
    summed = X.copy()
    summed.sum_duplicates()
    y = np.where(data[indptr[:-1]] > 0, 1, -1)
    model = make().fit(X, y)
    reference = make().fit(summed, y)
    state = "variances_" if make is AROWClassifier else "weights_"
    np.testing.assert_allclose(getattr(model, state), getattr(reference, state),
                               rtol=1e-10, atol=1e-12)  # fmt: skip
    from olearn.estimators import _validation

    blind = type("Blind", (), {"__getattr__": lambda self, name: getattr(fastpath, name)})()
    blind.csr_scan = lambda *arrays: (fastpath.UNSORTED, 0)
    monkeypatch.setattr(_validation, "fastpath", blind)
    unsummed = make().fit(X, y)
    assert not np.allclose(getattr(unsummed, state), getattr(reference, state),
                           rtol=1e-10, atol=1e-12)  # fmt: skip


# -- a one-row CSC matrix ---------------------------------------------------------------------


def one_row(width, nnz, rng, *, repeat=False):
    """A 1 × width CSR row of nnz values at random columns (one column twice: ``repeat``)."""
    columns = np.sort(rng.choice(width, size=nnz, replace=False))
    if repeat:
        columns = np.sort(np.append(columns, columns[nnz // 2]))
    values = rng.normal(size=columns.shape[0])
    return sp.csr_matrix((values, columns, [0, columns.shape[0]]), shape=(1, width))


@pytest.mark.parametrize("width", [2**20, 1_000_003, 40, 3])
def test_the_columns_of_a_one_row_csc_matrix_are_its_csr_rows(width):
    """``one_row_csc`` finds each value's column without reading all column pointers (a
    gather of samples, then branch-free searches in step): the CSR row scipy makes, for
    rows of every density, an index array of either type and pointers not starting at 0."""
    rng = np.random.default_rng(width)
    for nnz in sorted({0, 1, 2, min(width, 7), min(width, 80), min(width, 300)}):
        row = one_row(width, nnz, rng)
        csc = row.tocsc()
        for index_type in (np.int32, np.int64):
            like = np.empty(0, dtype=index_type)
            problem, columns, values = fastpath.one_row_csc(
                csc.indptr.astype(index_type), csc.indices.astype(index_type), csc.data, like
            )
            assert problem == 0 and columns.dtype == index_type
            np.testing.assert_array_equal(columns, row.indices)
            np.testing.assert_array_equal(values, row.data)
        shifted = (csc.indptr + 3, np.concatenate([[5, 5, 5], csc.indices]),
                   np.concatenate([[9.0, 9.0, 9.0], csc.data]))  # fmt: skip
        problem, columns, values = fastpath.one_row_csc(*shifted, np.empty(0, np.int32))
        np.testing.assert_array_equal(columns, row.indices)
        np.testing.assert_array_equal(values, row.data)


def test_csc_to_csr_finds_the_columns_of_a_sparse_many_row_matrix():
    """The same search serves CSC matrices of several rows holding few values for their
    width: the CSR matrix scipy makes, bit for bit."""
    rng = np.random.default_rng(2)
    for width, density in ((2**20, 1e-5), (50_000, 1e-3), (300, 0.2)):
        X = sp.random(7, width, density=density, format="csc", random_state=rng)
        indptr = np.zeros(8, dtype=np.int32)
        indices = np.empty(X.nnz, dtype=np.int32)
        values = np.empty(X.nnz)
        assert fastpath.csc_to_csr(X.indptr, X.indices, X.data, indptr, indices, values) == 0
        expected = X.tocsr()
        expected.sort_indices()
        np.testing.assert_array_equal(indptr, expected.indptr)
        np.testing.assert_array_equal(indices, expected.indices)
        np.testing.assert_array_equal(values, expected.data)


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
@pytest.mark.parametrize("width", [2**20, 12])
def test_one_row_csc_matrices_learn_and_predict_as_their_csr_rows(make, width):
    """Row by row, a model fed one-row CSC matrices (float64 or float32, int32 or int64
    indices, a column stored twice: scipy's sum) is the model fed the CSR rows, bit for
    bit, and predicts the same."""
    rng = np.random.default_rng(9)
    rows = [one_row(width, int(rng.integers(1, min(width, 60))), rng, repeat=i % 7 == 3)
            for i in range(40)]  # fmt: skip
    y = np.where(rng.random(40) < 0.5, 1, -1)
    forms = {
        "csc": lambda r: r.tocsc(),
        "csc-float32": lambda r: r.astype(np.float32).tocsc(),
        "csc-int64": lambda r: _int64_indices(r.tocsc()),
        "csc-array": lambda r: sp.csc_array(r.tocsc()),
    }
    for form, convert in forms.items():
        reference = make()
        model = make()
        for r, label in zip(rows, y, strict=True):
            as_given = r.astype(np.float32).astype(np.float64) if "float32" in form else r
            summed = as_given.copy()
            summed.sum_duplicates()
            reference.partial_fit(summed, [label], classes=[-1, 1])
            model.partial_fit(convert(r), [label], classes=[-1, 1])
            np.testing.assert_array_equal(model.weights_, reference.weights_, err_msg=form)
            # scored as stored, as the CSR row is (a repeat is two terms of the sum)
            np.testing.assert_array_equal(model.decision_function(convert(r)),
                                          reference.decision_function(as_given))  # fmt: skip


def _int64_indices(X):
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    return X


def test_a_one_row_csc_matrix_with_a_second_row_index_is_a_value_error():
    model = PassiveAggressiveClassifier().partial_fit(sp.csr_matrix([[1.0, 0.0, 2.0]]), [1],
                                                       classes=[-1, 1])  # fmt: skip
    weights = model.weights_.copy()
    bad = sp.csc_matrix([[1.0, 0.0, 2.0]])
    bad.indices[1] = 1  # (a row index of a 1-row matrix)
    for call in (lambda: model.partial_fit(bad, [1]), lambda: model.predict(bad)):
        with pytest.raises(ValueError, match="malformed sparse matrix"):
            call()
    np.testing.assert_array_equal(model.weights_, weights)


# -- COO ------------------------------------------------------------------------------------


def test_coo_grouped_by_row_is_read_in_place_and_learns_as_its_csr():
    """``tocoo()`` of a CSR matrix keeps the entries grouped by row: its columns and values
    are the CSR rows, read in place (only the row pointers made), and the model is the CSR
    matrix's bit for bit — also with int64 columns, float32 values, a repeated entry
    (scipy's sum) and a column out of range (the error names its row)."""
    from olearn.estimators._validation import as_rows

    rng = np.random.default_rng(4)
    X = sp.random(300, 5_000, density=0.01, format="csr", random_state=rng)
    y = np.where(rng.random(300) < 0.5, 1, -1)
    coo = X.tocoo()
    rows = as_rows(PassiveAggressiveClassifier(), coo, reset=True)
    assert rows.indices is coo.col and rows.data is coo.data
    np.testing.assert_array_equal(rows.indptr, X.indptr)
    for make in (PassiveAggressiveClassifier, AROWClassifier):
        reference = make().fit(X, y)
        wide = coo.copy()
        wide.col = wide.col.astype(np.int64)
        for form in (coo, wide):
            model = make().fit(form, y)
            np.testing.assert_array_equal(model.weights_, reference.weights_)
            np.testing.assert_array_equal(model.decision_function(form),
                                          reference.decision_function(X))  # fmt: skip
        single = X.astype(np.float32)
        np.testing.assert_array_equal(make().fit(single.tocoo(), y).weights_,
                                      make().fit(single, y).weights_)  # fmt: skip
    repeated = sp.coo_matrix(
        (np.r_[coo.data, 1.5], (np.r_[coo.row, 299], np.r_[coo.col, coo.col[-1]])),
        shape=coo.shape,
    )
    summed = repeated.tocsr()  # (scipy sums the repeat)
    np.testing.assert_allclose(AROWClassifier().fit(repeated, y).variances_,
                               AROWClassifier().fit(summed, y).variances_, rtol=1e-12)  # fmt: skip
    bad = coo.copy()
    bad.col = bad.col.copy()
    bad.col[np.flatnonzero(bad.row == 120)[0]] = 5_000
    with pytest.raises(ValueError, match="column index outside .* row 120"):
        PassiveAggressiveClassifier().fit(bad, y)


@given(
    rows=st.lists(st.integers(0, 11), max_size=40).map(sorted),
    n_rows=st.integers(12, 15),
    bad=st.sampled_from([None, "descending", "negative", "beyond"]),
    at=st.integers(0, 39),
)
@settings(max_examples=200, deadline=None)
def test_coo_row_pointers_are_the_first_entry_of_each_row(rows, n_rows, bad, at):
    """``fastpath.coo_row_pointers`` of rows grouped in increasing order (some rows empty,
    leading and trailing ones too) are where each row's entries start (NumPy's
    ``searchsorted``); at the first entry out of order it answers 1, at the first row index
    outside the shape ``OUT_OF_RANGE``."""
    row = np.array(rows, dtype=np.int32)
    expected = 0
    if bad is not None and row.shape[0]:
        at = at % row.shape[0]
        if bad == "descending" and row[at] > 0:
            row[at:] = row[at] - 1  # entries before ``at`` hold a larger row
            expected = 1 if at and rows[at - 1] > row[at] else 0
        elif bad != "descending":
            row[at] = -1 if bad == "negative" else n_rows
            expected = fastpath.OUT_OF_RANGE
    indptr = np.zeros(n_rows + 1, dtype=np.int32)
    assert fastpath.coo_row_pointers(row, row.shape[0], indptr) == expected
    if not expected:
        reference = np.searchsorted(row, np.arange(n_rows + 1), side="left")
        np.testing.assert_array_equal(indptr, reference)


def test_coo_with_rows_out_of_order_is_regrouped():
    """Entries in any order (rows not grouped) are regrouped into CSR rows: the model is the
    CSR matrix's up to the order of sums; a row index outside the shape is an error."""
    rng = np.random.default_rng(6)
    X = sp.random(200, 800, density=0.05, format="csr", random_state=rng)
    y = np.where(rng.random(200) < 0.5, 1, -1)
    coo = X.tocoo()
    order = rng.permutation(coo.nnz)
    shuffled = sp.coo_matrix((coo.data[order], (coo.row[order], coo.col[order])),
                             shape=coo.shape)  # fmt: skip
    np.testing.assert_allclose(PassiveAggressiveClassifier().fit(shuffled, y).weights_,
                               PassiveAggressiveClassifier().fit(X, y).weights_,
                               rtol=1e-10, atol=1e-12)  # fmt: skip
    for arrays in ((coo.row, coo.col), (coo.row[order], coo.col[order])):
        bad = sp.coo_matrix((coo.data.copy(), (arrays[0].copy(), arrays[1].copy())),
                            shape=coo.shape)  # fmt: skip
        bad.row[len(bad.row) // 2] = 200
        with pytest.raises(ValueError, match="malformed sparse matrix"):
            PassiveAggressiveClassifier().fit(bad, y)


@pytest.mark.parametrize("grouped", [True, False])
def test_a_coo_entry_outside_the_shape_is_named_by_its_row_or_column_index(grouped):
    """A COO row index outside the rows is said to be one (it was "a column index outside
    [0, d) in row 0"), and a column index outside the width names the row that holds it,
    whether the entries are grouped by row or regrouped (it was row 0 for the latter)."""
    X = sp.random(50, 10, density=0.3, format="csr", random_state=19)
    y = np.arange(50) % 2
    coo = X.tocoo()
    order = np.arange(coo.nnz) if grouped else np.random.default_rng(20).permutation(coo.nnz)
    model = PassiveAggressiveClassifier().fit(X, y)
    for index, value, message in (
        ("row", 50, r"row index outside \[0, 50\) \(50, entry"),
        ("row", -1, r"row index outside \[0, 50\) \(-1, entry"),
        ("col", 12, r"column index outside \[0, 10\) in row 37\."),
    ):
        bad = sp.coo_matrix((coo.data[order], (coo.row[order], coo.col[order])), shape=(50, 10))
        getattr(bad, index)[np.flatnonzero(bad.row == 37)[0]] = value
        for call in (PassiveAggressiveClassifier().fit, model.partial_fit):
            with pytest.raises(ValueError, match=message):
                call(bad, y)
        with pytest.raises(ValueError, match=message):
            model.predict(bad)


@pytest.mark.parametrize("make", [AROWClassifier, PassiveAggressiveClassifier])
def test_scoring_rows_with_a_repeated_index_leaves_the_callers_matrix_as_it_was(make):
    """A repeated index is summed into a copy before scoring (``summed_repeats``): the
    caller's arrays are never sorted or summed in place (``predict_proba`` of the
    Gaussian models did both once, leaving the matrix's row pointers wrong)."""
    rng = np.random.default_rng(4)
    train = sp.random(60, 6, density=0.5, format="csr", random_state=rng)
    model = make().fit(train, rng.integers(0, 2, size=60))
    data = np.array([1.0, 2.0, 3.0, 0.5])
    indices = np.array([3, 1, 3, 0], dtype=np.int32)  # row 0 holds index 3 twice
    indptr = np.array([0, 3, 4], dtype=np.int32)
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 6))
    summed = X.copy()
    summed.sum_duplicates()
    methods = ["decision_function", "predict"]
    if hasattr(model, "predict_proba"):
        methods.append("predict_proba")
    for method in methods:
        np.testing.assert_array_equal(getattr(model, method)(X), getattr(model, method)(summed))
        np.testing.assert_array_equal(X.data, [1.0, 2.0, 3.0, 0.5])
        np.testing.assert_array_equal(X.indices, [3, 1, 3, 0])
        np.testing.assert_array_equal(X.indptr, [0, 3, 4])


@pytest.mark.parametrize("average", [False, True])
def test_clean_rows_are_scored_as_the_checked_loop_scores_them(average):
    """A binary model scores rows known clean (every index seen, every value finite) without
    a test per value (``fastpath._binary_scores``); one unseen feature sends the matrix
    through the checked loop. Both must give the other rows the same scores, bit for bit,
    averaged models included."""
    from olearn import PerceptronClassifier

    rng = np.random.default_rng(7)
    X = sp.random(300, 50, density=0.2, format="csr", random_state=rng)
    y = rng.integers(0, 2, size=300)
    model = PerceptronClassifier(average=average).fit(X, y)
    clean = model.decision_function(X)
    wider = sp.hstack([X, sp.csr_matrix(([2.0], ([5], [0])), shape=(300, 1))]).tocsr()
    checked = model.decision_function(wider)  # row 5 holds a feature unseen in training
    np.testing.assert_array_equal(clean, checked)
    one_at_a_time = [model.decision_function(X[i])[0] for i in (0, 5, 299)]
    np.testing.assert_array_equal(one_at_a_time, clean[[0, 5, 299]])


# -- a stream of CSR chunks -------------------------------------------------------------------


@pytest.fixture
def csr_short_path(monkeypatch):
    """What each ``_partial_fit_csr_chunk`` call returned (True: the short path learned)."""
    from olearn.estimators import base

    return returns_of(monkeypatch, base.OnlineLinearClassifier, "_partial_fit_csr_chunk")


def _unsorted(X):
    """X with each row's stored order reversed (the same matrix)."""
    out = X.copy()
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        out.indices[a:b] = X.indices[a:b][::-1]
        out.data[a:b] = X.data[a:b][::-1]
    out.has_sorted_indices = False
    return out


def _read_only(X):
    out = X.copy()
    for array in (out.data, out.indices, out.indptr):
        array.flags.writeable = False
    return out


def _int64(X):
    out = X.copy()
    out.indices = out.indices.astype(np.int64)
    out.indptr = out.indptr.astype(np.int64)
    return out


CHUNK_FORMS = {  # form → whether the short path reads it
    "canonical": (lambda X: X, True),
    "csr_array": (sp.csr_array, True),
    "rows out of order": (_unsorted, True),
    "int64 indices": (_int64, True),
    "read-only": (_read_only, False),
    "float32": (lambda X: X.astype(np.float32), True),  # (copied as float64)
}


@pytest.mark.parametrize("form", CHUNK_FORMS)
@pytest.mark.parametrize(
    "make",
    [
        PassiveAggressiveClassifier,
        lambda: __import__("olearn").PerceptronClassifier(average=True),
        AROWClassifier,
    ],
)
def test_csr_chunks_take_the_short_path_and_learn_what_fit_does(make, form, csr_short_path):
    """A fitted binary model's CSR chunks (``_partial_fit_csr_chunk``), in every form a
    stream has them: the model of one ``fit`` of the whole matrix in that form, bit for bit
    (rows stored in another order sum their squares in that order); the forms the short path
    does not read (compiled for writable float64 arrays) leave it for the general path, which
    learns the same."""
    convert, short = CHUNK_FORMS[form]
    rng = np.random.default_rng(11)
    X = sp.random(600, 400, density=0.04, format="csr", random_state=12, dtype=np.float32)
    X = X.astype(np.float64)  # (float32 values: the float32 form holds the same values)
    y = rng.choice([-1, 1], size=600)
    model = make().partial_fit(convert(X[:100]), y[:100], classes=[-1, 1])
    for start in range(100, 600, 125):
        model.partial_fit(convert(X[start : start + 125]), y[start : start + 125])
    assert csr_short_path == [short] * 4  # (the first call, with classes=, builds the model)
    reference = make().fit(convert(X), y)
    for name in LEARNED_STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), name)


def test_one_row_coo_matrices_take_the_short_path_and_learn_what_fit_does(csr_short_path):
    """A stream of one-row COO matrices (every entry in row 0) is read in place as CSR rows
    by the short path too, and learns the model of one ``fit``."""
    X = sp.random(60, 30, density=0.3, format="csr", random_state=15)
    y = np.random.default_rng(16).choice([-1, 1], size=60)
    model = PassiveAggressiveClassifier().partial_fit(X[:10], y[:10], classes=[-1, 1])
    for i in range(10, 60):
        model.partial_fit(X[i].tocoo(), y[i : i + 1])
    assert csr_short_path == [True] * 50
    reference = PassiveAggressiveClassifier().fit(X, y)
    for name in LEARNED_STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), name)


def test_csr_chunks_the_short_path_cannot_learn_are_left_unchanged_to_the_general_path(
    csr_short_path,
):
    """A chunk with a repeated index (summed by the general path), an index beyond the
    width, a NaN, or a new label: the short path declines having changed nothing, and the
    general path sums, raises by name, or grows a class."""
    X = sp.random(300, 50, density=0.2, format="csr", random_state=13)
    y = np.random.default_rng(14).choice([0, 1], size=300)
    model = PassiveAggressiveClassifier().partial_fit(X[:100], y[:100], classes=[0, 1])
    reference = PassiveAggressiveClassifier().partial_fit(X[:100], y[:100], classes=[0, 1])

    repeated = X[100:200].copy()
    repeated.indices[repeated.indptr[5] + 1] = repeated.indices[repeated.indptr[5]]
    summed = repeated.copy()
    summed.sum_duplicates()
    model.partial_fit(repeated, y[100:200])
    reference.partial_fit(summed, y[100:200])
    assert csr_short_path[-2:] == [False, True]  # (the summed copy is canonical)
    for name in LEARNED_STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), name)
    before = model_state(model)

    wide = X[200:300].copy()
    wide.indices[7] = 50
    with pytest.raises(ValueError, match=r"outside \[0, 50\) in row 0"):
        model.partial_fit(wide, y[200:300])
    nan = X[200:300].copy()
    nan.data[nan.indptr[60]] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 60\)"):
        model.partial_fit(nan, y[200:300])
    assert csr_short_path[-2:] == [False, False]
    assert_same_state(before, model_state(model))

    model.partial_fit(X[200:300], np.where(y[200:300] > 0, 2, 0))
    assert csr_short_path[-1] is False and model.classes_.tolist() == [0, 1, 2]


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
def test_a_csr_chunk_of_no_rows_is_refused_as_the_general_path_refuses_it(make):
    """A chunk of 0 rows is a ValueError, as in ``fit`` and for a dense chunk: the short path
    leaves it to the general path (which names the empty shape) and the model is unchanged."""
    X = sp.random(50, 20, density=0.3, format="csr", random_state=17)
    y = np.random.default_rng(18).choice([0, 1], size=50)
    model = make().partial_fit(X, y, classes=[0, 1])
    before = model_state(model)
    for empty in (X[:0], sp.csr_array(X[:0])):
        with pytest.raises(ValueError, match=r"0 sample\(s\)"):
            model.partial_fit(empty, y[:0])
    assert_same_state(before, model_state(model))
