"""Evaluation harness: progressive validation with checkpoints, repeated random orders with mean
and std (LIBOL's protocol), held-out learning curves, label noise on the training stream only,
hyper-parameter selection on a separate permutation, and grids of models trained side by side.
"""

from __future__ import annotations

from olearn._lazy import lazy_exports

_EXPORTS = {
    "flip_labels": "olearn.evaluation.noise",
    "make_checkpoints": "olearn.evaluation.online",
    "train_side_by_side": "olearn.evaluation.online",
    "evaluate": "olearn.evaluation.online",
    "OnlineResult": "olearn.evaluation.online",
    "Comparison": "olearn.evaluation.online",
    "RunCurves": "olearn.evaluation.online",
    "concat": "olearn.evaluation.online",
    "select_parameters": "olearn.evaluation.selection",
    "SelectionResult": "olearn.evaluation.selection",
    "ALGORITHMS": "olearn.evaluation.algorithms",
    "make_estimator": "olearn.evaluation.algorithms",
    "libol_grid": "olearn.evaluation.algorithms",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, globals(), _EXPORTS)
