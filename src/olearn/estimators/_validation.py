"""Input checks shared by the estimators: clear errors, raised before any state changes.

Every input form users have reaches the compiled loop without scikit-learn's generic checker
(~50–100 µs a call, and an O(n·d) copy for a DataFrame or a float32 array):

* CSR is read in place, its rows in any order: one compiled pass (``fastpath.csr_scan``)
  checks the row pointers, the index range and the finiteness of the values, and whether an
  index repeats within a row — the one case that must be summed first (scipy's meaning of a
  CSR matrix). A COO matrix whose entries are grouped by row (``tocoo()`` of a CSR matrix)
  is read in place as CSR rows, only its row pointers made; other COO matrices and CSC are
  converted to CSR rows once, in compiled code (a one-row CSC matrix without reading all
  its column pointers; a large one on two threads when the process may use two CPUs).
* A float64 C-contiguous array is read in place; so is a float32 or read-only C-contiguous
  one by a plain binary model's dense pass (``OnlineLinearModel._run_dense_pass``). Any
  other numeric array (Fortran order, a DataFrame's values, integers) is converted by
  blocks of rows as the loop goes (``Rows.in_place`` is False; see
  ``OnlineLinearModel._run``), never as a whole.
* Prediction reads sparse rows wider than the training width: an unseen feature is ignored,
  as with hashing (``fastpath.csr_scores``).

Python work per call is O(1): type and shape tests, a dict lookup for a DataFrame's columns.
Anything unusual (lists, object arrays, other sparse formats, empty input) goes through
scikit-learn's ``validate_data``, which converts it or raises its usual error.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import _check_feature_names, validate_data

from olearn.estimators import _csc
from olearn.estimators._blocks import usable_cpus
from olearn.representations import fastpath

ACCEPT_SPARSE = ("csr", "csc", "coo")
_CSR = frozenset({sp.csr_matrix, sp.csr_array})
_COO = frozenset({sp.coo_matrix, sp.coo_array})
_CSC = frozenset({sp.csc_matrix, sp.csc_array})
_FLOAT64 = np.dtype(np.float64)
_INT32, _INT64 = np.dtype(np.int32), np.dtype(np.int64)
_COMPILED_FLOATS = frozenset({np.dtype(np.float32), _FLOAT64})
#: The DataFrame columns last checked against each model's ``feature_names_in_``: a pandas
#: Index is immutable, so the same object needs no second check (that check costs ~0.5 ms).
_CHECKED_COLUMNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Rows(NamedTuple):
    """X as the compiled loop reads it.

    ``data`` is the float64 CSR values with ``indptr``/``indices`` (int32 or int64, one
    type), or a dense 2-D numeric array with both None. A dense array that is not float64
    C-contiguous is read by blocks of converted rows (``in_place`` False). ``finite`` tells
    whether the values were checked finite; ``verdict`` is ``csr_scan``'s (None when the
    rows were not scanned: prediction, where the scorer checks them itself)."""

    data: np.ndarray
    indptr: np.ndarray | None
    indices: np.ndarray | None
    shape: tuple[int, int]
    finite: bool
    verdict: int | None = None
    #: A CSC matrix still to convert (``_csc.CscPipeline``): ``fit`` learns it as it goes.
    pending: object = None

    @property
    def sparse(self) -> bool:
        return self.indptr is not None

    @property
    def in_place(self) -> bool:
        """Whether the loop reads ``data`` as it is: CSR, or writable float64 C-contiguous
        (a read-only array, e.g. a memory map or a DataFrame's values, is another type to
        numba: it is read by blocks too)."""
        if self.indptr is not None:
            return True
        flags = self.data.flags
        return self.data.dtype is _FLOAT64 and flags.c_contiguous and flags.writeable

    def dense_float64(self) -> np.ndarray:
        """The dense rows as one float64 C-contiguous array (a copy unless in place)."""
        return np.ascontiguousarray(self.data, dtype=np.float64)


def as_rows(
    estimator, X, *, reset: bool, check_finite: bool = True, learn: bool = True,
    while_learning: bool = False,
):  # fmt: skip
    """Validate X and return it as ``Rows``; record ``n_features_in_`` (and a DataFrame's
    feature names) when ``reset``.

    ``learn``: rows to learn from, of the model's width, repeated indices summed. Otherwise
    rows to score: sparse rows of any width (features beyond the training width are ignored
    by the scorer, which also checks them), dense rows of the model's width.
    ``check_finite=False`` leaves the finiteness of the values to the caller (``fit`` fuses
    it into its pass, or into the conversion of each block); the indices of sparse rows are
    always checked (a CSC matrix's values too, as it is converted).
    """
    kind = type(X)
    if kind is np.ndarray:
        values = X
    elif kind in _CSR or kind in _COO or kind in _CSC:
        return _sparse_rows(estimator, X, reset=reset, learn=learn, check_finite=check_finite,
                            while_learning=while_learning)  # fmt: skip
    elif kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas"):
        values = _frame_values(X)
    else:
        values = None
    if values is not None and _plain_array(values):
        _feature_names(estimator, X, reset=reset)
        return _dense_rows(estimator, values, reset=reset, check_finite=check_finite)
    if sp.issparse(X):  # other sparse formats (LIL, DOK, BSR, DIA): as CSR
        return as_rows(estimator, X.tocsr(), reset=reset, learn=learn)
    # Anything else (lists, object or complex arrays, empty or 1-D input, ...): scikit-learn
    # converts it or raises its usual error, then the checks above apply to the result.
    X = validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse=ACCEPT_SPARSE,
        dtype=np.float64,
        order="C",
        ensure_all_finite=check_finite,
    )
    if sp.issparse(X):
        return _sparse_rows(estimator, X, reset=reset, learn=learn, named=False)
    return _dense_rows(estimator, X, reset=reset, check_finite=False)


def _frame_values(frame):
    """A DataFrame's values as one 2-D array. A frame of one NumPy block is that block,
    transposed (a view: what pandas' own ``_values`` and ``.values`` return, without the
    read-only view ``.values`` makes of it — 1 µs of a one-row frame's ~10 µs call; olearn
    never writes to X). Other frames: ``.values``, pandas' conversion."""
    values = getattr(frame, "_values", None)
    return values if type(values) is np.ndarray else frame.values


def _plain_array(values) -> bool:
    """A non-empty 2-D numeric array (what needs no conversion before the checks)."""
    return values.ndim == 2 and _compiled_dtype(values.dtype) and values.size > 0


def _compiled_dtype(dtype) -> bool:
    """Whether the compiled checks and conversions read values of this dtype: integers,
    booleans, float32 and float64. Other floats (float16, long double: numba has no type
    for them) are converted to float64 first, as scikit-learn converts them."""
    return dtype.kind in "iub" or dtype in _COMPILED_FLOATS


def _feature_names(estimator, X, *, reset: bool) -> None:
    """``feature_names_in_`` as scikit-learn keeps it: recorded from a DataFrame's columns on
    reset, checked (error or warning) against later inputs. scikit-learn's check costs
    ~0.5 ms, so a DataFrame whose columns are those last checked — the same pandas Index
    (``is_``: the rows of one frame share it) or equal names — skips it; a new Index of
    equal names (a stream of one-row frames) is remembered in place of the last one, so
    that it costs one comparison of the names' addresses (of the names themselves when
    they are other objects) and no copy of the model's."""
    if reset:
        _CHECKED_COLUMNS.pop(estimator, None)
        if type(X) is np.ndarray:
            estimator.__dict__.pop("feature_names_in_", None)
        else:
            _check_feature_names(estimator, X, reset=True)
            _remember_columns(estimator, X.columns)
        return
    if type(X) is np.ndarray:
        if "feature_names_in_" in estimator.__dict__:
            _check_feature_names(estimator, X, reset=False)  # warns: no names
        return
    columns = X.columns
    checked = _CHECKED_COLUMNS.get(estimator)
    if checked is not None:
        if columns.is_(checked[0]):
            return
        # A new frame of the same names (a stream's one-row frames): made from one list of
        # names, its names are the same objects, in order — one comparison of their addresses
        # (the remembered array keeps those objects alive: an address cannot be reused).
        # Names held by pyarrow (pandas' strings when pyarrow is installed) are new buffers
        # in each frame: one comparison of those, in C++ (0.3 µs; 5.5 µs to convert them).
        # Equal names otherwise: one comparison of the lists, then their addresses (or
        # buffers) are remembered.
        arrow = _arrow_names(columns)
        if arrow is not None and checked[4] is not None and arrow.equals(checked[4]):
            checked[0] = columns  # its next rows: one is_ test
            return
        names = _column_names(columns)
        if arrow is None and names.dtype.kind == "O" and names.tobytes() == checked[2]:
            checked[0] = columns
            return
        if names.tolist() == checked[1]:
            checked[:] = [columns, checked[1], *_addresses(names), arrow]
            return
    _check_feature_names(estimator, X, reset=False)
    _remember_columns(estimator, columns)


def _column_names(columns) -> np.ndarray:
    """A pandas Index's names as an array: the one pandas keeps when it is a NumPy array
    (its ``_data``, or that array's own ``_ndarray`` for pandas 3's strings); else
    ``np.asarray``, which costs 0.7 µs of a one-row frame's ~10 µs call."""
    data = getattr(columns, "_data", None)
    data = getattr(data, "_ndarray", data)
    return data if type(data) is np.ndarray else np.asarray(columns)


def _remember_columns(estimator, columns) -> None:
    """Remember ``[columns, names, addresses, array, arrow]`` as checked: the model's names
    as a list, the addresses of the name objects of an array that keeps them alive (a list:
    a later frame of equal names replaces its entries in place), and the columns' pyarrow
    names if they have them."""
    names = estimator.__dict__.get("feature_names_in_")
    if names is not None:
        _CHECKED_COLUMNS[estimator] = [columns, names.tolist(), *_addresses(names),
                                       _arrow_names(columns)]  # fmt: skip


def _arrow_names(columns):
    """A pandas Index's names as the pyarrow array that holds them, or None (names held
    by NumPy, or another pandas)."""
    return getattr(getattr(columns, "_data", None), "_pa_array", None)


def _addresses(names: np.ndarray) -> tuple:
    """The addresses of an object array's items (its buffer), and the array that keeps them
    alive; empty bytes for other arrays."""
    return (names.tobytes() if names.dtype.kind == "O" else b"", names)


def _width_error(estimator, width: int) -> ValueError:
    return ValueError(
        f"X has {width} features, but {type(estimator).__name__} is expecting "
        f"{estimator.n_features_in_} features as input."
    )


def _dense_rows(estimator, values, *, reset: bool, check_finite: bool) -> Rows:
    n, d = values.shape
    if reset:
        estimator.n_features_in_ = d
    elif d != estimator.n_features_in_:
        raise _width_error(estimator, d)
    finite = False
    if check_finite:
        if not all_finite(values):
            raise not_finite_error(values)
        finite = True
    elif values.dtype.kind != "f":
        finite = True  # integers and booleans are finite
    return Rows(values, None, None, (n, d), finite)


def not_finite_error(values, rows=slice(None)) -> ValueError:
    """The error of dense rows holding a NaN or infinite value, naming the first such row
    of X, as the check of CSR rows does (``rows``: the positions in X of ``values``' rows,
    for a block). Computed only once the rows are known bad."""
    bad = int(np.argmax(~np.isfinite(np.asarray(values, dtype=np.float64)).all(axis=1)))
    row = (rows.start or 0) + bad if isinstance(rows, slice) else int(rows[bad])
    return ValueError(f"Input X contains NaN or infinity (row {row}).")


def all_finite(values) -> bool:
    """Whether every value of a 2-D numeric array is finite: one compiled pass for a
    contiguous float array, NumPy otherwise."""
    if values.dtype.kind != "f":
        return True
    if values.flags.c_contiguous:
        return fastpath.all_finite(values)
    if values.flags.f_contiguous:
        return fastpath.all_finite(values.T)
    return fastpath.all_finite_strided(values)


_PROBLEMS = {
    fastpath.BAD_INDPTR: "its row pointers (indptr) decrease or point beyond its arrays at row",
    fastpath.OUT_OF_RANGE: "it holds a column index outside [0, {width}) in row",
}


def raise_rows_problem(problem: int, row: int, width: int):
    if problem == fastpath.NOT_FINITE:
        raise ValueError(f"Input X contains NaN or infinity (row {row}).")
    raise ValueError(
        f"X is a malformed sparse matrix: {_PROBLEMS[problem].format(width=width)} {row}."
    )


#: ``[0, nnz]`` row pointers of one-row matrices by nnz (the loops never write them; a
#: stream's rows share a few lengths, and ``np.array`` costs more than the lookup).
_ONE_ROW_POINTERS: dict[int, np.ndarray] = {}


#: Empty index arrays that tell ``fastpath.one_row_csc`` the index type to make.
_NO_INT32, _NO_INT64 = np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64)


