"""First-order representation: a weight vector ``w`` (Σ = I, never changes).

Averaging uses the lazy trick (Daumé 2006): besides ``w`` keep ``a = Σ_s s·Δ_s`` over the
updates ``Δ_s`` made at round s; after T rounds the mean of ``w_1 … w_T`` is
``((T + 1)·w − a) / T``, so each update costs O(nnz) and averaging costs nothing per round.
"""

import math

import numba
import numpy as np

from olearn._compile import jit
from olearn._layout import CFG_AVERAGE, CFG_RULE, OPT_BIAS
from olearn.representations import _pass
from olearn.representations.rows import row, weight_of
from olearn.rules import RULES
from olearn.rules._switch import margin_step

#: Whether margin rule ``code`` reads its confidence v only through ``v > 0``
#: (``Rule.sign_only``: the Perceptron), by code: a constant of the compiled passes.
_SIGN_ONLY = np.zeros(max(rule.code for rule in RULES.values()) + 1, dtype=np.bool_)
for _rule in RULES.values():
    _SIGN_ONLY[_rule.code] = _rule.sign_only


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


# -- the fast binary passes (``engine.run``'s plain binary case) ------------------------------


@jit
def binary_pass(X, indptr, indices, y, order, state, config, sample_weight, journal):
    """One pass of the binary task over the rows ``order`` of X (dense 2-D, or CSR data
    with indptr/indices), one weight row, a first-order margin rule: ``engine.learn_row``'s
    round — the fused score/‖x̃‖² pass, m = y·s, the rule, the update (and the averaging
    sums) — with the counters in locals, summed in the same order (bit-identical). Row i
    weighs ``sample_weight[i]`` (the rule's weighted form; weight 0 skips the row), or 1
    when it is None (``rows.weight_of``: then compiled as the unweighted pass). Returns the
    number of rows whose ‖x̃‖² came out NaN or infinite (``fit``'s finiteness check).
    CSR rows take ``sparse_binary_pass`` (the branch is resolved at compile time), which
    alone keeps a ``journal`` (``_journal``: ``partial_fit``'s chunks of CSR rows)."""
    if indptr is not None:
        return sparse_binary_pass(X, indptr, indices, y, order, state, config, sample_weight,
                                  journal)  # fmt: skip
    W, A, S, L, stats = state
    cfg, hp, opts = config
    rule = cfg[CFG_RULE]
    average = cfg[CFG_AVERAGE] != 0
    bias = opts[OPT_BIAS]
    w = W[0]
    counters = _pass.load_counters(stats)
    nonfinite = 0
    for t in range(order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:  # not learned, not counted
            continue
        idx, val = row(X, indptr, indices, i)
        s, v = dot_sq_norm(w, idx, val, bias)
        apply, step, _, counters, nonfinite = _pass.margin_round(
            counters, nonfinite, rule, y[i], s, v, hp, h
        )
        if not apply:
            continue
        axpy(w, idx, val, bias, step)
        if average:
            axpy(A[0], idx, val, bias, step * counters[0])
    _pass.store_counters(stats, counters)
    return nonfinite


@jit(inline="always")
def sparse_binary_pass(data, indptr, indices, y, order, state, config, sample_weight, journal):
    """``binary_pass`` on CSR rows: the sums and the update of ``dot_sq_norm`` and ``axpy``
    written out, term for term in the same order (bit-identical), without row views and
    with each index read as unsigned (the rows are checked: no wraparound test): the pass
    of PA-I ≈ 8 % faster. A sign-only rule (the Perceptron: ``_SIGN_ONLY``) skips the sum
    ‖x̃‖² as ``dense_binary_pass`` does, on the same argument: its pass ≈ 20 % faster.
    (It compiles ≈ 1 s more than the pass through the row kernels.) Before each update
    it writes down the weights the update changes in ``journal`` when that keeps any
    (``_journal.undo`` puts them back; the caller's to pass one only without averaging,
    whose sums it does not keep)."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    rule = cfg[CFG_RULE]
    sign_only = _SIGN_ONLY[rule]
    average = cfg[CFG_AVERAGE] != 0
    bias = opts[OPT_BIAS]
    w = W[0]
    last = w.shape[0] - 1
    counters = _pass.load_counters(stats)
    nonfinite = 0
    keeps = journal.shape[0] > 2
    kept = 0
    q = int(journal[1]) if keeps else 0
    for t in range(order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:  # not learned, not counted
            continue
        start = np.uint64(indptr[i])
        end = np.uint64(indptr[i + 1])
        s = w[last] * bias
        v = bias * bias
        for p in range(start, end):
            x = data[p]
            s += w[np.uint64(indices[p])] * x
            if not sign_only:
                v += x * x
        if sign_only and not (v > 0.0 and math.isfinite(s)):
            for p in range(start, end):
                v += data[p] * data[p]
        apply, step, _, counters, nonfinite = _pass.margin_round(
            counters, nonfinite, rule, y[i], s, v, hp, h
        )
        if not apply:
            continue
        if keeps:  # the intercept's old value, then each coordinate's as it is stepped
            journal[2 + kept] = i
            kept += 1
            journal[q] = w[last]
            q += 1
        w[last] += step * bias
        if average:
            axpy(A[0], indices[start:end], data[start:end], bias, step * counters[0])
        if keeps:
            for p in range(start, end):
                j = np.uint64(indices[p])
                old = w[j]
                journal[q] = old
                q += 1
                w[j] = old + step * data[p]
        else:
            for p in range(start, end):
                w[np.uint64(indices[p])] += step * data[p]
    _pass.store_counters(stats, counters)
    if keeps:
        journal[0] = kept
    return nonfinite


@jit(inline="always")
def dense_binary_pass(X, y, order, state, config, rule, sign_only):
    """``binary_pass`` on the rows of a dense 2-D ``X``, reading ``X[i, j]`` in place (no
    row view, no kernel calls): the sums and updates of ``dot_sq_norm`` and ``axpy`` written
    out, term for term in the same order, so the results are bit-identical. Every value is
    read as ``np.float64`` (numba's ``float()`` keeps float32): a float32 ``X`` read in
    place then learns what its float64 conversion does, product for product.

    Inlined once per first-order rule with ``rule`` a constant (``_switch.py``, generated),
    so that the rule switch folds away. A ``sign_only`` rule (the Perceptron) reads v only
    through ``v > 0``: its copy skips the sum ‖x̃‖² (which costs as much as the score)
    whenever ``bias² > 0`` and the score is finite — then every x_j is finite (a NaN or
    infinite x_j makes the score non-finite) and v ≥ bias² > 0, so the rule sees the same
    sign — and sums it otherwise, exactly as before. (The count of non-finite rows stays
    exact for non-finite values: such a row always takes the sum.)

    The score is a chain of dependent additions, so a row waits on their latency. The loop
    that finishes a row (its second half) also starts the next one (its first half): two
    independent chains that run in the time of one, over a stretch of memory read in order.
    The next row's partial score is used only if this row leaves w unchanged; its partial
    ‖x̃‖² always (it does not read w). Every sum keeps its own order, so the results are
    those of one row at a time."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    average = cfg[CFG_AVERAGE] != 0
    bias = opts[OPT_BIAS]
    w = W[0]
    last = w.shape[0] - 1
    d = X.shape[1]
    counters = _pass.load_counters(stats)
    nonfinite = 0
    params = _pass.hyperparameters(hp)
    n = order.shape[0]
    h = d // 2
    # The first half of row order[t]'s sums, computed with the previous row: s_ahead is
    # valid while w has not changed since (``fresh``), v_ahead always (it does not read w).
    s_ahead = 0.0
    v_ahead = 0.0
    fresh = False
    for t in range(n):
        i = order[t]
        if t == 0 or not fresh:
            s = w[last] * bias
            if sign_only:
                for j in range(h):
                    s += w[j] * np.float64(X[i, j])
            elif t == 0:
                v = bias * bias
                for j in range(h):
                    x = np.float64(X[i, j])
                    s += w[j] * x
                    v += x * x
            else:
                v = v_ahead
                for j in range(h):
                    s += w[j] * np.float64(X[i, j])
        else:
            s = s_ahead
            v = v_ahead
        if sign_only:
            v = bias * bias
        # The second half of this row together with the first half of the next: two
        # independent chains of additions in one loop. Each sum keeps its own order.
        if t + 1 < n:
            k = order[t + 1]
            s_ahead = w[last] * bias
            v_ahead = bias * bias
            if sign_only:
                for j in range(h):
                    s += w[h + j] * np.float64(X[i, h + j])
                    s_ahead += w[j] * np.float64(X[k, j])
            else:
                for j in range(h):
                    x = np.float64(X[i, h + j])
                    x_k = np.float64(X[k, j])
                    s += w[h + j] * x
                    v += x * x
                    s_ahead += w[j] * x_k
                    v_ahead += x_k * x_k
            fresh = True
            tail = 2 * h
        else:
            tail = h
        if sign_only:
            for j in range(tail, d):
                s += w[j] * np.float64(X[i, j])
        else:
            for j in range(tail, d):
                x = np.float64(X[i, j])
                s += w[j] * x
                v += x * x
        if sign_only and not (v > 0.0 and math.isfinite(s)):
            for j in range(d):
                x = np.float64(X[i, j])
                v += x * x
        # (``_pass.margin_round`` written out: this pass runs 5 % faster without the helper's
        # returned tuple)
        if not math.isfinite(v):
            nonfinite += 1
        y_i = y[i]
        m, counters = _pass.binary_round(counters, y_i, s)
        alpha, c = margin_step(rule, m, v, params, 1.0)
        if alpha == 0.0 and c == 0.0:
            continue
        if not _pass.applicable(alpha, c, v):  # never applied: the row is not learned
            if math.isfinite(v):  # (a non-finite v is counted above)
                nonfinite += 1
            continue
        counters = _pass.counted_update(counters, alpha, c, v, m)
        fresh = False
        step = y_i * alpha
        w[last] += step * bias
        if average:  # the lazy averaging sums take the same row, in the same loop
            step_a = step * counters[0]
            a = A[0]
            a[last] += step_a * bias
            for j in range(d):
                x = np.float64(X[i, j])
                w[j] += step * x
                a[j] += step_a * x
        else:
            for j in range(d):
                w[j] += step * np.float64(X[i, j])
    _pass.store_counters(stats, counters)
    return nonfinite


# -- mixing (iterative parameter mixing, ``olearn.distributed``) ------------------------------
#
# A round of iterative parameter mixing (McDonald, Hall, Mann, NAACL 2010) starts n shards
# from one state, lets each learn from its own data, and mixes their states into the next
# one. ``merge`` is the first-order mixing; ``diagonal.merge`` and ``full.merge`` the
# second-order ones. Plain NumPy: it runs once per round on the driver. A state is the loop's
# tuple ``(W, A, S, L, stats)`` (``olearn._layout``); the result keeps the arrays' memory
# order, and one state comes back unchanged (a copy), so one shard is sequential training.


def merge(states, weights, start, *, changed=True, coordinate_weights=None):
    """Mix first-order states, shard by shard in the order given (deterministic).

    Parameters
    ----------
    states : list of state tuples
        The shards' states after one round, each started from ``start``.
    weights : array-like of shape (n,)
        Nonnegative mixing weights (normalised here): uniform, or proportional to each
        shard's updates in the round (McDonald et al.'s two choices).
    start : state tuple
        The state the round started from.
    changed : bool, default=True
        Average each weight only over the shards that changed it,
        ``w_j = Σ_{i: w_ij ≠ w⁰_j} λ_i w_ij / Σ_{i: w_ij ≠ w⁰_j} λ_i`` (the start value where
        no shard did); with False, ``w = Σ λ_i w_i`` over every shard.
    coordinate_weights : list of arrays of shape (D,), optional
        Per shard, a nonnegative weight for each coordinate (column of ``W``): then
        ``w_j = Σ_i λ_i c_ij w_ij / Σ_i λ_i c_ij`` (the start value where every ``c_ij`` is
        0), and ``changed`` is not used. With ``c_ij = Σ x_j²`` over shard i's rows (the
        "seen" rule of ``olearn.distributed``) this is the precision-weighted mean of the
        shards' weights with the precision a diagonal second-order model would gather from
        those rows: the first-order form of precision mixing (``docs/distributed.md``).

    Why "changed": a first-order shard moves only the weights of the features it sees, so
    plain averaging divides a feature seen by one shard of n by n, while the weights of
    features every shard sees keep their scale; on data whose shards see different features
    (a per-domain split) that distorts the model. Averaging over the shards that moved a
    weight keeps the scale of each (on iid shards every frequent weight moves everywhere
    and it is the plain average). Averaging sums and counters: :func:`merge_average_sums`,
    :func:`merge_counters`.
    """
    if len(states) == 1:
        return tuple(array.copy() for array in states[0])
    lam = mixing_weights(weights, len(states))
    W0 = start[0]
    if coordinate_weights is not None:
        W = _coordinate_average([s[0] for s in states], lam, coordinate_weights, W0)
    elif changed:
        W = _changed_average([s[0] for s in states], lam, W0)
    else:
        W = _weighted_sum([s[0] for s in states], lam, W0)
    A = merge_average_sums(W, states, start)
    return (W, A, start[2].copy(), start[3].copy(), merge_counters(states, start))


def mixing_weights(weights, n: int):
    """The weights as a float64 array of length n summing to 1 (uniform if all are 0)."""
    import numpy as np

    lam = np.asarray(weights, dtype=np.float64).reshape(-1)
    if lam.shape[0] != n:
        raise ValueError(f"{lam.shape[0]} mixing weights for {n} states")
    if not (np.isfinite(lam).all() and (lam >= 0).all()):
        raise ValueError(f"mixing weights must be finite and nonnegative, got {lam.tolist()}")
    total = lam.sum()
    return np.full(n, 1.0 / n) if total == 0 else lam / total


def _weighted_sum(arrays, lam, like):
    """``Σ λ_i a_i`` in shard order, in the memory order of ``like``."""
    import numpy as np

    out = np.zeros_like(like)
    for a, l in zip(arrays, lam, strict=True):
        out += l * a
    return out


def _changed_average(arrays, lam, start):
    """Each entry averaged (weights λ) over the arrays in which it differs from ``start``."""
    import numpy as np

    num = np.zeros_like(start)
    den = np.zeros_like(start)
    for a, l in zip(arrays, lam, strict=True):
        moved = a != start
        num += np.where(moved, l * a, 0.0)
        den += np.where(moved, l, 0.0)
    out = start.copy()
    moved = den > 0
    out[moved] = num[moved] / den[moved]
    return out


def _coordinate_average(arrays, lam, coordinate_weights, start):
    """Column j of the arrays averaged with weights ``λ_i c_ij`` (``start``'s column where they
    are all 0), in shard order."""
    import numpy as np

    if len(coordinate_weights) != len(arrays):
        raise ValueError(f"{len(coordinate_weights)} coordinate weights for {len(arrays)} states")
    num = np.zeros_like(start)
    den = np.zeros(start.shape[-1])
    for a, l, c in zip(arrays, lam, coordinate_weights, strict=True):
        c = np.asarray(c, dtype=np.float64)
        if c.shape != den.shape or not (np.isfinite(c).all() and (c >= 0).all()):
            raise ValueError(
                f"coordinate weights must be {den.shape[0]} finite nonnegative numbers a state"
            )
        num += (l * c) * a
        den += l * c
    out = _in_order(start, start)
    seen = den > 0
    out[..., seen] = num[..., seen] / den[seen]
    return out


def merge_average_sums(W, states, start):
    """The lazy averaging sums of the mixed weights ``W``: the averaged model after mixing is
    the mean of every weight vector a shard held after one of its rounds, all shards and
    rounds counted once.

    With ``T`` rounds and sums ``a``, the sum of the weight vectors held so far is
    ``σ = (T + 1)·w − a`` (module docstring). Shard i adds ``σ_i − σ₀`` over its ``T_i − T₀``
    rounds, so after mixing ``σ = σ₀ + Σ_i (σ_i − σ₀)``, ``T = T₀ + Σ_i (T_i − T₀)`` and the
    sums that give this mean with weights ``W`` are ``a = (T + 1)·W − σ``. (Empty when the
    model does not average.)"""
    from olearn._layout import STAT_ROUNDS

    # states: (W, A, ..., stats) tuples, the counters last (the structured loop's too)
    A0 = start[1]
    if not A0.size:
        return A0.copy()
    T0 = start[-1][STAT_ROUNDS]
    sigma0 = (T0 + 1.0) * start[0] - A0
    sigma = sigma0.copy()
    T = T0
    for state in states:
        T_i = state[-1][STAT_ROUNDS]
        sigma += ((T_i + 1.0) * state[0] - state[1]) - sigma0
        T += T_i - T0
    return _in_order((T + 1.0) * W - sigma, A0)


def _in_order(a, like):
    """``a`` in the memory order (and dtype) of ``like``."""
    import numpy as np

    out = np.empty_like(like)
    out[...] = a
    return out


def merge_counters(states, start):
    """The counters after mixing: the start's plus every shard's increments (rounds,
    mistakes, updates, losses, cost), so that every example counts once. (Linear states fold
    the weight scale of gradient rules into the weights after each pass: it stays 1.)"""
    stats0 = start[-1]
    stats = stats0.copy()
    for s in states:
        stats += s[-1] - stats0
    return stats
