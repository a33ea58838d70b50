"""Compact model files (format 2): sparse and compressed arrays, no caches, bit-identical
state; and files of the previous format (1) still load to the state they had."""

import json
from pathlib import Path

import model_file_craft as craft
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli import main
from olearn.io import _schema, model_file

GOLDEN_V1 = Path(__file__).parent / "golden" / "model_format_1"
EXPECTED = json.loads((GOLDEN_V1 / "expected.json").read_text())


def _same_state(a, b) -> None:
    """Every attribute equal, arrays bit for bit with their dtype and memory order."""
    assert type(a) is type(b) and a.get_params() == b.get_params()
    derived = set(getattr(a, "_derived_attributes", ()))
    names = {k for k in vars(a) if k not in derived} | {k for k in vars(b) if k not in derived}
    for name in names - {"_pass_seconds", "_averaged_cache"}:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, name
            assert x.flags.f_contiguous == y.flags.f_contiguous, name
            if x.dtype == object:
                assert x.tolist() == y.tolist(), name
            else:
                assert x.tobytes(order="A") == y.tobytes(order="A"), name
        else:
            assert x == y, name


def _same_as_stored(model, path) -> None:
    """The loaded arrays are the file's, bit for bit (read here with NumPy alone)."""
    _, header, _ = craft.split(path.read_bytes())
    stored = craft.arrays_of(path.read_bytes())
    declared = _schema.family_of(model).arrays  # the state (derived arrays are rebuilt)
    for attribute, value in header["attributes"].items():
        if isinstance(value, dict) and "__array__" in value and attribute in declared:
            expected = stored[value["__array__"]]
            loaded = getattr(model, attribute)
            assert loaded.astype(expected.dtype).tobytes() == expected.tobytes(), attribute


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k != "tagger_arow_cached"))
def test_format_1_files_load_to_the_state_they_had(tmp_path, name):
    """Golden files written by olearn at format 1 (commit dccf3ef, before format 2): the
    predictions, and the predictions after more training, are those that olearn computed."""
    case = EXPECTED[name]
    model = olearn.load(GOLDEN_V1 / f"{name}.olm")
    X = np.array(case["X"])
    X = sp.csr_matrix(X) if case.get("sparse") else X
    _same_as_stored(model, GOLDEN_V1 / f"{name}.olm")
    if name == "uniclass":
        assert model.predict().tolist() == case["before"]
        model.partial_fit(X)
        np.testing.assert_allclose(model.predict(), case["after"], rtol=1e-12, atol=1e-14)
        return
    assert np.asarray(model.decision_function(X)).tolist() == case["before"]
    # re-saved in format 2, the same state bit for bit
    olearn.save(model, tmp_path / "again.olm")
    again = olearn.load(tmp_path / "again.olm")
    assert model_file.read_model_header(tmp_path / "again.olm")["format"] == 2
    _same_state(model, again)
    y = np.array(case["y"], dtype=object if isinstance(case["y"][0], str) else None)
    model.partial_fit(X, y)
    # training is the engine's (its rounding may change): equal to the last bits
    np.testing.assert_allclose(model.decision_function(X), case["after"], rtol=1e-12, atol=1e-14)


def test_a_format_1_tagger_with_its_cache_loads_without_it(tmp_path):
    case = EXPECTED["tagger_arow_cached"]
    model = olearn.load(GOLDEN_V1 / "tagger_arow_cached.olm")
    assert not hasattr(model, "_averaged_cache")
    _same_as_stored(model, GOLDEN_V1 / "tagger_arow_cached.olm")
    assert model.predict(case["X"]) == case["before"]
    model.partial_fit(case["X"][:1], case["y"][:1])
    assert model.predict(case["X"]) == case["after"]
    np.testing.assert_allclose(model.weights_, case["weights_after"], rtol=1e-12, atol=1e-14)


