"""The undo journal of a sparse binary pass: what ``partial_fit`` needs to put a model back
when a chunk of CSR rows turns out to hold a NaN or an infinite value.

A chunk must raise on such a value and leave the model as it was. Checking every value
before learning reads the whole chunk once more (≈ 10 % of the Perceptron's pass in
1,000-row chunks), and copying the weights to put them back would cost more than the pass
(8 MB at 2²⁰ features). Instead the pass reads only the indices up front, counts the rows
with a non-finite confidence as ``fit`` does, and writes down each weight an update is about
to change: per learned row, the intercept's old value, then its coordinates'. Undoing them
newest first leaves every weight at its value from before the pass, bit for bit. ``marks``
holds the count of rows written down, then their numbers; ``saved`` the values. A journal of
two marks keeps nothing (``NO_JOURNAL``, ``no_journal``): the passes then run as before.

Only a plain first-order model keeps one (``linear.sparse_binary_pass``): with averaging
sums, or the diagonal rules' variances (87 % of AROW's rows update), writing the second
array down measured slower than checking the values first.
"""

import numpy as np

from olearn._compile import jit

#: A journal that keeps nothing, of the type the passes take (shared: never written).
NO_JOURNAL = (np.zeros(2, dtype=np.int64), np.empty(0))


@jit(inline="always")
def no_journal():
    """``NO_JOURNAL`` made inside compiled code (the same type, so one compiled pass)."""
    return np.zeros(2, dtype=np.int64), np.empty(0)


def capacity(n_rows: int, n_values: int) -> tuple[int, int]:
    """The sizes of ``marks`` and ``saved`` for a pass over ``n_rows`` rows holding
    ``n_values`` values."""
    return n_rows + 2, n_values + n_rows


@jit
def undo(journal, indptr, indices, w):
    """Put back the weights ``w`` that the pass which kept ``journal`` changed: each row's
    old values, the newest row first, so that a weight ends at the value it had before the
    pass's first change to it."""
    marks, saved = journal
    rows = marks[0]
    q = 0
    for r in range(rows):
        i = marks[2 + r]
        q += indptr[i + 1] - indptr[i] + 1
    last = w.shape[0] - 1
    for r in range(rows - 1, -1, -1):
        i = marks[2 + r]
        q -= indptr[i + 1] - indptr[i] + 1
        w[last] = saved[q]
        p = q + 1
        for k in range(indptr[i], indptr[i + 1]):
            w[indices[k]] = saved[p]
            p += 1
