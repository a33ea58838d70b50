"""Multilabel ranking metrics (Crammer et al., JMLR 2006, §8; Schapire & Singer 2000).

Both take the indicator matrix of relevant labels and the label scores (e.g. a model's
``decision_function``); higher scores rank first.
"""

from __future__ import annotations

import numpy as np


def _check(Y, scores):
    Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y, dtype=bool)
    S = np.asarray(scores, dtype=np.float64)
    if Y.ndim != 2 or Y.shape != S.shape:
        raise ValueError(f"Y {Y.shape} and scores {S.shape} must be (n, k) of one shape.")
    if not np.isfinite(S).all():
        raise ValueError("scores contain NaN or infinity.")
    return Y, S


def ranking_loss(Y, scores) -> float:
    """Mean over examples of the fraction of (relevant, irrelevant) label pairs ranked
    wrongly (the irrelevant label scores at least as high), in [0, 1]. Examples whose labels
    are all relevant or all irrelevant contribute 0. ``Y`` is the (n, k) indicator of the
    relevant labels, ``scores`` the (n, k) label scores."""
    Y, S = _check(Y, scores)
    losses = np.zeros(len(Y))
    for i in range(len(Y)):
        rel = S[i, Y[i]]
        irr = S[i, ~Y[i]]
        if len(rel) and len(irr):
            losses[i] = (rel[:, None] <= irr[None, :]).mean()
    return float(losses.mean()) if len(losses) else 0.0


def one_error(Y, scores) -> float:
    """Fraction of examples whose top-scoring label is not relevant. ``Y`` is the (n, k)
    indicator of the relevant labels, ``scores`` the (n, k) label scores.

    Examples
    --------
    >>> from olearn.metrics import one_error, ranking_loss
    >>> Y = [[1, 0, 0], [0, 1, 1]]
    >>> scores = [[0.9, 0.1, 0.5], [0.8, 0.7, 0.1]]
    >>> ranking_loss(Y, scores), one_error(Y, scores)
    (0.5, 0.5)
    """
    Y, S = _check(Y, scores)
    if len(Y) == 0:
        return 0.0
    top = np.argmax(S, axis=1)
    return float(np.mean(~Y[np.arange(len(Y)), top]))
