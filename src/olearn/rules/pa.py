"""Passive-Aggressive (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, JMLR 2006).

Hinge loss ``ℓ = max(0, 1 − m)``; the step solves the paper's constrained problems in closed
form. ``C`` is the aggressiveness parameter of PA-I and PA-II (``hp[0]``).
"""

import numba

PARAMS = ()
PARAMS_I = ("C",)
PARAMS_II = ("C",)


@numba.njit(cache=True)
def pa(m, v, hp):
    """PA, eq. 7:  τ = ℓ / ‖x‖²."""
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return loss / v, 0.0
    return 0.0, 0.0


@numba.njit(cache=True)
def pa1(m, v, hp):
    """PA-I, eq. 9:  τ = min(C, ℓ / ‖x‖²)."""
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return min(hp[0], loss / v), 0.0
    return 0.0, 0.0


@numba.njit(cache=True)
def pa2(m, v, hp):
    """PA-II, eq. 11:  τ = ℓ / (‖x‖² + 1/(2C))."""
    loss = 1.0 - m
    if loss > 0.0 and v > 0.0:
        return loss / (v + 0.5 / hp[0]), 0.0
    return 0.0, 0.0
