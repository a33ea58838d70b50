"""The parameter state of the linear models and the call of the compiled loop, without
scikit-learn.

The estimators (``base.py``) are this state with a scikit-learn face: validation, label
checks, ``fit``/``partial_fit``/``predict``. Keeping the state apart lets ``olearn train``
drive the engine on input its readers have already checked, without paying scikit-learn's
import (about a second, most of a small job): see :mod:`olearn.estimators._headless`.
Only NumPy and the compiled engine are imported here.
"""

from __future__ import annotations

import warnings

import numpy as np

from olearn import engine
from olearn.representations import BY_COVARIANCE, DIAGONAL, FULL, LINEAR, linear
from olearn.rules import RULES
from olearn.tasks import BINARY, REGRESSION, TASKS

#: Variances never fall below this fraction of the prior variance (ALGORITHMS.md, numerics).
VARIANCE_FLOOR = 1e-12

EMPTY_AUX = np.empty((0, 0))
#: A Fortran-ordered stand-in for unused (k, D) arrays of feature-major models.
_UNUSED_F = np.zeros((2, 2), order="F")


class LinearState:
    """Weights (and averaging sums, variances or the precision factor) of an online linear
    model, the packed configuration of the compiled loop, and the loop call.

    A model declares its paper's rule and hyper-parameters by overriding the methods of
    "what a model declares" (``olearn.estimators._declarations``); its parameters are
    instance attributes, as scikit-learn keeps them.
    """

    #: Private attributes rebuilt from the parameters by ``_configure`` (not saved).
    _derived_attributes = ("_cfg", "_hp", "_opts", "_binary_margin")

    # -- what a model declares --------------------------------------------------------------

    def _rule_name(self) -> str:
        raise NotImplementedError

    def _rule_hyperparameters(self) -> list[float]:
        return []

    def _covariance_kind(self) -> str | None:
        """'diagonal', 'full', or None for first-order rules."""
        return None

    def _prior_variance(self) -> float:
        """Σ₀ = a·I."""
        return 1.0

    def _averaged(self) -> bool:
        return False

    def _task_code(self) -> int:
        return BINARY

    def _is_gradient_rule(self) -> bool:
        """Whether the rule is a gradient rule (SGD) rather than a margin rule."""
        return RULES[self._rule_name()].kind == "gradient"

    def _task_options(self) -> tuple[float, float]:
        """(ε of the regression reduction, learned multilabel threshold flag)."""
        return 0.0, 0.0

    def _check_parameter_combination(self) -> None:
        """Raise ValueError for parameters valid one by one but not together."""

    # -- the loop ---------------------------------------------------------------------------

    def _run_arrays(
        self, data, indptr, indices, y_engine, order, aux=EMPTY_AUX, sample_weight=None
    ) -> int:
        """One pass of the compiled loop over the rows ``order`` of X given as its engine
        arrays (``indptr``/``indices`` None for a dense X), each row of importance weight
        ``sample_weight[i]`` (None: all 1; ``_weights.check_sample_weight``). Returns the
        loop's count of rows
        not learned (a non-finite confidence or step: NaN or infinite input, which the caller
        then reports, or finite values too large, which ``warn_not_learned`` reports)."""
        if not data.flags.writeable:
            # a read-only array (e.g. a memory map) is a distinct type to numba: one copy
            # here instead of a second compiled specialisation of the whole loop
            data = data.copy()
        refused = self._learn_arrays(data, indptr, indices, y_engine, order, aux, sample_weight)
        self._fold_scale()
        if refused and np.isfinite(data).all():  # (non-finite input: the caller raises)
            warn_not_learned(refused)
        return refused

    def _learn_arrays(self, data, indptr, indices, y_engine, order, aux, sample_weight) -> int:
        """The compiled call of ``_run_arrays``, its count of rows not learned, the SGD
        weight scale not folded (a pass made of several calls folds it once, at its end)."""
        if aux.shape[0]:
            return engine.run_task(data, indptr, indices, y_engine, aux, order,
                                   *self._engine_state(), sample_weight)  # fmt: skip
        return engine.run_pass(data, indptr, indices, y_engine, order, *self._engine_state(),
                               sample_weight, self._binary_margin)  # fmt: skip

    def _fold_scale(self) -> None:
        """Fold the SGD weight scale into the weights so the stored state is the model."""
        scale = self.stats_[engine.STAT_SCALE]
        if scale != 1.0:
            self.weights_ *= scale
            self.stats_[engine.STAT_SCALE] = 1.0

    def _engine_state(self):
        """The loop's two arguments: the state ``(W, A, S, L, stats)`` and the configuration
        ``(cfg, hp, opts)`` (``olearn._layout``)."""
        W, A, S = self.weights_, self.average_sums_, self.variances_
        if not W.flags.c_contiguous:
            # Feature-major rows: hand the loop unused averaging sums / variances in the
            # same layout, so numba compiles one specialisation for all multi-row models
            # instead of one per combination (the loop never reads them).
            A = A if A.size else _UNUSED_F
            S = S if S.size else _UNUSED_F
        state = (W, A, S, self.precision_cholesky_, self.stats_)
        return state, (self._cfg, self._hp, self._opts)

    # -- state ------------------------------------------------------------------------------

    @property
    def _representation(self) -> int:
        kind = self._covariance_kind()
        return LINEAR if kind is None else BY_COVARIANCE[kind]

    def _allocate(self, n_features: int, n_rows: int = 1) -> None:
        D = n_features + 1  # the intercept is the last coordinate
        rep = self._representation
        a = self._prior_variance()
        # Several rows are stored feature-major (Fortran order): the k weights of a feature
        # share cache lines, so scoring k classes on a sparse row costs one miss per nonzero
        # instead of k (20 classes on 2²⁰ features: 20× fewer misses, see benchmarks).
        order = "F" if n_rows > 1 else "C"
        self.weights_ = np.zeros((n_rows, D), order=order)
        shape = (n_rows, D) if self._averaged() else (0, 0)
        self.average_sums_ = np.zeros(shape, order=order)
        if rep == DIAGONAL:
            self.variances_ = np.full((n_rows, D), a, order=order)
        else:
            self.variances_ = np.zeros((0, 0))
        if rep == FULL:
            self.precision_cholesky_ = np.tile(np.eye(D) / np.sqrt(a), (n_rows, 1, 1))
        else:
            self.precision_cholesky_ = np.zeros((0, 0, 0))
        self.stats_ = engine.new_stats()
        self._configure()

    def _configure(self) -> None:
        """Pack the rule, representation and task codes and hyper-parameters for the loop."""
        self._cfg = np.array(
            [
                RULES[self._rule_name()].code,
                self._representation,
                self._task_code(),
                int(self._averaged()),
            ],
            dtype=np.int64,
        )
        self._hp = np.array(self._rule_hyperparameters(), dtype=np.float64)
        floor = VARIANCE_FLOOR * self._prior_variance()
        epsilon, learned_threshold = self._task_options()
        self._opts = engine.options(self._bias(), floor, epsilon, learned_threshold != 0.0)
        # ``engine._is_binary_margin`` as a Python bool, for the per-call checks (False, the
        # cautious answer — check X apart — for a model configured before its state exists)
        W = self.__dict__.get("weights_")
        self._binary_margin = (
            W is not None
            and W.shape[0] == 1
            and self._task_code() == BINARY
            and not self._is_gradient_rule()
        )

    def _bias(self) -> float:
        """Value of the intercept feature: 1 to learn an intercept, 0 to make it inert."""
        return 1.0 if self.fit_intercept else 0.0

    @property
    def _mean(self):
        """(k, D) weights used for prediction (the average for averaged models)."""
        W = self.weights_
        if self.stats_[engine.STAT_SCALE] != 1.0:
            W = W * self.stats_[engine.STAT_SCALE]
        if self._averaged():
            return linear.averaged(W, self.average_sums_, self.stats_[engine.STAT_ROUNDS])
        return W