def _one_row_pointers(nnz: int) -> np.ndarray:
    pointers = _ONE_ROW_POINTERS.get(nnz)
    if pointers is None:
        if len(_ONE_ROW_POINTERS) >= 1024:
            _ONE_ROW_POINTERS.clear()
        pointers = _ONE_ROW_POINTERS[nnz] = np.array([0, nnz], dtype=np.int32)
    return pointers


def in_place_csr(X) -> tuple:
    """``(data, indptr, indices)``: the CSR rows of a sparse X that are read in place — a CSR
    matrix's arrays, or a one-row COO matrix's values and columns when every entry lies in
    row 0 (in stored order they are the CSR row: a COO user's single-row call) — else
    ``(None, None, None)``."""
    kind = type(X)
    if kind in _CSR:
        return X.data, X.indptr, X.indices
    if kind in _COO and X.shape[0] == 1 and _one_row_coo(X):
        return X.data, _one_row_pointers(X.data.shape[0]), X.col
    return None, None, None


def _one_row_coo(X) -> bool:
    """Whether a one-row COO matrix's entries all lie in row 0, with int32 columns (the
    index type of the loop's common specialisation) and arrays of one length."""
    row, col = X.row, X.col
    return (
        col.dtype is _INT32
        and row.shape == col.shape == X.data.shape
        and not np.count_nonzero(row)  # (a third of row.any()'s time on a few values)
    )


