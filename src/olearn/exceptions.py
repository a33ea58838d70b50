"""The warnings olearn gives, for ``warnings.filterwarnings(category=...)`` (as
``sklearn.exceptions`` holds scikit-learn's)."""

from olearn.estimators._state import NotLearnedWarning
from olearn.estimators._validation import OrderedStreamWarning
from olearn.estimators.kernel import LargeExpansionWarning

__all__ = ["LargeExpansionWarning", "NotLearnedWarning", "OrderedStreamWarning"]
