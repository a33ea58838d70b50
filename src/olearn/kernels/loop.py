"""The compiled online loop of kernel models, in the engine's shape::

    k = kernel(stored vectors, x)            # representation: one kernel column
    s = A·k + b·bias                         # scores of every class row
    m, rows, signs = task(y, s)              # reduction to a signed margin
    alpha, decay = rule(m, v or t, hp)       # paper; v = k(x, x) + bias² per moved row
    A ← decay·A; add x with ±alpha on the moved rows; b += ±alpha·bias
    if over budget: maintain                 # budget.py

Rule, kernel, task and maintenance are integer codes (``cfg``) and every hyper-parameter is
data, so the loop compiles once per input type and is served from the disk cache afterwards.
A user-supplied kernel is the exception: it reaches the loop as a function argument
(``run_user``), which numba cannot cache across processes — such a model compiles the loop
once per process (a few seconds).

Margin rules are the linear engine's own (``olearn.rules.perceptron`` and ``pa``), with
``k(x, x)`` in place of ``‖x‖²``; gradient rules (``norma``, ``pegasos``) return ``(alpha,
decay)`` from the round number t.
"""

import math

import numpy as np

from olearn._compile import jit
from olearn.kernels import budget as bm
from olearn.kernels import expansion as ex
from olearn.kernels.functions import USER, from_dot
from olearn.kernels.tasks import task_step
from olearn.representations.rows import row
from olearn.rules import RULES, norma, pa, pegasos, perceptron

# Gradient rules live beside the linear engine's margin rules, under their own codes.
NORMA_HINGE, NORMA_EPSILON, PEGASOS = 100, 101, 102
RULE_CODES = {
    "perceptron": RULES["perceptron"][0],
    "pa": RULES["pa"][0],
    "pa1": RULES["pa1"][0],
    "pa2": RULES["pa2"][0],
    "norma_hinge": NORMA_HINGE,
    "norma_epsilon": NORMA_EPSILON,
    "pegasos": PEGASOS,
}
_PERCEPTRON, _PA, _PA1, _PA2 = (RULES[name][0] for name in ("perceptron", "pa", "pa1", "pa2"))

CFG_RULE, CFG_KERNEL, CFG_TASK, CFG_MAINTENANCE, CFG_BUDGET = range(5)
N_CFG = 5
OPT_BIAS, OPT_EPSILON, OPT_JITTER = range(3)
N_OPTS = 3
# The first three slots are the linear engine's (estimators/_counters.py reads both).
STAT_ROUNDS, STAT_MISTAKES, STAT_UPDATES, STAT_LOSS, STAT_SQUARED_LOSS, STAT_MAINTENANCE = range(6)
N_STATS = 6
DONE, NEED_ROOM, NOT_FINITE = range(3)


@jit
def rule_step(code, m, v, t, hp):
    """``(alpha, decay)``: margin rules never decay."""
    if code == NORMA_HINGE:
        return norma.norma_hinge(m, t, hp)
    if code == NORMA_EPSILON:
        return norma.norma_epsilon(m, t, hp)
    if code == PEGASOS:
        return pegasos.pegasos(m, t, hp)
    if code == _PERCEPTRON:
        alpha, _ = perceptron.perceptron(m, v, hp)
    elif code == _PA:
        alpha, _ = pa.pa(m, v, hp)
    elif code == _PA1:
        alpha, _ = pa.pa1(m, v, hp)
    elif code == _PA2:
        alpha, _ = pa.pa2(m, v, hp)
    else:
        raise ValueError("unknown rule code")
    return alpha, 1.0


