"""The compiled online loop: the one place where rule, representation and task meet.

Per round it reads like the papers' pseudo-code::

    s = score(state, x)                      # representation: means of every row
    m, rows, signs = task(y, s)              # reduction to a signed margin
    v = confidence(state, x, rows)           # representation
    alpha, c = rule(m, v, hp)                # paper
    if alpha or c: apply(state, x, rows, signs * alpha, c)

and counts rounds, online mistakes, updates, the running loss and the incurred cost as it goes
(progressive validation for free). A model travels as two small tuples (``olearn._layout``):
its state ``(W, A, S, L, stats)`` and its configuration ``(cfg, hp, opts)``. The rule,
representation and task are integer codes of the seams' tables, reached through the switches
generated from them (``rules/_switch.py``, ``tasks/_switch.py``); the hyper-parameters a float
array: data, not compile-time specialisations, so the whole engine compiles once per input
type and is served from the disk cache afterwards (``_compile.py`` explains the choice).

The common case — a binary task on one weight row with a margin rule — takes the
representation's own pass (``linear``/``diagonal``/``full``.``binary_pass`` and
``dense_binary_pass``): the same round with the counters in locals, bit-identical.

Scoring costs O(k·nnz) for k rows; an update moves at most two rows, O(nnz) each (the
one-vs-rest comparison mode moves every row). Tasks whose label is a vector (multilabel
indicator, cost-sensitive cost row) read it from the auxiliary array ``aux`` (n, k).
Gradient rules (SGD) keep the weights as ``scale·W`` so that the L2 decay costs O(1).
"""

import numpy as np
from numba import types
from numba.extending import overload

from olearn._compile import jit
from olearn._layout import (  # noqa: F401  (the layout, re-exported for the estimators)
    CFG_AVERAGE,
    CFG_REPRESENTATION,
    CFG_RULE,
    CFG_TASK,
    N_CFG,
    N_OPTS,
    N_STATS,
    OPT_BIAS,
    OPT_EPSILON,
    OPT_FLOOR,
    OPT_JITTER,
    OPT_LEARNED_THRESHOLD,
    STAT_COST,
    STAT_LOSS,
    STAT_MISTAKES,
    STAT_ROUNDS,
    STAT_SCALE,
    STAT_SQUARED_LOSS,
    STAT_UPDATES,
    new_stats,
    options,
)
from olearn.representations import DIAGONAL, FULL, LINEAR, _journal, _pass, diagonal, full, linear
from olearn.representations._switch import dense_first_order_pass
from olearn.representations.fastpath import UNREADABLE, event_row
from olearn.representations.rows import row, sparse_row_problem, weight_of
from olearn.rules._switch import gradient_step, is_gradient, margin_step
from olearn.tasks import BINARY, MULTICLASS_OVR, multiclass, uniclass
from olearn.tasks._switch import plain_task_step, task_step

#: Below this the scale of the weights is folded into them (SGD).
_MIN_SCALE = 1e-9
#: ``learn_one_binary``'s code for an event whose step is not finite (it is not learned).
NOT_LEARNED = 3


# -- the representation switch ----------------------------------------------------------------


@jit(inline="always")
def _confidence(rep, state, r, idx, val, bias, xt, z):
    """``v`` of row r of the model: ‖x̃‖², Σ_j σ_j x̃_j² or x̃ᵀΣx̃ (z keeps L⁻¹x̃)."""
    W, A, S, L, stats = state
    if rep == LINEAR:
        return linear.sq_norm(idx, val, bias)
    if rep == DIAGONAL:
        return diagonal.confidence(S[r], idx, val, bias)
    if rep == FULL:
        return full.confidence(L[r], xt, z)
    raise ValueError("unknown representation code")


@jit(inline="always")
def _apply(rep, state, r, idx, val, bias, step, c, v, z, ws, average, floor):
    """Step row r of the model: ``μ ← μ + step·Σx̃``, the precision increment c."""
    W, A, S, L, stats = state
    scores, xt, z_a, z_b, g, work = ws
    if rep == LINEAR:
        linear.axpy(W[r], idx, val, bias, step)
        if average:
            linear.axpy(A[r], idx, val, bias, step * stats[STAT_ROUNDS])
    elif rep == DIAGONAL:
        diagonal.update(W[r], S[r], idx, val, bias, step, c, floor)
    elif rep == FULL:
        full.update(W[r], L[r], xt, z, g, work, v, step, c, floor)
    else:
        raise ValueError("unknown representation code")


