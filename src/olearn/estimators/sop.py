"""Second-Order Perceptron (Cesa-Bianchi, Conconi, Gentile, SIAM J. Comput. 2005)."""

from olearn.estimators._declarations import SOPDeclarations
from olearn.estimators.base import (
    OnlineLinearClassifier,
    SecondOrderMixin,
    covariance_constraint,
    positive,
)


class SecondOrderPerceptronClassifier(SOPDeclarations, SecondOrderMixin, OnlineLinearClassifier):
    """Second-Order Perceptron: a Perceptron whose steps are whitened by the correlation
    matrix ``A = aI + Σ x xᵀ`` of the mistaken examples (paper Fig. 3.1).

    Parameters
    ----------
    a : float > 0, default=1.0
        Initial ``A = a·I`` (so the prior covariance is ``I / a``).
    covariance : {"full", "diagonal"}, default="full"
        Keep ``A⁻¹`` in full (Sherman–Morrison, exact) or only its diagonal.
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

    Notes
    -----
    ``decision_function`` returns ``μ·x`` with ``μ = A⁻¹ b``; the paper's score
    ``bᵀ(A + x xᵀ)⁻¹x`` equals ``μ·x / (1 + xᵀA⁻¹x)``, the same sign (see ``rules/sop.py``).
    """

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "a": positive(),
        "covariance": covariance_constraint(),
    }

    def __init__(
        self,
        a=1.0,
        covariance="full",
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
        self.a = a
        self.covariance = covariance
