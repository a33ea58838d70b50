"""The compiled online loop: the one place where rule, representation and task meet.

Per round it reads like the papers' pseudo-code::

    s = score(state, x)                      # representation: means of every row
    m, rows, signs = task(y, s)              # reduction to a signed margin
    v = confidence(state, x, rows)           # representation
    alpha, c = rule(m, v, hp)                # paper
    if alpha or c: apply(state, x, rows, signs * alpha, c)

and counts rounds, online mistakes, updates, the running loss and the incurred cost as it goes
(progressive validation for free). The rule, representation and task are integer codes
(``cfg``), the hyper-parameters a float array (``hp``): data, not compile-time
specialisations, so the whole engine compiles once per input type and is served from the disk
cache afterwards (``_compile.py`` explains the choice). The one exception is inside that
compilation: the dense first-order pass is inlined once per first-order rule, its switch
folded away (``_run_binary_dense``).

Scoring costs O(k·nnz) for k rows; an update moves at most two rows, O(nnz) each (the
one-vs-rest comparison mode moves every row). Tasks whose label is a vector (multilabel
indicator, cost-sensitive cost row) read it from the auxiliary array ``aux`` (n, k).
Gradient rules (SGD) keep the weights as ``scale·W`` so that the L2 decay costs O(1).
"""

import math

import numpy as np
from numba import types
from numba.extending import overload

from olearn._compile import jit
from olearn.representations import DIAGONAL, FULL, LINEAR, diagonal, full, linear
from olearn.representations.fastpath import UNREADABLE, event_row
from olearn.representations.rows import row, sparse_row_problem
from olearn.rules import arow, cw, pa, perceptron, scw, sgd, sop
from olearn.tasks import (
    BINARY,
    COST_MAX_LOSS,
    COST_PREDICTION,
    MULTICLASS,
    MULTICLASS_OVR,
    MULTILABEL,
    REGRESSION,
    cost_sensitive,
    multiclass,
    multilabel,
    regression,
    uniclass,
)
from olearn.tasks.binary import binary

# Layout of the small arrays passed to the loop.
CFG_RULE, CFG_REPRESENTATION, CFG_TASK, CFG_AVERAGE, CFG_SCHEDULE = range(5)
N_CFG = 5
#: ``cfg[CFG_SCHEDULE]`` for margin rules (no gradient schedule).
NO_SCHEDULE = -1
OPT_BIAS, OPT_FLOOR, OPT_EPSILON, OPT_LEARNED_THRESHOLD = range(4)
N_OPTS = 4
(
    STAT_ROUNDS,
    STAT_MISTAKES,
    STAT_UPDATES,
    STAT_LOSS,
    STAT_SQUARED_LOSS,
    STAT_COST,
    STAT_SCALE,
) = range(7)
N_STATS = 7
#: The Perceptron's code in ``rule_step``: the one rule that reads v only through ``v > 0``
#: (``rules.perceptron``), which the dense first-order pass exploits.
_PERCEPTRON = 0
#: Below this the scale of the weights is folded into them (SGD).
_MIN_SCALE = 1e-9


def new_stats() -> np.ndarray:
    """Fresh counters (the weight scale starts at 1)."""
    stats = np.zeros(N_STATS)
    stats[STAT_SCALE] = 1.0
    return stats


@jit(inline="always")
def rule_step(code, m, v, hp):
    """The rule switch; codes are those of ``olearn.rules.RULES``."""
    if code == 0:
        return perceptron.perceptron(m, v, hp)
    if code == 1:
        return pa.pa(m, v, hp)
    if code == 2:
        return pa.pa1(m, v, hp)
    if code == 3:
        return pa.pa2(m, v, hp)
    if code == 4:
        return sop.sop(m, v, hp)
    if code == 5:
        return cw.cw_variance(m, v, hp)
    if code == 6:
        return cw.cw_exact(m, v, hp)
    if code == 7:
        return arow.arow(m, v, hp)
    if code == 8:
        return scw.scw1(m, v, hp)
    if code == 9:
        return scw.scw2(m, v, hp)
    if code == 10:
        return arow.rls(m, v, hp)
    raise ValueError("unknown rule code")


