"""Passive-Aggressive classifiers (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, JMLR 2006)."""

from sklearn.utils._param_validation import StrOptions

from olearn.estimators._declarations import PA_VARIANTS, PADeclarations
from olearn.estimators.base import OnlineLinearClassifier, positive


class PassiveAggressiveClassifier(PADeclarations, OnlineLinearClassifier):
    """Passive-Aggressive: the smallest change of w that attains margin 1 (PA), with the
    step capped at C (PA-I) or softened by 1/(2C) (PA-II).

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
        Paper eq. 7, 9 and 11.
    C : float > 0, default=1.0
        Aggressiveness (ignored by "PA").
    average : bool, default=False
        Predict with the averaged weights.
    multiclass, cost_update, label_threshold, class_weight, fit_intercept, max_iter, shuffle,
    random_state
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.

    Attributes
    ----------
    classes_, task_, cumulative_cost_, coef_, intercept_, n_features_in_, feature_names_in_,
    n_iter_, n_rounds_, n_mistakes_, n_updates_, weights_, average_sums_, variances_,
    precision_cholesky_, stats_
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.
    """

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "variant": [StrOptions(set(PA_VARIANTS))],
        "C": positive(),
        "average": ["boolean"],
    }

    def __init__(
        self,
        variant="PA-I",
        C=1.0,
        *,
        multiclass="joint",
        cost_update="max_loss",
        label_threshold=None,
        class_weight=None,
        average=False,
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
        self.C = C
        self.average = average
