"""Cost-sensitive multiclass (Crammer et al., JMLR 2006, §8): a cost ρ(y, r) ≥ 0 with
ρ(y, y) = 0 arrives with each example as the row ``cost[r] = ρ(y, r)``.

The loss ℓ = w^ŷ·x − w^y·x + √ρ(y, ŷ) is the hinge ``1 − m`` of the shifted margin
``m = w^y·x − w^ŷ·x + 1 − √ρ(y, ŷ)``; the pair (y, ŷ) is then moved like a multiclass pair.

* prediction-based: ŷ = argmax_r w^r·x, no update when ŷ = y;
* max-loss: the pair uses ỹ = argmax_{r≠y} (w^r·x − w^y·x + √ρ(y, r)), while prediction is
  still the argmax. With ρ = 1 − δ the max-loss round is exactly the multiclass round.

The shift is designed for rules whose margin threshold is 1 (Perceptron, PA, SOP, AROW);
confidence-weighted rules apply it as well, to their own threshold φ√v.
"""

import math

import numba

from olearn.tasks.multiclass import argmax


@numba.njit(cache=True)
def prediction_based(y, cost, scores):
    r = int(y)
    p = argmax(scores)
    if p == r:
        # right, no update; a tie with another label is still a mistake (no prediction)
        return 1.0, -1, 1.0, -1, -1.0, not _wins(scores, r), 0.0
    m = scores[r] - scores[p] + (1.0 - math.sqrt(cost[p]))
    return m, r, 1.0, p, -1.0, True, max(0.0, 1.0 - m)


@numba.njit(cache=True)
def max_loss(y, cost, scores):
    r = int(y)
    q = -1
    best = 0.0
    for j in range(scores.shape[0]):
        if j != r:
            # w^j·x + √ρ − 1 orders the labels as w^j·x + √ρ does, and is w^j·x itself for
            # ρ = 1: with 0/1 costs the pair and the margin are the multiclass ones, exactly
            value = scores[j] + (math.sqrt(cost[j]) - 1.0)
            if q < 0 or value > best:
                q = j
                best = value
    m = scores[r] - best
    return m, r, 1.0, q, -1.0, not _wins(scores, r), max(0.0, 1.0 - m)


@numba.njit(cache=True)
def _wins(scores, r):
    """Whether label r scores above every other label (a tie is no prediction: a mistake,
    as in the multiclass task)."""
    for j in range(scores.shape[0]):
        if j != r and not scores[r] > scores[j]:
            return False
    return True


@numba.njit(cache=True)
def incurred(y, cost, scores):
    """ρ(y, ŷ) of the prediction ŷ = argmax."""
    return cost[argmax(scores)]


@numba.njit(cache=True, inline="always")
def prediction_task(y, aux_row, scores, opts):
    """:func:`prediction_based` in the task signature (``olearn.tasks``): the cost row is the
    auxiliary label; the cost is ρ(y, ŷ) of the prediction."""
    m, ra, sa, rb, sb, mistake, loss = prediction_based(y, aux_row, scores)
    return m, ra, sa, rb, sb, mistake, loss, incurred(y, aux_row, scores)


@numba.njit(cache=True, inline="always")
def max_loss_task(y, aux_row, scores, opts):
    """:func:`max_loss` in the task signature (``olearn.tasks``)."""
    m, ra, sa, rb, sb, mistake, loss = max_loss(y, aux_row, scores)
    return m, ra, sa, rb, sb, mistake, loss, incurred(y, aux_row, scores)
