"""The benchmark data sets, generated deterministically (nothing is downloaded or committed).

* ``sparse_text``: 200,000 × 2²⁰, about 80 nonzeros per row with Zipf-like feature
  frequencies (as words in text), rows L2-normalised, labels from a hidden sparse linear
  model with 5 % of them flipped.
* ``dense``: 100,000 × 100 Gaussian rows, labels from a hidden linear model, 10 % flipped.
* ``sparse_multiclass``: the rows of ``sparse_text`` with k = 20 classes, the argmax of k
  hidden sparse linear models, 5 % of the labels replaced by a random class.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

SPARSE_SHAPE = (200_000, 2**20)
DENSE_SHAPE = (100_000, 100)


def _text_rows(n_samples, n_features, nnz_per_row, zipf_exponent, rng):
    """Zipf-distributed term rows, log-scaled counts, L2-normalised; and the rank map."""
    # Feature ranks follow p(rank) ∝ rank^-s, sampled by inverse CDF over the ranks;
    # a fixed permutation maps ranks to feature indices so frequent ones are scattered.
    weights = np.arange(1, n_features + 1, dtype=np.float64) ** -zipf_exponent
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    feature_of_rank = rng.permutation(n_features)
    # Zipf draws repeat frequent words; 1.4× the draws leave about nnz_per_row distinct ones.
    lengths = np.maximum(1, rng.poisson(1.4 * nnz_per_row, size=n_samples))
    ranks = np.searchsorted(cdf, rng.random(lengths.sum()))
    ranks = np.minimum(ranks, n_features - 1)
    indices = feature_of_rank[ranks]
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    counts = np.ones(len(indices))
    X = sp.csr_matrix((counts, indices, indptr), shape=(n_samples, n_features))
    X.sum_duplicates()  # repeated words add up, as term counts
    X.data = 1.0 + np.log(X.data)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / norms) @ X
    X = X.tocsr()
    X.sort_indices()
    return X, feature_of_rank


def _hidden_model(n_features, feature_of_rank, rng):
    hidden = np.zeros(n_features)
    informative = rng.choice(n_features, size=n_features // 50, replace=False)
    hidden[informative] = rng.normal(size=len(informative))
    hidden[feature_of_rank[:1000]] = rng.normal(size=1000)  # frequent words matter too
    return hidden


def sparse_text(
    n_samples: int = SPARSE_SHAPE[0],
    n_features: int = SPARSE_SHAPE[1],
    nnz_per_row: int = 80,
    zipf_exponent: float = 1.1,
    flip: float = 0.05,
    seed: int = 0,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """A text-like sparse binary task; labels in {−1, +1}."""
    rng = np.random.default_rng(seed)
    X, feature_of_rank = _text_rows(n_samples, n_features, nnz_per_row, zipf_exponent, rng)
    hidden = _hidden_model(n_features, feature_of_rank, rng)
    score = X @ hidden
    y = np.where(score > np.median(score), 1.0, -1.0)
    return X, _flip(y, flip, rng)


def sparse_multiclass(
    n_samples: int = SPARSE_SHAPE[0],
    n_features: int = SPARSE_SHAPE[1],
    n_classes: int = 20,
    nnz_per_row: int = 80,
    zipf_exponent: float = 1.1,
    noise: float = 0.05,
    seed: int = 0,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """A text-like sparse multiclass task; labels 0 … n_classes − 1 (argmax of hidden
    sparse models, each centred at its median; a fraction ``noise`` replaced by a uniformly
    random class)."""
    rng = np.random.default_rng(seed)
    X, feature_of_rank = _text_rows(n_samples, n_features, nnz_per_row, zipf_exponent, rng)
    hidden = np.column_stack(
        [_hidden_model(n_features, feature_of_rank, rng) for _ in range(n_classes)]
    )
    scores = X @ hidden
    # centred per class (as the binary set splits at the median) so the classes balance
    y = np.argmax(scores - np.median(scores, axis=0), axis=1)
    replaced = rng.random(n_samples) < noise
    y[replaced] = rng.integers(0, n_classes, replaced.sum())
    return X, y


def dense(
    n_samples: int = DENSE_SHAPE[0],
    n_features: int = DENSE_SHAPE[1],
    flip: float = 0.10,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """A dense binary task; labels in {−1, +1}."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    hidden = rng.normal(size=n_features)
    y = np.where(X @ hidden + 0.5 > 0, 1.0, -1.0)
    return X, _flip(y, flip, rng)


def _flip(y: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    flipped = rng.random(len(y)) < fraction
    return np.where(flipped, -y, y)
