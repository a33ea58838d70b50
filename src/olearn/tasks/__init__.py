"""Tasks: how a label and the scores become an effective margin and the rows to move.

A task returns ``(m, row_a, sign_a, row_b, sign_b, mistake, loss)``: the signed margin the rule
sees, up to two parameter rows to move with the sign of their step (``row_b = -1`` for none;
``row_a = -1`` when the round poses no constraint at all), whether the round is an online
mistake, and the round's loss for the running statistics. Tasks are reductions: none of
them knows a step-size formula; every rule of ``olearn.rules`` runs on every task.

Codes of the compiled switch (``olearn.engine.task_step``):
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)

BINARY = 0
REGRESSION = 1
MULTICLASS = 2
MULTICLASS_OVR = 3
MULTILABEL = 4
COST_PREDICTION = 5
COST_MAX_LOSS = 6

#: Tasks whose label is a row of an auxiliary (n, k) array (indicator or cost vector).
AUXILIARY_TASKS = (MULTILABEL, COST_PREDICTION, COST_MAX_LOSS)