def _grouped_coo(X, n: int):
    """``(indptr, columns, values)`` of a COO matrix whose entries are grouped by row in
    increasing order (``tocoo()`` of a CSR matrix): its columns and values read in place as
    CSR rows, only the row pointers made (``fastpath.coo_row_pointers``); Nones when the
    rows are out of order (the caller regroups them)."""
    row, col, data = X.row, X.col, X.data
    nnz = data.shape[0]
    if row.shape[0] != nnz or col.shape[0] != nnz:
        return None, None, None
    index = _INT32 if col.dtype is _INT32 and nnz < 2**31 else _INT64
    indptr = np.zeros(n + 1, dtype=index)
    grouped = fastpath.coo_row_pointers(row, nnz, indptr)
    if grouped == fastpath.OUT_OF_RANGE:
        _raise_outside_coo(X)
    if grouped:
        return None, None, None
    return indptr, col, data


def _raise_outside_coo(X):
    """The error of a COO matrix with an entry outside its shape, found by the compiled
    grouping, which tells only that there is one (its rows are not grouped yet): the row
    index outside the rows, else the column index and the row that holds it."""
    n, d = X.shape
    nnz = min(X.row.shape[0], X.col.shape[0], X.data.shape[0])
    row, col = X.row[:nnz], X.col[:nnz]
    outside = np.flatnonzero((row < 0) | (row >= n))
    if outside.shape[0]:
        raise ValueError(
            f"X is a malformed sparse matrix: it holds a row index outside [0, {n}) "
            f"({int(row[outside[0]])}, entry {int(outside[0])})."
        )
    k = int(np.flatnonzero((col < 0) | (col >= d))[0])
    raise_rows_problem(fastpath.OUT_OF_RANGE, int(row[k]), d)