# -- the general round ------------------------------------------------------------------------


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
def _learn_ovr(idx, val, y_i, state, config, ws, h):
    """One-vs-rest comparison mode: every row takes its own binary step (label +1 for the
    true class, −1 for the others). Returns 1 if a row's step was not applied (not finite)."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    scores, xt, z_a, z_b, g, work = ws
    rep = cfg[CFG_REPRESENTATION]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    true = int(y_i)
    updated = False
    refused = 0
    average = cfg[CFG_AVERAGE] != 0
    for r in range(W.shape[0]):
        y_r = 1.0 if r == true else -1.0
        v = _confidence(rep, state, r, idx, val, bias, xt, z_a)
        m = y_r * scores[r]
        alpha, c = margin_step(cfg[CFG_RULE], m, v, hp, h)
        if not _pass.applicable(alpha, c, v):  # (before the zero-step test: learn_row)
            refused = 1
            continue
        if alpha == 0.0 and c == 0.0:
            continue
        updated = updated or _pass.significant(alpha, c, v, m)
        _apply(rep, state, r, idx, val, bias, y_r * alpha, c, v, z_a, ws, average, floor)
    if updated:
        stats[STAT_UPDATES] += 1.0
    return refused


def _task_step(code, y, aux_row, scores, opts):
    """``task_step``, or ``plain_task_step`` when ``aux_row`` is None (resolved at compile
    time): the loops without auxiliary labels compile only the tasks that have none."""
    raise NotImplementedError("compiled only")


@overload(_task_step, inline="always")
def _task_step_overload(code, y, aux_row, scores, opts):
    if isinstance(aux_row, types.NoneType):

        def plain(code, y, aux_row, scores, opts):
            return plain_task_step(code, y, aux_row, scores, opts)

        return plain

    def any_task(code, y, aux_row, scores, opts):
        return task_step(code, y, aux_row, scores, opts)

    return any_task


@jit(inline="always")
def learn_row(idx, val, y_i, aux_row, state, config, ws, h):
    """One round on one row of importance weight ``h`` (> 0; the loops skip a row of weight
    0): score, reduce, step (the rule's weighted form), apply, count. ``aux_row``: the
    auxiliary label row, or None in the loops whose tasks have none. ``ws`` are the work
    arrays of ``_workspace``. Returns 1 if the row's step was not applied (it, or the confidence, is
    not finite: ``_pass.applicable``; for a gradient rule, its move of the margin), else 0."""
    W, A, S, L, stats = state
    cfg, hp, opts = config
    scores, xt, z_a, z_b, g, work = ws
    rule = cfg[CFG_RULE]
    rep = cfg[CFG_REPRESENTATION]
    task = cfg[CFG_TASK]
    bias = opts[OPT_BIAS]
    floor = opts[OPT_FLOOR]
    gradient = is_gradient(rule)
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
    m, ra, sa, rb, sb, mistake, loss, cost = _task_step(task, y_i, aux_row, scores, opts)
    stats[STAT_ROUNDS] += 1.0
    stats[STAT_MISTAKES] += mistake
    stats[STAT_LOSS] += loss
    stats[STAT_SQUARED_LOSS] += loss * loss
    stats[STAT_COST] += cost
    if gradient:
        alpha, decay = gradient_step(rule, m, stats[STAT_ROUNDS], hp, h)
        steps = alpha != 0.0 and ra >= 0
        # The step moves each weight by α·x_j and the margin by α·‖x̃‖², which bounds the
        # former: |α·x_j| ≤ max(|α|, |α|·‖x̃‖²). A row whose move overflows (values beyond
        # ≈ 1e154, or a diverging α) is not learned, nor decayed, as a margin rule's row
        # whose ‖x̃‖² overflows. (With α ≠ 0, α·‖x̃‖² is finite only if ‖x̃‖² is.)
        v = linear.sq_norm(idx, val, bias) if steps else 0.0
        if not _pass.applicable(alpha, decay, alpha * v):
            return 1
        if decay != 0.0:
            _decay(W, stats, decay)
        if steps:
            # (scaled weights: the step is α/scale)
            if _pass.significant(alpha, 0.0, v, m):
                stats[STAT_UPDATES] += 1.0
            step = alpha / stats[STAT_SCALE]
            linear.axpy(W[ra], idx, val, bias, sa * step)
            if rb >= 0:
                linear.axpy(W[rb], idx, val, bias, sb * step)
        return 0
    if rep == FULL:
        full.densify(idx, val, bias, xt)
    if task == MULTICLASS_OVR:
        return _learn_ovr(idx, val, y_i, state, config, ws, h)
    if ra < 0:  # the round poses no constraint
        return 0
    if fused:
        v_a = v_fused
    else:
        v_a = _confidence(rep, state, ra, idx, val, bias, xt, z_a)
    v_b = 0.0
    if rb >= 0:
        v_b = _confidence(rep, state, rb, idx, val, bias, xt, z_b)
    v = v_a + v_b
    alpha, c = margin_step(rule, m, v, hp, h)
    if not _pass.applicable(alpha, c, v):
        # before the zero-step test: a rule may turn an infinite v into a zero step (exact
        # CW's inf/inf), and the row is then not learned as surely (the passes count it)
        return 1
    if alpha == 0.0 and c == 0.0:
        return 0
    if _pass.significant(alpha, c, v, m):
        stats[STAT_UPDATES] += 1.0
    average = cfg[CFG_AVERAGE] != 0
    _apply(rep, state, ra, idx, val, bias, sa * alpha, c, v_a, z_a, ws, average, floor)
    if rb >= 0:
        _apply(rep, state, rb, idx, val, bias, sb * alpha, c, v_b, z_b, ws, average, floor)
    return 0


@jit
def _workspace(W, cfg):
    """The work arrays of ``learn_row``: ``(scores, xt, z_a, z_b, g, work)``."""
    n_work = W.shape[1] if cfg[CFG_REPRESENTATION] == FULL else 0
    return (
        np.empty(W.shape[0]),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
        np.empty(n_work),
    )


# -- the passes -------------------------------------------------------------------------------


@jit
def run_task(X, indptr, indices, y, aux, order, state, config, sample_weight):
    """One pass over the rows ``order`` of X (dense 2-D, or CSR data with indptr/indices).

    y: (n,) labels as the task reads them (±1, a target, or a row index); aux: (n, k)
    indicator or cost rows for the tasks that need them, else an empty (0, 0) array.
    ``state = (W, A, S, L, stats)``: W (k, D) means; A (k, D) averaging sums or empty; S
    (k, D) diagonal variances or empty; L (k, D, D) Cholesky factors of the precisions or
    empty; ``stats`` accumulates rounds, mistakes, updates, loss, squared loss and cost (and
    holds the SGD weight scale). ``config = (cfg, hp, opts)`` (``olearn._layout``).
    ``sample_weight``: (n,) importance weights ≥ 0, or None (every weight 1, compiled apart:
    ``rows.weight_of``); a row of weight 0 is skipped — not learned and not counted. Returns
    the number of rows not learned (their step or confidence is not finite).
    """
    ws = _workspace(state[0], config[0])
    no_aux = np.empty(0)
    has_aux = aux.shape[0] > 0
    refused = 0
    for t in range(order.shape[0]):
        i = order[t]
        idx, val = row(X, indptr, indices, i)
        h = weight_of(sample_weight, i)
        if h == 0.0:
            continue
        aux_row = aux[i] if has_aux else no_aux
        refused += learn_row(idx, val, y[i], aux_row, state, config, ws, h)
    return refused


@jit(inline="always")
def _is_binary_margin(W, cfg):
    """The representations' own passes apply: binary task, one row, a margin rule."""
    return cfg[CFG_TASK] == BINARY and W.shape[0] == 1 and not is_gradient(cfg[CFG_RULE])


