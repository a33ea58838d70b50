"""predict_proba of the Gaussian models (CW, AROW, SCW) for every class (issue 13).

The belief of a model is the probability that weights drawn from its Gaussian classify x as
each class. Multiclass models keep an independent Gaussian per class, so the class scores
are independent Gaussians s_r ~ N(m_r, v_r) and P(r) = P(s_r is the largest). Checked
against a Monte Carlo draw of the weights themselves, the two-class closed form, the
symmetric case, and the binary formula of the binary models. The compiled sum
(``olearn.tasks.gaussian_max``) is checked against the NumPy formulation it replaced, and its
log Φ against scipy's and against an independent asymptotic value.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import log_ndtr, ndtr

from olearn import AROWClassifier, CWClassifier, SCWClassifier
from olearn.estimators.base import max_probabilities
from olearn.tasks import gaussian_max

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


# -- the compiled sum against the NumPy formulation it replaced --------------------------------


def reference_max_probabilities(means, variances):
    """The full Gauss–Hermite sum in NumPy, as olearn computed it before the compiled loop:
    every one of the 64 nodes, every class, scipy's log_ndtr. The oracle of the compiled sum,
    which leaves out what cannot change it."""
    x, h = np.polynomial.hermite.hermgauss(64)
    u = np.sqrt(2.0) * x
    weights = h / np.sqrt(np.pi)
    means = np.asarray(means, dtype=np.float64)
    sd = np.sqrt(np.asarray(variances, dtype=np.float64))
    out = np.empty(means.shape)
    for r in range(means.shape[1]):
        t = means[:, r, None] + sd[:, r, None] * u  # (n, G)
        logs = log_ndtr((t[:, None, :] - means[:, :, None]) / sd[:, :, None])  # (n, k, G)
        logs[:, r, :] = 0.0
        out[:, r] = np.exp(logs.sum(axis=1)) @ weights
    total = out.sum(axis=1, keepdims=True)
    return out / np.where(total > 0, total, 1.0)


def random_cases(seed, count):
    """(means, variances) of 3 rows each: scales of the means from 10⁻³ to 10³, variances
    from 10⁻¹² to 10⁴ (also equal ones), ties, a far outlying class (probabilities down to
    10⁻³⁰⁰ and exact zeros), 2 to 150 classes."""
    rng = np.random.default_rng(seed)
    for case in range(count):
        k = int(
            rng.choice([2, 3, 4, 5, 8, 20, 50, 150], p=[0.2, 0.15, 0.15, 0.15, 0.1, 0.1, 0.1, 0.05])
        )
        means = rng.normal(scale=10.0 ** rng.uniform(-3, 3), size=(3, k))
        kind = case % 4
        if kind == 0:
            variances = 10.0 ** rng.uniform(-12, 4, size=(3, k))
        elif kind == 1:
            variances = np.repeat(10.0 ** rng.uniform(-6, 3, size=(3, 1)), k, axis=1)
        elif kind == 2:
            variances = 10.0 ** rng.uniform(-3, 1) * (rng.random((3, k)) + 0.01)
            means[:, : k // 2] = means[:, :1]
        else:
            variances = 10.0 ** rng.uniform(-2, 2, size=(3, k))
            means[:, 0] += rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(0, 3)
        yield means, variances


def test_compiled_sum_is_the_full_sum_to_rounding():
    """Equal to the full NumPy sum to rounding, tiny probabilities included: what the
    compiled sum leaves out is below 2⁻⁵⁸ of each class's sum, and the rest differs only by
    the order of additions and log Φ's last bits (which count ~|S|·2⁻⁵² where the log-sum S
    of a node is large)."""
    worst_absolute = worst_relative = 0.0
    for means, variances in random_cases(seed=4, count=400):
        P = max_probabilities(means, variances)
        expected = reference_max_probabilities(means, variances)
        assert np.isfinite(P).all() and (P >= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-13)
        worst_absolute = max(worst_absolute, np.abs(P - expected).max())
        shown = expected > 1e-280
        relative = np.abs(P - expected)[shown] / expected[shown]
        worst_relative = max(worst_relative, relative.max())
        assert (P[expected == 0] < 1e-300).all()
    assert worst_absolute <= 2e-15
    assert worst_relative <= 1e-11


def test_tiny_probabilities_keep_their_digits():
    means = np.array([[0.0, -8.0, -20.0, -35.0], [5.0, 0.0, -3.0, -4.0]])
    variances = np.array([[1.0, 1.0, 0.5, 2.0], [0.01, 4.0, 0.2, 9.0]])
    P = max_probabilities(means, variances)
    expected = reference_max_probabilities(means, variances)
    assert expected.min() < 1e-100  # the case is what it claims
    np.testing.assert_allclose(P, expected, rtol=1e-12, atol=0)


def test_many_classes_and_one_row_at_a_time():
    rng = np.random.default_rng(5)
    means = rng.normal(size=(4, 300))
    variances = rng.random((4, 300)) * 0.5 + 0.01
    P = max_probabilities(means, variances)
    np.testing.assert_allclose(P, reference_max_probabilities(means, variances), atol=1e-15)
    for i in range(len(means)):
        np.testing.assert_array_equal(
            max_probabilities(means[i : i + 1], variances[i : i + 1]), P[i : i + 1]
        )


def test_rows_with_a_nan_are_nan_as_before_and_alone():
    means = np.array([[0.0, np.nan, 1.0], [0.0, 0.5, 1.0], [0.0, 1.0, 2.0]])
    variances = np.array([[1.0, 1.0, 1.0], [1.0, np.nan, 1.0], [1.0, 1.0, 0.5]])
    P = max_probabilities(means, variances)
    assert np.isnan(P[:2]).all()
    np.testing.assert_allclose(
        P[2], reference_max_probabilities(means[2:], variances[2:])[0], atol=1e-15
    )
    np.testing.assert_array_equal(max_probabilities(np.zeros((2, 1)), np.ones((2, 1))), 1.0)


# -- compiled log Φ -------------------------------------------------------------------------


def compiled_log_ndtr(x):
    return np.array([gaussian_max.log_ndtr(float(value)) for value in x])


def test_compiled_log_ndtr_is_scipys_to_a_few_ulps():
    x = np.concatenate(
        [
            np.linspace(-60.0, 40.0, 20_001),
            -np.logspace(-300, 300, 601),
            np.logspace(-300, 1.6, 303),
            [-1e5, -40.0, -38.0, -37.0, np.nextafter(-37.0, 0.0), -20.0, -5.0, -1.0, -0.0],
            [0.0, 2.8, 2.9, 5.0, 8.0, 8.3, 20.0, 38.6, 38.7, 38.8, 40.0, 1e300],
        ]
    )
    ours, theirs = compiled_log_ndtr(x), log_ndtr(x)
    infinite = np.isinf(theirs)  # x² overflows below −1.3e154
    assert np.array_equal(ours[infinite], theirs[infinite])
    x, ours, theirs = x[~infinite], ours[~infinite], theirs[~infinite]
    error = np.abs(ours - theirs)
    normal = np.abs(theirs) >= np.finfo(float).tiny
    # scipy rounds x/√2 for x > 0, which costs its result up to x²·2⁻⁵³ relative (ours corrects)
    tolerance = np.maximum(1e-14, np.clip(x, 0.0, 40.0) ** 2 * 2.0**-52)
    relative = error[normal] / np.abs(theirs[normal])
    assert (relative <= tolerance[normal]).all(), x[normal][relative > tolerance[normal]]
    assert error[~normal].max() <= 1e-305  # subnormal results and zeros
    assert np.array_equal(compiled_log_ndtr([np.inf, -np.inf]), [0.0, -np.inf])
    assert np.isnan(gaussian_max.log_ndtr(np.nan))


def test_compiled_log_ndtr_in_the_upper_tail_is_the_asymptotic_value():
    """For x ≥ 20, log Φ(x) = −Q(x) and Q(x) = φ(x)/x·Σ_i (−1)^i (2i−1)!!/x^{2i} converges to
    double precision; with x a multiple of 1/8, x² is exact and so is exp's argument: an
    independent value good to a few ulps."""
    x = np.arange(20.0, 37.5, 0.125)
    series = np.ones_like(x)
    term = np.ones_like(x)
    for i in range(1, 12):
        term *= -(2 * i - 1) / (x * x)
        series += term
    Q = np.exp(-0.5 * x * x) / (x * np.sqrt(2.0 * np.pi)) * series
    np.testing.assert_allclose(compiled_log_ndtr(x), -Q, rtol=4e-15, atol=0)


@pytest.mark.parametrize("k", [1, 2, 20, 1000, 10**6])
def test_the_cut_off_bounds_what_it_leaves_out(k):
    """Past the cut-off z, k terms −log Φ ≈ Φ(−z) add at most 2⁻⁶² to a log-sum, and the
    cut-off is the first such z on its grid of 1/8 from 8."""
    z = gaussian_max._cutoff(k)
    assert k * ndtr(-z) <= 2.0**-62
    assert z == 8.0 or k * ndtr(-(z - 0.125)) > 2.0**-62
