"""Bad input: a ValueError whose message names the problem, raised before any state changes.

Each failing call is made on a fresh model and on a fitted one; every attribute (parameters,
state arrays, counters, classes, n_features_in_) is then compared with a snapshot taken
before the call.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_same_state, model_state

from olearn import (
    AROWClassifier,
    BudgetedSGDClassifier,
    CWClassifier,
    KernelPAClassifier,
    KernelPARegressor,
    KernelPegasosClassifier,
    KernelPerceptronClassifier,
    NORMAClassifier,
    NORMARegressor,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
    UniclassPA,
)

MODELS = {
    "perceptron-averaged": lambda: PerceptronClassifier(average=True),
    "pa1": lambda: PassiveAggressiveClassifier(),
    "sop-full": lambda: SecondOrderPerceptronClassifier(),
    "cw-diagonal": lambda: CWClassifier(),
    "arow-full": lambda: AROWClassifier(covariance="full"),
    "scw2-diagonal": lambda: SCWClassifier(variant="II"),
}

RNG = np.random.default_rng(3)
X = RNG.normal(size=(30, 4))
Y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "b", "a")


def with_nan(X, value=np.nan):
    X = X.copy()
    X[7, 2] = value
    return X


# name -> (X, y, message pattern); y=None uses Y.
BAD_FITS = {
    "nan-in-X": (with_nan(X), None, "NaN"),
    "inf-in-X": (with_nan(X, np.inf), None, "infinity"),
    "nan-in-sparse-X": (sp.csr_matrix(with_nan(X)), None, "NaN"),
    "nan-in-y": (X, np.where(X[:, 0] > 0, 1.0, np.nan), "y contains NaN"),
    "inf-in-y": (X, np.where(X[:, 0] > 0, 1.0, -np.inf), "y contains NaN or infinity"),
    "empty-X": (np.zeros((0, 4)), np.array([], dtype=str), "0 sample"),
    "short-y": (X, Y[:-1], "inconsistent numbers of samples"),
    "long-y": (X[:-1], Y, "inconsistent numbers of samples"),
    "y-2d-strings": (X, np.column_stack([Y, Y]), "indicator matrix must be numeric"),
}

BAD_FEATURE_COUNTS = {
    "fewer-features": (X[:, :3], "X has 3 features, but .* is expecting 4 features"),
    "more-features": (np.hstack([X, X]), "X has 8 features, but .* is expecting 4 features"),
    "fewer-features-sparse": (
        sp.csr_matrix(X[:, :3]),
        "X has 3 features, but .* is expecting 4 features",
    ),
}


def fitted(name):
    return MODELS[name]().fit(X, Y)


@pytest.mark.parametrize("case", BAD_FITS, ids=list(BAD_FITS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_bad_data_on_a_fresh_model(name, case):
    data, y, message = BAD_FITS[case]
    y = Y if y is None else y
    for method in ("fit", "partial_fit"):
        model = MODELS[name]()
        before = model_state(model)
        with pytest.raises(ValueError, match=message):
            getattr(model, method)(data, y)
        assert_same_state(before, model_state(model))


@pytest.mark.parametrize("case", BAD_FITS, ids=list(BAD_FITS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_bad_data_on_a_fitted_model(name, case):
    data, y, message = BAD_FITS[case]
    y = Y if y is None else y
    for method in ("partial_fit", "fit"):
        model = fitted(name)
        before = model_state(model)
        with pytest.raises(ValueError, match=message):
            getattr(model, method)(data, y)
        assert_same_state(before, model_state(model))


@pytest.mark.parametrize("case", BAD_FEATURE_COUNTS, ids=list(BAD_FEATURE_COUNTS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_wrong_number_of_features(name, case):
    data, message = BAD_FEATURE_COUNTS[case]
    model = fitted(name)
    before = model_state(model)
    with pytest.raises(ValueError, match=message):
        model.partial_fit(data, Y[: data.shape[0]])
    for method in ("predict", "decision_function") + (
        ("predict_proba",) if hasattr(model, "predict_proba") else ()
    ):
        if sp.issparse(data):
            continue  # sparse rows of another width are scored: see the next test
        with pytest.raises(ValueError, match=message):
            getattr(model, method)(data)
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_sparse_rows_of_another_width_are_scored_unseen_features_ignored(name):
    """At prediction, sparse rows narrower than the training width have no value in the
    missing columns, and features beyond it were never seen (weight 0), as with hashing:
    both are scored, as their dense equivalent of the training width."""
    model = fitted(name)
    narrow = sp.csr_matrix(X[:, :3])
    wide = sp.csr_matrix(np.hstack([X, 5.0 * X]))
    padded = np.hstack([X[:, :3], np.zeros((len(X), 1))])
    methods = ["predict", "decision_function"]
    methods += ["predict_proba"] if hasattr(model, "predict_proba") else []
    for method in methods:
        for data, dense in ((narrow, padded), (wide, X)):
            got, expected = getattr(model, method)(data), getattr(model, method)(dense)
            if method == "predict":
                np.testing.assert_array_equal(got, expected)
            else:
                np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_refit_with_other_features_and_bad_labels_keeps_the_old_model():
    """fit on new data with a different width fails on y: n_features_in_ must not change."""
    model = fitted("arow-full")
    before = model_state(model)
    with pytest.raises(ValueError, match="y contains NaN"):
        model.fit(X[:, :3], np.full(30, np.nan))
    assert_same_state(before, model_state(model))
    model.predict(X)  # still the 4-feature model


# The models whose fit records the input attributes outside the linear models' base class.
WIDTH_KEEPERS = {
    "kernel-perceptron": lambda: KernelPerceptronClassifier(),
    "kernel-pa": lambda: KernelPAClassifier(),
    "kernel-pa-regressor": lambda: KernelPARegressor(),
    "norma": lambda: NORMAClassifier(),
    "norma-regressor": lambda: NORMARegressor(),
    "kernel-pegasos": lambda: KernelPegasosClassifier(),
    "budgeted-sgd": lambda: BudgetedSGDClassifier(budget=5),
    "uniclass-pa": lambda: UniclassPA(),
}


@pytest.mark.parametrize("name", WIDTH_KEEPERS, ids=list(WIDTH_KEEPERS))
def test_failed_fit_on_other_features_keeps_the_old_model(name):
    """Bad labels, a NaN in X or negative weights, given with X of another width: fit raises
    and the fitted model keeps its width (n_features_in_), its state and its predictions."""
    model = WIDTH_KEEPERS[name]()
    uniclass = isinstance(model, UniclassPA)
    regressor = isinstance(model, (KernelPARegressor, NORMARegressor))
    y = X[:, 0] if regressor else Y
    model.fit(X) if uniclass else model.fit(X, y)
    before, predicted = model_state(model), model.predict(X)
    wide = np.hstack([X, X])
    bad_y = np.r_[X[:-1, 0], np.nan] if regressor else np.r_[np.ones(len(X) - 1), 0.5]
    calls = [("NaN", lambda fit: fit(with_nan(wide)) if uniclass else fit(with_nan(wide), y))]
    calls.append(("nonnegative", lambda fit: fit(wide, **({} if uniclass else {"y": y}),
                                                 sample_weight=-np.ones(len(X)))))  # fmt: skip
    if not uniclass:
        calls.append(("y contains NaN|Unknown label type", lambda fit: fit(wide, bad_y)))
    for message, call in calls:
        with pytest.raises(ValueError, match=message):
            call(model.fit)
        assert model.n_features_in_ == X.shape[1]
        assert_same_state(before, model_state(model))
        np.testing.assert_array_equal(model.predict(X), predicted)


def test_failed_first_partial_fit_leaves_the_model_unfitted():
    model = PassiveAggressiveClassifier()
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model.partial_fit(X, Y[:-1])
    assert not hasattr(model, "n_features_in_")
    model.partial_fit(X[:, :2], Y)  # a later first call may use any width
    assert model.n_features_in_ == 2


# -- hyper-parameters ---------------------------------------------------------------------------

BAD_PARAMETERS = [
    (PassiveAggressiveClassifier, {"C": 0.0}, "'C' parameter"),
    (PassiveAggressiveClassifier, {"C": -1.0}, "'C' parameter"),
    (PassiveAggressiveClassifier, {"C": np.nan}, "'C' parameter"),
    (PassiveAggressiveClassifier, {"variant": "PA-III"}, "'variant' parameter"),
    (AROWClassifier, {"r": 0.0}, "'r' parameter"),
    (AROWClassifier, {"r": -2.0}, "'r' parameter"),
    (AROWClassifier, {"a": 0.0}, "'a' parameter"),
    (CWClassifier, {"eta": 0.5}, "'eta' parameter"),
    (CWClassifier, {"eta": 0.3}, "'eta' parameter"),
    (CWClassifier, {"eta": 1.0}, "'eta' parameter"),
    (CWClassifier, {"eta": 1.5}, "'eta' parameter"),
    (CWClassifier, {"a": -1.0}, "'a' parameter"),
    (CWClassifier, {"method": "approximate"}, "'method' parameter"),
    (SCWClassifier, {"eta": 0.5}, "'eta' parameter"),
    (SCWClassifier, {"eta": 1.0}, "'eta' parameter"),
    (SCWClassifier, {"C": 0.0}, "'C' parameter"),
    (SCWClassifier, {"C": -0.5}, "'C' parameter"),
    (SCWClassifier, {"a": 0.0}, "'a' parameter"),
    (SecondOrderPerceptronClassifier, {"a": 0.0}, "'a' parameter"),
    (SecondOrderPerceptronClassifier, {"a": -1.0}, "'a' parameter"),
    (SecondOrderPerceptronClassifier, {"covariance": "dense"}, "'covariance' parameter"),
    (PerceptronClassifier, {"max_iter": 0}, "'max_iter' parameter"),
]
PARAM_IDS = [f"{cls.__name__}-{params}" for cls, params, _ in BAD_PARAMETERS]


@pytest.mark.parametrize(("cls", "params", "message"), BAD_PARAMETERS, ids=PARAM_IDS)
def test_invalid_hyperparameters_on_a_fresh_model(cls, params, message):
    for method in ("fit", "partial_fit"):
        model = cls(**params)
        before = model_state(model)
        with pytest.raises(ValueError, match=message):
            getattr(model, method)(X, Y)
        assert_same_state(before, model_state(model))


@pytest.mark.parametrize(("cls", "params", "message"), BAD_PARAMETERS, ids=PARAM_IDS)
def test_invalid_hyperparameters_set_on_a_fitted_model(cls, params, message):
    """set_params after fitting, then partial_fit: the new value is checked, and the failed
    call changes nothing (the state stays that of the valid parameters)."""
    model = cls().fit(X, Y)
    model.set_params(**params)
    before = model_state(model)
    with pytest.raises(ValueError, match=message):
        model.partial_fit(X, Y)
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize(
    ("model", "params"),
    [
        (AROWClassifier(), {"covariance": "full"}),
        (PassiveAggressiveClassifier(), {"average": True}),
        (SCWClassifier(covariance="full"), {"covariance": "diagonal"}),
    ],
)
def test_state_layout_cannot_change_between_partial_fits(model, params):
    model.fit(X, Y).set_params(**params)
    before = model_state(model)
    with pytest.raises(ValueError, match="cannot change after fitting"):
        model.partial_fit(X, Y)
    assert_same_state(before, model_state(model))
    model.fit(X, Y)  # fit starts over with the new layout
    assert model.score(X, Y) > 0.7


def test_changed_hyperparameter_takes_effect_in_partial_fit():
    """The check above must not be bought by ignoring set_params: PA-I with C changed after
    the first call continues exactly like a model that had that C for the second call."""
    first, second = X[:15], X[15:]
    model = PassiveAggressiveClassifier(C=1.0).partial_fit(first, Y[:15])
    model.set_params(C=0.05).partial_fit(second, Y[15:])
    w = PassiveAggressiveClassifier(C=1.0).partial_fit(first, Y[:15]).weights_[0].copy()
    # Replay the second chunk by hand with C = 0.05.
    for x, label in zip(np.hstack([second, np.ones((15, 1))]), Y[15:], strict=True):
        sign = 1.0 if label == "b" else -1.0
        loss = max(0.0, 1.0 - sign * (w @ x))
        w = w + min(0.05, loss / (x @ x)) * sign * x
    np.testing.assert_allclose(model.weights_[0], w, rtol=1e-12)


# -- learn_one / predict_one ---------------------------------------------------------------------

BAD_EVENTS = {
    "index-too-large": ({4: 1.0}, "b", "feature index out of range"),
    "negative-index": ({-1: 1.0}, "b", "feature index out of range"),
    "nan-value": ({0: np.nan}, "b", "NaN"),
    "inf-value": ((np.array([1]), np.array([np.inf])), "b", "infinity"),
    "mismatched-pair": ((np.array([0, 1]), np.array([1.0])), "b", "equal-length"),
    "wrong-label-type": ({0: 1.0}, 3, "labels, but the model's classes are"),
}


@pytest.mark.parametrize("case", BAD_EVENTS, ids=list(BAD_EVENTS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_bad_learn_one(name, case):
    x, y, message = BAD_EVENTS[case]
    model = fitted(name)
    before = model_state(model)
    with pytest.raises(ValueError, match=message):
        model.learn_one(x, y)
    if case == "index-too-large":  # to score: a feature never seen, ignored
        assert model.predict_one(x) == model.predict_one({})
    elif case != "wrong-label-type":
        with pytest.raises(ValueError, match=message):
            model.predict_one(x)
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize("label", [np.nan, np.inf, float("nan")])
def test_learn_one_rejects_a_non_finite_label(label):
    numeric = np.where(Y == "b", 1.0, 0.0)
    for model in (PassiveAggressiveClassifier().fit(X, numeric), AROWClassifier().fit(X, Y)):
        before = model_state(model)
        with pytest.raises(ValueError, match="NaN or infinity"):
            model.learn_one({0: 1.0}, label)
        assert_same_state(before, model_state(model))
    # A model that has seen a single class must not adopt NaN as its second one.
    one_class = PassiveAggressiveClassifier().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="NaN or infinity"):
        one_class.learn_one({0: 1.0}, label)
    np.testing.assert_array_equal(one_class.classes_, [0.0])


def test_learn_one_before_fit_starts_the_model_and_bad_first_events_change_nothing():
    model = PassiveAggressiveClassifier()
    for x, y, message in [
        ({0: np.nan}, 1, "NaN"),
        ({-1: 1.0}, 1, "out of range"),
        ({0: 1.0}, np.nan, "NaN"),
        ({2**18: 1.0}, 1, r"out of range \[0, 262144\)"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.learn_one(x, y)
        assert not hasattr(model, "n_features_in_") and not hasattr(model, "weights_")
    with pytest.raises(ValueError, match="positive integer"):
        model.learn_one({0: 1.0}, 1, n_features=0)
    model.learn_one({0: 1.0}, 1, n_features=8)
    assert model.n_features_in_ == 8 and model.classes_.tolist() == [1]


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_partial_fit_with_labels_of_another_type(name):
    """A model fitted on string labels rejects numbers (a third *string* label is a new
    class since multiclass landed: see tests/test_tasks_multiclass.py)."""
    model = fitted(name)
    before = model_state(model)
    with pytest.raises(ValueError, match="labels, but the model's classes are"):
        model.partial_fit(X, np.where(X[:, 0] > 0, 1, 0))
    assert_same_state(before, model_state(model))
