"""``fit``'s first pass over a large CSC matrix: its rows converted as they are learned.

Converting a CSC matrix to CSR rows costs about twice the pass that learns them (a value
written to a random row: a cache miss each), so ``fit`` does not wait for the whole
conversion. The rows are cut into slices of about equal numbers of values, and the
columns into two halves; the values of a slice in one half are the next run of each
column's values (rows increase within a column, as scipy's ``tocsc()`` makes them), taken
from a cursor per column (``fastpath.csc_rows_to_csr``). Two threads take these tasks in
order — a half's tasks one after the other, the two halves at once — and the calling thread
learns each slice as soon as both halves of it are written, converting a task itself when
its next slice is not ready. The rows are those one conversion makes, written at the same
places, and are learned in the same order: the model is the one of the CSR matrix, bit for
bit.

Before a slice is learned it is checked: every row complete (its values of both halves all
written), no row out of order or twice in a column (``UNSORTED``). Otherwise — a CSC matrix
whose rows do not increase within a column, or that stores a value twice — the rest is
converted as a whole (``_validation``'s conversion, which sums a value stored twice as scipy
does) and the pass goes on from that slice; the slices learned before were whole and right.
A NaN or infinite value raises the error that ``csr_scan`` raises for the CSR matrix (its
first row), before that row is learned; ``fit`` then puts the model back.

The second thread ends with the pass, or with the first error on either thread (the
calling thread's ``KeyboardInterrupt`` included: it stops the second thread after its task,
a compiled call, and joins it). With one usable CPU, or for matrices too small to gain,
``_validation`` converts the matrix as a whole instead.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

from olearn.representations import fastpath

#: Stored values from which ``fit`` converts a CSC matrix as it learns it.
PIPELINE_VALUES = 1 << 18
#: Values per slice (the slices' number is between 2 and ``MAX_SLICES``): each task walks
#: the columns of its half still holding values, so more slices cost more walking.
SLICE_VALUES = 1 << 18
MAX_SLICES = 4


class CscPipeline:
    """The conversion of one CSC matrix, started by ``_validation._csc_pipeline`` (the rows'
    counts and checks, on two threads: ``indptr`` is the CSR row pointers, ``first`` the
    rows' counts in the first column half, ``used`` each half's columns with values) and
    finished by ``OnlineLinearModel._run`` (the first pass: ``slices``), or as a whole
    (``rows``) for a shuffled pass; ``convert_whole`` converts the matrix the usual way."""

    def __init__(self, X, indptr, first, used, convert_whole):
        self.X = X
        self.indptr = indptr
        self.n_rows = indptr.shape[0] - 1
        nnz = int(indptr[-1])
        self.indices = np.empty(nnz, dtype=indptr.dtype)
        self.values = np.empty(nnz)
        self._convert_whole = convert_whole
        self._whole = None
        n_slices = min(MAX_SLICES, max(2, nnz // SLICE_VALUES))
        targets = (np.arange(1, n_slices) * nnz) // n_slices
        inner = np.searchsorted(indptr, targets, side="left")
        self.bounds = np.unique(
            np.concatenate([[0], np.minimum(inner, self.n_rows), [self.n_rows]])
        )
        # row r's values of the first half at indptr[r]…, of the second after them
        self._positions = (indptr[:-1].copy(), indptr[:-1] + first[1:])
        self._ends = (self._positions[1].copy(), indptr[1:])
        self._halves = [list(half) for half in used]  # [columns, cursors, rows, number]
        n_tasks = self.bounds.shape[0] - 1
        self._next = [0, 0]  # the next slice of each half to convert
        self._busy = [False, False]
        self._outcome = np.zeros((n_tasks, 2, 2), dtype=np.int64)  # (problem, row)
        self._condition = threading.Condition()
        self._stop = False
        self._error = None

    @property
    def converted(self) -> bool:
        """Whether the whole matrix has been converted (the first pass is over)."""
        return self._whole is not None

    # -- tasks --------------------------------------------------------------------------

    def _claim(self):
        """The next task (slice, half) to convert, or None: the half whose next slice comes
        first, among the halves no thread is converting. (Under the condition's lock.)"""
        n_tasks = self.bounds.shape[0] - 1
        best = None
        for half in (0, 1):
            if not self._busy[half] and self._next[half] < n_tasks:
                if best is None or self._next[half] < self._next[best]:
                    best = half
        if best is None:
            return None
        self._busy[best] = True
        return self._next[best], best

    def _convert(self, task) -> None:
        piece, half = task
        columns, cursors, rows, m = self._halves[half]
        X = self.X
        kept, problem, row = fastpath.csc_rows_to_csr(
            X.indptr, X.indices, X.data, columns, cursors, rows, m,
            self.bounds[piece], self.bounds[piece + 1], self._positions[half],
            self.indices, self.values,
        )  # fmt: skip
        with self._condition:
            self._halves[half][3] = kept
            self._outcome[piece, half] = problem, row
            if problem == fastpath.UNSORTED:
                self._next[half] = self.bounds.shape[0] - 1  # (the rest: converted whole)
            else:
                self._next[half] += 1
            self._busy[half] = False
            self._condition.notify_all()

    def _work(self) -> None:
        """The second thread: tasks until none is left or the pass stops."""
        try:
            while True:
                with self._condition:
                    task = None
                    while not self._stop:
                        task = self._claim()
                        if task is not None or min(self._next) >= self.bounds.shape[0] - 1:
                            break
                        self._condition.wait()
                    if task is None:
                        return
                self._convert(task)
        except BaseException as error:  # noqa: BLE001 - raised again on the calling thread
            with self._condition:
                self._error = error
                self._condition.notify_all()

    def _wait_for(self, piece: int) -> None:
        """Return once slice ``piece`` is converted in both halves (or stopped by a problem),
        converting tasks meanwhile."""
        while True:
            with self._condition:
                if self._error is not None:
                    raise self._error
                if self._next[0] > piece and self._next[1] > piece:
                    return
                task = self._claim()
                if task is None:
                    self._condition.wait()
                    continue
            self._convert(task)

    # -- the pass -------------------------------------------------------------------------

    @contextmanager
    def slices(self):
        """Iterate ``(data, indptr, indices, order)``: the CSR arrays and the rows of each slice
        in turn, once it is converted and checked (``fit`` learns it). The second thread
        runs for the iteration only; the matrix is converted when the iteration ends."""
        worker = threading.Thread(target=self._work, name="olearn-csc", daemon=True)
        worker.start()
        try:
            yield self._each_slice()
        finally:
            with self._condition:
                self._stop = True
                self._condition.notify_all()
            worker.join()

    def _each_slice(self):
        order = np.arange(self.n_rows)
        bounds = self.bounds
        for piece in range(bounds.shape[0] - 1):
            lo, hi = int(bounds[piece]), int(bounds[piece + 1])
            if self._whole is None:
                self._wait_for(piece)
                if not self._complete(piece, lo, hi):
                    self._stop_worker()
                    self._whole = self._convert_whole()
                else:
                    problem, row = (
                        self._outcome[piece, :, 0],
                        self._outcome[piece, :, 1],
                    )
                    bad = row[problem == fastpath.NOT_FINITE]
                    if bad.shape[0]:
                        from olearn.estimators._validation import raise_rows_problem

                        raise_rows_problem(fastpath.NOT_FINITE, int(bad.min()), self.X.shape[1])
            if self._whole is not None:
                data, indptr, indices = self._whole
            else:
                data, indptr, indices = self.values, self.indptr, self.indices
            yield data, indptr, indices, order[lo:hi]
        if self._whole is None:
            self._whole = (self.values, self.indptr, self.indices)

    def _complete(self, piece: int, lo: int, hi: int) -> bool:
        """Whether slice ``piece`` holds every value of its rows, none out of order."""
        if (self._outcome[piece, :, 0] == fastpath.UNSORTED).any():
            return False
        return all(
            np.array_equal(self._positions[half][lo:hi], self._ends[half][lo:hi]) for half in (0, 1)
        )

    def _stop_worker(self) -> None:
        """Let no task start again (the rest is converted as a whole)."""
        with self._condition:
            self._next = [self.bounds.shape[0] - 1] * 2
            self._condition.notify_all()
            while any(self._busy):
                self._condition.wait()

    def rows(self):
        """``(data, indptr, indices)`` of the whole matrix, converted now if it is not yet
        (a shuffled pass: both threads convert, nothing is learned meanwhile)."""
        if self._whole is None:
            with self.slices() as slices:
                for _ in slices:
                    pass
        return self._whole
