"""AROW (Crammer, Kulesza, Dredze, NIPS 2009)."""

from olearn.estimators._declarations import AROWDeclarations
from olearn.estimators.base import (
    GaussianProbaMixin,
    OnlineLinearClassifier,
    covariance_constraint,
    positive,
)


class AROWClassifier(AROWDeclarations, GaussianProbaMixin, OnlineLinearClassifier):
    """Adaptive Regularization of Weight Vectors: a Gaussian over weights whose update
    trades the squared hinge loss against staying close to the current Gaussian; robust
    to label noise.

    Parameters
    ----------
    r : float > 0, default=1.0
        Regularisation: larger r, smaller and more cautious steps.
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

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from olearn import AROWClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> model = AROWClassifier(r=1.0).fit(X, y)  # one online pass
    >>> model.n_mistakes_, model.n_updates_  # mistakes made before each label
    (20, 148)
    >>> model.predict_proba(X[:1]).round(3)
    array([[1., 0.]])
    """

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
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
        self.r = r
        self.covariance = covariance
        self.a = a
