"""fit tests the finiteness of float64 X inside its pass (engine.run_binary counts the rows
with a non-finite confidence): bad input must still raise before any observable change, and
finite input whose sums overflow must still be learned."""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import AROWClassifier, PassiveAggressiveClassifier


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_x_raises_and_keeps_the_model(make, bad, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0, "b", "a")
    model = make().fit(X, y)
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X.copy()
    X_bad[37, 2] = bad
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 37\)"):
        model.fit(sp.csr_matrix(X_bad) if sparse else X_bad, y[::-1].copy())
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    assert model.n_rounds_ == 60


@pytest.mark.parametrize(
    "make, weighted",
    [
        (PassiveAggressiveClassifier, False),  # the pass counts the row, then the check
        (PassiveAggressiveClassifier, True),  # weighted: the values checked first
        (lambda: AROWClassifier(covariance="full"), False),  # no counting pass: checked first
        (lambda: PassiveAggressiveClassifier(multiclass="ovr"), False),  # three classes
    ],
)
def test_a_non_finite_csr_value_in_fit_names_its_row_on_every_path(make, weighted):
    """``fit`` reads a CSR matrix's indices before learning and leaves its values to the
    binary passes, which count a non-finite row; every other loop checks the values
    first. Either way the error names the first bad row, and the model stays as it was."""
    rng = np.random.default_rng(2)
    X = sp.random(80, 30, density=0.2, format="csr", random_state=3)
    y = rng.integers(0, 3, size=80)
    model = make().fit(X, y)
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X.copy()
    X_bad.data[X_bad.indptr[41] + 1 : X_bad.indptr[42]] = np.nan  # row 41 (and 55: inf)
    X_bad.data[X_bad.indptr[55]] = np.inf
    weights = np.ones(80) if weighted else None
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 41\)"):
        model.fit(X_bad, y, sample_weight=weights)
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)


def test_fit_reads_only_the_indices_of_finite_csr_rows_before_learning(monkeypatch):
    """The values of CSR rows are read once, by the pass, when it counts non-finite rows:
    the check before learning reads the indices alone (``csr_scan``, ``values`` False)."""
    from olearn.representations import fastpath

    X = sp.random(50, 20, density=0.3, format="csr", random_state=0)
    y = np.arange(50) % 2
    reference = PassiveAggressiveClassifier().fit(X, y)
    scan = fastpath.csr_scan
    calls = []
    monkeypatch.setattr(fastpath, "csr_scan", lambda *a: calls.append(a[-1]) or scan(*a))
    model = PassiveAggressiveClassifier().fit(X, y)
    assert calls == [False]
    np.testing.assert_array_equal(model.coef_, reference.coef_)