@jit
def _binary_pass(X, indptr, indices, y, order, state, config, sample_weight, journal):
    """The representation's binary pass over rows of any kind, weighted or not; −1 if it
    has none (the full representation on CSR rows, or weighted). The first-order pass over
    CSR rows keeps ``journal`` (``representations._journal``; ``no_journal()`` keeps
    nothing)."""
    rep = config[0][CFG_REPRESENTATION]
    if rep == LINEAR:
        return linear.binary_pass(X, indptr, indices, y, order, state, config, sample_weight,
                                  journal)  # fmt: skip
    if rep == DIAGONAL:
        return diagonal.binary_pass(X, indptr, indices, y, order, state, config, sample_weight,
                                    journal)  # fmt: skip
    return -1


#: The dense binary pass of each representation, by code, for ``(X, y, order, state,
#: config)`` of a plain binary model (``_is_binary_margin``; −1 if the rule has none): what
#: ``run`` takes on dense rows, callable alone for rows of another dtype (float32) or
#: read-only, so that such rows compile only the pass they use (a few seconds on their
#: first use) rather than a copy of the whole loop (~40 s).
DENSE_PASSES = {
    LINEAR: dense_first_order_pass,
    DIAGONAL: diagonal.dense_binary_pass,
    FULL: full.dense_binary_pass,
}


