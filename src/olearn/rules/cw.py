"""Confidence-Weighted learning.

* Variance form: Dredze, Crammer, Pereira, "Confidence-Weighted Linear Classification",
  ICML 2008, Lemma 1 and eq. 11 (full) / 17 (diagonal, ``σ_j⁻¹ ← σ_j⁻¹ + 2αφ x_j²``).
* Exact form: Crammer, Dredze, Pereira, "Exact Convex Confidence-Weighted Learning",
  NIPS 2008, eq. 10–22.

``hp[0]`` is φ = Φ⁻¹(η), the confidence parameter; ψ = 1 + φ²/2, ξ = 1 + φ².
"""

import math

import numba

from olearn.rules._table import Rule

PARAMS = ("phi",)


@numba.njit(cache=True)
def cw_variance(m, v, hp, h=1.0):
    """CW, approximate (variance) form, ICML 2008 Lemma 1:

    .. math:: γ = \\frac{−(1 + 2φm) + \\sqrt{(1 + 2φm)^2 − 8φ(m − φv)}}{4φv},
              \\quad α = \\max(0, γ), \\quad c = 2αφ.

    Importance weight h: no effect (but h = 0, which skips the example in every loop). The
    step meets the hard probabilistic constraint ``Pr[y μ·x ≥ 0] ≥ η`` exactly, with no slack
    to weigh: with the full covariance, after the first of h copies the constraint holds
    and the others take no step (with the diagonal one the new σ is an approximation, so
    copies would go on stepping: the weight is still ignored).
    (SCW-I/II are the soft forms whose C the weight scales.)
    """
    phi = hp[0]
    if v <= 0.0:
        return 0.0, 0.0
    b = 1.0 + 2.0 * phi * m
    disc = b * b - 8.0 * phi * (m - phi * v)
    if disc <= 0.0:
        return 0.0, 0.0
    gamma = (-b + math.sqrt(disc)) / (4.0 * phi * v)
    if gamma <= 0.0:
        return 0.0, 0.0
    return gamma, 2.0 * gamma * phi


@numba.njit(cache=True)
def exact_alpha(m, v, phi):
    """The exact-CW step, NIPS 2008 eq. 22 (also SCW-I's unclipped step):

    .. math:: α = \\max\\Big(0, \\frac{−mψ + \\sqrt{m^2φ^4/4 + vφ^2ξ}}{vξ}\\Big).
    """
    psi = 1.0 + 0.5 * phi * phi
    xi = 1.0 + phi * phi
    alpha = (-m * psi + math.sqrt(0.25 * m * m * phi**4 + v * phi * phi * xi)) / (v * xi)
    return max(0.0, alpha)


@numba.njit(cache=True)
def exact_precision_step(alpha, v, phi):
    """The covariance step of exact CW and SCW, NIPS 2008 eq. 14–16, as a precision increment.

    √u = ½(−αvφ + √(α²v²φ² + 4v)), written without cancellation as
    2v / (αvφ + √((αvφ)² + 4v)); the paper's β = αφ / (√u + vαφ) is Sherman–Morrison of
    ``Σ⁻¹ ← Σ⁻¹ + (αφ/√u) x xᵀ``, so c = αφ / √u.
    """
    avp = alpha * v * phi
    sqrt_u = 2.0 * v / (avp + math.sqrt(avp * avp + 4.0 * v))
    return alpha * phi / sqrt_u


@numba.njit(cache=True)
def cw_exact(m, v, hp, h=1.0):
    """Exact CW: update when the constraint φ√v − m > 0 is violated (NIPS 2008 eq. 10).

    Importance weight h: no effect (h = 0 skips the example), as for ``cw_variance``: a hard
    constraint met by the first copy of an example (with the full covariance).
    """
    phi = hp[0]
    if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
        return 0.0, 0.0
    alpha = exact_alpha(m, v, phi)
    if alpha <= 0.0:
        return 0.0, 0.0
    return alpha, exact_precision_step(alpha, v, phi)


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "cw_variance": Rule(5, "cw.cw_variance", PARAMS),
    "cw_exact": Rule(6, "cw.cw_exact", PARAMS),
}
