"""The compiled online loop of kernel models, in the engine's shape::

    k = kernel(stored vectors, x)            # representation: one kernel column
    s = A·k + b·bias                         # scores of every class row
    m, rows, signs = task(y, s)              # reduction to a signed margin
    alpha, decay = rule(m, v or t, hp)       # paper; v = k(x, x) + bias² per moved row
    A ← (1 − decay)·A; add x with ±alpha on the moved rows; b += ±alpha·bias
    if over budget: maintain                 # budget.py

Rule, kernel, task and maintenance are integer codes (``cfg``) and every hyper-parameter is
data, so the loop compiles once per input type and is served from the disk cache afterwards.
A user-supplied kernel is the exception: it reaches the loop as a function argument
(``run_user``), which numba cannot cache across processes — such a model compiles the loop
once per process (a few seconds).

The seams are the linear engine's: rules and tasks are reached through the switches generated
from their tables (``olearn.rules.RULES``, ``olearn.tasks.TASKS``) by their codes, restricted
to what a kernel expansion runs (``olearn.rules.KERNEL_RULES``, the tasks without an
auxiliary label row). Margin rules (Perceptron, PA) take ``k(x, x)`` in place of ``‖x‖²``;
gradient rules (NORMA, Pegasos) return ``(alpha, decay)`` from the round number t. State and
configuration travel as two tuples (``run``).
"""

import math

import numpy as np

from olearn._compile import jit
from olearn._layout import OPT_BIAS, OPT_JITTER
from olearn.kernels import budget as bm
from olearn.kernels import expansion as ex
from olearn.kernels.functions import USER, from_dot
from olearn.representations import _pass
from olearn.representations.rows import row, weight_of
from olearn.rules._switch import kernel_step
from olearn.tasks._switch import plain_task_step

CFG_RULE, CFG_KERNEL, CFG_TASK, CFG_MAINTENANCE, CFG_BUDGET = range(5)
N_CFG = 5
# The first five slots are the linear engine's (``olearn._layout``; estimators/_counters.py
# reads both).
STAT_ROUNDS, STAT_MISTAKES, STAT_UPDATES, STAT_LOSS, STAT_SQUARED_LOSS, STAT_MAINTENANCE = range(6)
N_STATS = 6
DONE, NEED_ROOM, NOT_FINITE = range(3)
#: The loop's state tuple, as the estimators keep it (attribute names).
STATE = ("_SV", "_pool_val", "_pool_idx", "_ptr", "_length", "_A", "_b", "_sq", "_selfk",
         "_born", "_G", "_counts", "stats_")  # fmt: skip


@jit(cache=False)
def kernel_column(idx, val, n, state, kcode, kp, pcol, kcol, scatter, kfun):
    """``kcol[i] = k(x_i, x)`` over the first n stored vectors of ``state`` (and ``pcol[i] =
    x_i·x`` for built-in kernels); returns ``(‖x‖², k(x, x))``."""
    SV, pool_val, pool_idx, ptr, length, A, b, sq, selfk, born, G, counts, stats = state
    nx = ex.sq_norm(val)
    if kfun is not None:
        for i in range(n):
            kcol[i] = kfun(SV[i], val)
        return nx, kfun(val, val)
    ex.dots(idx, val, SV, pool_val, pool_idx, ptr, length, n, scatter, pcol)
    for i in range(n):
        kcol[i] = from_dot(kcode, pcol[i], nx, sq[i], kp)
    return nx, from_dot(kcode, nx, nx, nx, kp)


