"""Passive-Aggressive (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, JMLR 2006).

Hinge loss ``ℓ = max(0, 1 − m)``; the step solves the paper's constrained problems in closed
form. ``C`` is the aggressiveness parameter of PA-I and PA-II (``hp[0]``).
"""

import math

import numba

from olearn.rules._table import Rule

PARAMS = ()
PARAMS_I = ("C",)
PARAMS_II = ("C",)


@numba.njit(cache=True)
def pa(m, v, hp, h=1.0):
    """PA, eq. 7:  τ = ℓ / ‖x‖².

    Importance weight h: no effect (but h = 0, which skips the example in every loop). PA's
    step meets the hard constraint ``m ≥ 1`` exactly and has no slack to weigh; an example
    repeated h times is learned by its first copy, after which the constraint holds and the
    copies take no step, so the weighted step is the unweighted one.
    """
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return loss / v, 0.0
    return 0.0, 0.0


@numba.njit(cache=True)
def pa1(m, v, hp, h=1.0):
    """PA-I, eq. 9:  τ = min(C, ℓ / ‖x‖²).

    Importance weight h: τ = min(hC, ℓ / ‖x‖²), C scaled by h — the slack ``Cξ`` counted h
    times in eq. 9's objective. It equals h copies of the example up to rounding: each copy
    steps by min(C, ℓ_j/‖x‖²) and lowers the loss by that step times ‖x‖², so the steps sum
    to min(hC, ℓ/‖x‖²) for an integer h.
    """
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return min(h * hp[0], loss / v), 0.0
    return 0.0, 0.0


@numba.njit(cache=True)
def pa2(m, v, hp, h=1.0):
    """PA-II, eq. 11:  τ = ℓ / (‖x‖² + 1/(2C)).

    Importance weight h: τ = ℓ / (‖x‖² + 1/(2hC)), C scaled by h — the squared slack
    ``Cξ²`` counted h times in eq. 11's objective. (Unlike PA-I this is not h copies of the
    example: each copy leaves a fraction of the loss, and the fractions do not compound to
    the weighted step.)
    """
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return loss / (v + 0.5 / (h * hp[0])), 0.0
    return 0.0, 0.0


# The duals of k simultaneous constraints w'·Δ_j ≥ ℓ_j (k-best MIRA; McDonald, Crammer, Pereira
# 2005, seed 003 eq. 55): multipliers in [0, box], ridge·I added to the Gram matrix. With one
# constraint the dual's solution is the rule's own step above.


@numba.njit(cache=True)
def pa_dual(hp):
    """PA: hard constraints, ``0 ≤ τ_j`` (``box = ∞``, no ridge)."""
    return math.inf, 0.0


@numba.njit(cache=True)
def pa1_dual(hp):
    """PA-I: ``0 ≤ τ_j ≤ C`` (eq. 9's clip)."""
    return hp[0], 0.0


@numba.njit(cache=True)
def pa2_dual(hp):
    """PA-II: ``0 ≤ τ_j``, ridge ``1/(2C)`` (eq. 11's denominator)."""
    return math.inf, 0.5 / hp[0]


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "pa": Rule(1, "pa.pa", PARAMS, first_order=True, dual="pa.pa_dual"),
    "pa1": Rule(2, "pa.pa1", PARAMS_I, first_order=True, dual="pa.pa1_dual"),
    "pa2": Rule(3, "pa.pa2", PARAMS_II, first_order=True, dual="pa.pa2_dual"),
}
