"""The conventions of River and Vowpal Wabbit users, on the event API (issue 13).

* ``learn_one`` works on an unfitted model (width ``2**18``, VW's ``-b 18``, or
  ``n_features=``); ``predict_one`` is None and ``predict_proba_one`` empty before that.
* Dict keys may be names (str), hashed as the VW reader hashes the features of its unnamed
  namespace — the same model as ``load_vw`` on the same lines — integers, or NumPy integers
  (read in compiled code, as fast as ints: benchmarks/bench_inputs.py).
* A feature beyond the width at prediction was never seen: ignored, as with hashing.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import AROWClassifier, PassiveAggressiveClassifier, PassiveAggressiveRegressor
from olearn.io import murmurhash3_32

STATE = ("weights_", "average_sums_", "variances_", "stats_")
WORDS = ["price", "cheap", "offer", "meeting", "agenda", "report", "won", "free", "été"]


def events(n=80, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        words = rng.choice(WORDS, size=rng.integers(1, 5), replace=False)
        x = {str(w): float(rng.integers(1, 4)) for w in words}
        y = "spam" if sum(x.get(w, 0) for w in ("cheap", "offer", "won", "free")) > 2 else "ham"
        out.append((x, y))
    return out


def hashed(x, width=2**18):
    idx = np.array([murmurhash3_32(name) % width for name in x], dtype=np.int64)
    return sp.csr_matrix((list(x.values()), idx, [0, len(idx)]), shape=(1, width))


@pytest.mark.parametrize("make", [AROWClassifier, PassiveAggressiveClassifier])
def test_learn_one_from_scratch_with_names_equals_partial_fit_on_hashed_rows(make):
    stream = events()
    model, reference = make(), make()
    assert model.predict_one(stream[0][0]) is None
    if hasattr(model, "predict_proba_one"):
        assert model.predict_proba_one(stream[0][0]) == {}
    for x, y in stream:
        model.learn_one(x, y)
        reference.partial_fit(hashed(x), [y])
    assert model.n_features_in_ == 2**18
    for name in STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name))
    for x, _ in stream[:20]:
        assert model.predict_one(x) == reference.predict(hashed(x))[0]


def test_names_hash_as_the_vw_reader_hashes_them(tmp_path):
    """The same model from dict events as from ``load_vw`` on the same examples written
    as VW lines of the unnamed namespace (``| name:value``)."""
    stream = events(40)
    path = tmp_path / "train.vw"
    lines = [
        f"{1 if y == 'spam' else -1} | " + " ".join(f"{k}:{v:g}" for k, v in x.items())
        for x, y in stream
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    X, y = olearn.io.load_vw(str(path), bits=18)
    reference = AROWClassifier().fit(X, y)
    model = AROWClassifier()
    for x, label in stream:
        model.learn_one(x, 1.0 if label == "spam" else -1.0)
    for name in STATE:  # the reader sorts a line's columns: sums in another order
        np.testing.assert_allclose(getattr(model, name), getattr(reference, name), rtol=1e-13)
    assert (model.weights_ != 0).sum() == (reference.weights_ != 0).sum() > 5


def test_colliding_names_add_up():
    width = 8
    names = [f"w{i}" for i in range(40)]
    buckets: dict[int, list[str]] = {}
    for name in names:
        buckets.setdefault(murmurhash3_32(name) % width, []).append(name)
    a, b = next(group for group in buckets.values() if len(group) >= 2)[:2]
    column = murmurhash3_32(a) % width
    model = AROWClassifier()
    model.learn_one({a: 1.5, b: 2.0, 0: 1.0}, "x", n_features=width)
    reference = AROWClassifier()
    summed = {column: 3.5} if column != 0 else {0: 4.5}
    if column != 0:
        summed[0] = 1.0
    reference.learn_one(summed, "x", n_features=width)
    for name in STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name))


@pytest.mark.parametrize("key", [np.int64, np.int32, np.uint16, int])
def test_numpy_integer_keys_are_indices(key):
    stream = [({3: 1.0, 17: -2.0}, 1), ({5: 0.5, 3: 1.5}, 0), ({17: 1.0}, 1)]
    model, reference = PassiveAggressiveClassifier(), PassiveAggressiveClassifier()
    for x, y in stream:
        model.learn_one({key(k): v for k, v in x.items()}, y, n_features=20)
        reference.learn_one(x, y, n_features=20)
    np.testing.assert_array_equal(model.weights_, reference.weights_)
    assert model.predict_one({key(3): 1.0}) == reference.predict_one({3: 1.0})


def test_the_width_is_fixed_by_the_first_event():
    model = PassiveAggressiveClassifier()
    model.learn_one({"a": 1.0}, 1, n_features=1000)
    assert model.n_features_in_ == 1000
    model.learn_one({999: 1.0, "b": 1.0}, 0)
    with pytest.raises(ValueError, match="out of range"):
        model.learn_one({1000: 1.0}, 0)
    with pytest.raises(ValueError, match="unfitted model only"):
        model.learn_one({1: 1.0}, 0, n_features=50)
    # scored, an index beyond the width is a feature never seen: ignored
    assert model.predict_one({1000: 5.0, 3: 1.0}) == model.predict_one({3: 1.0})


def test_regressor_events_follow_the_same_conventions():
    model = PassiveAggressiveRegressor()
    assert model.predict_one({"a": 1.0}) == 0.0
    model.learn_one({"a": 1.0, np.int64(4): 2.0}, 3.0)
    assert model.n_features_in_ == 2**18
    first = model.predict_one({"a": 1.0, 4: 2.0})
    assert first == model.predict_one({"a": 1.0, np.int64(4): 2.0, 2**20: 9.0}) != 0.0


def test_predict_proba_one_is_predict_proba_of_the_row():
    stream = events()
    model = AROWClassifier()
    for x, y in stream:
        model.learn_one(x, y)
    for x, _ in stream[:10]:
        proba = model.predict_proba_one(x)
        expected = model.predict_proba(hashed(x))[0]
        assert list(proba) == model.classes_.tolist()
        np.testing.assert_allclose(list(proba.values()), expected, rtol=1e-15)
        assert max(proba, key=proba.get) == model.predict_one(x)


@pytest.mark.parametrize(
    "make",
    [
        lambda: AROWClassifier(covariance="full"),
        olearn.SecondOrderPerceptronClassifier,  # full by default
        lambda: olearn.AROWRegressor(covariance="full"),
    ],
)
def test_a_full_covariance_model_asks_its_first_event_for_a_width(make):
    """The default width (2**18) would make a 2**18 × 2**18 matrix: the first event says
    so, naming ``n_features``, and leaves the model unfitted; with a width it learns."""
    model = make()
    with pytest.raises(ValueError, match="n_features="):
        model.learn_one({"a": 1.0, "b": 2.0}, 1)
    assert not hasattr(model, "n_features_in_") and not hasattr(model, "weights_")
    model.learn_one({"a": 1.0, "b": 2.0}, 1, n_features=64)
    assert model.n_features_in_ == 64


@pytest.mark.parametrize("make", [AROWClassifier, PassiveAggressiveRegressor])
def test_a_first_call_that_fails_while_allocating_leaves_no_model(make, monkeypatch):
    """A first ``partial_fit`` whose allocation fails (a covariance too large for memory)
    leaves the model unfitted, not half-built: no width, no labels, no prediction."""
    model = make()

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 512 GiB")

    monkeypatch.setattr(model, "_allocate", no_memory)
    with pytest.raises(MemoryError):
        model.partial_fit(np.eye(3), [0, 1, 1])
    assert not [key for key in vars(model) if key.endswith("_")]
    monkeypatch.undo()
    model.partial_fit(np.eye(3), [0, 1, 1])  # then learns as a new model
    assert model.n_features_in_ == 3


def test_an_event_of_weight_zero_is_as_if_absent():
    """Weight 0 skips the event: an unfitted model stays unfitted (``predict_one`` None),
    a fitted one gains no label from it; a bad event is still refused."""
    model = AROWClassifier()
    model.learn_one({"a": 1.0}, "spam", sample_weight=0)
    assert not hasattr(model, "classes_") and model.predict_one({"a": 1.0}) is None
    model.learn_one({"a": 1.0}, "spam")
    model.learn_one({"b": 1.0}, "ham")
    before = {key: np.copy(getattr(model, key)) for key in STATE}
    model.learn_one({"c": 1.0}, "eggs", sample_weight=0.0)
    assert model.classes_.tolist() == ["ham", "spam"]
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.learn_one({"c": np.nan}, "eggs", sample_weight=0)
    regressor = PassiveAggressiveRegressor()
    regressor.learn_one({"a": 1.0}, 2.0, sample_weight=0)
    assert not hasattr(regressor, "weights_") and regressor.predict_one({"a": 1.0}) == 0.0


def test_a_label_none_is_refused_by_name():
    model = AROWClassifier()
    model.learn_one({"a": 1.0}, "x")
    model.learn_one({"b": 1.0}, "y")
    with pytest.raises(ValueError, match="y is None, not a label"):
        model.learn_one({"a": 1.0}, None)


@pytest.mark.parametrize("make", [AROWClassifier, PassiveAggressiveRegressor])
def test_a_model_fitted_on_named_columns_reads_event_names_as_those_columns(make):
    """After ``fit`` on a DataFrame, ``{"b": 5.0}`` is column "b" (as ``predict`` of a
    DataFrame reads it), not a hashed name; an unknown name is ignored when scoring and
    refused when learning."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    y = (X["b"] > 0).astype(int) if make is AROWClassifier else X["b"] * 2.0
    model = make().fit(X, y)
    row = pd.DataFrame([[0.0, 5.0, 0.0]], columns=["a", "b", "c"])
    assert model.predict_one({"b": 5.0}) == model.predict(row)[0]
    assert model.predict_one({"b": 5.0, "zzz": 1.0}) == model.predict_one({1: 5.0})
    if make is AROWClassifier:
        assert model.predict_proba_one({"b": 5.0})[1] == model.predict_proba(row)[0, 1]
    before = model.weights_.copy()
    with pytest.raises(ValueError, match="'zzz', which is not among the names"):
        model.learn_one({"b": 1.0, "zzz": 1.0}, 1)
    np.testing.assert_array_equal(model.weights_, before)
    twin = make().fit(X, y)
    model.learn_one({"b": 1.0, "a": -2.0}, 1)
    twin.learn_one({1: 1.0, 0: -2.0}, 1)
    np.testing.assert_array_equal(model.weights_, twin.weights_)


