"""Input checks shared by the estimators: clear errors, raised before any state changes."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from olearn.representations import fastpath

ACCEPT_SPARSE = ("csr", "csc", "coo")


def check_X(estimator, X, *, reset: bool, check_finite: bool = True):
    """Validate X and return it as float64: C-contiguous dense, or CSR with sorted indices.

    Dense float64 C-contiguous arrays take a fast path (single-row ``partial_fit`` must cost
    microseconds, not the ~50 µs of scikit-learn's generic checks). ``check_finite=False``
    leaves the finiteness of such an array to the caller (``fit`` fuses it into its pass,
    see ``finite_check_deferred``; CSR input too); any other input is checked as always.
    """
    if (
        not reset
        and type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] > 0
    ):
        if X.shape[1] != estimator.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(estimator).__name__} "
                f"is expecting {estimator.n_features_in_} features as input."
            )
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity.")
        return X
    if (
        reset
        and type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] > 0
        and X.shape[1] > 0
        and (not check_finite or np.isfinite(X.sum()) or np.isfinite(X).all())
    ):
        # What validate_data(reset=True) does for an array that needs no conversion, without
        # its generic machinery: record the width, forget feature names of an earlier fit.
        # (A sum of finite numbers that overflows falls back to the exact finiteness test.)
        estimator.n_features_in_ = X.shape[1]
        estimator.__dict__.pop("feature_names_in_", None)
        return X
    if (
        reset
        and not check_finite
        and finite_check_deferred(X)
        and type(X) is not np.ndarray
        and X.indices.dtype in (np.int32, np.int64)
        and X.indptr.dtype == X.indices.dtype
    ):
        # The same for a float64 CSR matrix in canonical format (sorted indices, no
        # duplicates): nothing to convert, and the caller tests the finiteness of X.data.
        estimator.n_features_in_ = X.shape[1]
        estimator.__dict__.pop("feature_names_in_", None)
        return X
    X = validate_data(
        estimator,
        X,
        reset=reset,
        accept_sparse=ACCEPT_SPARSE,
        dtype=np.float64,
        order="C",
        ensure_all_finite=True,
    )
    if sp.issparse(X):
        X = sp.csr_matrix(X) if X.format != "csr" else X
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        if not X.has_canonical_format:
            X.sum_duplicates()
    return X


def finite_check_deferred(X) -> bool:
    """Whether ``check_X(..., check_finite=False)`` skips the finiteness test of X: a
    float64 C-contiguous array or a float64 CSR matrix in canonical format, non-empty."""
    if type(X) is np.ndarray:
        return (
            X.dtype == np.float64
            and X.ndim == 2
            and X.flags.c_contiguous
            and X.shape[0] > 0
            and X.shape[1] > 0
        )
    return (
        (type(X) is sp.csr_matrix or type(X) is sp.csr_array)
        and X.dtype == np.float64
        and X.shape[0] > 0
        and X.shape[1] > 0
        and X.has_canonical_format
        and X.indptr[0] == 0
        and X.indptr[-1] == X.data.shape[0]  # every stored value belongs to a row
    )


def fitted_fast_X(estimator, X, check_finite: bool = True):
    """X for a fitted model if it needs no conversion — float64 C-contiguous 2-D dense, or
    float64 CSR in canonical format — and is valid; None otherwise (the caller then takes
    the generic path of ``check_X``, which converts or raises the error).

    This is the per-call path of ``partial_fit`` on small chunks and single rows, where
    scikit-learn's generic checks (~50 µs) would dominate: a shape check and a finiteness
    check that costs one compiled pass (``fastpath.all_finite``: no NumPy call overhead on a
    single row). ``check_finite=False`` leaves that test to the caller."""
    if type(X) is np.ndarray:
        if not (X.dtype == np.float64 and X.ndim == 2 and X.flags.c_contiguous):
            return None
        values = X
    elif type(X) is sp.csr_matrix or type(X) is sp.csr_array:
        if not (X.dtype == np.float64 and X.has_canonical_format):
            return None
        values = X.data
    else:
        return None
    if X.shape[0] == 0 or X.shape[1] != estimator.n_features_in_:
        return None
    if check_finite and not fastpath.all_finite(values):
        return None
    return X


class TracksParameters:
    """Marks the packed configuration stale when a parameter is assigned (``set_params`` or
    plainly), so that the next call of any entry point validates and repacks it: one dict
    lookup per call (``"_configured_parameters" in self.__dict__``) instead of a comparison
    of every parameter. The model's ``_configure`` sets ``_configured_parameters``; it is a
    derived attribute, never saved."""

    def __setattr__(self, name, value):
        if name in self._parameter_constraints:
            self.__dict__.pop("_configured_parameters", None)
        object.__setattr__(self, name, value)


def check_lengths(X, y) -> None:
    if X.shape[0] != len(y):
        raise ValueError(
            f"X and y have inconsistent numbers of samples: {X.shape[0]} rows in X, "
            f"{len(y)} labels in y."
        )


def engine_arrays(X):
    """``(data, indptr, indices)`` for the compiled loop: a dense X passes ``None`` twice."""
    if sp.issparse(X):
        return X.data, X.indptr, X.indices
    return X, None, None


_INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


@contextmanager
def input_attributes_restored_on_error(estimator):
    """``validate_data(reset=True)`` records ``n_features_in_`` (and feature names) before y
    is checked; if a later check fails, put them back so that the failed call changes
    nothing."""
    saved = {k: estimator.__dict__[k] for k in _INPUT_ATTRIBUTES if k in estimator.__dict__}
    try:
        yield
    except BaseException:
        for key in _INPUT_ATTRIBUTES:
            estimator.__dict__.pop(key, None)
        estimator.__dict__.update(saved)
        raise