def _sparse_rows(
    estimator, X, *, reset: bool, learn: bool, named: bool = True, check_finite: bool = True,
    while_learning: bool = False,
) -> Rows:  # fmt: skip
    n, d = X.shape
    if n == 0 or d == 0 or not _compiled_dtype(X.dtype):
        # scikit-learn's error (empty input, complex or object values), or its conversion
        X = validate_data(estimator, X, reset=reset, accept_sparse=True, dtype=np.float64)
        return as_rows(estimator, X, reset=False, learn=learn)
    if reset:
        estimator.n_features_in_ = d
        if named:  # (validate_data has recorded the names of what it converted)
            _CHECKED_COLUMNS.pop(estimator, None)
            estimator.__dict__.pop("feature_names_in_", None)
    else:
        if learn and d != estimator.n_features_in_:
            raise _width_error(estimator, d)
        if named and "feature_names_in_" in estimator.__dict__:
            _check_feature_names(estimator, X, reset=False)  # warns: no names, as for arrays
    kind = type(X)
    verdict = row = None
    data, indptr, indices = in_place_csr(X)
    if indptr is None and kind in _CSC and n == 1:
        # a CSC user's single-row call: the values are the CSR row's, in column order; their
        # columns are found in one compiled call without reading all column pointers
        like = _NO_INT32 if d < 2**31 else _NO_INT64
        problem, indices, data = fastpath.one_row_csc(X.indptr, X.indices, X.data, like)
        if problem:
            raise_rows_problem(problem, 0, d)
        indptr = _one_row_pointers(data.shape[0])
    elif indptr is None and kind in _COO:
        indptr, indices, data = _grouped_coo(X, n)
    if indptr is not None:
        # one compiled specialisation per index type: int32 or int64, writable, alike
        index = indices.dtype
        if not (index is _INT32 or index is _INT64) or not indices.flags.writeable:
            indices = indices.astype(np.int64)
        if indptr.dtype is not indices.dtype or not indptr.flags.writeable:
            indptr = indptr.astype(indices.dtype)
        if not data.flags.writeable:
            data = data.copy()
    else:
        # COO (rows not in order) and CSC: regrouped as CSR rows once, in compiled code,
        # with the index type of the loop's common specialisation (int32, as scipy's) when
        # it holds them.
        if kind in _COO:
            nnz = min(X.row.shape[0], X.col.shape[0], X.data.shape[0])
        else:
            nnz = max(0, int(X.indptr[-1]) - int(X.indptr[0]))
        index = np.int32 if max(n, d, nnz) < 2**31 else np.int64
        indptr = np.zeros(n + 1, dtype=index)
        if (
            kind in _CSC and while_learning and learn and nnz >= _csc.PIPELINE_VALUES
            and nnz * 32 >= d and nnz == X.indices.shape[0] == X.data.shape[0]
            and not int(X.indptr[0]) and two_cpus()
        ):  # fmt: skip
            return _csc_pipeline(estimator, X, indptr)
        indices = np.empty(nnz, dtype=index)
        data = np.empty(nnz)
        if kind in _COO:
            problem = fastpath.coo_to_csr(X.row, X.col, X.data, d, indptr, indices, data)
        elif nnz >= PARALLEL_CSC_VALUES and nnz * 32 >= d and two_cpus():
            problem, scanned = _csc_on_two_threads(X, indptr, indices, data, learn)
            if scanned is not None:
                verdict, row = scanned
        else:
            problem = fastpath.csc_to_csr(X.indptr, X.indices, X.data, indptr, indices, data)
        if problem and kind in _COO:
            _raise_outside_coo(X)
        if problem:
            raise_rows_problem(problem, 0, d)
    if not learn:
        if data.dtype is not _FLOAT64:
            data = data.astype(np.float64)
        return Rows(data, indptr, indices, (n, d), False)
    finite = verdict is not None or check_finite  # (the conversions above check the values)
    if verdict is None:
        verdict, row = fastpath.csr_scan(indptr, indices, data, d, check_finite)
    if verdict < 0:
        raise_rows_problem(verdict, row, d)
    if verdict == fastpath.DUPLICATES:
        data, indptr, indices = summed_repeats(data, indptr, indices, (n, d))
        verdict = fastpath.CANONICAL
    if data.dtype is not _FLOAT64:
        data = data.astype(np.float64)
    return Rows(data, indptr, indices, (n, d), finite, verdict)


