"""Progressive validation with checkpoints, repeated permutations, held-out learning curves,
and a grid of models trained side by side over one pass.

Training is never a per-example Python loop: between two checkpoints every model gets one
``partial_fit`` call on the chunk of rows in between, and the compiled engine counts the online
mistakes and updates as it learns (``n_mistakes_``, ``n_updates_``), so the progressive
(online) mistake rate at each checkpoint is read from the model's counters.

"Side by side": all models step through the same chunks in lockstep — a chunk is read once, every
model learns from it, then the next chunk. A grid of configurations therefore costs one pass over
the data (the chunk stays in cache), not one pass per configuration. (A single compiled loop
updating every configuration per example would also share the row decoding; that would need a
change to the engine, which this module does not own.)
"""

from __future__ import annotations

import inspect
import json
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from olearn._layout import STAT_SQUARED_LOSS as _SQUARED_LOSS


def make_checkpoints(n: int, n_checkpoints: int = 20, *, spacing: str = "linear") -> np.ndarray:
    """Increasing example counts ending at ``n``: where the harness records its curves.

    Parameters
    ----------
    n : int
        Stream length.
    n_checkpoints : int, default=20
        At most this many checkpoints (fewer when ``n`` is small or log spacing collides).
    spacing : {"linear", "log"}, default="linear"
        Evenly spaced, or geometric (from 1), which shows the early rounds.

    Examples
    --------
    >>> from olearn.evaluation import make_checkpoints
    >>> make_checkpoints(1000, 4).tolist()
    [250, 500, 750, 1000]
    >>> make_checkpoints(1000, 4, spacing="log").tolist()
    [1, 10, 100, 1000]
    """
    if n < 1:
        raise ValueError(f"the stream is empty (n = {n}).")
    if n_checkpoints < 1:
        raise ValueError(f"n_checkpoints must be >= 1, got {n_checkpoints}.")
    if spacing == "linear":
        points = np.linspace(n / n_checkpoints, n, n_checkpoints)
    elif spacing == "log":
        points = np.geomspace(1, n, n_checkpoints)
    else:
        raise ValueError(f"spacing must be 'linear' or 'log', got {spacing!r}.")
    points = np.unique(np.clip(np.round(points).astype(np.int64), 1, n))
    points[-1] = n
    return points


def _check_checkpoints(checkpoints, n: int) -> np.ndarray:
    """``checkpoints`` as int64 example counts, strictly increasing within [1, n]. Whole
    numbers written as floats (``np.linspace``) are taken; a fraction of an example is not."""
    checkpoints = np.asarray(checkpoints)
    if checkpoints.dtype.kind == "f" and np.all(np.isfinite(checkpoints)):
        if np.any(checkpoints != np.round(checkpoints)):
            raise ValueError(f"checkpoints count examples: whole numbers, got {checkpoints}.")
        checkpoints = checkpoints.astype(np.int64)
    if checkpoints.dtype.kind not in "iu":
        raise ValueError(f"checkpoints count examples: whole numbers, got {checkpoints}.")
    if (
        checkpoints.ndim != 1
        or len(checkpoints) == 0
        or checkpoints[0] < 1
        or checkpoints[-1] > n
        or np.any(np.diff(checkpoints) <= 0)
    ):
        raise ValueError(f"checkpoints must increase strictly within [1, {n}].")
    return checkpoints.astype(np.int64)


@dataclass
class RunCurves:
    """Curves of several models over one stream order: arrays of shape (n_models, n_checkpoints)
    of cumulative online ``mistakes``, ``updates``, training ``seconds``, ``squared_loss`` (the
    squared errors of a regressor's predictions made before each update; NaN in a
    classifier's row) and, with a held-out set, ``test_accuracy`` (R² for a regressor; else
    None); ``models`` the fitted models (or their snapshots).

    ``checkpoints`` count rows of the stream, ``seen`` (n_checkpoints,) the rows learned up to
    each of them: all of them, less those of importance weight 0 (skipped, not learned)."""

    checkpoints: np.ndarray
    mistakes: np.ndarray
    updates: np.ndarray
    seconds: np.ndarray
    test_accuracy: np.ndarray | None
    models: list
    seen: np.ndarray
    squared_loss: np.ndarray | None = None

    @property
    def mistake_rate(self) -> np.ndarray:
        """Online mistakes / rows learned at every checkpoint (0 before any row was learned)."""
        return _per_row_learned(self.mistakes, self.seen)

    @property
    def squared_error(self) -> np.ndarray | None:
        """A regressor's online mean squared error at every checkpoint (its row of
        ``squared_loss`` / rows learned; NaN for a classifier)."""
        if self.squared_loss is None:
            return None
        return _per_row_learned(self.squared_loss, self.seen)