# -- River's own tools ------------------------------------------------------------------------

RIVER_MODELS = {
    "pa": (PassiveAggressiveClassifier, "Phishing", "Accuracy"),
    "arow": (AROWClassifier, "Phishing", "Accuracy"),
    "arow-logloss": (AROWClassifier, "Phishing", "LogLoss"),  # (predict_proba_one)
    "kernel-pa": (lambda: olearn.KernelPAClassifier(gamma=0.1), "Phishing", "Accuracy"),
    "pa-regressor": (PassiveAggressiveRegressor, "TrumpApproval", "MAE"),
}


@pytest.mark.parametrize("name", RIVER_MODELS)
def test_rivers_progressive_validation_takes_the_models(name):
    """River's ``evaluate.progressive_val_score`` — whose metrics accept a model only if it
    is a ``river.base.Classifier`` (or ``Regressor``) — runs an olearn model, and its score
    is the one of predicting each event, then learning it, by hand."""
    pytest.importorskip("river")
    import river.base
    from river import datasets, evaluate, metrics

    make, data, metric_name = RIVER_MODELS[name]
    model = make()
    kind = river.base.Regressor if name.endswith("regressor") else river.base.Classifier
    assert isinstance(model, kind)
    score = evaluate.progressive_val_score(getattr(datasets, data)(), model,
                                           getattr(metrics, metric_name)())  # fmt: skip
    model, by_hand = make(), getattr(metrics, metric_name)()
    proba = not getattr(by_hand, "requires_labels", True)  # (River's choice of method)
    for x, y in getattr(datasets, data)():
        predicted = model.predict_proba_one(x) if proba else model.predict_one(x)
        if predicted is not None and predicted != {}:  # (River's loop skips them too)
            by_hand.update(y, predicted)
        model.learn_one(x, y)
    assert score.get() == by_hand.get()