@jit(inline="always")
def task_step(code, y, aux_row, scores, opts):
    """The task switch; codes are those of ``olearn.tasks``. Returns the task tuple and the
    cost of the round's prediction (0/1 except for cost-sensitive tasks)."""
    if code == BINARY:
        m, ra, sa, rb, sb, mistake, loss = binary(y, scores)
    elif code == REGRESSION:
        m, ra, sa, rb, sb, mistake, loss = regression.regression(y, scores, opts[OPT_EPSILON])
    elif code == MULTICLASS or code == MULTICLASS_OVR:
        m, ra, sa, rb, sb, mistake, loss = multiclass.multiclass(y, scores)
    elif code == MULTILABEL:
        m, ra, sa, rb, sb, mistake, loss = multilabel.multilabel(
            aux_row, scores, opts[OPT_LEARNED_THRESHOLD] != 0.0
        )
    elif code == COST_PREDICTION:
        m, ra, sa, rb, sb, mistake, loss = cost_sensitive.prediction_based(y, aux_row, scores)
        return m, ra, sa, rb, sb, mistake, loss, cost_sensitive.incurred(y, aux_row, scores)
    elif code == COST_MAX_LOSS:
        m, ra, sa, rb, sb, mistake, loss = cost_sensitive.max_loss(y, aux_row, scores)
        return m, ra, sa, rb, sb, mistake, loss, cost_sensitive.incurred(y, aux_row, scores)
    else:
        raise ValueError("unknown task code")
    return m, ra, sa, rb, sb, mistake, loss, 1.0 if mistake else 0.0


@jit(inline="always")
def _confidence(rep, W, S, L, r, idx, val, bias, xt, z):
    if rep == LINEAR:
        return linear.sq_norm(idx, val, bias)
    if rep == DIAGONAL:
        return diagonal.confidence(S[r], idx, val, bias)
    return full.confidence(L[r], xt, z)


@jit(inline="always")
def _apply(rep, W, A, S, L, r, idx, val, bias, step, c, v, z, xt, g, work, rounds, average, floor):
    if rep == LINEAR:
        linear.axpy(W[r], idx, val, bias, step)
        if average:
            linear.axpy(A[r], idx, val, bias, step * rounds)
    elif rep == DIAGONAL:
        diagonal.update(W[r], S[r], idx, val, bias, step, c, floor)
    else:
        full.update(W[r], L[r], xt, z, g, work, v, step, c, floor)


@jit
def _decay(W, stats, decay):
    """w ← (1 − decay)·w, the intercept (last column) untouched, in O(k) via the scale."""
    factor = 1.0 - decay
    k, D = W.shape
    if factor <= 0.0:  # e.g. Pegasos' first round, η₁λ = 1: the weights restart from 0
        scale = stats[STAT_SCALE]
        for r in range(k):
            W[r, D - 1] *= scale
            W[r, : D - 1] = 0.0
        stats[STAT_SCALE] = 1.0
        return
    for r in range(k):
        W[r, D - 1] /= factor
    scale = stats[STAT_SCALE] * factor
    if scale < _MIN_SCALE:
        for r in range(k):
            for j in range(D):
                W[r, j] *= scale
        scale = 1.0
    stats[STAT_SCALE] = scale


@jit
def _score_rows(W, idx, val, bias, scores):
    """``scores[r] = W[r]·x̃`` for every row, feature by feature: with the feature-major
    layout the estimators allocate, the k weights of a feature are adjacent, so a sparse row
    costs one cache miss per nonzero rather than k. (Same summation order as ``linear.dot``.)
    """
    k, D = W.shape
    for r in range(k):
        scores[r] = W[r, D - 1] * bias
    if idx is None:
        for j in range(val.shape[0]):
            x = val[j]
            for r in range(k):
                scores[r] += W[r, j] * x
    else:
        for p in range(val.shape[0]):
            j = idx[p]
            x = val[p]
            for r in range(k):
                scores[r] += W[r, j] * x


@jit
def _learn_ovr(rep, idx, val, y_i, W, A, S, L, stats, cfg, hp, bias, floor, scores, xt, z, g, work):
    """One-vs-rest comparison mode: every row takes its own binary step (label +1 for the
    true class, −1 for the others)."""
    true = int(y_i)
    updated = False
    rounds = stats[STAT_ROUNDS]
    average = cfg[CFG_AVERAGE] != 0
    for r in range(W.shape[0]):
        y_r = 1.0 if r == true else -1.0
        v = _confidence(rep, W, S, L, r, idx, val, bias, xt, z)
        alpha, c = rule_step(cfg[CFG_RULE], y_r * scores[r], v, hp)
        if alpha != 0.0 or c != 0.0:
            updated = True
            _apply(rep, W, A, S, L, r, idx, val, bias, y_r * alpha, c, v, z, xt, g, work,
                   rounds, average, floor)  # fmt: skip
    if updated:
        stats[STAT_UPDATES] += 1.0


