"""The caller's data is read, never written: no estimator method changes X, y or the sample
weights in any input form, and no fitted model keeps a view of them. (``predict_proba`` of
the Gaussian models once summed a CSR matrix's repeated indices in the caller's arrays,
leaving its row pointers wrong.)"""

import hashlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier, is_regressor

import olearn

ESTIMATORS = sorted(
    name
    for name in dir(olearn)
    if name[0].isupper()
    and isinstance(getattr(olearn, name), type)
    and name != "JointFeatureClassifier"  # (its rows come from a feature map)
    and (is_classifier(getattr(olearn, name)()) or is_regressor(getattr(olearn, name)()))
)


def _dense():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 7))
    X[rng.random(X.shape) < 0.5] = 0.0
    X[:, 0] = 1.0 + rng.random(40)  # every row holds a value (a repeat is planted in row 0)
    return X


def _csr_repeated_and_unsorted():
    """CSR rows whose first row is out of order and holds an index twice."""
    X = sp.csr_matrix(_dense())
    indices = X.indices.copy()
    a, b = X.indptr[0], X.indptr[1]
    indices[a:b] = indices[a:b][::-1]
    indices[a] = indices[a + 1]
    return sp.csr_matrix((X.data.copy(), indices, X.indptr.copy()), shape=X.shape)


FORMS = {
    "dense": _dense,
    "fortran": lambda: np.asfortranarray(_dense()),
    "csr": lambda: sp.csr_matrix(_dense()),
    "csr, repeated and unsorted": _csr_repeated_and_unsorted,
    "coo": lambda: sp.coo_matrix(_dense()),
    "csc": lambda: sp.csc_matrix(_dense()),
}


def _arrays(X):
    if sp.issparse(X):
        return [getattr(X, name) for name in ("data", "indices", "indptr", "row", "col")
                if hasattr(X, name)]  # fmt: skip
    return [X]


def _fingerprint(arrays) -> str:
    digest = hashlib.sha256()
    for a in arrays:
        digest.update(np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_method_writes_the_callers_data_or_keeps_a_view_of_it(name, form):
    cls = getattr(olearn, name)
    X = FORMS[form]()
    rng = np.random.default_rng(1)
    y = rng.normal(size=40) if is_regressor(cls()) else rng.integers(0, 3, size=40)
    weights = 0.5 + rng.random(40)
    arrays = [*_arrays(X), y, weights]
    before = _fingerprint(arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (ordered streams, budgets: not what is tested)
        model = cls().fit(X, y, sample_weight=weights)
        model.partial_fit(X, y, sample_weight=weights)
        for method in ("predict", "decision_function", "predict_proba"):
            if hasattr(model, method):
                getattr(model, method)(X)
        model.score(X, y, sample_weight=weights)
    assert _fingerprint(arrays) == before
    for attribute, value in vars(model).items():
        if isinstance(value, np.ndarray):
            assert not any(np.shares_memory(value, a) for a in arrays), attribute
