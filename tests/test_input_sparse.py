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
        assert fastpath.csr_scan(*arrays) == (expected, 0), (case, trial)
        assert expected == (fastpath.DUPLICATES if trial % 2 else fastpath.UNSORTED)


def test_a_repeat_in_any_row_is_found_after_the_stamps_start_again():
    """The table's uint16 stamps start again on a cleared table every ~65,000 rows: a
    repeat in a row just before or after that, or in the last row, is found; none invented."""
    rng = np.random.default_rng(11)
    n = 70_000
    indptr, indices = rows_of(np.full(n, 3), 2**20, rng)
    data = np.ones(indices.shape[0])
    assert fastpath.csr_scan(indptr, indices, data, 2**20) == (fastpath.UNSORTED, 0)
    for row in (0, 32_766, 32_767, 65_533, 65_534, n - 1):
        planted = indices.copy()
        plant_repeat(indptr, planted, rng, row=row)
        assert fastpath.csr_scan(indptr, planted, data, 2**20) == (fastpath.DUPLICATES, 0), row


def test_a_problem_is_still_reported_at_its_row_when_rows_are_out_of_order():
    rng = np.random.default_rng(3)
    indptr, indices = rows_of(np.full(50, 8), 1000, rng)
    data = np.ones(indices.shape[0])
    bad = indices.copy()
    bad[indptr[17] + 3] = 1000
    assert fastpath.csr_scan(indptr, bad, data, 1000) == (fastpath.OUT_OF_RANGE, 17)
    nan = data.copy()
    nan[indptr[31]] = np.nan
    plant_repeat(indptr, indices, rng, row=40)
    assert fastpath.csr_scan(indptr, indices, nan, 1000) == (fastpath.NOT_FINITE, 31)


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
