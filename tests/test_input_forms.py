"""Every input form users have learns and predicts what the canonical form does.

Canonical: a float64 CSR matrix with sorted indices and no repeated index, or a float64
C-contiguous array. The other forms — CSR with rows out of order (what ``TfidfVectorizer``,
``X[:, cols]`` and ``A @ B`` produce), the ``has_sorted_indices`` flag wrong, float32,
int64 indices, ``csr_array``, COO, CSC, a repeated index (scipy sums it), Fortran order,
float32 or integer arrays, read-only arrays, a DataFrame — are read in place or converted
once (``olearn.estimators._validation``); the state must be the canonical form's: equal
bit for bit, or to rounding where only the order of a sum changes (rows out of order).
Malformed sparse matrices are a ValueError before anything changes (issue 12), never a
crash. Speed is measured in benchmarks/bench_inputs.py, not here.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import LEARNED_STATE, assert_same_state, model_state

from olearn import (
    AROWClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    SCWClassifier,
)
from olearn.estimators import base

MODELS = {
    "pa1": lambda: PassiveAggressiveClassifier(),
    "perceptron-averaged": lambda: PerceptronClassifier(average=True),
    "arow-diagonal": lambda: AROWClassifier(),
    "arow-full": lambda: AROWClassifier(covariance="full"),
    "scw-multiclass": lambda: SCWClassifier(),
    "pa-regressor": lambda: PassiveAggressiveRegressor(),
}


def data(name, n=120, d=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    score = X @ rng.normal(size=d)
    if name == "scw-multiclass":
        y = np.digitize(score, np.quantile(score, [0.33, 0.66]))
    elif name == "pa-regressor":
        y = score
    else:
        y = np.where(score > 0, 1, -1)
    return X, y


def shuffled_rows(X: sp.csr_matrix, seed=1) -> sp.csr_matrix:
    """The same matrix with the indices of each row in a random order."""
    rng = np.random.default_rng(seed)
    out = X.copy()
    for i in range(out.shape[0]):
        a, b = out.indptr[i], out.indptr[i + 1]
        perm = rng.permutation(b - a)
        out.indices[a:b] = out.indices[a:b][perm]
        out.data[a:b] = out.data[a:b][perm]
    out.has_sorted_indices = False
    assert any(np.any(np.diff(out.indices[out.indptr[i] : out.indptr[i + 1]]) < 0)
               for i in range(out.shape[0]))  # fmt: skip
    return out


def split_values(X: sp.csr_matrix) -> sp.csr_matrix:
    """Each stored value v as two entries of the same index, v/4 and 3v/4: scipy's meaning
    (a sum) is the original matrix."""
    coo = X.tocoo()
    rows = np.concatenate([coo.row, coo.row])
    cols = np.concatenate([coo.col, coo.col])
    vals = np.concatenate([coo.data / 4, coo.data * 0.75])
    order = np.argsort(rows, kind="stable")
    counts = np.bincount(rows, minlength=X.shape[0])
    indptr = np.concatenate([[0], np.cumsum(counts)])
    out = sp.csr_matrix((vals[order], cols[order], indptr), shape=X.shape)
    assert not out.has_canonical_format
    return out


def flagged(X: sp.csr_matrix) -> sp.csr_matrix:
    out = X.copy()
    out.has_sorted_indices = False
    return out


def int64_indices(X: sp.csr_matrix) -> sp.csr_matrix:
    out = X.copy()
    out.indices = out.indices.astype(np.int64)
    out.indptr = out.indptr.astype(np.int64)
    return out


def read_only(X: np.ndarray) -> np.ndarray:
    out = X.copy()
    out.flags.writeable = False
    return out


def data_frame(X: np.ndarray):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])


#: form -> (convert the canonical float64 X, exact?)  Exact: every value and the order of
#: every sum is the canonical form's. Rows out of order change the order of sums only.
SPARSE_FORMS = {
    "csr-unsorted": (shuffled_rows, False),
    "csr-flag-wrong": (flagged, True),
    "csr-int64-indices": (int64_indices, True),
    "csr-array": (sp.csr_array, True),
    "coo": (lambda X: X.tocoo(), True),
    "csc": (lambda X: X.tocsc(), True),
    "csr-repeated-index": (split_values, False),
}
DENSE_FORMS = {
    "fortran": (np.asfortranarray, True),
    "read-only": (read_only, True),
    "strided": (lambda X: np.hstack([X, X])[:, : X.shape[1]], True),
    "dataframe": (data_frame, True),
}


def assert_state(model, reference, exact):
    for name in LEARNED_STATE:
        got, expected = getattr(model, name), getattr(reference, name)
        if exact:
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, err_msg=name)


def fit_all_ways(make, X, y):
    """fit, then 7-row partial_fit chunks, then single rows: three models."""
    whole = make().fit(X, y)
    chunks = make()
    for start in range(0, X.shape[0], 7):
        chunks.partial_fit(X[start : start + 7], y[start : start + 7])
    rows = make().partial_fit(X[:20], y[:20])
    for i in range(20, X.shape[0]):
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
    return whole, chunks, rows


def _rows(X):
    """Row slicing that works on every form (COO and DataFrames do not slice alike)."""
    if hasattr(X, "iloc"):
        return X.iloc
    if sp.issparse(X) and X.format == "coo":
        return X.tocsr()
    return X


@pytest.mark.parametrize("form", SPARSE_FORMS, ids=list(SPARSE_FORMS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_sparse_forms_learn_and_predict_as_canonical_csr(name, form):
    X, y = data(name)
    canonical = sp.csr_matrix(X)
    convert, exact = SPARSE_FORMS[form]
    other = convert(canonical)
    reference = fit_all_ways(MODELS[name], canonical, y)
    if form == "coo":
        got = [MODELS[name]().fit(other, y)]  # COO does not slice: fit only
    else:
        got = fit_all_ways(MODELS[name], other, y)
    for model, ref in zip(got, reference, strict=False):
        assert_state(model, ref, exact)
    model = got[0]
    assert_same = np.testing.assert_array_equal if exact else np.testing.assert_allclose
    if name == "pa-regressor":
        assert_same(model.predict(other), reference[0].predict(canonical))
    else:
        np.testing.assert_array_equal(model.predict(other), reference[0].predict(canonical))
    if hasattr(model, "decision_function"):
        assert_same(model.decision_function(other), reference[0].decision_function(canonical))
    if hasattr(model, "predict_proba") and model.task_ == "binary":
        assert_same(model.predict_proba(other), reference[0].predict_proba(canonical))


@pytest.mark.parametrize("form", DENSE_FORMS, ids=list(DENSE_FORMS))
@pytest.mark.parametrize("name", MODELS, ids=list(MODELS))
def test_dense_forms_learn_and_predict_as_c_ordered_float64(name, form):
    X, y = data(name)
    convert, exact = DENSE_FORMS[form]
    other = convert(X)
    reference = fit_all_ways(MODELS[name], X, y)
    whole = MODELS[name]().fit(other, y)
    chunks = MODELS[name]()
    rows = _rows(other)
    for start in range(0, X.shape[0], 7):
        chunks.partial_fit(rows[start : start + 7], y[start : start + 7])
    for model, ref in ((whole, reference[0]), (chunks, reference[1])):
        assert_state(model, ref, exact)
    if name == "pa-regressor":  # BLAS sums in another order for another layout
        np.testing.assert_allclose(whole.predict(other), reference[0].predict(X), rtol=1e-12)
    else:
        np.testing.assert_array_equal(whole.predict(other), reference[0].predict(X))


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16, np.longdouble])
def test_other_dtypes_learn_as_their_float64_values(dtype):
    """float16 and long double have no numba type: they are converted first (they failed
    with numba's NotImplementedError or TypingError); scipy.sparse refuses float16."""
    X, y = data("arow-diagonal")
    values = (X * 3).astype(dtype)
    exact = values.astype(np.float64)
    forms = [(values, exact)]
    if dtype != np.float16:
        forms.append((sp.csr_matrix(values), sp.csr_matrix(exact)))
    for other, canonical in forms:
        model = AROWClassifier().fit(other, y)
        reference = AROWClassifier().fit(canonical, y)
        assert_state(model, reference, exact=True)
        np.testing.assert_array_equal(model.predict(other), reference.predict(canonical))


@pytest.mark.parametrize("shuffle", [False, True])
def test_dense_blocks_equal_one_pass(shuffle, monkeypatch):
    """Rows that need conversion are converted by blocks as the loop reads them: with tiny
    blocks (many of them, shuffled or not) the model is the one of one in-place pass."""
    monkeypatch.setattr(base, "_BLOCK_VALUES", 40)  # 4 rows of 9 values a block
    X, y = data("pa1", n=101)
    params = dict(shuffle=shuffle, random_state=3, max_iter=2)
    reference = PassiveAggressiveClassifier(**params).fit(X, y)
    model = PassiveAggressiveClassifier(**params).fit(np.asfortranarray(X), y)
    assert_state(model, reference, exact=True)
    chunked = PassiveAggressiveClassifier().partial_fit(X[:10], y[:10])
    chunked.partial_fit(np.asfortranarray(X[10:]), y[10:])
    reference = (
        PassiveAggressiveClassifier().partial_fit(X[:10], y[:10]).partial_fit(X[10:], y[10:])
    )
    assert_state(chunked, reference, exact=True)


@pytest.mark.parametrize("name", ["arow-diagonal", "pa1", "arow-full", "scw-multiclass"])
@pytest.mark.parametrize("convert", [np.asfortranarray, lambda X: X.astype(np.float32)],
                         ids=["fortran", "float32"])  # fmt: skip
def test_non_finite_value_in_a_later_block_changes_nothing(monkeypatch, name, convert):
    """fit leaves the check of converted blocks to a binary pass (it counts the non-finite
    rows; diagonal and first-order models) and checks each block otherwise: either way a
    non-finite value in a later block raises and the model is as it was."""
    monkeypatch.setattr(base, "_BLOCK_VALUES", 40)
    X, y = data(name, n=60)
    model = MODELS[name]().fit(X, y)
    before = model_state(model)
    bad = convert(X)
    bad[50, 2] = np.nan
    for call in (model.fit, model.partial_fit):
        with pytest.raises(ValueError, match="NaN or infinity"):
            call(bad, y)
        assert_same_state(before, model_state(model))


def test_dataframe_names_are_kept_and_checked():
    pd = pytest.importorskip("pandas")
    X, y = data("pa1")
    frame = data_frame(X)
    model = PassiveAggressiveClassifier().fit(frame, y)
    assert model.feature_names_in_.tolist() == list(frame.columns)
    model.partial_fit(frame.iloc[:3], y[:3])
    renamed = frame.rename(columns={"f0": "g0"})
    with pytest.raises(ValueError, match="feature names"):
        model.partial_fit(renamed.iloc[:3], y[:3])
    with pytest.raises(ValueError, match="feature names"):
        model.predict(renamed)
    same_names = pd.DataFrame(X[:2], columns=[f"f{j}" for j in range(X.shape[1])])
    model.predict(same_names)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X[:2])
    model.fit(X, y)  # refitted on an array: no names any more
    assert not hasattr(model, "feature_names_in_")


