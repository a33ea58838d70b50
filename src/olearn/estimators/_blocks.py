"""Dense rows converted block by block for the loop, by two threads when two CPUs are usable.

An online pass reads rows in their order, and a row of a Fortran-ordered array (a
DataFrame's values) is spread over a cache line per column: ``fit`` converts such rows into
float64 C-ordered blocks that the loop reads from cache (``OnlineLinearModel._run_blocks``).
The conversion costs about as much as the pass, so with a second usable CPU a worker thread
converts the next blocks into a small ring of buffers while the loop learns the current one
(the compiled loops, ``rows_from_columns`` and NumPy's copy release the GIL), and the loop,
when the block it needs is not ready, converts the next unclaimed block itself instead of
waiting: the conversion is shared, and the wall time approaches half of conversion plus
learning. The blocks, their order and their values are those of the sequential conversion,
so the model is the same bit for bit.
"""

from __future__ import annotations

import _thread
import os
import threading

import numpy as np

from olearn.representations._columns import rows_from_columns

#: Values per block of the threaded conversion: 2 MiB of float64 (a ring of ``RING`` stays in
#: the last-level cache), few enough blocks that handing them over costs little.
THREADED_VALUES = 1 << 18
#: Buffers of the threaded conversion: the block being learned, the one the worker converts,
#: one the loop may convert while it waits, and one more that lets the worker run a block
#: ahead (the Perceptron on 100,000 × 100 Fortran rows: 1.30× a C pass with 3, 1.15× with
#: 4, 1.22× with 5, 1.29× with 6; a fourth measured no faster before the conversion's tile
#: had a constant width).
RING = 4
#: Fewer blocks than this are converted in the loop's thread: starting a thread and handing
#: blocks over (tens of µs when a thread waits) would cost more than it saves.
MIN_THREADED_BLOCKS = 3


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def converted_blocks(X, order, rows_per_block: int) -> Blocks:
    """The blocks of ``rows_per_block`` rows of the 2-D array ``X`` (its rows ``order`` if
    given, else in order) as float64 C arrays: converted by two threads when there are at
    least ``MIN_THREADED_BLOCKS`` blocks and two usable CPUs (``ThreadedBlocks``), else one
    by one as the loop asks (``Blocks``). A context manager: leaving it stops the worker."""
    n, d = X.shape
    threaded_rows = max(1, THREADED_VALUES // d)
    if -(-n // threaded_rows) >= MIN_THREADED_BLOCKS and usable_cpus() >= 2:
        return ThreadedBlocks(X, order, threaded_rows)
    return Blocks(X, order, rows_per_block)


class Blocks:
    """The blocks of X's rows converted one at a time into one reused buffer. Iterating
    gives ``(rows, block)`` in order: the rows of X (a slice, or the positions ``order``
    gives) and their float64 C copy, valid until the next step."""

    ring = 1

    def __init__(self, X, order, rows_per_block: int):
        n, d = X.shape
        self.X, self.order, self.size = X, order, rows_per_block
        self.count = -(-n // rows_per_block)
        self._buffers = [np.empty((min(rows_per_block, n), d)) for _ in range(self.ring)]
        # a DataFrame's values are read-only: read every array as read-only, so that one
        # compiled copy of ``rows_from_columns`` serves both
        self._columns = None
        if order is None and X.dtype == np.float64 and X.flags.f_contiguous:
            self._columns = X.view()
            self._columns.flags.writeable = False

    def rows(self, k: int):
        """The rows of block k: a slice of X, or the positions ``order`` gives."""
        start = k * self.size
        stop = min(start + self.size, self.X.shape[0])
        return slice(start, stop) if self.order is None else self.order[start:stop]

    def _buffer(self, k: int) -> np.ndarray:
        start = k * self.size
        return self._buffers[k % self.ring][: min(self.size, self.X.shape[0] - start)]

    def _convert(self, k: int) -> None:
        rows, block = self.rows(k), self._buffer(k)
        if self._columns is not None:
            rows_from_columns(self._columns, rows.start, rows.stop, block)
        else:  # other dtypes, layouts and shuffled rows (gathered by NumPy first)
            np.copyto(block, self.X[rows])

    def block(self, k: int) -> np.ndarray:
        """Block k converted (the blocks are asked for in order)."""
        self._convert(k)
        return self._buffer(k)

    def learned(self, k: int) -> None:
        """The loop is done with block k: its buffer may take another block."""

    def __iter__(self):
        for k in range(self.count):
            block = self.block(k)
            yield self.rows(k), block
            self.learned(k)

    def close(self) -> None:
        """Stop converting (nothing runs in the background here)."""

    def __enter__(self) -> Blocks:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ThreadedBlocks(Blocks):
    """``Blocks`` converted ahead by a worker thread into a ring of ``RING`` buffers. Blocks
    are claimed in order, under a lock, by whichever thread is free — the worker, or the loop
    when the block it needs is not ready yet — and only once the block that last used the
    same buffer has been learned (a semaphore counts the free buffers; each buffer has an
    event, set when its block is converted and cleared when it is learned). An error in the
    worker is raised in the loop's thread; leaving the context (the pass done, an error in
    the loop, KeyboardInterrupt) stops the worker and waits for its end."""

    ring = RING

    def __init__(self, X, order, rows_per_block: int):
        super().__init__(X, order, rows_per_block)
        self._lock = threading.Lock()
        self._free = threading.Semaphore(self.ring)
        self._ready = [threading.Event() for _ in range(self.ring)]
        self._next = 0  # the next block to claim
        self._stopped = False
        self._error: BaseException | None = None
        self._finished = threading.Event()
        # (``threading.Thread.start`` waits until the thread runs, ~0.1-0.2 ms: meanwhile
        # the loop converts the first block itself)
        _thread.start_new_thread(self._work, ())

    def _claim(self, wait: bool) -> int:
        """The next block to convert, its buffer free; −1 if there is none (all claimed or
        stopped, or no free buffer and ``wait`` False)."""
        if not self._free.acquire(wait):
            return -1
        with self._lock:
            k = self._next
            if self._stopped or k >= self.count:
                self._free.release()
                return -1
            self._next = k + 1
        return k

    def _work(self) -> None:
        try:
            while (k := self._claim(wait=True)) >= 0:
                self._convert(k)
                self._ready[k % self.ring].set()
        except BaseException as error:  # raised in the loop's thread (``block``)
            self._error = error
            with self._lock:
                self._stopped = True
            for ready in self._ready:
                ready.set()
        finally:
            self._finished.set()

    def block(self, k: int) -> np.ndarray:
        ready = self._ready[k % self.ring]
        while not ready.is_set():
            # Convert the next unclaimed block (block k itself if the worker has not reached
            # it) rather than wait; wait only when every buffer is taken or all blocks are
            # claimed, and then the worker has block k.
            j = self._claim(wait=False)
            if j < 0:
                ready.wait()
                break
            self._convert(j)
            self._ready[j % self.ring].set()
        if self._error is not None:
            raise self._error
        return self._buffer(k)

    def learned(self, k: int) -> None:
        self._ready[k % self.ring].clear()  # before its buffer can be claimed again
        self._free.release()

    def close(self) -> None:
        with self._lock:
            self._stopped = True
        self._free.release()  # a worker waiting for a buffer wakes up and sees the stop
        self._finished.wait()
