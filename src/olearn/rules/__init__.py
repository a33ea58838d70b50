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

A gradient rule (SGD, NORMA, Pegasos) maps ``(m, t, hp)`` at round t ≥ 1 to ``(alpha,
decay)``: the step of the mean, and the fraction ``η_t λ`` by which the weights (not the
intercept) shrink first, ``w ← (1 − decay)·w``.

:data:`RULES` is the one table of rules. Each module of this package declares its own rows
(``RULES`` beside its functions: code, function, hyper-parameters; ``_table.Rule``), and this
package collects them; every loop (the linear engine, the kernel loop, the structured loop)
reaches a rule through the switches generated from the table (``rules/_switch.py``,
``python -m olearn._generate``), by its code. Adding a rule is one module here.
"""

import importlib
import pkgutil

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)
from olearn.rules._table import Rule

__all__ = ["KERNEL_RULES", "RULES", "SEQUENCE_RULES", "Rule", "rule_code", "rule_function"]


def _collect() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            rules.update(getattr(module, "RULES", {}))
    return dict(sorted(rules.items(), key=lambda item: item[1].code))


#: name -> :class:`Rule`, in the order of the codes.
RULES: dict[str, Rule] = _collect()


#: The rules of the kernel models: a support-vector expansion carries no covariance, so only
#: first-order rules apply; these are the ones the kernel estimators offer.
KERNEL_RULES = ("perceptron", "pa", "pa1", "pa2", "norma_hinge", "norma_epsilon", "pegasos")
#: The rules of the sequence tagger (``olearn.structured``): the Perceptron gets the raw
#: margin, k-best MIRA needs a rule with a dual (the PA family), AROW moves diagonal variances.
SEQUENCE_RULES = ("perceptron", "pa", "pa1", "pa2", "arow")


def rule_code(name: str) -> int:
    """Integer code of a rule in the generated switches (``rules/_switch.py``)."""
    return RULES[name].code


def rule_function(name: str, part: str = "function"):
    """The compiled function of rule ``name`` (``part="dual"``: its dual)."""
    module, _, function = getattr(RULES[name], part).partition(".")
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)
