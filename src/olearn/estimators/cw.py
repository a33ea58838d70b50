"""Confidence-Weighted classifiers (Dredze, Crammer, Pereira ICML 2008; Crammer, Dredze,
Pereira NIPS 2008)."""

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from olearn.estimators._declarations import CW_METHODS, CWDeclarations
from olearn.estimators.base import (
    GaussianProbaMixin,
    OnlineLinearClassifier,
    covariance_constraint,
    positive,
)

ETA_CONSTRAINT = [Interval(Real, 0.5, 1.0, closed="neither")]


class CWClassifier(CWDeclarations, GaussianProbaMixin, OnlineLinearClassifier):
    """Confidence-Weighted learning: a Gaussian N(μ, Σ) over weight vectors, updated to
    the closest Gaussian (in KL divergence) that classifies the example correctly with
    probability η.

    Parameters
    ----------
    eta : float in (0.5, 1), default=0.95
        Confidence η; φ = Φ⁻¹(η). (η = 1 would make φ infinite.)
    method : {"exact", "variance"}, default="exact"
        The exact closed form (NIPS 2008) or the approximate variance form (ICML 2008).
    covariance : {"diagonal", "full"}, default="diagonal"
    a : float > 0, default=1.0
        Prior covariance Σ₀ = a·I.
    multiclass, cost_update, label_threshold, class_weight, fit_intercept, max_iter, shuffle,
    random_state
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.

    Attributes
    ----------
    covariance_ : ndarray
        Σ over the features: see :class:`~olearn.estimators.base.SecondOrderMixin`.
    classes_, task_, cumulative_cost_, coef_, intercept_, n_features_in_, feature_names_in_,
    n_iter_, n_rounds_, n_mistakes_, n_updates_, weights_, average_sums_, variances_,
    precision_cholesky_, stats_
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.
    """

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "eta": ETA_CONSTRAINT,
        "method": [StrOptions(set(CW_METHODS))],
        "covariance": covariance_constraint(),
        "a": positive(),
    }

    def __init__(
        self,
        eta=0.95,
        method="exact",
        covariance="diagonal",
        a=1.0,
        *,
        multiclass="joint",
        cost_update="max_loss",
        label_threshold=None,
        class_weight=None,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            multiclass=multiclass,
            cost_update=cost_update,
            label_threshold=label_threshold,
            class_weight=class_weight,
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.eta = eta
        self.method = method
        self.covariance = covariance
        self.a = a
