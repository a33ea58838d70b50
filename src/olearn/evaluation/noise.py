"""Label noise: flip a fraction of labels, seeded (applied to the training stream only)."""

from __future__ import annotations

import numpy as np


def flip_labels(y, fraction: float, *, random_state=None) -> np.ndarray:
    """Return a copy of ``y`` with exactly ``round(fraction * n)`` labels changed.

    Binary labels are swapped to the other class; with more classes a flipped label becomes a
    uniformly drawn *different* class. The rows to flip are a uniform random subset.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (any type).
    fraction : float in [0, 1]
        Fraction of labels to flip.
    random_state : int, Generator or None
        Seed of the choice.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(
            f"label noise flips one label per row: y must be one-dimensional, got shape "
            f"{y.shape} (a multilabel indicator matrix is evaluated without label noise)."
        )
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"label-noise fraction must be in [0, 1], got {fraction}.")
    noisy = y.copy()
    n_flip = int(round(fraction * len(y)))
    if n_flip == 0:
        return noisy
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError("label noise needs at least two classes in y.")
    rng = np.random.default_rng(random_state)
    rows = rng.choice(len(y), size=n_flip, replace=False)
    # A shift of 1..k-1 classes modulo k is a uniform choice among the other classes.
    shift = rng.integers(1, len(classes), size=n_flip)
    noisy[rows] = classes[(codes[rows] + shift) % len(classes)]
    return noisy
