"""What a round needs of a model, per family: its state as a tuple of arrays, how to start it
on the driver, how a worker rebuilds it and learns a block of rows, and how states mix.

Only arrays and small picklable descriptions cross the network: a worker rebuilds the model
from its *template* (class path, parameters, label set; built once per job) and the state
tuple of the round, and runs the compiled loop it loads from its own disk cache.
"""

from __future__ import annotations

import importlib

import numpy as np

from olearn import _layout
from olearn.distributed import MIXING
from olearn.representations import DIAGONAL, LINEAR


class LinearModel:
    """A linear model (``olearn.estimators._state.LinearState``: the Perceptron, PA, SOP, CW,
    AROW and SCW classifiers and the PA, AROW and SGD regressors) in a round.

    Its state is the loop's tuple ``(W, A, S, L, stats)`` (``olearn._layout``)."""

    def __init__(self, model):
        self.model = model
        # "seen" mixing: the partitions' sums of squares, gathered in the job's first round (a
        # property of each partition's rows: the same every round)
        self.sums_of_squares = None

    @staticmethod
    def accepts(model) -> bool:
        from olearn.estimators._state import LinearClassifierState, LinearRegressorState

        return isinstance(model, LinearClassifierState | LinearRegressorState)

    @property
    def classifies(self) -> bool:
        from olearn.estimators._state import LinearClassifierState

        return isinstance(self.model, LinearClassifierState)

    @property
    def regression(self) -> bool:
        from olearn.tasks import REGRESSION

        return self.model._task_code() == REGRESSION

    # -- the driver ---------------------------------------------------------------------------

    needs_sample = False
    sentences = False

    def begin(self, n_features: int, classes, sample=None) -> None:
        """A fresh model of width ``n_features`` for the label set ``classes`` (sorted; None
        for regressors), as ``fit`` allocates it."""
        model = self.model
        if hasattr(model, "_validate_params"):
            model._validate_params()
        else:
            model._check_parameter_combination()
        model.n_features_in_ = int(n_features)
        if self.classifies:
            if classes is None or len(classes) == 0:
                raise ValueError("no labels: the data holds no examples")
            model._start(int(n_features), model._label_task(len(classes), None), classes)
        else:
            model._allocate(int(n_features))
        model.n_iter_ = 0

    @property
    def fitted(self) -> bool:
        return hasattr(self.model, "weights_")

    def state(self) -> tuple:
        m = self.model
        return (m.weights_, m.average_sums_, m.variances_, m.precision_cholesky_, m.stats_)

    def set_state(self, state, rounds: int) -> None:
        m = self.model
        m.weights_, m.average_sums_, m.variances_, m.precision_cholesky_, m.stats_ = state
        m.n_iter_ = int(rounds)

    def template(self, mixing: str = "auto") -> dict:
        """What a worker needs to rebuild the model (small; sent with every task), and whether
        the workers must sum the squares of each coordinate over their rows: for "seen"
        mixing, until a round has returned them (``merge`` keeps them)."""
        m = self.model
        fitted = {"n_features_in_": m.n_features_in_}
        if self.classifies:
            fitted.update(classes_=m.classes_, task_=m.task_)
        cls = type(m)
        rule = resolve_mixing(m._representation, self.regression, mixing)
        return {
            "family": "linear",
            "path": f"{cls.__module__}.{cls.__qualname__}",
            "params": m.get_params(deep=False),
            "fitted": fitted,
            "seen": rule == "seen" and self.sums_of_squares is None,
        }

    def check_mixing(self, mixing: str) -> None:
        resolve_mixing(self.model._representation, self.regression, mixing)

    def merge(self, states, start, mixing: str):
        """The mixed state of one round (``representations.*.merge``; ``mixing.md``)."""
        from olearn.representations import diagonal, full, linear

        rep = self.model._representation
        rule = resolve_mixing(rep, self.regression, mixing)
        seen = None
        if rule == "seen":
            # a partition's result carries its sums of squares after the state in the job's
            # first round; later rounds reuse them
            if all(s[5] is not None for s in states):
                self.sums_of_squares = [s[5] for s in states]
            seen = self.sums_of_squares
            if seen is None or len(seen) != len(states):
                raise ValueError("seen mixing: the partitions' sums of squares are missing")
        states = [folded(s[:5]) for s in states]
        weights = shard_weights(states, start, rule)
        if rep == LINEAR:
            return linear.merge(
                states, weights, start, changed=rule == "changed", coordinate_weights=seen
            )
        combine = {"uniform": "average", "updates": "average"}.get(rule, rule)
        module = diagonal if rep == DIAGONAL else full
        return module.merge(states, weights, start, combine=combine)

    @staticmethod
    def not_learned(states) -> int:
        """The rows of a round's partitions not learned (``_learn_linear``)."""
        return sum(int(s[6]) for s in states)

    def describe(self) -> str:
        return type(self.model).__name__


