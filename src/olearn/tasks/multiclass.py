"""Multiclass, multi-prototype (Crammer et al., JMLR 2006, §7; Crammer, Dredze, Kulesza,
EMNLP 2009 for confidence-weighted rules): one row per class; the label y is a row index.

The single constraint is between the true label r = y and the highest-scoring wrong label s:
``m = w^r·x − w^s·x``, ``w^r ← w^r + α x`` and ``w^s ← w^s − α x``. The rule sees the sum of
both rows' confidences, ``v = v_r + v_s``, which for first-order rules is ``2‖x‖²`` — so PA's
τ = ℓ / (2‖x‖²) of §7 arises without a special case. (Seed 003 eq. 43 prints "+" for both
rows; the second is a minus, ALGORITHMS.md.)

Second-order rules keep one covariance block per class (ARCHITECTURE.md): the precision
increment ``c z zᵀ`` of the joint difference z = Φ(x, r) − Φ(x, s) is applied to its two
diagonal blocks (``c x xᵀ`` to each of Σ_r⁻¹ and Σ_s⁻¹) and its cross blocks are dropped, as
the EMNLP 2009 paper's diagonal update does.
"""

import numba


@numba.njit(cache=True)
def best_other(scores, y):
    """Index of the highest score among the labels other than ``y`` (first on ties)."""
    best = -1
    for r in range(scores.shape[0]):
        if r != y and (best < 0 or scores[r] > scores[best]):
            best = r
    return best


@numba.njit(cache=True)
def argmax(scores):
    best = 0
    for r in range(1, scores.shape[0]):
        if scores[r] > scores[best]:
            best = r
    return best


@numba.njit(cache=True)
def multiclass(y, scores):
    """m = s_y − max_{s≠y} s_s; move row y up and row s down. A mistake is m ≤ 0 (a tie is
    no prediction); the loss is the multiclass hinge max(0, 1 − m)."""
    r = int(y)
    s = best_other(scores, r)
    m = scores[r] - scores[s]
    return m, r, 1.0, s, -1.0, not m > 0.0, max(0.0, 1.0 - m)


@numba.njit(cache=True, inline="always")
def multiclass_task(y, aux_row, scores, opts):
    """:func:`multiclass` in the task signature (``olearn.tasks``): cost 1 per mistake."""
    m, ra, sa, rb, sb, mistake, loss = multiclass(y, scores)
    return m, ra, sa, rb, sb, mistake, loss, 1.0 if mistake else 0.0
