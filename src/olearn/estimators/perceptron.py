"""Perceptron (Rosenblatt 1958) and the averaged Perceptron (Freund & Schapire 1999)."""

from olearn.estimators._declarations import PerceptronDeclarations
from olearn.estimators.base import OnlineLinearClassifier


class PerceptronClassifier(PerceptronDeclarations, OnlineLinearClassifier):
    """Online Perceptron: ``w ← w + y x`` on every mistake (m = y·w·x ≤ 0).

    Parameters
    ----------
    average : bool, default=False
        Predict with the average of the weight vectors after every round (the averaged
        Perceptron), computed lazily in O(nnz) per update.
    multiclass, cost_update, label_threshold, class_weight, fit_intercept, max_iter, shuffle,
    random_state
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.

    Attributes
    ----------
    classes_, task_, cumulative_cost_, coef_, intercept_, n_features_in_, feature_names_in_,
    n_iter_, n_rounds_, n_mistakes_, n_updates_, weights_, average_sums_, variances_,
    precision_cholesky_, stats_
        See :class:`~olearn.estimators.base.OnlineLinearClassifier`.

    Examples
    --------
    >>> from olearn import PerceptronClassifier
    >>> clf = PerceptronClassifier().fit([[1.0, 0.0], [0.0, 1.0]], ["a", "b"])
    >>> clf.predict([[2.0, 0.0]]).tolist()
    ['a']
    """

    _parameter_constraints = {
        **OnlineLinearClassifier._parameter_constraints,
        "average": ["boolean"],
    }

    def __init__(
        self,
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
        self.average = average
