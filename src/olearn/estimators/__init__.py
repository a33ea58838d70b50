"""scikit-learn estimators, one file per paper family.

Names are imported lazily (``olearn._lazy``): the command line's scikit-learn-free modules
(``_state``, ``_declarations``, ``_headless``) live in this package too, and importing them
must not import every estimator (and scikit-learn) through this file.
"""

from olearn._lazy import lazy_exports

_E = "olearn.estimators"
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        "AROWClassifier": f"{_E}.arow",
        "AROWRegressor": f"{_E}.regression",
        "CWClassifier": f"{_E}.cw",
        "JointFeatureClassifier": f"{_E}.joint",
        "PassiveAggressiveClassifier": f"{_E}.pa",
        "PassiveAggressiveRegressor": f"{_E}.regression",
        "PerceptronClassifier": f"{_E}.perceptron",
        "SCWClassifier": f"{_E}.scw",
        "SecondOrderPerceptronClassifier": f"{_E}.sop",
        "SGDRegressor": f"{_E}.regression",
        "UniclassPA": f"{_E}.uniclass",
    },
)