def test_a_hashed_model_stores_its_nonzero_weights_only(tmp_path):
    """PA on 2^20 hashed features: the weights are stored as positions and values."""
    rng = np.random.default_rng(0)
    columns = rng.choice(2**20, size=(200, 5))  # 5 of 2^20 hashed features per row
    X = sp.csr_matrix(
        (rng.normal(size=1000), columns.ravel(), np.arange(0, 1001, 5)), shape=(200, 2**20)
    )
    X.sum_duplicates()
    y = rng.integers(0, 2, 200)
    model = olearn.PassiveAggressiveClassifier().fit(X, y)
    model.weights_[0, 7] = -0.0  # a signed zero stays signed
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    assert path.stat().st_size < 40_000  # the dense weights are 8 MiB
    loaded = olearn.load(path)
    _same_state(model, loaded)
    assert np.signbit(loaded.weights_[0, 7])
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    entry = model_file.read_model_header(path)["arrays"]["weights_"]
    assert entry["encoding"] == "sparse" and entry["fill"] == 0.0
    assert entry["nonzero"] == np.count_nonzero(model.weights_)


def test_a_half_zero_weight_vector_is_stored_sparse_with_its_values_as_they_are(tmp_path):
    """45 % of the weights nonzero: the sparse form (uint8 deltas + doubles) is smaller than
    the dense array, and the varied doubles are stored, not deflated (they do not shrink)."""
    import io
    import zipfile

    rng = np.random.default_rng(1)
    X = sp.random(2000, 2**19, density=3e-4, random_state=rng, format="csr")  # 1.8 MB of
    y = rng.integers(0, 2, 2000)  # nonzero weights: above the size always deflated
    model = olearn.PassiveAggressiveClassifier().fit(X, y)
    share = np.count_nonzero(model.weights_) / model.weights_.size
    assert 0.35 < share < 0.6
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    header = model_file.read_model_header(path)
    assert header["arrays"]["weights_"]["encoding"] == "sparse"
    data = path.read_bytes()
    payload = data[-32 - header["payload_bytes"] : -32]
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        kinds = {i.filename: i.compress_type for i in archive.infolist()}
    assert kinds["weights_.values.npy"] == zipfile.ZIP_STORED
    assert kinds["weights_.positions.npy"] == zipfile.ZIP_DEFLATED
    _same_state(model, olearn.load(path))


def test_untouched_variances_are_stored_as_their_prior(tmp_path):
    X = sp.random(100, 5000, density=0.002, random_state=2, format="csr")
    y = np.arange(100) % 3
    model = olearn.AROWClassifier(r=0.5).fit(X, y)  # three rows, feature-major
    assert model.weights_.flags.f_contiguous and not model.weights_.flags.c_contiguous
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    entry = model_file.read_model_header(path)["arrays"]["variances_"]
    assert entry["encoding"] == "sparse" and entry["fill"] == 1.0 and entry["order"] == "F"
    loaded = olearn.load(path)
    _same_state(model, loaded)  # feature-major again
    more = sp.random(30, 5000, density=0.002, random_state=3, format="csr")
    loaded.partial_fit(more, np.arange(30) % 3)
    model.partial_fit(more, np.arange(30) % 3)
    _same_state(model, loaded)


def test_the_tagger_file_does_not_grow_after_predict(tmp_path):
    X = [["the", "dog", "runs"], ["a", "cat", "sleeps"]] * 5
    y = [["D", "N", "V"]] * 10
    model = olearn.SequenceTagger(n_bits=12, max_iter=2, random_state=0).fit(X, y)
    olearn.save(model, tmp_path / "before.olm")
    model.predict(X)  # builds the averaged-weights cache
    assert hasattr(model, "_averaged_cache")
    olearn.save(model, tmp_path / "after.olm")
    before, after = (tmp_path / "before.olm").read_bytes(), (tmp_path / "after.olm").read_bytes()
    assert before == after  # the same model, the same bytes (no cache, no timestamps)
    assert len(after) < 8_000  # dense weights and sums: 2 × 8 × 3 × 4099 bytes
    loaded = olearn.load(tmp_path / "after.olm")
    assert loaded.predict(X) == model.predict(X)
    _same_state(model, loaded)


def test_info_shows_nonzero_weights_and_sizes(tmp_path, capsys):
    X = sp.random(50, 1000, density=0.01, random_state=4, format="csr")
    model = olearn.PassiveAggressiveClassifier().fit(X, np.arange(50) % 2)
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    nonzero = np.count_nonzero(model.weights_)
    assert f"nonzero         weights_ {nonzero:,} of 1,001\n" in out
    size = path.stat().st_size
    assert f"size            {size / 1024:.1f} KiB ({size:,} bytes) on disk, " in out
    assert "7.9 KiB (8,080 bytes) in memory" in out  # 1001 weights, 7 counters, 2 classes
    # format 1 records no nonzero count: info counts it
    assert main(["info", str(GOLDEN_V1 / "arow_full_multiclass.olm")]) == 0
    out = capsys.readouterr().out
    assert "nonzero         precision_cholesky_ " in out and "format          1 " in out