@jit(inline="always")
def learn_row(idx, val, y_i, aux_row, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b, g,
              work):  # fmt: skip
    """One round on one row: score, reduce, step, apply, count."""
    rep = cfg[CFG_REPRESENTATION]
    task = cfg[CFG_TASK]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    gradient = cfg[CFG_SCHEDULE] != NO_SCHEDULE
    scale = stats[STAT_SCALE] if gradient else 1.0
    # One parameter row (binary, regression): its score and confidence in one pass over x.
    fused = W.shape[0] == 1 and rep != FULL and not gradient
    v_fused = 0.0
    if fused:
        if rep == LINEAR:
            scores[0], v_fused = linear.dot_sq_norm(W[0], idx, val, bias)
        else:
            scores[0], v_fused = diagonal.dot_confidence(W[0], S[0], idx, val, bias)
    elif W.shape[0] == 1:
        scores[0] = linear.dot(W[0], idx, val, bias)
    else:
        _score_rows(W, idx, val, bias, scores)
    if gradient:
        for r in range(W.shape[0]):
            scores[r] *= scale
    m, ra, sa, rb, sb, mistake, loss, cost = task_step(task, y_i, aux_row, scores, opts)
    stats[STAT_ROUNDS] += 1.0
    stats[STAT_MISTAKES] += mistake
    stats[STAT_LOSS] += loss
    stats[STAT_SQUARED_LOSS] += loss * loss
    stats[STAT_COST] += cost
    if gradient:
        alpha, decay = sgd.sgd(cfg[CFG_RULE], cfg[CFG_SCHEDULE], m, stats[STAT_ROUNDS], hp)
        if decay != 0.0:
            _decay(W, stats, decay)
        if alpha != 0.0 and ra >= 0:
            stats[STAT_UPDATES] += 1.0
            step = alpha / stats[STAT_SCALE]
            linear.axpy(W[ra], idx, val, bias, sa * step)
            if rb >= 0:
                linear.axpy(W[rb], idx, val, bias, sb * step)
        return
    if rep == FULL:
        full.densify(idx, val, bias, xt)
    if task == MULTICLASS_OVR:
        _learn_ovr(rep, idx, val, y_i, W, A, S, L, stats, cfg, hp, bias, floor, scores, xt, z_a,
                   g, work)  # fmt: skip
        return
    if ra < 0:  # the round poses no constraint
        return
    if fused:
        v_a = v_fused
    else:
        v_a = _confidence(rep, W, S, L, ra, idx, val, bias, xt, z_a)
    v_b = 0.0
    if rb >= 0:
        v_b = _confidence(rep, W, S, L, rb, idx, val, bias, xt, z_b)
    alpha, c = rule_step(cfg[CFG_RULE], m, v_a + v_b, hp)
    if alpha == 0.0 and c == 0.0:
        return
    stats[STAT_UPDATES] += 1.0
    rounds = stats[STAT_ROUNDS]
    average = cfg[CFG_AVERAGE] != 0
    _apply(rep, W, A, S, L, ra, idx, val, bias, sa * alpha, c, v_a, z_a, xt, g, work, rounds,
           average, floor)  # fmt: skip
    if rb >= 0:
        _apply(rep, W, A, S, L, rb, idx, val, bias, sb * alpha, c, v_b, z_b, xt, g, work,
               rounds, average, floor)  # fmt: skip


@jit
def _workspace(W, cfg):
    n_work = W.shape[1] if cfg[CFG_REPRESENTATION] == FULL else 0
    return (
        np.empty(W.shape[0]),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
    )


@jit
def run_task(X, indptr, indices, y, aux, order, W, A, S, L, stats, cfg, hp, opts):
    """One pass over the rows ``order`` of X (dense 2-D, or CSR data with indptr/indices).

    y: (n,) labels as the task reads them (±1, a target, or a row index); aux: (n, k)
    indicator or cost rows for the tasks that need them, else an empty (0, 0) array.
    W: (k, D) means; A: (k, D) averaging sums or empty; S: (k, D) diagonal variances or
    empty; L: (k, D, D) Cholesky factors of the precisions or empty. ``stats`` accumulates
    rounds, mistakes, updates, loss, squared loss and cost (and holds the SGD weight scale).
    """
    scores, xt, z_a, z_b, g, work = _workspace(W, cfg)
    no_aux = np.empty(0)
    has_aux = aux.shape[0] > 0
    for t in range(order.shape[0]):
        i = order[t]
        idx, val = row(X, indptr, indices, i)
        aux_row = aux[i] if has_aux else no_aux
        learn_row(idx, val, y[i], aux_row, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b,
                  g, work)  # fmt: skip


