"""Test oracles: slow, literal NumPy implementations of the papers' algorithms, and the
random streams the compiled code is checked on.

Nothing here imports olearn: the oracles are written from /work/shared/ALGORITHMS.md (and the
papers it restates) alone, so that a shared misunderstanding cannot hide in shared code.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def make_stream(
    n: int = 1000,
    d: int = 5,
    *,
    seed: int = 0,
    noise: float = 0.1,
    density: float | None = None,
    margin: float = 0.0,
):
    """A random binary stream with labels in {−1, +1} from a hidden linear model.

    Parameters
    ----------
    n, d : int
        Rows and features.
    seed : int
        Seed of everything.
    noise : float
        Fraction of labels flipped (0 gives a linearly separable stream).
    density : float or None
        None for a dense Gaussian X; otherwise the fraction of nonzero entries of a sparse
        X (CSR), which then also has rows without any nonzero.
    margin : float
        Drop rows whose distance to the hidden hyperplane is below this (separable with
        margin γ when ``noise == 0``).

    Returns
    -------
    X : ndarray or CSR matrix, y : ndarray of ±1.0, u : ndarray, the hidden unit normal.
    """
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    rows = []
    count = 0
    while count < n:
        if density is None:
            block = rng.normal(size=(2 * n, d))
        else:
            mask = rng.random((2 * n, d)) < density
            block = np.where(mask, rng.normal(size=(2 * n, d)), 0.0)
        if margin > 0:
            block = block[np.abs(block @ u) >= margin]
        rows.append(block)
        count += block.shape[0]
    X = np.vstack(rows)[:n]
    y = np.where(X @ u > 0, 1.0, -1.0)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    if density is not None:
        X = sp.csr_matrix(X)
    return X, y, u


def with_bias(X, fit_intercept: bool):
    """Dense X with the intercept feature appended (1 with an intercept, else nothing)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    if not fit_intercept:
        return X
    return np.hstack([X, np.ones((X.shape[0], 1))])