def test_info_shows_a_kernel_models_nonzero_dual_coefficients(tmp_path, capsys):
    """A kernel model's weights are its support set's dual coefficients (private arrays):
    info counts them too, as the docs promise every model's nonzero weights."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    model = olearn.KernelPAClassifier().fit(X, (X[:, 0] * X[:, 1] > 0).astype(int))
    path = tmp_path / "k.olm"
    olearn.save(model, path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    stored = model._A.size
    nonzero = np.count_nonzero(model._A)
    assert 0 < nonzero < stored
    assert f"nonzero         dual coefficients {nonzero:,} of {stored:,}\n" in out


def _configurations():
    """(id, model, data) covering every family and state layout a file can hold."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(80, 5))
    y2 = (X[:, 0] > 0).astype(int)
    y4 = np.argmax(X[:, :4], axis=1)
    Y = (X[:, :3] > 0).astype(int)
    cost = 1.0 - np.eye(4) + np.eye(4)[::-1]
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.7, X, 0.0))
    r = X[:, 0] - 2 * X[:, 1]
    o = olearn
    return [
        (
            "perceptron-averaged-ovr",
            o.PerceptronClassifier(average=True, multiclass="ovr"),
            (X, y4),
        ),
        ("pa-multilabel-threshold", o.PassiveAggressiveClassifier(), (X, Y)),
        ("pa-multilabel-fixed", o.PassiveAggressiveClassifier(label_threshold=0.0), (X, Y)),
        ("cw-cost", o.CWClassifier(), (X, y4, {"cost": cost})),
        ("scw-full-multiclass", o.SCWClassifier(covariance="full"), (X, y4)),
        ("sop-binary-sparse", o.SecondOrderPerceptronClassifier(), (Xs, y2)),
        ("arow-one-class", o.AROWClassifier(), (X, np.ones(80, int))),
        ("pa-regressor", o.PassiveAggressiveRegressor(), (X, r)),
        ("arow-regressor-full", o.AROWRegressor(covariance="full"), (X, r)),
        ("sgd-regressor", o.SGDRegressor(), (X, r)),
        ("uniclass", o.UniclassPA(), (X,)),
        (
            "joint-full",
            o.JointFeatureClassifier(rule="arow", covariance="full"),
            (rng.normal(size=(80, 3, 4)), np.arange(80) % 3),
        ),  # fmt: skip
        ("kernel-perceptron-sparse", o.KernelPerceptronClassifier(), (Xs, y4)),
        ("kernel-pa-poly", o.KernelPAClassifier(kernel="poly", degree=2), (X, y2)),
        ("norma-truncated", o.NORMAClassifier(truncation=7), (X, y4)),
        ("pegasos-remove", o.KernelPegasosClassifier(budget=5), (X, y2)),
        ("bsgd-project-sparse", o.BudgetedSGDClassifier(budget=6, maintenance="project"), (Xs, y2)),
        ("kernel-pa-regressor", o.KernelPARegressor(budget=8, maintenance="merge"), (X, r)),
        ("norma-regressor", o.NORMARegressor(), (X, r)),
    ]


CONFIGURATIONS = {name: (model, data) for name, model, data in _configurations()}


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_every_model_resumes_bit_for_bit(tmp_path, name):
    model, data = CONFIGURATIONS[name]
    *arrays, options = data if isinstance(data[-1], dict) else (*data, {})
    half = [a[:40] for a in arrays]
    rest = [a[40:] for a in arrays]
    first = type(model)(**model.get_params())
    first.partial_fit(*half, **options)
    olearn.save(first, tmp_path / "m.olm")
    loaded = olearn.load(tmp_path / "m.olm")
    _same_state(first, loaded)
    first.partial_fit(*rest, **options)
    loaded.partial_fit(*rest, **options)
    _same_state(first, loaded)
    if len(arrays) > 1:  # the same predictions
        assert np.array_equal(first.predict(arrays[0]), loaded.predict(arrays[0]))