@pytest.mark.parametrize(
    "make",
    [AROWClassifier, lambda: olearn.KernelPAClassifier(gamma=0.1), PassiveAggressiveRegressor],
)
def test_rivers_clone_gives_a_fresh_model_as_rivers_ensembles_and_pipelines_ask(make):
    """River's tools copy a model by its ``clone`` (``river.base.Base.clone``: the same
    parameters, ``new_params`` replacing some, the learned state only with
    ``include_attributes``): a pipeline's ``clone``, a bagging ensemble, one-vs-rest."""
    pytest.importorskip("river")
    from river import datasets, ensemble, evaluate, metrics, multiclass, preprocessing

    model = make()
    stream = list(datasets.Phishing())[:60]
    for x, y in stream:
        model.learn_one(x, y)
    fresh = model.clone()
    assert type(fresh) is type(model) and fresh.get_params() == model.get_params()
    assert not hasattr(fresh, "n_features_in_")
    changed = model.clone({"fit_intercept": False})
    assert changed.fit_intercept is False and model.fit_intercept is True
    learned = model.clone(include_attributes=True)
    x = stream[0][0]
    assert learned.predict_one(x) == model.predict_one(x)
    learned.learn_one(x, stream[0][1])  # a copy: the model itself is left as it was
    assert learned.n_rounds_ == model.n_rounds_ + 1 == 61
    pipeline = (preprocessing.StandardScaler() | make()).clone()
    assert type(pipeline["StandardScaler"]) is preprocessing.StandardScaler
    if not hasattr(model, "predict_proba_one"):  # (both combine their models' probabilities)
        return
    bagging = ensemble.BaggingClassifier(make(), n_models=3, seed=1)
    evaluate.progressive_val_score(stream, bagging, metrics.Accuracy())
    segments = list(datasets.ImageSegments())[:60]
    evaluate.progressive_val_score(segments, multiclass.OneVsRestClassifier(make()),
                                   metrics.Accuracy())  # fmt: skip
