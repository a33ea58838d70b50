"""Sequences drawn from a hidden Markov model: small tagged data for sequence-labelling tests."""

from __future__ import annotations

import numpy as np


def make_hmm_sequences(
    n_sequences: int = 100,
    *,
    n_labels: int = 4,
    n_words: int = 30,
    min_length: int = 3,
    max_length: int = 12,
    concentration: float = 0.3,
    random_state: int | None = None,
) -> tuple[list[list[str]], list[list[str]], dict]:
    """Draw tagged sentences from a random first-order HMM.

    Start, transition and emission distributions are drawn from symmetric Dirichlet
    distributions with parameter ``concentration`` (small values give peaked, learnable
    distributions). Words are ``"w<j>"``, tags ``"T<l>"``; lengths are uniform in
    ``[min_length, max_length]``.

    Parameters
    ----------
    n_sequences : int, default=100
        Sentences to draw.
    n_labels : int, default=4
        Tags (hidden states) L.
    n_words : int, default=30
        Vocabulary size V.
    min_length, max_length : int, default=3, 12
        Bounds of the sentence lengths.
    concentration : float, default=0.3
        Parameter of the symmetric Dirichlet distributions.
    random_state : int or None, default=None
        Seed.

    Returns
    -------
    X : list of list of str
        The sentences.
    y : list of list of str
        Their tags.
    model : dict
        ``start`` (L,), ``transition`` (L, L) and ``emission`` (L, V) probabilities.
    """
    if n_sequences < 0 or n_labels < 1 or n_words < 1:
        raise ValueError("n_sequences must be >= 0, n_labels and n_words >= 1")
    if not 1 <= min_length <= max_length:
        raise ValueError("need 1 <= min_length <= max_length")
    if not concentration > 0:
        raise ValueError("concentration must be positive")
    rng = np.random.default_rng(random_state)
    start = rng.dirichlet(np.full(n_labels, concentration * 10))
    transition = rng.dirichlet(np.full(n_labels, concentration), size=n_labels)
    emission = rng.dirichlet(np.full(n_words, concentration), size=n_labels)
    X, y = [], []
    for _ in range(n_sequences):
        n = int(rng.integers(min_length, max_length + 1))
        labels = np.empty(n, dtype=np.int64)
        labels[0] = rng.choice(n_labels, p=start)
        for i in range(1, n):
            labels[i] = rng.choice(n_labels, p=transition[labels[i - 1]])
        words = [int(rng.choice(n_words, p=emission[label])) for label in labels]
        X.append([f"w{j}" for j in words])
        y.append([f"T{label}" for label in labels])
    model = {"start": start, "transition": transition, "emission": emission}
    return X, y, model
