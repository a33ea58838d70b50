"""scikit-learn estimators, one file per paper family.

Names are imported lazily (``olearn._lazy``): the command line's scikit-learn-free modules
(``_state``, ``_declarations``, ``_headless``) live in this package too, and importing them
must not import every estimator (and scikit-learn) through this file.
"""

from olearn._lazy import lazy_exports
from olearn.registry import ESTIMATORS

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {name: module for name, module in ESTIMATORS.items() if module.startswith(__name__ + ".")},
)
