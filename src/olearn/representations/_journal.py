"""The undo journal of a sparse binary pass: what ``partial_fit`` needs to put a model back
when a chunk of CSR rows turns out to hold a NaN or an infinite value.

A chunk must raise on such a value and leave the model as it was. Checking every value
before learning reads the whole chunk once more: nearly free for a chunk that stays in the
cache (its pass then reads it from there), a second trip to memory for a larger one
(``estimators.base._journal_pays``). Copying the weights to put them back would cost more
than the pass (8 MB at 2²⁰ features). So the pass over a large chunk reads only the indices
up front, counts the rows with a non-finite confidence as ``fit`` does, and writes down
each weight an update is about to change: per learned row, the intercept's old value, then
its coordinates'. Undoing them newest first leaves every weight at its value from before
the pass, bit for bit.

A journal is one float64 array (one argument: a pair of arrays would cost every call of the
passes a tenth of a microsecond more to dispatch): ``[0]`` the count of rows written down,
``[1]`` where the values start, then the rows' numbers (exact as floats), then the values.
An array of at most two entries keeps nothing (``NO_JOURNAL``): the passes then run as
before.

Only a plain first-order model keeps one (``linear.sparse_binary_pass``): with averaging
sums, or the diagonal rules' variances (87 % of AROW's rows update), writing the second
array down measured slower than checking the values first.
"""

import numpy as np

from olearn._compile import jit

#: A journal that keeps nothing (shared: never written).
NO_JOURNAL = np.zeros(2)


@jit(inline="always")
def no_journal():
    """``NO_JOURNAL`` made inside compiled code (the same type, so one compiled pass)."""
    return np.zeros(2)


def prepared(journal: np.ndarray, n_rows: int) -> np.ndarray:
    """``journal`` (at least ``size`` entries) set for a pass over ``n_rows`` rows."""
    journal[0] = 0
    journal[1] = n_rows + 2
    return journal


def size(n_rows: int, n_values: int) -> int:
    """The entries of a journal for a pass over ``n_rows`` rows holding ``n_values``
    values: two counts, the rows' numbers, their intercepts' and values' old weights."""
    return 2 + n_rows + n_rows + n_values


@jit
def undo(journal, indptr, indices, w):
    """Put back the weights ``w`` that the pass which kept ``journal`` changed: each row's
    old values, the newest row first, so that a weight ends at the value it had before the
    pass's first change to it."""
    rows = int(journal[0])
    q = int(journal[1])
    for r in range(rows):
        i = int(journal[2 + r])
        q += indptr[i + 1] - indptr[i] + 1
    last = w.shape[0] - 1
    for r in range(rows - 1, -1, -1):
        i = int(journal[2 + r])
        q -= indptr[i + 1] - indptr[i] + 1
        w[last] = journal[q]
        p = q + 1
        for k in range(indptr[i], indptr[i + 1]):
            w[indices[k]] = journal[p]
            p += 1