def folded(state):
    """The state with the weight scale of gradient rules folded into the weights (the workers
    leave it to the driver, once per pass as ``fit`` does)."""
    scale = state[-1][_layout.STAT_SCALE]
    if scale == 1.0:
        return state
    stats = state[-1].copy()
    stats[_layout.STAT_SCALE] = 1.0
    return (state[0] * scale, *state[1:-1], stats)


def resolve_mixing(representation: int, regression: bool, mixing: str) -> str:
    """The rule ``mixing`` names for a representation: "auto" is "seen" for first-order
    models, "summed" for second-order regressors (exact for full AROW regression), else
    "precision" (``docs/distributed.md`` derives each)."""
    if mixing not in MIXING:
        raise ValueError(f"mixing must be one of {', '.join(MIXING)}; got {mixing!r}")
    if representation == LINEAR:
        allowed = ("seen", "changed", "uniform", "updates")
        rule = "seen" if mixing == "auto" else mixing
        kind = "a first-order model"
    else:
        allowed = ("precision", "summed", "uniform", "updates")
        rule = mixing if mixing != "auto" else ("summed" if regression else "precision")
        kind = "a second-order model"
    if rule not in allowed:
        raise ValueError(f"mixing={mixing!r} does not apply to {kind}; use one of {allowed}")
    return rule


def shard_weights(states, start, rule: str) -> np.ndarray:
    """Uniform weights, or (``"updates"``) each shard's number of updates in the round
    (McDonald et al.'s update-count weighting; uniform when no shard updated)."""
    if rule != "updates":
        return np.full(len(states), 1.0 / len(states))
    before = start[-1][_layout.STAT_UPDATES]
    return np.array([s[-1][_layout.STAT_UPDATES] - before for s in states], dtype=np.float64)


class KernelModel:
    """A kernel model (``olearn.estimators.kernel``: kernel Perceptron, PA, NORMA, Pegasos,
    budgeted SGD) with a built-in kernel. Its state is the kernel loop's tuple
    (``kernels.loop.STATE``); mixing is ``kernels.merge``."""

    needs_sample = True  # the first block sets gamma ("scale"), the storage and its sizes
    sentences = False

    def __init__(self, model):
        self.model = model

    @staticmethod
    def accepts(model) -> bool:
        from olearn.estimators.kernel import _KernelModel

        return isinstance(model, _KernelModel)

    @property
    def classifies(self) -> bool:
        return not self.regression

    @property
    def regression(self) -> bool:
        return self.model._task == "regression"

    @property
    def fitted(self) -> bool:
        return hasattr(self.model, "_A")

    def check_mixing(self, mixing: str) -> None:
        _kernel_rule(mixing)

    def begin(self, n_features: int, classes, sample) -> None:
        """A fresh expansion, its storage and ``gamma_`` decided on ``sample``, the first
        block's rows (as ``partial_fit`` decides them on its first batch)."""
        if callable(self.model.kernel):
            raise ValueError(
                "distributed training needs a built-in kernel (a user's compiled function "
                "cannot be sent to the workers)"
            )
        self.model._begin(_matrix(sample, n_features), classes)

    def state(self) -> tuple:
        from olearn.kernels.loop import STATE

        return tuple(getattr(self.model, name) for name in STATE)

    def set_state(self, state, rounds: int) -> None:
        from olearn.kernels.loop import STATE

        for name, value in zip(STATE, state, strict=True):
            setattr(self.model, name, value)
        self.model.n_iter_ = int(rounds)

    def template(self, mixing: str = "auto") -> dict:
        m = self.model
        fitted = {name: getattr(m, name) for name in _KERNEL_FITTED if hasattr(m, name)}
        cls = type(m)
        return {
            "family": "kernel",
            "path": f"{cls.__module__}.{cls.__qualname__}",
            "params": m.get_params(deep=False),
            "fitted": fitted,
        }

    def merge(self, states, start, mixing: str):
        from olearn.kernels import merge

        rule = _kernel_rule(mixing)
        weights = shard_weights(states, start, rule)
        m = self.model
        config = (m._cfg, m._hp, m._kp, m._opts)
        return merge.merge(states, weights, start, config, sparse=m._sparse_storage,
                           changed=rule == "changed")  # fmt: skip

    @staticmethod
    def not_learned(states) -> int:
        """0: the kernel loop learns every row (a non-finite kernel value raises)."""
        return 0

    def describe(self) -> str:
        return type(self.model).__name__


