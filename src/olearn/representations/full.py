"""Full-covariance representation, kept as the Cholesky factor of the precision.

The papers update ``Σ ← Σ − β Σx xᵀΣ``. Done literally this subtracts nearly equal numbers
once Σ shrinks along x, and the matrix drifts out of symmetry and definiteness (exact CW on
the SCW blog's non-separable Iris task ends with an eigenvalue of −2·10⁻¹⁶³ and a NaN
confidence). We store instead the lower-triangular ``L`` with ``Σ⁻¹ = L Lᵀ``:

* ``v = xᵀΣx = ‖L⁻¹x‖²`` — a sum of squares, never negative;
* ``Σx = L⁻ᵀ(L⁻¹x)`` — two triangular solves, O(D²) like the product ``Σx``;
* ``Σ⁻¹ ← Σ⁻¹ + c x xᵀ`` — a rank-one Cholesky *update* (plane rotations, no subtraction:
  the diagonal of L only grows), which is the paper's step with ``β = c / (1 + c v)``.

So Σ is symmetric positive definite by construction, in exact agreement with the paper's
arithmetic up to rounding. One guard remains: on non-separable data exact CW shrinks v
double-exponentially (v' ≈ v² / (m²φ²)); the increment c is capped so that the variance
along x never falls below ``floor·‖x̃‖²``.
"""

import math

import numba


@numba.njit(cache=True)
def densify(idx, val, bias, xt):
    """Scatter the row into the dense work vector ``xt`` (length D, intercept last)."""
    xt[:] = 0.0
    if idx is None:
        xt[: val.shape[0]] = val
    else:
        for p in range(val.shape[0]):
            xt[idx[p]] += val[p]
    xt[xt.shape[0] - 1] = bias


@numba.njit(cache=True)
def confidence(L, xt, z):
    """Forward solve ``L z = x̃``; returns ``v = z·z = x̃ᵀΣx̃``. ``z`` is kept for ``update``."""
    D = xt.shape[0]
    v = 0.0
    for i in range(D):
        s = xt[i]
        for j in range(i):
            s -= L[i, j] * z[j]
        z[i] = s / L[i, i]
        v += z[i] * z[i]
    return v


@numba.njit(cache=True)
def covariance_times(L, z, g):
    """Back solve ``Lᵀ g = z``: with z from ``confidence``, ``g = Σx̃``.

    Column-oriented: once ``g[i]`` is final, its term leaves every earlier equation, which
    walks row i of L contiguously and vectorises (the row-oriented form walks a column)."""
    D = z.shape[0]
    for k in range(D):
        g[k] = z[k]
    for i in range(D - 1, -1, -1):
        gi = g[i] / L[i, i]
        g[i] = gi
        for k in range(i):
            g[k] -= L[i, k] * gi


@numba.njit(cache=True)
def rank_one_update(L, w):
    """``L Lᵀ ← L Lᵀ + w wᵀ`` in place by Givens-style rotations (LINPACK ``dchud``);
    ``w`` is overwritten."""
    D = w.shape[0]
    for k in range(D):
        if w[k] == 0.0:
            continue
        lkk = L[k, k]
        r = math.hypot(lkk, w[k])
        cos = r / lkk
        inv_cos = lkk / r  # one division per column, not one per entry
        sin = w[k] / lkk
        L[k, k] = r
        for i in range(k + 1, D):
            L[i, k] = (L[i, k] + sin * w[i]) * inv_cos
            w[i] = cos * w[i] - sin * L[i, k]


@numba.njit(cache=True)
def update(mu, L, xt, z, g, work, v, step, c, floor):
    """``μ ← μ + step·Σx̃`` (Σ before the step), then ``Σ⁻¹ ← Σ⁻¹ + c x̃x̃ᵀ``."""
    covariance_times(L, z, g)
    for j in range(mu.shape[0]):
        mu[j] += step * g[j]
    if c <= 0.0 or v <= 0.0:
        return
    norm2 = 0.0
    for j in range(xt.shape[0]):
        norm2 += xt[j] * xt[j]
    v_min = floor * norm2
    if v / (1.0 + c * v) < v_min:  # the new variance along x̃ would fall below the floor
        c = (v / v_min - 1.0) / v if v > v_min else 0.0
        if c <= 0.0:
            return
    root = math.sqrt(c)
    for j in range(xt.shape[0]):
        work[j] = root * xt[j]
    rank_one_update(L, work)
