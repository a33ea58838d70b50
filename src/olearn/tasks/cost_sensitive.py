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
        return 1.0, -1, 1.0, -1, -1.0, False, 0.0
    m = scores[r] - scores[p] + 1.0 - math.sqrt(cost[p])
    return m, r, 1.0, p, -1.0, True, max(0.0, 1.0 - m)


@numba.njit(cache=True)
def max_loss(y, cost, scores):
    r = int(y)
    q = -1
    best = 0.0
    for j in range(scores.shape[0]):
        if j != r:
            value = scores[j] + math.sqrt(cost[j])
            if q < 0 or value > best:
                q = j
                best = value
    m = scores[r] - scores[q] + 1.0 - math.sqrt(cost[q])
    return m, r, 1.0, q, -1.0, argmax(scores) != r, max(0.0, 1.0 - m)


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
