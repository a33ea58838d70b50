"""One row interface for dense and CSR input, resolved at compile time."""

import math

import numba
from numba import types
from numba.extending import overload


def row(X, indptr, indices, i):
    """Row ``i`` as ``(idx, val)``: ``(None, X[i])`` for a dense 2-D ``X`` (``indices is
    None``), else the CSR slice ``(indices[a:b], X[a:b])`` with ``X`` the data array."""
    raise NotImplementedError("compiled only")


@overload(row)
def _row(X, indptr, indices, i):
    if isinstance(indices, types.NoneType):

        def dense(X, indptr, indices, i):
            return None, X[i]

        return dense

    def sparse(X, indptr, indices, i):
        a = indptr[i]
        b = indptr[i + 1]
        return indices[a:b], X[a:b]

    return sparse


@numba.njit(cache=True)
def sparse_row_problem(idx, val, n_features):
    """Why the event row ``(idx, val)`` cannot be learned: 0 if it can, 1 if an index is
    outside ``[0, n_features)``, 2 if a value is NaN or infinite (``learn_one``'s checks, in
    one compiled pass instead of several NumPy calls)."""
    for p in range(idx.shape[0]):
        if idx[p] < 0 or idx[p] >= n_features:
            return 1
    for p in range(val.shape[0]):
        if not math.isfinite(val[p]):
            return 2
    return 0


def weight_of(sample_weight, i):
    """The importance weight of row ``i``: ``sample_weight[i]``, or the constant 1.0 when
    ``sample_weight`` is None — resolved at compile time like ``row``, so an unweighted loop
    is compiled with h = 1 folded into its rules (its arithmetic and speed unchanged)."""
    raise NotImplementedError("compiled only")


@overload(weight_of)
def _weight_of(sample_weight, i):
    if isinstance(sample_weight, types.NoneType):

        def unweighted(sample_weight, i):
            return 1.0

        return unweighted

    def weighted(sample_weight, i):
        return sample_weight[i]

    return weighted
