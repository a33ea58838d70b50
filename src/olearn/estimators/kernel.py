"""Kernel online learners: kernel Perceptron and PA, NORMA, kernel Pegasos, Budgeted SGD.

The model is a kernel expansion ``f_r(x) = Σ_i A[i, r]·k(x_i, x) + b_r`` over stored support
vectors (``olearn.kernels``); an optional budget B bounds their number by removal, projection
or merging (Wang, Crammer, Vucetic, JMLR 2012). Binary models keep one coefficient per support
vector (the last class is +1, as in the linear models); multiclass models one per class, with
the multi-prototype single-constraint update between the true label and the best wrong label.
"""

from __future__ import annotations

import math
import threading
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from olearn._layout import OPT_BIAS, options
from olearn.estimators import _events
from olearn.estimators._counters import OnlineCountersMixin
from olearn.estimators._declarations import PA_VARIANTS
from olearn.estimators._river import river_estimator
from olearn.estimators._state import grown_rows, one_class_turns_negative
from olearn.estimators._targets import (
    check_announced,
    check_label_kind,
    check_regression_targets,
    check_within_classes,
    holds_only_known_labels,
)
from olearn.estimators._validation import (
    Rows,
    TracksParameters,
    WritableOnLoad,
    as_rows,
    check_lengths,
    check_X,
    engine_arrays,
    input_attributes_restored_on_error,
    raise_rows_problem,
    warn_if_sorted_by_class,
)
from olearn.estimators._weights import check_sample_weight, labelled_row_weights, learned_labels
from olearn.kernels import budget as bm
from olearn.kernels import expansion as ex
from olearn.kernels import loop, merge
from olearn.kernels.functions import KERNELS, POLY, RBF, USER
from olearn.representations import fastpath
from olearn.rules import rule_code
from olearn.tasks import TASKS

#: An unbudgeted expansion beyond this many support vectors warns once (``budget=None``):
#: every prediction and every round then costs 10,000 kernel evaluations.
LARGE_EXPANSION = 10_000

#: Ridge added to the kernel matrix kept by projection, relative to the mean k(x, x) of the
#: first batch: K + δI stays invertible when support vectors are linearly dependent.
PROJECTION_JITTER = 1e-6

_STATE = loop.STATE


def _positive(closed="neither"):
    return [Interval(Real, 0, None, closed=closed)]