def summed_repeats(data, indptr, indices, shape):
    """CSR arrays ``(data, indptr, indices)`` with each row's repeated indices summed
    (scipy's meaning of a repeated index) and sorted. Rare (hand-built matrices): a copy,
    so that the caller's arrays stay as they are."""
    summed = sp.csr_matrix((data, indices, indptr), shape=shape, copy=True)
    summed.sum_duplicates()
    return summed.data, summed.indptr, summed.indices


#: Stored values from which a CSC matrix is converted to CSR rows on two threads: below,
#: the second thread's start and join (~0.1 ms) would cost more than they save.
PARALLEL_CSC_VALUES = 1 << 18


def two_cpus() -> bool:
    """Whether this process may run on two CPUs or more (``_blocks.usable_cpus``: its
    affinity, not the machine's count; a container or ``taskset`` may allow one)."""
    return usable_cpus() >= 2


def _on_two_threads(first, second):
    """``first()`` on this thread while ``second()`` runs on another; both results, once
    both are done. An exception of either is raised here, after the other thread has
    finished (a ``KeyboardInterrupt`` of this thread too: the other one ends its part, a
    compiled call that cannot be stopped, and is joined; nothing outlives the call)."""
    outcome = {}

    def run_second():
        try:
            outcome["value"] = second()
        except BaseException as error:  # noqa: BLE001 - raised again on the calling thread
            outcome["error"] = error

    worker = threading.Thread(target=run_second, name="olearn-csc", daemon=True)
    worker.start()
    try:
        result = first()
    finally:
        worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return result, outcome["value"]


