"""Update rules: one file per paper, each a small pure compiled function.

A margin rule maps the signed margin ``m = y·μ·x``, the confidence ``v = xᵀΣx`` (``‖x‖²`` for
first-order rules) and the hyper-parameter array ``hp`` to two numbers ``(alpha, c)``:

* ``alpha``: the step of the mean, ``μ ← μ + α·y·Σx``;
* ``c``: the precision increment, ``Σ⁻¹ ← Σ⁻¹ + c·x xᵀ`` (0 for first-order rules).

The papers write the covariance step as ``Σ ← Σ − β Σx xᵀΣ``; by Sherman–Morrison this is
the same update with ``β = c / (1 + c·v)``, which is exactly each paper's β. The precision
form is what the diagonal variants of the papers update (``σ_j⁻¹ ← σ_j⁻¹ + c x_j²``) and it
never subtracts, which keeps Σ positive definite (see ``representations/full.py``).

Every rule returns ``(0, 0)`` when ``v ≤ 0`` (x = 0): no update, never a division by zero.

Gradient rules (``sgd.py``) have the other signature of ARCHITECTURE.md,
``(m, t, hp) -> (alpha, decay)``, composed from one loss and one step-size schedule.
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)
from olearn.rules import arow, cw, pa, perceptron, scw, sgd, sop

# name -> (integer code used by the compiled switch, module, function, hyper-parameter names)
RULES = {
    "perceptron": (0, perceptron.perceptron, perceptron.PARAMS),
    "pa": (1, pa.pa, pa.PARAMS),
    "pa1": (2, pa.pa1, pa.PARAMS_I),
    "pa2": (3, pa.pa2, pa.PARAMS_II),
    "sop": (4, sop.sop, sop.PARAMS),
    "cw_variance": (5, cw.cw_variance, cw.PARAMS),
    "cw_exact": (6, cw.cw_exact, cw.PARAMS),
    "arow": (7, arow.arow, arow.PARAMS),
    "scw1": (8, scw.scw1, scw.PARAMS_I),
    "scw2": (9, scw.scw2, scw.PARAMS_II),
    "rls": (10, arow.rls, arow.PARAMS),
}


#: Gradient rules: the loss and schedule codes of ``sgd.sgd``.
GRADIENT_LOSSES = sgd.LOSSES
GRADIENT_SCHEDULES = sgd.SCHEDULES


def rule_code(name: str) -> int:
    """Integer code of a rule in the compiled switch (``olearn.engine.rule_step``)."""
    return RULES[name][0]