class TaggerModel:
    """The sequence tagger (``olearn.structured.tagger.SequenceTagger``) on a Dask bag of
    ``(tokens, tags)`` pairs. Its state is ``(w, a, s, stats, label_counts)``; partitions
    return sparse deltas (``structured.merge``), never a copy of the weights."""

    needs_sample = False
    sentences = True
    classifies = True
    regression = False

    def __init__(self, model):
        self.model = model

    @staticmethod
    def accepts(model) -> bool:
        from olearn.structured.tagger import SequenceTagger

        return isinstance(model, SequenceTagger)

    @property
    def fitted(self) -> bool:
        return hasattr(self.model, "weights_")

    def _rule(self, mixing: str) -> str:
        if mixing not in MIXING:
            raise ValueError(f"mixing must be one of {', '.join(MIXING)}; got {mixing!r}")
        if self.model.rule == "AROW":
            allowed = ("precision", "uniform", "updates")
            rule = "precision" if mixing == "auto" else mixing
        else:
            allowed = ("changed", "uniform", "updates")
            rule = "changed" if mixing == "auto" else mixing
        if rule not in allowed:
            raise ValueError(
                f"mixing={mixing!r} does not apply to a {self.model.rule} tagger; use {allowed}"
            )
        return rule

    def check_mixing(self, mixing: str) -> None:
        self._rule(mixing)

    def begin(self, n_features, classes, sample=None) -> None:
        self.model._validate_params()
        if classes is None or len(classes) == 0:
            raise ValueError("no labels: the data holds no tokens")
        self.model._initialise([str(c) for c in classes])

    def state(self) -> tuple:
        m = self.model
        return (m.weights_, m.average_sums_, m.variances_, m.stats_, m.label_counts_)

    def set_state(self, state, rounds: int) -> None:
        m = self.model
        m.weights_, m.average_sums_, m.variances_, m.stats_, m.label_counts_ = state
        m.__dict__.pop("_averaged_cache", None)

    def template(self, mixing: str = "auto") -> dict:
        cls = type(self.model)
        return {
            "family": "tagger",
            "path": f"{cls.__module__}.{cls.__qualname__}",
            "params": self.model.get_params(deep=False),
            "fitted": {"classes_": self.model.classes_},
        }

    def merge(self, deltas, start, mixing: str):
        from olearn.structured import merge

        rule = self._rule(mixing)
        weights = np.full(len(deltas), 1.0 / len(deltas))
        if rule == "updates":
            weights = np.array([d.stats[2] - start[3][2] for d in deltas], dtype=np.float64)
        combine = (
            rule if self.model.rule != "AROW" else {"precision": "precision"}.get(rule, "average")
        )
        if combine == "updates":
            combine = "uniform"
        return merge.merge(deltas, weights, start, combine=combine)

    @staticmethod
    def not_learned(states) -> int:
        """0: the tagger learns every sentence."""
        return 0

    def describe(self) -> str:
        return "SequenceTagger"


def sentence_pairs(pairs) -> tuple[list, list]:
    """The sentences and tag sequences of a bag partition's ``(tokens, tags)`` pairs,
    checked as ``SequenceTagger.fit`` checks them (a str is not a list of tokens or tags:
    ``list("NOUN")`` would be the four tags N, O, U, N)."""
    from olearn.structured.tagger import _check_sentences, _check_tags

    for q, pair in enumerate(pairs):
        if not (isinstance(pair, tuple | list) and len(pair) == 2):
            raise ValueError(f"sentence {q} is not a (tokens, tags) pair: {pair!r:.80}")
    X = _check_sentences([tokens for tokens, _ in pairs])
    y = _check_tags([tags for _, tags in pairs])
    return X, y


