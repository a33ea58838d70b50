"""Model files: round trips, resume equality, pickling, corruption, atomic writes."""

import json
import os
import pickle
import re

import model_file_craft as craft
import numpy as np
import pytest

import olearn
from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
)
from olearn.io import model_file

MODELS = [
    PerceptronClassifier(average=True),
    PassiveAggressiveClassifier(variant="PA-II", C=0.5),
    SecondOrderPerceptronClassifier(a=2.0),
    CWClassifier(eta=0.9, covariance="full"),
    AROWClassifier(r=0.3),
    SCWClassifier(variant="II", covariance="full"),
]


def _data(n=120, d=6, seed=0, labels=("neg", "pos")):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, labels[1], labels[0])
    return X, y


def _state(model):
    return {k: v for k, v in vars(model).items() if k.endswith("_") and not k.startswith("_")}


def _assert_same_state(a, b):
    sa, sb = _state(a), _state(b)
    assert sorted(sa) == sorted(sb)
    for key in sa:
        assert np.array_equal(np.asarray(sa[key]), np.asarray(sb[key])), key
    assert a.get_params() == b.get_params()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_save_load_resume_equals_uninterrupted(tmp_path, model):
    X, y = _data()
    first, second = slice(0, 70), slice(70, None)
    straight = type(model)(**model.get_params()).partial_fit(X[first], y[first])
    straight.partial_fit(X[second], y[second])

    resumed = type(model)(**model.get_params()).partial_fit(X[first], y[first])
    path = tmp_path / "m.olm"
    olearn.save(resumed, path)
    loaded = olearn.load(path)
    _assert_same_state(loaded, resumed)
    assert np.array_equal(loaded.predict(X), resumed.predict(X))
    loaded.partial_fit(X[second], y[second])
    _assert_same_state(loaded, straight)
    assert np.array_equal(loaded.decision_function(X), straight.decision_function(X))


@pytest.mark.parametrize("model", MODELS[:3], ids=lambda m: type(m).__name__)
def test_pickle_mid_stream(model):
    X, y = _data(seed=1)
    a = type(model)(**model.get_params()).partial_fit(X[:50], y[:50])
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[50:], y[50:])
    b.partial_fit(X[50:], y[50:])
    _assert_same_state(a, b)


def test_object_string_labels_round_trip(tmp_path):
    X, y = _data(labels=("a", "b"))
    model = AROWClassifier().fit(X, y.astype(object))
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    loaded = olearn.load(path)
    assert loaded.classes_.dtype == model.classes_.dtype
    assert loaded.predict(X).tolist() == model.predict(X).tolist()


def test_metadata_and_header(tmp_path):
    X, y = _data()
    path = tmp_path / "m.olm"
    olearn.save(PerceptronClassifier().fit(X, y), path, metadata={"input": {"bits": 18}})
    header = model_file.read_model_header(path)
    assert header["format"] == model_file.FORMAT_VERSION == 2
    assert header["estimator"] == "olearn.estimators.perceptron.PerceptronClassifier"
    assert header["params"]["average"] is False
    assert set(header["arrays"]) == {"weights_", "average_sums_", "variances_",
                                     "precision_cholesky_", "stats_", "classes_"}  # fmt: skip
    assert header["arrays"]["weights_"]["shape"] == [1, 7]
    assert header["arrays"]["weights_"]["nonzero"] == np.count_nonzero(olearn.load(path).weights_)
    assert header["attributes"] == {"n_features_in_": 6, "n_iter_": 1, "task_": "binary"}
    assert header["metadata"] == {"input": {"bits": 18}}


def test_metadata_too_large_to_load_is_refused_when_saving(tmp_path):
    """A header beyond what ``load`` reads (16 MiB) used to be written, and the file then
    failed to load as "corrupted (a header of ... bytes)"; ``save`` now refuses it and an
    existing file is left as it was."""
    X, y = _data()
    model = PerceptronClassifier().fit(X, y)
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    before = path.read_bytes()
    with pytest.raises(
        ValueError, match=r"^cannot save PerceptronClassifier: its header .*16\.0 MiB"
    ):
        olearn.save(model, path, metadata={"notes": "x" * (16 << 20)})
    assert path.read_bytes() == before
    olearn.save(model, path, metadata={"notes": "x" * (15 << 20)})
    assert len(olearn.load(path).classes_) == 2


