"""Pegasos (Shalev-Shwartz, Singer, Srebro, "Pegasos: Primal Estimated sub-GrAdient SOlver
for SVM", ICML 2007, Fig. 1 and §4 for kernels): SGD on the SVM objective
``λ/2 ‖w‖² + hinge`` with step ``η_t = 1/(λt)`` (seed 004).

Gradient rule ``(m, t, hp) -> (alpha, decay)``, ``hp = [lam]``. The optional projection onto
the ball of radius 1/√λ (paper, Fig. 1, last line) is not applied.
"""

import numba

from olearn.rules._table import Rule

PARAMS = ("lam",)


@numba.njit(cache=True)
def pegasos(m, t, hp, h=1.0):
    """Pegasos' step (Fig. 1, without the projection):

    .. math:: η_t = 1/(λt),\\quad w ← (1 − η_t λ) w + η_t\\,y x\\,[m < 1]

    so ``decay = η_t λ = 1/t`` (1 at t = 1: the first step forgets the initial w = 0) and
    ``alpha = η_t`` on a margin violation.

    Importance weight h: ``alpha = h·η_t`` (the hinge counted h times, the regulariser once:
    the decay is not scaled), as for every gradient rule (``sgd.py``). Budgeted SGD (Wang,
    Crammer, Vucetic 2012) takes this rule on a budget: the same weighted step.
    """
    eta_t = 1.0 / (hp[0] * t)
    decay = 1.0 / t
    if m < 1.0:
        return h * eta_t, decay
    return 0.0, decay


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {"pegasos": Rule(16, "pegasos.pegasos", PARAMS, "gradient")}
