"""Uniclass prediction (Crammer et al., JMLR 2006, §6): no input; predict the centre w and
suffer ℓ = max(0, ‖w − y‖ − ε).

The update ``w ← w + τ (y − w)/‖y − w‖`` takes PA's τ = ℓ, PA-I's min(C, ℓ) and PA-II's
ℓ / (1 + 1/(2C)): exactly the classification rules with margin ``m = 1 − ℓ`` and confidence
``v = 1`` (the direction is a unit vector), so ``olearn.rules`` serves this task unchanged.

Learned radius (§6, the (n+1)-th coordinate construction): with an upper bound B, append a
coordinate with ``w_{n+1} = B`` at the start and ``y_{n+1} = 0`` always, and run the fixed
radius rule with ε = B; then ``ε_t = √(B² − w_{t,n+1}²)``.
"""

import math

import numba


@numba.njit(cache=True)
def distance(w, y):
    """‖w − y‖ (``y`` may be one coordinate shorter: the missing one is 0)."""
    d = 0.0
    for j in range(w.shape[0]):
        diff = w[j] - (y[j] if j < y.shape[0] else 0.0)
        d += diff * diff
    return math.sqrt(d)


@numba.njit(cache=True)
def uniclass(w, y, epsilon):
    """Effective margin ``m = 1 − ℓ`` and the distance ‖w − y‖ for the step."""
    dist = distance(w, y)
    return 1.0 - max(0.0, dist - epsilon), dist


@numba.njit(cache=True)
def step(w, y, tau, dist):
    """w ← w + τ (y − w) / ‖y − w‖."""
    scale = tau / dist
    for j in range(w.shape[0]):
        target = y[j] if j < y.shape[0] else 0.0
        w[j] += scale * (target - w[j])