def test_one_row_frames_of_pyarrow_names_are_checked_by_one_comparison(monkeypatch):
    """pandas holds column names in pyarrow when it is installed: each frame made from one
    list of names has new buffers, and converting them to compare (5.5 µs) doubled a one-row
    call (8 → 18 µs). Equal buffers are compared in C++ instead; other names still fail."""
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    from olearn.estimators import _validation

    X, y = data("pa1")
    columns = [f"f{j}" for j in range(X.shape[1])]
    if not hasattr(pd.DataFrame(X[:1], columns=columns).columns._data, "_pa_array"):
        pytest.skip("this pandas keeps string names in NumPy")
    model = PassiveAggressiveClassifier().fit(pd.DataFrame(X, columns=columns), y)
    model.predict(pd.DataFrame(X[:1], columns=columns))  # (names compared once, kept)
    converted = []
    convert = _validation._column_names
    monkeypatch.setattr(_validation, "_column_names",
                        lambda names: converted.append(1) or convert(names))  # fmt: skip
    for i in range(5):
        model.predict(pd.DataFrame(X[i : i + 1], columns=columns))
        model.partial_fit(pd.DataFrame(X[i : i + 1], columns=columns), y[i : i + 1])
    assert converted == []
    with pytest.raises(ValueError, match="feature names"):
        model.predict(pd.DataFrame(X[:1], columns=["g0", *columns[1:]]))


