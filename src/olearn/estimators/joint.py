"""Single-prototype multiclass with a joint feature map Φ(x, y) (Crammer et al., JMLR 2006,
§7): one weight vector w, score w·Φ(x, y), and the update of the single constraint between
the true label and the best wrong label along Φ(x, y) − Φ(x, s).

The reduction is binary: each round is a binary step (label +1) on the difference row
Φ(x, y) − Φ(x, s), so every rule and representation of the engine applies unchanged
(``olearn.engine.run_joint``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from olearn import engine
from olearn.estimators._declarations import confidence_phi
from olearn.estimators._targets import check_announced, check_label_kind
from olearn.estimators._validation import (
    input_attributes_restored_on_error,
    warn_if_sorted_by_class,
)
from olearn.estimators._weights import labelled_row_weights, learned_labels
from olearn.estimators.base import OnlineLinearModel, positive
from olearn.estimators.cw import ETA_CONSTRAINT
from olearn.rules import RULES

_FIRST_ORDER = ("perceptron", "pa", "pa1", "pa2")
_SECOND_ORDER = ("sop", "cw_exact", "cw_variance", "arow", "scw1", "scw2")


class JointFeatureClassifier(ClassifierMixin, OnlineLinearModel):
    """Multiclass classification with a user-supplied joint feature map Φ(x, y).

    Parameters
    ----------
    rule : str, default="pa1"
        One of "perceptron", "pa", "pa1", "pa2", "sop", "cw_exact", "cw_variance", "arow",
        "scw1", "scw2" (the rules of ``olearn.rules``).
    feature_map : callable or None, default=None
        ``feature_map(X, label)`` returns the rows Φ(x_i, label) of every example of X as an
        (n, d) array or sparse matrix. None: X itself is the precomputed Φ, an array of shape
        (n, k, d) whose ``X[i, c]`` is Φ(x_i, c); the labels are then 0 … k − 1.
    C : float > 0, default=1.0
        Aggressiveness of "pa1", "pa2", "scw1", "scw2".
    r : float > 0, default=1.0
        Regularisation of "arow".
    eta : float in (0.5, 1), default=0.95
        Confidence of "cw_exact", "cw_variance", "scw1", "scw2".
    covariance : {"diagonal", "full"}, default="diagonal"
        Covariance of second-order rules over Φ's d coordinates.
    a : float > 0, default=1.0
        Prior covariance Σ₀ = a·I (SOP: A₀ = a·I).
    average : bool, default=False
        Predict with the averaged w (first-order rules).
    class_weight : dict, "balanced" or None, default=None
        Multiplies each example's importance weight by the weight of its class, as in
        scikit-learn and the other classifiers: ``{label: weight}`` (absent labels weigh 1)
        or "balanced", ``n_samples / (n_classes · count(label))`` over the labels of ``fit``
        (``sklearn.utils.class_weight.compute_sample_weight``; "balanced" is refused by
        ``partial_fit``: pass a dict).
    max_iter, shuffle, random_state
        As for the other online classifiers: see
        :class:`~olearn.estimators.base.OnlineLinearModel`.

    Attributes
    ----------
    classes_ : ndarray
        The labels seen, sorted.
    n_joint_features_ : int
        The dimension d of Φ.
    coef_ : ndarray of shape (1, n_joint_features_)
        The weight vector w over Φ (the average for averaged models).
    intercept_ : ndarray of shape (1,)
        Always 0: a bias is a coordinate of Φ.
    n_features_in_ : int
        Features of X: d for a precomputed Φ, the width of an array X given to a
        ``feature_map``.
    n_iter_, n_rounds_, n_mistakes_, n_updates_, weights_, average_sums_, variances_,
    precision_cholesky_, stats_
        See :class:`~olearn.estimators.base.OnlineLinearModel` (one row of d + 1 weights).

    Notes
    -----
    There is no separate intercept: a class-dependent bias is a coordinate of Φ.
    """

    _parameter_constraints: dict = {
        "rule": [StrOptions(set(_FIRST_ORDER + _SECOND_ORDER))],
        "feature_map": [callable, None],
        "C": positive(),
        "r": positive(),
        "eta": ETA_CONSTRAINT,
        "covariance": [StrOptions({"diagonal", "full"})],
        "a": positive(),
        "average": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        rule="pa1",
        feature_map=None,
        *,
        C=1.0,
        r=1.0,
        eta=0.95,
        covariance="diagonal",
        a=1.0,
        average=False,
        class_weight=None,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        self.rule = rule
        self.feature_map = feature_map
        self.C = C
        self.r = r
        self.eta = eta
        self.covariance = covariance
        self.a = a
        self.average = average
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    # -- the rule ---------------------------------------------------------------------------

    def _rule_name(self) -> str:
        return self.rule

    def _rule_hyperparameters(self) -> list[float]:
        values = {"C": float(self.C), "r": float(self.r)}
        if self.rule in ("cw_exact", "cw_variance", "scw1", "scw2"):
            values["phi"] = confidence_phi(self.eta)
        return [values[name] for name in RULES[self.rule].params]

    def _covariance_kind(self):
        return None if self.rule in _FIRST_ORDER else self.covariance

    def _prior_variance(self) -> float:
        return 1.0 / float(self.a) if self.rule == "sop" else float(self.a)

    def _averaged(self) -> bool:
        return bool(self.average) and self.rule in _FIRST_ORDER

    def _bias(self) -> float:
        return 0.0

    # -- Φ ----------------------------------------------------------------------------------

    def _phi(self, X, classes):
        """Φ for every (example, class) as rows i·k + c: a C-contiguous (n·k, d) array or a
        canonical CSR matrix."""
        if self.feature_map is None:
            P = np.asarray(X, dtype=np.float64)
            if P.ndim != 3:
                raise ValueError(
                    "without feature_map, X must be the precomputed Φ of shape (n, k, d); "
                    f"got an array of shape {P.shape}."
                )
            if P.shape[1] != len(classes):
                raise ValueError(f"Φ has {P.shape[1]} labels; expected {len(classes)}.")
            if not np.isfinite(P).all():
                raise ValueError("Φ contains NaN or infinity.")
            n, k, d = P.shape
            return np.ascontiguousarray(P.reshape(n * k, d)), n, d
        # any array-like (lists of rows, a DataFrame) as well as an array or a sparse matrix
        blocks = [self.feature_map(X, c) for c in classes]
        blocks = [b if sp.issparse(b) else np.asarray(b, dtype=np.float64) for b in blocks]
        if any(b.ndim != 2 or b.shape != blocks[0].shape for b in blocks):
            raise ValueError("feature_map must return (n, d) rows of one shape for every label.")
        (n, d), k = blocks[0].shape, len(classes)
        if any(sp.issparse(b) for b in blocks):
            stacked = sp.vstack([sp.csr_matrix(b, dtype=np.float64) for b in blocks]).tocsr()
            # rows c·n + i -> i·k + c
            perm = (np.arange(k)[None, :] * n + np.arange(n)[:, None]).ravel()
            P = stacked[perm]
            P.sum_duplicates()
            P.sort_indices()
            if not np.isfinite(P.data).all():
                raise ValueError("Φ contains NaN or infinity.")
        else:
            P = np.stack([np.asarray(b, dtype=np.float64) for b in blocks], axis=1)
            if not np.isfinite(P).all():
                raise ValueError("Φ contains NaN or infinity.")
            P = np.ascontiguousarray(P.reshape(n * k, d))
        return P, n, d

    def _inputs(self, X, reset: bool):
        """Numeric 2-D X (dense or sparse) given to a feature_map is validated like any
        scikit-learn input (finite, n_features_in_); other inputs (texts, sequences) go to
        the map untouched."""
        if self.feature_map is None:
            return X
        if sp.issparse(X) or (
            isinstance(X, np.ndarray | list) and np.asarray(X).dtype.kind in "biuf"
        ):
            return validate_data(
                self, X, reset=reset, accept_sparse=("csr", "csc", "coo"), dtype=np.float64
            )
        return X

    def _labels(self, X, y, classes):
        y = column_or_1d(y, warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity.")
        check_classification_targets(y)
        if self.feature_map is None:
            if np.ndim(X) != 3:
                raise ValueError(
                    "without feature_map, X must be the precomputed Φ of shape (n, k, d); "
                    f"got an array of shape {np.shape(X)}."
                )
            known = np.arange(np.shape(X)[1])
            if classes is not None and not np.isin(classes, known).all():  # (were ignored)
                raise ValueError(
                    f"classes {np.asarray(classes)[:10].tolist()}: a precomputed Φ of "
                    f"{len(known)} labels has the labels 0 … {len(known) - 1}."
                )
        else:
            seen = np.unique(y)
            known = seen if classes is None else np.union1d(classes, seen)
            if classes is not None:
                check_label_kind(classes, seen)
        missing = ~np.isin(y, known)
        if missing.any():
            raise ValueError(f"y has labels {np.unique(y[missing])[:10].tolist()} outside "
                             f"{known[:10].tolist()}.")  # fmt: skip
        if len(known) < 2:
            raise ValueError("a multiclass model needs at least two classes; y has one class.")
        return y, known

    # -- fitting ----------------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Learn w over ``max_iter`` passes of (X, y) from scratch. ``sample_weight``
        (array-like of shape (n_samples,) or a float, optional): importance weights ≥ 0, the
        rule's weighted form (``olearn.rules``), times ``class_weight``'s weight of the
        example's class; a weight 0 skips the example."""
        self._validate_params()
        P, y, classes, weights, d = self._checked_call(X, y, sample_weight, None, first=True,
                                                       partial=False)  # fmt: skip
        warn_if_sorted_by_class(self, y)
        self.classes_ = classes
        self.n_joint_features_ = d
        if self.feature_map is None:
            self.n_features_in_ = d
        self._allocate(d)
        rng = check_random_state(self.random_state)
        for _ in range(self.max_iter):
            self._run_joint(P, np.searchsorted(classes, y).astype(np.float64), rng, weights)
        self.n_iter_ = self.max_iter
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y); with a feature_map, new labels simply join ``classes_``
        (``classes`` may announce labels before they occur, and must keep those learned; a
        precomputed Φ fixes them as 0 … k − 1, and refuses other ``classes``;
        ``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "weights_")
        if first:
            self._validate_params()
        else:
            self._refresh_parameters()
        known = np.unique(column_or_1d(classes)) if classes is not None else None
        if not first:
            # labels announced later add to the learned ones, as for the other classifiers
            # (they were ignored); they must keep every learned one
            if known is not None:
                check_label_kind(self.classes_, known)
                check_announced(self.classes_, known)
            known = self.classes_ if known is None else np.union1d(self.classes_, known)
        P, y, classes_, weights, d = self._checked_call(X, y, sample_weight, known, first=first,
                                                        partial=True)  # fmt: skip
        if first:
            self.n_joint_features_ = d
            if self.feature_map is None:
                self.n_features_in_ = d
            self._allocate(d)
        self.classes_ = classes_
        y_index = np.searchsorted(classes_, y).astype(np.float64)
        self._run_joint(P, y_index, check_random_state(self.random_state), weights)
        self.n_iter_ = 1
        return self

    def _checked_call(self, X, y, sample_weight, known, *, first: bool, partial: bool):
        """``(Φ, y, classes, weights, d)`` of one call, every input checked before any state
        changes: the reset (``first``) records X's width before y, Φ and the weights are
        checked, and is undone if a check fails, so that a failed call leaves the model as it
        was. ``known``: the labels announced or already learned; ``partial``: as for
        ``_row_weights``."""
        with input_attributes_restored_on_error(self):
            X = self._inputs(X, reset=first)
            y, classes = self._labels(X, y, known)
            weights = self._row_weights(sample_weight, y, classes, partial=partial)
            classes, y = self._learned_labels(y, weights, classes, known)
            P, n, d = self._phi(X, classes)
            if n != len(y):
                raise ValueError(f"X has {n} examples but y has {len(y)} labels.")
            if n == 0:  # (a precomputed Φ of shape (0, k, d) fitted an all-zero model)
                raise ValueError(
                    f"Found 0 examples (Φ of shape {(0, len(classes), d)}) while a minimum of "
                    f"1 is required by {type(self).__name__}."
                )
            if not first and d != self.n_joint_features_:
                raise ValueError(f"Φ has {d} features; the model has {self.n_joint_features_}.")
        return P, y, classes, weights, d

    def _learned_labels(self, y, weights, classes, known):
        """The labels after this call with a feature_map (a row of weight 0 is as if
        absent: its label alone adds no class) and y with its skipped rows relabelled."""
        if self.feature_map is None:
            return classes, y  # (a precomputed Φ fixes the labels)
        learned, y = learned_labels(y, weights, known)
        if learned is None or len(learned) == len(classes):
            return classes, y
        if len(learned) < 2:
            raise ValueError(
                "a multiclass model needs at least two classes; the rows of positive weight "
                "have one class."
            )
        return learned, y

    def _row_weights(self, sample_weight, y, classes, *, partial: bool):
        """``sample_weight`` (checked) times ``class_weight``'s weight of each row's class;
        None when all 1. "balanced" counts the labels of y only (a precomputed Φ may offer
        labels y never takes), as ``compute_sample_weight`` does."""
        if self.class_weight == "balanced" and not partial:
            present = np.unique(y)
            return labelled_row_weights(sample_weight, "balanced", present, y, partial=False)
        return labelled_row_weights(sample_weight, self.class_weight, classes, y,
                                    partial=partial)  # fmt: skip

    def _run_joint(self, P, y_index, rng, sample_weight=None) -> None:
        n = len(y_index)
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        if sp.issparse(P):
            data, indptr, indices = P.data, P.indptr, P.indices
        else:
            data, indptr, indices = P, None, None
        engine.run_joint(data, indptr, indices, len(self.classes_), y_index, order,
                         *self._engine_state(), sample_weight)  # fmt: skip

    # -- prediction -------------------------------------------------------------------------

    def _label_scores(self, X):
        self._check_ready()
        X = self._inputs(X, reset=False)
        P, n, d = self._phi(X, self.classes_)
        if d != self.n_joint_features_:
            raise ValueError(f"Φ has {d} features; the model has {self.n_joint_features_}.")
        w = self._mean[0, :-1]
        return np.asarray(P @ w).reshape(n, len(self.classes_))

    def decision_function(self, X):
        """w·Φ(x, c) for every example x of X and label c, shape (n, k); with two labels, the
        scikit-learn binary convention: w·Φ(x, c₁) − w·Φ(x, c₀), shape (n,)."""
        scores = self._label_scores(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """The label of the highest score w·Φ(x, c), for every example x of X."""
        scores = self._label_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # X goes to the user's map (any input it accepts), or is the precomputed 3-D Φ
        mapped = self.feature_map is not None
        tags.input_tags.sparse = mapped
        tags.input_tags.two_d_array = mapped
        tags.input_tags.three_d_array = not mapped
        tags.classifier_tags.multi_class = True
        return tags
