"""olearn: online learning at the speed of the data.

Estimators are imported lazily (``from olearn import AROWClassifier`` loads scikit-learn then,
not ``import olearn``), so the command line starts fast.
"""

from __future__ import annotations

from olearn._lazy import lazy_exports
from olearn.registry import ESTIMATORS

__version__ = "0.1.0"

# public name -> module that defines it: every estimator of the registry, and the functions
_EXPORTS = {
    **ESTIMATORS,
    "ranking_loss": "olearn.metrics",
    "one_error": "olearn.metrics",
    "make_arow_synthetic": "olearn.datasets",
    "plot_decision_boundary": "olearn.plotting",
    "save": "olearn.io.model_file",
    "load": "olearn.io.model_file",
}

__getattr__, __dir__, __all__ = lazy_exports(
    __name__, globals(), _EXPORTS, ("warmup", "__version__")
)


def warmup(*, progress: bool = True) -> float:
    """Compile (or load from the disk cache) every compiled loop for every input type, the
    command line's readers included; with ``progress``, one line per group on standard
    error. Returns the seconds taken."""
    from olearn._warmup import warmup as _warmup

    return _warmup(progress=progress)
