"""Perceptron (Rosenblatt 1958); averaged Perceptron (Freund & Schapire 1999).

Averaging is a property of the representation (``representations/linear.py``), not a rule.
"""

import numba

from olearn.rules._table import Rule

PARAMS = ()


@numba.njit(cache=True)
def perceptron(m, v, hp, h=1.0):
    """Mistake-driven unit step (Rosenblatt 1958, as Algorithm 1 of seed 002: on a mistake
    ``w ← w + y x``); with importance weight h the step is h (α = h).

    .. math:: \\text{if } m \\le 0:\\ w \\leftarrow w + y x \\quad (\\alpha = 1)

    A zero score is no prediction and counts as a mistake (ALGORITHMS.md, protocol).

    Importance weight h: the Perceptron is SGD on ``max(0, −m)`` with step 1, and an example
    of weight h is that loss counted h times, so the step is h (α = h). It equals h copies of
    the example exactly when the example stays a mistake over the copies (its gradient does
    not change while m ≤ 0); otherwise the copies stop once it is classified right. (The
    averaged Perceptron's average counts the example as one round, not h.)
    """
    if m <= 0.0 and v > 0.0:
        return h, 0.0
    return 0.0, 0.0


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "perceptron": Rule(0, "perceptron.perceptron", PARAMS, first_order=True, sign_only=True),
}