class LinearRegressorState(LinearState):
    """One weight row, ŷ = w·x + b."""

    def _task_code(self) -> int:
        return REGRESSION


class LinearClassifierState(LinearState):
    """Label bookkeeping of the classifiers: the task (``task_``) follows the label set
    (``classes_``), and a label not seen before grows a prototype row."""

    @property
    def _task(self) -> str:
        return str(getattr(self, "task_", "binary"))

    def _task_code(self) -> int:
        return TASKS[self._task].code

    def _task_options(self) -> tuple[float, float]:
        learned = self._task == "multilabel" and self.label_threshold is None
        return 0.0, 1.0 if learned else 0.0

    def _label_task(self, n_classes: int, cost) -> str:
        """The task for 1-D labels with ``n_classes`` classes."""
        if cost is not None:
            return "cost_max_loss" if self.cost_update == "max_loss" else "cost_prediction"
        if n_classes <= 2:
            return "binary"
        return "multiclass" if self.multiclass == "joint" else "ovr"

    def _task_after(self, known) -> str:
        """The task once the 1-D labels ``known`` (all classes so far) have been seen."""
        if self._task == "binary":
            return self._label_task(len(known), None)
        return self._task

    def _n_rows(self, task: str, n_classes: int) -> int:
        if task == "binary":
            return 1
        if task == "multilabel" and self.label_threshold is None:
            return n_classes + 1  # the learned threshold is a virtual label
        return n_classes

    def _start(self, n_features: int, task: str, classes) -> None:
        """A fresh model for ``classes`` (sorted) and ``task``."""
        self.task_ = task
        self.classes_ = classes
        self._allocate(n_features, self._n_rows(task, len(classes)))

    def _grow_classes(self, classes, task) -> None:
        """Make room for the labels of ``classes`` not seen yet: a new prototype row (and
        covariance block) per new class, inserted in sorted position (``grown_rows``)."""
        old = self.classes_
        if len(classes) == len(old):
            return
        if self._task == "binary" and task == "binary":
            if one_class_turns_negative(old, classes):
                self.weights_ *= -1.0
                self.average_sums_ *= -1.0
            self.classes_ = classes
            return
        # the joint update moves the difference of two rows: a binary w becomes (−w/2, w/2);
        # one-vs-rest scores each row alone: (−w, w)
        split = 1.0 if task == "ovr" else 0.5
        self.weights_ = grown_rows(self.weights_, old, classes, 0.0, split)
        if self.average_sums_.size:
            self.average_sums_ = grown_rows(self.average_sums_, old, classes, 0.0, split)
        a = self._prior_variance()
        if self.variances_.size:
            self.variances_ = grown_rows(self.variances_, old, classes, a)
        if self.precision_cholesky_.size:
            D = self.weights_.shape[1]
            self.precision_cholesky_ = grown_rows(
                self.precision_cholesky_, old, classes, np.eye(D) / np.sqrt(a)
            )
        self.classes_ = classes
        self.task_ = task
        self._configure()

    def _encode(self, y):
        """Labels as the engine reads them: ±1 (the last class is +1) for binary models,
        the class index otherwise."""
        task = self._task
        if task == "multilabel":
            return y
        if task != "binary":
            return np.searchsorted(self.classes_, y).astype(np.float64)
        if len(self.classes_) == 1:
            return np.ones(len(y))
        if (
            type(y) is np.ndarray
            and y.dtype == np.float64
            and y.flags.c_contiguous
            and y.flags.writeable
            and self.classes_[0] == -1.0
            and self.classes_[1] == 1.0
        ):
            # Already the ±1 labels the engine reads (it never writes y): no pass, no copy.
            return y
        return np.where(y == self.classes_[1], 1.0, -1.0)