def learn_sentences(template: dict, start: tuple, previous, pairs, seed):
    """A tagger task: one pass over the sentences ``pairs`` from ``start`` changed by
    ``previous`` (the partition's delta so far); the partition's new delta."""
    from olearn.structured import merge

    proto = _prototype(template)
    model = object.__new__(type(proto))
    model.__dict__.update(proto.__dict__)
    w, a, s, stats, counts = merge.applied(start, previous)
    model.weights_, model.average_sums_, model.variances_ = w, a, s
    model.stats_, model.label_counts_ = stats, counts
    pairs = list(pairs)
    if pairs:
        X, y = sentence_pairs(pairs)
        encoded = model._encode_X(X)
        codes = model._encode_y(X, y, encoded[2])
        if seed is not None:
            model.random_state = int(np.random.SeedSequence(list(seed)).generate_state(1)[0])
        model._run(encoded, codes, 1, seed is not None)
    return merge.delta(
        (model.weights_, model.average_sums_, model.variances_, model.stats_,
         model.label_counts_),
        start,
    )  # fmt: skip


_KERNEL_FITTED = ("n_features_in_", "classes_", "gamma_", "_sparse_storage", "_jitter")


def _kernel_rule(mixing: str) -> str:
    """Kernel models mix the functions: "auto" is "uniform"."""
    if mixing not in MIXING:
        raise ValueError(f"mixing must be one of {', '.join(MIXING)}; got {mixing!r}")
    allowed = ("uniform", "updates", "changed")
    rule = "uniform" if mixing == "auto" else mixing
    if rule not in allowed:
        raise ValueError(f"mixing={mixing!r} does not apply to a kernel model; use {allowed}")
    return rule


def _matrix(rows, n_features: int):
    """One ``(data, indptr, indices, y)`` part as a matrix of width ``n_features``."""
    data, indptr, indices, y = rows
    if indptr is None:
        return data
    import scipy.sparse as sp

    return sp.csr_matrix((data, indices, indptr), shape=(y.shape[0], n_features))


def family_of(model):
    """The adapter of ``model``, or a TypeError naming what distributed training supports."""
    for family in (LinearModel, KernelModel, TaggerModel):
        if family.accepts(model):
            return family(model)
    raise TypeError(
        f"olearn.distributed.fit trains olearn's linear classifiers and regressors, its "
        f"kernel models and the sequence tagger; got {type(model).__name__}"
    )


# -- the workers --------------------------------------------------------------------------------

#: Per worker process: the models rebuilt from templates (by id of the template's path and
#: parameters), as prototypes whose ``__dict__`` each task copies.
_PROTOTYPES: dict = {}


def _prototype(template: dict):
    key = (template["path"], repr(sorted(template["params"].items())), repr(template["fitted"]))
    model = _PROTOTYPES.get(key)
    if model is None:
        model = _rebuild(template)
        _PROTOTYPES.clear()  # one job at a time per worker is the common case
        _PROTOTYPES[key] = model
    return model


def _rebuild(template: dict):
    """The model of ``template``: its headless form when the estimator has one (no
    scikit-learn import on the workers), else the estimator class; parameters and fitted
    label set set, the loop's configuration packed."""
    from olearn.estimators._headless import headless_model

    path, params = template["path"], dict(template["params"])
    model = headless_model(path, params)
    if model is None:
        module, _, name = path.rpartition(".")
        model = getattr(importlib.import_module(module), name)(**params)
    for key, value in template["fitted"].items():
        setattr(model, key, value)
    if template["family"] == "tagger":
        pass  # configured at each pass (``SequenceTagger._run``)
    elif template["family"] == "linear":
        model._configure()
    else:  # the kernel configuration reads the coefficient rows: a stand-in of their shape
        rows = (
            1 if not hasattr(model, "classes_") or len(model.classes_) <= 2 else len(model.classes_)
        )
        model._A = np.zeros((0, rows))
        model._configure()
    return model


def learn_rows(template: dict, state: tuple, rows, seed) -> tuple:
    """One pass over ``rows`` from a copy of ``state``, for the template's family."""
    if template["family"] == "kernel":
        return _learn_kernel(template, state, rows, seed)
    return _learn_linear(template, state, rows, seed)


def _learn_kernel(template: dict, state: tuple, rows, seed) -> tuple:
    from olearn.kernels.loop import STATE

    proto = _prototype(template)
    model = object.__new__(type(proto))
    model.__dict__.update(proto.__dict__)
    for name, value in zip(STATE, state, strict=True):
        setattr(model, name, np.array(value, copy=True))
    classes = getattr(model, "classes_", None)
    width = model.n_features_in_
    for part, block in enumerate(rows):
        y = block[3]
        if y.shape[0] == 0:
            continue
        X = _matrix(block, width)
        if model._sparse_storage and not hasattr(X, "tocsr"):
            import scipy.sparse as sp

            X = sp.csr_matrix(X)
        elif not model._sparse_storage and hasattr(X, "tocsr"):
            X = np.ascontiguousarray(X.toarray())
        if classes is not None:
            _check_labels(y, classes)
            y = model._encode(y)
        else:
            y = np.ascontiguousarray(y, dtype=np.float64)
        rng = np.random.RandomState(None if seed is None else [*seed, part])
        model._run(X, y, rng)
    return tuple(getattr(model, name) for name in STATE)