@jit(inline="always")
def _hyperparameters(hp):
    """The rule's hyper-parameters as a pair of values instead of an array: the compiler
    then knows they do not change as the weights are written, and hoists what the rule
    computes from them alone (e.g. PA-II's 1/(2C)) out of the loop. Rules read at most
    ``hp[1]``; missing entries are 0."""
    n = hp.shape[0]
    return (hp[0] if n > 0 else 0.0, hp[1] if n > 1 else 0.0)


@jit(inline="always")
def _run_binary_dense_linear(X, y, order, W, A, stats, rule, cfg, hp, opts):
    """``run_binary``'s round on the rows of a dense 2-D ``X`` for the first-order
    representation, reading ``X[i, j]`` in place (no row view, no kernel calls): the sums and
    updates of ``linear.dot_sq_norm`` and ``linear.axpy`` written out, term for term in the
    same order, so the results are bit-identical to the general path.

    Inlined once per first-order rule with ``rule`` a constant, so that the rule switch
    folds away (``_run_binary_dense``). The Perceptron reads v only through ``v > 0``: its
    copy skips the sum ‖x̃‖² (which costs as much as the score) whenever ``bias² > 0`` and
    the score is finite — then every x_j is finite (a NaN or infinite x_j makes the score
    non-finite) and v ≥ bias² > 0, so the rule sees the same sign — and sums it otherwise,
    exactly as before. (The count of non-finite rows stays exact for non-finite values: such
    a row always takes the sum.)

    The score is a chain of dependent additions, so a row waits on their latency. The loop
    that finishes a row (its second half) also starts the next one (its first half): two
    independent chains that run in the time of one, over a stretch of memory read in order.
    The next row's partial score is used only if this row leaves w unchanged; its partial
    ‖x̃‖² always (it does not read w). Every sum keeps its own order, so the results are
    those of one row at a time."""
    average = cfg[CFG_AVERAGE] != 0
    bias = opts[OPT_BIAS]
    w = W[0]
    last = w.shape[0] - 1
    d = X.shape[1]
    rounds = stats[STAT_ROUNDS]
    mistakes = stats[STAT_MISTAKES]
    updates = stats[STAT_UPDATES]
    loss_sum = stats[STAT_LOSS]
    squared_loss_sum = stats[STAT_SQUARED_LOSS]
    cost_sum = stats[STAT_COST]
    nonfinite = 0
    sign_only = rule == _PERCEPTRON
    params = _hyperparameters(hp)
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
                    s += w[j] * X[i, j]
            elif t == 0:
                v = bias * bias
                for j in range(h):
                    x = X[i, j]
                    s += w[j] * x
                    v += x * x
            else:
                v = v_ahead
                for j in range(h):
                    s += w[j] * X[i, j]
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
                    s += w[h + j] * X[i, h + j]
                    s_ahead += w[j] * X[k, j]
            else:
                for j in range(h):
                    x = X[i, h + j]
                    x_k = X[k, j]
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
                s += w[j] * X[i, j]
        else:
            for j in range(tail, d):
                x = X[i, j]
                s += w[j] * x
                v += x * x
        if sign_only and not (v > 0.0 and math.isfinite(s)):
            for j in range(d):
                v += X[i, j] * X[i, j]
        if not math.isfinite(v):
            nonfinite += 1
        y_i = y[i]
        m = y_i * s
        loss = max(0.0, 1.0 - m)
        rounds += 1.0
        if m <= 0.0:
            mistakes += 1.0
            cost_sum += 1.0
        loss_sum += loss
        squared_loss_sum += loss * loss
        alpha, c = rule_step(rule, m, v, params)
        if alpha == 0.0 and c == 0.0:
            continue
        updates += 1.0
        fresh = False
        step = y_i * alpha
        w[last] += step * bias
        if average:  # the lazy averaging sums take the same row, in the same loop
            step_a = step * rounds
            a = A[0]
            a[last] += step_a * bias
            for j in range(d):
                x = X[i, j]
                w[j] += step * x
                a[j] += step_a * x
        else:
            for j in range(d):
                w[j] += step * X[i, j]
    stats[STAT_ROUNDS] = rounds
    stats[STAT_MISTAKES] = mistakes
    stats[STAT_UPDATES] = updates
    stats[STAT_LOSS] = loss_sum
    stats[STAT_SQUARED_LOSS] = squared_loss_sum
    stats[STAT_COST] = cost_sum
    return nonfinite


