"""Task reductions of the kernel loop, in the shape of ``olearn.tasks``: ``(y, scores, …) ->
(m, row_a, sign_a, row_b, sign_b, mistake, loss)``.

Binary is ``olearn.tasks.binary.binary`` itself. Multiclass and regression follow
ALGORITHMS.md (multi-prototype single constraint; Crammer et al. 2006 §7 and §5); once the
tasks issue lands its own ``tasks/multiclass.py`` and ``tasks/regression.py`` these can be
replaced by them.
"""

import math

from olearn._compile import jit
from olearn.tasks import BINARY
from olearn.tasks.binary import binary

MULTICLASS = 1
REGRESSION = 2
TASKS = {"binary": BINARY, "multiclass": MULTICLASS, "regression": REGRESSION}


@jit
def multiclass(y, scores):
    """y is the class index. ``m = s_y − max_{r≠y} s_r``; move row y up and the best wrong
    row down (first maximum on ties). Mistake: m ≤ 0; loss: hinge max(0, 1 − m)."""
    target = int(y)
    wrong = -1
    best = -math.inf
    for r in range(scores.shape[0]):
        if r != target and scores[r] > best:
            best = scores[r]
            wrong = r
    m = scores[target] - best
    return m, target, 1.0, wrong, -1.0, m <= 0.0, max(0.0, 1.0 - m)


@jit
def regression(y, scores, epsilon):
    """ε-insensitive: ``ℓ_ε = max(0, |y − s| − ε)`` passed to margin rules as ``m = 1 − ℓ_ε``
    (PA's loss ``1 − m`` is then ℓ_ε), moving row 0 with sign(y − s). A "mistake" is a
    prediction outside the ε-tube; the reported loss is the absolute error."""
    e = y - scores[0]
    loss = max(0.0, abs(e) - epsilon)
    return 1.0 - loss, 0, 1.0 if e >= 0.0 else -1.0, -1, 0.0, loss > 0.0, abs(e)


@jit
def task_step(code, y, scores, epsilon):
    if code == MULTICLASS:
        return multiclass(y, scores)
    if code == REGRESSION:
        return regression(y, scores, epsilon)
    return binary(y, scores)
