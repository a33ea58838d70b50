"""Regression (Crammer et al., JMLR 2006, §5): one row, ŷ = w·x.

The ε-insensitive loss ℓ_ε = max(0, |y − ŷ| − ε) is the hinge ``max(0, 1 − m)`` of the
effective margin ``m = 1 + ε − |y − ŷ|``, and the update direction is ``sign(y − ŷ)·x``: so
PA, PA-I and PA-II's regression steps (§5) are their classification rules unchanged, and
AROW's rule with ε = 0 gives recursive least squares (``rules/arow.py``).
"""

import numba

from olearn._layout import OPT_EPSILON


@numba.njit(cache=True)
def regression(y, scores, epsilon):
    """m = 1 + ε − |y − ŷ|, move row 0 with sign(y − ŷ). A mistake is |y − ŷ| > ε; the
    recorded loss is the absolute error |y − ŷ| (its square is the squared error)."""
    residual = y - scores[0]
    error = abs(residual)
    sign = 1.0 if residual >= 0.0 else -1.0
    return 1.0 + epsilon - error, 0, sign, -1, 0.0, not error <= epsilon, error


@numba.njit(cache=True, inline="always")
def regression_task(y, aux_row, scores, opts):
    """:func:`regression` in the task signature (``olearn.tasks``), ε from the options; cost
    1 per round outside the ε-tube."""
    m, ra, sa, rb, sb, mistake, loss = regression(y, scores, opts[OPT_EPSILON])
    return m, ra, sa, rb, sb, mistake, loss, 1.0 if mistake else 0.0
