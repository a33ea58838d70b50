"""What every pass of a representation shares: the counters kept in locals, the binary round
as the general loop counts it, what counts as an update and what is never applied, and the
rule's hyper-parameters as a pair of values.

A fast pass keeps the counters in a tuple of locals (registers) and writes them back once;
``binary_round`` adds one round exactly as ``engine.learn_row`` does (same terms, same order,
so the results are bit-identical whichever path a model takes). Every loop of olearn (linear,
kernel, structured) counts updates with ``significant`` and refuses steps with ``applicable``.
"""

import math

from olearn._compile import jit
from olearn._layout import (
    STAT_COST,
    STAT_LOSS,
    STAT_MISTAKES,
    STAT_ROUNDS,
    STAT_SQUARED_LOSS,
    STAT_UPDATES,
)
from olearn.rules._switch import margin_step


@jit(inline="always")
def load_counters(stats):
    """``(rounds, mistakes, updates, loss, squared loss, cost)``."""
    return (
        stats[STAT_ROUNDS],
        stats[STAT_MISTAKES],
        stats[STAT_UPDATES],
        stats[STAT_LOSS],
        stats[STAT_SQUARED_LOSS],
        stats[STAT_COST],
    )


@jit(inline="always")
def store_counters(stats, counters):
    rounds, mistakes, updates, loss, squared_loss, cost = counters
    stats[STAT_ROUNDS] = rounds
    stats[STAT_MISTAKES] = mistakes
    stats[STAT_UPDATES] = updates
    stats[STAT_LOSS] = loss
    stats[STAT_SQUARED_LOSS] = squared_loss
    stats[STAT_COST] = cost


#: An update counts in ``n_updates_`` when it moves the example's margin by more than this
#: fraction of the margin's size, ``|α|·v > tol·max(|m|, |m + |α|·v|)``, or shrinks the
#: variance along x by more than this fraction, ``c·v > tol``. A rule asked to meet a
#: constraint that rounding alone leaves unmet (a margin of 1 − 10⁻¹⁶ for a threshold of 1)
#: steps by ~10⁻¹⁶: the step is applied, but it changes nothing and is not counted.
UPDATE_TOLERANCE = 1e-12


@jit(inline="always")
def significant(alpha, c, v, m):
    """Whether the step ``(alpha, c)`` on a row of confidence ``v`` and margin ``m`` counts
    as an update (:data:`UPDATE_TOLERANCE`)."""
    moved = abs(alpha) * v
    if moved > UPDATE_TOLERANCE * max(abs(m), abs(m + moved)):
        return True
    return c * v > UPDATE_TOLERANCE


@jit(inline="always")
def applicable(alpha, c, v):
    """Whether a step can be applied: a NaN or infinite step (or confidence), which only
    values too large for float64 produce (their ‖x‖² or xᵀΣx overflows, or a rule's
    formula does), is never applied: the row is not learned and the loop reports it."""
    return math.isfinite(alpha) and math.isfinite(c) and math.isfinite(v)


@jit(inline="always")
def binary_round(counters, y, s):
    """The binary task's margin ``m = y·s`` and the counters after its round (a mistake is
    ``m ≤ 0``, or a NaN margin; the loss the hinge ``max(0, 1 − m)``, the cost 1 per
    mistake)."""
    rounds, mistakes, updates, loss_sum, squared_loss_sum, cost_sum = counters
    m = y * s
    loss = max(0.0, 1.0 - m)
    rounds += 1.0
    if not m > 0.0:
        mistakes += 1.0
        cost_sum += 1.0
    loss_sum += loss
    squared_loss_sum += loss * loss
    return m, (rounds, mistakes, updates, loss_sum, squared_loss_sum, cost_sum)


@jit(inline="always")
def counted_update(counters, alpha, c, v, m):
    """The counters after the step ``(alpha, c)`` (``significant``: counted or not)."""
    rounds, mistakes, updates, loss_sum, squared_loss_sum, cost_sum = counters
    if significant(alpha, c, v, m):
        updates += 1.0
    return rounds, mistakes, updates, loss_sum, squared_loss_sum, cost_sum


@jit(inline="always")
def margin_round(counters, nonfinite, rule, y, s, v, hp, h):
    """The round every binary pass takes once it has a row's score ``s`` and confidence
    ``v``: count the round (``binary_round``), take margin rule ``rule``'s step of weight
    ``h``, count it (``counted_update``), and count the row as not learned when ``v`` or the
    step is not finite (``applicable``). Returns ``(apply, step, c, counters, nonfinite)``:
    apply ``step = y·alpha`` and ``c`` to the row's parameters when ``apply``."""
    if not math.isfinite(v):
        nonfinite += 1
    m, counters = binary_round(counters, y, s)
    alpha, c = margin_step(rule, m, v, hp, h)
    if alpha == 0.0 and c == 0.0:
        return False, 0.0, c, counters, nonfinite
    if not applicable(alpha, c, v):  # never applied: the row is not learned
        if math.isfinite(v):  # (a non-finite v is counted above)
            nonfinite += 1
        return False, 0.0, c, counters, nonfinite
    return True, y * alpha, c, counted_update(counters, alpha, c, v, m), nonfinite


@jit(inline="always")
def hyperparameters(hp):
    """The rule's hyper-parameters as a pair of values instead of an array: the compiler
    then knows they do not change as the weights are written, and hoists what the rule
    computes from them alone (e.g. PA-II's 1/(2C)) out of the loop. Rules read at most
    ``hp[1]``; missing entries are 0."""
    n = hp.shape[0]
    return (hp[0] if n > 0 else 0.0, hp[1] if n > 1 else 0.0)
