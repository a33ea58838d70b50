"""The ``Dataset`` record every loader returns, and the error for a missing optional package."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class MissingDatasetError(ImportError):
    """The package that ships a data set is not installed (``pip install olearn[data]``)."""


@dataclass(frozen=True)
class Dataset:
    """Arrays and a short description.

    Attributes
    ----------
    name : str
        Short identifier, e.g. ``"mnist-3v5"``.
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,) (or (n_samples, n_labels) for multilabel data)
    description : str
        One or two sentences: source, size, task, preprocessing.
    feature_names : list of str
    target_names : list of str
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    description: str
    feature_names: list = field(default_factory=list)
    target_names: list = field(default_factory=list)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        return f"Dataset({self.name!r}, X={self.X.shape}, y={self.y.shape})"


def require(module: str, dataset: str):
    """Import ``module`` or raise MissingDatasetError naming the data set and the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDatasetError(
            f"data set {dataset!r} needs the package {module.split('.')[0]!r} "
            f"(pip install 'olearn[data]')."
        ) from error


def scale_minmax(X: np.ndarray) -> np.ndarray:
    """Scale every column of ``X`` to [0, 1] (constant columns become 0): LIBSVM-style
    scaling. Returns a new float64 array."""
    X = np.asarray(X, dtype=np.float64)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return (X - lo) / span
