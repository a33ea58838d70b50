"""predict_proba of the Gaussian models (CW, AROW, SCW) for every class (issue 13).

The belief of a model is the probability that weights drawn from its Gaussian classify x as
each class. Multiclass models keep an independent Gaussian per class, so the class scores
are independent Gaussians s_r ~ N(m_r, v_r) and P(r) = P(s_r is the largest). Checked
against a Monte Carlo draw of the weights themselves, the two-class closed form, the
symmetric case, and the binary formula of the binary models.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import ndtr

from olearn import AROWClassifier, CWClassifier, SCWClassifier
from olearn.estimators.base import max_probabilities

MODELS = {
    "arow-diagonal": lambda: AROWClassifier(shuffle=True, random_state=0),
    "arow-full": lambda: AROWClassifier(covariance="full", shuffle=True, random_state=0),
    "cw-diagonal": lambda: CWClassifier(shuffle=True, random_state=0),
    "scw-ovr": lambda: SCWClassifier(multiclass="ovr", shuffle=True, random_state=0),
}


def blobs(n=240, d=4, k=4, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(k, d))
    y = rng.integers(0, k, n)
    return centres[y] + rng.normal(size=(n, d)), y


def test_two_classes_is_the_closed_form():
    means = np.array([[0.3, 1.0], [2.0, -1.0], [0.0, 0.0]])
    variances = np.array([[0.5, 2.0], [1.0, 0.01], [3.0, 3.0]])
    expected = ndtr((means[:, 1] - means[:, 0]) / np.sqrt(variances.sum(axis=1)))
    # the quadrature's error: ~3e-8 where one score is 10× sharper than the other
    np.testing.assert_allclose(max_probabilities(means, variances)[:, 1], expected, atol=1e-7)


def test_symmetric_classes_are_equally_likely_and_rows_sum_to_one():
    rng = np.random.default_rng(1)
    P = max_probabilities(np.zeros((3, 5)), np.full((3, 5), 2.0))
    np.testing.assert_allclose(P, 0.2, atol=1e-9)
    P = max_probabilities(rng.normal(size=(50, 6)), rng.random((50, 6)) + 0.01)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    assert (P >= 0).all() and (P <= 1).all()


def test_equal_variances_rank_classes_as_their_means():
    rng = np.random.default_rng(2)
    means = rng.normal(size=(200, 5))
    variances = np.repeat(rng.random((200, 1)) + 0.1, 5, axis=1)
    P = max_probabilities(means, variances)
    np.testing.assert_array_equal(np.argsort(P, axis=1), np.argsort(means, axis=1))


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_multiclass_proba_is_the_frequency_of_each_class_under_drawn_weights(name):
    """Draw weight vectors from the model's per-class Gaussians, classify x with each draw:
    the frequencies are predict_proba (within Monte Carlo error)."""
    X, y = blobs()
    model = MODELS[name]().fit(X, y)
    x = X[:6]
    P = model.predict_proba(x)
    rng = np.random.default_rng(3)
    draws = 20_000
    xt = np.hstack([x, np.ones((len(x), 1))])
    scores = np.empty((draws, len(x), len(model.classes_)))
    W = model.weights_
    for r in range(len(model.classes_)):
        if model.covariance == "full":
            L = model.precision_cholesky_[r]
            z = rng.normal(size=(draws, W.shape[1]))
            w = W[r] + np.linalg.solve(L.T, z.T).T  # Σ = (LLᵀ)⁻¹
        else:
            w = W[r] + rng.normal(size=(draws, W.shape[1])) * np.sqrt(model.variances_[r])
        scores[:, :, r] = w @ xt.T
    frequencies = np.stack(
        [(scores.argmax(axis=2) == r).mean(axis=0) for r in range(len(model.classes_))], axis=1
    )
    np.testing.assert_allclose(P, frequencies, atol=0.015)


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_multiclass_proba_rows_sum_to_one_and_mostly_agree_with_predict(name):
    X, y = blobs()
    for data in (X, sp.csr_matrix(X)):
        model = MODELS[name]().fit(data, y)
        P = model.predict_proba(data)
        assert P.shape == (len(y), 4)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
        agree = model.classes_[P.argmax(axis=1)] == model.predict(data)
        assert agree.mean() > 0.97
        # a disagreement is a near tie of the two most probable classes
        top2 = np.sort(P, axis=1)[:, -2:]
        assert (np.abs(top2[~agree, 1] - top2[~agree, 0]) < 0.2).all()


def test_sparse_and_dense_probabilities_agree_and_binary_is_unchanged():
    X, y = blobs(k=3)
    model = AROWClassifier().fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(sp.csr_matrix(X)), model.predict_proba(X), rtol=1e-12
    )
    binary = AROWClassifier().fit(X, y == 1)
    s = binary.decision_function(X)
    v = (X * X) @ binary.variances_[0, :-1] + binary.variances_[0, -1]
    np.testing.assert_allclose(binary.predict_proba(X)[:, 1], ndtr(s / np.sqrt(v)), rtol=1e-12)
