"""Tasks: how a label and the scores become an effective margin and the rows to move.

A task returns ``(m, row_a, sign_a, row_b, sign_b, mistake, loss)``: the signed margin the rule
sees, up to two parameter rows to move with the sign of their step (``row_b = -1`` for none),
whether the round is an online mistake, and the round's loss for the running statistics.
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)

BINARY = 0
