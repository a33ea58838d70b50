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

import numpy as np

from olearn.estimators import _declarations as d
from olearn.estimators._state import LinearClassifierState, LinearRegressorState

_E = "olearn.estimators"

#: estimator class (dotted name) -> (its declarations, its state)
FAMILIES = {
    f"{_E}.perceptron.PerceptronClassifier": (d.PerceptronDeclarations, LinearClassifierState),
    f"{_E}.pa.PassiveAggressiveClassifier": (d.PADeclarations, LinearClassifierState),
    f"{_E}.sop.SecondOrderPerceptronClassifier": (d.SOPDeclarations, LinearClassifierState),
    f"{_E}.cw.CWClassifier": (d.CWDeclarations, LinearClassifierState),
    f"{_E}.arow.AROWClassifier": (d.AROWDeclarations, LinearClassifierState),
    f"{_E}.scw.SCWClassifier": (d.SCWDeclarations, LinearClassifierState),
    f"{_E}.regression.PassiveAggressiveRegressor": (
        d.PARegressionDeclarations,
        LinearRegressorState,
    ),
    f"{_E}.regression.AROWRegressor": (d.RLSDeclarations, LinearRegressorState),
    f"{_E}.regression.SGDRegressor": (d.SGDDeclarations, LinearRegressorState),
}


class _Headless:
    """What the estimator's ``get_params`` and one-pass ``partial_fit`` do, on trusted input."""

    _param_names: tuple[str, ...] = ()

    def get_params(self, deep: bool = False) -> dict:
        return {name: getattr(self, name) for name in self._param_names}

    def learn_rows(self, data, indptr, indices, n_features: int, y, lo: int, hi: int, *,
                   classes=None) -> None:  # fmt: skip
        """``partial_fit`` on rows ``lo:hi`` of a CSR matrix given by its arrays (width
        ``n_features``) with labels ``y`` (float64, one per row of the matrix). ``classes``
        may announce the label set on the first call, as for ``partial_fit``."""
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
            y_engine = self._labels(y, first, classes)
        else:
            if first:
                self._allocate(self.n_features_in_)
            y_engine = y
        self._run_arrays(data, indptr, indices, y_engine, order)
        self.n_iter_ = 1

    def _labels(self, y, first: bool, classes):
        """Grow the label set as ``partial_fit`` does; the labels as the engine reads them."""
        seen = np.unique(y)
        if not np.all(np.mod(seen, 1) == 0):
            bad = seen[np.mod(seen, 1) != 0][0]
            raise ValueError(
                f"label {bad!r} is not a class label (an integer); "
                "use --task regression for real-valued targets"
            )
        if first:
            known = seen if classes is None else np.unique(np.asarray(classes, np.float64))
            missing = ~np.isin(seen, known)
            if missing.any():
                raise ValueError(f"label {seen[missing][0]!r} is not in the announced classes")
            self._start(self.n_features_in_, self._label_task(len(known), None), known)
        elif not np.isin(seen, self.classes_).all():
            known = np.union1d(self.classes_, seen)
            self._grow_classes(known, self._task_after(known))
        return self._encode(y)


def headless_model(dotted: str, params: dict):
    """A headless model standing for the estimator class ``dotted`` with constructor
    parameters ``params`` (all of them, already validated), or None if that class has no
    headless form (kernel and uniclass models)."""
    family = FAMILIES.get(dotted)
    if family is None:
        return None
    module, _, name = dotted.rpartition(".")
    declarations, state = family
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