def announced_classes(y: np.ndarray) -> np.ndarray | None:
    """The labels a stream announces on its first ``partial_fit``: every label of y, or
    None for a label-indicator matrix (multilabel models take its columns as labels)."""
    return np.unique(y) if y.ndim == 1 else None


def _per_row_learned(totals: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Cumulative ``totals`` / rows learned (0 before any row was learned)."""
    return np.divide(totals, seen, out=np.zeros_like(totals), where=seen > 0)


def _warn_if_unseen_test_labels(y, y_test) -> None:
    """Held-out labels the training labels never hold are scored as mistakes whatever the
    models learn (e.g. a ±1 held-out file against 0/1 training labels): warn, naming them."""
    y_test = np.asarray(y_test)
    labels = np.unique(y_test)
    unseen = labels[~np.isin(labels, np.unique(y))]
    if unseen.size:
        share = np.isin(y_test, unseen).mean()
        shown = ", ".join(str(v) for v in unseen[:5].tolist()) + (", …" if unseen.size > 5 else "")
        warnings.warn(
            f"held-out labels {shown} ({share:.0%} of the held-out rows) never occur in the "
            "training labels: those rows are scored as mistakes",
            UserWarning,
            stacklevel=3,
        )


def _indexable(X):
    """X in a form whose rows a slice or a permutation takes, converted once: a DataFrame as
    it is (its rows taken by position, its column names kept for the estimators), another
    sparse format as CSR, anything else (a list of rows) as an array."""
    if hasattr(X, "iloc"):
        return X
    if sp.issparse(X):
        return X.tocsr()
    return np.asarray(X)


def train_side_by_side(
    estimators,
    X,
    y,
    *,
    checkpoints=None,
    classes=None,
    X_test=None,
    y_test=None,
    snapshot=None,
    sample_weight=None,
) -> RunCurves:
    """Train clones of ``estimators`` in lockstep over one pass of (X, y) in the given order.

    Parameters
    ----------
    estimators : sequence of estimators
        Unfitted online estimators (cloned; the originals are untouched).
    X : array or sparse matrix (n, d)
        The stream, already in the order to learn it.
    y : array (n,) or (n, k)
        Its labels (or regression targets), or a label-indicator matrix (multilabel).
    checkpoints : array of int, optional
        Increasing example counts ending at n (default: 20 evenly spaced).
    classes : array, optional
        All labels (default: ``np.unique(y)``; none for an indicator matrix), announced on
        the first ``partial_fit``.
    X_test, y_test : optional
        A held-out set scored (accuracy) at every checkpoint: learning curves.
    snapshot : callable(model) -> object, optional
        Called on every model at every checkpoint; results in ``models`` as lists (for
        weights-over-time plots and animations).
    sample_weight : array (n,), optional
        Importance weights of the rows (VW-style input), learned as ``partial_fit`` learns
        them; weight 0 skips a row: it counts toward the checkpoints (rows of the stream),
        not toward ``seen`` (rows learned).

    Returns
    -------
    RunCurves
        Cumulative online mistakes, updates, training seconds and held-out accuracy at every
        checkpoint, one row per estimator, and the rows learned (``seen``); ``models`` holds
        the fitted clones (or, with ``snapshot``, per model the list of snapshots). The
        seconds leave out compilation: a throwaway clone of each model learns the first
        chunk twice and the longest once before, untimed (with weights: both with and
        without them).
    """
    from sklearn.base import clone, is_classifier

    from olearn.estimators._weights import check_sample_weight

    X, y = _indexable(X), np.asarray(y)
    n = X.shape[0]
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} labels.")
    checkpoints = make_checkpoints(n) if checkpoints is None else _check_checkpoints(checkpoints, n)
    classes = announced_classes(y) if classes is None else np.asarray(classes)
    models = [clone(estimator) for estimator in estimators]
    sample_weight = check_sample_weight(sample_weight, n)  # None when all 1: unweighted calls
    if sample_weight is not None:
        for model in models:  # refused rather than silently ignored, as `olearn train` does
            if "sample_weight" not in inspect.signature(model.partial_fit).parameters:
                raise ValueError(
                    f"{type(model).__name__} does not take importance weights yet: remove them "
                    "(or set them to 1) to evaluate it without them"
                )
    learned = np.ones(n, bool) if sample_weight is None else sample_weight != 0
    seen = np.cumsum(learned)[checkpoints - 1]
    k, c = len(models), len(checkpoints)
    mistakes = np.zeros((k, c))
    squared_loss = np.full((k, c), np.nan)
    updates = np.zeros((k, c))
    seconds = np.zeros((k, c))
    accuracy = np.zeros((k, c)) if X_test is not None else None
    snapshots = [[] for _ in models]
    elapsed = np.zeros(k)
    chunks = np.diff(checkpoints, prepend=0)
    first, longest = min(int(chunks[0]), 1_000), min(int(chunks.max()), 1_000)
    _warm_up(models, *_rows(X, y, sample_weight, slice(0, longest)), classes, first)
    start = 0
    for j, stop in enumerate(checkpoints):
        Xc, yc, wc = _rows(X, y, sample_weight, slice(start, stop))
        for i, model in enumerate(models):
            tic = time.perf_counter()
            _learn(model, Xc, yc, classes, wc)
            elapsed[i] += time.perf_counter() - tic
            mistakes[i, j] = model.n_mistakes_
            if not is_classifier(model):  # |y − ŷ| is a regressor's loss (``tasks``)
                squared_loss[i, j] = model.stats_[_SQUARED_LOSS]
            updates[i, j] = model.n_updates_
            seconds[i, j] = elapsed[i]
            if accuracy is not None:
                accuracy[i, j] = model.score(X_test, y_test)
            if snapshot is not None:
                snapshots[i].append(snapshot(model))
        start = stop
    return RunCurves(
        checkpoints=np.asarray(checkpoints),
        mistakes=mistakes,
        updates=updates,
        seconds=seconds,
        test_accuracy=accuracy,
        models=snapshots if snapshot is not None else models,
        seen=seen,
        squared_loss=squared_loss,
    )


def _rows(X, y, sample_weight, rows: slice) -> tuple:
    """The stream's rows ``rows``: (X, y, their weights or None)."""
    return _take(X, rows), y[rows], None if sample_weight is None else sample_weight[rows]


def _learn(model, X, y, classes, sample_weight) -> None:
    """``model.partial_fit`` of one chunk of the stream."""
    from sklearn.base import is_classifier

    weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
    if is_classifier(model):
        model.partial_fit(X, y, classes=classes, **weighted)
    else:  # a regressor: its mistakes are the rounds outside its ε-tube
        model.partial_fit(X, y, **weighted)


def _warm_up(models, X, y, sample_weight, classes, first: int) -> None:
    """Learn the first ``first`` rows of (X, y) twice, then all of them (the longest chunk),
    on a throwaway clone of each model, untimed: a first call on a kind of input compiles
    its loops, or loads them from the disk cache (seconds, or tenths of a second), which
    ``seconds`` must not count as learning; the calls of an unfitted model and of a fitted
    one take different loops, and so do a chunk of one row and a longer one (log-spaced
    checkpoints start with chunks of a row or two). A weighted stream warms up the weighted
    and the unweighted loops: a chunk whose weights are all 1 takes the unweighted one,
    whichever the first chunk is."""
    from sklearn.base import clone

    weightings = [sample_weight]
    if sample_weight is not None:
        weightings = [None, np.full(len(y), 0.5)]
    for model in models:
        for weights in weightings:
            throwaway = clone(model)
            for stop in (first, first, len(y))[: 3 if len(y) > first else 2]:
                chunk = slice(0, stop)
                _learn(throwaway, _take(X, chunk), y[chunk], classes,
                       None if weights is None else weights[chunk])  # fmt: skip


@dataclass
class OnlineResult:
    """One algorithm's curves over several random orders (LIBOL's protocol): the
    ``algorithm``'s name on the ``dataset``, its ``params`` (the values that model selection
    chose with ``param_grids``; empty when nothing was tuned) and the fraction of training
    labels flipped (``noise``).

    Arrays have shape (n_runs, n_checkpoints). ``mistake_rate`` is the cumulative online mistake
    rate (mistakes / examples seen, against the labels learned from, i.e. the noisy ones when
    noise is injected). ``checkpoints`` count rows of the stream; an example of importance
    weight 0 is skipped, so it is not seen: with weights, the rate at a checkpoint divides by
    the rows of weight ≠ 0 up to it (0 before the first). ``updates`` are cumulative update
    counts, ``seconds`` cumulative training time. ``test_accuracy`` is the held-out accuracy
    (clean labels; R² for a regressor), when a held-out set was given. A regressor's
    ``squared_error`` is its online mean squared error (of the predictions made before each
    update, over the examples seen); None for a classifier. (A regressor's mistakes are the
    rounds outside its ε-tube: all of them for a loss without one.)
    """

    algorithm: str
    dataset: str
    checkpoints: np.ndarray
    mistake_rate: np.ndarray
    updates: np.ndarray
    seconds: np.ndarray
    test_accuracy: np.ndarray | None = None
    params: dict = field(default_factory=dict)
    noise: float = 0.0
    squared_error: np.ndarray | None = None

    METRICS = ("mistake_rate", "squared_error", "updates", "seconds", "test_accuracy")

    @property
    def n_runs(self) -> int:
        return int(self.mistake_rate.shape[0])

    def mean(self, metric: str) -> np.ndarray:
        """Mean over runs of ``metric`` (an array attribute) at every checkpoint."""
        return getattr(self, metric).mean(axis=0)

    def std(self, metric: str) -> np.ndarray:
        """Standard deviation over runs of ``metric`` at every checkpoint."""
        return getattr(self, metric).std(axis=0)

    def final(self, metric: str) -> tuple[float, float]:
        """(mean, std) over runs of ``metric`` at the last checkpoint."""
        values = getattr(self, metric)[:, -1]
        return float(values.mean()), float(values.std())

    def records(self) -> list[dict]:
        """One row per checkpoint: means and standard deviations (for CSV/JSON)."""
        rows = []
        for j, n in enumerate(self.checkpoints):
            row = {"algorithm": self.algorithm, "dataset": self.dataset, "examples": int(n)}
            for metric in self.METRICS:
                values = getattr(self, metric)
                if values is None:
                    continue
                row[f"{metric}_mean"] = float(values[:, j].mean())
                row[f"{metric}_std"] = float(values[:, j].std())
            rows.append(row)
        return rows


@dataclass
class Comparison:
    """Several algorithms on one data set (named ``dataset``, of ``n_examples`` examples, with
    the fraction ``noise`` of training labels flipped): ``results[name]`` is an
    ``OnlineResult``; ``selection[name]`` the parameter selection, when one was made."""

    dataset: str
    results: dict
    selection: dict = field(default_factory=dict)
    n_examples: int = 0
    noise: float = 0.0

    def table(self) -> list[dict]:
        """Final numbers per algorithm (mean and std over runs)."""
        rows = []
        for name, result in self.results.items():
            row = {"algorithm": name, "params": result.params}
            for metric in OnlineResult.METRICS:
                if getattr(result, metric) is not None:
                    row[metric] = result.final(metric)
            rows.append(row)
        return rows

    def to_markdown(self) -> str:
        """The final numbers of every algorithm (``table``) as a markdown table."""
        has_test = any(r.test_accuracy is not None for r in self.results.values())
        regression = any(r.squared_error is not None for r in self.results.values())
        head = "| algorithm | parameters | online mistake rate |"
        head += " online squared error |" if regression else ""
        head += " updates | time (s) |"
        rule = "|---|---|---|" + ("---|" if regression else "") + "---|---|"
        if has_test:
            head += (
                " held-out accuracy (R² for regressors) |" if regression else " held-out accuracy |"
            )
            rule += "---|"
        lines = [head, rule]
        for row in self.table():
            params = ", ".join(f"{k}={_fmt(v)}" for k, v in row["params"].items()) or "–"
            m, s = row["mistake_rate"]
            u, us = row["updates"]
            t, ts = row["seconds"]
            line = f"| {row['algorithm']} | {params} | {m:.4f} ± {s:.4f} "
            if regression:
                e = row.get("squared_error")
                line += "| – " if e is None else f"| {e[0]:.4g} ± {e[1]:.4g} "
            line += f"| {u:.0f} ± {us:.0f} | {t:.4f} ± {ts:.4f} |"
            if has_test:
                a, as_ = row.get("test_accuracy", (float("nan"), float("nan")))
                line += f" {a:.4f} ± {as_:.4f} |"
            lines.append(line)
        return "\n".join(lines)

    def records(self) -> list[dict]:
        """Every algorithm's ``OnlineResult.records``, one list."""
        return [row for result in self.results.values() for row in result.records()]

    def to_csv(self, path) -> None:
        """Write ``records()`` to the CSV file ``path``."""
        import csv

        rows = self.records()
        keys = list(dict.fromkeys(k for row in rows for k in row))
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)

    def to_json(self, path=None) -> str:
        """The curves (means and standard deviations per checkpoint), parameters and
        selections as JSON text, also written to ``path`` when one is given."""
        payload = {
            "dataset": self.dataset,
            "n_examples": self.n_examples,
            "noise": self.noise,
            "algorithms": {
                name: {
                    "params": result.params,
                    "n_runs": result.n_runs,
                    "checkpoints": result.checkpoints.tolist(),
                    **{
                        f"{metric}_{stat}": getattr(np, stat)(getattr(result, metric), axis=0)
                        .round(10)
                        .tolist()
                        for metric in OnlineResult.METRICS
                        if getattr(result, metric) is not None
                        for stat in ("mean", "std")
                    },
                }
                for name, result in self.results.items()
            },
            "selection": {
                name: {"best_params": sel.best_params, "best_score": sel.best_score}
                for name, sel in self.selection.items()
            },
        }
        text = json.dumps(payload, indent=1)
        if path is not None:
            with open(path, "w") as handle:
                handle.write(text)
        return text


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _seeds(random_state, n: int) -> list[np.random.SeedSequence]:
    if isinstance(random_state, np.random.SeedSequence):
        return random_state.spawn(n)
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**63))
    return np.random.SeedSequence(random_state).spawn(n)