@jit
def _run_binary_dense_diagonal(X, y, order, W, S, stats, cfg, hp, opts):
    """``_run_binary_dense_linear`` for the diagonal representation: the sums of
    ``diagonal.dot_confidence`` written out in place (each row's second half with the next
    row's first half, as there; both sums read σ, so both are recomputed after an update),
    the row stepped by ``diagonal.update_dense`` (vectorised; the formula's one home is
    ``diagonal._stepped``)."""
    rule = cfg[CFG_RULE]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    params = _hyperparameters(hp)
    mu = W[0]
    sig = S[0]
    last = sig.shape[0] - 1
    d = X.shape[1]
    rounds = stats[STAT_ROUNDS]
    mistakes = stats[STAT_MISTAKES]
    updates = stats[STAT_UPDATES]
    loss_sum = stats[STAT_LOSS]
    squared_loss_sum = stats[STAT_SQUARED_LOSS]
    cost_sum = stats[STAT_COST]
    nonfinite = 0
    n = order.shape[0]
    h = d // 2
    # As in ``_run_binary_dense_linear``: the first half of the next row's sums, valid while
    # μ and σ have not changed since (``fresh``).
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
                x = X[i, j]
                s += mu[j] * x
                v += sig[j] * x * x
        if t + 1 < n:
            k = order[t + 1]
            s_ahead = mu[last] * bias
            v_ahead = sig[last] * bias * bias
            for j in range(h):
                x = X[i, h + j]
                x_k = X[k, j]
                s += mu[h + j] * x
                v += sig[h + j] * x * x
                s_ahead += mu[j] * x_k
                v_ahead += sig[j] * x_k * x_k
            fresh = True
            tail = 2 * h
        else:
            tail = h
        for j in range(tail, d):
            x = X[i, j]
            s += mu[j] * x
            v += sig[j] * x * x
        if not math.isfinite(v):
            nonfinite += 1
        y_i = y[i]
        m = y_i * s
        loss = max(0.0, 1.0 - m)
        rounds += 1.0
        if m <= 0.0:
            mistakes += 1.0
            cost_sum += 1.0
        loss_sum += loss
        squared_loss_sum += loss * loss
        alpha, c = rule_step(rule, m, v, params)
        if alpha == 0.0 and c == 0.0:
            continue
        updates += 1.0
        fresh = False
        step = y_i * alpha
        if bias != 0.0:
            diagonal._step_coordinate(mu, sig, last, bias, step, c, floor)
        diagonal.update_dense(mu, sig, X, i, step, c, floor)
    stats[STAT_ROUNDS] = rounds
    stats[STAT_MISTAKES] = mistakes
    stats[STAT_UPDATES] = updates
    stats[STAT_LOSS] = loss_sum
    stats[STAT_SQUARED_LOSS] = squared_loss_sum
    stats[STAT_COST] = cost_sum
    return nonfinite


def _run_binary_dense(X, indices, y, order, W, A, S, stats, cfg, hp, opts):
    """``run_binary``'s pass over a dense 2-D ``X`` (``indices is None``, resolved at compile
    time like ``rows.row``): the count of non-finite rows; −1 for CSR input or a rule the
    dense passes do not take (the general loop of ``run_binary`` then runs).

    The first-order pass is inlined once per rule, with the rule code a constant (four
    copies: the switch costs ≈ 5 % of a dense first-order pass); the diagonal pass keeps
    the switch (its update, not the switch, is what it spends its time on)."""
    raise NotImplementedError("compiled only")


@overload(_run_binary_dense)
def _run_binary_dense_overload(X, indices, y, order, W, A, S, stats, cfg, hp, opts):
    # Only the state of a one-row model (C order, as ``_allocate`` makes it) takes the dense
    # passes: the feature-major state of multi-row models never reaches them at run time, so
    # they are not compiled for it.
    if isinstance(indices, types.NoneType) and W.layout == "C":

        def dense(X, indices, y, order, W, A, S, stats, cfg, hp, opts):
            if cfg[CFG_REPRESENTATION] == LINEAR:
                rule = cfg[CFG_RULE]
                if rule == 0:
                    return _run_binary_dense_linear(X, y, order, W, A, stats, 0, cfg, hp, opts)
                if rule == 1:
                    return _run_binary_dense_linear(X, y, order, W, A, stats, 1, cfg, hp, opts)
                if rule == 2:
                    return _run_binary_dense_linear(X, y, order, W, A, stats, 2, cfg, hp, opts)
                if rule == 3:
                    return _run_binary_dense_linear(X, y, order, W, A, stats, 3, cfg, hp, opts)
                return -1
            return _run_binary_dense_diagonal(X, y, order, W, S, stats, cfg, hp, opts)

        return dense

    def sparse(X, indices, y, order, W, A, S, stats, cfg, hp, opts):
        return -1

    return sparse


