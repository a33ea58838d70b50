"""Rows of a column-major array copied into row-major order, for the loops that read rows.

A row of a Fortran-ordered array (a DataFrame's values) is spread over one cache line per
column. ``rows_from_columns`` copies a range of its rows into a C-ordered buffer a few columns
at a time: each step reads ``_TILE`` columns as sequential streams (which the prefetchers
follow) and writes a run of ``_TILE`` adjacent values of each row. NumPy's transposing copy
walks the source with the column stride instead: 1.3–1.5× slower on 100-column rows
(``benchmarks/README.md``, "Does every input form stay on the fast path?").
"""

from olearn._compile import jit

#: Columns read together: 8 streams and one 64-byte run of a row written per step.
_TILE = 8


@jit
def rows_from_columns(X, start, stop, out):
    """``out[:stop - start] = X[start:stop]`` for a 2-D X in any layout (fastest in Fortran
    order), ``out`` C-ordered with as many columns. The tile's width is a constant, so that
    the compiler unrolls its copy (one 64-byte store a row): 1.5× faster than the same loop
    with a variable width (10.5 against 16 ms on 100,000 × 100 values)."""
    n_columns = X.shape[1]
    whole = n_columns - n_columns % _TILE
    for first in range(0, whole, _TILE):
        for i in range(stop - start):
            for j in range(_TILE):
                out[i, first + j] = X[start + i, first + j]
    for i in range(stop - start):  # the last columns, fewer than a tile
        for j in range(whole, n_columns):
            out[i, j] = X[start + i, j]
