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


# -- set_params between calls (issue 12) ------------------------------------------------------


def _entry_points(model, X, y):
    """Every way a fitted model is used after set_params, each as a thunk."""
    scores = getattr(model, "decision_function", model.predict)
    return {
        "learn_one": lambda: model.learn_one({0: 1.0}, y[0]),
        "predict_one": lambda: model.predict_one({0: 1.0}),
        "partial_fit": lambda: model.partial_fit(X[:1], y[:1]),
        "predict": lambda: model.predict(X[:2]),
        "decision_function": lambda: scores(X[:2]),
    }


@pytest.mark.parametrize(
    "entry", ["learn_one", "predict_one", "partial_fit", "predict", "decision_function"]
)
@pytest.mark.parametrize(
    "make, bad",
    [
        (lambda: AROWClassifier(), {"r": -5}),
        (lambda: PassiveAggressiveClassifier(), {"C": 0.0}),
        (lambda: olearn.PassiveAggressiveRegressor(), {"epsilon": -1.0}),
        (lambda: olearn.SGDRegressor(), {"schedule": "inverse", "alpha": 0.0}),
    ],
)
def test_every_entry_point_validates_parameters_set_after_fitting(make, bad, entry, stream):
    X, y = stream
    if make().__class__.__name__.endswith("Regressor"):
        y = X[:, 0].copy()
    model = make().fit(X, y)
    before = {k: v.copy() for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    model.set_params(**bad)
    with pytest.raises(ValueError):
        _entry_points(model, X, y)[entry]()
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)


def test_learn_one_uses_the_parameters_set_after_fitting(stream):
    """PA-I's step is capped at C: after set_params(C=…) learn_one must take the new cap,
    exactly as a model built with it from the start."""
    X, y = stream
    x = {0: 3.0, 2: -1.0}
    label = "yes"
    old = PassiveAggressiveClassifier(C=1e-6).fit(X, y)
    new = PassiveAggressiveClassifier(C=10.0).fit(X, y)
    new.weights_[...] = old.weights_  # same state, another C
    old.set_params(C=10.0)
    old.learn_one(x, label)
    new.learn_one(x, label)
    np.testing.assert_array_equal(old.weights_, new.weights_)
    assert np.abs(old.weights_ - new.weights_).max() == 0
    model = PassiveAggressiveClassifier().fit(X, y)
    model.fit_intercept = False  # plain assignment counts too
    assert model.intercept_[0] == 0.0


def test_layout_parameters_cannot_change_after_fitting(stream):
    X, y = stream
    model = AROWClassifier().fit(X, y)
    model.set_params(covariance="full")
    with pytest.raises(ValueError, match="cannot change after fitting"):
        model.learn_one({0: 1.0}, "yes")
    model.set_params(covariance="diagonal")
    model.learn_one({0: 1.0}, "yes")  # back to the fitted layout: fine


def test_kernel_and_uniclass_models_follow_set_params(stream):
    X, y = stream
    model = olearn.KernelPAClassifier(C=1.0).fit(X[:50], y[:50])
    model.set_params(C=-1.0)
    with pytest.raises(ValueError):
        model.partial_fit(X[:5], y[:5])
    with pytest.raises(ValueError):
        model.predict(X[:5])
    model.set_params(C=2.0, gamma=0.5)
    model.partial_fit(X[:5], y[:5])
    assert model.gamma_ == 0.5 and model._hp[0] == 2.0
    model.set_params(budget=10)
    with pytest.raises(ValueError, match="cannot change after fitting"):
        model.predict(X[:5])
    center = olearn.UniclassPA(C=1.0).fit(X)
    center.set_params(C=-1.0)
    with pytest.raises(ValueError):
        center.partial_fit(X[:3])
    center.set_params(C=1.0, learn_epsilon=True, B=2.0)
    with pytest.raises(ValueError, match="cannot change after fitting"):
        center.predict()


# -- SequenceTagger labels (issue 12) ------------------------------------------------------------


@pytest.mark.parametrize("y", [["NOUN"], "NOUN", [["NOUN", "VERB"], "NO"]])
def test_a_tag_string_where_a_sequence_is_expected_is_an_error(y):
    sentences = [["the", "dog"], ["it", "is"]][: len(y) if isinstance(y, list) else 1]
    for call in ("fit", "partial_fit"):
        tagger = olearn.SequenceTagger(max_iter=1)
        with pytest.raises(ValueError, match="list of tag"):
            getattr(tagger, call)(sentences, y)
        assert not hasattr(tagger, "classes_")


# -- ordered streams (issue 13) ------------------------------------------------------------------


def test_fit_on_labels_sorted_by_class_warns_naming_shuffle():
    import warnings

    from sklearn.datasets import load_iris

    from olearn.estimators._validation import OrderedStreamWarning

    X, y = load_iris(return_X_y=True)  # sorted by class
    for model in (AROWClassifier(), olearn.KernelPAClassifier()):
        with pytest.warns(OrderedStreamWarning, match="shuffle=True"):
            model.fit(X, y)
        sorted_accuracy = model.score(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("error", OrderedStreamWarning)
            model.set_params(shuffle=True, random_state=0).fit(X, y)
            assert model.score(X, y) > sorted_accuracy + 0.2
            model.set_params(shuffle=False)
            perm = np.random.default_rng(0).permutation(len(y))
            model.fit(X[perm], y[perm])  # an ordinary order: no warning
            model.partial_fit(X, y)  # a stream chunk may be one class: no warning


def test_classes_given_to_a_fitted_model_are_read_as_announced_labels():
    """``partial_fit(classes=...)`` on a fitted model: the same labels change nothing (and
    are not read again when the same object comes back); new ones are added as if met; a
    set that leaves out a learned label, or a y label outside it, is refused."""
    from olearn import AROWClassifier

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.arange(40) % 2
    model = AROWClassifier().partial_fit(X, y, classes=[0, 1])
    same = np.array([0, 1])
    model.partial_fit(X, y, classes=same)
    model.partial_fit(X, y, classes=same)
    assert model.classes_.tolist() == [0, 1]
    model.partial_fit(X, y, classes=[0, 1, 5])
    assert model.classes_.tolist() == [0, 1, 5] and model.weights_.shape[0] == 3
    with pytest.raises(ValueError, match=r"leaves out labels the model has learned: \[5\]"):
        model.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"y has labels \[7\] not in classes"):
        model.partial_fit(X, np.where(y == 1, 7, 0), classes=[0, 1, 5, 6])
    assert model.classes_.tolist() == [0, 1, 5]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_y_outside_the_models_own_labels_announced_is_refused_on_every_call(n_classes):
    """``classes`` equal to a fitted model's labels — passed with every chunk of a stream,
    as the same array, an equal list, tuple or new array — still bound y: a label outside
    them is refused on the fast paths too, not learned as a new class."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    y = np.arange(30) % n_classes
    labels = list(range(n_classes))
    same = np.array(labels)
    model = PassiveAggressiveClassifier().partial_fit(X, y, classes=same)
    for classes in (same, same, labels, labels, tuple(labels), np.array(labels)):
        with pytest.raises(ValueError, match=r"y has labels \[7\] not in classes"):
            model.partial_fit(X[:2], np.array([7, 7]), classes=classes)
        model.partial_fit(X[:2], y[:2], classes=classes)  # (the next call hits the cache)
    assert model.classes_.tolist() == labels
    # fitted again on other labels: the announcement last found equal is read again
    model.fit(X, np.arange(30) % (n_classes + 1))
    with pytest.raises(ValueError, match="leaves out labels the model has learned"):
        model.partial_fit(X[:2], y[:2], classes=labels)
