"""Stochastic gradient descent with L2 regularisation (seed 004; Kivinen, Smola, Williamson,
"Online Learning with Kernels", IEEE TSP 2004, for η/√t; Shalev-Shwartz, Singer, Srebro,
"Pegasos", ICML 2007, for 1/(λt)).

The step of seed 004 (its eq. for w_{t+1} and b_{t+1}) is

.. math:: w ← (1 − η_t λ) w − η_t \\frac{∂ℓ(f, y)}{∂f} x, \\qquad b ← b − η_t \\frac{∂ℓ}{∂f}.

A gradient rule maps ``(m, t, hp)`` to ``(alpha, decay)``: the mean moves by ``α·sign·x`` and
the weights (not the intercept) shrink by the factor ``1 − decay``.

Importance weight h (every rule here): the loss term is counted h times and the regulariser
once, so the gradient step is scaled by h and the decay is not: ``(h·alpha, decay)`` (as
scikit-learn's SGD weighs its samples). It is not h copies of the example (each copy would
re-read the loss's derivative, advance t and decay the weights); it is exactly the step
whose loss gradient is h times the example's. It is the product of a
step-size schedule ``η_t`` and a loss's negative derivative, each one small function below;
one rule per loss (``sgd_squared``, ``sgd_epsilon_insensitive``, ``sgd_huber``), the schedule
a hyper-parameter.

Losses are written over the task's effective margin ``m``. For regression the task passes
``m = 1 − |y − f|`` with ``sign = sign(y − f)`` (``tasks/regression.py`` with ε = 0), so the
residual is ``|r| = 1 − m`` and ``−∂ℓ/∂f = sign·g(m)`` with g below.

``hp = (eta0, lambda, epsilon, delta, schedule)`` with ``schedule`` the code of
:data:`SCHEDULES` (a number, as every hyper-parameter: data, not a compile-time choice).
"""

import math

import numba

from olearn.rules._table import Rule

PARAMS = ("eta0", "alpha", "epsilon", "delta", "schedule")

# schedule codes
INVSQRT = 0
INVERSE = 1
SCHEDULES = {"invsqrt": INVSQRT, "inverse": INVERSE}
#: The losses, one rule each (``sgd_<loss>``).
LOSSES = ("squared", "epsilon_insensitive", "huber")


@numba.njit(cache=True)
def invsqrt(t, hp):
    """η_t = η / √t (NORMA's schedule, seed 004)."""
    return hp[0] / math.sqrt(t)


@numba.njit(cache=True)
def inverse(t, hp):
    """η_t = 1 / (λ t) (Pegasos, seed 004)."""
    return 1.0 / (hp[1] * t)


@numba.njit(cache=True)
def squared(m, hp):
    """ℓ = ½(f − y)²:  −∂ℓ/∂f = y − f, i.e. g = |r| = 1 − m."""
    return 1.0 - m


@numba.njit(cache=True)
def epsilon_insensitive(m, hp):
    """ℓ = max(0, |f − y| − ε):  g = 1 when |r| = 1 − m > ε, else 0."""
    return 1.0 if 1.0 - m > hp[2] else 0.0


@numba.njit(cache=True)
def huber(m, hp):
    """ℓ = ½r² if |r| ≤ δ else δ|r| − ½δ²:  g = min(|r|, δ)."""
    return min(1.0 - m, hp[3])


@numba.njit(cache=True)
def rate(t, hp):
    """η_t of the schedule ``hp[4]``."""
    if hp[4] == INVERSE:
        return inverse(t, hp)
    return invsqrt(t, hp)


@numba.njit(cache=True)
def sgd_squared(m, t, hp, h=1.0):
    """Squared loss: ``(alpha, decay) = (η_t (1 − m), η_t λ)``; the step of seed 004
    ("Stochastic Gradient Descent", the update of w_(t+1) and b_(t+1)) with this loss.

    Importance weight h: α scaled by h, the decay not (the loss counted h times, the
    regulariser once; module docstring).
    """
    eta = rate(t, hp)
    return h * eta * squared(m, hp), eta * hp[1]


@numba.njit(cache=True)
def sgd_epsilon_insensitive(m, t, hp, h=1.0):
    """ε-insensitive loss: ``(alpha, decay) = (η_t [1 − m > ε], η_t λ)``; the step of seed 004
    ("Stochastic Gradient Descent", the update of w_(t+1) and b_(t+1)) with this loss.

    Importance weight h: α scaled by h, the decay not (the loss counted h times, the
    regulariser once; module docstring).
    """
    eta = rate(t, hp)
    return h * eta * epsilon_insensitive(m, hp), eta * hp[1]


@numba.njit(cache=True)
def sgd_huber(m, t, hp, h=1.0):
    """Huber loss: ``(alpha, decay) = (η_t min(1 − m, δ), η_t λ)``; the step of seed 004
    ("Stochastic Gradient Descent", the update of w_(t+1) and b_(t+1)) with this loss.

    Importance weight h: α scaled by h, the decay not (the loss counted h times, the
    regulariser once; module docstring).
    """
    eta = rate(t, hp)
    return h * eta * huber(m, hp), eta * hp[1]


#: This paper's rows of ``olearn.rules.RULES``.
RULES = {
    "sgd_squared": Rule(11, "sgd.sgd_squared", PARAMS, "gradient"),
    "sgd_epsilon_insensitive": Rule(12, "sgd.sgd_epsilon_insensitive", PARAMS, "gradient"),
    "sgd_huber": Rule(13, "sgd.sgd_huber", PARAMS, "gradient"),
}
