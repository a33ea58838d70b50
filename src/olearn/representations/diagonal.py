"""Diagonal representation: mean ``μ`` and per-coordinate variances ``σ`` (Σ = diag(σ)).

The precision increment ``Σ⁻¹ ← Σ⁻¹ + c x xᵀ`` restricted to the diagonal is
``σ_j ← σ_j / (1 + c σ_j x_j²)`` (the diagonal rules of the CW, AROW and SCW papers).
Variances never fall below ``floor`` (see ALGORITHMS.md, numerics).
"""

import numba


@numba.njit(cache=True)
def confidence(sig, idx, val, bias):
    """``v = Σ_j σ_j x̃_j²``."""
    last = sig.shape[0] - 1
    v = sig[last] * bias * bias
    if idx is None:
        for j in range(val.shape[0]):
            v += sig[j] * val[j] * val[j]
    else:
        for p in range(val.shape[0]):
            v += sig[idx[p]] * val[p] * val[p]
    return v


@numba.njit(cache=True)
def dot_confidence(mu, sig, idx, val, bias):
    """``(μ · x̃, Σ_j σ_j x̃_j²)`` in one pass (the sums of ``linear.dot`` and ``confidence``,
    term for term in the same order, so bit-identical; the two gathers overlap)."""
    last = sig.shape[0] - 1
    s = mu[last] * bias
    v = sig[last] * bias * bias
    if idx is None:
        for j in range(val.shape[0]):
            x = val[j]
            s += mu[j] * x
            v += sig[j] * x * x
    else:
        for p in range(val.shape[0]):
            j = idx[p]
            x = val[p]
            s += mu[j] * x
            v += sig[j] * x * x
    return s, v


@numba.njit(cache=True, inline="always")
def _stepped(m, s, x, step, c, floor):
    """One coordinate's step, the one home of the diagonal update: the new ``(μ_j, σ_j)``
    from the old (the mean step uses the old σ_j)."""
    shrunk = s / (1.0 + c * s * x * x)
    return m + step * s * x, (shrunk if shrunk > floor else min(s, floor))


@numba.njit(cache=True)
def _step_coordinate(mu, sig, j, x, step, c, floor):
    mu[j], sig[j] = _stepped(mu[j], sig[j], x, step, c, floor)


@numba.njit(cache=True, error_model="numpy")
def update_dense(mu, sig, X, i, step, c, floor):
    """``update`` of the coordinates ``j < d`` for row ``i`` of a dense 2-D ``X`` (the
    intercept is the caller's): every coordinate with ``x_j ≠ 0`` is stepped, the others
    keep their values — bit for bit what ``update`` does, since CSR rows store no zeros.

    Written without branches (the step is computed for every coordinate and the old values
    selected back where ``x_j = 0``), so that LLVM vectorises the loop, divisions included;
    ``error_model="numpy"`` drops numba's check for a zero divisor, which would otherwise
    keep the loop scalar: the divisor ``1 + c σ_j x_j²`` is at least 1 (c ≥ 0, σ_j > 0),
    so the check could never fire and the results are the same."""
    for j in range(X.shape[1]):
        x = X[i, j]
        m = mu[j]
        s = sig[j]
        m_new, s_new = _stepped(m, s, x, step, c, floor)
        keep = x == 0.0
        mu[j] = m if keep else m_new
        sig[j] = s if keep else s_new


@numba.njit(cache=True)
def update(mu, sig, idx, val, bias, step, c, floor):
    """``μ ← μ + step·Σx̃`` then ``σ_j⁻¹ ← σ_j⁻¹ + c x̃_j²`` (old σ in the mean step)."""
    if bias != 0.0:
        _step_coordinate(mu, sig, sig.shape[0] - 1, bias, step, c, floor)
    if idx is None:
        for j in range(val.shape[0]):
            if val[j] != 0.0:
                _step_coordinate(mu, sig, j, val[j], step, c, floor)
    else:
        for p in range(val.shape[0]):
            _step_coordinate(mu, sig, idx[p], val[p], step, c, floor)
