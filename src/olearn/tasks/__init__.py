"""Tasks: how a label and the scores become an effective margin and the rows to move.

Every task has one signature, ``(y, aux_row, scores, opts) -> (m, row_a, sign_a, row_b, sign_b,
mistake, loss, cost)``: the signed margin the rule sees, up to two parameter rows to move with
the sign of their step (``row_b = -1`` for none; ``row_a = -1`` when the round poses no
constraint at all), whether the round is an online mistake (a NaN margin always is one), the
round's loss for the running statistics, and the cost of the round's prediction (0/1, or the
cost-sensitive task's ρ). ``y`` is the label as the loop reads it (±1, a target, a class
index), ``aux_row`` the auxiliary label row of the tasks that have one (indicator, cost
vector), ``opts`` the loop's options (``olearn._layout``: ε, the learned-threshold flag). Tasks
are reductions: none of them knows a step-size formula; every rule of ``olearn.rules`` runs on
every task.

:data:`TASKS` is the one table of tasks; every loop (the linear engine, the kernel loop)
reaches a task through the switch generated from it (``tasks/_switch.py``, ``python -m
olearn._generate``), by its code.
"""

from typing import NamedTuple

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)


class Task(NamedTuple):
    """One row of :data:`TASKS`: its code, its function (``"module.function"`` of this
    package) and whether its label is a row of an auxiliary (n, k) array."""

    code: int
    function: str
    auxiliary: bool = False


TASKS: dict[str, Task] = {
    "binary": Task(0, "binary.binary_task"),
    "regression": Task(1, "regression.regression_task"),
    # multi-prototype multiclass; "ovr" scores alike and then steps every row (engine)
    "multiclass": Task(2, "multiclass.multiclass_task"),
    "ovr": Task(3, "multiclass.multiclass_task"),
    "multilabel": Task(4, "multilabel.multilabel_task", auxiliary=True),
    "cost_prediction": Task(5, "cost_sensitive.prediction_task", auxiliary=True),
    "cost_max_loss": Task(6, "cost_sensitive.max_loss_task", auxiliary=True),
}

BINARY = TASKS["binary"].code
REGRESSION = TASKS["regression"].code
MULTICLASS = TASKS["multiclass"].code
MULTICLASS_OVR = TASKS["ovr"].code
MULTILABEL = TASKS["multilabel"].code
COST_PREDICTION = TASKS["cost_prediction"].code
COST_MAX_LOSS = TASKS["cost_max_loss"].code

#: Tasks whose label is a row of an auxiliary (n, k) array (indicator or cost vector).
AUXILIARY_TASKS = tuple(task.code for task in TASKS.values() if task.auxiliary)
