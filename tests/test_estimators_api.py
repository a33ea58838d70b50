"""The public API of the binary classifiers: labels, streaming, pickling, fast paths."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
)

ALL = [
    PerceptronClassifier(),
    PerceptronClassifier(average=True),
    PassiveAggressiveClassifier(variant="PA"),
    PassiveAggressiveClassifier(variant="PA-II", average=True),
    SecondOrderPerceptronClassifier(),
    SecondOrderPerceptronClassifier(covariance="diagonal"),
    CWClassifier(),
    CWClassifier(method="variance", covariance="full"),
    AROWClassifier(),
    AROWClassifier(covariance="full"),
    SCWClassifier(),
    SCWClassifier(variant="II", covariance="full"),
]
IDS = [f"{type(m).__name__}-{i}" for i, m in enumerate(ALL)]


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = np.where(X @ rng.normal(size=6) > 0, "yes", "no")
    return X, y


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_string_labels_and_learning(model, stream):
    X, y = stream
    model.fit(X, y)
    assert set(model.predict(X)) <= {"no", "yes"}
    assert model.score(X, y) > 0.8
    assert 0 < model.n_mistakes_ <= model.n_updates_ <= model.n_rounds_ == len(y)
    assert model.coef_.shape == (1, 6) and model.intercept_.shape == (1,)


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_partial_fit_in_chunks_equals_fit(model, stream):
    X, y = stream
    whole = olearn_clone(model).fit(X, y)
    chunked = olearn_clone(model)
    for start in range(0, len(y), 70):
        chunked.partial_fit(X[start : start + 70], y[start : start + 70], classes=["no", "yes"])
    np.testing.assert_array_equal(whole.coef_, chunked.coef_)
    assert whole.n_mistakes_ == chunked.n_mistakes_


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_learn_one_equals_partial_fit(model, stream):
    X, y = stream
    batch = olearn_clone(model).partial_fit(X[:5], y[:5])
    single = olearn_clone(model).partial_fit(X[:5], y[:5])
    for row, label in zip(X[5:40], y[5:40], strict=True):
        batch.partial_fit(row[None, :], [label])
        if label == y[0]:
            single.learn_one(dict(enumerate(row)), label)
        else:
            single.learn_one((np.arange(6), row), label)
    np.testing.assert_allclose(single.coef_, batch.coef_, rtol=0, atol=1e-12)
    assert single.predict_one(dict(enumerate(X[50]))) == batch.predict(X[50:51])[0]


@pytest.mark.parametrize("model", ALL, ids=IDS)
def test_pickle_mid_stream_continues_identically(model, stream):
    X, y = stream
    original = olearn_clone(model).partial_fit(X[:100], y[:100])
    restored = pickle.loads(pickle.dumps(original))
    original.partial_fit(X[100:], y[100:])
    restored.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(original.coef_, restored.coef_)


def test_second_label_arriving_later_is_exact(stream):
    """A binary model may meet its second label later; negating the means is exact."""
    X, y = stream
    order = np.argsort(y == "no", kind="stable")  # all "yes" first, then "no"
    X, y = X[order], y[order]
    late = AROWClassifier()
    late.partial_fit(X[:50], y[:50])  # only "yes" so far
    late.partial_fit(X[50:], y[50:])
    announced = AROWClassifier().partial_fit(X, y, classes=["no", "yes"])
    np.testing.assert_allclose(late.coef_, announced.coef_, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(late.classes_, ["no", "yes"])


def test_sparse_input_and_proba(stream):
    X, y = stream
    dense = CWClassifier().fit(X, y)
    sparse = CWClassifier().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    proba = dense.predict_proba(X[:10])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert ((proba[:, 1] > 0.5) == (dense.decision_function(X[:10]) > 0)).all()


def test_first_order_models_have_no_proba():
    assert not hasattr(PassiveAggressiveClassifier(), "predict_proba")


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, olearn; print('sklearn' in sys.modules, 'numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def olearn_clone(model):
    from sklearn.base import clone

    return clone(model)


def test_public_names():
    for name in olearn.__all__:
        assert getattr(olearn, name) is not None


def test_counter_slots_agree_between_the_compiled_loops():
    """estimators/_counters.py reads rounds, mistakes and updates from the same slots of
    ``stats_`` for linear and kernel models."""
    from olearn import engine
    from olearn.kernels import loop

    assert (loop.STAT_ROUNDS, loop.STAT_MISTAKES, loop.STAT_UPDATES) == (
        engine.STAT_ROUNDS,
        engine.STAT_MISTAKES,
        engine.STAT_UPDATES,
    )