def test_finite_values_whose_squares_overflow_keep_the_model_finite():
    X = np.array([[1e200, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    y = np.array([1, 0, 1])
    with pytest.warns(RuntimeWarning, match="1 row.* not learned"):
        model = PassiveAggressiveClassifier().fit(X, y)
    assert model.n_rounds_ == 3
    assert np.isfinite(model.coef_).all()


@pytest.mark.parametrize("make", [PassiveAggressiveClassifier, AROWClassifier])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_partial_fit_chunk_with_non_finite_x_keeps_the_model(make, bad):
    # A chunk much larger than the state: partial_fit checks it inside the pass and puts a
    # snapshot back on a hit.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = np.where(X[:, 1] > 0, 1, -1)
    model = make().partial_fit(X[:50], y[:50])
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X[50:].copy()
    X_bad[120, 0] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.partial_fit(X_bad, y[50:])
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    model.partial_fit(X[50:], y[50:])
    assert model.n_rounds_ == 200


def test_the_perceptron_learns_huge_finite_rows_alike_from_dense_and_csr_rows():
    """The Perceptron reads ‖x̃‖² only through its sign, so both of its passes skip that sum
    while the score is finite (``dense_binary_pass``, ``sparse_binary_pass``): a row whose
    squares overflow is then learned from dense and CSR rows alike, where the sum would have
    refused it on one of them."""
    from olearn import PerceptronClassifier

    X = np.array([[1e200, 0.0, 0.0], [0.0, 1.0, -2.0], [-1.0, 0.5, 0.0], [0.0, 0.0, 3.0]])
    y = np.array([1, 0, 1, 0])
    dense = PerceptronClassifier().fit(X, y)
    sparse = PerceptronClassifier().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.weights_, sparse.weights_)
    np.testing.assert_array_equal(dense.stats_, sparse.stats_)
    assert dense.weights_[0, 0] == 1e200  # the first row, a mistake, was learned


SPARSE_CHUNK_MODELS = [
    PassiveAggressiveClassifier,  # first-order: a journal of the weights
    lambda: __import__("olearn").PerceptronClassifier(),
    lambda: __import__("olearn").PerceptronClassifier(average=True),  # no journal: checked
    AROWClassifier,  # diagonal: no journal, the values checked first
]


@pytest.mark.parametrize("make", SPARSE_CHUNK_MODELS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("journal_values", [0, None])
def test_a_sparse_chunk_with_a_non_finite_value_is_undone_and_named(
    make, bad, journal_values, monkeypatch
):
    """A large CSR chunk of a fitted first-order binary model reads only its indices before
    its pass (``csr_scan``, ``values`` False); the pass keeps a journal of what it changes,
    and a non-finite row late in the chunk — after hundreds of updates — has them undone:
    the model is bit for bit as it was, the error names the row, and the next chunks learn
    as if the bad chunk had never come. Averaged and diagonal models, and chunks small
    enough to stay in the cache (``journal_values`` None: the default threshold, above this
    chunk), check the values first."""
    from olearn.estimators import base
    from olearn.representations import fastpath

    if journal_values is not None:
        monkeypatch.setattr(base, "_JOURNAL_MIN_VALUES", journal_values)

    rng = np.random.default_rng(4)
    X = sp.random(900, 300, density=0.05, format="csr", random_state=5)
    y = rng.choice([-1, 1], size=900)
    model = make().partial_fit(X[:100], y[:100], classes=[-1, 1])
    reference = make().partial_fit(X[:100], y[:100], classes=[-1, 1])
    before = {k: np.copy(v) for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    X_bad = X[100:500].copy()
    X_bad.data[X_bad.indptr[350]] = bad
    scan = fastpath.csr_scan
    calls = []
    monkeypatch.setattr(fastpath, "csr_scan", lambda *a: calls.append(a[-1]) or scan(*a))
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 350\)"):
        model.partial_fit(X_bad, y[100:500])
    journaled = (
        journal_values is not None
        and not isinstance(model, AROWClassifier)
        and not getattr(model, "average", False)
    )
    assert calls[0] is not journaled  # the journal's path: the values left to the pass
    for key, value in before.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    model.partial_fit(X[500:], y[500:])
    reference.partial_fit(X[500:], y[500:])
    for key in before:
        np.testing.assert_array_equal(getattr(model, key), getattr(reference, key))


@pytest.mark.parametrize("make", SPARSE_CHUNK_MODELS[:2])
def test_sparse_chunks_learn_what_checked_chunks_learn(make, monkeypatch):
    """The journaled pass learns what the pass after a full check learns, bit for bit."""
    from olearn.estimators import base

    X = sp.random(1200, 200, density=0.05, format="csr", random_state=6)
    y = np.random.default_rng(7).choice([0, 1], size=1200)
    models = []
    for journal_values in (0, 10**9):  # journaled, then checked first
        monkeypatch.setattr(base, "_JOURNAL_MIN_VALUES", journal_values)
        model = make().partial_fit(X[:10], y[:10], classes=[0, 1])
        for start in range(10, 1200, 199):
            model.partial_fit(X[start : start + 199], y[start : start + 199])
        models.append(model)
    journaled, checked = models
    np.testing.assert_array_equal(journaled.weights_, checked.weights_)
    np.testing.assert_array_equal(journaled.stats_, checked.stats_)
    np.testing.assert_array_equal(journaled.variances_, checked.variances_)
    np.testing.assert_array_equal(journaled.average_sums_, checked.average_sums_)


def test_undo_puts_back_every_coordinate_changed_by_many_rows():
    """``_journal.undo`` after a pass whose rows share coordinates (each changed many times,
    the intercept by every update) restores the weights bit for bit."""
    from olearn import engine
    from olearn.representations import _journal

    X = sp.random(300, 12, density=0.5, format="csr", random_state=8)
    y = np.where(np.random.default_rng(9).random(300) < 0.5, -1.0, 1.0)
    model = PassiveAggressiveClassifier().partial_fit(X[:5], y[:5], classes=[-1.0, 1.0])
    state, config = model._engine_state()
    w = state[0][0].copy()
    journal = _journal.prepared(np.empty(_journal.size(300, X.nnz)), 300)
    engine.run_pass(X.data, X.indptr, X.indices, y, np.arange(300), state, config, None, True,
                    journal)  # fmt: skip
    assert journal[0] > 100  # many updates were written down
    assert not np.array_equal(state[0][0], w)
    _journal.undo(journal, X.indptr, X.indices, state[0][0])
    np.testing.assert_array_equal(state[0][0], w)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("form", ["C", "F", "float32"])
def test_a_non_finite_dense_value_is_named_by_its_row_of_x(form, shuffle):
    """Dense rows name the first bad row of X as CSR rows do, whether X is read in place,
    or converted by blocks (Fortran order: several blocks, shuffled or not)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 50))
    X[2500, 7] = np.nan
    X = X.astype(np.float32) if form == "float32" else np.asarray(X, order=form)
    y = np.arange(3000) % 2
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 2500\)"):
        AROWClassifier(shuffle=shuffle, random_state=0).fit(X, y)
    model = AROWClassifier(shuffle=shuffle, random_state=0).partial_fit(X[:10], y[:10])
    with pytest.raises(ValueError, match=r"NaN or infinity \(row 2490\)"):
        model.partial_fit(X[10:], y[10:])
