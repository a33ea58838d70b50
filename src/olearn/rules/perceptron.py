"""Perceptron (Rosenblatt 1958); averaged Perceptron (Freund & Schapire 1999).

Averaging is a property of the representation (``representations/linear.py``), not a rule.
"""

import numba

from olearn.rules._table import Rule

PARAMS = ()


@numba.njit(cache=True)
def perceptron(m, v, hp):
    """Mistake-driven unit step.

    .. math:: \\text{if } m \\le 0:\\ w \\leftarrow w + y x \\quad (\\alpha = 1)

    A zero score is no prediction and counts as a mistake (ALGORITHMS.md, protocol).
    """
    if m <= 0.0 and v > 0.0:
        return 1.0, 0.0
    return 0.0, 0.0


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "perceptron": Rule(0, "perceptron.perceptron", PARAMS, first_order=True, sign_only=True),
}