class _KernelModel(
    _events.EventInput, WritableOnLoad, TracksParameters, OnlineCountersMixin, BaseEstimator
):
    """Shared machinery: parameters, state, the loop call, fitted attributes. The parameters
    below are common to every kernel model (keyword-only).

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        ``x·z``, ``(γ x·z + coef0)^degree``, ``exp(−γ‖x − z‖²)``, or a numba-compilable
        function ``k(x, z)`` of two dense 1-D float64 rows (compiled on first use; it cannot be
        cached on disk, so each process compiles the loop once for it).
    gamma : {"scale", "auto"} or float > 0, default="scale"
        As in scikit-learn's SVC: "scale" is ``1 / (n_features · X.var())`` and "auto"
        ``1 / n_features``, both computed from the first batch (``gamma_``).
    degree : int ≥ 1, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial kernel.
    fit_intercept : bool, default=True (False for kernel Pegasos and Budgeted SGD)
        Learn an intercept as the coefficient of a constant feature of value 1 — exactly as the
        linear models do: it adds 1 to k(x, x) in the step sizes. It is never decayed by
        gradient rules (the SGD update of seed 004 does not regularise b) nor removed by budget
        maintenance. Under Pegasos' steps η_t = 1/(λt) the undecayed intercept takes the
        largest steps of all and costs accuracy (MNIST 3 vs 5, λ = 1/n, mean of 5 shuffles:
        0.918 with it, 0.955 without; Budgeted SGD at B = 50: 0.923 and 0.953), so those two
        models leave it out by default (docs/kernels.md).
    budget : int ≥ 1 or None, default=None
        At most this many support vectors; None lets the set grow with every update. Each
        prediction then costs one kernel evaluation per support vector: a model that passes
        ``LARGE_EXPANSION`` = 10,000 of them warns once.
    maintenance : {"remove", "project", "merge"}, default="remove"
        How an over-budget expansion is reduced (``olearn.kernels.budget``); "merge" needs
        the RBF kernel.
    max_iter : int ≥ 1, default=1
        Passes over the data in ``fit``.
    shuffle : bool, default=False
        Visit the rows of each pass in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.

    Attributes
    ----------
    support_vectors_ : ndarray or CSR matrix of shape (n_support_, n_features)
        The stored support vectors (a CSR matrix for a model trained on sparse input).
    dual_coef_ : ndarray of shape (k, n_support_)
        Their coefficients: one row for binary models and regressors, one per class for
        multiclass models.
    intercept_ : ndarray of shape (k,)
        The intercepts (0 without ``fit_intercept``).
    n_support_ : int
        Number of stored support vectors (a total, not per class as in SVC).
    gamma_ : float
        The kernel's γ in use (``gamma``, or its "scale" / "auto" value from the first batch).
    n_features_in_ : int
        Number of features of the training data.
    feature_names_in_ : ndarray of str
        The column names of a DataFrame the model was fitted on (only then).
    n_iter_ : int
        Passes over the data of the last ``fit`` (1 after ``partial_fit``).
    n_rounds_, n_mistakes_, n_updates_ : int
        Examples processed over every pass, online mistakes among them (progressive
        validation), and rounds that changed the model.
    stats_ : ndarray of float64 of shape (6,)
        The compiled loop's counters: rounds, mistakes, updates, summed loss, summed squared
        loss, and budget maintenance steps (``stats_[5]``).
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS)), callable],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "budget": [None, Interval(Integral, 1, None, closed="left")],
        "maintenance": [StrOptions({"remove", "project", "merge"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }
    _task = "binary"
    #: Rebuilt by ``_configure`` on load, never saved.
    _derived_attributes = (
        "_configured_parameters",
        "_cfg",
        "_hp",
        "_kp",
        "_opts",
        "_warned_large_expansion",
    )

    def __init__(
        self,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.fit_intercept = fit_intercept
        self.budget = budget
        self.maintenance = maintenance
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    # -- what a subclass declares ----------------------------------------------------------

    def _rule_name(self) -> str:
        raise NotImplementedError

    def _rule_hyperparameters(self) -> list[float]:
        return []

    def _budget_and_maintenance(self) -> tuple[int, int]:
        """(budget or 0, maintenance code)."""
        return (self.budget or 0), bm.MAINTENANCE[self.maintenance]

    def _epsilon(self) -> float:
        return 0.0

    # -- validation -------------------------------------------------------------------------

    def _check_params(self) -> None:
        self._validate_params()
        _, maintenance = self._budget_and_maintenance()
        if maintenance == bm.MERGE and self.kernel != "rbf":
            raise ValueError(
                f"maintenance='merge' needs kernel='rbf' (merging two support vectors into one "
                f"is defined for the Gaussian kernel); got kernel={self.kernel!r}."
            )

    def _kernel_function(self):
        """The compiled user kernel, or None for a built-in one."""
        if not callable(self.kernel):
            return None
        import numba
        from numba.core.registry import CPUDispatcher

        if isinstance(self.kernel, CPUDispatcher):
            return self.kernel
        # Compile a plain function once per estimator (a new dispatcher would recompile).
        compiled = self.__dict__.get("_compiled_kernel")
        if compiled is None or compiled.py_func is not self.kernel:
            compiled = numba.njit(self.kernel)
            self._compiled_kernel = compiled
        return compiled

    def _prepare_X(self, X, *, reset: bool):
        X = check_X(self, X, reset=reset)
        if not reset and hasattr(self, "_SV"):
            if self._sparse_storage and not sp.issparse(X):
                X = sp.csr_matrix(X)
            elif not self._sparse_storage and sp.issparse(X):
                X = np.ascontiguousarray(X.toarray())
        elif reset and callable(self.kernel) and sp.issparse(X):
            X = np.ascontiguousarray(X.toarray())  # user kernels see dense rows
        return X

    # -- state ------------------------------------------------------------------------------

    def _resolve_gamma(self, X) -> float:
        if not isinstance(self.gamma, str):
            return float(self.gamma)
        d = X.shape[1]
        if self.gamma == "auto":
            return 1.0 / d
        if sp.issparse(X):
            mean = X.mean()
            var = X.multiply(X).mean() - mean * mean
        else:
            var = X.var()
        return 1.0 / (d * var) if var > 0 else 1.0

    def _allocate(self, X, n_rows: int) -> None:
        n, d = X.shape
        budget, maintenance = self._budget_and_maintenance()
        self._sparse_storage = bool(sp.issparse(X))
        self.gamma_ = self._resolve_gamma(X)
        cap = budget + 1 if budget else max(16, min(n, 1024))
        self._SV = np.zeros((0 if self._sparse_storage else cap, d))
        if self._sparse_storage:
            avg = max(1, int(np.ceil(X.nnz / max(n, 1))))
            pool = max(64, 4 * cap * avg)
        else:
            pool = 0
        self._pool_val = np.zeros(pool)
        self._pool_idx = np.zeros(pool, dtype=np.int64)
        self._ptr = np.zeros(cap if self._sparse_storage else 0, dtype=np.int64)
        self._length = np.zeros(cap if self._sparse_storage else 0, dtype=np.int64)
        self._A = np.zeros((cap, n_rows))
        self._b = np.zeros(n_rows)
        self._sq = np.zeros(cap)
        self._selfk = np.zeros(cap)
        self._born = np.zeros(cap)
        keeps_matrix = budget and maintenance in (bm.PROJECT, bm.MERGE)
        self._G = np.zeros((cap, cap) if keeps_matrix else (0, 0))
        self._counts = np.zeros(ex.N_COUNTS, dtype=np.int64)
        self.stats_ = np.zeros(loop.N_STATS)
        self._jitter = PROJECTION_JITTER * self._mean_self_kernel(X)
        self._configure()

    def _begin(self, X, classes=None) -> None:
        """A fresh expansion for rows like ``X``, a sample of the data: its storage, sizes
        and ``gamma_`` decided on X as ``partial_fit`` decides them on its first batch, for
        the sorted label set ``classes`` (None for a regressor). For callers whose first
        batch is no sample: ``olearn train`` learns 1, 2, 4, … rows first (its progress
        lines), ``olearn.distributed`` starts the workers from one model."""
        self._check_params()
        X = self._prepare_X(X, reset=True)
        if self._task == "regression":
            self._allocate(X, 1)
        else:
            if classes is None or len(classes) == 0:
                raise ValueError("no labels: the data holds no examples")
            self.classes_ = np.asarray(classes)
            self._allocate(X, 1 if len(classes) <= 2 else len(classes))
        self.n_iter_ = 0

    def _mean_self_kernel(self, X) -> float:
        if callable(self.kernel) or self.kernel == "rbf":
            return 1.0
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else (X * X).sum(1)
        with np.errstate(all="ignore"):  # overflow is reported by the loop, per row
            if self.kernel == "poly":
                sq = (self.gamma_ * sq + self.coef0) ** self.degree
            value = float(np.mean(np.abs(sq)))
        return value if np.isfinite(value) and value > 0 else 1.0

    def _configure(self) -> None:
        budget, maintenance = self._budget_and_maintenance()
        kernel = USER if callable(self.kernel) else KERNELS[self.kernel]
        task = self._task if self._task != "binary" or self._A.shape[1] == 1 else "multiclass"
        self._cfg = np.array(
            [rule_code(self._rule_name()), kernel, TASKS[task].code, maintenance, budget],
            dtype=np.int64,
        )
        self._hp = np.array(self._rule_hyperparameters(), dtype=np.float64)
        self._kp = np.array([self.gamma_, float(self.degree), float(self.coef0)])
        bias = 1.0 if self.fit_intercept else 0.0
        self._opts = options(bias, epsilon=self._epsilon(), jitter=self._jitter)
        self._configured_parameters = True

    def _refresh_parameters(self) -> None:
        """Every entry point of a fitted model follows ``set_params``: a changed parameter is
        validated before anything else happens and repacked for the loop (a numeric
        ``gamma`` replaces ``gamma_``). The kernel, the budget and its maintenance shaped the
        stored expansion, so they cannot change after fitting."""
        if "_configured_parameters" in self.__dict__ or "_A" not in self.__dict__:
            return
        self._check_params()
        before = (self._cfg, self._hp, self._kp, self._opts, self.gamma_)
        if not isinstance(self.gamma, str):
            self.gamma_ = float(self.gamma)
        self._configure()
        structure = [1, 3, 4]  # kernel, maintenance, budget (the layout of _cfg above)
        if (self._cfg[structure] != before[0][structure]).any():
            self._cfg, self._hp, self._kp, self._opts, self.gamma_ = before
            del self._configured_parameters
            raise ValueError(
                "kernel, budget, maintenance and truncation cannot change after fitting (the "
                "stored expansion was built for them); call fit to start over."
            )
        if (self._kp != before[2]).any():
            self._kernel_changed()

    def _kernel_changed(self) -> None:
        """After a new ``gamma``, ``degree`` or ``coef0``: projection keeps (K + δI)⁻¹ over
        the stored vectors, computed anew for the kernel they now define (merging keeps
        their inner products, which no kernel parameter changes)."""
        if self._cfg[3] != bm.PROJECT or self._cfg[1] not in (RBF, POLY):
            return
        state = tuple(getattr(self, name) for name in _STATE)
        rows, _, sq, _, _ = merge.vectors(state, self._sparse_storage)
        n = len(rows)
        if n:
            self._G[:n, :n] = merge._gram(rows, sq, self._sparse_storage, self.n_features_in_,
                                          bm.PROJECT, RBF if self._cfg[1] == RBF else POLY,
                                          self._kp, self._jitter)  # fmt: skip

    def __setstate__(self, state):
        super().__setstate__(state)
        if "_A" in state:
            self._configure()

    def _snapshot(self) -> dict:
        return {name: getattr(self, name) for name in _STATE if hasattr(self, name)}

    def _grow(self) -> None:
        """Double the slots (unbudgeted models) or the sparse pool; amortised O(1) per row."""
        counts = self._counts
        cap = self._A.shape[0]
        if counts[ex.N_SV] >= cap:
            new = 2 * cap
            if not self._sparse_storage:
                self._SV = _grown(self._SV, new)
            else:
                self._ptr = _grown(self._ptr, new)
                self._length = _grown(self._length, new)
            self._A = _grown(self._A, new)
            self._sq = _grown(self._sq, new)
            self._selfk = _grown(self._selfk, new)
            self._born = _grown(self._born, new)
        if self._sparse_storage:
            # Room for the largest row and two merged vectors, at least double.
            need = 3 * max(int(counts[ex.MAX_LENGTH]), self._SV.shape[1])
            size = max(2 * self._pool_val.shape[0], int(counts[ex.POOL_USED]) + need)
            self._pool_val = _grown(self._pool_val, size)
            self._pool_idx = _grown(self._pool_idx, size)

    # -- the loop ---------------------------------------------------------------------------

    def _run(self, X, y_encoded, rng, sample_weight=None) -> None:
        n = X.shape[0]
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        kfun = self._kernel_function()
        data, indptr, indices = _loop_arrays(X)
        scatter = _thread_scatter(self._SV.shape[1] if indices is not None else 0)
        t = 0
        while True:
            state = tuple(getattr(self, name) for name in _STATE)
            config = (self._cfg, self._hp, self._kp, self._opts)
            if kfun is not None:
                t, status = _call_user_kernel(
                    loop.run_user, X, y_encoded, order, t, state, config, kfun, sample_weight
                )
            else:
                t, status = loop.run(data, indptr, indices, y_encoded, order, t, state, config,
                                     sample_weight, scatter)  # fmt: skip
            if status == loop.DONE:
                self._warn_if_large()
                return
            if status == loop.NEED_ROOM:
                self._grow()
                self._warn_if_large()
                continue
            raise ValueError(
                f"the kernel returned a non-finite value (NaN or infinity) on row {order[t]}; "
                f"the model is unchanged. {self._not_finite_advice()}"
            )

    def _not_finite_advice(self) -> str:
        """What to do about a non-finite kernel value, in training and in prediction."""
        if callable(self.kernel):
            return "Check the kernel function on these rows."
        if self.kernel == "poly":
            return (
                "(gamma·x·z + coef0)**degree overflows: scale the features down, or lower "
                "degree, gamma or coef0."
            )
        return "Scale the features down."

    def _warn_if_large(self) -> None:
        """Warn once per model when an unbudgeted expansion passes ``LARGE_EXPANSION``."""
        if (
            self._counts[ex.N_SV] > LARGE_EXPANSION
            and self._budget_and_maintenance()[0] == 0
            and not self.__dict__.get("_warned_large_expansion")
        ):
            self._warned_large_expansion = True
            warnings.warn(
                f"{type(self).__name__} has {int(self._counts[ex.N_SV]):,} support vectors and "
                f"no budget (budget=None): every prediction and every round costs one kernel "
                f"evaluation per support vector, and the set keeps growing. Set budget= (e.g. "
                f"BudgetedSGDClassifier, or budget=500 with maintenance='merge').",
                LargeExpansionWarning,
                stacklevel=4,
            )

    def _row_weights(self, sample_weight, y, *, partial: bool):
        """The rows' importance weights (``olearn.estimators._weights``): None when all 1.
        Raises before any state changes."""
        return check_sample_weight(sample_weight, len(y), fit=not partial)

    def _fit(self, X, y, *, first: bool, classes=None, weights=None, known=False, passes=1):
        """Validate, (re)allocate when ``first``, run ``passes`` passes (``fit``'s
        ``max_iter``; one for ``partial_fit`` and ``learn_one``, even on an unfitted model)
        with the checked row ``weights``; restore the previous state on error. ``known``: y
        holds only labels the model has."""
        saved = self._snapshot()
        if not first:
            # One row fails before anything of its round is applied (``loop.run``'s
            # NOT_FINITE), and growing makes new arrays: only what ``_prepare_targets``
            # changes in place is copied. Longer calls copy the state (earlier rows learned).
            copied = saved if X.shape[0] > 1 else {name: saved[name] for name in ("_A", "_b")}
            saved.update({name: value.copy() for name, value in copied.items()})
        rest = ("classes_", "gamma_", "_sparse_storage", "_jitter", "n_iter_")
        saved_rest = {name: getattr(self, name) for name in rest if hasattr(self, name)}
        absent = [name for name in (*_STATE, *rest) if not hasattr(self, name)]
        if classes is None and not known and self._task != "regression":
            # a row of weight 0 is as if absent: its label alone grows no class
            y = learned_labels(y, weights, None if first else self.classes_)[1]
        try:
            y_encoded = self._prepare_targets(y, first=first, classes=classes, X=X, known=known)
            rng = check_random_state(self.random_state)
            for _ in range(passes):
                self._run(X, y_encoded, rng, weights)
            self.n_iter_ = passes
        except Exception:
            for name, value in {**saved, **saved_rest}.items():
                setattr(self, name, value)
            for name in absent:
                if hasattr(self, name):
                    delattr(self, name)
            if hasattr(self, "_A"):
                self._configure()
            raise
        return self

    def fit(self, X, y, sample_weight=None):
        """Learn from scratch over ``max_iter`` passes of (X, y), counting online mistakes.

        ``sample_weight`` (array-like of shape (n_samples,) or a float, optional): importance
        weights ≥ 0 — each rule's weighted form (``olearn.rules``: Perceptron, NORMA,
        Pegasos and Budgeted SGD scale the new coefficient by h, PA-I/PA-II scale C by h);
        a weight 0 skips the row (not stored, not counted). A classifier multiplies it by
        ``class_weight``'s weight of the row's class."""
        self._check_params()
        # the reset records X's width before y, the weights and the loop are checked; _fit's
        # snapshot covers the expansion only
        with input_attributes_restored_on_error(self):
            X = self._prepare_X(X, reset=True)
            y = self._check_y(y)
            check_lengths(X, y)
            weights = self._row_weights(sample_weight, y, partial=False)
            if self._task != "regression":
                warn_if_sorted_by_class(self, y)
            return self._fit(X, y, first=True, weights=weights, passes=self.max_iter)

    # -- River-style events -------------------------------------------------------------------

    def learn_one(
        self, x: dict | tuple, y, *, n_features: int | None = None, sample_weight=None
    ) -> None:
        """One online round on a single example, as River's models take it: ``partial_fit``
        of the event as a one-row matrix (the same support vectors and coefficients, bit for
        bit).

        Parameters
        ----------
        x : dict or tuple of two arrays
            The event: ``{feature: value}`` or ``(indices, values)``, read as the linear
            models' ``learn_one`` reads it. A feature is an integer index (``int`` or a
            NumPy integer) or a name (``str``), hashed into ``[0, n_features_in_)`` by
            MurmurHash3 as the VW reader hashes the features of its unnamed namespace
            (names that collide add up); a model fitted on a DataFrame reads names as its
            columns.
        y : label or float
            The label (a regressor's target), handled as by :meth:`partial_fit`: a new label
            grows a classifier's classes.
        n_features : int or None, default=None
            The width of an unfitted model, which starts here: ``2**18`` (Vowpal Wabbit's
            ``-b 18``) when None, with sparse support vectors; fixed from then on (a fitted
            model accepts only its own width here).
        sample_weight : float or None, default=None
            The event's importance weight (≥ 0, as in :meth:`fit`); 0 skips the event:
            checked, not learned (an unfitted model stays unfitted).

        Examples
        --------
        >>> from olearn import KernelPAClassifier
        >>> model = KernelPAClassifier(gamma=0.5)
        >>> stream = [({"cheap": 1.0, "offer": 2.0}, "spam"), ({"agenda": 1.0}, "ham")] * 3
        >>> for x, y in stream:
        ...     model.learn_one(x, y)
        >>> print(model.predict_one({"offer": 1.0, "cheap": 1.0}), model.n_features_in_)
        spam 262144
        """
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=True)
        weight = None
        if sample_weight is not None:
            weight = check_sample_weight(np.asarray(sample_weight, float).reshape(-1), 1)
        skipped = weight is not None and weight[0] == 0.0
        if "_counts" not in self.__dict__:
            row = _events.event_matrix(x, self._first_event_width(n_features))
            if not skipped:
                self.partial_fit(row, _event_label(y), sample_weight=weight)
            return
        self._check_fitted_width(n_features)
        self._refresh_parameters()
        X = self._event_rows(x, scored=False)
        if not skipped:
            self._partial_fit_rows(X, _event_label(y), weight, first=False)

    def _first_event_width(self, n_features):
        """``n_features`` of an unfitted model's first event: a user kernel reads dense
        rows, which the default width makes 2 MiB a support vector."""
        if n_features is None and callable(self.kernel):
            raise ValueError(
                f"{type(self).__name__} with a user kernel stores dense support vectors: "
                f"give its first learn_one n_features= (the default width "
                f"{_events.EVENT_WIDTH} would take "
                f"{8 * _events.EVENT_WIDTH / 2**20:.0f} MiB per support vector)."
            )
        return _events.check_event_width(self, n_features)

    def _event_rows(self, x, *, scored: bool):
        """One event as a one-row X in the stored form: a dense row, or a canonical CSR row
        (``Rows``, which the loop and ``_products`` read). Scored (``scored``), features
        beyond the width are dropped: never seen in training."""
        width = self.n_features_in_
        idx, val = _events.sorted_event(x, width, unseen=scored)
        if not self._sparse_storage:
            row = np.zeros((1, width))
            row[0, idx] = val
            return row
        indptr = np.array([0, idx.shape[0]], dtype=np.int64)
        return Rows(val, indptr, idx, (1, width), True, fastpath.CANONICAL)

    def _event_scores(self, x):
        """The scores of one event: ``_scores`` of the event as a one-row matrix."""
        self._refresh_parameters()
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=False)
        return self._prepared_scores(self._event_rows(x, scored=True))

    # -- fitted attributes --------------------------------------------------------------------

    @property
    def n_support_(self) -> int:
        """Number of stored support vectors (a total, not per class as in SVC)."""
        check_is_fitted(self)
        return int(self._counts[ex.N_SV])

    @property
    def support_vectors_(self):
        """The support vectors, (n_support_, n_features): an ndarray, or a CSR matrix for a
        model trained on sparse input."""
        check_is_fitted(self)
        return self._stored_vectors().copy()

    def _stored_vectors(self):
        """The support vectors as they are stored: a view of the dense slots, or a CSR
        matrix gathered from the sparse pool (each vector's run of it, in slot order)."""
        n = int(self._counts[ex.N_SV])
        if not self._sparse_storage:
            return self._SV[:n]
        lengths = self._length[:n]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # pool position of every stored value: its vector's start plus its rank within it
        positions = np.repeat(self._ptr[:n] - indptr[:-1], lengths) + np.arange(indptr[-1])
        return sp.csr_matrix(
            (self._pool_val[positions], self._pool_idx[positions], indptr),
            shape=(n, self._SV.shape[1]),
        )

    @property
    def dual_coef_(self):
        """Coefficients, (n_rows, n_support_): one row for binary models and regressors, one
        per class for multiclass models."""
        check_is_fitted(self)
        return self._A[: self.n_support_].T.copy()

    @property
    def intercept_(self):
        check_is_fitted(self)
        return self._b * self._opts[OPT_BIAS]

    def _scores(self, X):
        if "_counts" not in self.__dict__:  # (check_is_fitted costs ~5 µs a call)
            check_is_fitted(self)
        self._refresh_parameters()
        if sp.issparse(X) and X.shape[1] > self.n_features_in_:
            X = self._seen_columns(X)
        elif sp.issparse(X) and X.shape[1] < self.n_features_in_:
            # rows that lack the last columns, as the linear models read them: zeros there
            X = X.tocsr()
            X = sp.csr_matrix((X.data, X.indices, X.indptr), (X.shape[0], self.n_features_in_))
        return self._prepared_scores(self._prepare_X(X, reset=False))

    def _seen_columns(self, X):
        """Sparse rows wider than the training width without the columns beyond it:
        features never seen in training, ignored — checked, then dropped — as the linear
        models' scores and every ``predict_one`` ignore them."""
        rows = as_rows(self, X, reset=False, learn=False)  # (CSR arrays, any width)
        verdict, row = fastpath.csr_scan(rows.indptr, rows.indices, rows.data, rows.shape[1],
                                         True)  # fmt: skip
        if verdict < 0:
            raise_rows_problem(verdict, row, rows.shape[1])
        seen = rows.indices < self.n_features_in_
        indptr = np.concatenate(([0], np.cumsum(seen)))[rows.indptr]
        return sp.csr_matrix(
            (rows.data[seen], rows.indices[seen], indptr),
            shape=(rows.shape[0], self.n_features_in_),
        )

    def _prepared_scores(self, X):
        """Scores of rows in the stored form (``_prepare_X``'s, or one event's)."""
        out = np.empty((X.shape[0], self._A.shape[1]))
        n = int(self._counts[ex.N_SV])
        bias = self._opts[OPT_BIAS]
        kfun = self._kernel_function()
        if kfun is not None:
            state = tuple(getattr(self, name) for name in _STATE)
            _call_user_kernel(loop.decision_user, X, state, n, self._kp, bias, out, kfun)
        else:
            self._builtin_scores(X, n, bias, out)
        # Training refuses a non-finite kernel value (``loop``'s NOT_FINITE); scores are
        # checked as one sum (≈ 0.7 µs), skipped for RBF, whose values lie in [0, 1].
        if (kfun is not None or self.kernel != "rbf") and not math.isfinite(out.sum()):
            rows = np.flatnonzero(~np.isfinite(out).all(axis=1))
            if rows.size:  # (else only the sum overflowed: every score is finite)
                raise ValueError(
                    f"the kernel returned a non-finite value (NaN or infinity) on row "
                    f"{rows[0]}: its scores are {out[rows[0]].tolist()}. "
                    f"{self._not_finite_advice()}"
                )
        return out

    def _builtin_scores(self, X, n, bias, out, block=1024):
        """Scores with a built-in kernel, by blocks of rows: the inner products (BLAS, or
        ``_pool_products`` for a few sparse rows), then the same kernel formulas as the
        compiled loop (``kernels.functions``)."""
        A = self._A[:n]
        gamma, degree, coef0 = self._kp
        kind = self.kernel
        for start, P, sq_rows in self._products(X, n, block, squares=kind == "rbf"):
            if kind == "rbf":
                d2 = sq_rows[:, None] + self._sq[:n][None, :] - 2.0 * P
                K = np.exp(-gamma * np.maximum(d2, 0.0))
            elif kind == "poly":
                K = (gamma * P + coef0) ** degree
            else:
                K = P
            out[start : start + P.shape[0]] = K @ A + self._b * bias

    def _products(self, X, n, block: int, *, squares: bool):
        """``(start, P, ‖x‖²)`` for each block of X's rows: P their inner products with the
        first n stored vectors, ‖x‖² their squared norms (None unless ``squares``). A few
        sparse rows — a stream's, an event — are read against the sparse pool in place
        (``expansion.sparse_products``): scipy's product would first transpose the stored
        vectors, a cost of the width (≈ 0.4 ms a call at 2¹⁸ features)."""
        if self._sparse_storage and X.shape[0] <= _FEW_SPARSE_ROWS:
            X = X.tocsr() if sp.issparse(X) else X  # (or an event's ``Rows``)
            P = np.empty((X.shape[0], n))
            ex.sparse_products(X.data, X.indptr, X.indices, self._SV, self._pool_val,
                               self._pool_idx, self._ptr, self._length, n,
                               _thread_scatter(X.shape[1]), P)  # fmt: skip
            yield 0, P, _row_squares(X) if squares else None
            return
        SV = self._stored_vectors()
        for start in range(0, X.shape[0], block):
            rows = X[start : start + block]
            P = rows @ SV.T
            P = P.toarray() if sp.issparse(P) else np.asarray(P)
            sq_rows = None
            if squares and sp.issparse(rows):
                sq_rows = np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
            elif squares:
                sq_rows = np.einsum("ij,ij->i", rows, rows)
            yield start, P, sq_rows

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LargeExpansionWarning(UserWarning):
    """An unbudgeted kernel model passed ``LARGE_EXPANSION`` support vectors."""


def _call_user_kernel(function, *args):
    """Call a loop compiled around a user kernel; numba's typing errors become ValueError."""
    from numba.core.errors import TypingError

    try:
        return function(*args)
    except TypingError as error:
        raise ValueError(
            "kernel must be a numba-compilable function k(x, z) of two 1-D float64 arrays "
            f"returning a float; numba says: {str(error).splitlines()[0]}"
        ) from error


def _event_label(y):
    """The label (or target) of one event as ``partial_fit``'s y of one row."""
    if y is None:
        raise ValueError("y is None, not a label.")
    label = np.asarray(y)
    if label.size != 1:
        raise ValueError(f"y must be one label, got {y!r}.")
    return label.reshape(1)


#: Sparse rows up to this many are scored against the sparse pool in place (``_products``).
_FEW_SPARSE_ROWS = 32
#: Each thread's scatter buffer for sparse rows (``expansion.dots``: the loop's rounds and
#: ``sparse_products``; each leaves it zero): zeros as wide as the widest rows the thread
#: has met, kept from call to call, since zeroing one per call costs O(width) — 2 MiB at the
#: event API's default 2**18 features, more than a one-row round. Per thread, as models may
#: score in several at once; not an attribute, so copies and model files leave it out.
_SCATTER = threading.local()


def _thread_scatter(width: int) -> np.ndarray:
    buffer = getattr(_SCATTER, "buffer", None)
    if buffer is None or buffer.shape[0] < width:
        buffer = _SCATTER.buffer = np.zeros(width)  # (pages touched only where rows have values)
    return buffer


def _row_squares(X) -> np.ndarray:
    """‖x_i‖² of a few CSR rows (a CSR matrix or ``Rows``), summed as scipy's
    ``rows.multiply(rows).sum(axis=1)`` sums them — ``np.add.reduceat`` over each non-empty
    row's squares — without forming the product matrix (~70 µs), so that both scoring paths
    agree bit for bit. A square that is 0 (scipy drops it from the product, which changes
    the grouping of the sum) sends the rows to scipy's expression itself."""
    nnz = int(X.indptr[-1])
    squares = X.data[:nnz] * X.data[:nnz]
    if not squares.all():
        rows = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
        return np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
    out = np.zeros(X.shape[0])
    filled = np.flatnonzero(np.diff(X.indptr))
    if filled.shape[0]:
        out[filled] = np.add.reduceat(squares, X.indptr[filled])
    return out


def _loop_arrays(X):
    """``engine_arrays`` with int64 CSR indices: one compiled signature for every input."""
    data, indptr, indices = engine_arrays(X)
    if indices is not None:
        indptr = indptr.astype(np.int64, copy=False)
        indices = indices.astype(np.int64, copy=False)
    return data, indptr, indices


def _grown(array, size):
    shape = (size, *array.shape[1:])
    out = np.zeros(shape, dtype=array.dtype)
    out[: array.shape[0]] = array
    return out


@river_estimator("Classifier")
class _KernelClassifier(ClassifierMixin, _KernelModel):
    """Labels: binary (one coefficient row, the last class is +1) or multiclass (one per class);
    the label set may grow in ``partial_fit``.

    Parameters
    ----------
    class_weight : dict, "balanced" or None, default=None
        Multiplies each example's importance weight by the weight of its class, as in
        scikit-learn and the linear classifiers: ``{label: weight}`` (absent labels weigh 1)
        or "balanced", ``n_samples / (n_classes · count(label))`` over ``fit``'s labels
        ("balanced" is refused by ``partial_fit``: pass a dict).

    Attributes
    ----------
    classes_ : ndarray
        The labels seen, sorted.
    support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelModel`.
    """

    _parameter_constraints: dict = {
        **_KernelModel._parameter_constraints,
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(
        self,
        *,
        class_weight=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.class_weight = class_weight

    def _row_weights(self, sample_weight, y, *, partial: bool):
        # ``fit``'s classes are y's; ``partial_fit`` weighs by a dict, whatever the classes
        classes = np.unique(y) if self.class_weight is not None else None
        return labelled_row_weights(sample_weight, self.class_weight, classes, y,
                                    partial=partial)  # fmt: skip

    def _check_y(self, y):
        y = column_or_1d(y, warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity.")
        if y.dtype.kind not in "biufUSO":
            raise ValueError(f"y has an unsupported label type {y.dtype}.")
        check_classification_targets(y)
        return y

    def _prepare_targets(self, y, *, first, classes, X, known=False):
        if known and classes is None:
            return self._encode(y)  # nothing to grow
        seen = np.unique(y)
        announced = None if classes is None else np.unique(column_or_1d(classes))
        if announced is not None:
            check_within_classes(seen, announced)
        if first:
            known = seen if announced is None else announced
            self.classes_ = known
            self._allocate(X, 1 if len(known) <= 2 else len(known))
        else:
            if announced is not None:  # new labels add to the model's, as labels met do
                check_announced(self.classes_, announced)
                seen = announced
            self._grow_classes(seen)
        return self._encode(y)

    def _grow_classes(self, seen) -> None:
        """New labels grow the coefficients as the linear models grow their rows
        (``_state.grown_rows``): one column of A (and intercept) per class. Labels of
        another kind than the classes are refused, as by the linear models (NumPy would
        make strings of them all)."""
        old = self.classes_
        check_label_kind(old, seen)
        new = seen[~np.isin(seen, old)]
        if len(new) == 0:
            return
        classes = np.unique(np.concatenate([old, new]))
        if len(classes) <= 2:
            if one_class_turns_negative(old, classes):
                self._A *= -1.0
                self._b *= -1.0
        else:
            self._A = np.ascontiguousarray(grown_rows(self._A.T, old, classes, 0.0, 0.5).T)
            self._b = grown_rows(self._b, old, classes, 0.0, 0.5)
        self.classes_ = classes
        self._configure()

    def _encode(self, y):
        if len(self.classes_) <= 2:
            if len(self.classes_) == 1:
                return np.ones(len(y))
            return np.where(y == self.classes_[1], 1.0, -1.0)
        return np.searchsorted(self.classes_, y).astype(np.float64)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over (X, y), continuing from the current state (``classes`` optional;
        ``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "classes_")
        if first:
            self._check_params()
        else:
            self._refresh_parameters()
        with input_attributes_restored_on_error(self):
            X = self._prepare_X(X, reset=first)
            return self._partial_fit_rows(X, y, sample_weight, first=first, classes=classes)

    def _partial_fit_rows(self, X, y, sample_weight, *, first, classes=None):
        """``partial_fit`` of rows in the stored form (``_prepare_X``'s, or one event's)."""
        # a stream's usual chunk, labels the model has: nothing to check (scikit-learn's
        # target checks cost ~100 µs) or to grow
        known = not first and holds_only_known_labels(self.classes_, y)
        y = y if known else self._check_y(y)
        check_lengths(X, y)
        weights = self._row_weights(sample_weight, y, partial=True)
        return self._fit(X, y, first=first, classes=classes, weights=weights, known=known)

    def decision_function(self, X):
        """Scores of the rows of X: (n,) for binary models (positive means ``classes_[1]``),
        (n, n_classes) for multiclass ones."""
        scores = self._scores(X)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Labels of the rows of X: the class of the highest score (binary models:
        ``classes_[1]`` where the score is positive)."""
        return self._labels(self._scores(X))

    def predict_one(self, x: dict | tuple):
        """Predicted label of one example ``x`` (a dict ``{feature: value}`` or ``(indices,
        values)``, as for :meth:`learn_one`): ``predict`` of the event as a one-row matrix;
        None before the model has seen a label, as in River. A feature beyond the model's
        width was never seen in training: it is ignored, as by :meth:`predict` of sparse
        rows."""
        if "_counts" not in self.__dict__:
            return None
        return self._labels(self._event_scores(x))[0]

    def _labels(self, scores):
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, scores.shape[0])
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


@river_estimator("Regressor")
class _KernelRegressor(RegressorMixin, _KernelModel):
    _task = "regression"

    def _check_y(self, y):
        return check_regression_targets(y)

    def _prepare_targets(self, y, *, first, classes, X, known=False):
        if first:
            self._allocate(X, 1)
        return y

    def partial_fit(self, X, y, sample_weight=None):
        """One pass over (X, y), continuing from the current state (``sample_weight`` as in
        :meth:`fit`)."""
        first = not hasattr(self, "_A")
        if first:
            self._check_params()
        else:
            self._refresh_parameters()
        with input_attributes_restored_on_error(self):
            X = self._prepare_X(X, reset=first)
            return self._partial_fit_rows(X, y, sample_weight, first=first)

    def _partial_fit_rows(self, X, y, sample_weight, *, first, classes=None):
        """``partial_fit`` of rows in the stored form (``_prepare_X``'s, or one event's)."""
        y = self._check_y(y)
        check_lengths(X, y)
        weights = self._row_weights(sample_weight, y, partial=True)
        return self._fit(X, y, first=first, weights=weights)

    def predict(self, X):
        """f(x) for the rows of X, shape (n,)."""
        return self._scores(X)[:, 0]

    def predict_one(self, x: dict | tuple) -> float:
        """f(x) for one example ``x`` (as for :meth:`learn_one`): ``predict`` of the event
        as a one-row matrix; 0.0 before any learning, as in River. Features beyond the width
        (never seen) are ignored."""
        if "_counts" not in self.__dict__:
            return 0.0
        return float(self._event_scores(x)[0, 0])


_COMMON = dict(
    kernel="rbf",
    gamma="scale",
    degree=3,
    coef0=0.0,
    fit_intercept=True,
    budget=None,
    maintenance="remove",
    max_iter=1,
    shuffle=False,
    random_state=None,
)


class KernelPerceptronClassifier(_KernelClassifier):
    """Kernel Perceptron: on a mistake (m ≤ 0) x enters the expansion with coefficient ±1
    (Freund & Schapire 1999 for the kernel form; ALGORITHMS.md, kernel section).

    Parameters
    ----------
    class_weight : dict, "balanced" or None, default=None
        Weight of each class's examples (see :class:`_KernelClassifier`).
    kernel, gamma, degree, coef0, fit_intercept, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    classes_, support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from olearn import KernelPerceptronClassifier
    >>> X, y = make_circles(400, noise=0.05, factor=0.5, random_state=0)
    >>> clf = KernelPerceptronClassifier(kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    def _rule_name(self) -> str:
        return "perceptron"


class KernelPAClassifier(_KernelClassifier):
    """Kernel Passive-Aggressive (Crammer et al., JMLR 2006, eq. 7, 9, 11 with k(x, x) + 1 in
    place of ‖x̃‖²; multiclass: τ from the sum of both rows' confidences, §7).

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    C : float > 0, default=1.0
        Aggressiveness (ignored by "PA").
    class_weight : dict, "balanced" or None, default=None
        Weight of each class's examples (see :class:`_KernelClassifier`).
    kernel, gamma, degree, coef0, fit_intercept, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    classes_, support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelClassifier`.
    """

    _parameter_constraints = {
        **_KernelClassifier._parameter_constraints,
        "variant": [StrOptions(set(PA_VARIANTS))],
        "C": _positive(),
    }

    def __init__(
        self,
        variant="PA-I",
        C=1.0,
        *,
        class_weight=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            class_weight=class_weight,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.variant = variant
        self.C = C

    def _rule_name(self) -> str:
        return PA_VARIANTS[self.variant]

    def _rule_hyperparameters(self) -> list[float]:
        return [] if self.variant == "PA" else [float(self.C)]


class KernelPARegressor(_KernelRegressor):
    """Kernel Passive-Aggressive regression (Crammer et al. 2006, §5): ε-insensitive loss
    ``ℓ_ε = max(0, |y − f(x)| − ε)``, step τ of PA / PA-I / PA-II with k(x, x) + 1 for ‖x̃‖².

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    C : float > 0, default=1.0
    epsilon : float ≥ 0, default=0.1
    kernel, gamma, degree, coef0, fit_intercept, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelModel`.
    """

    _parameter_constraints = {
        **_KernelModel._parameter_constraints,
        "variant": [StrOptions(set(PA_VARIANTS))],
        "C": _positive(),
        "epsilon": _positive("left"),
    }

    def __init__(
        self,
        variant="PA-I",
        C=1.0,
        epsilon=0.1,
        *,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.variant = variant
        self.C = C
        self.epsilon = epsilon

    def _rule_name(self) -> str:
        return PA_VARIANTS[self.variant]

    def _rule_hyperparameters(self) -> list[float]:
        return [] if self.variant == "PA" else [float(self.C)]

    def _epsilon(self) -> float:
        return float(self.epsilon)


class _NORMAMixin:
    """``truncation`` = τ keeps only the τ most recent support vectors (the paper's truncation,
    §3.2); it is the budget τ with removal of the oldest, so it excludes ``budget`` and a
    ``maintenance`` other than "remove"."""

    def _check_params(self) -> None:
        super()._check_params()
        # η_t = η/√t is largest at t = 1: ηλ < 1 keeps every decay factor 1 − η_t λ
        # positive (seed 004: 0 < η_t < 1/λ); at ≥ 1 the coefficients vanish or flip sign.
        if self.eta * self.lam >= 1:
            raise ValueError(
                f"NORMA needs eta·lam < 1 (each round scales the old coefficients by "
                f"1 − eta·lam/√t, which must stay positive); got eta={self.eta!r}, "
                f"lam={self.lam!r} (eta·lam = {self.eta * self.lam:g}): lower eta or lam."
            )
        if self.truncation is not None and self.budget is not None:
            raise ValueError("give either truncation (NORMA's) or budget, not both.")
        if self.truncation is not None and self.maintenance != "remove":
            # (truncation removes the oldest vector: another maintenance would be ignored)
            raise ValueError(
                f"truncation removes the oldest support vector; maintenance="
                f"{self.maintenance!r} applies to a budget: give budget= instead of truncation."
            )

    def _budget_and_maintenance(self):
        if self.truncation is not None:
            return int(self.truncation), bm.OLDEST
        return super()._budget_and_maintenance()


class NORMAClassifier(_NORMAMixin, _KernelClassifier):
    """NORMA (Kivinen, Smola, Williamson 2004): kernel SGD on the hinge loss with margin ρ,
    ``η_t = η/√t``; every round shrinks the old coefficients by ``1 − η_t λ``.

    Parameters
    ----------
    eta : float > 0, default=1.0
        Step-size scale η.
    lam : float ≥ 0, default=0.01
        Regularisation λ; ``η λ < 1`` is required (else the decay ``1 − η_t λ`` would
        make the coefficients vanish or flip sign).
    rho : float ≥ 0, default=1.0
        Margin of the hinge loss ``max(0, ρ − y f(x))``.
    truncation : int ≥ 1 or None, default=None
        Keep only the most recent τ support vectors.
    class_weight : dict, "balanced" or None, default=None
        Weight of each class's examples (see :class:`_KernelClassifier`).
    kernel, gamma, degree, coef0, fit_intercept, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    classes_, support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelClassifier`.
    """

    _parameter_constraints = {
        **_KernelClassifier._parameter_constraints,
        "eta": _positive(),
        "lam": _positive("left"),
        "rho": _positive("left"),
        "truncation": [None, Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        eta=1.0,
        lam=0.01,
        rho=1.0,
        *,
        class_weight=None,
        truncation=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            class_weight=class_weight,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.eta = eta
        self.lam = lam
        self.rho = rho
        self.truncation = truncation

    def _rule_name(self) -> str:
        return "norma_hinge"

    def _rule_hyperparameters(self) -> list[float]:
        return [float(self.eta), float(self.lam), float(self.rho)]


class NORMARegressor(_NORMAMixin, _KernelRegressor):
    """NORMA regression with the ε-insensitive loss (Kivinen, Smola, Williamson 2004, §3.4).

    Parameters
    ----------
    eta : float > 0, default=1.0
    lam : float ≥ 0, default=0.01
        ``η λ < 1`` is required, as for :class:`NORMAClassifier`.
    epsilon : float ≥ 0, default=0.1
    truncation : int ≥ 1 or None, default=None
    kernel, gamma, degree, coef0, fit_intercept, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelModel`.
    """

    _parameter_constraints = {
        **_KernelModel._parameter_constraints,
        "eta": _positive(),
        "lam": _positive("left"),
        "epsilon": _positive("left"),
        "truncation": [None, Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        eta=1.0,
        lam=0.01,
        epsilon=0.1,
        *,
        truncation=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=True,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.eta = eta
        self.lam = lam
        self.epsilon = epsilon
        self.truncation = truncation

    def _rule_name(self) -> str:
        return "norma_epsilon"

    def _rule_hyperparameters(self) -> list[float]:
        return [float(self.eta), float(self.lam)]

    def _epsilon(self) -> float:
        return float(self.epsilon)


class KernelPegasosClassifier(_KernelClassifier):
    """Kernel Pegasos (Shalev-Shwartz, Singer, Srebro, ICML 2007): kernel SGD on the SVM
    objective with ``η_t = 1/(λt)``.

    Parameters
    ----------
    lam : float > 0, default=1e-4
        Regularisation λ of ``λ/2 ‖w‖² + mean hinge loss``.
    fit_intercept : bool, default=False
        Off by default: an intercept is not decayed and takes the steps 1/(λt), the largest
        early on, which costs accuracy (see :class:`_KernelModel`).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class's examples (see :class:`_KernelClassifier`).
    kernel, gamma, degree, coef0, budget, maintenance, max_iter, shuffle,
    random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    classes_, support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelClassifier`.
    """

    _parameter_constraints = {**_KernelClassifier._parameter_constraints, "lam": _positive()}

    def __init__(
        self,
        lam=1e-4,
        *,
        class_weight=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=False,
        budget=None,
        maintenance="remove",
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            class_weight=class_weight,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.lam = lam

    def _rule_name(self) -> str:
        return "pegasos"

    def _rule_hyperparameters(self) -> list[float]:
        return [float(self.lam)]


class BudgetedSGDClassifier(KernelPegasosClassifier):
    """Budgeted SGD (Wang, Crammer, Vucetic, JMLR 13, 2012): kernel Pegasos whose expansion is
    kept at ``budget`` support vectors by merging (default), projection or removal.

    Parameters
    ----------
    budget : int ≥ 1, default=100
        At most this many support vectors.
    maintenance : {"merge", "project", "remove"}, default="merge"
        How an over-budget expansion is reduced (``olearn.kernels.budget``); "merge" needs
        the RBF kernel.
    lam : float > 0, default=1e-4
        Regularisation λ of ``λ/2 ‖w‖² + mean hinge loss``.
    fit_intercept : bool, default=False
        Off by default, as for :class:`KernelPegasosClassifier` (the undecayed intercept
        costs accuracy).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class's examples (see :class:`_KernelClassifier`).
    kernel, gamma, degree, coef0, max_iter, shuffle, random_state : see :class:`_KernelModel`.

    Attributes
    ----------
    classes_, support_vectors_, dual_coef_, intercept_, n_support_, gamma_, n_features_in_,
    feature_names_in_, n_iter_, n_rounds_, n_mistakes_, n_updates_, stats_
        See :class:`_KernelClassifier`.
    """

    _parameter_constraints = {
        **KernelPegasosClassifier._parameter_constraints,
        "budget": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        budget=100,
        maintenance="merge",
        lam=1e-4,
        *,
        class_weight=None,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        fit_intercept=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            class_weight=class_weight,
            lam=lam,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            fit_intercept=fit_intercept,
            budget=budget,
            maintenance=maintenance,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