def _own_pass(X, indptr, indices, y, order, state, config, sample_weight):
    """The representation's own binary pass: its count of rows not learned (a non-finite
    confidence or step), or −1 when it has none (the full representation on CSR or weighted
    rows). Which passes apply is resolved at compile time from the types, so a loop compiles
    only the passes it can take: unweighted dense rows the dense passes, other rows
    ``_binary_pass``."""
    raise NotImplementedError("compiled only")


@overload(_own_pass)
def _own_pass_overload(X, indptr, indices, y, order, state, config, sample_weight):
    # Only the state of a one-row model (C order, as ``_allocate`` makes it) takes the dense
    # passes: the feature-major state of multi-row models never reaches them at run time.
    dense_rows = isinstance(indices, types.NoneType) and state.types[0].layout == "C"
    if dense_rows and isinstance(sample_weight, types.NoneType):

        def dense(X, indptr, indices, y, order, state, config, sample_weight):
            rep = config[0][CFG_REPRESENTATION]
            if rep == LINEAR:
                return dense_first_order_pass(X, y, order, state, config)
            if rep == DIAGONAL:
                return diagonal.dense_binary_pass(X, y, order, state, config)
            if rep == FULL:
                return full.dense_binary_pass(X, y, order, state, config)
            return -1

        return dense

    def any_rows(X, indptr, indices, y, order, state, config, sample_weight):
        return _binary_pass(X, indptr, indices, y, order, state, config, sample_weight,
                            _journal.no_journal())  # fmt: skip

    return any_rows