def _csc_counts(X, indptr, *, in_use: bool = False):
    """The first half of ``csc_to_csr`` on two threads, each for a range of columns holding
    half the values: ``(problem, halves, first)`` — the column ranges, and the rows' counts
    of the first range (``first``, n_rows + 1; ``indptr`` becomes the CSR row pointers).
    With ``in_use``, ``halves`` holds each range's ``(columns, cursors, rows, number)`` of columns
    with values instead (``fastpath.csc_columns_in_use``, for ``_csc.CscPipeline``)."""
    csc_indptr, csc_indices = X.indptr, X.indices
    n_columns = csc_indptr.shape[0] - 1
    start, end = int(csc_indptr[0]), int(csc_indptr[-1])
    size = min(csc_indices.shape[0], X.data.shape[0])
    if start < 0 or end < start or end > size:
        return fastpath.BAD_INDPTR, None, None
    # the columns up to the middle value (if the pointers decrease, a range's check says so)
    middle = int(np.searchsorted(csc_indptr, start + (end - start) // 2))
    middle = min(max(middle, 0), n_columns)
    halves = ((0, middle), (middle, n_columns))
    counts = (indptr, np.zeros_like(indptr))

    def count(half):
        c0, c1 = halves[half]
        problem = fastpath.csc_count_rows(csc_indptr, csc_indices, c0, c1, counts[half])
        if problem or not in_use:
            return problem, halves[half]
        columns = np.empty(c1 - c0, dtype=csc_indptr.dtype)
        cursors = np.empty(c1 - c0, dtype=csc_indptr.dtype)
        rows = np.empty(c1 - c0, dtype=csc_indices.dtype)
        used = fastpath.csc_columns_in_use(csc_indices, csc_indptr, c0, c1, columns, cursors,
                                           rows)  # fmt: skip
        return problem, (columns, cursors, rows, used)

    results = _on_two_threads(lambda: count(0), lambda: count(1))
    for problem, _ in results:
        if problem:
            return problem, None, None
    first = indptr.copy()
    indptr += counts[1]
    np.cumsum(indptr, out=indptr)
    return 0, tuple(part for _, part in results), first


def _csc_on_two_threads(X, indptr, indices, values, learn: bool):
    """``fastpath.csc_to_csr`` on two threads (half its time on 4 M values), each
    converting a range of columns holding half the values: their rows' counts, then their
    values written at positions that leave a row's columns in order (``csc_count_rows``,
    ``csc_columns_to_csr``) — the arrays one call makes. When ``learn``, the rows are then
    scanned on two threads too (``fastpath.csr_scan``, half the rows each). Returns
    ``(problem, verdict)``: problem as ``csc_to_csr``'s; the verdict ``csr_scan``'s for the
    whole matrix (its problems at their rows), or None when not ``learn``."""
    if values.shape[0] != int(X.indptr[-1]) - int(X.indptr[0]):
        return fastpath.BAD_INDPTR, None
    problem, halves, first = _csc_counts(X, indptr)
    if problem:
        return problem, None
    # row r's values of the second half follow its values of the first
    positions = (indptr[:-1].copy(), indptr[:-1] + first[1:])
    csc_indptr, csc_indices, data = X.indptr, X.indices, X.data

    def convert(half):
        fastpath.csc_columns_to_csr(csc_indptr, csc_indices, data, *halves[half],
                                    positions[half], indices, values)  # fmt: skip

    _on_two_threads(lambda: convert(0), lambda: convert(1))
    if not learn:
        return 0, None
    n_rows = indptr.shape[0] - 1
    n_columns = X.shape[1]
    split = n_rows // 2

    def scan(rows):
        return fastpath.csr_scan(indptr[rows], indices, values, n_columns, True)

    upper, lower = _on_two_threads(lambda: scan(slice(0, split + 1)),
                                   lambda: scan(slice(split, None)))  # fmt: skip
    if upper[0] < 0:  # (the first problem is the one reported)
        return 0, upper
    if lower[0] < 0:
        return 0, (lower[0], lower[1] + split)
    return 0, (max(upper[0], lower[0]), 0)  # CANONICAL < UNSORTED < DUPLICATES


def _csc_pipeline(estimator, X, indptr) -> Rows:
    """Rows of a large CSC matrix for ``fit``, converted as its first pass learns them
    (``_csc.CscPipeline``): here only its rows' counts and checks, on two threads."""
    problem, used, first = _csc_counts(X, indptr, in_use=True)
    if problem:
        raise_rows_problem(problem, 0, X.shape[1])

    def convert_whole():
        rows = _sparse_rows(estimator, X, reset=False, learn=True)
        return rows.data, rows.indptr, rows.indices

    pipeline = _csc.CscPipeline(X, indptr, first, used, convert_whole)
    return Rows(pipeline.values, indptr, pipeline.indices, X.shape, True, fastpath.CANONICAL,
                pipeline)  # fmt: skip


def check_X(estimator, X, *, reset: bool, check_finite: bool = True):
    """Validate X and return it as float64: C-contiguous dense, or CSR in canonical format
    (sorted indices, no duplicates) — for the models that need that form (kernel
    expansions store sorted rows). The linear models read ``as_rows`` directly."""
    rows = as_rows(estimator, X, reset=reset, check_finite=check_finite)
    if not rows.sparse:
        return rows.dense_float64()
    if type(X) in _CSR and X.data is rows.data and rows.verdict == fastpath.CANONICAL:
        return X
    matrix = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=rows.shape)
    if rows.verdict != fastpath.CANONICAL:
        matrix = matrix.sorted_indices()  # a copy: the caller's arrays stay as they are
    matrix.has_canonical_format = True
    return matrix


class OrderedStreamWarning(UserWarning):
    """``fit`` met labels sorted by class with ``shuffle=False``: an online learner then
    sees one class after another and ends biased toward the last ones."""


#: Fewer examples than this are not checked for order (a handful of rows proves nothing).
ORDER_CHECK_MIN = 20


def warn_if_sorted_by_class(estimator, y) -> None:
    """Warn (once per call site, as Python's warnings do) when ``fit`` without shuffling is
    given labels grouped by class — each class in one run, as a file sorted by label
    (class-sorted iris: AROW 0.55, kernel PA 0.33 accuracy). One vectorised pass over y."""
    if estimator.shuffle:
        return
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] < ORDER_CHECK_MIN:
        return
    runs = 1 + int(np.count_nonzero(y[1:] != y[:-1]))
    if runs < 2 or runs > 64 or len(np.unique(y)) != runs:
        return
    warnings.warn(
        f"{type(estimator).__name__}.fit: the labels arrive sorted by class ({runs} classes, "
        "each in one run) and shuffle=False, so the model sees one class after another and "
        "leans to the last ones. Pass shuffle=True (with random_state for a repeatable "
        "order), or shuffle the rows yourself.",
        OrderedStreamWarning,
        stacklevel=3,
    )


