"""The fast paths taken for speed (benchmarks/README.md, core engine) change nothing observable.

* ``partial_fit`` on a fitted model with ready input skips scikit-learn's generic checks: it
  must learn exactly what ``fit`` learns, and still reject bad input before any state changes.
* ``predict_one`` scores an averaged model in O(nnz): it must agree with ``predict``.
* The fused one-pass primitives equal the separate sums bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import AROWClassifier, PassiveAggressiveClassifier, PerceptronClassifier, engine
from olearn.estimators import _validation, base
from olearn.representations import diagonal, linear, rows

STATE = ("weights_", "average_sums_", "variances_", "precision_cholesky_", "stats_")


def stream(n=300, d=8, seed=0, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    y = np.where(X @ rng.normal(size=d) + 0.1 * rng.normal(size=n) > 0, "yes", "no")
    return X, y


def state(model):
    return [getattr(model, name).copy() for name in STATE]


def assert_same(a, b):
    for x, z in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, z)


MODELS = {
    "pa1": lambda: PassiveAggressiveClassifier(C=0.5),
    "perceptron-averaged": lambda: PerceptronClassifier(average=True),
    "arow-diagonal": lambda: AROWClassifier(),
    "arow-full": lambda: AROWClassifier(covariance="full"),
}


@pytest.mark.parametrize("chunk", [1, 7, 100])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_chunked_partial_fit_equals_fit(name, fmt, chunk, monkeypatch):
    X, y = stream()
    data = sp.csr_matrix(X) if fmt == "csr" else X
    reference = MODELS[name]().fit(data, y)
    model = MODELS[name]().partial_fit(data[:20], y[:20])  # both labels seen: fast path after

    def generic_check(*args, **kwargs):
        raise AssertionError("the generic path ran: the fast path was not taken")

    monkeypatch.setattr(base.OnlineLinearClassifier, "_check_targets", generic_check)
    monkeypatch.setattr(_validation, "validate_data", generic_check)
    for start in range(20, X.shape[0], chunk):
        model.partial_fit(data[start : start + chunk], y[start : start + chunk])
    assert_same(state(model), state(reference))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_fast_partial_fit_still_rejects_bad_input_unchanged(fmt):
    X, y = stream()
    model = PassiveAggressiveClassifier().fit(X, y)
    before = state(model)
    bad = X[:5].copy()
    bad[2, 3] = np.nan
    wide = np.hstack([X[:5], X[:5, :1]])
    for data, labels, message in [
        (bad, y[:5], "NaN"),
        (wide, y[:5], "features"),
        (X[:5], y[:4], "inconsistent"),
        (X[:5], np.array([1, 0, 1, 0, 0]), "labels, but the model's classes are"),
    ]:
        data = sp.csr_matrix(data) if fmt == "csr" else data
        with pytest.raises(ValueError, match=message):
            model.partial_fit(data, labels)
        assert_same(state(model), before)


def test_second_label_arriving_later_takes_the_generic_path():
    X, y = stream()
    first = np.flatnonzero(y == "yes")[:5]
    model = PassiveAggressiveClassifier().partial_fit(X[first], y[first])
    model.partial_fit(X, y)
    np.testing.assert_array_equal(model.classes_, ["no", "yes"])
    assert model.n_rounds_ == 5 + X.shape[0]


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("multiclass", ["joint", "ovr"])
def test_multiclass_chunks_of_known_labels_skip_the_label_checks(multiclass, labels, monkeypatch):
    """A fitted multiclass model given labels it has: no sorts or unions of labels
    (``_holds_only_known_labels``), the model ``fit`` makes; a label it has not, or of another
    kind, still takes the general path (grown, or refused by name)."""
    X, y = stream()
    y = (X[:, 0] > 0.3).astype(int) + (X[:, 1] > 0).astype(int)  # 0, 1, 2
    if labels == "str":
        y = np.array(["cat", "dog", "emu"])[y]
    reference = PassiveAggressiveClassifier(multiclass=multiclass).fit(X, y)
    model = PassiveAggressiveClassifier(multiclass=multiclass).partial_fit(X[:40], y[:40])
    general = base._two_labels

    def generic_check(*args, **kwargs):
        raise AssertionError("the labels were checked by the general path")

    monkeypatch.setattr(base, "_two_labels", generic_check)
    for start in range(40, X.shape[0], 7):
        model.partial_fit(X[start : start + 7], y[start : start + 7])
    assert_same(state(model), state(reference))
    monkeypatch.setattr(base, "_two_labels", general)
    new = 3 if labels == "int" else "fox"
    model.partial_fit(X[:2], np.array([new, new]))
    assert model.classes_.tolist()[-1] == new and model.weights_.shape[0] == 4
    other = np.array(["a", "b"]) if labels == "int" else np.array([0, 1])
    with pytest.raises(ValueError, match="labels, but the model's classes are"):
        model.partial_fit(X[:2], other)


@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_predict_one_equals_predict(name):
    X, y = stream()
    model = MODELS[name]().fit(X[:200], y[:200])
    predicted = model.predict(X[200:])
    for i, row in enumerate(X[200:]):
        nz = np.flatnonzero(row)
        assert model.predict_one((nz, row[nz])) == predicted[i]
        assert (
            model.predict_one(dict(zip(nz.tolist(), row[nz].tolist(), strict=True)))
            == (predicted[i])
        )


def test_sparse_row_problem_codes():
    idx = np.array([0, 3, 5])
    assert rows.sparse_row_problem(idx, np.array([1.0, 2.0, 3.0]), 6) == 0
    assert rows.sparse_row_problem(idx, np.array([1.0, 2.0, 3.0]), 5) == 1
    assert rows.sparse_row_problem(np.array([-1]), np.array([1.0]), 5) == 1
    assert rows.sparse_row_problem(idx, np.array([1.0, np.inf, 3.0]), 6) == 2
    assert rows.sparse_row_problem(idx[:0], np.zeros(0), 6) == 0


def test_fused_primitives_equal_the_separate_sums_bitwise():
    rng = np.random.default_rng(3)
    w, sig = rng.normal(size=51), rng.random(51)
    val = rng.normal(size=50)
    idx = rng.choice(50, size=20, replace=False)
    for bias in (1.0, 0.0):
        for i, v in ((None, val), (idx, val[:20])):
            assert linear.dot_sq_norm(w, i, v, bias) == (
                linear.dot(w, i, v, bias),
                linear.sq_norm(i, v, bias),
            )
            assert diagonal.dot_confidence(w, sig, i, v, bias) == (
                linear.dot(w, i, v, bias),
                diagonal.confidence(sig, i, v, bias),
            )


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_a_plain_binary_model_learns_by_its_own_pass_alone(fmt, monkeypatch):
    """``engine.run_pass``: a binary model with a margin rule learns through its
    representation's own pass, never entering ``engine.run`` (whose first use compiles the
    whole loop), and learns what ``engine.run`` learns, bit for bit; the models without
    such a pass — multiclass, full covariance on CSR rows — still run the whole loop."""
    X, y = stream()
    X = sp.csr_matrix(X) if fmt == "csr" else X
    rest = np.arange(20, X.shape[0])
    real = engine.run
    calls = []
    monkeypatch.setattr(engine, "run", lambda *args: calls.append(args) or real(*args))
    for name, make in MODELS.items():
        own_pass = not (fmt == "csr" and name == "arow-full")
        model = make().fit(X, y)
        model.partial_fit(X[:150], y[:150])
        assert bool(calls) != own_pass, name
        # the rest of the rows from one start, by the whole loop and by run_pass: one state
        reference, model = make().fit(X[:20], y[:20]), make().fit(X[:20], y[:20])
        signs = np.where(y == reference.classes_[1], 1.0, -1.0)
        arrays = _validation.engine_arrays(X)
        real(*arrays, signs, rest, *reference._engine_state(), None)
        model._run_arrays(*arrays, signs, rest)
        assert_same(state(model), state(reference))
        calls.clear()
    PassiveAggressiveClassifier().fit(X, np.arange(X.shape[0]) % 3)
    assert calls
