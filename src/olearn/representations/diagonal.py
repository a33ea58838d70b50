"""Diagonal representation: mean ``μ`` and per-coordinate variances ``σ`` (Σ = diag(σ)).

The precision increment ``Σ⁻¹ ← Σ⁻¹ + c x xᵀ`` restricted to the diagonal is
``σ_j ← σ_j / (1 + c σ_j x_j²)`` (the diagonal rules of the CW, AROW and SCW papers).
Variances never fall below ``floor`` (see ALGORITHMS.md, numerics).
"""

import numba
import numpy as np

from olearn._compile import jit
from olearn._layout import CFG_RULE, OPT_BIAS, OPT_FLOOR
from olearn.representations import _pass
from olearn.representations.rows import row, weight_of


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
def _stepped(s, x, step, c, floor):
    """One coordinate's step, the one home of the diagonal update: the change of ``μ_j`` and
    the new ``σ_j`` from the old ``σ_j`` (the mean step uses the old σ_j)."""
    shrunk = s / (1.0 + c * s * x * x)
    return step * s * x, (shrunk if shrunk > floor else min(s, floor))


@numba.njit(cache=True)
def _step_coordinate(mu, sig, j, x, step, c, floor):
    change, sig[j] = _stepped(sig[j], x, step, c, floor)
    mu[j] += change


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
        x = np.float64(X[i, j])
        m = mu[j]
        s = sig[j]
        change, s_new = _stepped(s, x, step, c, floor)
        keep = x == 0.0
        mu[j] = m if keep else m + change
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


@numba.njit(cache=True)
def update_averaged(mu, sig, sums, idx, val, step, c, floor, rounds):
    """``update`` of a sparse row without intercept that also keeps the lazy averaging sums
    of ``linear.averaged`` (``a_j ← a_j + rounds·Δμ_j``): the structured loop's update."""
    for p in range(val.shape[0]):
        j = idx[p]
        change, sig[j] = _stepped(sig[j], val[p], step, c, floor)
        mu[j] += change
        sums[j] += rounds * change


# -- the fast binary passes (``engine.run``'s plain binary case) ------------------------------


@jit
def binary_pass(X, indptr, indices, y, order, state, config, sample_weight, journal):
    """``linear.binary_pass`` for the diagonal representation: the fused score/confidence
    pass, m = y·s, the rule, ``update``; counters in locals (bit-identical to
    ``engine.learn_row``); importance weights as there. Returns the count of rows whose
    confidence is NaN or infinite. ``journal`` is not kept (the passes share one
    signature): an update changes μ and σ on most rows (87 % of AROW's on the benchmark
    set), so writing them down would cost more than checking the values first."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    rule = cfg[CFG_RULE]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    mu = W[0]
    sig = S[0]
    counters = _pass.load_counters(stats)
    nonfinite = 0
    for t in range(order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:  # not learned, not counted
            continue
        idx, val = row(X, indptr, indices, i)
        s, v = dot_confidence(mu, sig, idx, val, bias)
        apply, step, c, counters, nonfinite = _pass.margin_round(
            counters, nonfinite, rule, y[i], s, v, hp, h
        )
        if apply:
            update(mu, sig, idx, val, bias, step, c, floor)
    _pass.store_counters(stats, counters)
    return nonfinite


@jit
def dense_binary_pass(X, y, order, state, config):
    """``binary_pass`` on the rows of a dense 2-D ``X`` read in place: the sums of
    ``dot_confidence`` written out (each row's second half with the next row's first half,
    as ``linear.dense_binary_pass`` does; both sums read σ, so both are recomputed after an
    update), the row stepped by ``update_dense`` (vectorised; the formula's one home is
    ``_stepped``)."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    rule = cfg[CFG_RULE]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    params = _pass.hyperparameters(hp)
    mu = W[0]
    sig = S[0]
    last = sig.shape[0] - 1
    d = X.shape[1]
    counters = _pass.load_counters(stats)
    nonfinite = 0
    n = order.shape[0]
    h = d // 2
    # The first half of the next row's sums, valid while μ and σ have not changed since
    # (``fresh``).
    s_ahead = 0.0
    v_ahead = 0.0
    fresh = False
    for t in range(n):
        i = order[t]
        if fresh:
            s = s_ahead
            v = v_ahead
        else:
            s = mu[last] * bias
            v = sig[last] * bias * bias
            for j in range(h):
                x = np.float64(X[i, j])
                s += mu[j] * x
                v += sig[j] * x * x
        if t + 1 < n:
            k = order[t + 1]
            s_ahead = mu[last] * bias
            v_ahead = sig[last] * bias * bias
            for j in range(h):
                x = np.float64(X[i, h + j])
                x_k = np.float64(X[k, j])
                s += mu[h + j] * x
                v += sig[h + j] * x * x
                s_ahead += mu[j] * x_k
                v_ahead += sig[j] * x_k * x_k
            fresh = True
            tail = 2 * h
        else:
            tail = h
        for j in range(tail, d):
            x = np.float64(X[i, j])
            s += mu[j] * x
            v += sig[j] * x * x
        apply, step, c, counters, nonfinite = _pass.margin_round(
            counters, nonfinite, rule, y[i], s, v, params, 1.0
        )
        if not apply:
            continue
        fresh = False
        if bias != 0.0:
            _step_coordinate(mu, sig, last, bias, step, c, floor)
        update_dense(mu, sig, X, i, step, c, floor)
    _pass.store_counters(stats, counters)
    return nonfinite


