"""The offline binary tasks of the reproductions, prepared alike (features in [0, 1] or as
generated), and a seeded train/test split. Tasks whose package is missing are skipped."""

from __future__ import annotations

import numpy as np

#: digit pairs of scikit-learn's 8×8 digits standing in for the paper's OCR pairs
DIGIT_PAIRS = ((3, 5), (3, 8), (4, 9), (5, 8), (7, 9), (1, 7))


def binary_tasks(
    *,
    synthetic_size: int = 2000,
    digit_pairs=DIGIT_PAIRS,
    random_state: int = 0,
    only=None,
    multiclass: bool = False,
):
    """(tasks, skipped): ``tasks`` maps name -> Dataset (binary, y in ±1); ``skipped`` maps
    name -> reason for the tasks whose package is missing. ``only`` restricts (and orders)
    the tasks loaded; ``multiclass=True`` also offers the multiclass tasks (image-segments,
    digits, wine)."""
    from dataclasses import replace

    from olearn.datasets import (
        MissingDatasetError,
        load_breast_cancer,
        load_digit_pair,
        load_mnist_pair,
        load_phishing,
        make_arow_synthetic,
        scale_minmax,
    )

    def breast_cancer():
        cancer = load_breast_cancer()
        return replace(
            cancer,
            X=scale_minmax(cancer.X),
            y=np.where(cancer.y == 1, 1.0, -1.0),
            description=cancer.description + " Features scaled to [0, 1].",
        )

    loaders = {f"digits-{a}v{b}": (lambda a=a, b=b: load_digit_pair(a, b)) for a, b in digit_pairs}
    loaders["breast-cancer"] = breast_cancer
    loaders["mnist-3v5"] = lambda: load_mnist_pair(3, 5)
    loaders["phishing"] = load_phishing
    loaders["arow-synthetic"] = lambda: make_arow_synthetic(
        synthetic_size, random_state=random_state
    )
    if multiclass:
        from olearn.datasets import load_digits, load_image_segments, load_wine

        loaders["image-segments"] = load_image_segments
        loaders["digits"] = lambda: replace(load_digits(), X=load_digits().X / 16.0)
        loaders["wine"] = lambda: replace(load_wine(), X=scale_minmax(load_wine().X))
    names = list(loaders) if only is None else list(only)
    unknown = [name for name in names if name not in loaders]
    if unknown:
        raise ValueError(f"unknown tasks {unknown}; known: {sorted(loaders)}.")
    tasks, skipped = {}, {}
    for name in names:
        try:
            tasks[name] = loaders[name]()
        except MissingDatasetError as error:
            skipped[name] = str(error)
    return tasks, skipped


def split(dataset, test_fraction: float, random_state) -> tuple:
    """Seeded random split: (X_train, y_train, X_test, y_test)."""
    rng = np.random.default_rng(random_state)
    order = rng.permutation(dataset.n_samples)
    n_test = int(round(test_fraction * dataset.n_samples))
    test, train = order[:n_test], order[n_test:]
    X = np.ascontiguousarray(dataset.X)
    return X[train], dataset.y[train], X[test], dataset.y[test]
