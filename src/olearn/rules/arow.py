"""AROW: Adaptive Regularization of Weight Vectors (Crammer, Kulesza, Dredze, NIPS 2009).

``hp[0]`` is the regularisation r > 0.
"""

import numba

PARAMS = ("r",)


@numba.njit(cache=True)
def arow(m, v, hp):
    """AROW, Fig. 1, eq. 7 and 9: update when m < 1,

    .. math:: β = \\frac{1}{v + r}, \\quad α = \\max(0, 1 − m)\\,β, \\quad c = \\frac{1}{r}

    (``Σ⁻¹ ← Σ⁻¹ + x xᵀ / r``; the diagonal variant is ``σ_j⁻¹ ← σ_j⁻¹ + x_j² / r``).
    """
    r = hp[0]
    if m < 1.0 and v > 0.0:
        return (1.0 - m) / (v + r), 1.0 / r
    return 0.0, 0.0
