"""Second-Order Perceptron (Cesa-Bianchi, Conconi, Gentile, SIAM J. Comput. 2005, Fig. 3.1).

The paper keeps ``A = aI + Σ_k x_k x_kᵀ`` and ``b = Σ_k y_k x_k`` over the mistakes k and
predicts ``sign(bᵀ (A + x xᵀ)⁻¹ x)``, folding the current x into A first. With ``Σ = A⁻¹``
and ``μ = Σ b``, Sherman–Morrison gives ``bᵀ(A + x xᵀ)⁻¹x = μ·x / (1 + v)``: the fold-in
rescales the score by a positive factor, so predictions and mistakes equal those of
``sign(μ·x)``, and the paper's update ``b ← b + y x, A ← A + x xᵀ`` becomes, in mean form,

.. math:: μ ← μ + \\frac{1 − m}{1 + v} y Σx, \\qquad Σ^{-1} ← Σ^{-1} + x xᵀ.

So Σ₀ = I / a. The diagonal variant keeps only the diagonal of A, like diagonal AROW.
"""

import numba

from olearn.rules._table import Rule

PARAMS = ()


@numba.njit(cache=True)
def sop(m, v, hp, h=1.0):
    """Second-Order Perceptron, Fig. 3.1 in mean form (module docstring): on a mistake
    (m ≤ 0), α = (1 − m) / (1 + v), c = 1 (A ← A + x xᵀ).

    Importance weight h: the mistake enters the paper's sums h times, ``b ← b + h y x``,
    ``A ← A + h x xᵀ``; in mean form (Sherman–Morrison as above) α = h(1 − m) / (1 + hv),
    c = h. That is h copies of the mistake added at once (the copies are not re-tested).
    """
    if m <= 0.0 and v > 0.0:
        return h * (1.0 - m) / (1.0 + h * v), h
    return 0.0, 0.0


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {"sop": Rule(4, "sop.sop", PARAMS)}