def _saved(tmp_path):
    X, y = _data()
    path = tmp_path / "m.olm"
    olearn.save(AROWClassifier().fit(X, y), path)
    return path, path.read_bytes()


def test_every_flipped_byte_is_detected(tmp_path):
    path, data = _saved(tmp_path)
    positions = sorted(set(range(0, len(data), max(1, len(data) // 97))) | {len(data) - 1})
    for position in positions:
        corrupted = bytearray(data)
        corrupted[position] ^= 0x10
        path.write_bytes(bytes(corrupted))
        with pytest.raises(ValueError, match="corrupted|not an olearn model"):
            olearn.load(path)


@pytest.mark.parametrize("keep", [0, 5, 20, 100, -33, -1])
def test_truncated_files(tmp_path, keep):
    path, data = _saved(tmp_path)
    path.write_bytes(data[:keep])
    with pytest.raises(ValueError, match="truncated|corrupted|not an olearn model"):
        olearn.load(path)


@pytest.mark.parametrize("keep", [1, 6, 7])
def test_a_file_cut_within_the_magic_is_truncated_not_foreign(tmp_path, keep):
    # before: "is not an olearn model file", for the first bytes of one
    path, data = _saved(tmp_path)
    path.write_bytes(data[:keep])
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(path))} is truncated \({keep} bytes\)$"
    ):
        olearn.load(path)


def test_an_empty_file_is_said_to_be_empty(tmp_path):
    path = tmp_path / "m.olm"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"m\.olm is empty, not an olearn model file$"):
        olearn.load(path)


def test_foreign_files(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.zeros(3))
    with pytest.raises(ValueError, match="not an olearn model file"):
        olearn.load(path)
    text = tmp_path / "x.txt"
    text.write_text("1 1:2\n")
    with pytest.raises(ValueError, match="not an olearn model file"):
        olearn.load(text)


def _rewrite(data: bytes, version: int | None = None, header_edit=None) -> bytes:
    """Re-encode a file with a different version or header, with a valid checksum."""
    _, header, payload = craft.split(data)
    if header_edit:
        header_edit(header)
    if version is not None:
        header["format"] = version
    return craft.pack(version or model_file.FORMAT_VERSION, json.dumps(header).encode(), payload)


def test_newer_format_is_refused_clearly(tmp_path):
    path, data = _saved(tmp_path)
    path.write_bytes(_rewrite(data, version=model_file.FORMAT_VERSION + 1))
    with pytest.raises(ValueError, match="newer than this olearn"):
        olearn.load(path)


def test_classes_outside_olearn_are_never_imported(tmp_path):
    path, data = _saved(tmp_path)

    def edit(header):
        header["estimator"] = "os.system"

    path.write_bytes(_rewrite(data, header_edit=edit))
    with pytest.raises(ValueError, match="'os.system', which is not an olearn estimator"):
        olearn.load(path)


def test_a_changed_array_with_a_recomputed_file_checksum_is_caught(tmp_path):
    # the zip entries' CRC-32 still catches an array edited without redoing the archive
    path, data = _saved(tmp_path)
    _, header, payload = craft.split(data)
    import io
    import zipfile

    info = zipfile.ZipFile(io.BytesIO(payload)).getinfo("weights_.npy")
    start = payload.index(b"weights_.npy") + len("weights_.npy")  # the local header's name
    position = start + len(info.extra) + info.compress_size // 2  # inside the deflated data
    edited = bytearray(payload)
    edited[position] ^= 0x01
    path.write_bytes(craft.pack(2, json.dumps(header).encode(), bytes(edited)))
    with pytest.raises(ValueError, match="corrupted|does not hold a valid"):
        olearn.load(path)


