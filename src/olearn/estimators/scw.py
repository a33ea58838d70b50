"""Soft Confidence-Weighted classifiers (Wang, Zhao, Hoi, ICML 2012)."""

from sklearn.utils._param_validation import StrOptions

from olearn.estimators._declarations import SCW_VARIANTS, SCWDeclarations
from olearn.estimators.base import (
    GaussianProbaMixin,
    OnlineLinearClassifier,
    covariance_constraint,
    positive,
)
from olearn.estimators.cw import ETA_CONSTRAINT


class SCWClassifier(SCWDeclarations, GaussianProbaMixin, OnlineLinearClassifier):
    """Soft Confidence-Weighted learning: CW's confidence constraint made soft by a hinge
    penalty with aggressiveness C (SCW-I, linear penalty; SCW-II, squared).

    Parameters
    ----------
    variant : {"I", "II"}, default="I"
    eta : float in (0.5, 1), default=0.95
        Confidence η; φ = Φ⁻¹(η).
    C : float > 0, default=1.0
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
        "variant": [StrOptions(set(SCW_VARIANTS))],
        "eta": ETA_CONSTRAINT,
        "C": positive(),
        "covariance": covariance_constraint(),
        "a": positive(),
    }

    def __init__(
        self,
        variant="I",
        eta=0.95,
        C=1.0,
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
        self.variant = variant
        self.eta = eta
        self.C = C
        self.covariance = covariance
        self.a = a
