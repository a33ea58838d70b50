"""Hyper-parameter selection on a separate permutation (LIBOL's protocol)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SelectionResult:
    """The grid, the online mistake rate of each configuration on the selection permutation,
    and the best configuration (the first of the lowest rate)."""

    params: list
    scores: np.ndarray
    best_index: int

    @property
    def best_params(self) -> dict:
        return self.params[self.best_index]

    @property
    def best_score(self) -> float:
        return float(self.scores[self.best_index])


def select_parameters(
    estimator,
    param_grid: dict,
    X,
    y,
    *,
    label_noise: float = 0.0,
    random_state=None,
) -> SelectionResult:
    """Choose hyper-parameters by the online mistake rate over one random permutation.

    Every configuration of ``param_grid`` (a scikit-learn style dict of lists) is trained side
    by side over a single pass of one permutation of (X, y) — with ``label_noise`` flipped
    labels, as the evaluation will see — and the configuration with the fewest online mistakes
    wins. Evaluate it afterwards on *fresh* permutations (``evaluate`` does).

    Parameters
    ----------
    estimator : unfitted estimator
    param_grid : dict name -> list of values
    X, y : data
    label_noise : float, default=0
    random_state : int, SeedSequence or None
        Seed of the selection permutation (and its noise).
    """
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from olearn.evaluation.noise import flip_labels
    from olearn.evaluation.online import make_checkpoints, train_side_by_side

    if not param_grid:
        raise ValueError("param_grid is empty.")
    grid = list(ParameterGrid(param_grid))
    y = np.asarray(y)
    n = X.shape[0]
    rng = np.random.default_rng(random_state)
    order = rng.permutation(n)
    y_run = flip_labels(y[order], label_noise, random_state=rng)
    configurations = [clone(estimator).set_params(**params) for params in grid]
    curves = train_side_by_side(
        configurations, X[order], y_run, checkpoints=make_checkpoints(n, 1), classes=np.unique(y)
    )
    scores = curves.mistakes[:, -1] / n
    return SelectionResult(params=grid, scores=scores, best_index=int(np.argmin(scores)))
