"""What a scikit-learn or River user meets at the edges of the estimators' API: each test
pins down a behaviour that once went wrong."""

from __future__ import annotations

import numpy as np
import pytest

from olearn import (
    AROWClassifier,
    JointFeatureClassifier,
    KernelPAClassifier,
    KernelPARegressor,
    KernelPerceptronClassifier,
    NORMAClassifier,
    NORMARegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)

KERNEL_MODELS = [
    KernelPerceptronClassifier,
    KernelPAClassifier,
    NORMAClassifier,
    KernelPARegressor,
    NORMARegressor,
]


def _xy(make, n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] if make._task == "regression" else (X[:, 0] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("make", KERNEL_MODELS)
def test_a_kernel_models_first_partial_fit_is_one_pass_whatever_max_iter(make):
    """partial_fit is one pass (scikit-learn's convention, and the linear models'): the
    first call on an unfitted model with max_iter=3 used to learn its rows three times."""
    X, y = _xy(make)
    model = make(max_iter=3).partial_fit(X, y)
    assert model.n_rounds_ == len(X)
    assert model.n_iter_ == 1
    one = make(max_iter=1).partial_fit(X, y)
    np.testing.assert_array_equal(model.dual_coef_, one.dual_coef_)
    model.partial_fit(X, y)
    assert model.n_rounds_ == 2 * len(X) and model.n_iter_ == 1
    assert make(max_iter=3).fit(X, y).n_rounds_ == 3 * len(X)


@pytest.mark.parametrize("make", KERNEL_MODELS)
def test_a_kernel_models_first_event_is_learned_once_whatever_max_iter(make):
    X, y = _xy(make)
    model = make(max_iter=3)
    model.learn_one(dict(enumerate(X[0])), y[0], n_features=3)
    assert model.n_rounds_ == 1


def _one_block_per_label(X, label):
    X = np.asarray(X, dtype=np.float64)
    out = np.zeros((X.shape[0], 3 * X.shape[1]))
    out[:, label * X.shape[1] : (label + 1) * X.shape[1]] = X
    return out


def test_a_failed_fit_of_a_joint_feature_model_leaves_the_fitted_model_as_it_was():
    """A fit refused for its labels used to record the new X's width first: the fitted model
    then refused its own inputs ("X has 4 features, but ... is expecting 3")."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 4)), rng.integers(0, 3, 30)
    model = JointFeatureClassifier(feature_map=_one_block_per_label).fit(X, y)
    expected = model.predict(X)
    with pytest.raises(ValueError, match="at least two classes"):
        model.fit(X[:, :3], np.zeros(30))
    assert model.n_features_in_ == 4
    np.testing.assert_array_equal(model.predict(X), expected)
    with pytest.raises(ValueError, match="at least two classes"):
        JointFeatureClassifier(feature_map=_one_block_per_label).partial_fit(X, np.zeros(30))
    unfitted = JointFeatureClassifier(feature_map=_one_block_per_label)
    with pytest.raises(ValueError):
        unfitted.partial_fit(X, np.zeros(30))
    assert not hasattr(unfitted, "n_features_in_")


def test_a_multilabel_model_has_no_predict_proba_one_as_it_has_no_predict_proba():
    """predict_proba_one of a multilabel AROW model used to fail inside zip() ("argument 2
    is longer than argument 1"); it is absent, as predict_proba is."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    Y = (rng.random((30, 3)) < 0.5).astype(int)
    model = AROWClassifier().fit(X, Y)
    assert not hasattr(model, "predict_proba")
    assert not hasattr(model, "predict_proba_one")
    binary = AROWClassifier().fit(X, Y[:, 0])
    assert binary.predict_proba_one({0: 1.0}).keys() == {0, 1}
    assert AROWClassifier().predict_proba_one({0: 1.0}) == {}


@pytest.mark.parametrize("y", [0.5, 2.5, np.float32(1.5)])
def test_learn_one_refuses_a_continuous_label_as_partial_fit_does(y):
    """learn_one on a fitted classifier used to grow a class 0.5 (classes_ [0, 0.5, 1]) from
    a label that partial_fit and fit refuse ("Unknown label type: continuous")."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    for labels in ((X[:, 0] > 0).astype(int), rng.integers(0, 3, 30)):
        model = PassiveAggressiveClassifier().fit(X, labels)
        classes, rounds = model.classes_.copy(), model.n_rounds_
        with pytest.raises(ValueError, match="continuous"):
            model.partial_fit(X[:1], [y])
        with pytest.raises(ValueError, match="continuous"):
            model.learn_one({0: 1.0}, y)
        np.testing.assert_array_equal(model.classes_, classes)
        assert model.n_rounds_ == rounds
        model.learn_one({0: 1.0}, 7.0)  # an integral float is a label
        assert 7 in model.classes_


@pytest.mark.parametrize("fitted, assigned", [(None, 0.0), (0.0, None)])
def test_label_threshold_cannot_switch_between_learned_and_fixed_after_a_multilabel_fit(
    fitted, assigned
):
    """The learned threshold is one more weight row. Switching label_threshold after fitting
    made predict return k + 1 labels (None → 0.0) or the loop read and write a row beyond
    the weights (0.0 → None: heap corruption, "munmap_chunk(): invalid pointer"). It is
    refused, as a change of covariance is; a fixed threshold may still change."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = (rng.random((40, 3)) < 0.5).astype(int)
    model = PassiveAggressiveClassifier(label_threshold=fitted).fit(X, Y)
    weights = model.weights_.copy()
    model.set_params(label_threshold=assigned)
    for call in (
        lambda: model.partial_fit(X, Y),
        lambda: model.learn_one({0: 1.0}, [1, 0, 1]),
        lambda: model.predict(X),
        lambda: model.decision_function(X),
        lambda: model.predict_one({0: 1.0}),
    ):
        with pytest.raises(ValueError, match="label_threshold cannot change"):
            call()
    np.testing.assert_array_equal(model.weights_, weights)
    model.set_params(label_threshold=fitted)
    assert model.predict(X).shape == Y.shape
    assert model.set_params(label_threshold=assigned).fit(X, Y).predict(X).shape == Y.shape
    fixed = PassiveAggressiveClassifier(label_threshold=0.0).fit(X, Y)
    assert fixed.set_params(label_threshold=0.5).partial_fit(X, Y).predict(X).shape == Y.shape


def _same_state_as(model, other):
    """``model`` with ``other``'s learned arrays (copied): two models of one state."""
    for name in ("weights_", "average_sums_", "variances_", "precision_cholesky_", "stats_"):
        getattr(model, name)[...] = getattr(other, name)
    return model


@pytest.mark.parametrize(
    "start, assigned, cost",
    [
        (dict(multiclass="joint"), dict(multiclass="ovr"), False),
        (dict(multiclass="ovr"), dict(multiclass="joint"), False),
        (dict(cost_update="max_loss"), dict(cost_update="prediction"), True),
        (dict(cost_update="prediction"), dict(cost_update="max_loss"), True),
    ],
)
def test_set_params_of_multiclass_and_cost_update_is_followed_after_fitting(start, assigned, cost):
    """set_params(multiclass="ovr") (or cost_update) on a fitted multiclass model used to be
    ignored silently: task_ kept the fit's task and the next partial_fit learned as before,
    though every other parameter is followed after set_params."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), rng.integers(0, 3, 60)
    options = dict(cost=1.0 - np.eye(3)) if cost else {}
    target = AROWClassifier(**assigned).fit(X[:30], y[:30], **options)
    model = _same_state_as(AROWClassifier(**start).fit(X[:30], y[:30], **options), target)
    model.set_params(**assigned)
    assert model.decision_function(X).shape == (60, 3)
    assert model.task_ == target.task_
    model.partial_fit(X[30:], y[30:], **options)
    target.partial_fit(X[30:], y[30:], **options)
    np.testing.assert_array_equal(model.weights_, target.weights_)
    np.testing.assert_array_equal(model.variances_, target.variances_)


def test_a_refused_set_params_leaves_the_fitted_task():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 4)), rng.integers(0, 3, 30)
    model = AROWClassifier().fit(X, y)
    model.set_params(multiclass="ovr", covariance="full")
    with pytest.raises(ValueError, match="^covariance cannot change"):  # (it named average too)
        model.predict(X)
    assert model.task_ == "multiclass"


@pytest.mark.parametrize(
    "make", [AROWClassifier, KernelPAClassifier, PassiveAggressiveRegressor, NORMARegressor]
)
def test_a_refused_fit_on_other_columns_does_not_vouch_for_them(make):
    """A fit refused after reading a DataFrame's columns put feature_names_in_ back but kept
    those columns as checked: predict on that frame — its columns in another order — then
    skipped the names check and predicted on the wrong columns, silently."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    trained = pd.DataFrame(X, columns=["a", "b", "c"])
    reordered = pd.DataFrame(X[:, ::-1], columns=["c", "b", "a"])
    model = make().fit(trained, y)
    expected = model.predict(trained)
    with pytest.raises(ValueError, match="NaN"):
        model.fit(reordered, np.full(40, np.nan))
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(reordered)
    np.testing.assert_array_equal(model.predict(trained), expected)
    np.testing.assert_allclose(model.predict(reordered[["a", "b", "c"]]), expected)


@pytest.mark.parametrize("make", [AROWClassifier, KernelPAClassifier])
def test_numbers_given_to_a_model_of_object_string_labels_are_refused_by_name(make):
    """pandas keeps string labels in object arrays. Numbers given to a model fitted on them
    used to fail inside NumPy's sort ("TypeError: '<' not supported between instances of
    'int' and 'str'") instead of naming the mismatch, as for NumPy string labels."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    model = make().fit(X, np.array(["a", "b"] * 10, dtype=object))
    for call in (
        lambda: model.learn_one({0: 1.0}, 1),
        lambda: model.partial_fit(X[:1], [1]),
    ):
        with pytest.raises(ValueError, match="numeric labels, but the model's classes are string"):
            call()
    with pytest.raises(ValueError):
        model.partial_fit(X[:1], [1], classes=[1, "a", "b"])
    with pytest.raises(ValueError, match="Unknown label type"):
        model.partial_fit(X[:1], np.array([1], dtype=object))
    model.partial_fit(X[:2], np.array(["a", "c"], dtype=object))
    assert model.classes_.tolist() == ["a", "b", "c"]
