"""First-order representation: a weight vector ``w`` (Σ = I, never changes).

Averaging uses the lazy trick (Daumé 2006): besides ``w`` keep ``a = Σ_s s·Δ_s`` over the
updates ``Δ_s`` made at round s; after T rounds the mean of ``w_1 … w_T`` is
``((T + 1)·w − a) / T``, so each update costs O(nnz) and averaging costs nothing per round.
"""

import numba


@numba.njit(cache=True)
def dot(w, idx, val, bias):
    """``w · x̃``."""
    s = w[w.shape[0] - 1] * bias
    if idx is None:
        for j in range(val.shape[0]):
            s += w[j] * val[j]
    else:
        for p in range(val.shape[0]):
            s += w[idx[p]] * val[p]
    return s


@numba.njit(cache=True)
def dot_sq_norm(w, idx, val, bias):
    """``(w · x̃, ‖x̃‖²)`` in one pass: the two sums of ``dot`` and ``sq_norm``, term for term
    in the same order (so bit-identical), but their dependency chains overlap."""
    last = w.shape[0] - 1
    s = w[last] * bias
    q = bias * bias
    if idx is None:
        for j in range(val.shape[0]):
            x = val[j]
            s += w[j] * x
            q += x * x
    else:
        for p in range(val.shape[0]):
            x = val[p]
            s += w[idx[p]] * x
            q += x * x
    return s, q


@numba.njit(cache=True)
def sq_norm(idx, val, bias):
    """``‖x̃‖²``: the confidence v of first-order rules."""
    s = bias * bias
    for p in range(val.shape[0]):
        s += val[p] * val[p]
    return s


@numba.njit(cache=True)
def axpy(w, idx, val, bias, step):
    """``w ← w + step·x̃``."""
    w[w.shape[0] - 1] += step * bias
    if idx is None:
        for j in range(val.shape[0]):
            w[j] += step * val[j]
    else:
        for p in range(val.shape[0]):
            w[idx[p]] += step * val[p]


def averaged(w, a, rounds):
    """Mean of the weight vectors after each of ``rounds`` rounds (NumPy, any shape)."""
    if rounds <= 0:
        return w.copy()
    return ((rounds + 1.0) * w - a) / rounds
