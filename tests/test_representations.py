"""The representations do not depend on how the input is stored.

* Dense, CSR, CSC and COO input, with int32 or int64 indices, give bit-identical states.
* On rows with a single nonzero the diagonal and full covariances are the same model.
* ``learn_one`` (a sparse row per call) equals ``fit`` on the whole stream.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import full_covariance
from reference import make_stream

from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
    engine,
)

MODELS = {
    "perceptron": lambda: PerceptronClassifier(),
    "perceptron-averaged": lambda: PerceptronClassifier(average=True),
    "pa": lambda: PassiveAggressiveClassifier(variant="PA"),
    "pa1-averaged": lambda: PassiveAggressiveClassifier(variant="PA-I", C=0.5, average=True),
    "pa2": lambda: PassiveAggressiveClassifier(variant="PA-II", C=0.5),
    "sop-diagonal": lambda: SecondOrderPerceptronClassifier(covariance="diagonal"),
    "sop-full": lambda: SecondOrderPerceptronClassifier(covariance="full"),
    "cw-variance-diagonal": lambda: CWClassifier(method="variance", covariance="diagonal"),
    "cw-variance-full": lambda: CWClassifier(method="variance", covariance="full"),
    "cw-exact-diagonal": lambda: CWClassifier(eta=0.7, covariance="diagonal"),
    "cw-exact-full": lambda: CWClassifier(eta=0.7, covariance="full"),
    "arow-diagonal": lambda: AROWClassifier(covariance="diagonal"),
    "arow-full": lambda: AROWClassifier(covariance="full"),
    "scw1-diagonal": lambda: SCWClassifier(variant="I", covariance="diagonal"),
    "scw1-full": lambda: SCWClassifier(variant="I", covariance="full"),
    "scw2-diagonal": lambda: SCWClassifier(variant="II", covariance="diagonal"),
    "scw2-full": lambda: SCWClassifier(variant="II", covariance="full"),
}

STATE = ("weights_", "average_sums_", "variances_", "precision_cholesky_", "stats_")


def assert_identical(model, reference):
    for name in STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), err_msg=name)


def with_index_dtype(X, dtype):
    X = X.copy()
    X.indices = X.indices.astype(dtype)
    X.indptr = X.indptr.astype(dtype)
    return X


@pytest.fixture(scope="module")
def sparse_stream():
    X, y, _ = make_stream(n=1000, d=15, seed=21, noise=0.1, density=0.25)
    assert (np.diff(X.indptr) == 0).any()  # some rows are empty
    return X, y


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["intercept", "no-intercept"])
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_dense_equals_sparse_formats(name, fit_intercept, sparse_stream):
    X, y = sparse_stream
    dense = MODELS[name]().set_params(fit_intercept=fit_intercept).fit(X.toarray(), y)
    assert dense.n_updates_ > 0
    inputs = {
        "csr-int32": with_index_dtype(X, np.int32),
        "csr-int64": with_index_dtype(X, np.int64),
        "csc": X.tocsc(),
        "coo": X.tocoo(),
        "dense-fortran": np.asfortranarray(X.toarray()),
        "dense-list": X.toarray().tolist(),
    }
    for label, data in inputs.items():
        model = MODELS[name]().set_params(fit_intercept=fit_intercept).fit(data, y)
        try:
            assert_identical(model, dense)
        except AssertionError as error:
            raise AssertionError(f"{label} differs from dense input") from error


@pytest.mark.parametrize("name", ["pa1-averaged", "cw-exact-diagonal", "scw2-full"])
def test_float32_input_equals_its_float64_values(name, sparse_stream):
    X, y = sparse_stream
    X32 = X.astype(np.float32)
    reference = MODELS[name]().fit(X32.astype(np.float64).toarray(), y)
    for data in (X32, X32.toarray()):
        assert_identical(MODELS[name]().fit(data, y), reference)


def test_int64_indices_reach_the_compiled_loop(sparse_stream):
    """The int64 case above is a real second specialisation, not converted on the way
    (a binary model's pass over CSR rows: ``engine.run_pass``)."""
    X, y = sparse_stream
    AROWClassifier().fit(with_index_dtype(X, np.int64), y)
    AROWClassifier().fit(with_index_dtype(X, np.int32), y)
    index_types = {str(signature[2]) for signature in engine._binary_pass.signatures}
    assert {"array(int32, 1d, C)", "array(int64, 1d, C)"} <= index_types


@pytest.mark.parametrize("name", ["pa2", "arow-diagonal", "scw1-full", "perceptron-averaged"])
def test_unsorted_and_duplicate_csr_entries_equal_their_dense_sum(name):
    rng = np.random.default_rng(5)
    n, d = 400, 6
    rows = np.repeat(np.arange(n), 3)
    cols = rng.integers(0, d, size=3 * n)  # duplicates within a row are summed
    vals = rng.normal(size=3 * n)
    X = sp.coo_matrix((vals, (rows, cols)), shape=(n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    dense = X.toarray()
    csr = sp.csr_matrix((X.data, (X.row, X.col)), shape=(n, d))
    # Scramble the stored order inside each row.
    bounds = zip(csr.indptr[:-1], csr.indptr[1:], strict=True)
    order = np.concatenate([rng.permutation(np.arange(a, b)) for a, b in bounds])
    scrambled = sp.csr_matrix((csr.data[order], csr.indices[order], csr.indptr), shape=(n, d))
    scrambled.has_sorted_indices = False
    model = MODELS[name]().fit(scrambled, y)
    reference = MODELS[name]().fit(dense, y)
    for state in STATE:
        np.testing.assert_allclose(
            getattr(model, state), getattr(reference, state), rtol=1e-12, atol=1e-12
        )


def one_hot_stream(n=1000, d=6, seed=4):
    """Rows with exactly one nonzero: diagonal and full covariance are then the same model."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, size=n)] = rng.normal(size=n) * 2.0
    truth = rng.normal(size=d)
    y = np.where(X @ truth > 0, 1.0, -1.0)
    flip = rng.random(n) < 0.15
    y[flip] = -y[flip]
    return X, y


@pytest.mark.parametrize(
    "family",
    ["sop", "cw-variance", "cw-exact", "arow", "scw1", "scw2"],
)
def test_diagonal_equals_full_on_one_hot_rows(family):
    X, y = one_hot_stream()
    diagonal = MODELS[f"{family}-diagonal"]().set_params(fit_intercept=False).fit(X, y)
    full = MODELS[f"{family}-full"]().set_params(fit_intercept=False).fit(X, y)
    assert diagonal.n_updates_ > 50
    assert diagonal.n_mistakes_ == full.n_mistakes_
    if family in ("cw-exact", "scw1"):
        # These updates make the constraint φ√v = m tight, and on one-hot rows the next row of
        # the same coordinate and sign sits exactly on it (both sides scale with |x_j|): rounding
        # decides whether a step of ~1e-16 happens. Such steps change nothing measurable.
        assert abs(diagonal.n_updates_ - full.n_updates_) <= 0.02 * diagonal.n_updates_
    else:
        assert diagonal.n_updates_ == full.n_updates_
    np.testing.assert_allclose(full.weights_, diagonal.weights_, rtol=1e-11, atol=1e-14)
    sigma = full_covariance(full)
    np.testing.assert_allclose(np.diag(sigma), diagonal.variances_[0], rtol=1e-11)
    off_diagonal = sigma - np.diag(np.diag(sigma))
    assert np.abs(off_diagonal).max() == 0.0
    np.testing.assert_allclose(full.covariance_, np.diag(diagonal.covariance_), rtol=1e-11)


def test_diagonal_differs_from_full_on_dense_rows():
    """The previous test can fail: on rows with two nonzeros the two models part ways."""
    X, y, _ = make_stream(n=200, d=4, seed=8, noise=0.1)
    diagonal = AROWClassifier(covariance="diagonal", fit_intercept=False).fit(X, y)
    full = AROWClassifier(covariance="full", fit_intercept=False).fit(X, y)
    assert np.abs(full.weights_ - diagonal.weights_).max() > 1e-3


@pytest.mark.parametrize(
    "name", ["perceptron-averaged", "pa1-averaged", "sop-full", "cw-exact-diagonal", "scw2-full"]
)
def test_learn_one_equals_fit(name, sparse_stream):
    X, y = sparse_stream
    X = X[:300]
    y = y[:300]
    reference = MODELS[name]().fit(X, y)
    model = MODELS[name]().partial_fit(X[:2], y[:2])
    for i in range(2, X.shape[0]):
        start, stop = X.indptr[i], X.indptr[i + 1]
        if i % 2:
            row = (X.indices[start:stop], X.data[start:stop])
        else:
            indices, values = X.indices[start:stop].tolist(), X.data[start:stop].tolist()
            row = dict(zip(indices, values, strict=True))
        model.learn_one(row, y[i])
    for state in STATE:
        np.testing.assert_allclose(
            getattr(model, state), getattr(reference, state), rtol=1e-13, atol=1e-15
        )