@pytest.mark.parametrize("form", ["csr", "coo", "csc"])
@pytest.mark.parametrize("rows", [1, 40])
@pytest.mark.parametrize("Model", [PassiveAggressiveClassifier, AROWClassifier])
def test_sparse_input_to_a_model_fitted_on_names_warns_as_an_array_does(form, rows, Model):
    """scikit-learn warns for any input without names (sparse too) once a model has them;
    the chunk and one-row short paths must not skip it."""
    X, y = data("pa1")
    model = Model().fit(data_frame(X), y)
    Z = sp.csr_matrix(X[:rows]).asformat(form)
    for call in (lambda: model.predict(Z), lambda: model.partial_fit(Z, y[:rows])):
        with pytest.warns(UserWarning, match="does not have valid feature names"):
            call()


def malformed():
    X = sp.csr_matrix(data("pa1")[0])
    cases = {}
    for name, index in (("index-too-large", 9), ("index-negative", -1), ("index-huge", 2**30)):
        bad = X.copy()
        bad.indices[5] = index
        cases[name] = (bad, "column index outside")
    bad = X.copy()
    bad.indptr[3] = bad.indptr[4] + 1  # row 2 ends after row 3 starts
    cases["indptr-decreasing"] = (bad, "row pointers")
    bad = X.copy()
    bad.indptr[-1] = len(bad.indices) + 5
    cases["indptr-beyond"] = (bad, "row pointers")
    coo = X.tocoo(copy=True)  # (without the copy, col is X.indices: X would turn malformed)
    coo.col[3] = 12
    cases["coo-column"] = (coo, "column index outside")
    csc = X.tocsc(copy=True)
    csc.indices[3] = 500
    cases["csc-row"] = (csc, "column index outside")
    return cases


