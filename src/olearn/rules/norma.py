"""NORMA (Kivinen, Smola, Williamson, "Online learning with kernels", IEEE Trans. Signal
Processing 52(8), 2004): stochastic gradient descent in a reproducing kernel Hilbert space.

Gradient rules ``(m, t, hp) -> (alpha, decay)``: at round t every old coefficient shrinks,
``α_i ← (1 − η_t λ) α_i`` (``decay = η_t λ``), and the new vector enters with
``α_t = −η_t ℓ′`` — its magnitude ``alpha``; the task gives the sign (seed 004, the NORMA
update; paper eq. 6–8).
The step size is ``η_t = η / √t``. Hyper-parameters ``hp = [eta, lam, rho]``.

Importance weight h: the new coefficient is ``h·α_t`` (the loss counted h times, the
regulariser once: the decay is not scaled), as for every gradient rule (``sgd.py``).
"""

import math

import numba

from olearn.rules._table import Rule

PARAMS = ("eta", "lam", "rho")
PARAMS_EPSILON = ("eta", "lam")


@numba.njit(cache=True)
def norma_hinge(m, t, hp, h=1.0):
    """Classification, hinge loss with margin ρ: ``ℓ = max(0, ρ − m)`` (paper §3.2).

    .. math:: η_t = η/\\sqrt{t},\\quad α_t = η_t\\,[m < ρ],\\quad
              α_i ← (1 − η_t λ)\\,α_i

    Importance weight h: α_t scaled by h, the decay not (the hinge counted h times, the
    regulariser once), as for every gradient rule (``sgd.py``).
    """
    eta_t = hp[0] / math.sqrt(t)
    decay = eta_t * hp[1]
    if m < hp[2]:
        return h * eta_t, decay
    return 0.0, decay


@numba.njit(cache=True)
def norma_epsilon(m, t, hp, h=1.0):
    """Regression, ε-insensitive loss ``max(0, |f(x) − y| − ε)`` (paper §3.4). The regression
    task passes ``m = 1 − ℓ_ε`` (as for PA), so the loss is positive exactly when m < 1;
    ``ℓ′ = sign(f − y)`` and the task supplies that sign.

    .. math:: η_t = η/\\sqrt{t},\\quad α_t = η_t\\,[ℓ_ε > 0],\\quad α_i ← (1 − η_t λ)\\,α_i

    Importance weight h: α_t scaled by h, the decay not (the loss counted h times, the
    regulariser once), as for every gradient rule (``sgd.py``).
    """
    eta_t = hp[0] / math.sqrt(t)
    decay = eta_t * hp[1]
    if m < 1.0:
        return h * eta_t, decay
    return 0.0, decay


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "norma_hinge": Rule(14, "norma.norma_hinge", PARAMS, "gradient"),
    "norma_epsilon": Rule(15, "norma.norma_epsilon", PARAMS_EPSILON, "gradient"),
}
