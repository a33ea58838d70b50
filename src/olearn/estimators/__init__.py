"""scikit-learn estimators, one file per paper family."""

from olearn.estimators.arow import AROWClassifier
from olearn.estimators.cw import CWClassifier
from olearn.estimators.pa import PassiveAggressiveClassifier
from olearn.estimators.perceptron import PerceptronClassifier
from olearn.estimators.scw import SCWClassifier
from olearn.estimators.sop import SecondOrderPerceptronClassifier

__all__ = [
    "AROWClassifier",
    "CWClassifier",
    "PassiveAggressiveClassifier",
    "PerceptronClassifier",
    "SCWClassifier",
    "SecondOrderPerceptronClassifier",
]
