"""Online linear regression: ε-insensitive Passive-Aggressive (Crammer et al., JMLR 2006, §5),
AROW as recursive least squares, and SGD with L2 regularisation (seed 004).

All three run the regression task of ``olearn.tasks.regression`` through the shared engine:
the PA rules and AROW's see the effective margin ``m = 1 + ε − |y − ŷ|`` and move along
``sign(y − ŷ)·x``; SGD's gradient rules (``olearn.rules.sgd``) see the same margin with ε = 0.
"""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Real

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from olearn import engine
from olearn.estimators import _events
from olearn.estimators._declarations import (
    PA_VARIANTS,
    PARegressionDeclarations,
    RLSDeclarations,
    SGDDeclarations,
)
from olearn.estimators._river import river_estimator
from olearn.estimators._state import LinearRegressorState, warn_not_learned
from olearn.estimators._targets import check_regression_targets
from olearn.estimators._validation import (
    Rows,
    as_rows,
    attributes_restored_on_error,
    check_lengths,
)
from olearn.estimators._weights import check_sample_weight
from olearn.estimators.base import (
    OnlineLinearModel,
    SecondOrderMixin,
    check_event_width,
    covariance_constraint,
    event_matrix,
    positive,
)
from olearn.rules import sgd

_nothing_to_restore = nullcontext()  # (a fitted model's partial_fit: in-place updates)


@river_estimator("Regressor")
class OnlineLinearRegressor(RegressorMixin, LinearRegressorState, OnlineLinearModel):
    """Base class of the online linear regressors (one weight row, ŷ = w·x + b). The
    parameters below are common to every subclass (keyword-only).

    Parameters
    ----------
    fit_intercept, max_iter, shuffle, random_state
        See :class:`~olearn.estimators.base.OnlineLinearModel`.

    Attributes
    ----------
    online_absolute_error_ : float
        Mean |y − ŷ| of the predictions made before each update (progressive validation).
    online_squared_error_ : float
        Mean (y − ŷ)² of the same predictions.
    coef_, intercept_, n_features_in_, feature_names_in_, n_iter_, n_rounds_, n_mistakes_,
    n_updates_, weights_, average_sums_, variances_, precision_cholesky_, stats_
        See :class:`~olearn.estimators.base.OnlineLinearModel` (one weight row, k = 1;
        ``n_mistakes_`` counts the rounds with a loss > 0).
    """

    def _check_y(self, y):
        return check_regression_targets(y)

    def fit(self, X, y, sample_weight=None):
        """Learn from scratch over ``max_iter`` passes of (X, y), recording the online
        absolute and squared errors.

        ``sample_weight`` (array-like of shape (n_samples,) or a float, optional): importance
        weights ≥ 0; each rule takes its weighted form (stated in its docstring in
        ``olearn.rules``), a weight 0 skips the row (``olearn.estimators._weights``)."""
        self._validate_params()
        with attributes_restored_on_error(self):
            rows = as_rows(self, X, reset=True)
            y = self._check_y(y)
            check_lengths(rows, y)
            weights = check_sample_weight(sample_weight, len(y), fit=True)
            rng = check_random_state(self.random_state)
            self._allocate(rows.shape[1])
        for _ in range(self.max_iter):
            self._run(rows, y, rng, sample_weight=weights)
        self.n_iter_ = self.max_iter
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """One pass over (X, y), continuing from the current state (``sample_weight`` as
        in :meth:`fit`)."""
        first = not hasattr(self, "weights_")
        if first:
            self._validate_params()
        else:
            self._refresh_parameters()
        with attributes_restored_on_error(self) if first else _nothing_to_restore:
            rows = as_rows(self, X, reset=first)
            y = self._check_y(y)
            check_lengths(rows, y)
            weights = check_sample_weight(sample_weight, len(y))
            rng = check_random_state(self.random_state)
            if first:
                self._allocate(rows.shape[1])
            self._run(rows, y, rng, sample_weight=weights)
        self.n_iter_ = 1
        return self

    @property
    def coef_(self):
        """w, shape (n_features,): one target, one weight vector, as scikit-learn's linear
        regressors give it (``SGDRegressor``, ``PassiveAggressiveRegressor``)."""
        check_is_fitted(self)
        return self._mean[0, :-1].copy()

    def predict(self, X):
        """ŷ = w·x + b for the rows of X, shape (n,)."""
        self._check_ready()
        return self._scores(as_rows(self, X, reset=False, learn=False))[:, 0]

    @property
    def online_absolute_error_(self) -> float:
        """Mean |y − ŷ| of the predictions made before each update (progressive)."""
        check_is_fitted(self)
        rounds = max(1.0, self.stats_[engine.STAT_ROUNDS])
        return float(self.stats_[engine.STAT_LOSS] / rounds)

    @property
    def online_squared_error_(self) -> float:
        """Mean (y − ŷ)² of the predictions made before each update (progressive)."""
        check_is_fitted(self)
        rounds = max(1.0, self.stats_[engine.STAT_ROUNDS])
        return float(self.stats_[engine.STAT_SQUARED_LOSS] / rounds)

    def _sparse_row(self, x):
        """``x`` as (int64 indices, float64 values), every check done (``_events``)."""
        return _events.event_arrays(x, self.n_features_in_)

    def learn_one(self, x, y: float, *, n_features=None, sample_weight=None) -> None:
        """One online round on a single example ``x`` with target ``y`` (a number); ``x`` is
        a dict ``{feature: value}`` (integer indices or ``str`` names, hashed) or ``(indices,
        values)``, as for the classifiers'
        :meth:`~olearn.estimators.base.OnlineLinearClassifier.learn_one`. An unfitted model
        starts here with ``n_features`` columns (default ``2**18``, VW's ``-b 18``).
        ``sample_weight``: the event's importance weight (a number ≥ 0, as in :meth:`fit`)."""
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=True)
        h = 1.0
        if sample_weight is not None:
            weights = check_sample_weight(np.asarray(sample_weight, float).reshape(-1), 1)
            h = 1.0 if weights is None else float(weights[0])
        if h == 0.0:  # as if absent: checked, not learned (an unfitted model stays so)
            self._check_skipped_event(x, n_features)
            return
        if "weights_" not in self.__dict__:
            weight = None if h == 1.0 else np.array([h])
            row = event_matrix(x, check_event_width(self, n_features))
            self.partial_fit(row, np.asarray(y).reshape(1),
                             sample_weight=weight)  # fmt: skip
            return
        self._check_fitted_width(n_features)
        self._check_ready()
        idx, val = self._sparse_row(x)
        y = float(y)
        if not np.isfinite(y):
            raise ValueError("y is NaN or infinity.")
        if h == 0.0:  # not learned, not counted
            return
        warn_not_learned(engine.run_one(idx, val, y, h, *self._engine_state()))

    def predict_one(self, x) -> float:
        """ŷ for one example ``x`` (as for :meth:`learn_one`); 0.0 before any learning, as in
        River. Features beyond the width (never seen) are ignored."""
        if "weights_" not in self.__dict__:
            return 0.0
        self._check_ready()
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=False)
        idx, val = _events.event_arrays(x, self.n_features_in_, unseen=True)
        rows = Rows(val, np.array([0, len(idx)], dtype=np.int64), idx,
                    (1, self.n_features_in_), True)  # fmt: skip
        return float(self._scores(rows)[0, 0])


