"""Compiled training: feature differences, Hildreth's solver, and one pass over a corpus.

Per sentence (x, y) the pass does what seed 003 §8–9 and ALGORITHMS.md (structured) write::

    E = emission scores under w                   # decode.emission_scores
    ŷ = Viterbi(E)                                # the prediction (counted for progressive
                                                  # validation)
    ỹ = Viterbi(E + Hamming(y, ·))  if max-loss   # loss-augmented decoding, eq. 51
    Δ = Φ(x, y) − Φ(x, ỹ),  ρ = cost(y, ỹ)
    m = 1 − ρ + w·Δ   (so that 1 − m = ℓ = w·Φ(x, ỹ) − w·Φ(x, y) + ρ, eq. 48)
    α, c = rule(m, ‖Δ‖², hp)                      # olearn.rules, unchanged
    w ← w + α Δ                                   # eq. 49–50

The Perceptron gets the raw margin ``m = w·Δ`` (it updates when ``m ≤ 0``, i.e. on a mistake).
With ``k_best > 1`` the k best outputs each add one constraint ``w'·Δ_j ≥ ρ_j`` and the update
``w' = w + Σ_j α_j Δ_j`` solves ``min ½‖w' − w‖²`` exactly by Hildreth's method (McDonald,
Crammer, Pereira 2005, eq. 55 of seed 003).

Cost: ``ρ`` is the Hamming distance (``COST_HAMMING``) or its square root (``COST_SQRT``, the
form of seed 003 eq. 46–51, whose footnote says the root serves only the loss bound). Only the
Hamming cost decomposes over positions, so max-loss decoding requires it.
"""

import math

import numpy as np

from olearn._compile import jit
from olearn._layout import OPT_FLOOR
from olearn.representations import _pass, diagonal, linear
from olearn.rules import RULES, SEQUENCE_RULES  # noqa: F401  (SEQUENCE_RULES: re-exported)
from olearn.rules._switch import rule_dual, sequence_step
from olearn.structured.decode import (
    add_hamming,
    emission_scores,
    kbest_viterbi,
    viterbi,
)

_PERCEPTRON = RULES["perceptron"].code
COST_HAMMING, COST_SQRT = 0, 1
# cfg layout
CFG_RULE, CFG_K, CFG_MAX_LOSS, CFG_COST, CFG_AVERAGE, CFG_HILDRETH, CFG_LABELS, CFG_BIAS_ROW = (
    range(8)
)
N_CFG = 8
# stats layout
(
    STAT_ROUNDS,
    STAT_SENTENCE_MISTAKES,
    STAT_UPDATES,
    STAT_LOSS,
    STAT_TOKENS,
    STAT_TOKEN_MISTAKES,
) = range(6)
N_STATS = 6

HILDRETH_MAX_SWEEPS = 1000
HILDRETH_TOLERANCE = 1e-12


@jit
def layout(n_weights, n_labels):
    """Offsets of the start, transition and end blocks of the flat weight vector."""
    L = n_labels
    start = n_weights - L - L * L - L
    return start, start + L, start + L + L * L


@jit
def _touch(j, val, dense, mark, touched, nt):
    if mark[j] == 0:
        mark[j] = 1
        touched[nt] = j
        nt += 1
    dense[j] += val
    return nt


