"""The compiled online loop: the one place where rule, representation and task meet.

Per round it reads like the papers' pseudo-code::

    s = score(state, x)                      # representation: means of every row
    m, rows, signs = task(y, s)              # reduction to a signed margin
    v = confidence(state, x, rows)           # representation
    alpha, c = rule(m, v, hp)                # paper
    if alpha or c: apply(state, x, rows, signs * alpha, c)

and counts rounds, online mistakes, updates and the running loss as it goes (progressive
validation for free). The rule, representation and task are integer codes (``cfg``), the
hyper-parameters a float array (``hp``): data, not compile-time specialisations, so the whole
engine compiles once per input type and is served from the disk cache afterwards
(``_compile.py`` explains the choice).
"""

import numpy as np

from olearn._compile import jit
from olearn.representations import DIAGONAL, FULL, LINEAR, diagonal, full, linear
from olearn.representations.rows import row
from olearn.rules import arow, cw, pa, perceptron, scw, sop
from olearn.tasks import BINARY
from olearn.tasks.binary import binary

# Layout of the small arrays passed to the loop.
CFG_RULE, CFG_REPRESENTATION, CFG_TASK, CFG_AVERAGE = range(4)
OPT_BIAS, OPT_FLOOR = range(2)
STAT_ROUNDS, STAT_MISTAKES, STAT_UPDATES, STAT_LOSS, STAT_SQUARED_LOSS = range(5)
N_STATS = 5


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
    raise ValueError("unknown rule code")


@jit(inline="always")
def task_step(code, y, scores):
    """The task switch; codes are those of ``olearn.tasks``."""
    if code == BINARY:
        return binary(y, scores)
    raise ValueError("unknown task code")


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


@jit(inline="always")
def learn_row(idx, val, y_i, W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b, g, work):
    """One round on one row: score, reduce, step, apply, count."""
    rep = cfg[CFG_REPRESENTATION]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    # One parameter row (binary tasks): its score and confidence in one pass over x.
    fused = W.shape[0] == 1 and rep != FULL
    v_fused = 0.0
    if fused:
        if rep == LINEAR:
            scores[0], v_fused = linear.dot_sq_norm(W[0], idx, val, bias)
        else:
            scores[0], v_fused = diagonal.dot_confidence(W[0], S[0], idx, val, bias)
    else:
        for r in range(W.shape[0]):
            scores[r] = linear.dot(W[r], idx, val, bias)
    m, ra, sa, rb, sb, mistake, loss = task_step(cfg[CFG_TASK], y_i, scores)
    if rep == FULL:
        full.densify(idx, val, bias, xt)
    if fused and ra == 0:
        v_a = v_fused
    else:
        v_a = _confidence(rep, W, S, L, ra, idx, val, bias, xt, z_a)
    v_b = 0.0
    if rb >= 0:
        v_b = _confidence(rep, W, S, L, rb, idx, val, bias, xt, z_b)
    alpha, c = rule_step(cfg[CFG_RULE], m, v_a + v_b, hp)
    stats[STAT_ROUNDS] += 1.0
    stats[STAT_MISTAKES] += mistake
    stats[STAT_LOSS] += loss
    stats[STAT_SQUARED_LOSS] += loss * loss
    if alpha == 0.0 and c == 0.0:
        return
    stats[STAT_UPDATES] += 1.0
    rounds = stats[STAT_ROUNDS]
    average = cfg[CFG_AVERAGE] != 0
    _apply(
        rep,
        W,
        A,
        S,
        L,
        ra,
        idx,
        val,
        bias,
        sa * alpha,
        c,
        v_a,
        z_a,
        xt,
        g,
        work,
        rounds,
        average,
        floor,
    )
    if rb >= 0:
        _apply(
            rep,
            W,
            A,
            S,
            L,
            rb,
            idx,
            val,
            bias,
            sb * alpha,
            c,
            v_b,
            z_b,
            xt,
            g,
            work,
            rounds,
            average,
            floor,
        )


@jit
def run(X, indptr, indices, y, order, W, A, S, L, stats, cfg, hp, opts):
    """One pass over the rows ``order`` of X (dense 2-D, or CSR data with indptr/indices).

    W: (k, D) means; A: (k, D) averaging sums or empty; S: (k, D) diagonal variances or
    empty; L: (k, D, D) Cholesky factors of the precisions or empty. ``stats`` accumulates
    rounds, mistakes, updates, loss and squared loss.
    """
    D = W.shape[1]
    scores = np.empty(W.shape[0])
    n_work = D if cfg[CFG_REPRESENTATION] == FULL else 0
    xt = np.empty(n_work)
    z_a = np.empty(n_work)
    z_b = np.empty(n_work)
    g = np.empty(n_work)
    work = np.empty(n_work)
    for t in range(order.shape[0]):
        i = order[t]
        idx, val = row(X, indptr, indices, i)
        learn_row(idx, val, y[i], W, A, S, L, stats, cfg, hp, opts, scores, xt, z_a, z_b, g, work)


@jit
def run_one(idx, val, y_i, W, A, S, L, stats, cfg, hp, opts):
    """One round on a single sparse row (the ``learn_one`` fast path)."""
    D = W.shape[1]
    n_work = D if cfg[CFG_REPRESENTATION] == FULL else 0
    learn_row(
        idx,
        val,
        y_i,
        W,
        A,
        S,
        L,
        stats,
        cfg,
        hp,
        opts,
        np.empty(W.shape[0]),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
    )
