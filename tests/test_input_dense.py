"""Dense rows that are not writable float64 C-contiguous take the representations' dense
passes in place (issue 13): float32 and read-only C-contiguous rows are read as they are
(``OnlineLinearModel._run_dense_pass``), and the model is the one float64 rows give, bit
for bit — for every kind of rule (first-order, the Perceptron's sign-only pass, averaging,
diagonal and full covariance), in ``fit`` (shuffled, several passes) and in ``partial_fit``.
Speed is measured in benchmarks/bench_inputs.py, not here.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import LEARNED_STATE, assert_same_state, model_state, returns_of

from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
)
from olearn.estimators import base

MODELS = {
    "pa1": lambda **kw: PassiveAggressiveClassifier(**kw),
    "perceptron": lambda **kw: PerceptronClassifier(**kw),
    "perceptron-averaged": lambda **kw: PerceptronClassifier(average=True, **kw),
    "arow-diagonal": lambda **kw: AROWClassifier(**kw),
    "arow-full": lambda **kw: AROWClassifier(covariance="full", **kw),
    "cw-full": lambda **kw: CWClassifier(covariance="full", **kw),
}


def data(n=150, d=9, seed=0):
    """float32 values (so that the float64 reference holds the same values) with zeros, for
    the diagonal update's skipped coordinates, and noisy labels, for updates."""
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)).astype(np.float32)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def read_only(X):
    out = X.copy()
    out.flags.writeable = False
    return out


FORMS = {
    "float32": lambda X: X,
    "float32-read-only": read_only,
    "float64-read-only": lambda X: read_only(X.astype(np.float64)),
}


def assert_state(model, reference):
    for name in LEARNED_STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), name)


@pytest.fixture
def in_place_only(monkeypatch):
    """Fail if rows are converted: the forms under test must be read in place."""

    def converted(*args, **kwargs):
        raise AssertionError("rows were converted by blocks, not read in place")

    monkeypatch.setattr(base.OnlineLinearModel, "_run_blocks", converted)


@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_dense_forms_read_in_place_learn_the_float64_model(name, form, in_place_only):
    X32, y = data()
    X64 = X32.astype(np.float64)
    other = FORMS[form](X32)
    params = dict(shuffle=True, random_state=4, max_iter=2)
    assert_state(MODELS[name](**params).fit(other, y), MODELS[name](**params).fit(X64, y))
    chunks, reference = MODELS[name](), MODELS[name]()
    for start in range(0, X32.shape[0], 40):  # a first call, then the fitted model's calls
        part = slice(start, start + 40)
        chunks.partial_fit(other[part], y[part], classes=[-1, 1])
        reference.partial_fit(X64[part], y[part], classes=[-1, 1])
    assert_state(chunks, reference)
    np.testing.assert_array_equal(chunks.decision_function(other), reference.decision_function(X64))


@pytest.mark.parametrize("name", ["pa1", "arow-diagonal", "arow-full"])
def test_a_non_finite_float32_value_raises_and_changes_nothing(name, in_place_only):
    """First-order and diagonal passes count the non-finite rows (``fit`` then raises the
    exact check); the full representation's rows are checked first: either way nothing is
    learned."""
    X, y = data()
    model = MODELS[name]().fit(X, y)
    before = model_state(model)
    bad = X.copy()
    bad[120, 3] = np.inf
    for call in (model.fit, model.partial_fit):
        with pytest.raises(ValueError, match="NaN or infinity"):
            call(bad, y)
        assert_same_state(before, model_state(model))


@pytest.mark.parametrize(
    "name, convert",
    [
        ("pa1", np.asfortranarray),  # column-major (a DataFrame's values)
        ("pa1", lambda X: X.astype(np.int64)),  # no pass reads integers
        ("arow-diagonal", lambda X: np.asfortranarray(X.astype(np.float64))),
    ],
    ids=["fortran-float32", "int64", "fortran-float64"],
)
def test_other_dense_forms_are_converted_by_blocks(name, convert, monkeypatch):
    """Reading a column-major array by rows costs more than converting it by blocks (its
    rows are spread over d cache lines): such rows, and dtypes no pass reads, are converted
    and learn the float64 model."""
    calls = returns_of(monkeypatch, base.OnlineLinearModel, "_run_blocks")
    X32, y = data()
    other = convert(X32 * 4)
    model = MODELS[name]().fit(other, y)
    assert calls
    assert_state(model, MODELS[name]().fit(np.asarray(other, dtype=np.float64, order="C"), y))


