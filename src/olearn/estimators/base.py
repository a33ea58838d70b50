"""The scikit-learn face of the linear engine: parameters, labels, state, the loop call.

Subclasses declare their paper's rule and hyper-parameters (``_rule_name``,
``_rule_hyperparameters``), the covariance representation and its prior scale; everything
else — validation, label encoding, state allocation, passes, counters — lives here once.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d

from olearn import engine
from olearn.estimators._validation import (
    check_lengths,
    check_X,
    engine_arrays,
    fitted_fast_X,
)
from olearn.representations import DIAGONAL, FULL, LINEAR, linear, rows
from olearn.rules import rule_code
from olearn.tasks import BINARY

#: Variances never fall below this fraction of the prior variance (ALGORITHMS.md, numerics).
VARIANCE_FLOOR = 1e-12

_COVARIANCES = {"diagonal": DIAGONAL, "full": FULL}


class OnlineLinearClassifier(ClassifierMixin, BaseEstimator):
    """Base class of the online linear classifiers (binary for now).

    Parameters common to every subclass (keyword-only):

    fit_intercept : bool, default=True
        Learn an intercept as the weight of a constant feature of value 1 (it gets its own
        variance in second-order models and counts in ‖x‖²).
    max_iter : int, default=1
        Passes over the data in ``fit``; online learning is one pass.
    shuffle : bool, default=False
        Visit the rows of each pass in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    """

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, *, fit_intercept=True, max_iter=1, shuffle=False, random_state=None):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    # -- what a subclass declares ----------------------------------------------------------

    def _rule_name(self) -> str:
        raise NotImplementedError

    def _rule_hyperparameters(self) -> list[float]:
        return []

    def _covariance_kind(self) -> str | None:
        """'diagonal', 'full', or None for first-order rules."""
        return None

    def _prior_variance(self) -> float:
        """Σ₀ = a·I."""
        return 1.0

    def _averaged(self) -> bool:
        return False

    # -- fitting ----------------------------------------------------------------------------

    def fit(self, X, y):
        """Learn from scratch over ``max_iter`` passes of (X, y), counting online mistakes."""
        self._validate_params()
        X = check_X(self, X, reset=True)
        y = self._check_y(y)
        check_lengths(X, y)
        classes = np.unique(y)
        self._check_classes(classes)
        self.classes_ = classes
        self._allocate(X.shape[1])
        y_signed = self._encode(y)
        rng = check_random_state(self.random_state)
        for _ in range(self.max_iter):
            self._run(X, y_signed, rng)
        return self

    def partial_fit(self, X, y, classes=None):
        """One pass over (X, y), continuing from the current state.

        ``classes`` may announce the label set on the first call; it is optional: a binary
        model may see its second label later.
        """
        first = not hasattr(self, "classes_")
        if first:
            self._validate_params()
        elif self._partial_fit_fast(X, y):
            return self
        X = check_X(self, X, reset=first)
        y = self._check_y(y)
        check_lengths(X, y)
        seen = np.unique(y)
        if first:
            known = np.unique(column_or_1d(classes)) if classes is not None else seen
            if classes is not None and not np.isin(seen, known).all():
                raise ValueError(
                    f"y has labels {seen[~np.isin(seen, known)].tolist()} not in classes="
                    f"{known.tolist()}."
                )
            self._check_classes(known)
            self.classes_ = known
            self._allocate(X.shape[1])
        else:
            self._grow_classes(seen)
        rng = check_random_state(self.random_state)
        self._run(X, self._encode(y), rng)
        return self

    def _partial_fit_fast(self, X, y) -> bool:
        """partial_fit for the common streaming call — a fitted two-class model, input that
        needs no conversion, labels it already knows, no shuffling — in a few microseconds
        plus the loop. Returns False (having changed nothing) whenever anything is unusual;
        the generic path then converts the input or raises the precise error."""
        if self.shuffle or len(self.classes_) != 2:
            return False
        X = fitted_fast_X(self, X)
        if X is None:
            return False
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0] or y.dtype.kind != self.classes_.dtype.kind:
            return False
        positive = y == self.classes_[1]
        if not (positive | (y == self.classes_[0])).all():
            return False  # a new label (or NaN): the generic path grows or rejects
        y_signed = np.where(positive, 1.0, -1.0)
        data, indptr, indices = engine_arrays(X)
        order = np.arange(X.shape[0])
        engine.run(data, indptr, indices, y_signed, order, *self._engine_state())
        return True

    def _run(self, X, y_signed, rng) -> None:
        n = X.shape[0]
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        data, indptr, indices = engine_arrays(X)
        engine.run(data, indptr, indices, y_signed, order, *self._engine_state())

    def _engine_state(self):
        return (
            self.weights_,
            self.average_sums_,
            self.variances_,
            self.precision_cholesky_,
            self.stats_,
            self._cfg,
            self._hp,
            self._opts,
        )

    # -- state ------------------------------------------------------------------------------

    @property
    def _representation(self) -> int:
        kind = self._covariance_kind()
        return LINEAR if kind is None else _COVARIANCES[kind]

    def _allocate(self, n_features: int, n_rows: int = 1) -> None:
        D = n_features + 1  # the intercept is the last coordinate
        rep = self._representation
        a = self._prior_variance()
        self.weights_ = np.zeros((n_rows, D))
        self.average_sums_ = np.zeros((n_rows, D) if self._averaged() else (0, 0))
        self.variances_ = np.full((n_rows, D), a) if rep == DIAGONAL else np.zeros((0, 0))
        if rep == FULL:
            self.precision_cholesky_ = np.tile(np.eye(D) / np.sqrt(a), (n_rows, 1, 1))
        else:
            self.precision_cholesky_ = np.zeros((0, 0, 0))
        self.stats_ = np.zeros(engine.N_STATS)
        self._configure()

    def _configure(self) -> None:
        """Pack the rule, representation and task codes and hyper-parameters for the loop."""
        self._cfg = np.array(
            [rule_code(self._rule_name()), self._representation, BINARY, int(self._averaged())],
            dtype=np.int64,
        )
        self._hp = np.array(self._rule_hyperparameters(), dtype=np.float64)
        floor = VARIANCE_FLOOR * self._prior_variance()
        self._opts = np.array([1.0 if self.fit_intercept else 0.0, floor])

    def __setstate__(self, state):
        super().__setstate__(state)
        if "weights_" in state:
            self._configure()

    # -- labels -----------------------------------------------------------------------------

    def _check_y(self, y):
        y = column_or_1d(y, warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity.")
        if y.dtype.kind not in "biufUSO":
            raise ValueError(f"y has an unsupported label type {y.dtype}.")
        return y

    def _check_classes(self, classes) -> None:
        if len(classes) > 2:
            raise ValueError(
                f"{type(self).__name__} is a binary classifier; y has {len(classes)} classes "
                f"{classes.tolist()[:10]}."
            )

    def _grow_classes(self, seen) -> None:
        new = seen[~np.isin(seen, self.classes_)]
        if len(new) == 0:
            return
        classes = np.unique(np.concatenate([self.classes_, new]))
        self._check_classes(classes)
        # A one-class model learned its label as +1; if that label sorts first it becomes
        # the negative class. Negating the means is exact: every rule is odd in (y, μ).
        if classes[1] == self.classes_[0]:
            self.weights_ *= -1.0
            self.average_sums_ *= -1.0
        self.classes_ = classes

    def _encode(self, y):
        """Labels as ±1 (the last class is +1)."""
        if len(self.classes_) == 1:
            signs = np.ones(len(y))
        else:
            signs = np.where(y == self.classes_[1], 1.0, -1.0)
        return signs

    # -- prediction -------------------------------------------------------------------------

    @property
    def _mean(self):
        """(k, D) weights used for prediction (the average for averaged models)."""
        if self._averaged():
            return linear.averaged(
                self.weights_, self.average_sums_, self.stats_[engine.STAT_ROUNDS]
            )
        return self.weights_

    @property
    def coef_(self):
        check_is_fitted(self)
        return self._mean[:, :-1].copy()

    @property
    def intercept_(self):
        check_is_fitted(self)
        return self._mean[:, -1] * self._opts[engine.OPT_BIAS]

    @property
    def n_updates_(self) -> int:
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_UPDATES])

    @property
    def n_mistakes_(self) -> int:
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_MISTAKES])

    @property
    def n_rounds_(self) -> int:
        """Examples processed (counting every pass)."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_ROUNDS])

    def _scores(self, X):
        W = self._mean
        scores = X @ W[:, :-1].T + W[:, -1] * self._opts[engine.OPT_BIAS]
        return np.asarray(scores)

    def decision_function(self, X):
        """Signed score ``μ·x + b`` of the positive class ``classes_[1]``, shape (n,)."""
        check_is_fitted(self)
        X = check_X(self, X, reset=False)
        return self._scores(X)[:, 0]

    def predict(self, X):
        scores = self.decision_function(X)
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, len(scores))
        return self.classes_[(scores > 0).astype(np.intp)]

    # -- River-style event streams ------------------------------------------------------------

    def _sparse_row(self, x):
        """``x`` as (int64 indices, float64 values), validated in one compiled pass.

        This is the per-event path of ``learn_one``/``predict_one``: a few microseconds, so
        no generic NumPy checks here (each costs about a microsecond on 80 values)."""
        if isinstance(x, dict):
            idx = np.fromiter(x.keys(), np.int64, len(x))
            val = np.fromiter(x.values(), np.float64, len(x))
        else:
            idx, val = x
            idx = np.asarray(idx, dtype=np.int64)
            val = np.asarray(val, dtype=np.float64)
        if idx.shape != val.shape or idx.ndim != 1:
            raise ValueError("x must be a dict {index: value} or a pair of equal-length arrays.")
        problem = rows.sparse_row_problem(idx, val, self.n_features_in_)
        if problem == 1:
            bad = idx[(idx < 0) | (idx >= self.n_features_in_)][0]
            raise ValueError(f"feature index out of range [0, {self.n_features_in_}): {bad}.")
        if problem == 2:
            raise ValueError("x contains NaN or infinity.")
        return idx, val

    def _check_fitted_fast(self) -> None:
        # check_is_fitted scans every attribute (~10 µs); the state arrays tell the same.
        if "weights_" not in self.__dict__:
            check_is_fitted(self)

    def learn_one(self, x, y) -> None:
        """One online round on a single example ``x`` ({index: value} or (indices, values)).

        The model must have been initialised by ``fit`` or ``partial_fit`` (which fix the
        number of features).
        """
        self._check_fitted_fast()
        idx, val = self._sparse_row(x)
        classes = self.classes_
        # The common case, a label already known to a two-class model, costs two compares;
        # anything else (a new label, NaN, a one-class model) takes the checked path.
        if len(classes) == 2 and y == classes[1]:
            y_signed = 1.0
        elif len(classes) == 2 and y == classes[0]:
            y_signed = -1.0
        else:
            if isinstance(y, float | np.floating) and not np.isfinite(y):
                raise ValueError("y contains NaN or infinity.")
            self._grow_classes(np.asarray([y]))
            y_signed = 1.0 if len(self.classes_) == 1 or y == self.classes_[1] else -1.0
        engine.run_one(idx, val, y_signed, *self._engine_state())

    def predict_one(self, x):
        """Predicted label of one example ({index: value} or (indices, values))."""
        self._check_fitted_fast()
        idx, val = self._sparse_row(x)
        if len(self.classes_) == 1:
            return self.classes_[0]
        bias = self._opts[engine.OPT_BIAS]
        score = linear.dot(self.weights_[0], idx, val, bias)
        if self._averaged():
            # The average ((T + 1)·w − a) / T along x, in O(nnz) (never the whole average).
            rounds = self.stats_[engine.STAT_ROUNDS]
            if rounds > 0:
                summed = linear.dot(self.average_sums_[0], idx, val, bias)
                score = ((rounds + 1.0) * score - summed) / rounds
        return self.classes_[1] if score > 0 else self.classes_[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


class SecondOrderMixin:
    """Shared by the models that keep a covariance: ``covariance_`` and, for the Gaussian
    (confidence-weighted) ones, ``predict_proba``."""

    @property
    def covariance_(self):
        """Σ over the features (intercept excluded): the variance vector for diagonal
        models, the (d, d) matrix for full ones (the stored precision factor, inverted)."""
        check_is_fitted(self)
        if self._representation == DIAGONAL:
            return self.variances_[0, :-1].copy()
        from scipy.linalg import cho_solve

        L = self.precision_cholesky_[0]
        sigma = cho_solve((L, True), np.eye(L.shape[0]))
        return ((sigma + sigma.T) / 2)[:-1, :-1]

    def _confidences(self, X):
        """v = x̃ᵀΣx̃ for every row (intercept coordinate included)."""
        bias = self._opts[engine.OPT_BIAS]
        if self._representation == DIAGONAL:
            sig = self.variances_[0]
            X2 = X.multiply(X) if sp.issparse(X) else X * X
            return np.asarray(X2 @ sig[:-1]).ravel() + sig[-1] * bias * bias
        from scipy.linalg import solve_triangular

        Xt = X.toarray() if sp.issparse(X) else X
        Xt = np.hstack([Xt, np.full((Xt.shape[0], 1), bias)])
        Z = solve_triangular(self.precision_cholesky_[0], Xt.T, lower=True)
        return (Z * Z).sum(axis=0)


class GaussianProbaMixin(SecondOrderMixin):
    def predict_proba(self, X):
        """P(y = classes_[1] | x) = Φ(s / √v) under the Gaussian over weights N(μ, Σ):
        the probability that a weight vector drawn from the model classifies x as positive.
        It is the model's own belief, not a calibrated probability."""
        from scipy.special import ndtr

        check_is_fitted(self)
        X = check_X(self, X, reset=False)
        s = self._scores(X)[:, 0]
        v = np.maximum(self._confidences(X), np.finfo(float).tiny)
        p = ndtr(s / np.sqrt(v))
        if len(self.classes_) == 1:
            return np.ones((len(p), 1))
        return np.column_stack([1.0 - p, p])


def covariance_constraint():
    return [StrOptions({"diagonal", "full"})]


def positive(closed="neither"):
    return [Interval(Real, 0, None, closed=closed)]