@jit
def run_binary(X, indptr, indices, y, order, W, A, S, stats, cfg, hp, opts):
    """``run`` for the common case, hoisted out of the general per-row body: a binary task
    (one parameter row, y = ±1), a margin rule, the first-order or diagonal representation.

    The round is the same as ``learn_row``'s — the fused score/confidence pass, m = y·s, the
    rule, the update of row 0 — and so are the counters (summed in the same order, so the
    results are bit-identical), but nothing multiclass, gradient or cost-sensitive is
    looked at per row, and the counters live in registers until the pass ends. On dense rows
    of ~100 features that fixed per-row work is what separates the general path from a
    hand-written loop (benchmarks/README.md, core engine).

    Returns the number of rows whose confidence v came out NaN or infinite: v sums
    non-negative terms in every x_j² (σ_j > 0), so a row with a NaN or infinite value always
    shows there (and a finite row only when the sum overflows). ``fit`` uses it as its
    finiteness check of dense X, fused into the pass instead of a pass of its own.
    """
    nonfinite = _run_binary_dense(X, indices, y, order, W, A, S, stats, cfg, hp, opts)
    if nonfinite >= 0:
        return nonfinite
    rule = cfg[CFG_RULE]
    rep = cfg[CFG_REPRESENTATION]
    average = cfg[CFG_AVERAGE] != 0
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    w = W[0]
    rounds = stats[STAT_ROUNDS]
    mistakes = stats[STAT_MISTAKES]
    updates = stats[STAT_UPDATES]
    loss_sum = stats[STAT_LOSS]
    squared_loss_sum = stats[STAT_SQUARED_LOSS]
    cost_sum = stats[STAT_COST]
    nonfinite = 0
    for t in range(order.shape[0]):
        i = order[t]
        idx, val = row(X, indptr, indices, i)
        if rep == LINEAR:
            s, v = linear.dot_sq_norm(w, idx, val, bias)
        else:
            s, v = diagonal.dot_confidence(w, S[0], idx, val, bias)
        if not math.isfinite(v):
            nonfinite += 1
        y_i = y[i]
        m = y_i * s
        loss = max(0.0, 1.0 - m)
        rounds += 1.0
        if m <= 0.0:
            mistakes += 1.0
            cost_sum += 1.0
        loss_sum += loss
        squared_loss_sum += loss * loss
        alpha, c = rule_step(rule, m, v, hp)
        if alpha == 0.0 and c == 0.0:
            continue
        updates += 1.0
        step = y_i * alpha
        if rep == LINEAR:
            linear.axpy(w, idx, val, bias, step)
            if average:
                linear.axpy(A[0], idx, val, bias, step * rounds)
        else:
            diagonal.update(w, S[0], idx, val, bias, step, c, floor)
    stats[STAT_ROUNDS] = rounds
    stats[STAT_MISTAKES] = mistakes
    stats[STAT_UPDATES] = updates
    stats[STAT_LOSS] = loss_sum
    stats[STAT_SQUARED_LOSS] = squared_loss_sum
    stats[STAT_COST] = cost_sum
    return nonfinite


@jit(inline="always")
def _is_plain_binary(W, cfg):
    """Whether ``run_binary`` applies: binary task, one row, margin rule, not full."""
    return (
        cfg[CFG_TASK] == BINARY
        and W.shape[0] == 1
        and cfg[CFG_SCHEDULE] == NO_SCHEDULE
        and cfg[CFG_REPRESENTATION] != FULL
    )


@jit(inline="always")
def _is_full_binary(W, cfg):
    """A binary task on one row, a margin rule, the full representation."""
    return (
        cfg[CFG_TASK] == BINARY
        and W.shape[0] == 1
        and cfg[CFG_SCHEDULE] == NO_SCHEDULE
        and cfg[CFG_REPRESENTATION] == FULL
    )


@jit
def _run_binary_dense_full(X, y, order, W, L, stats, cfg, hp, opts):
    """``learn_row``'s round for a binary task on the full representation, over the rows of
    a dense 2-D ``X`` read in place: the score of ``linear.dot`` written out (same order),
    x̃ copied into the work vector as ``full.densify`` does, the counters kept in locals and
    summed in ``learn_row``'s order, then ``full.confidence``, the rule and ``full.update``
    as there — bit-identical, without the general round's row views and task switch."""
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
    params = _hyperparameters(hp)
    rounds = stats[STAT_ROUNDS]
    mistakes = stats[STAT_MISTAKES]
    updates = stats[STAT_UPDATES]
    loss_sum = stats[STAT_LOSS]
    squared_loss_sum = stats[STAT_SQUARED_LOSS]
    cost_sum = stats[STAT_COST]
    for t in range(order.shape[0]):
        i = order[t]
        s = mu[last] * bias
        for j in range(d):
            x = X[i, j]
            s += mu[j] * x
            xt[j] = x
        xt[last] = bias
        y_i = y[i]
        m = y_i * s
        loss = max(0.0, 1.0 - m)
        rounds += 1.0
        if m <= 0.0:
            mistakes += 1.0
            cost_sum += 1.0
        loss_sum += loss
        squared_loss_sum += loss * loss
        v = full.confidence(factor, xt, z)
        alpha, c = rule_step(rule, m, v + 0.0, params)
        if alpha == 0.0 and c == 0.0:
            continue
        updates += 1.0
        full.update(mu, factor, xt, z, g, work, v, y_i * alpha, c, floor)
    stats[STAT_ROUNDS] = rounds
    stats[STAT_MISTAKES] = mistakes
    stats[STAT_UPDATES] = updates
    stats[STAT_LOSS] = loss_sum
    stats[STAT_SQUARED_LOSS] = squared_loss_sum
    stats[STAT_COST] = cost_sum