def test_a_stream_of_one_row_frames_is_checked_by_its_names():
    """Each one-row DataFrame of a stream has its own columns Index: equal names pass
    without a warning (whichever frame was checked last), other names raise as
    scikit-learn does, and a frame without names warns."""
    pd = pytest.importorskip("pandas")
    import warnings

    X, y = data()
    names = [f"f{j}" for j in range(X.shape[1])]
    model = PassiveAggressiveClassifier().fit(pd.DataFrame(X[:100], columns=names), y[:100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(100, 110):
            row = pd.DataFrame(X[i : i + 1], columns=list(names))
            model.partial_fit(row, y[i : i + 1])
            model.predict(row)
    other = pd.DataFrame(X[110:111], columns=names[::-1])
    for call in (model.predict, lambda frame: model.partial_fit(frame, y[110:111])):
        with pytest.raises(ValueError, match="feature names"):
            call(other)
    with pytest.warns(UserWarning, match="feature names"):
        model.predict(X[110:111])
    model.partial_fit(pd.DataFrame(X[111:112], columns=list(names)), y[111:112])


def test_one_row_frames_of_equal_names_in_other_objects_pass_and_stay_unwritten():
    """Names equal to the model's but held by other string objects (each frame's names made
    anew) are checked by value, then by the addresses remembered from them; the same
    names in another order still raise. The frames' values, read as the block they are,
    are never written."""
    pd = pytest.importorskip("pandas")
    import warnings

    X, y = data()
    names = [f"f{j}" for j in range(X.shape[1])]
    model = PassiveAggressiveClassifier().fit(pd.DataFrame(X[:100], columns=names), y[:100])
    reference = PassiveAggressiveClassifier().fit(X[:100], y[:100])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i in range(100, 110):
            fresh = ["f" + str(j) for j in range(X.shape[1])]
            assert fresh[0] is not names[0]
            row = pd.DataFrame(X[i : i + 1].copy(), columns=fresh if i % 2 else names)
            before = row.to_numpy(copy=True)
            model.partial_fit(row, y[i : i + 1])
            reference.partial_fit(X[i : i + 1], y[i : i + 1])
            assert model.decision_function(row) == reference.decision_function(X[i : i + 1])
            np.testing.assert_array_equal(row.to_numpy(), before)
    assert_state(model, reference)
    shuffled = pd.DataFrame(X[110:111], columns=fresh[1:] + fresh[:1])
    with pytest.raises(ValueError, match="feature names"):
        model.partial_fit(shuffled, y[110:111])


@pytest.fixture
def short_path(monkeypatch):
    """What each ``_partial_fit_chunk`` call returned (True: the short path learned)."""
    return returns_of(monkeypatch, base.OnlineLinearClassifier, "_partial_fit_chunk")


@pytest.mark.parametrize("name", ["pa1", "perceptron-averaged", "arow-diagonal"])
def test_streamed_chunks_take_the_short_path_and_learn_what_fit_does(name, short_path):
    """A fitted binary model's float64 chunks (``_partial_fit_chunk``): the model of one
    ``fit``; a chunk with a non-finite value raises and leaves every array as it was
    (averaging sums and variances included); a new label leaves the short path."""
    taken = short_path
    X32, y = data(n=300)
    X = X32.astype(np.float64)
    model = MODELS[name]()
    for start in range(0, 300, 50):
        model.partial_fit(X[start : start + 50], y[start : start + 50], classes=[-1, 1])
    assert taken == [True] * 5  # (the first call, with classes=, builds the model)
    assert_state(model, MODELS[name]().fit(X, y))
    before = model_state(model)
    bad = X[:50].copy()
    bad[30, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        model.partial_fit(bad, y[:50])
    assert_same_state(before, model_state(model))
    model.partial_fit(X[:50], np.where(y[:50] > 0, 2, -1))
    assert taken[-1] is False and model.classes_.tolist() == [-1, 1, 2]


def test_chunk_labels_signs_the_labels_and_saves_the_state():
    """``fastpath.chunk_labels`` on a hand example: labels signed against the two classes
    (NumPy's ``==``, +1 for the second) and the state's arrays saved one after the other in
    C order; a label of neither class saves nothing."""
    from olearn.estimators.base import _restore, _state_buffer
    from olearn.representations import fastpath

    state = (np.array([[1.0, 2.0]]), np.zeros((0, 0)), np.array([[3.0, 4.0]]),
             np.arange(8.0).reshape(2, 2, 2), np.array([5.0, 6.0]))  # fmt: skip
    buffer = _state_buffer(state)
    saved = buffer[2]
    assert saved.shape == (14,)
    y = np.zeros(3)
    known = fastpath.chunk_labels(np.array([7, 3, 7]), np.array([3.0, 7.0]), buffer[1], saved,
                                  y)  # fmt: skip
    assert known and y.tolist() == [1.0, -1.0, 1.0]
    assert saved.tolist() == [1.0, 2.0, 3.0, 4.0, *range(8), 5.0, 6.0]
    for array in state:
        array[...] = -1.0
    _restore(buffer)
    assert state[0].tolist() == [[1.0, 2.0]] and state[3].ravel().tolist() == list(range(8))
    assert state[4].tolist() == [5.0, 6.0]
    saved[...] = 0.0
    known = fastpath.chunk_labels(np.array([3.0, np.nan]), np.array([3.0, 7.0]), buffer[1],
                                  saved, np.zeros(2))  # fmt: skip
    assert not known and not saved.any()


@pytest.mark.parametrize("label_type", [np.int32, np.int64, np.float64])
def test_chunks_of_integer_labels_take_the_short_path_and_learn_what_fit_does(
    label_type, short_path
):
    """Labels of another numeric type than the classes' take the short path (compared as
    NumPy compares them): the model is ``fit``'s."""
    X, y = data(n=200)
    X = X.astype(np.float64)
    y = np.where(y > 0, 5, 0)
    model = PerceptronClassifier().partial_fit(X[:50], y[:50].astype(np.int64))
    for start in range(50, 200, 50):
        model.partial_fit(X[start : start + 50], y[start : start + 50].astype(label_type))
    assert short_path[1:] == [True] * 3
    assert_state(model, PerceptronClassifier().fit(X, y))
    assert model.classes_.tolist() == [0, 5]


def test_chunks_of_many_lengths_learn_what_fit_does(short_path):
    """The short path signs each chunk's labels into a buffer kept for chunks of its length
    (at most four lengths kept): chunks of six lengths, some coming back after the buffers
    were cleared, learn ``fit``'s model bit for bit."""
    lengths = [40, 40, 50, 60, 70, 80, 40, 50, 90, 80]
    X, y = data(n=20 + sum(lengths))
    X = X.astype(np.float64)
    model = PassiveAggressiveClassifier().partial_fit(X[:20], y[:20])
    start = 20
    for length in lengths:
        model.partial_fit(X[start : start + length], y[start : start + length])
        start += length
    assert short_path[1:] == [True] * len(lengths)
    assert_state(model, PassiveAggressiveClassifier().fit(X[:start], y[:start]))
    signed = base._CHUNK_BUFFERS[model][3]  # (a buffer shorter than its chunk: out of bounds)
    assert lengths[-1] in signed and len(signed) <= 4
    assert all(buffer.shape == (length,) for length, buffer in signed.items())


def test_integer_classes_beyond_float64_precision_compare_exactly(short_path):
    """Integer labels and classes compare as integers in the short path (as float64, 2⁶⁰ + 2
    would equal 2⁶⁰): the model is ``fit``'s, and a new label is a new class."""
    X, y = data(n=100)
    X = X.astype(np.float64)
    big = 2**60
    labels = np.where(y > 0, big + 1, big).astype(np.int64)
    model = PerceptronClassifier().partial_fit(X[:50], labels[:50])
    model.partial_fit(X[50:], labels[50:])
    assert short_path == [False, True]
    assert_state(model, PerceptronClassifier().fit(X, labels))
    new = labels[50:].copy()
    new[3] = big + 2
    model.partial_fit(X[50:], new)
    assert model.classes_.tolist() == [big, big + 1, big + 2]


@pytest.mark.parametrize("duplicate", ["model file", "pickle", "deepcopy"])
def test_a_copy_of_a_model_streamed_by_chunks_streams_on_and_keeps_itself(
    duplicate, tmp_path, short_path
):
    """A copy of a model that took the short path (a model file, a pickle, a deep copy)
    takes it again with its own arrays: it learns what the original learns, and a chunk with
    a NaN leaves the copy as it was."""
    import copy
    import pickle

    import olearn

    X, y = data(n=200)
    X = X.astype(np.float64)
    model = AROWClassifier().partial_fit(X[:50], y[:50])
    model.partial_fit(X[50:100], y[50:100])
    if duplicate == "model file":
        olearn.save(model, tmp_path / "m.olm")
        twin = olearn.load(tmp_path / "m.olm")
    elif duplicate == "pickle":
        twin = pickle.loads(pickle.dumps(model))
    else:
        twin = copy.deepcopy(model)
    before = model_state(twin)
    bad = X[100:150].copy()
    bad[20, 3] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        twin.partial_fit(bad, y[100:150])
    assert_same_state(before, model_state(twin))
    for part in (model, twin):
        part.partial_fit(X[100:], y[100:])
    assert short_path == [False, True, True, True]  # (the NaN chunk raised in it)
    assert_state(twin, model)
    assert_state(model, AROWClassifier().fit(X, y))


def test_a_streamed_chunk_whose_squares_overflow_warns_and_is_learned():
    X, y = data(n=100)
    X = X.astype(np.float64)
    model = PassiveAggressiveClassifier().partial_fit(X[:50], y[:50])
    chunk = X[50:].copy()
    chunk[10] = 1e200
    with pytest.warns(RuntimeWarning, match="1 row.* not learned"):
        model.partial_fit(chunk, y[50:])
    assert model.n_rounds_ == 100
    assert np.isfinite(model.coef_).all()


def test_column_names_are_the_names_of_every_kind_of_index():
    """``_column_names`` reads the array pandas keeps where there is one: for every kind of
    columns Index it equals ``np.asarray(columns)``."""
    pd = pytest.importorskip("pandas")
    from olearn.estimators._validation import _column_names

    names = [f"f{j}" for j in range(4)]
    for columns in (
        pd.Index(names),
        pd.Index(names, dtype=object),
        pd.Index([3, 1, 2, 0]),
        pd.RangeIndex(4),
        pd.MultiIndex.from_arrays([names, names]),
        pd.date_range("2026-01-01", periods=4),
    ):
        got = _column_names(columns)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, np.asarray(columns))
