"""The layout of the two small structures every linear loop receives.

A linear model's loop takes its **state**, the tuple ``(W, A, S, L, stats)`` — means (k, D),
averaging sums (k, D) or empty, diagonal variances (k, D) or empty, Cholesky factors of the
precisions (k, D, D) or empty, and the counters — and its **configuration**, the tuple
``(cfg, hp, opts)``: integer codes, the rule's hyper-parameters, and float options. The kernel
and structured loops keep their own state tuples, and share the options and the first counters.

Codes are those of the tables of the seams (``olearn.rules.RULES``, ``olearn.tasks.TASKS``,
``olearn.representations.REPRESENTATIONS``).
"""

import numpy as np

# cfg: the integer codes
CFG_RULE, CFG_REPRESENTATION, CFG_TASK, CFG_AVERAGE = range(4)
N_CFG = 4

# opts: the float options of every loop (the kernel loop leaves the floor at 0; the linear
# loops leave the jitter at 0)
OPT_BIAS, OPT_FLOOR, OPT_EPSILON, OPT_LEARNED_THRESHOLD, OPT_JITTER = range(5)
N_OPTS = 5

# stats: the counters (the kernel and structured loops share the first three)
(
    STAT_ROUNDS,
    STAT_MISTAKES,
    STAT_UPDATES,
    STAT_LOSS,
    STAT_SQUARED_LOSS,
    STAT_COST,
    STAT_SCALE,
) = range(7)
N_STATS = 7


def new_stats() -> np.ndarray:
    """Fresh counters (the weight scale of gradient rules starts at 1)."""
    stats = np.zeros(N_STATS)
    stats[STAT_SCALE] = 1.0
    return stats


def options(bias: float = 0.0, floor: float = 0.0, epsilon: float = 0.0,
            learned_threshold: bool = False, jitter: float = 0.0) -> np.ndarray:  # fmt: skip
    """The ``opts`` array."""
    return np.array([bias, floor, epsilon, 1.0 if learned_threshold else 0.0, jitter])