def _run_full_binary_dense(X, indices, y, order, W, L, stats, cfg, hp, opts):
    """``_run_binary_dense_full`` for a dense 2-D ``X`` and one-row (C order) state, resolved
    at compile time like ``_run_binary_dense``; False (nothing done) otherwise."""
    raise NotImplementedError("compiled only")


@overload(_run_full_binary_dense)
def _run_full_binary_dense_overload(X, indices, y, order, W, L, stats, cfg, hp, opts):
    if isinstance(indices, types.NoneType) and W.layout == "C":

        def dense(X, indices, y, order, W, L, stats, cfg, hp, opts):
            _run_binary_dense_full(X, y, order, W, L, stats, cfg, hp, opts)
            return True

        return dense

    def other(X, indices, y, order, W, L, stats, cfg, hp, opts):
        return False

    return other


@jit
def run(X, indptr, indices, y, order, W, A, S, L, stats, cfg, hp, opts):
    """``run_task`` without auxiliary labels (binary, regression, multiclass): its own loop,
    so the common path does not select an auxiliary row per example. The plain binary case
    takes ``run_binary`` and returns its count of non-finite rows; the general path returns
    0 (it does not look)."""
    if _is_plain_binary(W, cfg):
        return run_binary(X, indptr, indices, y, order, W, A, S, stats, cfg, hp, opts)
    if _is_full_binary(W, cfg) and _run_full_binary_dense(X, indices, y, order, W, L, stats,
                                                          cfg, hp, opts):  # fmt: skip
        return 0
    scores, xt, z_a, z_b, g, work = _workspace(W, cfg)
    no_aux = np.empty(0)
    for t in range(order.shape[0]):
        i = order[t]
        idx, val = row(X, indptr, indices, i)
        learn_row(idx, val, y[i], no_aux, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b,
                  g, work)  # fmt: skip
    return 0


@jit
def run_one(idx, val, y_i, W, A, S, L, stats, cfg, hp, opts):
    """One round on a single sparse row (the ``learn_one`` fast path)."""
    scores, xt, z_a, z_b, g, work = _workspace(W, cfg)
    learn_row(idx, val, y_i, np.empty(0), W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b,
              g, work)  # fmt: skip


@jit(nogil=False)
def learn_one_binary(idx, val, y_i, n_features, W, A, S, stats, cfg, hp, opts):
    """``learn_one``'s common case in one compiled call: check the event (the codes of
    ``rows.sparse_row_problem``; nothing is learned from a bad event) and, in the plain
    binary case (``run_binary``), learn it as a one-row CSR pass. Returns the problem code,
    or −1 when the configuration needs the general round (``run_one``) instead.

    The event is ``(idx, val)`` arrays or a dict's ``(id(x), len(x))``, read in place
    (``fastpath.event_row``; ``fastpath.UNREADABLE`` if it cannot be), so this function
    holds the GIL (for a call this short, releasing and re-taking it would cost more).
    """
    idx, val, readable = event_row(idx, val)
    if not readable:
        return UNREADABLE
    problem = sparse_row_problem(idx, val, n_features)
    if problem != 0:
        return problem
    if not _is_plain_binary(W, cfg):
        return -1
    # the one-row CSR pass's indptr, order and label in one allocation (views of it)
    work = np.empty(4, dtype=np.int64)
    indptr = work[:2]
    indptr[0] = 0
    indptr[1] = val.shape[0]
    order = work[2:3]
    order[0] = 0
    y = work[3:].view(np.float64)
    y[0] = y_i
    run_binary(val, indptr, idx, y, order, W, A, S, stats, cfg, hp, opts)
    return 0