class WritableOnLoad:
    """A model restored by Python's copy protocol (``__setstate__``: the way scikit-learn's
    tools hand estimators to worker processes) gets a state it can write. olearn's own model
    files are ``olearn.save``'s versioned format; this is only for objects other libraries
    restore. A fitted model goes on learning in place, and the compiled loops cannot write a
    read-only array (numba refuses its type; ``np.add.at`` crashes on one): an array restored
    read-only — a memory map of a large model's arrays given to a worker — is copied here,
    once (a copy-on-write map shares its pages until they are written)."""

    def __setstate__(self, state):
        super().__setstate__({name: _writable(value) for name, value in state.items()})


def _writable(value):
    """``value``, or a writable copy of it if it is a read-only array."""
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return np.array(value)
    return value


class TracksParameters:
    """Marks the packed configuration stale when a parameter is assigned (``set_params`` or
    plainly), so that the next call of any entry point validates and repacks it: one dict
    lookup per call (``"_configured_parameters" in self.__dict__``) instead of a comparison
    of every parameter. The model's ``_configure`` sets ``_configured_parameters``; it is a
    derived attribute, never saved."""

    def __setattr__(self, name, value):
        if name in self._parameter_constraints:
            self.__dict__.pop("_configured_parameters", None)
        object.__setattr__(self, name, value)

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's, once per class: it reads the ``__init__`` signature with
        ``inspect`` on every ``get_params`` (about 0.1 ms of each ``fit`` and of each first
        ``partial_fit``), and a class's signature does not change."""
        names = cls.__dict__.get("_param_names_of_class")
        if names is None:
            names = super()._get_param_names()
            cls._param_names_of_class = names
        return names


