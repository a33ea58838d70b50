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
import numpy as np

from olearn._compile import jit
from olearn._layout import CFG_RULE, OPT_BIAS, OPT_FLOOR
from olearn.representations import _pass


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
    """Forward solve ``L z = x̃``; returns ``v = z·z = x̃ᵀΣx̃``. ``z`` is kept for ``update``.

    Row i is ``z_i = (x̃_i − Σ_{j<i} L_ij z_j) / L_ii``, the terms subtracted in the order
    j = 0, 1, …: one chain of dependent subtractions per row. Four rows are solved together
    (four chains in one loop, each in its own order, so the results are those of one row at
    a time): a single chain waits on the latency of each subtraction."""
    D = xt.shape[0]
    v = 0.0
    i = 0
    while i + 4 <= D:
        s0 = xt[i]
        s1 = xt[i + 1]
        s2 = xt[i + 2]
        s3 = xt[i + 3]
        for j in range(i):
            z_j = z[j]
            s0 -= L[i, j] * z_j
            s1 -= L[i + 1, j] * z_j
            s2 -= L[i + 2, j] * z_j
            s3 -= L[i + 3, j] * z_j
        z0 = s0 / L[i, i]
        s1 -= L[i + 1, i] * z0
        s2 -= L[i + 2, i] * z0
        s3 -= L[i + 3, i] * z0
        z1 = s1 / L[i + 1, i + 1]
        s2 -= L[i + 2, i + 1] * z1
        s3 -= L[i + 3, i + 1] * z1
        z2 = s2 / L[i + 2, i + 2]
        s3 -= L[i + 3, i + 2] * z2
        z3 = s3 / L[i + 3, i + 3]
        z[i] = z0
        z[i + 1] = z1
        z[i + 2] = z2
        z[i + 3] = z3
        v += z0 * z0
        v += z1 * z1
        v += z2 * z2
        v += z3 * z3
        i += 4
    for r in range(i, D):
        s = xt[r]
        for j in range(r):
            s -= L[r, j] * z[j]
        z[r] = s / L[r, r]
        v += z[r] * z[r]
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
    ``w`` is overwritten. Column k below the diagonal is walked through a view: indices
    from 0 need no wrap-around of negative ones, which numba cannot rule out for
    ``range(k + 1, D)`` and which doubled the integer work of the loop."""
    D = w.shape[0]
    for k in range(D):
        w_k = w[k]
        if w_k == 0.0:
            continue
        lkk = L[k, k]
        r = math.hypot(lkk, w_k)
        cos = r / lkk
        inv_cos = lkk / r  # one division per column, not one per entry
        sin = w_k / lkk
        L[k, k] = r
        column = L[k + 1 :, k]
        rest = w[k + 1 :]
        for q in range(rest.shape[0]):
            w_q = rest[q]
            l_q = (column[q] + sin * w_q) * inv_cos
            column[q] = l_q
            rest[q] = cos * w_q - sin * l_q


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


# -- the fast binary pass (``engine.run``'s binary case on dense rows) ------------------------


@jit
def dense_binary_pass(X, y, order, state, config):
    """``engine.learn_row``'s round for a binary task on one weight row and its factor, over
    the rows of a dense 2-D ``X`` read in place: the score of ``linear.dot`` written out (same
    order), x̃ copied into the work vector as ``densify`` does, the counters kept in locals
    and summed in ``learn_row``'s order, then ``confidence``, the rule and ``update`` as
    there — bit-identical, without the general round's row views and task switch. Returns the
    count of rows not learned (a non-finite confidence or step)."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    rule = cfg[CFG_RULE]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    mu = W[0]
    factor = L[0]
    D = mu.shape[0]
    last = D - 1
    d = X.shape[1]
    xt = np.empty(D)
    z = np.empty(D)
    g = np.empty(D)
    work = np.empty(D)
    params = _pass.hyperparameters(hp)
    counters = _pass.load_counters(stats)
    nonfinite = 0
    for t in range(order.shape[0]):
        i = order[t]
        s = mu[last] * bias
        for j in range(d):
            x = np.float64(X[i, j])
            s += mu[j] * x
            xt[j] = x
        xt[last] = bias
        v = confidence(factor, xt, z)
        # (v + 0.0 as learn_row's v_a + v_b with v_b = 0: the same bits for v = −0.0)
        apply, step, c, counters, nonfinite = _pass.margin_round(
            counters, nonfinite, rule, y[i], s, v + 0.0, params, 1.0
        )
        if apply:
            update(mu, factor, xt, z, g, work, v, step, c, floor)
    _pass.store_counters(stats, counters)
    return nonfinite


# -- mixing (iterative parameter mixing, ``olearn.distributed``; see ``linear.merge``) --------


def merge(states, weights, start, *, combine="precision"):
    """Mix full-covariance Gaussian states ``N(μ_i, Σ_i)`` (stored as the Cholesky factors
    ``L_i`` of the precisions ``P_i = Σ_i⁻¹ = L_i L_iᵀ``) in shard order, one block (class row)
    at a time, with the normalised weights ``λ_i``:

    * ``"precision"``: ``P = Σ λ_i P_i``, ``μ = P⁻¹ Σ λ_i P_i μ_i`` (the weighted geometric
      mean of the Gaussians, as ``diagonal.merge``);
    * ``"average"``: ``μ = Σ λ_i μ_i``, ``P`` as above;
    * ``"summed"``: ``P = P⁰ + Σ (P_i − P⁰)``, ``Pμ = P⁰μ⁰ + Σ (P_i μ_i − P⁰μ⁰)``. Exact for
      least squares (AROW regression, ``rules.arow.rls``): a shard's pass from ``(μ⁰, P⁰)``
      gives ``P_i = P⁰ + X_iᵀX_i / r`` and ``P_i μ_i = P⁰μ⁰ + X_iᵀy_i / r`` whatever the
      order of its rows, so the sum is the posterior of one pass over all the shards' rows.

    The mixed precision is factored again (``L = chol(P)``: positive definite, as a positive
    combination of positive definite matrices, or ``P⁰`` plus positive semidefinite
    increments). ``states``, ``weights``, ``start``, the averaging sums and the counters as in
    ``linear.merge``; one state comes back unchanged.
    """
    from scipy.linalg import cho_solve

    from olearn.representations import linear

    if len(states) == 1:
        return tuple(array.copy() for array in states[0])
    if combine not in ("precision", "average", "summed"):
        raise ValueError(f"combine must be 'precision', 'average' or 'summed', got {combine!r}")
    lam = linear.mixing_weights(weights, len(states))
    W0, L0 = start[0], start[3]
    W = np.empty_like(W0)
    L = np.empty_like(L0)
    for r in range(W0.shape[0]):
        P0 = L0[r] @ L0[r].T
        if combine == "summed":
            P = P0.copy()
            b = P0 @ W0[r]
        else:
            P = np.zeros_like(P0)
            b = np.zeros(W0.shape[1])
        for state, l in zip(states, lam, strict=True):
            L_i, mu_i = state[3][r], state[0][r]
            P_i = L_i @ L_i.T
            if combine == "summed":
                P += P_i - P0
                b += P_i @ mu_i - P0 @ W0[r]
            else:
                P += l * P_i
                b += l * (P_i @ mu_i) if combine == "precision" else l * mu_i
        P = (P + P.T) / 2.0  # exactly symmetric for the factorisation
        L[r] = np.linalg.cholesky(P)
        W[r] = b if combine == "average" else cho_solve((L[r], True), b)
    A = linear.merge_average_sums(W, states, start)
    return (W, A, start[2].copy(), L, linear.merge_counters(states, start))
