"""Type information for olearn's lazy exports (``olearn/__init__.py`` imports them on first use).

Keep in step with ``_EXPORTS`` in ``__init__.py`` (tests/test_install.py checks both list the same
names)."""

from olearn.datasets import make_arow_synthetic as make_arow_synthetic
from olearn.estimators.arow import AROWClassifier as AROWClassifier
from olearn.estimators.cw import CWClassifier as CWClassifier
from olearn.estimators.joint import JointFeatureClassifier as JointFeatureClassifier
from olearn.estimators.kernel import (
    BudgetedSGDClassifier as BudgetedSGDClassifier,
)
from olearn.estimators.kernel import (
    KernelPAClassifier as KernelPAClassifier,
)
from olearn.estimators.kernel import (
    KernelPARegressor as KernelPARegressor,
)
from olearn.estimators.kernel import (
    KernelPegasosClassifier as KernelPegasosClassifier,
)
from olearn.estimators.kernel import (
    KernelPerceptronClassifier as KernelPerceptronClassifier,
)
from olearn.estimators.kernel import (
    NORMAClassifier as NORMAClassifier,
)
from olearn.estimators.kernel import (
    NORMARegressor as NORMARegressor,
)
from olearn.estimators.pa import PassiveAggressiveClassifier as PassiveAggressiveClassifier
from olearn.estimators.perceptron import PerceptronClassifier as PerceptronClassifier
from olearn.estimators.regression import (
    AROWRegressor as AROWRegressor,
)
from olearn.estimators.regression import (
    PassiveAggressiveRegressor as PassiveAggressiveRegressor,
)
from olearn.estimators.regression import (
    SGDRegressor as SGDRegressor,
)
from olearn.estimators.scw import SCWClassifier as SCWClassifier
from olearn.estimators.sop import SecondOrderPerceptronClassifier as SecondOrderPerceptronClassifier
from olearn.estimators.uniclass import UniclassPA as UniclassPA
from olearn.io.model_file import load as load
from olearn.io.model_file import save as save
from olearn.metrics import one_error as one_error
from olearn.metrics import ranking_loss as ranking_loss
from olearn.plotting import plot_decision_boundary as plot_decision_boundary
from olearn.structured.tagger import SequenceTagger as SequenceTagger

__version__: str
__all__: list[str]

def warmup(*, progress: bool = ...) -> float: ...