@jit
def difference(
    feats,
    tok_ptr,
    first,
    gold,
    other,
    n_labels,
    bias_row,
    n_weights,
    dense,
    mark,
    touched,
    out_idx,
    out_val,
):
    """Sparse ``Φ(x, gold) − Φ(x, other)``: writes indices/values, returns their number.

    ``dense`` (zeros) and ``mark`` (zeros) are scratch arrays of the weight vector's size and
    are left zeroed; ``touched`` is scratch of the output's size. Coordinates shared by both
    sequences cancel exactly (repeated features, the same transition twice).
    """
    L = n_labels
    s_off, t_off, e_off = layout(n_weights, L)
    n = gold.shape[0]
    nt = np.int64(0)  # (not the literal 0: _touch compiles once, for int64)
    for i in range(n):
        a = gold[i]
        b = other[i]
        if a != b:
            nt = _touch(bias_row * L + a, 1.0, dense, mark, touched, nt)
            nt = _touch(bias_row * L + b, -1.0, dense, mark, touched, nt)
            t = first + i
            for p in range(tok_ptr[t], tok_ptr[t + 1]):
                base = feats[p] * L
                nt = _touch(base + a, 1.0, dense, mark, touched, nt)
                nt = _touch(base + b, -1.0, dense, mark, touched, nt)
    if gold[0] != other[0]:
        nt = _touch(s_off + gold[0], 1.0, dense, mark, touched, nt)
        nt = _touch(s_off + other[0], -1.0, dense, mark, touched, nt)
    for i in range(1, n):
        ga = gold[i - 1] * L + gold[i]
        ob = other[i - 1] * L + other[i]
        if ga != ob:
            nt = _touch(t_off + ga, 1.0, dense, mark, touched, nt)
            nt = _touch(t_off + ob, -1.0, dense, mark, touched, nt)
    if gold[n - 1] != other[n - 1]:
        nt = _touch(e_off + gold[n - 1], 1.0, dense, mark, touched, nt)
        nt = _touch(e_off + other[n - 1], -1.0, dense, mark, touched, nt)
    for q in range(nt):
        j = touched[q]
        out_idx[q] = j
        out_val[q] = dense[j]
        dense[j] = 0.0
        mark[j] = 0
    return nt


@jit
def hildreth(G, b, box, ridge, alpha):
    """Hildreth's method for ``min ½‖Σ_j α_j Δ_j‖² − Σ_j α_j b_j`` over ``0 ≤ α_j ≤ box``.

    This is the dual of ``min ½‖w' − w‖² s.t. w'·Δ_j ≥ ρ_j`` with ``G_ij = Δ_i·Δ_j`` and
    ``b_j = ρ_j − w·Δ_j`` (the loss of constraint j). Cyclic coordinate ascent: each step
    solves the dual exactly in one coordinate and clips it to the box (Censor & Zenios 1997,
    Algorithm 6.5.2; McDonald et al. 2005). ``ridge`` adds ``ridge·I`` to G (PA-II's
    ``1/(2C)``); ``box = inf`` for hard constraints. With one constraint this is PA's closed
    form ``α = clip(b / G, 0, box)``. Writes ``alpha``; returns the sweeps used.
    """
    k = b.shape[0]
    for j in range(k):
        alpha[j] = 0.0
    for sweep in range(HILDRETH_MAX_SWEEPS):
        change = 0.0
        for j in range(k):
            g = G[j, j] + ridge
            if g <= 0.0:
                continue
            # gradient of the dual in coordinate j: b_j − Σ_i G_ji α_i − ridge α_j
            grad = b[j] - ridge * alpha[j]
            for i in range(k):
                grad -= G[j, i] * alpha[i]
            new = alpha[j] + grad / g
            if new < 0.0:
                new = 0.0
            elif new > box:
                new = box
            change = max(change, abs(new - alpha[j]))
            alpha[j] = new
        if change <= HILDRETH_TOLERANCE:
            return sweep + 1
    return HILDRETH_MAX_SWEEPS


@jit
def _cost(gold, other, kind):
    h = 0.0
    for i in range(gold.shape[0]):
        if gold[i] != other[i]:
            h += 1.0
    if kind == COST_SQRT:
        return math.sqrt(h)
    return h


@jit
def _apply(w, a, s, idx, val, step, c, rounds, average, floor):
    """``w ← w + step·ΣΔ`` with the representation's update: ``linear.axpy`` (Σ = I) or
    ``diagonal.update`` (AROW's variances, floor included), and the lazy averaging sums of
    ``linear.averaged`` (``a ← a + rounds·(change of w)``)."""
    if s.shape[0] > 0:
        if average:
            diagonal.update_averaged(w, s, a, idx, val, step, c, floor, rounds)
        else:
            diagonal.update(w, s, idx, val, 0.0, step, c, floor)
    else:
        linear.axpy(w, idx, val, 0.0, step)
        if average:
            linear.axpy(a, idx, val, 0.0, step * rounds)