def test_interrupted_save_keeps_the_old_file(tmp_path, monkeypatch):
    path, data = _saved(tmp_path)
    X, y = _data(seed=3)

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(model_file.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        olearn.save(PerceptronClassifier().fit(X, y), path)
    assert path.read_bytes() == data
    assert os.listdir(tmp_path) == ["m.olm"]  # no temporary file left behind


def test_unfitted_or_foreign_objects_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not fitted"):
        olearn.save(AROWClassifier(), tmp_path / "m.olm")
    with pytest.raises(TypeError, match="not an estimator"):
        olearn.save(object(), tmp_path / "m.olm")


class _Subclass(PerceptronClassifier):
    """A user's subclass: not one of the classes a model file may name."""


def test_only_olearns_own_estimators_are_saved(tmp_path):
    X, y = _data()
    with pytest.raises(TypeError, match="olearn's own estimators only"):
        olearn.save(_Subclass().fit(X, y), tmp_path / "m.olm")
    assert not (tmp_path / "m.olm").exists()


def test_unsupported_attributes_are_named(tmp_path):
    X, y = _data()
    model = PerceptronClassifier().fit(X, y)
    model.callback_ = print
    with pytest.raises(TypeError, match="attribute callback_ of type .* is not declared"):
        olearn.save(model, tmp_path / "m.olm")
    del model.callback_
    model.n_features_in_ = 7  # inconsistent with the weights: never written
    with pytest.raises(ValueError, match="inconsistent: array weights_ has shape"):
        olearn.save(model, tmp_path / "m.olm")


@pytest.mark.parametrize(
    "make",
    [
        lambda: olearn.PassiveAggressiveRegressor(variant="PA-II", epsilon=0.05),
        lambda: olearn.AROWRegressor(r=0.5),
        lambda: olearn.SGDRegressor(loss="huber"),
    ],
    ids=["pa", "arow", "sgd"],
)
def test_regressors_resume_exactly(tmp_path, make):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(90, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=90)
    straight = make().partial_fit(X[:40], y[:40]).partial_fit(X[40:], y[40:])
    path = tmp_path / "r.olm"
    olearn.save(make().partial_fit(X[:40], y[:40]), path)
    resumed = olearn.load(path).partial_fit(X[40:], y[40:])
    _assert_same_state(resumed, straight)


def test_multiclass_and_uniclass_resume_exactly(tmp_path):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(120, 5))
    y = np.argmax(X[:, :3], axis=1)
    path = tmp_path / "m.olm"
    straight = AROWClassifier(covariance="full").partial_fit(X[:60], y[:60])
    olearn.save(straight, path)
    straight.partial_fit(X[60:], y[60:])
    resumed = olearn.load(path).partial_fit(X[60:], y[60:])
    _assert_same_state(resumed, straight)
    Y = rng.normal(size=(50, 3))
    centre = olearn.UniclassPA(learn_epsilon=True, B=2.0).partial_fit(Y[:20])
    olearn.save(centre, path)
    centre.partial_fit(Y[20:])
    _assert_same_state(olearn.load(path).partial_fit(Y[20:]), centre)


@pytest.mark.parametrize(
    "make",
    [
        lambda: olearn.KernelPAClassifier(kernel="rbf", gamma=0.5),
        lambda: olearn.BudgetedSGDClassifier(budget=10, maintenance="merge", kernel="rbf"),
        lambda: olearn.KernelPARegressor(kernel="poly", degree=2),
    ],
    ids=["kernel-pa", "bsgd-merge", "kernel-pa-regressor"],
)
def test_kernel_models_keep_their_private_state(tmp_path, make):
    # kernel models keep support vectors in private arrays: saved as pickle would keep them
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int) if "Classifier" in type(make()).__name__ else X[:, 0]
    straight = make().partial_fit(X[:40], y[:40])
    path = tmp_path / "k.olm"
    olearn.save(straight, path)
    straight.partial_fit(X[40:], y[40:])
    resumed = olearn.load(path).partial_fit(X[40:], y[40:])
    assert np.array_equal(resumed.predict(X), straight.predict(X))
    if hasattr(straight, "decision_function"):
        assert np.array_equal(resumed.decision_function(X), straight.decision_function(X))
