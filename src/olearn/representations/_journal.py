"""The undo journal of a sparse binary pass: what ``partial_fit`` needs to put a model back
when a chunk of CSR rows turns out to hold a NaN or an infinite value.

A chunk must raise on such a value and leave the model as it was. Checking every value
before learning reads the whole chunk once more (≈ 12 % of a sparse PA-I pass in 1,000-row
chunks), and copying the state to put it back would cost more than the pass (8 MB of
weights at 2²⁰ features). Instead the pass reads only the indices up front, counts the rows
with a non-finite confidence as ``fit`` does, and writes down, before each update, the
values the update is about to change: per learned row, its coordinates' old values then the
intercept's, for one array or two interleaved (the weights with the averaging sums or the
variances). Undoing them newest first leaves every coordinate at its value from before the
pass, bit for bit. ``marks`` holds the count of rows written down, then their numbers;
``saved`` the values. A journal of two marks keeps nothing (``NO_JOURNAL``, ``no_journal``):
the passes then run as before.
"""

import numpy as np

from olearn._compile import jit

#: A journal that keeps nothing, of the type the passes take (shared: never written).
NO_JOURNAL = (np.zeros(2, dtype=np.int64), np.empty(0))


@jit(inline="always")
def no_journal():
    """``NO_JOURNAL`` made inside compiled code (the same type, so one compiled pass)."""
    return np.zeros(2, dtype=np.int64), np.empty(0)


def capacity(n_rows: int, n_values: int, arrays: int) -> tuple[int, int]:
    """The sizes of ``marks`` and ``saved`` for a pass over ``n_rows`` rows holding
    ``n_values`` values, keeping ``arrays`` (1 or 2) values a coordinate."""
    return n_rows + 2, arrays * (n_values + n_rows)


@jit(inline="always")
def keep_row(saved, q, first, second, pair, indices, start, end, last):
    """Write down row ``[start, end)``'s old values of ``first`` (and of ``second`` when
    ``pair``), its intercept's last, from position ``q``; returns the next position."""
    for p in range(start, end):
        j = np.uint64(indices[p])
        saved[q] = first[j]
        q += 1
        if pair:
            saved[q] = second[j]
            q += 1
    saved[q] = first[last]
    q += 1
    if pair:
        saved[q] = second[last]
        q += 1
    return q


@jit
def undo(journal, indptr, indices, first, second, pair):
    """Put back what the pass that kept ``journal`` changed in ``first`` (and ``second``
    when ``pair``): each row's old values, the newest row first, so that a coordinate ends
    at the value it had before the pass's first change to it."""
    marks, saved = journal
    rows = marks[0]
    per = 2 if pair else 1
    q = 0
    for r in range(rows):
        i = marks[2 + r]
        q += per * (indptr[i + 1] - indptr[i] + 1)
    last = first.shape[0] - 1
    for r in range(rows - 1, -1, -1):
        i = marks[2 + r]
        q -= per * (indptr[i + 1] - indptr[i] + 1)
        p = q
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            first[j] = saved[p]
            p += 1
            if pair:
                second[j] = saved[p]
                p += 1
        first[last] = saved[p]
        if pair:
            second[last] = saved[p + 1]