def _check_labels(y, classes) -> None:
    unknown = ~np.isin(y, classes)
    if unknown.any():
        label = y[unknown][0]
        label = label.item() if isinstance(label, np.generic) else label  # 2.0, not np.float64
        raise ValueError(
            f"label {label!r} is not in the label set {classes.tolist()} (given as classes=, "
            "or found by the pre-pass: did the data change?)"
        )


def _learn_linear(template: dict, state: tuple, rows, seed) -> tuple:
    """One pass over ``rows`` (an iterable of ``(data, indptr, indices, y)``: CSR arrays, or a
    dense 2-D ``data`` with ``indptr = indices = None``) from a copy of ``state``; the new
    state. ``seed``: None, or the seed of this block's shuffling.

    The result is the state followed by two entries that a partition's chain of blocks
    carries on (the round's broadcast state has neither): for the "seen" mixing
    (``template["seen"]``, else None) the sums of squares ``Σ x_j²`` of every coordinate over
    the partition's rows so far (the intercept's is the rows' count times its value
    squared), and the count of rows not learned so far (``engine.run_pass``'s: a non-finite
    confidence or step, which ``fit`` reports as sequential training does)."""
    from olearn import engine

    proto = _prototype(template)
    model = object.__new__(type(proto))
    model.__dict__.update(proto.__dict__)
    # the input state is shared (a broadcast, or the previous task's result): never mutated
    W, A, S, L, stats = (np.array(a, copy=True, order="K") for a in state[:5])
    carried = len(state) > 5  # a previous block's result
    seen = None
    if template.get("seen"):
        seen = np.array(state[5], copy=True) if carried else np.zeros(W.shape[1])
    not_learned = int(state[6]) if carried else 0
    model.weights_, model.average_sums_, model.variances_ = W, A, S
    model.precision_cholesky_, model.stats_ = L, stats
    classes = getattr(model, "classes_", None)
    for part, (data, indptr, indices, y) in enumerate(rows):
        n = y.shape[0]
        if n == 0:
            continue
        if classes is not None:
            _check_labels(y, classes)
            y_engine = model._encode(y)
        else:
            y_engine = np.ascontiguousarray(y, dtype=np.float64)
        if seed is None:
            order = np.arange(n)
        else:
            order = np.random.default_rng([*seed, part]).permutation(n)
        if not data.flags.writeable:
            data = data.copy()  # one compiled specialisation, as LinearState._run_arrays
        # The weight scale of gradient rules is folded once, by the driver before mixing (as
        # ``fit`` folds it once per pass), not after every block: bit for bit ``fit``.
        loop_state = model._engine_state()
        not_learned += engine.run_pass(data, indptr, indices, y_engine, order, *loop_state, None,
                                       model._binary_margin)  # fmt: skip
        if seen is not None:
            _add_squares(seen, data, indptr, indices, n, model._bias())
    return (model.weights_, model.average_sums_, model.variances_,
            model.precision_cholesky_, model.stats_, seen, not_learned)  # fmt: skip


def _add_squares(seen, data, indptr, indices, n: int, bias: float) -> None:
    """``seen[j] += Σ x_j²`` over the ``n`` rows (CSR arrays, or dense ``data``); the last
    coordinate, the intercept's, gets ``bias²`` a row. A row whose squares overflow is not
    learned (its ‖x̃‖² is infinite): it counts for nothing, as it changed nothing."""
    width = seen.shape[0] - 1
    with np.errstate(over="ignore"):
        if indptr is None:
            squares = data * data
            kept = np.isfinite(squares.sum(axis=1))
            squares[~kept] = 0.0
            seen[:width] += squares.sum(axis=0)
        else:
            start = indptr[0]
            squares = data[start : indptr[n]] ** 2
            rows = np.repeat(np.arange(n), np.diff(indptr[: n + 1]))
            kept = np.isfinite(np.bincount(rows, weights=squares, minlength=n))
            squares[~kept[rows]] = 0.0
            columns = indices[start : indptr[n]]
            seen[:width] += np.bincount(columns, weights=squares, minlength=width)[:width]
    seen[width] += np.count_nonzero(kept) * bias * bias
