"""scikit-learn estimators, one file per paper family."""

from olearn.estimators.arow import AROWClassifier
from olearn.estimators.cw import CWClassifier
from olearn.estimators.joint import JointFeatureClassifier
from olearn.estimators.pa import PassiveAggressiveClassifier
from olearn.estimators.perceptron import PerceptronClassifier
from olearn.estimators.regression import AROWRegressor, PassiveAggressiveRegressor, SGDRegressor
from olearn.estimators.scw import SCWClassifier
from olearn.estimators.sop import SecondOrderPerceptronClassifier
from olearn.estimators.uniclass import UniclassPA

__all__ = [
    "AROWClassifier",
    "AROWRegressor",
    "JointFeatureClassifier",
    "PassiveAggressiveRegressor",
    "SGDRegressor",
    "UniclassPA",
    "CWClassifier",
    "PassiveAggressiveClassifier",
    "PerceptronClassifier",
    "SCWClassifier",
    "SecondOrderPerceptronClassifier",
]
