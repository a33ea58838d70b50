"""fit tests the finiteness of float64 X inside its pass (engine.run_binary counts the rows
with a non-finite confidence): bad input must still raise before any observable change, and
finite input whose sums overflow must still be learned."""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import AROWClassifier, PassiveAggressiveClassifier


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_x_raises_and_keeps_the_model(make, bad, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0, "b", "a")
    model = make().fit(X, y)
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X.copy()
    X_bad[37, 2] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.fit(sp.csr_matrix(X_bad) if sparse else X_bad, y[::-1].copy())
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    assert model.n_rounds_ == 60


def test_finite_values_whose_squares_overflow_keep_the_model_finite():
    X = np.array([[1e200, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    y = np.array([1, 0, 1])
    with pytest.warns(RuntimeWarning, match="1 row.* not learned"):
        model = PassiveAggressiveClassifier().fit(X, y)
    assert model.n_rounds_ == 3
    assert np.isfinite(model.coef_).all()


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_partial_fit_chunk_with_non_finite_x_keeps_the_model(make, bad):
    # A chunk much larger than the state: partial_fit checks it inside the pass and puts a
    # snapshot back on a hit.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 1] > 0, 1, -1)
    model = make().partial_fit(X[:50], y[:50])
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X[50:].copy()
    X_bad[120, 0] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.partial_fit(X_bad, y[50:])
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    model.partial_fit(X[50:], y[50:])
    assert model.n_rounds_ == 200
