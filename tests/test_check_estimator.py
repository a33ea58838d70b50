"""scikit-learn's own conformance checks for every linear estimator of olearn.

Each expected failure names its reason (``EXPECTED``); every other check must pass.
Models are small and the data sets of the checks are tiny, so this stays fast.
"""

import zlib

import numpy as np
import scipy.sparse as sp
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
        return {**expected, "check_class_weight_classifiers": reason}
    if isinstance(estimator, olearn.estimators.base.GaussianProbaMixin):
        return GAUSSIAN
    if isinstance(estimator, olearn.AROWRegressor) and estimator.covariance == "full":
        return {}  # recursive least squares: the order of the examples does not matter
    return EXPECTED


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_scikit_learn_conformance(estimator, check):
    check(estimator)
