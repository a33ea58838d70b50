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
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 37\)" if sparse else "NaN|inf"):
        model.fit(sp.csr_matrix(X_bad) if sparse else X_bad, y[::-1].copy())
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    assert model.n_rounds_ == 60


@pytest.mark.parametrize(
    "make, weighted",
    [
        (PassiveAggressiveClassifier, False),  # the pass counts the row, then the check
        (PassiveAggressiveClassifier, True),  # weighted: the values checked first
        (lambda: AROWClassifier(covariance="full"), False),  # no counting pass: checked first
        (lambda: PassiveAggressiveClassifier(multiclass="ovr"), False),  # three classes
    ],
)
def test_a_non_finite_csr_value_in_fit_names_its_row_on_every_path(make, weighted):
    """``fit`` reads a CSR matrix's indices before learning and leaves its values to the
    binary passes, which count a non-finite row; every other loop checks the values
    first. Either way the error names the first bad row, and the model stays as it was."""
    rng = np.random.default_rng(2)
    X = sp.random(80, 30, density=0.2, format="csr", random_state=3)
    y = rng.integers(0, 3, size=80)
    model = make().fit(X, y)
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X.copy()
    X_bad.data[X_bad.indptr[41] + 1 : X_bad.indptr[42]] = np.nan  # row 41 (and 55: inf)
    X_bad.data[X_bad.indptr[55]] = np.inf
    weights = np.ones(80) if weighted else None
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 41\)"):
        model.fit(X_bad, y, sample_weight=weights)
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)


def test_fit_reads_only_the_indices_of_finite_csr_rows_before_learning(monkeypatch):
    """The values of CSR rows are read once, by the pass, when it counts non-finite rows:
    the check before learning reads the indices alone (``csr_scan``, ``values`` False)."""
    from olearn.representations import fastpath

    X = sp.random(50, 20, density=0.3, format="csr", random_state=0)
    y = np.arange(50) % 2
    reference = PassiveAggressiveClassifier().fit(X, y)
    scan = fastpath.csr_scan
    calls = []
    monkeypatch.setattr(fastpath, "csr_scan", lambda *a: calls.append(a[-1]) or scan(*a))
    model = PassiveAggressiveClassifier().fit(X, y)
    assert calls == [False]
    np.testing.assert_array_equal(model.coef_, reference.coef_)


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


def test_the_perceptron_learns_huge_finite_rows_alike_from_dense_and_csr_rows():
    """The Perceptron reads ‖x̃‖² only through its sign, so both of its passes skip that sum
    while the score is finite (``dense_binary_pass``, ``sparse_binary_pass``): a row whose
    squares overflow is then learned from dense and CSR rows alike, where the sum would have
    refused it on one of them."""
    from olearn import PerceptronClassifier

    X = np.array([[1e200, 0.0, 0.0], [0.0, 1.0, -2.0], [-1.0, 0.5, 0.0], [0.0, 0.0, 3.0]])
    y = np.array([1, 0, 1, 0])
    dense = PerceptronClassifier().fit(X, y)
    sparse = PerceptronClassifier().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.weights_, sparse.weights_)
    np.testing.assert_array_equal(dense.stats_, sparse.stats_)
    assert dense.weights_[0, 0] == 1e200  # the first row, a mistake, was learned