MALFORMED = malformed()


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
@pytest.mark.parametrize("name", ["pa1", "arow-full", "scw-multiclass"])
def test_malformed_sparse_input_is_a_value_error_and_changes_nothing(name, case):
    """Issue 12: out-of-range indices reached the compiled loop (a segfault)."""
    bad, message = MALFORMED[case]
    X, y = data(name)
    model = MODELS[name]().fit(X, y)
    before = model_state(model)
    for call in (model.partial_fit, model.fit):
        with pytest.raises(ValueError, match=message):
            call(bad, y)
        assert_same_state(before, model_state(model))
    with pytest.raises(ValueError, match=message):  # beyond X's own shape: not "unseen"
        model.predict(bad)
    assert_same_state(before, model_state(model))


def _random_csr_arrays(rng):
    """CSR arrays of a few rows — some empty — often canonical, else with one flaw: a row out
    of order, an index repeated (in order or not), out of range, a NaN or an infinity, or
    values before the first row (indptr[0] > 0)."""
    n, d = int(rng.integers(1, 7)), int(rng.integers(1, 12))
    lengths = rng.integers(0, d + 1, size=n) * (rng.random(n) < 0.8)
    rows = [np.sort(rng.choice(d, size=k, replace=False)) for k in lengths]
    offset = int(rng.integers(0, 3)) if rng.random() < 0.2 else 0
    indices = np.concatenate([rng.integers(0, d, size=offset), *rows]).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64) + offset
    data = rng.normal(size=indices.shape[0])
    flaw = rng.integers(0, 8)
    filled = [i for i in range(n) if lengths[i] > 1]
    if flaw == 1 and filled:  # a row out of order
        a, b = indptr[filled[0]], indptr[filled[0] + 1]
        indices[a:b] = indices[a:b][::-1]
    elif flaw == 2 and filled:  # a repeat, in order
        a = indptr[filled[-1]]
        indices[a + 1] = indices[a]
    elif flaw == 3 and filled:  # a repeat, out of order
        a, b = indptr[filled[0]], indptr[filled[0] + 1]
        indices[b - 1] = indices[a]
        indices[a:b] = indices[a:b][::-1]
    elif flaw in (4, 5) and indices.shape[0] > offset:
        p = int(rng.integers(offset, indices.shape[0]))
        indices[p] = d if flaw == 4 else -1
    elif flaw in (6, 7) and indices.shape[0] > offset:
        data[int(rng.integers(offset, indices.shape[0]))] = np.nan if flaw == 6 else -np.inf
    return indptr, indices, data, d