def _take(X, rows):
    """Rows ``rows`` (positions or a slice) of X (``_indexable``): ``X[...]`` of a DataFrame
    would pick columns."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def evaluate(
    estimators,
    X,
    y,
    *,
    n_permutations: int = 10,
    checkpoints=None,
    n_checkpoints: int = 20,
    label_noise: float = 0.0,
    X_test=None,
    y_test=None,
    param_grids=None,
    dataset: str = "data",
    random_state=None,
    sample_weight=None,
) -> Comparison:
    """LIBOL's protocol: every algorithm over the same ``n_permutations`` random orders.

    Parameters
    ----------
    estimators : dict name -> estimator
        Unfitted estimators. Regressors follow the same protocol: their online mistakes are
        the rounds outside their ε-tube and their held-out score is R².
    X : array, list of rows, DataFrame or sparse matrix (n, d)
        The data (a sparse matrix is read as CSR).
    y : array (n,) or (n, k)
        Its labels (or regression targets), or a label-indicator matrix: a multilabel
        round is a mistake when its ranking puts an irrelevant label at or above a relevant
        one (or the learned threshold on the wrong side); the held-out score is then the
        subset accuracy; label noise needs one label per row.
    n_permutations : int, default=10
        Random orders; curves are reported as mean and std over them.
    checkpoints : array of int, optional
        Example counts at which to record (default ``n_checkpoints`` evenly spaced).
    n_checkpoints : int, default=20
        How many checkpoints ``make_checkpoints`` places when ``checkpoints`` is None.
    label_noise : float, default=0
        Fraction of *training* labels flipped, drawn afresh (seeded) for every order; the
        held-out labels stay clean.
    X_test, y_test : optional
        Held-out set for learning curves (accuracy at every checkpoint).
    param_grids : None, "libol" or dict name -> grid
        Select hyper-parameters first on a separate permutation (``select_parameters``) and
        evaluate with the chosen values on fresh permutations. "libol": ``libol_grid`` for each.
    dataset : str, default="data"
        The data set's name, recorded in every result (tables, CSV, JSON, figure titles).
    random_state : int or None
        Seed: permutation p and its noise use child p + 1 of the seed, selection child 0.
    sample_weight : array (n,), optional
        Importance weights of the rows, following them through every order
        (``train_side_by_side``). Checkpoints count every row, the mistake rate divides by
        the rows learned (weight 0 skips a row). Parameter selection does not take them yet.

    Returns
    -------
    Comparison
    """
    from sklearn.base import clone, is_classifier

    from olearn.estimators._weights import check_sample_weight
    from olearn.evaluation.algorithms import libol_grid
    from olearn.evaluation.noise import flip_labels
    from olearn.evaluation.selection import select_parameters

    if not isinstance(estimators, dict) or not estimators:
        raise ValueError("estimators must be a non-empty dict name -> estimator.")
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be >= 1, got {n_permutations}.")
    X, y = _indexable(X), np.asarray(y)
    n = X.shape[0]
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} labels.")
    if (X_test is None) != (y_test is None):
        raise ValueError("give both X_test and y_test, or neither.")
    regressors = [name for name in estimators if not is_classifier(estimators[name])]
    if y_test is not None and len(regressors) < len(estimators):
        _warn_if_unseen_test_labels(y, y_test)
    if label_noise and regressors:
        raise ValueError(f"label noise flips class labels; {regressors[0]} is a regressor.")
    sample_weight = check_sample_weight(sample_weight, n)
    if param_grids is not None and sample_weight is not None:
        raise ValueError("parameter selection does not take importance weights yet.")
    if checkpoints is None:
        checkpoints = make_checkpoints(n, n_checkpoints)
    else:  # checked before any selection is trained on them
        checkpoints = _check_checkpoints(checkpoints, n)
    seeds = _seeds(random_state, n_permutations + 1)
    names = list(estimators)
    chosen = {name: clone(estimators[name]) for name in names}
    selection = {}
    if param_grids is not None:
        for name in names:
            grid = libol_grid(chosen[name]) if param_grids == "libol" else param_grids.get(name, {})
            if not grid:
                continue
            selection[name] = select_parameters(
                chosen[name], grid, X, y, label_noise=label_noise, random_state=seeds[0]
            )
            chosen[name].set_params(**selection[name].best_params)
    classes = announced_classes(y)
    per_run = []
    for p in range(n_permutations):
        rng = np.random.default_rng(seeds[p + 1])
        order = rng.permutation(n)
        y_run = flip_labels(y[order], label_noise, random_state=rng) if label_noise else y[order]
        per_run.append(
            train_side_by_side(
                [chosen[name] for name in names],
                _take(X, order),
                y_run,
                checkpoints=checkpoints,
                classes=classes,
                X_test=X_test,
                y_test=y_test,
                sample_weight=None if sample_weight is None else sample_weight[order],
            )
        )
    results = {}
    for i, name in enumerate(names):
        tuned = dict(selection[name].best_params) if name in selection else {}
        results[name] = OnlineResult(
            algorithm=name,
            dataset=dataset,
            checkpoints=np.asarray(checkpoints),
            mistake_rate=np.stack([r.mistake_rate[i] for r in per_run]),
            updates=np.stack([r.updates[i] for r in per_run]),
            seconds=np.stack([r.seconds[i] for r in per_run]),
            test_accuracy=(
                np.stack([r.test_accuracy[i] for r in per_run]) if X_test is not None else None
            ),
            params=tuned,
            noise=label_noise,
            squared_error=(
                np.stack([r.squared_error[i] for r in per_run]) if name in regressors else None
            ),
        )
    return Comparison(
        dataset=dataset, results=results, selection=selection, n_examples=n, noise=label_noise
    )


def concat(comparisons) -> Comparison:
    """Stack the runs of several ``Comparison`` objects (the sequence ``comparisons``) with
    the same algorithms and checkpoints (e.g. one per freshly drawn synthetic data set) into
    one."""
    comparisons = list(comparisons)
    if not comparisons:
        raise ValueError("nothing to concatenate.")
    first = comparisons[0]
    results = {}
    for name, result in first.results.items():
        parts = [c.results[name] for c in comparisons]
        for part in parts:
            if not np.array_equal(part.checkpoints, result.checkpoints):
                raise ValueError("comparisons have different checkpoints.")

        def stack(metric, parts=parts):
            values = [getattr(p, metric) for p in parts]
            return None if values[0] is None else np.concatenate(values)

        results[name] = OnlineResult(
            algorithm=name,
            dataset=result.dataset,
            checkpoints=result.checkpoints,
            mistake_rate=stack("mistake_rate"),
            updates=stack("updates"),
            seconds=stack("seconds"),
            test_accuracy=stack("test_accuracy"),
            params=result.params,
            noise=result.noise,
            squared_error=stack("squared_error"),
        )
    return Comparison(
        dataset=first.dataset,
        results=results,
        selection=first.selection,
        n_examples=first.n_examples,
        noise=first.noise,
    )
