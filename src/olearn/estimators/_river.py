"""The estimators as River sees them.

River's own tools ask what a model is before they use it: ``river.evaluate.
progressive_val_score`` refuses a model unless its metric ``works_with`` it —
``isinstance(model, river.base.Classifier)`` (or ``Regressor``) — and reads the model's
``_supervised`` flag. olearn's estimators follow River's conventions (``learn_one`` on an
unfitted model, ``predict_one``, ``predict_proba_one``) without deriving from River's classes,
River being an optional dependency: when it is installed they are registered as virtual
subclasses of its abstract base classes (``abc.ABCMeta.register``, which makes
``isinstance`` true and inherits nothing). River's tools that copy a model — a pipeline's
``clone``, ``ensemble.BaggingClassifier``, ``multiclass.OneVsRestClassifier`` — call its
``clone``, which the decorator gives the class too.
"""

from __future__ import annotations

import copy
import importlib.util


def clone(self, new_params: dict | None = None, include_attributes: bool = False):
    """A fresh model with the same parameters, ``new_params`` replacing some (River's
    ``Base.clone``; scikit-learn's ``clone`` for its users); with ``include_attributes``, a
    copy that keeps what the model has learned."""
    from sklearn.base import clone as fresh

    model = copy.deepcopy(self) if include_attributes else fresh(self)
    return model.set_params(**new_params) if new_params else model


def river_estimator(kind: str):
    """A class decorator: the class (and its subclasses) is a River ``kind`` — "Classifier"
    or "Regressor" — for ``isinstance`` when River can be imported, and carries River's
    ``_supervised`` flag (its ``learn_one`` takes a label) and River's ``clone``."""

    def register(estimator_class: type) -> type:
        estimator_class._supervised = True
        estimator_class.clone = clone
        if importlib.util.find_spec("river") is not None:
            try:
                import river.base
            except ImportError:  # an install River cannot load: nothing to register with
                return estimator_class
            getattr(river.base, kind).register(estimator_class)
        return estimator_class

    return register