# -- mixing (iterative parameter mixing, ``olearn.distributed``; see ``linear.merge``) --------


def merge(states, weights, start, *, combine="precision"):
    """Mix diagonal Gaussian states ``N(μ_i, diag σ_i)`` in shard order (deterministic).

    With precisions ``p_i = 1/σ_i`` and normalised weights ``λ_i``, coordinate by
    coordinate:

    * ``"precision"``: ``p = Σ λ_i p_i``, ``μ = Σ λ_i p_i μ_i / p`` — the weighted geometric
      mean of the shards' Gaussians ``Π N(μ_i, σ_i)^{λ_i}`` (the Gaussian that minimises
      ``Σ λ_i KL(q ‖ N(μ_i, σ_i))``): a shard that is confident about a weight (it saw the
      feature, its σ shrank) dominates it, one that never saw it barely counts;
    * ``"average"``: ``μ = Σ λ_i μ_i`` (parameter averaging), ``p`` as above;
    * ``"summed"``: ``p = p⁰ + Σ (p_i − p⁰)``, ``pμ = p⁰μ⁰ + Σ (p_i μ_i − p⁰μ⁰)`` — every
      shard's information added to the start's once, Bayes' rule for independent shards
      (exact for full-covariance least squares: ``full.merge``; here its diagonal analogue).

    ``states``, ``weights``, ``start``, the averaging sums and the counters as in
    ``linear.merge``; one state comes back unchanged.
    """
    from olearn.representations import linear

    if len(states) == 1:
        return tuple(array.copy() for array in states[0])
    if combine not in ("precision", "average", "summed"):
        raise ValueError(f"combine must be 'precision', 'average' or 'summed', got {combine!r}")
    lam = linear.mixing_weights(weights, len(states))
    W0, S0 = start[0], start[2]
    precisions = [1.0 / s[2] for s in states]
    if combine == "summed":
        p0 = 1.0 / S0
        p = p0.copy()
        b = p0 * W0
        for state, p_i in zip(states, precisions, strict=True):
            p += p_i - p0
            b += p_i * state[0] - p0 * W0
        W = b / p
    else:
        p = linear._weighted_sum(precisions, lam, S0)
        if combine == "precision":
            weighted = [p_i * s[0] for s, p_i in zip(states, precisions, strict=True)]
            b = linear._weighted_sum(weighted, lam, W0)
            W = b / p
        else:
            W = linear._weighted_sum([s[0] for s in states], lam, W0)
    W = linear._in_order(W, W0)
    S = linear._in_order(1.0 / p, S0)
    A = linear.merge_average_sums(W, states, start)
    return (W, A, S, start[3].copy(), linear.merge_counters(states, start))
