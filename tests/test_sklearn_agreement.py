"""Agreement with scikit-learn where both implement the same algorithm.

* ``sklearn.linear_model.Perceptron(eta0=1, penalty=None)`` is Rosenblatt's rule; on dense
  input it steps the intercept by y·eta0, which is our constant feature of value 1, so the
  two agree with and without an intercept. (On sparse input scikit-learn damps the intercept
  step by 0.01, so sparse input is compared without one.)
* ``SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1"/"pa2", eta0=C)`` is PA-I /
  PA-II, and so is the deprecated ``PassiveAggressiveClassifier``. scikit-learn leaves the
  intercept out of ‖x‖² while we count its feature, so these are compared without one.
* ``average=True`` in scikit-learn's SGD is the mean of the weights after every round: the
  averaged Perceptron and averaged PA-I.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.linear_model as sklearn_linear
from reference import make_stream
from sklearn.linear_model import Perceptron, SGDClassifier

from olearn import PassiveAggressiveClassifier, PerceptronClassifier

STREAMS = {
    "dense-noisy": dict(n=1000, d=5, seed=31, noise=0.1),
    "dense-separable": dict(n=1000, d=5, seed=32, noise=0.0),
    "sparse-noisy": dict(n=1000, d=20, seed=33, noise=0.1, density=0.2),
}


def assert_same_model(ours, theirs, X, rtol=1e-12):
    scale = np.abs(theirs.coef_).max()
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=rtol, atol=rtol * scale)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=rtol, atol=rtol * scale)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def intercept_cases(stream):
    return [False] if stream.startswith("sparse") else [True, False]


CASES = [(s, fi) for s in STREAMS for fi in intercept_cases(s)]
CASE_IDS = [f"{s}-{'intercept' if fi else 'no-intercept'}" for s, fi in CASES]


@pytest.mark.parametrize("max_iter", [1, 3])
@pytest.mark.parametrize(("stream", "fit_intercept"), CASES, ids=CASE_IDS)
def test_perceptron_matches_sklearn(stream, fit_intercept, max_iter):
    X, y, _ = make_stream(**STREAMS[stream])
    theirs = Perceptron(
        max_iter=max_iter,
        shuffle=False,
        tol=None,
        eta0=1.0,
        penalty=None,
        fit_intercept=fit_intercept,
    ).fit(X, y)
    ours = PerceptronClassifier(max_iter=max_iter, fit_intercept=fit_intercept).fit(X, y)
    assert_same_model(ours, theirs, X, rtol=0.0 if max_iter == 1 else 1e-12)


def test_perceptron_partial_fit_chunks_match_sklearn():
    X, y, _ = make_stream(**STREAMS["dense-noisy"])
    theirs = Perceptron(shuffle=False, tol=None, eta0=1.0, penalty=None)
    ours = PerceptronClassifier()
    for start in range(0, len(y), 137):
        chunk = slice(start, start + 137)
        theirs.partial_fit(X[chunk], y[chunk], classes=[-1.0, 1.0])
        ours.partial_fit(X[chunk], y[chunk], classes=[-1.0, 1.0])
        assert_same_model(ours, theirs, X, rtol=0.0)


def sgd_pa(variant, C, fit_intercept, average=False):
    return SGDClassifier(
        loss="hinge",
        penalty=None,
        learning_rate="pa1" if variant == "PA-I" else "pa2",
        eta0=C,
        max_iter=1,
        shuffle=False,
        tol=None,
        fit_intercept=fit_intercept,
        average=average,
    )


def deprecated_pa(variant, C, fit_intercept, average=False):
    cls = sklearn_linear.PassiveAggressiveClassifier
    return cls(
        C=C,
        loss="hinge" if variant == "PA-I" else "squared_hinge",
        max_iter=1,
        shuffle=False,
        tol=None,
        fit_intercept=fit_intercept,
        average=average,
    )


# scikit-learn ≥ 1.8 deprecates PassiveAggressiveClassifier; compare with it while it exists.
PA_IMPLEMENTATIONS = {"sgd": sgd_pa}
if hasattr(sklearn_linear, "PassiveAggressiveClassifier"):
    PA_IMPLEMENTATIONS["passive-aggressive"] = deprecated_pa


@pytest.mark.parametrize("C", [0.05, 1.0])
@pytest.mark.parametrize("variant", ["PA-I", "PA-II"])
@pytest.mark.parametrize("stream", STREAMS, ids=list(STREAMS))
@pytest.mark.parametrize("implementation", PA_IMPLEMENTATIONS, ids=list(PA_IMPLEMENTATIONS))
def test_passive_aggressive_matches_sklearn(implementation, stream, variant, C):
    X, y, _ = make_stream(**STREAMS[stream])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs = PA_IMPLEMENTATIONS[implementation](variant, C, False).fit(X, y)
    ours = PassiveAggressiveClassifier(variant=variant, C=C, fit_intercept=False).fit(X, y)
    assert_same_model(ours, theirs, X, rtol=1e-9)


def test_passive_aggressive_intercepts_differ_from_sklearn():
    """The documented difference: our intercept is a feature (it counts in ‖x‖²)."""
    X, y, _ = make_stream(**STREAMS["dense-noisy"])
    theirs = sgd_pa("PA-I", 1.0, True).fit(X, y)
    ours = PassiveAggressiveClassifier(variant="PA-I", C=1.0).fit(X, y)
    assert np.abs(ours.coef_ - theirs.coef_).max() > 1e-3


@pytest.mark.parametrize(("stream", "fit_intercept"), CASES, ids=CASE_IDS)
def test_averaged_perceptron_matches_sklearn_averaged_sgd(stream, fit_intercept):
    X, y, _ = make_stream(**STREAMS[stream])
    theirs = SGDClassifier(
        loss="perceptron",
        penalty=None,
        learning_rate="constant",
        eta0=1.0,
        max_iter=1,
        shuffle=False,
        tol=None,
        fit_intercept=fit_intercept,
        average=True,
    ).fit(X, y)
    ours = PerceptronClassifier(average=True, fit_intercept=fit_intercept).fit(X, y)
    assert_same_model(ours, theirs, X, rtol=1e-9)


@pytest.mark.parametrize("stream", STREAMS, ids=list(STREAMS))
def test_averaged_pa1_matches_sklearn_averaged_sgd(stream):
    """Without all-zero rows: scikit-learn's PA-I loop skips them with ``continue`` before its
    averaging step (``_sgd_fast.pyx``: ``if update == 0: continue``), so they do not count as
    rounds there; here every round counts (ALGORITHMS.md: the average of all w_t)."""
    X, y, _ = make_stream(**STREAMS[stream])
    nonzero = np.asarray(abs(X).sum(axis=1)).ravel() > 0
    X, y = X[nonzero], y[nonzero]
    theirs = sgd_pa("PA-I", 0.3, False, average=True).fit(X, y)
    ours = PassiveAggressiveClassifier(C=0.3, average=True, fit_intercept=False).fit(X, y)
    assert_same_model(ours, theirs, X, rtol=1e-9)
