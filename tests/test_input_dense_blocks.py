"""Dense rows converted by blocks (Fortran order, a DataFrame's values, shuffled passes),
by a worker thread beside the loop when two CPUs are usable (``estimators/_blocks.py``):
the models are those of C-ordered float64 rows bit for bit, whichever thread converts which
block; a non-finite value in a late block, an error of either thread or a KeyboardInterrupt
raises, leaves the model as it was and leaves no thread running; one CPU or few blocks take
the sequential conversion. Block sizes are made small here so that a small set spans many
blocks. Speed is measured in benchmarks/bench_loops.py (``--only forms``), not here.
"""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pandas as pd
import pytest
from conftest import LEARNED_STATE, assert_same_state, model_state

from olearn import (
    AROWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SGDRegressor,
)
from olearn.estimators import _blocks, base
from olearn.representations._columns import rows_from_columns

MODELS = {
    "pa1": lambda **kw: PassiveAggressiveClassifier(variant="PA-I", **kw),
    "perceptron": lambda **kw: PerceptronClassifier(**kw),
    "perceptron-averaged": lambda **kw: PerceptronClassifier(average=True, **kw),
    "arow-diagonal": lambda **kw: AROWClassifier(**kw),
    "arow-full": lambda **kw: AROWClassifier(covariance="full", **kw),
    "scw-diagonal": lambda **kw: SCWClassifier(**kw),
    # the weights as scale·W: the scale is folded once a pass, not once a block
    "sgd-regressor": lambda **kw: SGDRegressor(alpha=0.01, **kw),
}
N, D = 150, 9


