"""Hyper-parameter selection on a separate permutation (LIBOL's protocol)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SelectionResult:
    """The grid (``params``, a list of parameter dicts), the online mistake rate of each
    configuration on the selection permutation (``scores``), the position of the best
    configuration (``best_index``: the first of the lowest rate), and how the grid was
    trained (``method``): ``"compiled"`` (one compiled pass, every row read once for all
    configurations) or ``"lockstep"`` (chunk by chunk, one ``partial_fit`` per
    configuration)."""

    params: list
    scores: np.ndarray
    best_index: int
    method: str = "lockstep"

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
    compiled: bool = False,
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
    X, y : data (as ``evaluate`` takes it)
    label_noise : float, default=0
    random_state : int, SeedSequence or None
        Seed of the selection permutation (and its noise).
    compiled : bool, default=False
        Train the grid in one compiled loop when the configurations allow it (same binary
        estimator class): each row is read once and learned by all of them before the next.
        Otherwise the configurations step through the data in lockstep, one chunk at a time.
        Both give identical models. Measured (``benchmarks/bench_grid.py``): no faster for
        in-memory data, and 2× slower on sparse high-dimensional data (81 configurations'
        weight arrays compete for the cache row by row), so it is off by default.
    """
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from olearn.evaluation._grid import compiled_grid_pass
    from olearn.evaluation.noise import flip_labels
    from olearn.evaluation.online import (
        _indexable,
        _take,
        announced_classes,
        make_checkpoints,
        train_side_by_side,
    )

    if not param_grid:
        raise ValueError("param_grid is empty.")
    grid = list(ParameterGrid(param_grid))
    X, y = _indexable(X), np.asarray(y)
    n = X.shape[0]
    rng = np.random.default_rng(random_state)
    order = rng.permutation(n)
    X_run = _take(X, order)
    y_run = flip_labels(y[order], label_noise, random_state=rng) if label_noise else y[order]
    configurations = [clone(estimator).set_params(**params) for params in grid]
    classes = announced_classes(y)
    if compiled and compiled_grid_pass(configurations, X_run, y_run, classes):
        scores = np.array([model.n_mistakes_ for model in configurations]) / n
        method = "compiled"
    else:
        curves = train_side_by_side(
            configurations, X_run, y_run, checkpoints=make_checkpoints(n, 1), classes=classes
        )
        scores = curves.mistakes[:, -1] / n
        method = "lockstep"
    return SelectionResult(
        params=grid, scores=scores, best_index=int(np.argmin(scores)), method=method
    )