@jit
def learn_sentence(feats, tok_ptr, first, gold, state, config, ws):
    """One round on one sentence (tokens ``first … first+n−1``, gold labels ``gold``).

    ``state = (w, a, s, stats)``: the flat weights, the averaging sums (or empty), AROW's
    variances (or empty: Σ = I) and the counters; ``config = (cfg, hp, opts, allowed)``: the
    codes, the rule's hyper-parameters, the options (the variance floor) and the labels the
    decoder may emit; ``ws`` the work arrays of ``train_pass``."""
    w, a, s, stats = state
    cfg, hp, opts, allowed = config
    dense, mark, E, E_aug, pred, worst, kbuf, kscores, touched, d_idx, d_val, d_nnz = ws
    L = cfg[CFG_LABELS]
    bias_row = cfg[CFG_BIAS_ROW]
    rule = cfg[CFG_RULE]
    k = cfg[CFG_K]
    max_loss = cfg[CFG_MAX_LOSS] != 0
    cost_kind = cfg[CFG_COST]
    floor = opts[OPT_FLOOR]
    has_variances = s.shape[0] > 0
    n = gold.shape[0]
    P = w.shape[0]
    s_off, t_off, e_off = layout(P, L)
    start = w[s_off:t_off]
    trans = w[t_off:e_off].reshape((L, L))
    end = w[e_off:]

    emission_scores(w, feats, tok_ptr, first, n, L, bias_row, allowed, E)
    viterbi(E, start, trans, end, pred)
    wrong = 0
    for i in range(n):
        if pred[i] != gold[i]:
            wrong += 1
    stats[STAT_ROUNDS] += 1.0
    stats[STAT_TOKENS] += n
    stats[STAT_TOKEN_MISTAKES] += wrong
    if wrong > 0:
        stats[STAT_SENTENCE_MISTAKES] += 1.0
    rounds = stats[STAT_ROUNDS]
    average = cfg[CFG_AVERAGE] != 0

    if max_loss:
        add_hamming(E, gold, E_aug)
        scores = E_aug
    else:
        scores = E

    if cfg[CFG_HILDRETH] == 0:
        if max_loss:
            viterbi(scores, start, trans, end, worst)
        else:
            worst[:] = pred
        nnz = difference(
            feats,
            tok_ptr,
            first,
            gold,
            worst,
            L,
            bias_row,
            P,
            dense,
            mark,
            touched,
            d_idx[0],
            d_val[0],
        )
        if nnz == 0:
            return
        wd = 0.0
        v = 0.0
        for q in range(nnz):
            j = d_idx[0, q]
            wd += w[j] * d_val[0, q]
            if has_variances:
                v += s[j] * d_val[0, q] * d_val[0, q]
            else:
                v += d_val[0, q] * d_val[0, q]
        rho = _cost(gold, worst, cost_kind)
        if rule == _PERCEPTRON:
            m = wd
        else:
            m = 1.0 - rho + wd
        loss = rho - wd
        if loss > 0.0:
            stats[STAT_LOSS] += loss
        alpha, c = sequence_step(rule, m, v, hp, 1.0)
        if alpha == 0.0 and c == 0.0 or not _pass.applicable(alpha, c, v):
            return
        if _pass.significant(alpha, c, v, m):
            stats[STAT_UPDATES] += 1.0
        _apply(w, a, s, d_idx[0, :nnz], d_val[0, :nnz], alpha, c, rounds, average, floor)
        return

    # k-best MIRA: one constraint per k-best output, solved jointly by Hildreth's method.
    found = kbest_viterbi(scores, start, trans, end, k, kbuf, kscores)
    b = np.zeros(found)
    G = np.zeros((found, found))
    alpha = np.zeros(found)
    for j in range(found):
        d_nnz[j] = difference(
            feats,
            tok_ptr,
            first,
            gold,
            kbuf[j, :n],
            L,
            bias_row,
            P,
            dense,
            mark,
            touched,
            d_idx[j],
            d_val[j],
        )
        wd = 0.0
        for q in range(d_nnz[j]):
            wd += w[d_idx[j, q]] * d_val[j, q]
        b[j] = _cost(gold, kbuf[j, :n], cost_kind) - wd
    for j in range(found):
        # G[j, :] by scattering Δ_j into the dense scratch
        for q in range(d_nnz[j]):
            dense[d_idx[j, q]] += d_val[j, q]
        for i in range(found):
            g = 0.0
            for q in range(d_nnz[i]):
                g += dense[d_idx[i, q]] * d_val[i, q]
            G[j, i] = g
        for q in range(d_nnz[j]):
            dense[d_idx[j, q]] = 0.0
    box, ridge = rule_dual(rule, hp)
    if found > 0 and b[0] > 0.0:
        stats[STAT_LOSS] += b[0]
    hildreth(G, b, box, ridge, alpha)
    updated = False
    for j in range(found):
        if alpha[j] != 0.0 and d_nnz[j] > 0 and _pass.applicable(alpha[j], 0.0, G[j, j]):
            updated = updated or _pass.significant(alpha[j], 0.0, G[j, j], 1.0 - b[j])
            nnz = d_nnz[j]
            _apply(w, a, s, d_idx[j, :nnz], d_val[j, :nnz], alpha[j], 0.0, rounds, average, floor)
    if updated:
        stats[STAT_UPDATES] += 1.0


