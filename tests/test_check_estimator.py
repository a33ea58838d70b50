"""scikit-learn's own conformance checks for every linear estimator of olearn.

Each expected failure names its reason (``EXPECTED``); every other check must pass. Expected
failures are strict (``xfail_strict`` in pyproject.toml): a check that passes where it is
expected to fail fails the suite, so an expectation cannot outlive its reason unnoticed.
Models are small and the data sets of the checks are tiny, so this stays fast.
"""

import zlib

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn

_GAUSSIAN_PROBA = (
    "predict_proba is P(y = +1) = Φ(s/√v) under the Gaussian over weights: its order is not "
    "the order of the score s, because the confidence v differs from row to row"
)

_ORDER = (
    "the check fits the weighted rows in a shuffled order and the repeated rows in their "
    "original order; an online learner's model depends on the order of its examples, so no "
    "order-dependent rule can pass (scikit-learn marks its own Perceptron, SGD and PA the "
    "same way). The properties that do hold — weight 0 = the row removed, integer weights = "
    "repetition for PA-I and full AROW — are tested in tests/test_weights.py; RLS "
    "(AROWRegressor, full), which does not depend on the order, passes this check"
)
SAMPLE_WEIGHT_ORDER = {
    "check_sample_weight_equivalence_on_dense_data": _ORDER,
    "check_sample_weight_equivalence_on_sparse_data": _ORDER,
}
EXPECTED: dict[str, str] = dict(SAMPLE_WEIGHT_ORDER)
GAUSSIAN = {**EXPECTED, "check_decision_proba_consistency": _GAUSSIAN_PROBA}


def _probabilities_saturate(estimator) -> bool:
    """Whether ``check_decision_proba_consistency`` passes by saturation, not by order.

    CW's exact update with a diagonal Σ shrinks the variances on the check's two separated
    blobs to about 1e-11 (|s|/√v ≥ 7.9e3 on its test rows), so every probability Φ(s/√v) is
    exactly 0 or 1. The check then compares only the mean scores of those two tied groups,
    which any model passes whose probability agrees with the sign of its score. So the check
    runs (and must pass) for this model, but it shows nothing about the order of the
    probabilities; on data where the variances stay wide it would fail as for the others
    (the test below checks the saturation; the other Gaussian models here do not saturate,
    and fail the check: strict expected failures).
    """
    return (
        isinstance(estimator, olearn.CWClassifier)
        and estimator.method == "exact"
        and estimator.covariance == "diagonal"
    )


#: The check asks that class weights {0: 1000, others: 0.0001} make 87 % of the predictions
#: class 0 on very noisy blobs, after max_iter=1000 passes.
_CW_IGNORES_WEIGHTS = (
    "CW meets a hard constraint on every example: an importance weight (hence a class weight) "
    "has no effect on it, by design (olearn.rules.cw; tests/test_weights.py)"
)
_PERCEPTRON_LAST_ITERATE = (
    "on the check's non-separable 3-class blobs the multiclass Perceptron's last weights "
    "predict class 0 for 84 % of the test points, not the 87 % asked (binary: 100 %); its "
    "weighted step α = h is tested exactly in tests/test_weights.py"
)
CLASS_WEIGHT = {
    "PerceptronClassifier": _PERCEPTRON_LAST_ITERATE,
    "CWClassifier": _CW_IGNORES_WEIGHTS,
}


class HashedBlocks:
    """A joint feature map for any labels: x (and a constant) in block crc32(label) mod 16.
    (A class, so that the test ids — the estimator's repr — are the same in every worker.)"""

    n_blocks = 16

    def __call__(self, X, label):
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
        n, d = X.shape
        block = zlib.crc32(str(label).encode()) % self.n_blocks
        out = np.zeros((n, self.n_blocks * (d + 1)))
        out[:, block * (d + 1) : block * (d + 1) + d] = X
        out[:, block * (d + 1) + d] = 1.0
        return out

    def __repr__(self):
        return "HashedBlocks()"


ESTIMATORS = [
    olearn.PerceptronClassifier(),
    olearn.PerceptronClassifier(average=True),
    olearn.PassiveAggressiveClassifier(),
    olearn.PassiveAggressiveClassifier(multiclass="ovr"),
    olearn.SecondOrderPerceptronClassifier(),
    olearn.CWClassifier(),
    olearn.CWClassifier(method="variance", covariance="full"),
    olearn.AROWClassifier(covariance="full"),
    olearn.SCWClassifier(variant="II"),
    olearn.PassiveAggressiveRegressor(),
    olearn.AROWRegressor(covariance="full"),
    olearn.SGDRegressor(eta0=0.1, max_iter=5),
    olearn.SGDRegressor(loss="huber", schedule="inverse", alpha=0.01, max_iter=5),
    olearn.UniclassPA(),
    olearn.JointFeatureClassifier(feature_map=HashedBlocks()),
]


def _expected(estimator):
    reason = CLASS_WEIGHT.get(type(estimator).__name__)
    if reason is not None:
        expected = GAUSSIAN if isinstance(estimator, olearn.CWClassifier) else EXPECTED
        if _probabilities_saturate(estimator):
            expected = EXPECTED
        return {**expected, "check_class_weight_classifiers": reason}
    if isinstance(estimator, olearn.estimators.base.GaussianProbaMixin):
        return GAUSSIAN
    if isinstance(estimator, olearn.AROWRegressor) and estimator.covariance == "full":
        return {}  # recursive least squares: the order of the examples does not matter
    return EXPECTED


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_scikit_learn_conformance(estimator, check):
    check(estimator)


def test_the_proba_consistency_check_passes_only_where_probabilities_saturate():
    # the reason _probabilities_saturate gives, checked on the check's own data
    X, y = make_blobs(n_samples=100, random_state=0, n_features=4, centers=[(2, 2), (4, 4)])
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    for estimator in ESTIMATORS:
        if not isinstance(estimator, olearn.estimators.base.GaussianProbaMixin):
            continue
        p = clone(estimator).fit(X_train, y_train).predict_proba(X_test)[:, 1]
        assert np.isin(p, [0.0, 1.0]).all() == _probabilities_saturate(estimator), estimator