@jit(cache=False)
def _learn(X, indptr, indices, y, order, start, state, config, kfun, sample_weight, scatter):
    """Rounds ``order[start:]``: see ``run``."""
    SV, pool_val, pool_idx, ptr, length, A, b, sq, selfk, born, G, counts, stats = state
    cfg, hp, kp, opts = config
    cap = A.shape[0]
    k = A.shape[1]
    sparse = indices is not None
    rule = cfg[CFG_RULE]
    kcode = cfg[CFG_KERNEL]
    task = cfg[CFG_TASK]
    maintenance = cfg[CFG_MAINTENANCE]
    budget = cfg[CFG_BUDGET]
    bias = opts[OPT_BIAS]
    jitter = opts[OPT_JITTER]
    pcol = np.empty(cap)
    kcol = np.empty(cap)
    work = np.empty(cap)
    scores = np.empty(k)
    if sparse and scatter.shape[0] < SV.shape[1]:
        scatter = np.zeros(SV.shape[1])
    for t in range(start, order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:  # not learned, not counted
            continue
        idx, val = row(X, indptr, indices, i)
        n = counts[ex.N_SV]
        # Room for this round: a free slot, and pool space for x and a merged vector.
        if n >= cap:
            return t, NEED_ROOM
        if sparse:
            longest = max(counts[ex.MAX_LENGTH], val.shape[0])
            need = val.shape[0] + 2 * longest
            if counts[ex.POOL_USED] + need > pool_val.shape[0]:
                ex.compact(pool_val, pool_idx, ptr, length, n, counts)
                if counts[ex.POOL_USED] + need > pool_val.shape[0]:
                    return t, NEED_ROOM
        nx, kxx = kernel_column(idx, val, n, state, kcode, kp, pcol, kcol, scatter, kfun)
        check = kxx
        for j in range(n):
            check += kcol[j]
        if not math.isfinite(check):
            return t, NOT_FINITE
        for r in range(k):
            scores[r] = b[r] * bias
        for j in range(n):
            for r in range(k):
                scores[r] += A[j, r] * kcol[j]
        m, ra, sa, rb, sb, mistake, loss, _ = plain_task_step(task, y[i], None, scores, opts)
        v = kxx + bias * bias
        if rb >= 0:
            v += v
        stats[STAT_ROUNDS] += 1.0
        stats[STAT_MISTAKES] += mistake
        stats[STAT_LOSS] += loss
        stats[STAT_SQUARED_LOSS] += loss * loss
        t_round = stats[STAT_ROUNDS]
        alpha, decay = kernel_step(rule, m, v, t_round, hp, h)
        if decay != 0.0:  # every old coefficient shrinks: α_i ← (1 − decay)·α_i
            factor = 1.0 - decay
            for j in range(n):
                for r in range(k):
                    A[j, r] *= factor
        if alpha == 0.0:
            continue
        # (the kernel column was checked finite above, so the step is finite)
        if _pass.significant(alpha, 0.0, v, m):
            stats[STAT_UPDATES] += 1.0
        # x enters slot n.
        ex.store(idx, val, n, SV, pool_val, pool_idx, ptr, length, counts)
        A[n, :] = 0.0
        A[n, ra] = sa * alpha
        b[ra] += sa * alpha * bias
        if rb >= 0:
            A[n, rb] = sb * alpha
            b[rb] += sb * alpha * bias
        sq[n] = nx
        selfk[n] = kxx
        born[n] = t_round
        if budget > 0 and maintenance == bm.PROJECT:
            s = bm.inverse_add(G, kcol, kxx + jitter, n, work)
            bm.inverse_grow(G, n, work, max(s, jitter))
        elif budget > 0 and maintenance == bm.MERGE:
            for j in range(n):
                G[n, j] = pcol[j]
                G[j, n] = pcol[j]
            G[n, n] = nx
        counts[ex.N_SV] = n + 1
        if budget > 0 and n + 1 > budget:
            stats[STAT_MAINTENANCE] += 1.0
            maintain(maintenance, sparse, kp, state, work)
    return order.shape[0], DONE


@jit
def maintain(maintenance, sparse, kp, state, work):
    """One budget maintenance step (budget.py): B + 1 vectors back to B."""
    SV, pool_val, pool_idx, ptr, length, A, b, sq, selfk, born, G, counts, stats = state
    n = counts[ex.N_SV]
    if maintenance == bm.OLDEST:
        r = bm.oldest(born, n)
        ex.swap_remove(r, sparse, SV, ptr, length, A, sq, selfk, born, G, counts)
    elif maintenance == bm.PROJECT:
        r = bm.smallest(A, n)
        bm.project(r, A, G, n)
        ex.swap_remove(r, sparse, SV, ptr, length, A, sq, selfk, born, G, counts)
    elif maintenance == bm.MERGE:
        m = bm.smallest(A, n)
        j, h = bm.merge_partner(m, A, G, n, kp[0])
        if j < 0:
            ex.swap_remove(m, sparse, SV, ptr, length, A, sq, selfk, born, G, counts)
        else:
            bm.merge(
                m,
                j,
                h,
                kp[0],
                sparse,
                SV,
                pool_val,
                pool_idx,
                ptr,
                length,
                A,
                sq,
                selfk,
                born,
                G,
                counts,
                work,
            )
    else:
        r = bm.smallest(A, n)
        ex.swap_remove(r, sparse, SV, ptr, length, A, sq, selfk, born, G, counts)


@jit
def run(X, indptr, indices, y, order, start, state, config, sample_weight, scatter):
    """Rounds ``order[start:]`` on X (dense 2-D, or CSR data/indptr/indices) with a built-in
    kernel. ``state`` is the tuple of :data:`STATE`: the support vectors (dense rows, or the
    sparse pool with its pointers and lengths), the coefficients A (slots × classes), the
    intercepts b, the squared norms and self-kernels, the birth rounds, the Gram (or inverse
    Gram) matrix of budget maintenance, the counts and the counters; ``config = (cfg, hp,
    kp, opts)``: codes, the rule's hyper-parameters, the kernel's and the options
    (``olearn._layout``). Returns ``(t, status)``: ``DONE``; ``NEED_ROOM`` at round t when
    the caller must grow the slots or the pool and call again from t; ``NOT_FINITE`` when
    round t met a non-finite kernel value (nothing of round t was applied).
    ``sample_weight``: (n,) importance weights or None (all 1); each rule takes its weighted
    form (``olearn.rules``) and a row of weight 0 is skipped (not learned, not counted).
    ``scatter``: for sparse rows, a float64 buffer of zeros at least as wide as the rows, in
    which each round's x is scattered and cleared again (``expansion.dots``): kept by the
    caller from call to call, since zeroing one per call costs O(width) — 2 MiB at the
    event API's default 2**18 features, more than a one-row round; an empty one makes the
    loop allocate it."""
    return _learn(X, indptr, indices, y, order, start, state, config, None, sample_weight,
                  scatter)  # fmt: skip


@jit(cache=False)
def run_user(X, y, order, start, state, config, kfun, sample_weight):
    """``run`` with a user-supplied compiled kernel ``kfun(x, z)`` on dense rows (not cached
    across processes: numba cannot cache a function received as an argument)."""
    return _learn(X, None, None, y, order, start, state, config, kfun, sample_weight,
                  np.zeros(0))  # fmt: skip


@jit(cache=False)
def _decision(X, indptr, indices, state, n, kcode, kp, bias, out, kfun):
    SV, pool_val, pool_idx, ptr, length, A, b, sq, selfk, born, G, counts, stats = state
    k = A.shape[1]
    pcol = np.empty(n)
    kcol = np.empty(n)
    scatter = np.zeros(SV.shape[1] if indices is not None else 0)
    for i in range(out.shape[0]):
        idx, val = row(X, indptr, indices, i)
        kernel_column(idx, val, n, state, kcode, kp, pcol, kcol, scatter, kfun)
        for r in range(k):
            s = b[r] * bias
            for j in range(n):
                s += A[j, r] * kcol[j]
            out[i, r] = s


@jit(cache=False)
def decision_user(X, state, n, kp, bias, out, kfun):
    """Scores of the rows of a dense X under a user-supplied kernel."""
    _decision(X, None, None, state, n, USER, kp, bias, out, kfun)