def data(seed=0, k=2):
    """Values with zeros (the diagonal update skips them) and noisy labels (updates); k
    classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D)) * (rng.random((N, D)) < 0.6)
    scores = X @ rng.normal(size=(D, k)) + 0.3 * rng.normal(size=(N, k))
    y = np.where(scores[:, 0] > 0, 1, -1) if k == 2 else np.argmax(scores, axis=1)
    return X, y


def forms(X) -> dict:
    return {
        "fortran": np.asfortranarray(X),
        "dataframe": pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]),
    }


def assert_state(model, reference):
    for name in LEARNED_STATE:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), name)


class Workers:
    """The threaded conversions started, and whether their threads have ended."""

    def __init__(self):
        self.started = 0
        self._baseline = _thread._count()  # the interpreter's threads but the main one

    def all_ended(self) -> bool:
        """Whether the interpreter runs no more threads than before (a worker's thread ends
        right after it signals its end: allowed 2 s)."""
        for _ in range(200):
            if _thread._count() <= self._baseline:
                return True
            time.sleep(0.01)
        return False


@pytest.fixture
def threaded(monkeypatch):
    """Blocks of 10 rows (15 blocks of the set) converted by two threads, as if two CPUs were
    usable; counts the threaded conversions."""
    monkeypatch.setattr(base, "_BLOCK_VALUES", 10 * D)
    monkeypatch.setattr(_blocks, "THREADED_VALUES", 10 * D)
    monkeypatch.setattr(_blocks, "usable_cpus", lambda: 2)
    workers = Workers()
    init = _blocks.ThreadedBlocks.__init__

    def counted(self, *args):
        workers.started += 1
        init(self, *args)

    monkeypatch.setattr(_blocks.ThreadedBlocks, "__init__", counted)
    yield workers
    assert workers.all_ended()


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
@pytest.mark.parametrize("form", ["fortran", "dataframe"])
def test_rows_converted_by_two_threads_learn_the_c_ordered_model(name, form, threaded):
    X, y = data()
    other = forms(X)[form]
    for params in ({}, dict(shuffle=True, random_state=3, max_iter=2)):
        model = MODELS[name](**params).fit(other, y)
        assert_state(model, MODELS[name](**params).fit(X, y))
    assert threaded.started


@pytest.mark.parametrize("name", ["pa1", "arow-diagonal", "arow-full"])
def test_weights_and_vector_labels_take_the_threaded_blocks_exactly(name, threaded):
    """Importance weights, cost rows and multilabel indicators (aux rows) follow their rows
    into the blocks, shuffled or not."""
    X, y = data(seed=1, k=4)
    XF = forms(X)["fortran"]
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=N)
    cost = np.random.default_rng(3).uniform(0.0, 1.0, size=(N, 4))
    cost[np.arange(N), y] = 0.0
    indicator = (X[:, :4] > 0).astype(int)
    indicator[indicator.sum(axis=1) == 0, 0] = 1
    for params in ({}, dict(shuffle=True, random_state=5)):
        for labels, extra in (
            (y, dict(sample_weight=weights)),
            (y, dict(cost=cost)),
            (indicator, {}),
            (y > 1, dict(sample_weight=weights)),  # binary, weighted
        ):
            model = MODELS[name](**params).fit(XF, labels, **extra)
            assert_state(model, MODELS[name](**params).fit(X, labels, **extra))
    assert threaded.started


@pytest.mark.parametrize(
    "name, extra",
    [
        ("pa1", {}),  # the pass counts the non-finite rows; fit then raises
        ("arow-full", {}),  # each block is checked before it is learned
        ("pa1", dict(sample_weight=np.full(N, 0.5))),
    ],
    ids=["counted", "checked", "weighted"],
)
def test_a_non_finite_value_in_a_late_block_raises_and_changes_nothing(name, extra, threaded):
    X, y = data()
    model = MODELS[name]().fit(X, y)
    before = model_state(model)
    bad = X.copy()
    bad[N - 3, 4] = np.nan  # in the last block
    for form in forms(bad).values():
        with pytest.raises(ValueError, match="NaN or infinity"):
            model.fit(form, y, **extra)
        assert_same_state(before, model_state(model))
        assert threaded.all_ended()
    assert threaded.started


@pytest.mark.parametrize("error", [KeyboardInterrupt, MemoryError])
def test_an_interrupted_pass_stops_the_worker_and_puts_the_model_back(error, threaded, monkeypatch):
    X, y = data()
    model = MODELS["pa1"]().fit(X, y)
    before = model_state(model)
    learn = base.OnlineLinearModel._learn_arrays
    calls = []

    def interrupted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 6:
            raise error
        return learn(self, *args, **kwargs)

    monkeypatch.setattr(base.OnlineLinearModel, "_learn_arrays", interrupted)
    with pytest.raises(error):
        model.fit(forms(X)["fortran"], y)
    assert len(calls) == 6
    assert threaded.all_ended()
    assert_same_state(before, model_state(model))


def test_an_error_in_the_worker_is_raised_by_fit(threaded, monkeypatch):
    """The worker's exception reaches the loop's thread (which waits for it here rather than
    convert every block itself)."""
    convert = _blocks.Blocks._convert
    main = threading.current_thread()

    def failing(self, k):
        if threading.current_thread() is not main:
            raise RuntimeError(f"conversion of block {k} failed")
        for _ in range(1000):  # until the worker has failed (at most ~10 s)
            if self._error is not None:
                return
            threading.Event().wait(0.01)
        convert(self, k)

    monkeypatch.setattr(_blocks.Blocks, "_convert", failing)
    X, y = data()
    model = MODELS["pa1"]().fit(X, y)
    before = model_state(model)
    with pytest.raises(RuntimeError, match="conversion of block"):
        model.fit(forms(X)["fortran"], y)
    assert threaded.all_ended()
    assert_same_state(before, model_state(model))


@pytest.mark.parametrize("cpus, block_rows", [(1, 10), (2, 100)], ids=["one-cpu", "two-blocks"])
def test_one_cpu_or_few_blocks_convert_in_the_loops_thread(cpus, block_rows, monkeypatch):
    monkeypatch.setattr(base, "_BLOCK_VALUES", 10 * D)
    monkeypatch.setattr(_blocks, "THREADED_VALUES", block_rows * D)
    monkeypatch.setattr(_blocks, "usable_cpus", lambda: cpus)

    def refused(*args):
        raise AssertionError("a worker thread was started")

    monkeypatch.setattr(_blocks.ThreadedBlocks, "__init__", refused)
    X, y = data()
    for form in forms(X).values():
        assert_state(MODELS["arow-diagonal"]().fit(form, y), MODELS["arow-diagonal"]().fit(X, y))


def test_usable_cpus_counts_the_affinity_mask():
    assert 1 <= _blocks.usable_cpus()


@pytest.mark.parametrize("width", [3, 8, 13, 16])
@pytest.mark.parametrize("layout", ["F", "C"])
def test_rows_from_columns_copies_a_range_of_rows(layout, width):
    """The compiled copy against NumPy's, for widths below, at, between and at twice its
    tile (8 columns)."""
    X = np.asarray(np.random.default_rng(0).normal(size=(40, width)), order=layout)
    X.flags.writeable = False
    out = np.full((20, width), np.nan)
    rows_from_columns(X, 7, 22, out)
    np.testing.assert_array_equal(out[:15], X[7:22])
    assert np.isnan(out[15:]).all()  # nothing beyond the range is written
