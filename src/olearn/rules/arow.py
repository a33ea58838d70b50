"""AROW: Adaptive Regularization of Weight Vectors (Crammer, Kulesza, Dredze, NIPS 2009).

``hp[0]`` is the regularisation r > 0.
"""

import numba

from olearn.rules._table import Rule

PARAMS = ("r",)


@numba.njit(cache=True)
def arow(m, v, hp, h=1.0):
    """AROW, Fig. 1, eq. 7 and 9: update when m < 1,

    .. math:: β = \\frac{1}{v + r}, \\quad α = \\max(0, 1 − m)\\,β, \\quad c = \\frac{1}{r}

    (``Σ⁻¹ ← Σ⁻¹ + x xᵀ / r``; the diagonal variant is ``σ_j⁻¹ ← σ_j⁻¹ + x_j² / r``).

    Importance weight h: r divided by h, β = 1/(v + r/h), c = h/r — the loss terms
    ``(ℓ² + xᵀΣx)/(2r)`` of eq. 1 counted h times. With the full covariance this equals h
    copies of the example up to rounding: while m < 1 (and a step never reaches m = 1) AROW's
    step is the Kalman/RLS update for the target 1 with noise r, and h identical observations
    of noise r are one of noise r/h. (The diagonal variant drops the off-diagonal terms that
    make this exact.)
    """
    r = hp[0]
    if m < 1.0 and v > 0.0:
        return (1.0 - m) / (v + r / h), h / r
    return 0.0, 0.0


@numba.njit(cache=True)
def rls(m, v, hp, h=1.0):
    """AROW for regression = recursive least squares: AROW's update (Fig. 1, eq. 7 and 9)
    on the regression reduction of Crammer et al., JMLR 2006, §5 (ALGORITHMS.md,
    "Regression"). The AROW paper leaves regression to future work, noting it gives the
    same algorithm as RLS (seed 000, summary); Vaits & Crammer, ALT 2011, work it out. With
    the regression reduction's margin ``m = 1 − |y − ŷ|`` and sign ``sign(y − ŷ)`` (ε = 0),

    .. math:: μ ← μ + \\frac{y − ŷ}{v + r} Σx, \\qquad Σ^{-1} ← Σ^{-1} + \\frac{x xᵀ}{r}.

    It is the AROW step ``α = (1 − m)/(v + r)`` except that the covariance shrinks on every
    round, including one whose residual is exactly zero (where AROW's m < 1 test would skip
    it): least squares accumulates every x, not only the mistaken ones.

    Importance weight h: r divided by h (the squared residual counted h times in the least
    squares objective), which equals h copies of the example up to rounding with the full
    covariance (h observations of noise r are one of noise r/h).
    """
    if v > 0.0:
        return (1.0 - m) / (v + hp[0] / h), h / hp[0]
    return 0.0, 0.0


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {"arow": Rule(7, "arow.arow", PARAMS), "rls": Rule(10, "arow.rls", PARAMS)}