@pytest.mark.parametrize("index, value", [(np.int32, np.float64), (np.int64, np.float32),
                                          (np.int32, np.int64)])  # fmt: skip
def test_csr_scan_answers_as_its_row_by_row_scan(index, value):
    """``csr_scan`` tests canonical rows on the flat arrays and scans row by row only when
    that test fails: its verdict and row must be those of the row-by-row scan alone; so must
    ``csr_scan``'s without the values, which answers as if every value were finite."""
    from olearn.representations import fastpath

    rng = np.random.default_rng(3)
    verdicts = set()
    for _ in range(600):
        indptr, indices, data, d = _random_csr_arrays(rng)
        if value is np.int64:
            data = np.nan_to_num(data, posinf=7.0, neginf=-7.0).round()
        arrays = (indptr.astype(index), indices.astype(index), data.astype(value), d)
        expected = fastpath._scan_rows(*arrays, False, True)
        assert fastpath.csr_scan(*arrays, True) == expected, arrays
        verdicts.add(int(expected[0]))
        # without the values: the same answer for rows whose values are all finite
        assert fastpath.csr_scan(*arrays, False) == fastpath._scan_rows(*arrays, False, False)
        if expected[0] != fastpath.NOT_FINITE:
            assert fastpath.csr_scan(*arrays, False) == expected, arrays
    assert verdicts >= {fastpath.CANONICAL, fastpath.UNSORTED, fastpath.DUPLICATES,
                        fastpath.OUT_OF_RANGE} | ({fastpath.NOT_FINITE} if value is not np.int64
                                                  else set())  # fmt: skip


def test_an_event_index_repeats_exactly_when_the_hash_table_says_so():
    """Hashed names that collide are summed (``fastpath.summed_repeats``); the test for a
    repeat is a hash table, not a sort: it must find every repeat and invent none."""
    from olearn.representations import fastpath

    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 7, 80, 300):
        for spread in (3, 2**18, 2**62):
            idx = rng.integers(-spread, spread, size=n)
            assert fastpath._has_repeat(idx) == (len(np.unique(idx)) < n), (n, spread)
            if n > 1:
                idx[-1] = idx[int(rng.integers(0, n - 1))]
                assert fastpath._has_repeat(idx)
    idx = np.array([4, 9, 4, 1], dtype=np.int64)
    summed_idx, summed_val = fastpath.summed_repeats(idx, np.array([1.0, 2.0, 3.0, 4.0]))
    assert summed_idx.tolist() == [4, 9, 1] and summed_val.tolist() == [4.0, 2.0, 4.0]
