"""The row type of the rules' table (``olearn.rules.RULES``): each rule module declares its
rows beside its functions, and the package collects them."""

from typing import NamedTuple


class Rule(NamedTuple):
    """One row of ``olearn.rules.RULES``.

    ``function`` (and ``dual``) name a function of a module of ``olearn.rules``
    (``"module.function"``). ``kind`` is ``"margin"`` for ``(m, v, hp) -> (alpha, c)`` and
    ``"gradient"`` for ``(m, t, hp) -> (alpha, decay)``. A ``first_order`` rule never moves a
    covariance (c = 0): it runs on the plain weight vector, and the dense pass of the linear
    representation is compiled once per such rule. ``sign_only``: the rule reads v only through
    ``v > 0`` (that pass may skip summing ‖x‖²). ``dual``: for rules that bound several
    simultaneous constraints (k-best MIRA), ``hp -> (box, ridge)`` of their dual: multipliers
    in ``[0, box]`` and ``ridge·I`` added to the Gram matrix; with one constraint the dual's
    solution is the rule's own step.
    """

    code: int
    function: str
    params: tuple[str, ...]
    kind: str = "margin"
    first_order: bool = False
    sign_only: bool = False
    dual: str | None = None