class NotLearnedWarning(RuntimeWarning):
    """Rows of finite input were not learned (``warn_not_learned``); ``count`` says how many.

    A RuntimeWarning of its own so that a caller can add the counts of many calls up (the
    command line reports one total: Python shows a repeated warning text only once)."""

    def __init__(self, count: int) -> None:
        super().__init__(
            f"{count} row(s) were not learned: their confidence (‖x‖² or xᵀΣx) or their step "
            "overflows float64 (values too large: scale the features; or, for SGD, a "
            "diverging step size: lower eta0)"
        )
        self.count = count


def warn_not_learned(count: int) -> None:
    """Warn that ``count`` rows of finite input were not learned: their confidence or step
    came out infinite or NaN, which only values too large for float64 produce (a ‖x‖² or
    xᵀΣx that overflows) or a gradient rule whose step size makes the weights diverge. The
    loops never apply such a step (``representations._pass``)."""
    if count:
        warnings.warn(NotLearnedWarning(int(count)), stacklevel=4)


def one_class_turns_negative(old, classes) -> bool:
    """Whether a one-class model, which learned its label ``old[0]`` as +1, must negate its
    means as the binary model of ``classes``: its label is now the negative class when it
    sorts first (the last class is +1). Negating is exact: every rule is odd in (y, μ)."""
    return len(old) == 1 and classes[0] == old[0]


def grown_rows(rows, old, classes, fill, split=None):
    """The parameter rows of a model whose sorted label set grows from ``old`` to
    ``classes``, one row per class, the old ones in their sorted positions and ``fill`` for
    the new ones. A binary model (one row for two classes, the last class +1) first becomes
    the prototypes ``(−split·w, split·w)``, or two copies of its row with ``split=None``
    (covariances); a one-class model's row becomes its class's prototype.

    (k, D) rows come back feature-major (Fortran order), as ``_allocate`` makes them."""
    if rows.shape[0] == 1 and len(old) == 2:
        pair = (-split * rows, split * rows) if split is not None else (rows, rows)
        rows = np.concatenate(pair)
    out = np.empty((len(classes), *rows.shape[1:]), order="F" if rows.ndim == 2 else "C")
    out[...] = fill
    out[np.searchsorted(classes, old)] = rows
    return out