@jit
def run_one_task(idx, val, y_i, aux_row, W, A, S, L, stats, cfg, hp, opts):
    """``run_one`` with an auxiliary label row (multilabel indicator or cost row)."""
    scores, xt, z_a, z_b, g, work = _workspace(W, cfg)
    learn_row(idx, val, y_i, aux_row, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b,
              g, work)  # fmt: skip


@jit
def run_joint(X, indptr, indices, n_labels, y, order, W, A, S, L, stats, cfg, hp, opts):
    """Single-prototype multiclass (Crammer et al. 2006, §7): row ``i·k + c`` of X is
    Φ(x_i, c). Each round scores the k rows, finds the best wrong label s, and takes a
    binary step (label +1) on the difference Φ(x, y) − Φ(x, s): m = w·Φ(x, y) − w·Φ(x, s)
    and v = ‖Φ(x, y) − Φ(x, s)‖² (or its Σ-norm) — the multiclass reduction on one w.
    """
    k = n_labels
    scores, xt, z_a, z_b, g, work = _workspace(W, cfg)
    label_scores = np.empty(k)
    D = W.shape[1]
    bias = opts[OPT_BIAS]
    diff_val = np.empty(D)
    diff_idx = np.empty(D, dtype=np.int64)
    no_aux = np.empty(0)
    for t in range(order.shape[0]):
        i = order[t]
        for c in range(k):
            idx, val = row(X, indptr, indices, i * k + c)
            label_scores[c] = linear.dot(W[0], idx, val, bias)
        r = int(y[i])
        s = multiclass.best_other(label_scores, r)
        idx_r, val_r = row(X, indptr, indices, i * k + r)
        idx_s, val_s = row(X, indptr, indices, i * k + s)
        idx, val = difference(idx_r, val_r, idx_s, val_s, diff_idx, diff_val)
        learn_row(idx, val, 1.0, no_aux, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b,
                  g, work)  # fmt: skip


def difference(idx_a, val_a, idx_b, val_b, out_idx, out_val):
    """Row ``a − b`` written into the work arrays: ``(None, values)`` for dense rows,
    ``(indices, values)`` for sparse ones (resolved at compile time, like ``rows.row``)."""
    raise NotImplementedError("compiled only")


@overload(difference)
def _difference(idx_a, val_a, idx_b, val_b, out_idx, out_val):
    if isinstance(idx_a, types.NoneType):

        def dense(idx_a, val_a, idx_b, val_b, out_idx, out_val):
            n = val_a.shape[0]
            for j in range(n):
                out_val[j] = val_a[j] - val_b[j]
            return None, out_val[:n]

        return dense

    def sparse(idx_a, val_a, idx_b, val_b, out_idx, out_val):
        n = _sparse_difference(idx_a, val_a, idx_b, val_b, out_idx, out_val)
        return out_idx[:n], out_val[:n]

    return sparse


@jit
def _sparse_difference(idx_a, val_a, idx_b, val_b, out_idx, out_val):
    """Merge two sorted sparse rows into ``a − b``; returns the number of entries."""
    p = 0
    q = 0
    n = 0
    while p < idx_a.shape[0] or q < idx_b.shape[0]:
        if q >= idx_b.shape[0] or (p < idx_a.shape[0] and idx_a[p] < idx_b[q]):
            out_idx[n] = idx_a[p]
            out_val[n] = val_a[p]
            p += 1
        elif p >= idx_a.shape[0] or idx_b[q] < idx_a[p]:
            out_idx[n] = idx_b[q]
            out_val[n] = -val_b[q]
            q += 1
        else:
            out_idx[n] = idx_a[p]
            out_val[n] = val_a[p] - val_b[q]
            p += 1
            q += 1
        n += 1
    return n


@jit
def run_uniclass(Y, order, w, stats, rule, hp, epsilon):
    """Uniclass PA (Crammer et al. 2006, §6) over the target vectors ``Y[order]``: no input,
    one centre ``w`` (with the extra radius coordinate when it is learned, ``tasks/uniclass``).
    The rule sees ``m = 1 − ℓ`` and ``v = 1``; τ is its step."""
    for t in range(order.shape[0]):
        y = Y[order[t]]
        m, dist = uniclass.uniclass(w, y, epsilon)
        loss = 1.0 - m
        stats[STAT_ROUNDS] += 1.0
        stats[STAT_MISTAKES] += loss > 0.0
        stats[STAT_LOSS] += loss
        stats[STAT_SQUARED_LOSS] += loss * loss
        stats[STAT_COST] += dist
        if loss <= 0.0:
            continue
        tau, _ = rule_step(rule, m, 1.0, hp)
        if tau != 0.0:
            stats[STAT_UPDATES] += 1.0
            uniclass.step(w, y, tau, dist)