@jit
def run(X, indptr, indices, y, order, state, config, sample_weight):
    """``run_task`` without auxiliary labels (binary, regression, multiclass): its own loop,
    so the common path does not select an auxiliary row per example. A binary task with a
    margin rule takes its representation's pass: unweighted (``sample_weight`` None) the
    dense one on dense rows, weighted the one for rows of any kind (the full representation
    then takes the general round). Returns the count of rows not learned: a
    non-finite confidence (a NaN or infinite value, or an overflow) or a non-finite step."""
    if _is_binary_margin(state[0], config[0]):
        nonfinite = _own_pass(X, indptr, indices, y, order, state, config, sample_weight)
        if nonfinite >= 0:
            return nonfinite
    ws = _workspace(state[0], config[0])
    refused = 0
    for t in range(order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:
            continue
        idx, val = row(X, indptr, indices, i)
        refused += learn_row(idx, val, y[i], None, state, config, ws, h)
    return refused


def run_pass(
    X, indptr, indices, y, order, state, config, sample_weight, binary_margin,
    journal=_journal.NO_JOURNAL,
) -> int:  # fmt: skip
    """``run``, called from Python. A plain binary model (``binary_margin``: the caller's
    copy of ``_is_binary_margin``) takes its representation's own pass directly — ``run``'s
    first step — so that such a model's first ``fit`` compiles that pass alone (≈ 4 s of
    CPU for PA-I on dense rows) instead of the whole loop (≈ 21 s), and a model loaded from
    the disk cache loads less machine code. ``run`` when there is no such pass (−1: the full
    representation on CSR or weighted rows) and for every other model. The count of rows
    not learned, as ``run``'s. The first-order pass over CSR rows keeps ``journal`` (the
    caller passes one that keeps anything only for a plain first-order model)."""
    if binary_margin and state[0].flags.c_contiguous:  # (one row: C order, ``_own_pass``)
        if indptr is None and sample_weight is None:
            rep = int(config[0][CFG_REPRESENTATION])
            not_learned = DENSE_PASSES[rep](X, y, order, state, config)
        else:
            not_learned = _binary_pass(X, indptr, indices, y, order, state, config, sample_weight,
                                       journal)  # fmt: skip
        if not_learned >= 0:
            return not_learned
    return run(X, indptr, indices, y, order, state, config, sample_weight)


@jit
def run_one(idx, val, y_i, h, state, config):
    """One round on a single sparse row of importance weight ``h`` > 0 (the ``learn_one``
    general path); 1 if it was not learned (a non-finite step)."""
    ws = _workspace(state[0], config[0])
    return learn_row(idx, val, y_i, None, state, config, ws, h)


@jit(nogil=False)
def learn_one_binary(idx, val, y_i, n_features, state, config):
    """``learn_one``'s common case in one compiled call: check the event (the codes of
    ``rows.sparse_row_problem``; nothing is learned from a bad event) and, when its
    representation has a binary pass (``_binary_pass``), learn it as a one-row CSR pass.
    Returns the problem code, or −1 when the configuration needs the general round
    (``run_one``) instead.

    The event is ``(idx, val)`` arrays or a dict's ``(id(x), len(x))``, read in place
    (``fastpath.event_row``; ``fastpath.UNREADABLE`` if it cannot be, or if the arrays
    repeat an index: the caller sums it first), so this function holds the GIL (for a call
    this short, releasing and re-taking it would cost more).
    """
    idx, val, readable = event_row(idx, val)
    if not readable:
        return UNREADABLE
    problem = sparse_row_problem(idx, val, n_features)
    if problem != 0:
        return problem
    if not _is_binary_margin(state[0], config[0]) or config[0][CFG_REPRESENTATION] == FULL:
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
    # A journal of one entry keeps nothing: the label's array stands for one (an allocation
    # would cost a tenth of the call).
    if _binary_pass(val, indptr, idx, y, order, state, config, None, y) > 0:
        return NOT_LEARNED
    return 0


@jit
def run_one_task(idx, val, y_i, aux_row, h, state, config):
    """``run_one`` with an auxiliary label row (multilabel indicator or cost row)."""
    ws = _workspace(state[0], config[0])
    return learn_row(idx, val, y_i, aux_row, state, config, ws, h)


@jit
def run_joint(X, indptr, indices, n_labels, y, order, state, config, sample_weight):
    """Single-prototype multiclass (Crammer et al. 2006, §7): row ``i·k + c`` of X is
    Φ(x_i, c). Each round scores the k rows, finds the best wrong label s, and takes a
    binary step (label +1) on the difference Φ(x, y) − Φ(x, s): m = w·Φ(x, y) − w·Φ(x, s)
    and v = ‖Φ(x, y) − Φ(x, s)‖² (or its Σ-norm) — the multiclass reduction on one w.
    ``sample_weight`` as in ``run_task`` (one weight per example i).
    """
    k = n_labels
    W = state[0]
    ws = _workspace(W, config[0])
    label_scores = np.empty(k)
    D = W.shape[1]
    bias = config[2][OPT_BIAS]
    diff_val = np.empty(D)
    diff_idx = np.empty(D, dtype=np.int64)
    refused = 0
    for t in range(order.shape[0]):
        i = order[t]
        h = weight_of(sample_weight, i)
        if h == 0.0:
            continue
        for c in range(k):
            idx, val = row(X, indptr, indices, i * k + c)
            label_scores[c] = linear.dot(W[0], idx, val, bias)
        r = int(y[i])
        s = multiclass.best_other(label_scores, r)
        idx_r, val_r = row(X, indptr, indices, i * k + r)
        idx_s, val_s = row(X, indptr, indices, i * k + s)
        idx, val = difference(idx_r, val_r, idx_s, val_s, diff_idx, diff_val)
        refused += learn_row(idx, val, 1.0, None, state, config, ws, h)
    return refused


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
def run_uniclass(Y, order, w, stats, rule, hp, epsilon, sample_weight):
    """Uniclass PA (Crammer et al. 2006, §6) over the target vectors ``Y[order]``: no input,
    one centre ``w`` (with the extra radius coordinate when it is learned, ``tasks/uniclass``).
    The rule sees ``m = 1 − ℓ`` and ``v = 1``; τ is its step (its weighted form for a target
    of importance weight h; weight 0 skips the target, as in ``run_task``)."""
    for t in range(order.shape[0]):
        h = weight_of(sample_weight, order[t])
        if h == 0.0:
            continue
        y = Y[order[t]]
        m, dist = uniclass.uniclass(w, y, epsilon)
        loss = 1.0 - m
        stats[STAT_ROUNDS] += 1.0
        stats[STAT_MISTAKES] += not loss <= 0.0  # a NaN loss counts
        stats[STAT_LOSS] += loss
        stats[STAT_SQUARED_LOSS] += loss * loss
        stats[STAT_COST] += dist
        if loss <= 0.0:
            continue
        tau, _ = margin_step(rule, m, 1.0, hp, h)
        if tau != 0.0 and _pass.applicable(tau, 0.0, dist):
            if _pass.significant(tau, 0.0, 1.0, m):
                stats[STAT_UPDATES] += 1.0
            uniclass.step(w, y, tau, dist)
