"""olearn's estimators composed with the scikit-learn ecosystem: joblib's persistence and
workers, and the attribute conventions of scikit-learn's own linear models."""

import pickle

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils import get_tags

import olearn

_X, _Y = make_classification(80, 5, n_informative=3, n_classes=3, random_state=0)
_WORDS = {"the": "D", "a": "D", "dog": "N", "cat": "N", "runs": "V", "sleeps": "V"}


def _sentences():
    rng = np.random.RandomState(0)
    X = [list(rng.choice(list(_WORDS), rng.randint(2, 5))) for _ in range(20)]
    return X, [[_WORDS[word] for word in sentence] for sentence in X]


def _stream(make):
    """Two halves of a small stream fitting the model ``make`` builds."""
    model = make()
    if isinstance(model, olearn.SequenceTagger):
        X, y = _sentences()
        return (X[:10], y[:10]), (X[10:], y[10:])
    if isinstance(model, olearn.UniclassPA):
        return (_X[:40],), (_X[40:],)
    y = _Y.astype(float) if "Regressor" in type(model).__name__ else _Y
    return (_X[:40], y[:40]), (_X[40:], y[40:])


_LEARNERS = {
    "perceptron": olearn.PerceptronClassifier,
    "arow-full": lambda: olearn.AROWClassifier(covariance="full"),
    "pa-regressor": olearn.PassiveAggressiveRegressor,
    "kernel-pa": olearn.KernelPAClassifier,
    "uniclass": olearn.UniclassPA,
    "tagger": lambda: olearn.SequenceTagger(max_iter=1),
}


@pytest.mark.parametrize("make", _LEARNERS.values(), ids=_LEARNERS.keys())
def test_a_model_loaded_as_read_only_memory_maps_goes_on_learning(make, tmp_path):
    """joblib.load(mmap_mode="r") — and joblib's workers, for a large model — give the
    state as read-only memory maps: learning on must copy them, not fail (numba's type
    error) or crash (np.add.at on read-only memory)."""
    first, second = _stream(make)
    model = make().fit(*first)
    joblib.dump(model, tmp_path / "model.pkl")
    expected = pickle.loads(pickle.dumps(model)).partial_fit(*second)
    loaded = joblib.load(tmp_path / "model.pkl", mmap_mode="r")
    loaded.partial_fit(*second)
    assert pickle.dumps(loaded.get_params()) == pickle.dumps(expected.get_params())
    for name, value in vars(expected).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(loaded, name), value, err_msg=name)


_REGRESSORS = {
    "pa": olearn.PassiveAggressiveRegressor,
    "arow": olearn.AROWRegressor,
    "arow-full": lambda: olearn.AROWRegressor(covariance="full"),
    "sgd": olearn.SGDRegressor,
}


@pytest.mark.parametrize("make", _REGRESSORS.values(), ids=_REGRESSORS.keys())
def test_a_regressor_has_the_coefficient_shapes_of_scikit_learns(make):
    """coef_ of shape (n_features,) and intercept_ of shape (1,), as SGDRegressor and
    PassiveAggressiveRegressor have them (``dict(zip(names, coef_))`` pairs names and
    weights); ŷ = X·coef_ + intercept_."""
    y = _X @ np.arange(1.0, 6.0)
    model = make().fit(_X, y)
    assert model.coef_.shape == (5,) and model.intercept_.shape == (1,)
    np.testing.assert_allclose(_X @ model.coef_ + model.intercept_, model.predict(_X))


def test_the_tagger_declares_its_input_and_target_to_scikit_learn():
    """Lists of token lists, not a numeric 2-D array, and tags y that fit requires (the
    defaults declared the opposite)."""
    tags = get_tags(olearn.SequenceTagger())
    assert not tags.input_tags.two_d_array and tags.input_tags.string
    assert tags.target_tags.required
    X, y = _sentences()
    with pytest.raises(TypeError):
        olearn.SequenceTagger().fit(X)
