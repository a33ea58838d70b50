"""The scikit-learn face of the linear engine: parameters, labels, state, the loop call.

Subclasses declare their paper's rule and hyper-parameters (``_rule_name``,
``_rule_hyperparameters``), the covariance representation and its prior scale; everything
else — validation, label encoding, state allocation, passes, counters — lives here once.

A classifier picks its task from the labels it is given (``olearn.tasks``): two classes are
binary (one weight row), more are multiclass (one row per class, and one covariance block per
class for second-order rules), a 2-D indicator y is multilabel ranking, and ``cost=`` makes it
cost-sensitive. The task is part of the fitted state (``task_``).
"""

from __future__ import annotations

import threading
import weakref
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from olearn import engine
from olearn.estimators import _events
from olearn.estimators._blocks import converted_blocks
from olearn.estimators._counters import OnlineCountersMixin
from olearn.estimators._events import EventInput, check_event_width, event_matrix
from olearn.estimators._river import river_estimator
from olearn.estimators._state import (
    EMPTY_AUX,
    LinearClassifierState,
    LinearState,
    warn_not_learned,
)
from olearn.estimators._targets import (
    check_announced,
    check_cost,
    check_indicator,
    check_label_kind,
    check_within_classes,
    holds_only_known_labels,
    label_array,
)
from olearn.estimators._validation import (
    Rows,
    TracksParameters,
    WritableOnLoad,
    all_finite,
    as_rows,
    attributes_restored_on_error,
    check_lengths,
    in_place_csr,
    not_finite_error,
    raise_rows_problem,
    summed_repeats,
    warn_if_sorted_by_class,
)
from olearn.estimators._weights import check_sample_weight, labelled_row_weights, learned_labels
from olearn.representations import DIAGONAL, FULL, LINEAR, _journal, fastpath