def check_lengths(X, y) -> None:
    if X.shape[0] != len(y):
        raise ValueError(
            f"X and y have inconsistent numbers of samples: {X.shape[0]} rows in X, "
            f"{len(y)} labels in y."
        )


def engine_arrays(X):
    """``(data, indptr, indices)`` for the compiled loop: a dense X passes ``None`` twice."""
    if isinstance(X, Rows):
        return X.data, X.indptr, X.indices
    if sp.issparse(X):
        return X.data, X.indptr, X.indices
    return X, None, None


_INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


@contextmanager
def attributes_restored_on_error(estimator):
    """Every attribute put back if the block raises: for the calls that build a model's
    state (``fit``, a first ``partial_fit``), whose allocation or loop may fail after the
    input attributes are set (a full covariance too large for memory must not leave a
    half-built model that predicts). The arrays themselves are not copied: a failed loop
    over a model's own arrays is the loop's to undo."""
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        _CHECKED_COLUMNS.pop(estimator, None)  # (they were checked against the failed call's)
        raise


@contextmanager
def input_attributes_restored_on_error(estimator):
    """A reset records ``n_features_in_`` (and feature names) before y is checked; if a
    later check fails, put them back so that the failed call changes nothing."""
    saved = {k: estimator.__dict__[k] for k in _INPUT_ATTRIBUTES if k in estimator.__dict__}
    try:
        yield
    except BaseException:
        for key in _INPUT_ATTRIBUTES:
            estimator.__dict__.pop(key, None)
        estimator.__dict__.update(saved)
        _CHECKED_COLUMNS.pop(estimator, None)  # (they were checked against the failed call's)
        raise
