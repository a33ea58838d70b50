"""One row interface for dense and CSR input, resolved at compile time."""

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