@jit(cache=False)
def kernel_column(
    idx, val, n, SV, pool_val, pool_idx, ptr, length, sq, kcode, kp, pcol, kcol, scatter, kfun
):
    """``kcol[i] = k(x_i, x)`` (and ``pcol[i] = x_i·x`` for built-in kernels); returns
    ``(‖x‖², k(x, x))``."""
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
def _learn(
    X,
    indptr,
    indices,
    y,
    order,
    start,
    SV,
    pool_val,
    pool_idx,
    ptr,
    length,
    A,
    b,
    sq,
    selfk,
    born,
    G,
    counts,
    stats,
    cfg,
    hp,
    kp,
    opts,
    kfun,
):
    cap = A.shape[0]
    k = A.shape[1]
    sparse = indices is not None
    rule = cfg[CFG_RULE]
    kcode = cfg[CFG_KERNEL]
    task = cfg[CFG_TASK]
    maintenance = cfg[CFG_MAINTENANCE]
    budget = cfg[CFG_BUDGET]
    bias = opts[OPT_BIAS]
    epsilon = opts[OPT_EPSILON]
    jitter = opts[OPT_JITTER]
    pcol = np.empty(cap)
    kcol = np.empty(cap)
    work = np.empty(cap)
    scores = np.empty(k)
    scatter = np.zeros(SV.shape[1] if sparse else 0)
    for t in range(start, order.shape[0]):
        i = order[t]
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
        nx, kxx = kernel_column(
            idx,
            val,
            n,
            SV,
            pool_val,
            pool_idx,
            ptr,
            length,
            sq,
            kcode,
            kp,
            pcol,
            kcol,
            scatter,
            kfun,
        )
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
        m, ra, sa, rb, sb, mistake, loss = task_step(task, y[i], scores, epsilon)
        v = kxx + bias * bias
        if rb >= 0:
            v += v
        stats[STAT_ROUNDS] += 1.0
        stats[STAT_MISTAKES] += mistake
        stats[STAT_LOSS] += loss
        stats[STAT_SQUARED_LOSS] += loss * loss
        t_round = stats[STAT_ROUNDS]
        alpha, decay = rule_step(rule, m, v, t_round, hp)
        if decay != 1.0:
            for j in range(n):
                for r in range(k):
                    A[j, r] *= decay
        if alpha == 0.0:
            continue
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
            maintain(
                maintenance,
                sparse,
                kp,
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
    return order.shape[0], DONE


@jit
def maintain(
    maintenance,
    sparse,
    kp,
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
):
    """One budget maintenance step (budget.py): B + 1 vectors back to B."""
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
def run(
    X,
    indptr,
    indices,
    y,
    order,
    start,
    SV,
    pool_val,
    pool_idx,
    ptr,
    length,
    A,
    b,
    sq,
    selfk,
    born,
    G,
    counts,
    stats,
    cfg,
    hp,
    kp,
    opts,
):
    """Rounds ``order[start:]`` on X (dense 2-D, or CSR data/indptr/indices) with a built-in
    kernel. Returns ``(t, status)``: ``DONE``; ``NEED_ROOM`` at round t when the caller must
    grow the slots or the pool and call again from t; ``NOT_FINITE`` when round t met a
    non-finite kernel value (nothing of round t was applied)."""
    return _learn(
        X,
        indptr,
        indices,
        y,
        order,
        start,
        SV,
        pool_val,
        pool_idx,
        ptr,
        length,
        A,
        b,
        sq,
        selfk,
        born,
        G,
        counts,
        stats,
        cfg,
        hp,
        kp,
        opts,
        None,
    )


@jit(cache=False)
def run_user(
    X, y, order, start, SV, A, b, sq, selfk, born, G, counts, stats, cfg, hp, kp, opts, kfun
):
    """``run`` with a user-supplied compiled kernel ``kfun(x, z)`` on dense rows (not cached
    across processes: numba cannot cache a function received as an argument)."""
    empty_f = np.empty(0)
    empty_i = np.empty(0, dtype=np.int64)
    return _learn(
        X,
        None,
        None,
        y,
        order,
        start,
        SV,
        empty_f,
        empty_i,
        empty_i,
        empty_i,
        A,
        b,
        sq,
        selfk,
        born,
        G,
        counts,
        stats,
        cfg,
        hp,
        kp,
        opts,
        kfun,
    )


@jit(cache=False)
def _decision(
    X, indptr, indices, SV, pool_val, pool_idx, ptr, length, A, b, sq, n, kcode, kp, bias, out, kfun
):
    k = A.shape[1]
    pcol = np.empty(n)
    kcol = np.empty(n)
    scatter = np.zeros(SV.shape[1] if indices is not None else 0)
    for i in range(out.shape[0]):
        idx, val = row(X, indptr, indices, i)
        kernel_column(
            idx,
            val,
            n,
            SV,
            pool_val,
            pool_idx,
            ptr,
            length,
            sq,
            kcode,
            kp,
            pcol,
            kcol,
            scatter,
            kfun,
        )
        for r in range(k):
            s = b[r] * bias
            for j in range(n):
                s += A[j, r] * kcol[j]
            out[i, r] = s


@jit(cache=False)
def decision_user(X, SV, A, b, sq, n, kp, bias, out, kfun):
    empty_f = np.empty(0)
    empty_i = np.empty(0, dtype=np.int64)
    _decision(
        X,
        None,
        None,
        SV,
        empty_f,
        empty_i,
        empty_i,
        empty_i,
        A,
        b,
        sq,
        n,
        USER,
        kp,
        bias,
        out,
        kfun,
    )