class PassiveAggressiveRegressor(PARegressionDeclarations, OnlineLinearRegressor):
    """ε-insensitive Passive-Aggressive regression (Crammer et al., JMLR 2006, §5): the
    smallest change of w that brings |y − w·x| within ε,
    ``w ← w + sign(y − ŷ) τ x`` with τ = ℓ_ε/‖x‖² (PA), min(C, ℓ_ε/‖x‖²) (PA-I) or
    ℓ_ε/(‖x‖² + 1/(2C)) (PA-II), ℓ_ε = max(0, |y − ŷ| − ε).

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    C : float > 0, default=1.0
        Aggressiveness (ignored by "PA").
    epsilon : float ≥ 0, default=0.1
        Half-width of the insensitive tube.
    fit_intercept, max_iter, shuffle, random_state
        See :class:`OnlineLinearRegressor`.

    Attributes
    ----------
    coef_, intercept_, n_features_in_, feature_names_in_, n_iter_, n_rounds_, n_mistakes_,
    n_updates_, online_absolute_error_, online_squared_error_, weights_, average_sums_,
    variances_, precision_cholesky_, stats_
        See :class:`OnlineLinearRegressor` (``n_mistakes_``: rounds with |y − ŷ| > ε).

    Examples
    --------
    >>> from olearn import PassiveAggressiveRegressor
    >>> model = PassiveAggressiveRegressor(variant="PA", epsilon=0.0, fit_intercept=False)
    >>> for x, y in [({0: 1.0}, 2.0), ({0: 2.0}, 4.0), ({0: 3.0}, 6.0)]:
    ...     model.learn_one(x, y)  # the first event learns y = 2x exactly
    >>> model.predict_one({0: 4.0}), model.n_mistakes_
    (8.0, 1)
    """

    _parameter_constraints = {
        **OnlineLinearModel._parameter_constraints,
        "variant": [StrOptions(set(PA_VARIANTS))],
        "C": positive(),
        "epsilon": positive("left"),
    }

    def __init__(
        self,
        variant="PA-I",
        C=1.0,
        epsilon=0.1,
        *,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.variant = variant
        self.C = C
        self.epsilon = epsilon


class AROWRegressor(RLSDeclarations, SecondOrderMixin, OnlineLinearRegressor):
    """AROW for regression, i.e. recursive least squares (Crammer, Kulesza, Dredze, NIPS
    2009; ALGORITHMS.md): ``μ ← μ + (y − ŷ)/(v + r)·Σx`` and ``Σ⁻¹ ← Σ⁻¹ + x xᵀ/r`` on every
    round, v = xᵀΣx (rule ``rls`` of ``olearn.rules.arow``).

    Parameters
    ----------
    r : float > 0, default=1.0
        Regularisation (the noise variance of least squares): larger r, smaller steps.
    covariance : {"diagonal", "full"}, default="diagonal"
    a : float > 0, default=1.0
        Prior covariance Σ₀ = a·I.
    fit_intercept, max_iter, shuffle, random_state
        See :class:`OnlineLinearRegressor`.

    Attributes
    ----------
    covariance_ : ndarray
        Σ over the features: see :class:`~olearn.estimators.base.SecondOrderMixin`.
    coef_, intercept_, n_features_in_, feature_names_in_, n_iter_, n_rounds_, n_mistakes_,
    n_updates_, online_absolute_error_, online_squared_error_, weights_, average_sums_,
    variances_, precision_cholesky_, stats_
        See :class:`OnlineLinearRegressor`.
    """

    _parameter_constraints = {
        **OnlineLinearModel._parameter_constraints,
        "r": positive(),
        "covariance": covariance_constraint(),
        "a": positive(),
    }

    def __init__(
        self,
        r=1.0,
        covariance="diagonal",
        a=1.0,
        *,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.r = r
        self.covariance = covariance
        self.a = a


class SGDRegressor(SGDDeclarations, OnlineLinearRegressor):
    """Stochastic gradient descent with L2 regularisation (seed 004):
    ``w ← (1 − η_t λ) w − η_t ∂ℓ/∂f · x``, ``b ← b − η_t ∂ℓ/∂f`` (the intercept is not
    regularised). The decay costs O(1) per round (a scale factor on w), the step O(nnz).

    Parameters
    ----------
    loss : {"squared", "epsilon_insensitive", "huber"}, default="squared"
        ½(f − y)², max(0, |f − y| − ε), or Huber with threshold δ.
    alpha : float ≥ 0, default=1e-4
        L2 regularisation λ.
    eta0 : float > 0, default=0.01
        η of the schedule η_t = η/√t.
    schedule : {"invsqrt", "inverse"}, default="invsqrt"
        η_t = η/√t (NORMA, Kivinen et al.) or η_t = 1/(λt) (Pegasos, Shalev-Shwartz et al.;
        needs alpha > 0). 1/(λt) starts with huge steps (η₁λ = 1 restarts w from 0): pair it
        with a loss of bounded gradient ("huber", "epsilon_insensitive") or a large alpha; with
        the squared loss and a small alpha it diverges, as the plain algorithm does.
    epsilon : float ≥ 0, default=0.1
        Insensitivity of "epsilon_insensitive".
    delta : float > 0, default=1.0
        Threshold of "huber".
    fit_intercept, max_iter, shuffle, random_state
        See :class:`OnlineLinearRegressor`.

    Attributes
    ----------
    coef_, intercept_, n_features_in_, feature_names_in_, n_iter_, n_rounds_, n_mistakes_,
    n_updates_, online_absolute_error_, online_squared_error_, weights_, average_sums_,
    variances_, precision_cholesky_, stats_
        See :class:`OnlineLinearRegressor`.
    """

    _parameter_constraints = {
        **OnlineLinearModel._parameter_constraints,
        "loss": [StrOptions(set(sgd.LOSSES))],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "eta0": positive(),
        "schedule": [StrOptions(set(sgd.SCHEDULES))],
        "epsilon": positive("left"),
        "delta": positive(),
    }

    def __init__(
        self,
        loss="squared",
        alpha=1e-4,
        eta0=0.01,
        schedule="invsqrt",
        epsilon=0.1,
        delta=1.0,
        *,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.loss = loss
        self.alpha = alpha
        self.eta0 = eta0
        self.schedule = schedule
        self.epsilon = epsilon
        self.delta = delta
