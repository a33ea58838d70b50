"""Linear models trained without scikit-learn, for ``olearn train``.

A headless model is an estimator's state (``_state``) and declarations (``_declarations``)
without its scikit-learn face. It learns from CSR arrays that a reader has already checked
(finite values, indices within the width, numeric labels), so none of the estimator's input
validation is repeated, and scikit-learn is never imported: a small job starts in a fraction
of the time (see benchmarks/README.md, "Data in, models out").

Its class carries the estimator's name, and its attributes are exactly those the estimator
has after the same ``partial_fit`` calls, so ``olearn.save`` writes the estimator's model
file and ``olearn.load`` returns the estimator (tests/test_headless.py checks both, byte for
byte).
"""

from __future__ import annotations

import importlib

import numpy as np

from olearn._sets import distinct
from olearn.estimators._state import LinearClassifierState
from olearn.estimators._weights import (
    check_sample_weight,
    class_weights,
    learned_labels,
    row_weights,
)

#: Off in tests that compare the headless path with the estimator's own.
ENABLED = True


class _Headless:
    """What the estimator's ``get_params`` and one-pass ``partial_fit`` do, on trusted input."""

    _param_names: tuple[str, ...] = ()

    def get_params(self, deep: bool = False) -> dict:
        return {name: getattr(self, name) for name in self._param_names}

    def learn_rows(self, data, indptr, indices, n_features: int, y, lo: int, hi: int, *,
                   classes=None, sample_weight=None) -> None:  # fmt: skip
        """``partial_fit`` on rows ``lo:hi`` of a CSR matrix given by its arrays (width
        ``n_features``) with labels ``y`` (float64, one per row of the matrix). ``classes``
        may announce the label set on the first call, as for ``partial_fit``;
        ``sample_weight`` (one per row of the matrix, or None) are the importance weights,
        checked here (``_weights.check_sample_weight``) and, for a classifier, multiplied by
        its ``class_weight`` dict as ``partial_fit`` does."""
        weights = None
        if sample_weight is not None:
            weights = check_sample_weight(sample_weight[lo:hi], hi - lo)
        y = y[lo:hi]
        indptr = indptr[lo : hi + 1]
        order = np.arange(hi - lo)
        first = not hasattr(self, "weights_")
        if first:
            self.n_features_in_ = int(n_features)
        elif n_features != self.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but the model expects {self.n_features_in_}"
            )
        if isinstance(self, LinearClassifierState):
            class_weight = getattr(self, "class_weight", None)
            if class_weight is not None:
                announced = self.classes_ if not first else classes
                known = distinct(np.concatenate([y, [] if announced is None else announced]))
                per_class = class_weights(class_weight, known, y, partial=True)
                weights = row_weights(weights, per_class, np.searchsorted(known, y), hi - lo)
            if weights is not None:  # a row of weight 0 is as if absent: its label adds no class
                base = classes if first else self.classes_
                base = None if base is None else distinct(np.asarray(base, np.float64))
                y = learned_labels(y, weights, base)[1]
            y_engine = self._labels(y, first, classes)
        else:
            if first:
                self._allocate(self.n_features_in_)
            y_engine = y
        self._run_arrays(data, indptr, indices, y_engine, order, sample_weight=weights)
        self.n_iter_ = 1

    def _labels(self, y, first: bool, classes):
        """Grow the label set as ``partial_fit`` does; the labels as the engine reads them."""
        seen = distinct(y)
        if not np.all(np.mod(seen, 1) == 0):
            bad = seen[np.mod(seen, 1) != 0][0]
            raise ValueError(
                f"label {float(bad):g} is not a class label (an integer); "
                "use --task regression for real-valued targets"
            )
        if first:
            known = seen if classes is None else distinct(np.asarray(classes, np.float64))
            missing = ~np.isin(seen, known)
            if missing.any():
                raise ValueError(
                    f"label {float(seen[missing][0]):g} is not in the announced classes"
                )
            self._start(self.n_features_in_, self._label_task(len(known), None), known)
        elif not np.isin(seen, self.classes_).all():
            known = distinct(np.concatenate([self.classes_, seen]))
            self._grow_classes(known, self._task_after(known))
        return self._encode(y)


def headless_model(path: str, params: dict):
    """A headless model standing for the estimator class at ``path`` with constructor
    parameters ``params`` (all of them, already validated), or None if that class has no
    headless form (kernel and uniclass models). Its parts, the declarations and state classes
    in the estimator's own bases, are read from the command line's catalogue
    (``olearn.cli.algorithms``), which derives them from the class."""
    from olearn.cli.algorithms import catalogue

    entry = catalogue().get(path)
    parts = None if entry is None else entry["headless"]
    if not ENABLED or parts is None:
        return None
    declarations, state = (_class(parts[key]) for key in ("declarations", "state"))
    module, _, name = path.rpartition(".")
    cls = type(
        name,
        (declarations, _Headless, state),
        # the estimator's name, so that model files name the estimator
        {"__module__": module, "__qualname__": name, "_param_names": tuple(params)},
    )
    model = cls()
    for key, value in params.items():
        setattr(model, key, value)
    model._check_parameter_combination()
    return model


def _class(path: str) -> type:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)