class OnlineLinearModel(
    EventInput, WritableOnLoad, TracksParameters, LinearState, OnlineCountersMixin, BaseEstimator
):
    """State and loop plumbing shared by the online linear classifiers and regressors. The
    parameters below are common to every subclass (keyword-only).

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an intercept as the weight of a constant feature of value 1 (it gets its own
        variance in second-order models and counts in ‖x‖²).
    max_iter : int ≥ 1, default=1
        Passes over the data in ``fit``; online learning is one pass.
    shuffle : bool, default=False
        Visit the rows of each pass in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.

    Attributes
    ----------
    coef_ : ndarray of shape (k, n_features)
        The weights the model predicts with (the average for averaged models): one row for
        binary models and regressors, one per class otherwise.
    intercept_ : ndarray of shape (k,)
        The intercepts (0 without ``fit_intercept``).
    n_features_in_ : int
        Number of features of the training data.
    feature_names_in_ : ndarray of str
        The column names of a DataFrame the model was fitted on (only then).
    n_iter_ : int
        Passes over the data of the last ``fit`` (1 after ``partial_fit``).
    n_rounds_ : int
        Examples processed, over every pass.
    n_mistakes_ : int
        Online mistakes: rounds whose margin, before the label was seen, was ≤ 0 — the
        prediction was wrong, or a tie (progressive validation).
    n_updates_ : int
        Rounds whose step changed the model.
    weights_ : ndarray of shape (k, n_features + 1)
        The stored weights, intercept last (for SGD rules a scaled copy: ``coef_`` is the
        model's view).
    average_sums_ : ndarray
        The lazy-averaging sums of an averaged model, (k, n_features + 1); empty otherwise.
    variances_ : ndarray
        The variances of a diagonal-covariance model, (k, n_features + 1); empty otherwise.
    precision_cholesky_ : ndarray
        The Cholesky factor of the precision Σ⁻¹ of a full-covariance model,
        (k, n_features + 1, n_features + 1); empty otherwise.
    stats_ : ndarray of float64 of shape (7,)
        The compiled loop's counters: rounds, mistakes, updates, summed loss, summed squared
        loss, summed cost, and the weight scale of gradient rules.
    """

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, *, fit_intercept=True, max_iter=1, shuffle=False, random_state=None):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    _derived_attributes = (*LinearState._derived_attributes, "_configured_parameters")

    def _validate_params(self) -> None:
        super()._validate_params()
        self._check_parameter_combination()

    # -- the loop ---------------------------------------------------------------------------

    def _run(self, rows: Rows, y_engine, rng, aux=EMPTY_AUX, sample_weight=None) -> int:
        """One pass of the loop over ``rows`` (``_validation.as_rows``), shuffled if asked,
        with the rows' importance weights (None: all 1). Rows that are not float64
        C-contiguous are converted by blocks (``_run_blocks``). Returns the loop's count of
        non-finite rows (``engine.run``)."""
        n = rows.shape[0]
        order = rng.permutation(n) if self.shuffle else None
        if rows.pending is not None:  # a CSC matrix still to convert (``_csc``)
            if order is None and not rows.pending.converted:
                return self._run_converting(rows.pending, y_engine, aux, sample_weight)
            data, indptr, indices = rows.pending.rows()
            rows = rows._replace(data=data, indptr=indptr, indices=indices, pending=None)
        if rows.in_place:
            order = np.arange(n) if order is None else order
            return self._run_arrays(rows.data, rows.indptr, rows.indices, y_engine, order, aux,
                                    sample_weight)  # fmt: skip
        if self._binary_margin and sample_weight is None and not aux.shape[0]:
            # (the blocks keep order None: rows in order are sliced, not gathered)
            in_order = np.arange(n) if order is None else order
            nonfinite = self._run_dense_pass(rows, y_engine, in_order)
            if nonfinite >= 0:
                return nonfinite
        return self._run_blocks(rows, y_engine, order, aux, sample_weight)

    def _run_converting(self, pending, y_engine, aux, sample_weight) -> int:
        """The first pass over a CSC matrix converted as it is learned
        (``_csc.CscPipeline.slices``): each slice of rows learned once converted, the calls
        together one pass (the SGD scale folded once, at the end, as ``_run_arrays`` does)."""
        refused = 0
        with pending.slices() as slices:
            for data, indptr, indices, order in slices:
                refused += self._learn_arrays(data, indptr, indices, y_engine, order, aux,
                                              sample_weight)  # fmt: skip
        self._fold_scale()
        if refused:  # (the values are finite: a non-finite one raised before its row)
            warn_not_learned(refused)
        return refused

    def _run_dense_pass(self, rows: Rows, y_engine, order) -> int:
        """A plain binary model's pass over dense rows that are C-contiguous but not
        writable float64 — float32, or read-only (a memory map) — read in place by the
        representation's dense pass alone (``engine.DENSE_PASSES``; a float32 value
        converts to float64 exactly, so the model is the one float64 rows give, bit for
        bit). Returns its count of non-finite rows, or −1 (nothing read) when it does not
        apply: other dtypes and Fortran order (a DataFrame's values) are converted by blocks
        (``_run_blocks``): reading a column-major array by rows costs 2.2–4.5× the pass
        (``benchmarks/README.md``). Each dtype and writability met compiles its own copy of
        the one pass on first use (a few seconds, cached on disk). Unchecked values are
        checked first (the full representation's pass does not count non-finite rows)."""
        X = rows.data
        if X.dtype not in _DENSE_PASS_DTYPES or not X.flags.c_contiguous:
            return -1
        if not rows.finite:
            _raise_if_not_finite(rows)
        rep = self._cfg[engine.CFG_REPRESENTATION]
        nonfinite = engine.DENSE_PASSES[rep](X, y_engine, order, *self._engine_state())
        if nonfinite > 0 and all_finite(X):  # (non-finite input: the caller raises)
            warn_not_learned(nonfinite)
        return nonfinite

    def _run_blocks(self, rows: Rows, y_engine, order, aux, sample_weight=None) -> int:
        """The pass over dense rows of another dtype or order (Fortran order, a DataFrame's
        values, float32 for models without a dense pass, shuffled passes over them): each
        block of rows is converted into a reused float64 C buffer, which the loop then reads
        from cache — one read of X, no copy of it (a copy costs as much as the pass: 2.9–4.6×
        the time of float64 input). With two usable CPUs and more than two blocks a worker
        thread converts the next blocks while the loop learns (``_blocks.converted_blocks``:
        the same blocks, bit for bit). Unchecked values are checked per block before it is
        learned (``fit`` puts the model back if a later block fails; ``partial_fit`` checks
        X first)."""
        X = rows.data
        n, d = rows.shape
        has_aux = aux.shape[0] > 0
        if n * d <= _BLOCK_VALUES and order is None:  # one block: one converting copy
            block = np.array(X, dtype=np.float64, order="C")
            if not rows.finite and not fastpath.all_finite(block):
                raise not_finite_error(block)
            positions = _ORDER_ONE if n == 1 else np.arange(n)
            return self._run_arrays(block, None, None, y_engine, positions, aux, sample_weight)
        nonfinite = overflowed = 0
        size = max(1, min(n, _BLOCK_VALUES // d))
        try:
            with converted_blocks(X, order, size) as blocks:
                for picked, block in blocks:
                    if not rows.finite and not fastpath.all_finite(block):
                        raise not_finite_error(block, picked)
                    refused = self._learn_arrays(
                        block, None, None, y_engine[picked], _order(block.shape[0]),
                        aux[picked] if has_aux else aux,
                        None if sample_weight is None else sample_weight[picked],
                    )  # fmt: skip
                    nonfinite += refused
                    if refused and fastpath.all_finite(block):  # (else ``fit`` raises)
                        overflowed += refused
        finally:  # once for the pass, as for rows read in place (folded per block, the
            self._fold_scale()  # SGD weights differed from theirs in the last bits)
        warn_not_learned(overflowed)
        return nonfinite

    def _configure(self) -> None:
        super()._configure()
        self._configured_parameters = True

    def _refresh_parameters(self) -> None:
        """Every entry point of a fitted model follows set_params, as in scikit-learn: a
        changed parameter is validated (before any state changes) and repacked for the loop.
        When no parameter was assigned since the last packing this is one dict lookup, so
        single-row calls stay cheap."""
        if "_configured_parameters" in self.__dict__ or "_cfg" not in self.__dict__:
            return
        self._validate_params()
        previous = (self._cfg, self._hp, self._opts)
        previous_task = self.__dict__.get("task_")
        self._follow_task_parameters()
        self._configure()
        layout = {"covariance": engine.CFG_REPRESENTATION, "average": engine.CFG_AVERAGE}
        changed = [name for name, at in layout.items() if self._cfg[at] != previous[0][at]]
        problem = None
        if changed:
            problem = (
                f"{' and '.join(changed)} cannot change after fitting (the state has another "
                "shape); call fit to start over."
            )
        elif self._opts[engine.OPT_FLOOR] != previous[2][engine.OPT_FLOOR]:
            # the prior a·I was read when the state was allocated: a new a would set only the
            # prior of classes met later and the variance floor, silently
            problem = (
                "a cannot change after fitting (the prior of the fitted covariance); set it "
                "back, or call fit to start over."
            )
        else:
            problem = self._fitted_rows_problem()
        if problem is not None:
            self._cfg, self._hp, self._opts = previous
            if previous_task is not None:
                self.task_ = previous_task
            del self._configured_parameters
            raise ValueError(problem)

    def _follow_task_parameters(self) -> None:
        """Set the fitted task anew from parameters that choose among tasks of one state
        layout (``_refresh_parameters``)."""

    def _fitted_rows_problem(self) -> str | None:
        """Why the current parameters cannot run on the fitted weight rows (a parameter
        assigned since the fit that needs rows of another number), or None."""
        return None

    def _check_ready(self) -> None:
        """``check_is_fitted`` (its full scan only for an unfitted model: it costs ~10 µs)
        and the current parameters validated and packed (``_refresh_parameters``)."""
        attributes = self.__dict__
        if "weights_" not in attributes:
            check_is_fitted(self)
        if "_configured_parameters" not in attributes:
            self._refresh_parameters()

    def __setstate__(self, state):
        super().__setstate__(state)
        if "weights_" in state:
            self._configure()

    # -- counters ---------------------------------------------------------------------------

    @property
    def coef_(self):
        check_is_fitted(self)
        return self._mean[:, :-1].copy()

    @property
    def intercept_(self):
        self._check_ready()
        return self._mean[:, -1] * self._opts[engine.OPT_BIAS]

    def _scores(self, rows: Rows):
        """(n, k) scores of every parameter row on ``rows`` (``as_rows(..., learn=False)``).

        Sparse rows are scored in one compiled pass that also checks them and ignores the
        features beyond the training width (never seen: weight 0, as with hashing); an
        averaged model is averaged along x, never as a whole (``fastpath.csr_scores``).
        Dense rows of any dtype or order go to BLAS as they are."""
        bias = self._opts[engine.OPT_BIAS]
        if not rows.sparse:
            W = self._mean
            scores = rows.data @ W[:, :-1].T  # (a new array)
            intercepts = W[:, -1]
            scores += intercepts if bias == 1.0 else intercepts * bias  # (x · 1.0 is x)
            return scores
        W = self.weights_
        stats = self.stats_
        rounds = stats[engine.STAT_ROUNDS] if self._averaged() else 0.0
        out = np.empty((rows.shape[0], W.shape[0]))
        problem, row, _ = fastpath.csr_scores(
            rows.indptr, rows.indices, rows.data, rows.shape[1], W, self.average_sums_,
            rounds, stats[engine.STAT_SCALE], bias, out,
        )  # fmt: skip
        if problem:
            raise_rows_problem(problem, row, rows.shape[1])
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _check_skipped_event(self, x, n_features) -> None:
        """The checks of an event of weight 0 (which nothing else reads)."""
        if "weights_" not in self.__dict__:
            event_matrix(x, check_event_width(self, n_features))
            return
        self._check_fitted_width(n_features)
        self._check_ready()
        self._sparse_row(x)


@river_estimator("Classifier")
class OnlineLinearClassifier(ClassifierMixin, LinearClassifierState, OnlineLinearModel):
    """Base class of the online linear classifiers: binary, multiclass, multilabel ranking
    and cost-sensitive multiclass over one engine. The parameters below are common to every
    subclass (keyword-only).

    Parameters
    ----------
    multiclass : {"joint", "ovr"}, default="joint"
        With more than two classes: "joint" keeps one prototype per class and updates the
        single constraint between the true label and the best wrong label (Crammer et al.
        2006 §7; Crammer, Dredze, Kulesza 2009); "ovr" trains one binary model per class on
        every example (one-vs-rest, for comparison).
    cost_update : {"max_loss", "prediction"}, default="max_loss"
        With ``fit(X, y, cost=...)``: the pair a round updates — the label maximising
        ``w^r·x − w^y·x + √ρ(y, r)`` ("max_loss") or the predicted label ("prediction");
        both predict the argmax (Crammer et al. 2006 §8).
    label_threshold : float or None, default=None
        Multilabel prediction returns the labels scoring above this threshold; None learns
        it as a virtual label ranked between the relevant and the irrelevant ones.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each example's importance weight by the weight of its class, as in
        scikit-learn: ``{label: weight}`` (absent labels weigh 1) or "balanced",
        ``n_samples / (n_classes · count(label))`` over ``fit``'s labels ("balanced" is
        refused by ``partial_fit`` and ``learn_one``: pass a dict). Not for multilabel y.
    fit_intercept : bool, default=True
        Learn an intercept as the weight of a constant feature of value 1 (it gets its own
        variance in second-order models and counts in ‖x‖²).
    max_iter : int ≥ 1, default=1
        Passes over the data in ``fit``; online learning is one pass.
    shuffle : bool, default=False
        Visit the rows of each pass in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.

    Attributes
    ----------
    classes_ : ndarray
        The labels seen, sorted; a label never seen before grows a new class.
    task_ : str
        The task the labels made: "binary", "multiclass", "ovr", "multilabel",
        "cost_prediction" or "cost_max_loss".
    cumulative_cost_ : float
        Cost ρ(y, ŷ) of the online predictions during training, summed (the mistake count
        for 0/1 costs).
    coef_, intercept_, n_features_in_, feature_names_in_, n_iter_, n_rounds_, n_mistakes_,
    n_updates_, weights_, average_sums_, variances_, precision_cholesky_, stats_
        See :class:`OnlineLinearModel`.
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        "multiclass": [StrOptions({"joint", "ovr"})],
        "cost_update": [StrOptions({"max_loss", "prediction"})],
        "label_threshold": [Interval(Real, None, None, closed="neither"), None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(
        self,
        *,
        multiclass="joint",
        cost_update="max_loss",
        label_threshold=None,
        class_weight=None,
        fit_intercept=True,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        super().__init__(
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
        )
        self.multiclass = multiclass
        self.cost_update = cost_update
        self.label_threshold = label_threshold
        self.class_weight = class_weight

    # -- fitting ----------------------------------------------------------------------------

    def fit(self, X, y, cost=None, sample_weight=None):
        """Learn from scratch over ``max_iter`` passes of (X, y), counting online mistakes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), or a binary indicator matrix of shape
            (n_samples, n_labels) for multilabel ranking
        cost : array-like of shape (n_classes, n_classes) or (n_samples, n_classes), optional
            Cost-sensitive multiclass: ``cost[y, r]`` (a matrix with zero diagonal over
            ``classes_``, sorted) or one cost vector per example (zero at its own label).
            A square array is read as the matrix.
        sample_weight : array-like of shape (n_samples,) or float, optional
            Importance weights ≥ 0 (``olearn.estimators._weights``): each rule takes its
            weighted form (stated in its docstring), a weight 0 skips the row; times
            ``class_weight``'s weight of the row's class.
        """
        self._validate_params()
        # The finiteness of X's values is tested by the loop itself when it takes the plain
        # binary path (one pass fewer over X, or over each converted block; for CSR rows
        # a third of their check, which then reads the indices only): a non-finite row
        # shows as a non-finite confidence. Then the model is put back as it was and the
        # exact check raises.
        with attributes_restored_on_error(self):  # a failed fit leaves the model as it was
            rows = as_rows(self, X, reset=True, check_finite=False, while_learning=True)
            task, classes, y, aux = self._check_targets(rows, y, cost, classes=None,
                                                        first=True)  # fmt: skip
            weights = self._row_weights(sample_weight, y, task, classes, partial=False)
            if cost is None and task != "multilabel":
                learned, y = learned_labels(y, weights, None)
                if learned is not None and len(learned) < len(classes):
                    classes, task = learned, self._label_task(len(learned), None)
            if task != "multilabel":
                warn_if_sorted_by_class(self, y)
            rng = check_random_state(self.random_state)
            self._start(rows.shape[1], task, classes)
            # Unchecked values: the loop counts the non-finite rows when it takes a binary
            # pass — of X in place or of each converted block (then no check per block) —
            # and a count > 0 gets the exact check below; other loops check X first (in
            # place) or each block as it is converted (``_run_blocks``).
            deferred = not rows.finite
            if deferred and (weights is not None or not self._loop_checks_finite(aux)):
                if rows.in_place:
                    _raise_if_not_finite(rows)
                deferred = False
            learned = rows._replace(finite=True) if deferred and not rows.in_place else rows
            y_engine = self._encode(y)
            nonfinite = 0
            for _ in range(self.max_iter):
                nonfinite += self._run(learned, y_engine, rng, aux, weights)
            if deferred and nonfinite:
                _raise_if_not_finite(rows)  # raises, unless a finite sum overflowed
        self.n_iter_ = self.max_iter
        return self

    def _loop_checks_finite(self, aux) -> bool:
        """Whether ``engine.run`` takes a representation's binary pass that counts the rows
        with a non-finite confidence (``engine._is_binary_margin``; first-order, diagonal)."""
        return (
            self._binary_margin
            and not aux.shape[0]
            and self._cfg[engine.CFG_REPRESENTATION] != FULL
        )

    def partial_fit(self, X, y, classes=None, cost=None, sample_weight=None):
        """One pass over (X, y), continuing from the current state.

        ``classes`` may announce the label set; it is optional: the model grows a new
        prototype (and covariance block) when it meets a label it has not seen. When given,
        y's labels must be among them, and on a fitted model they must hold every label it
        has (labels announced anew are added, as if met).
        ``cost`` and ``sample_weight`` as in :meth:`fit`; a model fitted with costs must get
        them on every call. ``class_weight`` must be a dict here (not "balanced").
        """
        if classes is not None and "classes_" in self.__dict__:
            classes = self._announced(classes)
        # ``classes_`` itself: the model's labels announced, so y may hold no other (the
        # fast paths meet none; the general path names it)
        no_new_labels = classes is None or classes is self.__dict__.get("classes_")
        if (
            no_new_labels
            and cost is None
            and sample_weight is None
            and type(y) is np.ndarray
            and (
                self._partial_fit_chunk(X, y)
                if type(X) is np.ndarray
                else self._partial_fit_csr_chunk(X, y)
            )
        ):
            return self
        if "classes_" in self.__dict__:
            return self._partial_fit(X, y, classes, cost, sample_weight, False)
        with attributes_restored_on_error(self):  # a failed first call leaves no model
            return self._partial_fit(X, y, classes, cost, sample_weight, True)

    def _partial_fit(self, X, y, classes, cost, sample_weight, first: bool):
        if first:
            self._validate_params()
        else:
            self._refresh_parameters()
        # A dense float64 chunk of a plain binary model is checked for finiteness in the
        # pass itself (engine.run_binary counts the non-finite rows) when a snapshot of the
        # state costs less than a pass over X; on a hit the snapshot is put back and the
        # exact check raises.
        weighted = sample_weight is not None or self.class_weight is not None
        fused = (
            not first
            and cost is None
            and not weighted
            and type(X) is np.ndarray
            and X.size >= 3 * self.weights_.size
            and X.dtype == np.float64
            and X.flags.c_contiguous
            and self._loop_checks_finite(EMPTY_AUX)
        )
        # A large sparse chunk of a plain first-order model reads only its indices first: its
        # pass counts the rows with a non-finite value and writes down the weights it
        # changes, undone on a count (``_journaled_pass``, ``_journal_pays``).
        journaled = (
            not first
            and cost is None
            and not weighted
            and sp.issparse(X)
            and self._loop_checks_finite(EMPTY_AUX)
            and _journal_pays(self._cfg, X.shape[0], X.nnz)
        )
        announced = classes
        if first:
            # (a failed first call is undone whole by partial_fit)
            rows = as_rows(self, X, reset=True)
            task, classes, y, aux = self._check_targets(rows, y, cost, classes=classes,
                                                        first=True)  # fmt: skip
        else:
            # nothing to restore on error: a fitted model's attributes change only below
            if (
                fused
                and X.ndim == 2
                and X.shape[1] == self.n_features_in_
                and ("feature_names_in_" not in self.__dict__)
            ):
                rows = Rows(X, None, None, X.shape, False)  # as_rows's, without its calls
            else:
                rows = as_rows(self, X, reset=False, check_finite=not (fused or journaled))
            if (
                (classes is None or classes is self.classes_)
                and cost is None
                and not weighted
                and self._partial_fit_fast(rows, y, fused)
            ):
                self.__dict__["n_iter_"] = 1  # (not a parameter: TracksParameters' test skipped)
                return self
            if not rows.finite:
                _raise_if_not_finite(rows)
                rows = rows._replace(finite=True)
            task, classes, y, aux = self._check_targets(rows, y, cost, classes=classes,
                                                        first=False)  # fmt: skip
        weights = None
        if weighted:
            weights = self._row_weights(sample_weight, y, task, classes, partial=True)
            if cost is None and task != "multilabel":
                known = None if first else self.classes_
                if announced is not None:
                    known = _as_1d(announced) if known is None else np.union1d(known, announced)
                learned, y = learned_labels(y, weights, known)
                if learned is not None and len(learned) < len(classes):
                    classes = learned
                    task = (
                        self._label_task(len(learned), None) if first else self._task_after(learned)
                    )
        rng = check_random_state(self.random_state)
        if first:
            self._start(rows.shape[1], task, classes)
        else:
            self._grow_classes(classes, task)
        self._run(rows, self._encode(y), rng, aux, weights)
        self.n_iter_ = 1
        return self

    def _announced(self, classes):
        """``partial_fit``'s ``classes`` on a fitted model: ``classes_`` itself when they are
        its labels, else the sorted labels announced, which add to the model's. Streams pass
        the same classes with every chunk: the ones last found equal are not read again
        (``_announcement``: the same small list or array by value, a large array by
        identity)."""
        key = _announcement(classes)
        last = _ANNOUNCED.get(self)
        if key is not None and last is not None and last[1] is self.classes_ and last[0] == key:
            return self.classes_
        announced = np.unique(_as_1d(classes))
        check_label_kind(self.classes_, announced)
        check_announced(self.classes_, announced)
        if len(announced) > len(self.classes_):
            return announced
        if key is not None:
            _ANNOUNCED[self] = key, self.classes_  # (a model fitted again has new classes_)
        return self.classes_

    def _streams_short_chunks(self, y) -> bool:
        """Whether the model and the labels ``y`` of a ``partial_fit`` chunk allow its short
        paths (``_partial_fit_chunk``, ``_partial_fit_csr_chunk``): a fitted two-class plain
        binary model — one weight row, a first-order or diagonal margin rule, no shuffling,
        no class weights, its parameters packed — and 1-D contiguous labels of a compiled
        type."""
        attributes = self.__dict__
        if not (
            attributes.get("_binary_margin")
            and "_configured_parameters" in attributes
            and not self.shuffle
            and self.class_weight is None
            and y.ndim == 1
            and y.flags.c_contiguous
            and y.dtype in _COMPILED_LABELS
        ):
            return False
        classes = attributes["classes_"]
        return (
            len(classes) == 2
            and classes.dtype in _COMPILED_LABELS
            and attributes["_cfg"][engine.CFG_REPRESENTATION] != FULL
        )

    def _partial_fit_chunk(self, X, y) -> bool:
        """``partial_fit``'s most common call in as few Python steps as it takes (each costs
        about twice its warm time right after a pass, whose data evicts the interpreter's):
        a model and labels that ``_streams_short_chunks`` allows, labels that the model
        knows, a float64 C-contiguous chunk of at least 3·D values without names. One
        compiled call encodes the labels and saves the state (``fastpath.chunk_labels``,
        into a buffer kept from chunk to chunk), and one pass learns the chunk and counts
        its non-finite rows (the fused check of ``partial_fit``: on a count the state is put
        back and the exact check raises). Returns False, having changed nothing, for any
        other call (``partial_fit``'s general path)."""
        attributes = self.__dict__
        if not (
            self._streams_short_chunks(y)
            and X.dtype is _FLOAT64
            and X.ndim == 2
            and X.shape[1] == attributes["n_features_in_"]
            and X.shape[0] == y.shape[0]
            and X.flags.c_contiguous
            and "feature_names_in_" not in attributes
            and X.size >= 3 * attributes["weights_"].size
        ):
            return False
        classes = attributes["classes_"]
        W = attributes["weights_"]
        cfg = attributes["_cfg"]
        state = (W, attributes["average_sums_"], attributes["variances_"],
                 attributes["precision_cholesky_"], attributes["stats_"])  # fmt: skip
        kept = _CHUNK_BUFFERS.get(self)
        new = kept is None or not _same_arrays(kept[0], state)
        if new:
            if not all(array.flags.c_contiguous for array in state):
                return False  # (no flat views; a one-row model's arrays are C-contiguous)
            kept = _state_buffer(state)
        n = X.shape[0]
        y_signed = kept[3].get(n)
        if y_signed is None:
            y_signed = _signed_labels_buffer(kept[3], n)
        if not fastpath.chunk_labels(y, classes, kept[1], kept[2], y_signed):
            return False  # a new label (or NaN): the general path grows or rejects
        config = (cfg, attributes["_hp"], attributes["_opts"])
        # the representation's dense pass itself (``engine.run_pass``' first step)
        dense_pass = engine.DENSE_PASSES[cfg[engine.CFG_REPRESENTATION]]
        nonfinite = dense_pass(X, y_signed, _order(n), state, config)
        if nonfinite:
            if not fastpath.all_finite(X):
                _restore(kept)
                raise not_finite_error(X)
            warn_not_learned(nonfinite)
        if new:
            _CHUNK_BUFFERS[self] = kept  # for the next chunks
        attributes["n_iter_"] = 1
        return True

    def _partial_fit_csr_chunk(self, X, y) -> bool:
        """``_partial_fit_chunk`` for CSR chunks: a model and labels that
        ``_streams_short_chunks`` allows, labels that the model knows, a chunk of its width
        read in place as CSR rows (``in_place_csr``: a CSR matrix, a one-row COO matrix),
        its arrays writable and of one index type, its values float64 (or float32, copied
        as float64, as ``as_rows`` does). The few Python steps matter here
        too: the general path's (``as_rows``, ``_partial_fit_fast``) cost ≈ 50 µs more per
        1,000-row chunk right after a pass (≈ 15 % of the Perceptron's chunk on the sparse
        benchmark set). The indices are scanned first, and the values too unless the pass
        keeps a journal (``_journal_pays``); a chunk to repair or to refuse (no rows, repeated
        indices, a problem, a non-finite value, a new label) returns False, having changed
        nothing, for the general path to handle."""
        data, indptr, indices = in_place_csr(X)
        if indptr is None or not self._streams_short_chunks(y):
            return False
        if data.dtype is not _FLOAT64:
            if data.dtype is not _FLOAT32:
                return False
            data = data.astype(np.float64)  # (the passes read float64 values; exact)
        n, d = X.shape
        if (
            n != y.shape[0]
            or n == 0  # (refused by the general path, which names the empty shape)
            or d != self.n_features_in_
            or "feature_names_in_" in self.__dict__  # (the general path warns: no names)
            or indices.dtype not in _INDEX_TYPES
            or indptr.dtype is not indices.dtype
            or not (data.flags.writeable and indices.flags.writeable and indptr.flags.writeable)
        ):
            return False
        classes = self.classes_
        cfg = self._cfg
        journaled = _journal_pays(cfg, n, data.shape[0])
        verdict, _ = fastpath.csr_scan(indptr, indices, data, d, not journaled)
        if verdict != fastpath.CANONICAL and verdict != fastpath.UNSORTED:
            return False
        y_signed, known = fastpath.binary_labels(y, classes[0], classes[1])
        if not known:
            return False
        if journaled:
            rows = Rows(data, indptr, indices, (n, d), False, verdict)
            if not self._journaled_pass(rows, y_signed, _order(n)):
                return False  # put back: the general path names the value
        else:
            state, config = self._engine_state()
            warn_not_learned(engine.run_pass(data, indptr, indices, y_signed, _order(n), state,
                                             config, None, True))  # fmt: skip
        self.__dict__["n_iter_"] = 1  # (not a parameter: TracksParameters' test skipped)
        return True

    def _row_weights(self, sample_weight, y, task, classes, *, partial: bool):
        """The rows' importance weights for the loop (``_weights.row_weights``): the checked
        ``sample_weight`` times ``class_weight``'s weight of each row's class; None when
        every weight is 1. Raises before any state changes."""
        if self.class_weight is not None and task == "multilabel":
            raise ValueError(
                "class_weight applies to class labels, not to an indicator y (multilabel); "
                "use sample_weight."
            )
        return labelled_row_weights(sample_weight, self.class_weight, classes, y,
                                    partial=partial)  # fmt: skip

    def _partial_fit_fast(self, rows: Rows, y, fused: bool) -> bool:
        """partial_fit's labels for the common streaming call — a fitted two-class model,
        numeric labels it already knows (of any numeric dtype) or labels of its own dtype,
        no shuffling — in a few microseconds plus the loop. Returns False (having changed
        nothing) whenever anything is unusual; the generic path then checks the labels and
        grows a class or raises the precise error."""
        classes = self.classes_
        if self.shuffle or len(classes) != 2 or self._task != "binary":
            return False
        y = label_array(y)
        if y.ndim != 1 or y.shape[0] != rows.shape[0]:
            return False
        label_type = y.dtype
        if label_type.kind != classes.dtype.kind and not (
            label_type.kind in "iuf" and classes.dtype.kind in "iuf"
        ):
            return False  # numbers with strings: the generic path words the error
        if (
            label_type in _COMPILED_LABELS
            and classes.dtype in _COMPILED_LABELS
            and y.flags.c_contiguous
        ):
            # one compiled pass instead of four NumPy calls (~1 µs each on a few labels);
            # numbers of two types compare as NumPy compares them (both as float64)
            y_signed, known = fastpath.binary_labels(y, classes[0], classes[1])
        elif y.shape[0] == 1:  # one label (str, bool, …): two scalar comparisons
            label = y[0]
            known = label == classes[1] or label == classes[0]
            y_signed = _PLUS_ONE if label == classes[1] else _MINUS_ONE
        else:
            positive = y == classes[1]
            known = (positive | (y == classes[0])).all()
            y_signed = np.where(positive, 1.0, -1.0)
        if not known:
            return False  # a new label (or NaN): the generic path grows or rejects
        if not rows.in_place:
            order = _order(rows.shape[0])
            if self._binary_margin and self._run_dense_pass(rows, y_signed, order) >= 0:
                return True
            if rows.shape[0] > _BLOCK_VALUES // rows.shape[1]:
                return False  # several blocks: the generic path checks X first
            self._run_blocks(rows, y_signed, None, EMPTY_AUX)
            return True
        data, indptr, indices = rows.data, rows.indptr, rows.indices
        n = rows.shape[0]
        order = _order(n)
        if rows.sparse and not rows.finite:
            return self._journaled_pass(rows, y_signed, order)
        state, config = self._engine_state()
        if fused:
            # W, A, S, L, stats: the ones in use (an empty array costs a copy call too)
            saved = [(array, array.copy()) for array in state if array.size]
        nonfinite = engine.run_pass(data, indptr, indices, y_signed, order, state, config, None,
                                    self._binary_margin)  # fmt: skip
        if fused and nonfinite and not np.isfinite(data).all():
            for array, copy in saved:
                array[...] = copy
            return False
        warn_not_learned(nonfinite)
        return True

    def _journaled_pass(self, rows: Rows, y_signed, order) -> bool:
        """The pass of a plain first-order binary model (no averaging) over CSR rows whose
        values are unchecked: it counts the rows with a non-finite confidence and keeps a
        journal of the weights it changes (``representations._journal``). On a count from
        a NaN or infinite value the weights and the counters are put back and False is
        returned (the caller raises the exact error, naming the row); a count from finite
        values whose squares overflow is warned of, as ``fit`` does."""
        state, config = self._engine_state()
        W, _, _, _, stats = state
        journal = _journal_buffer(rows.shape[0], rows.data.shape[0])
        counters = stats.copy()
        nonfinite = engine.run_pass(rows.data, rows.indptr, rows.indices, y_signed, order,
                                    state, config, None, True, journal)  # fmt: skip
        if nonfinite and not fastpath.all_finite(rows.data):
            _journal.undo(journal, rows.indptr, rows.indices, W[0])
            stats[...] = counters
            return False
        warn_not_learned(nonfinite)
        return True

    def _check_targets(self, X, y, cost, *, classes, first):
        """Validate the labels (and costs) of one call before any state changes.

        Returns ``(task, classes, y, aux)``: the task, the full sorted label set after this
        call, y as 1-D labels (zeros for multilabel) and the (n, k) auxiliary rows.
        """
        if _is_indicator(y):
            if cost is not None:
                raise ValueError("cost= applies to multiclass labels, not to an indicator y.")
            Y = check_indicator(y)
            check_lengths(X, Y)
            if not first and self._task != "multilabel":
                raise ValueError(
                    f"y is an indicator matrix but the model was fitted on {self._task} labels."
                )
            if not first and Y.shape[1] != len(self.classes_):
                raise ValueError(
                    f"y has {Y.shape[1]} labels, but the model was fitted on "
                    f"{len(self.classes_)} labels."
                )
            return "multilabel", np.arange(Y.shape[1]), np.zeros(len(Y)), Y
        if not first and cost is None and self._holds_only_known_labels(y, classes):
            check_lengths(X, y)
            return self._task, self.classes_, y, EMPTY_AUX  # (a stream's usual chunk)
        seen = _two_labels(y)
        if seen is None:
            y = self._check_y(y)
            seen = np.unique(y)
        check_lengths(X, y)
        if first:
            if classes is not None:
                known = np.unique(_as_1d(classes))
                check_label_kind(known, seen)
                check_within_classes(seen, known)
            else:
                known = seen
            task = self._label_task(len(known), cost)
        else:
            if self._task == "multilabel":
                raise ValueError("the model was fitted on an indicator matrix; y is 1-D.")
            if self._task.startswith("cost") != (cost is not None):
                raise ValueError(
                    "cost= must be given on every call of a cost-sensitive model, and only then."
                )
            check_label_kind(self.classes_, seen)
            known = np.union1d(self.classes_, seen)
            if classes is not None:  # announced anew (``_announced``)
                check_within_classes(seen, classes)
                known = np.union1d(known, classes)
            task = self._task_after(known)
        self._check_classes(known)
        aux = EMPTY_AUX
        if cost is not None:
            if len(known) < 2:
                raise ValueError("cost-sensitive learning needs at least two classes.")
            aux = check_cost(cost, np.searchsorted(known, y), len(known))
        return task, known, y, aux

    # -- labels -----------------------------------------------------------------------------

    def _holds_only_known_labels(self, y, classes) -> bool:
        """Whether y holds only labels this fitted single-label model has (and no other
        ``classes`` are announced): nothing to check or grow."""
        return (
            (classes is None or classes is self.classes_)
            and self._task in ("binary", "multiclass", "ovr")
            and holds_only_known_labels(self.classes_, y)
        )

    def _check_y(self, y):
        y = column_or_1d(y, warn=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity.")
        if y.dtype.kind not in "biufUSO":
            raise ValueError(f"y has an unsupported label type {y.dtype}.")
        check_classification_targets(y)  # "Unknown label type: continuous" for real targets
        return y

    def _check_classes(self, classes) -> None:
        """Hook for models that restrict the number of classes."""

    def _follow_task_parameters(self) -> None:
        # multiclass ("joint", "ovr") and cost_update ("max_loss", "prediction") choose
        # between tasks of one layout (a row and a covariance block per class): a fitted
        # model's task follows them, as every other parameter is followed after set_params.
        task = self.__dict__.get("task_")
        if task in ("multiclass", "ovr"):
            self.task_ = self._label_task(len(self.classes_), None)
        elif task in ("cost_max_loss", "cost_prediction"):
            self.task_ = self._label_task(len(self.classes_), True)

    def _fitted_rows_problem(self) -> str | None:
        # A multilabel model keeps one row per label, plus the virtual label of the learned
        # threshold: label_threshold cannot switch between None and a number after fitting
        # (the loop would read and write a row that is not there, or predict k + 1 labels).
        if self._task == "multilabel":
            rows = self._n_rows("multilabel", len(self.classes_))
            if rows != self.weights_.shape[0]:
                return (
                    "label_threshold cannot change between None (a learned threshold: one "
                    "more weight row) and a number after fitting a multilabel model; call "
                    "fit to start over."
                )
        return None

    # -- prediction -------------------------------------------------------------------------

    @property
    def coef_(self):
        check_is_fitted(self)
        return self._mean[: self._n_label_rows, :-1].copy()

    @property
    def intercept_(self):
        self._check_ready()
        return self._mean[: self._n_label_rows, -1] * self._opts[engine.OPT_BIAS]

    @property
    def _n_label_rows(self) -> int:
        return len(self.classes_) if self._task == "multilabel" else self.weights_.shape[0]

    @property
    def cumulative_cost_(self) -> float:
        """Cost ρ(y, ŷ) of the online predictions during training, summed (the mistake
        count for 0/1 costs)."""
        check_is_fitted(self)
        return float(self.stats_[engine.STAT_COST])

    def decision_function(self, X):
        """Scores of the rows of X: shape (n,) for binary models (the signed score of
        ``classes_[1]``), else (n, k), one column per class. For multilabel models, the label
        scores minus the threshold (positive = predicted relevant); their order ranks the
        labels."""
        self._check_ready()
        scores = self._scores(as_rows(self, X, reset=False, learn=False))
        task = self._task
        if task == "binary":
            return scores[:, 0]
        if task == "multilabel":
            k = len(self.classes_)
            if self.label_threshold is None:
                return scores[:, :k] - scores[:, k : k + 1]
            return scores - float(self.label_threshold)
        return scores

    def predict(self, X):
        """Labels of the rows of X (binary, multiclass: the highest score; multilabel: the
        indicator matrix of the labels scoring above the threshold)."""
        scores = self.decision_function(X)
        task = self._task
        if task == "multilabel":
            return (scores > 0).astype(np.int64)
        if task == "binary":
            if len(self.classes_) == 1:
                return np.repeat(self.classes_, len(scores))
            if scores.shape[0] == 1:  # one row (a stream's call): no index array
                k = 1 if scores[0] > 0 else 0
                return self.classes_[k : k + 1].copy()
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    # -- River-style event streams ------------------------------------------------------------

    def _sparse_row(self, x):
        """``x`` as (int64 indices, float64 values), every check done (``_events``): the
        general per-event path, and the one that words the error of a rejected event."""
        return _events.event_arrays(x, self.n_features_in_)

    def learn_one(self, x, y, cost=None, *, n_features=None, sample_weight=None) -> None:
        """One online round on a single example ``x``: a dict ``{feature: value}`` or a pair
        ``(indices, values)``.

        A feature is an integer index (``int`` or a NumPy integer) or a name (``str``),
        hashed into ``[0, n_features_in_)`` by MurmurHash3 as the VW reader hashes the
        features of its unnamed namespace (``olearn.io.murmurhash3_32(name) % width``; names
        that collide add up). ``y`` is a label (or an indicator vector for multilabel
        models); ``cost`` the example's cost vector over ``classes_`` for cost-sensitive
        models.

        An unfitted model starts here, as River's models do: its width is ``n_features``,
        by default ``2**18`` (Vowpal Wabbit's ``-b 18``), fixed from then on — integer
        indices must lie below it, names are hashed into it. ``n_features`` is read only by
        the first event (a fitted model's width is that of its first input).

        ``sample_weight`` is the example's importance weight (a number ≥ 0, as in
        :meth:`fit`). A weighted event of a fitted two-class model takes one compiled
        weighted round; any other weighted event, or any event of a model with
        ``class_weight``, is learned as a one-row ``partial_fit``.
        """
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=True)
        if self.class_weight is not None or not (
            sample_weight is None or (type(sample_weight) in (int, float) and sample_weight == 1)
        ):
            self._learn_weighted_event(x, y, cost, n_features, sample_weight)
            return
        if "weights_" not in self.__dict__:
            self._learn_first_event(x, y, cost, n_features)
            return
        self._check_fitted_width(n_features)
        self._check_ready()
        classes = self.classes_
        # The common case, a label already known to a two-class model, costs two compares
        # and one compiled call that reads the event (a dict in place, by its address:
        # fastpath.read_dict), checks it and learns it (engine.learn_one_binary); anything
        # else (a new label, NaN, another task, an unusual x) takes the checked path below.
        # Every NumPy call saved here is about a tenth of the budget.
        if (
            cost is None
            and len(classes) == 2
            and (type(y) in _SCALAR_LABELS or np.ndim(y) == 0)
            and getattr(self, "task_", "binary") == "binary"  # self._task, inlined
        ):
            # Python values compare faster than NumPy scalars, and a label exactly equal to
            # a class is equal to it for NumPy too; only a label equal to neither is
            # compared again as NumPy compares (e.g. 0.1 to a float32 class 0.1: equal).
            if y == classes.item(1):
                y_signed = 1.0
            elif y == classes.item(0):
                y_signed = -1.0
            else:
                y_signed = 1.0 if y == classes[1] else -1.0 if y == classes[0] else 0.0
            if y_signed:
                if type(x) is dict:
                    first, second = id(x), len(x)  # read in place (x keeps it alive)
                else:
                    first, second = _events.fast_event(x) or self._sparse_row(x)
                n = self.n_features_in_
                state = (self.weights_, self.average_sums_, self.variances_,
                         self.precision_cholesky_, self.stats_)  # fmt: skip
                config = (self._cfg, self._hp, self._opts)
                problem = _learn_one_binary(first, second, y_signed, n, state, config)
                if problem == _UNREADABLE:  # names, values the compiled read declines, a repeat
                    idx, val = _events.named_event(x, n) or self._sparse_row(x)
                    problem = _learn_one_binary(idx, val, y_signed, n, state, config)
                if problem == engine.NOT_LEARNED:
                    warn_not_learned(1)
                    return
                if problem > 0:
                    _events.raise_problem(x, self.n_features_in_)
                if problem < 0:  # not the plain binary case: the general round
                    idx, val = self._sparse_row(x)
                    state = self._engine_state()
                    warn_not_learned(engine.run_one(idx, val, y_signed, 1.0, *state))
                return
        idx, val = self._sparse_row(x)
        if isinstance(y, float | np.floating) and not np.isfinite(y):
            raise ValueError("y contains NaN or infinity.")
        if self._task == "binary" and cost is None and np.ndim(y) == 0:
            self._grow_classes_one(y)
            if self._task == "binary":
                y_signed = 1.0 if len(self.classes_) == 1 or y == self.classes_[1] else -1.0
                warn_not_learned(engine.run_one(idx, val, y_signed, 1.0, *self._engine_state()))
                return
        if self._task == "multilabel":
            Y = check_indicator(np.asarray(y).reshape(1, -1))
            if Y.shape[1] != len(self.classes_):
                raise ValueError(f"y must have {len(self.classes_)} labels.")
            warn_not_learned(engine.run_one_task(idx, val, 0.0, Y[0], 1.0, *self._engine_state()))
            return
        if self._task.startswith("cost"):
            if cost is None:
                raise ValueError("a cost-sensitive model needs the example's cost vector.")
            index = int(np.searchsorted(self.classes_, y))
            if index >= len(self.classes_) or self.classes_[index] != y:
                raise ValueError(f"unknown label {y!r} for a cost-sensitive model.")
            row = check_cost(np.asarray(cost).reshape(1, -1), [index], len(self.classes_))
            state = self._engine_state()
            warn_not_learned(engine.run_one_task(idx, val, float(index), row[0], 1.0, *state))
            return
        self._grow_classes_one(y)
        index = float(np.searchsorted(self.classes_, y))
        warn_not_learned(engine.run_one(idx, val, index, 1.0, *self._engine_state()))

    def _learn_first_event(self, x, y, cost, n_features, sample_weight=None) -> None:
        """learn_one on an unfitted model: ``partial_fit`` on the event as a one-row CSR
        matrix of ``n_features`` columns (every check and the set-up are partial_fit's)."""
        # (partial_fit would say "cost-sensitive learning needs at least two classes")
        if cost is not None and "weights_" not in self.__dict__:
            raise ValueError(
                "learn_one cannot start a cost-sensitive model: one event does not tell its "
                "classes (the columns of cost). Start it with partial_fit(X, y, "
                "classes=[...], cost=...); learn_one(x, y, cost=...) then goes on from it."
            )
        row = event_matrix(x, check_event_width(self, n_features))
        Y = np.asarray(y)
        Y = Y.reshape(1, -1) if Y.ndim == 1 and Y.shape[0] > 1 else Y.reshape(1)
        self.partial_fit(row, Y, cost=None if cost is None else np.asarray(cost).reshape(1, -1),
                         sample_weight=sample_weight)  # fmt: skip

    def _learn_weighted_event(self, x, y, cost, n_features, sample_weight) -> None:
        """learn_one of a weighted event: a one-row ``partial_fit`` (its checks, its label
        handling, the weighted round)."""
        weight = None if sample_weight is None else np.asarray(sample_weight, float).reshape(-1)
        if weight is not None and check_sample_weight(weight, 1) is not None and weight[0] == 0:
            # Weight 0: as if the event were absent — checked, not learned; an unfitted
            # model stays unfitted and no label is added.
            self._check_skipped_event(x, n_features)
            return
        classes = getattr(self, "classes_", ())
        if (
            self.class_weight is None
            and cost is None
            and "weights_" in self.__dict__
            and len(classes) == 2
            and self._task == "binary"
            and np.ndim(y) == 0
            and (y == classes[0] or y == classes[1])
            and (n_features is None or n_features == self.n_features_in_)
        ):
            checked = check_sample_weight(weight, 1)
            self._check_ready()
            idx, val = self._sparse_row(x)  # (every check of the event)
            h = 1.0 if checked is None else float(checked[0])
            if h == 0.0:  # not learned, not counted
                return
            y_signed = 1.0 if y == classes[1] else -1.0
            if engine.run_one(idx, val, y_signed, h, *self._engine_state()):
                warn_not_learned(1)
            return
        if "weights_" not in self.__dict__:
            self._learn_first_event(x, y, cost, n_features, weight)
            return
        self._check_fitted_width(n_features)
        self._learn_first_event(x, y, cost, self.n_features_in_, weight)

    def _grow_classes_one(self, y) -> None:
        if y is None or (isinstance(y, float) and not np.isfinite(y)):
            raise ValueError(f"y is {y}, not a label.")
        seen = np.asarray([y])
        check_label_kind(self.classes_, seen)
        if not np.isin(seen, self.classes_).all():
            self._check_y(seen)  # a new label is checked as partial_fit checks it (0.5 is no class)
            classes = np.union1d(self.classes_, seen)
            self._grow_classes(classes, self._label_task(len(classes), None))

    def predict_one(self, x):
        """Predicted label of one example ``x`` (a dict ``{feature: value}`` or ``(indices,
        values)``, as for :meth:`learn_one`); None before the model has seen a label, as in
        River. A feature beyond the model's width was never seen in training: it is ignored
        (its weight is 0, as with hashing)."""
        if "weights_" not in self.__dict__:
            return None
        self._check_ready()
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=False)
        classes = self.classes_
        if len(classes) == 2 and self._task == "binary":
            # One compiled call checks the event and scores it (for an averaged model, the
            # average along x in O(nnz), never the whole average): fastpath.binary_score.
            rounds = self.stats_[engine.STAT_ROUNDS] if self._averaged() else 0.0
            bias = self._opts[engine.OPT_BIAS]
            n = self.n_features_in_
            W, A = self.weights_, self.average_sums_
            if type(x) is dict:
                first, second = id(x), len(x)  # read in place (x keeps it alive)
            else:
                first, second = _events.fast_event(x) or self._event_scored(x)
            problem, score = fastpath.binary_score(first, second, n, W, A, bias, rounds)
            if problem == _UNREADABLE:  # names, values the compiled read declines, a repeat
                idx, val = _events.named_event(x, n) or self._event_scored(x)
                problem, score = fastpath.binary_score(idx, val, n, W, A, bias, rounds)
            if problem:
                self._event_scored(x)  # raises the precise error
                raise ValueError("x cannot be scored: an index is negative or a value not finite.")
            return classes[1] if score > 0 else classes[0]
        task = self._task
        if task == "binary":
            self._event_scored(x)  # checked all the same
            return classes[0]  # a model that has seen one class
        scores = self._event_scores(x)
        if task == "multilabel":
            k = len(self.classes_)
            threshold = scores[k] if self.label_threshold is None else self.label_threshold
            return (scores[:k] > threshold).astype(np.int64)
        return self.classes_[int(np.argmax(scores))]

    def _event_scored(self, x):
        """The event to score as (indices, values): features beyond the width dropped."""
        return _events.event_arrays(x, self.n_features_in_, unseen=True)

    def _event_scores(self, x):
        """Scores of every parameter row on one event (``fastpath.csr_scores``)."""
        idx, val = self._event_scored(x)
        rows = Rows(val, np.array([0, len(idx)], dtype=np.int64), idx,
                    (1, self.n_features_in_), True)  # fmt: skip
        return self._scores(rows)[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.classifier_tags.multi_label = True
        return tags


_learn_one_binary = engine.learn_one_binary

#: The dtypes of C-contiguous dense rows that ``engine.DENSE_PASSES`` read in place.
_DENSE_PASS_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
#: Values per block when dense rows are converted as the loop reads them (``_run_blocks``):
#: 1 MiB of float64, converted into a buffer that stays in cache.
_BLOCK_VALUES = 1 << 17


def _raise_if_not_finite(rows: Rows) -> None:
    """The error of a NaN or infinite value in X, if it holds one (naming the first such
    row of CSR rows, as their check before learning does)."""
    if rows.sparse:
        verdict, row = fastpath.csr_scan(rows.indptr, rows.indices, rows.data, rows.shape[1],
                                         True)  # fmt: skip
        if verdict < 0:
            raise_rows_problem(verdict, row, rows.shape[1])
    elif not all_finite(rows.data):
        raise not_finite_error(rows.data)


_UNREADABLE = fastpath.UNREADABLE
#: The order of a one-row pass (the loop only reads it).
_ORDER_ONE = np.zeros(1, dtype=np.int64)
#: ``np.arange(n)`` of the last few chunk sizes (the loops never write it): a stream's chunks
#: mostly share one size.
_ORDERS: dict[int, np.ndarray] = {}


#: What each fitted model was last given as ``classes`` by ``partial_fit`` and found to be
#: its labels (``_announced``), with the ``classes_`` it was compared with.
_ANNOUNCED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: Each model's ``_state_buffer``, kept from chunk to chunk by ``_partial_fit_chunk`` (once
#: a chunk is learned: a refused call leaves nothing). Not an attribute: a copy of the model
#: (pickle, deep copy) would copy the views as arrays of their own, and a model file has no
#: place for it.
_CHUNK_BUFFERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _same_arrays(a: tuple, b: tuple) -> bool:
    """Whether two states hold the same array objects."""
    return a[0] is b[0] and a[1] is b[1] and a[2] is b[2] and a[3] is b[3] and a[4] is b[4]


#: ``partial_fit`` journals the pass over CSR rows (``_journaled_pass``) of a chunk of at
#: least ``_JOURNAL_MIN_VALUES`` values (≈ 1.5 MiB with int32 indices), when the journal takes
#: at most ``_JOURNAL_MAX_BYTES``; other chunks check their values first. Checking reads the
#: chunk once more, but a chunk that stays in the L2 cache (2 MiB a core here) is then
#: learned from the cache: on 2²⁰ features, 80 values a row, checking first measured 2–14 %
#: faster than the journal in chunks of 100–1,000 rows, up to 10 % slower from 2,000 rows
#: (benchmarks/README.md, "chunks").
#: Each thread keeps its journal's array from call to call (made anew, its pages would be
#: faulted in at every chunk).
_JOURNAL_MIN_VALUES = 1 << 17
_JOURNAL_MAX_BYTES = 16 << 20
_JOURNALS = threading.local()


def _journal_pays(cfg, n_rows: int, n_values: int) -> bool:
    """Whether the pass of a plain binary model (configuration ``cfg``) over a chunk of
    ``n_rows`` CSR rows holding ``n_values`` values keeps a journal, rather than the values
    being checked first: a first-order model without averaging (the others' second array to
    write down measured slower than checking), a chunk too large to stay in the cache."""
    return (
        cfg[engine.CFG_REPRESENTATION] == LINEAR
        and not cfg[engine.CFG_AVERAGE]
        and _JOURNAL_MIN_VALUES <= n_values
        and 8 * _journal.size(n_rows, n_values) <= _JOURNAL_MAX_BYTES
    )


def _journal_buffer(n_rows: int, n_values: int) -> np.ndarray:
    """This thread's journal, grown to hold a pass over ``n_rows`` rows of ``n_values``
    values, set for it."""
    size = _journal.size(n_rows, n_values)
    kept = getattr(_JOURNALS, "array", None)
    if kept is None or kept.shape[0] < size:
        kept = _JOURNALS.array = np.empty(size)
    return _journal.prepared(kept, n_rows)


def _state_buffer(state) -> tuple:
    """``(state, flat_state, saved, signed)`` for ``fastpath.chunk_labels``: 1-D views of the
    state's C-contiguous arrays, an array to save them in, one after the other, and the
    buffers of signed labels by chunk length (``_signed_labels_buffer``)."""
    flat = tuple(array.reshape(-1) for array in state)
    return state, flat, np.empty(sum(array.size for array in flat)), {}


def _signed_labels_buffer(buffers: dict, n: int) -> np.ndarray:
    """A buffer of ``n`` signed labels, kept for the next chunks of that length (a stream's
    chunks have one or two lengths: its own and the last one's)."""
    if len(buffers) >= 4:
        buffers.clear()
    buffers[n] = buffer = np.empty(n)
    return buffer


def _restore(buffer: tuple) -> None:
    """Put back the state's arrays from ``saved`` (``_state_buffer``)."""
    _, flat, saved, _ = buffer
    start = 0
    for array in flat:
        array[...] = saved[start : start + array.size]
        start += array.size


def _order(n: int) -> np.ndarray:
    order = _ORDERS.get(n)
    if order is None:
        if len(_ORDERS) >= 8:
            _ORDERS.clear()
        order = _ORDERS[n] = np.arange(n)
    return order


def _as_1d(values):
    """``column_or_1d`` without its generic checks for the common case, a 1-D array (or a
    flat list of numbers or strings)."""
    if type(values) is list:
        array = np.asarray(values)
        if array.ndim == 1 and array.dtype.kind in "biufUS":
            return array
    if type(values) is np.ndarray and values.ndim == 1 and values.dtype.kind in "biufUS":
        return values
    return column_or_1d(values)


def _announcement(classes):
    """What equal announcements of ``classes`` share: a small list's or array's values
    (and their types: ``[0, 1]`` and ``[False, True]`` are not the same labels), a large
    array's identity (streams pass the same object; its values are not read again), None
    for anything else (read at every call)."""
    if type(classes) is np.ndarray:
        if classes.dtype.kind == "O":
            return None
        if classes.size > 64:
            return id(classes), classes
        return classes.dtype, classes.shape, classes.tobytes()
    if type(classes) in (list, tuple) and len(classes) <= 64:
        types = tuple(map(type, classes))
        if _SCALAR_LABELS.issuperset(types):
            return types, tuple(classes)
    return None


#: Label dtypes that ``_partial_fit_fast`` encodes in compiled code (one specialisation
#: each pair of y's and the classes' types).
_FLOAT64 = np.dtype(np.float64)
_FLOAT32 = np.dtype(np.float32)
_COMPILED_LABELS = frozenset(np.dtype(t) for t in (np.float64, np.int64, np.int32))
_INDEX_TYPES = frozenset(np.dtype(t) for t in (np.int32, np.int64))

#: One row's signed label (the loops never write y; writable: a read-only array would be
#: another type for numba, compiled again).
_PLUS_ONE, _MINUS_ONE = np.ones(1), -np.ones(1)

#: Label types that are scalars without asking NumPy (``np.ndim`` costs ~1 µs).
_SCALAR_LABELS = frozenset(
    {int, float, str, bool, np.float64, np.float32, np.int64, np.int32, np.str_, np.bool_}
)


def _two_labels(y):
    """The distinct labels (sorted) of a plain numeric 1-D label array with at most two
    values — what ``_check_y`` accepts and ``np.unique`` finds — in a few vectorised passes
    instead of two sorts; None for anything else (the generic checks then run)."""
    if type(y) is not np.ndarray or y.ndim != 1 or y.dtype.kind not in "iuf" or not y.size:
        return None
    lo = y.min()
    hi = y.max()
    if y.dtype.kind == "f" and not (
        np.isfinite(lo) and np.isfinite(hi) and lo == np.floor(lo) and hi == np.floor(hi)
    ):
        return None  # NaN, inf or non-integral values: "continuous", rejected by the checks
    if not ((y == lo) | (y == hi)).all():
        return None
    return np.array([lo] if lo == hi else [lo, hi], dtype=y.dtype)


def _is_indicator(y) -> bool:
    if sp.issparse(y):
        return True
    y = np.asarray(y)
    return y.ndim == 2 and y.shape[1] > 1


class SecondOrderMixin:
    """Shared by the models that keep a covariance: ``covariance_`` and, for the Gaussian
    (confidence-weighted) ones, ``predict_proba``.

    Attributes
    ----------
    covariance_ : ndarray
        Σ over the features (intercept excluded): (n_features,) variances for diagonal
        models, (n_features, n_features) for full ones; one block per class for multiclass
        models, (k, n_features) or (k, n_features, n_features).
    """

    @property
    def covariance_(self):
        """Σ over the features (intercept excluded): the variance vector for diagonal
        models, the (d, d) matrix for full ones (the stored precision factor, inverted).
        Multiclass models keep one block per class: shape (k, d) or (k, d, d)."""
        check_is_fitted(self)
        if self._representation == DIAGONAL:
            blocks = self.variances_[:, :-1].copy()
        else:
            from scipy.linalg import cho_solve

            blocks = []
            for L in self.precision_cholesky_:
                sigma = cho_solve((L, True), np.eye(L.shape[0]))
                blocks.append(((sigma + sigma.T) / 2)[:-1, :-1])
            blocks = np.array(blocks)
        return blocks[0] if len(blocks) == 1 else blocks

    def _confidences(self, rows: Rows):
        """v_r = x̃ᵀΣ_r x̃ for every row and every class block r: shape (n, k) (k = 1 for
        binary models; the intercept coordinate included; features beyond the training
        width, never seen, ignored). Sparse rows must have been summed (``_probability_rows``:
        v squares each stored value)."""
        bias = self._opts[engine.OPT_BIAS]
        width = self.n_features_in_
        if self._representation == DIAGONAL:
            S = self.variances_
            if rows.sparse:
                out = np.empty((rows.shape[0], S.shape[0]))
                fastpath.csr_confidences(rows.indptr, rows.indices, rows.data, S, bias, out)
                return out
            X = rows.data
            return np.asarray((X * X) @ S[:, :-1].T) + S[:, -1] * bias * bias
        from scipy.linalg import solve_triangular

        if rows.sparse:
            shape = (rows.shape[0], max(rows.shape[1], width))
            matrix = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=shape)
            Xt = matrix[:, :width].toarray()
        else:
            Xt = rows.dense_float64()
        Xt = np.hstack([Xt, np.full((Xt.shape[0], 1), bias)])
        out = np.empty((Xt.shape[0], len(self.precision_cholesky_)))
        for r, L in enumerate(self.precision_cholesky_):
            Z = solve_triangular(L, Xt.T, lower=True)
            out[:, r] = (Z * Z).sum(axis=0)
        return out

    def _probability_rows(self, X) -> Rows:
        """X for ``predict_proba``: scored rows, sparse ones summed (``_confidences``)."""
        rows = as_rows(self, X, reset=False, learn=False)
        if rows.sparse:
            verdict, row = fastpath.csr_scan(rows.indptr, rows.indices, rows.data,
                                             rows.shape[1], True)  # fmt: skip
            if verdict == fastpath.DUPLICATES:
                data, indptr, indices = summed_repeats(rows.data, rows.indptr, rows.indices,
                                                       rows.shape)  # fmt: skip
                rows = rows._replace(data=data, indptr=indptr, indices=indices)
            elif verdict < 0:
                raise_rows_problem(verdict, row, rows.shape[1])
        return rows


class GaussianProbaMixin(SecondOrderMixin):
    def _has_proba(self) -> bool:
        return not hasattr(self, "task_") or self._task != "multilabel"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """The model's belief in each class: the probability that weights drawn from its
        Gaussian N(μ, Σ) classify x as that class.

        Binary models: P(y = classes_[1] | x) = Φ(s / √v), s = μ·x̃ and v = x̃ᵀΣx̃.

        Multiclass models keep one Gaussian N(μ_r, Σ_r) per class (the block-diagonal Σ of
        the multi-prototype update), so the class scores are independent Gaussians
        s_r ~ N(m_r, v_r) with m_r = μ_r·x̃ and v_r = x̃ᵀΣ_r x̃, and

            P(r | x) = P(s_r > s_q for every q ≠ r)
                     = ∫ φ((t − m_r)/√v_r)/√v_r · Π_{q≠r} Φ((t − m_q)/√v_q) dt,

        computed by Gauss–Hermite quadrature (``max_probabilities``). With two classes and a
        single row of weights this is the binary formula. The rows sum to 1; the most
        probable class is ``predict``'s (the highest mean score) whenever the classes'
        variances are equal, and may differ where a class with a slightly lower mean is
        much more certain. A belief, not a calibrated probability."""
        self._check_ready()
        return self._probabilities(self._probability_rows(X))

    def _probabilities(self, rows: Rows):
        from scipy.special import ndtr

        s = self._scores(rows)
        v = np.maximum(self._confidences(rows), np.finfo(float).tiny)
        if s.shape[1] > 1:
            return max_probabilities(s, v)
        p = ndtr(s[:, 0] / np.sqrt(v[:, 0]))
        if len(self.classes_) == 1:
            return np.ones((len(p), 1))
        return np.column_stack([1.0 - p, p])

    @available_if(_has_proba)
    def predict_proba_one(self, x) -> dict:
        """``predict_proba`` of one event ``x`` (as for ``learn_one``), as River gives it: a dict
        ``{label: probability}``; empty before the model has seen a label. Like
        ``predict_proba``, absent from a multilabel model."""
        if "weights_" not in self.__dict__:
            return {}
        self._check_ready()
        if "feature_names_in_" in self.__dict__ and type(x) is dict:
            x = self._by_name(x, learn=False)
        idx, val = self._event_scored(x)
        rows = Rows(val, np.array([0, len(idx)], dtype=np.int64), idx,
                    (1, self.n_features_in_), True)  # fmt: skip
        p = self._probabilities(rows)[0]
        return dict(zip(self.classes_.tolist(), p.tolist(), strict=True))


def max_probabilities(means, variances):
    """P(s_r is the largest of the k scores) for independent Gaussian scores
    s_r ~ N(means[:, r], variances[:, r]): shape (n, k), rows summing to 1.

    With t = m_r + √(2 v_r)·u the integral of ``GaussianProbaMixin.predict_proba`` is
    π^(−1/2) ∫ e^(−u²) Π_{q≠r} Φ((t − m_q)/√v_q) du, a 64-point Gauss–Hermite sum of
    products summed as logarithms, compiled (``olearn.tasks.gaussian_max``: only the nodes
    and terms that can change the sum are computed, to 2⁻⁵⁸ of it). The error is below 1e-7
    (3·10⁻⁸ against the closed form of two classes whose standard deviations differ tenfold:
    tests/test_gaussian_proba.py)."""
    from olearn.tasks import gaussian_max

    means = np.ascontiguousarray(means, dtype=np.float64)
    sds = np.sqrt(np.ascontiguousarray(variances, dtype=np.float64))
    out = np.empty(means.shape)
    gaussian_max.max_probabilities(means, sds, *gaussian_max.hermite_rule(), out)
    return out


def covariance_constraint():
    return [StrOptions({"diagonal", "full"})]


def positive(closed="neither"):
    return [Interval(Real, 0, None, closed=closed)]