@jit
def train_pass(feats, tok_ptr, sent_ptr, labels, order, state, config):
    """One pass over the sentences ``order`` of an encoded corpus.

    ``feats`` (int32/int64) holds every token's hashed feature rows, ``tok_ptr`` (n_tokens+1)
    the token offsets into ``feats``, ``sent_ptr`` (n_sentences+1) the sentence offsets into
    the tokens, ``labels`` (n_tokens) the gold label codes. ``state`` and ``config`` as in
    ``learn_sentence``; ``stats`` accumulates rounds, sentence mistakes, updates, loss,
    tokens and token mistakes.
    """
    w = state[0]
    cfg = config[0]
    L = cfg[CFG_LABELS]
    k = max(cfg[CFG_K], 1)
    P = w.shape[0]
    dense = np.zeros(P)
    mark = np.zeros(P, dtype=np.uint8)
    n_max = 1
    f_max = 1
    for q in range(sent_ptr.shape[0] - 1):
        lo = sent_ptr[q]
        hi = sent_ptr[q + 1]
        n_max = max(n_max, hi - lo)
        f_max = max(f_max, tok_ptr[hi] - tok_ptr[lo])
    width = 2 * (f_max + 3 * n_max + 2)
    E = np.empty((n_max, L))
    E_aug = np.empty((n_max, L))
    pred = np.empty(n_max, dtype=np.int32)
    worst = np.empty(n_max, dtype=np.int32)
    kbuf = np.zeros((k, n_max), dtype=np.int32)
    kscores = np.empty(k)
    touched = np.empty(width, dtype=np.int64)
    d_idx = np.empty((k, width), dtype=np.int64)
    d_val = np.empty((k, width))
    d_nnz = np.zeros(k, dtype=np.int64)
    for t in range(order.shape[0]):
        q = order[t]
        lo = sent_ptr[q]
        hi = sent_ptr[q + 1]
        n = hi - lo
        if n == 0:
            continue
        ws = (dense, mark, E[:n], E_aug[:n], pred[:n], worst[:n], kbuf, kscores,
              touched, d_idx, d_val, d_nnz)  # fmt: skip
        learn_sentence(feats, tok_ptr, lo, labels[lo:hi], state, config, ws)


@jit
def predict_corpus(feats, tok_ptr, sent_ptr, w, allowed, n_labels, bias_row, out):
    """Viterbi for every sentence; writes label codes to ``out`` (n_tokens)."""
    L = n_labels
    P = w.shape[0]
    s_off, t_off, e_off = layout(P, L)
    start = w[s_off:t_off]
    trans = w[t_off:e_off].reshape((L, L))
    end = w[e_off:]
    n_max = 1
    for q in range(sent_ptr.shape[0] - 1):
        n_max = max(n_max, sent_ptr[q + 1] - sent_ptr[q])
    E = np.empty((n_max, L))
    for q in range(sent_ptr.shape[0] - 1):
        lo = sent_ptr[q]
        n = sent_ptr[q + 1] - lo
        if n == 0:
            continue
        emission_scores(w, feats, tok_ptr, lo, n, L, bias_row, allowed, E[:n])
        viterbi(E[:n], start, trans, end, out[lo : lo + n])
