"""Soft Confidence-Weighted learning (Wang, Zhao, Hoi, "Exact Soft Confidence-Weighted
Learning", ICML 2012). ``hp[0]`` is φ = Φ⁻¹(η), ``hp[1]`` is C.

The covariance step is exact CW's (``cw.exact_precision_step``).
"""

import math

import numba

from olearn.rules._table import Rule
from olearn.rules.cw import exact_alpha, exact_precision_step

PARAMS_I = ("phi", "C")
PARAMS_II = ("phi", "C")


@numba.njit(cache=True)
def scw1(m, v, hp, h=1.0):
    """SCW-I, Proposition 1: with ℓ = max(0, φ√v − m) > 0,

    .. math:: α = \\min(C, α_{CW}),\\quad α_{CW} = \\max\\Big(0,
              \\frac{−mψ + \\sqrt{m^2φ^4/4 + vφ^2ξ}}{vξ}\\Big).

    Importance weight h: α = min(hC, α_CW), C scaled by h (the slack ``Cℓ`` of the
    objective counted h times), as in PA-I.
    """
    phi = hp[0]
    if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
        return 0.0, 0.0
    alpha = min(h * hp[1], exact_alpha(m, v, phi))
    if alpha <= 0.0:
        return 0.0, 0.0
    return alpha, exact_precision_step(alpha, v, phi)


@numba.njit(cache=True)
def scw2(m, v, hp, h=1.0):
    """SCW-II, Proposition 2: with n = v + 1/(2C) and γ = φ√(φ²m²v² + 4nv(n + vφ²)),

    .. math:: α = \\max\\Big(0, \\frac{γ − (2mn + φ^2 m v)}{2(n^2 + n v φ^2)}\\Big).

    Importance weight h: n = v + 1/(2hC), C scaled by h (the squared slack ``Cℓ²`` counted
    h times), as in PA-II.
    """
    phi = hp[0]
    if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
        return 0.0, 0.0
    n = v + 0.5 / (h * hp[1])
    phi2 = phi * phi
    gamma = phi * math.sqrt(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2))
    alpha = (gamma - (2.0 * m * n + phi2 * m * v)) / (2.0 * (n * n + n * v * phi2))
    if alpha <= 0.0:
        return 0.0, 0.0
    return alpha, exact_precision_step(alpha, v, phi)


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {"scw1": Rule(8, "scw.scw1", PARAMS_I), "scw2": Rule(9, "scw.scw2", PARAMS_II)}
