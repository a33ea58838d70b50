"""Reproduction 5: a LIBOL-style comparison of every binary algorithm on each offline task.

LIBOL's protocol (Hoi, Wang, Zhao, JMLR 2014): hyper-parameters chosen over its grids on a
separate permutation, then ``n_permutations`` fresh random orders; three panels per data set —
online mistake rate and cumulative updates against examples seen (mean ± std), and training
time. Second-order models use diagonal covariances here (as LIBOL's default high-dimensional
variants), so the time panel compares like with like. Time is measured apart from the curves:
the checkpointed ``partial_fit`` calls of a data set of a thousand rows take a few
milliseconds, mostly per-call overhead and the machine's noise, so after the curves every
algorithm (with its chosen parameters, compiled and warm) is timed on ``n_permutations``
random orders, one-pass ``fit`` calls interleaved, the best of three per order; the panel
shows the median over orders of the time per example.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from olearn.plotting.style import DPI

ALGORITHM_NAMES = (
    "perceptron",
    "pa",
    "pa1",
    "pa2",
    "sop-diag",
    "cw",
    "arow",
    "scw1",
    "scw2",
)
DEFAULT_TASKS = (
    "breast-cancer",
    "digits-3v5",
    "mnist-3v5",
    "phishing",
    "arow-synthetic",
    "image-segments",
)


def supports_multiclass(estimator) -> bool:
    """Whether ``estimator`` learns more than two classes (tried on a tiny 3-class problem)."""
    from sklearn.base import clone

    try:
        clone(estimator).partial_fit(np.eye(3), np.arange(3))
    except ValueError:
        return False
    return True


@dataclass
class LibolResult:
    """``comparisons[task]`` is a ``Comparison``; ``times[task][algorithm]`` the seconds per
    example of each timed one-pass ``fit`` (one per order)."""

    comparisons: dict
    skipped: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    times: dict = field(default_factory=dict)

    def to_markdown(self) -> str:
        parts = []
        for task, comparison in self.comparisons.items():
            times = self.times.get(task, {})
            runs = len(next(iter(times.values()))) if times else 0
            orders = next(iter(comparison.results.values())).n_runs
            parts += [
                f"**{task}** ({comparison.n_examples:,} examples, {orders} orders)",
                "",
                "| algorithm | parameters | online mistake rate | updates | "
                f"µs per example (median of {runs}) |",
                "|---|---|---|---|---|",
            ]
            for row in comparison.table():
                params = ", ".join(f"{k}={v:g}" for k, v in row["params"].items()) or "–"
                m, ms = row["mistake_rate"]
                u, us = row["updates"]
                t = np.median(times[row["algorithm"]]) * 1e6 if times else float("nan")
                parts.append(
                    f"| {row['algorithm']} | {params} | {m:.4f} ± {ms:.4f} | {u:,.0f} ± {us:.0f} "
                    f"| {t:.2g} |"
                )
            parts.append("")
        return "\n".join(parts)

    def figures(self, out, *, dpi: int = DPI):
        from olearn.plotting import plot_comparison, save

        os.makedirs(out, exist_ok=True)
        paths = {}
        for task, comparison in self.comparisons.items():
            fig = plot_comparison(comparison, times=self.times.get(task))
            paths[f"libol_{task}"] = save(fig, os.path.join(out, f"libol_{task}.png"), dpi=dpi)
        return paths


def libol_comparison(
    *,
    tasks=DEFAULT_TASKS,
    algorithms=ALGORITHM_NAMES,
    n_permutations: int = 10,
    n_checkpoints: int = 20,
    synthetic_size: int = 2000,
    random_state: int = 0,
) -> LibolResult:
    """Run every algorithm of ``algorithms`` (names of ``olearn.evaluation.ALGORITHMS``) on
    every available task with LIBOL's selection and permutations. Multiclass tasks use the
    algorithms whose estimators learn several classes and are skipped (with a note) if none
    does."""
    from sklearn.base import clone

    from olearn.evaluation import evaluate, make_estimator
    from olearn.experiments._data import binary_tasks

    available, skipped = binary_tasks(
        synthetic_size=synthetic_size, random_state=random_state, only=tasks, multiclass=True
    )
    comparisons, times = {}, {}
    for task, data in available.items():
        estimators = {name: make_estimator(name) for name in algorithms}
        if len(np.unique(data.y)) > 2:
            # multiclass tasks: only the estimators that learn several classes
            estimators = {k: e for k, e in estimators.items() if supports_multiclass(e)}
            if not estimators:
                skipped[task] = "multiclass: none of the estimators supports more than 2 classes"
                continue
        comparisons[task] = evaluate(
            estimators,
            data.X,
            data.y,
            n_permutations=n_permutations,
            n_checkpoints=n_checkpoints,
            param_grids="libol",
            dataset=task,
            random_state=random_state,
        )
        chosen = comparisons[task].results
        times[task] = time_passes(
            {n: clone(e).set_params(**chosen[n].params) for n, e in estimators.items()},
            data.X,
            data.y,
            n_permutations,
            random_state,
        )
    return LibolResult(
        comparisons=comparisons,
        skipped=skipped,
        settings={"n_permutations": n_permutations, "seed": random_state},
        times=times,
    )


def time_passes(estimators: dict, X, y, n_passes: int, random_state, *, repeats: int = 3) -> dict:
    """Seconds per example of one-pass ``fit`` calls of every estimator on ``n_passes`` fresh
    random orders: per order the best of ``repeats`` fits (the least disturbed by the rest of
    the machine), the estimators interleaved; one untimed fit each first (compilation,
    caches)."""
    import warnings

    from sklearn.base import clone

    from olearn.estimators._validation import OrderedStreamWarning

    rng = np.random.default_rng(random_state)
    with warnings.catch_warnings():
        # the warm-up reads the rows in the data set's order, often sorted by class: its
        # model is thrown away, so the warning would only be noise in the report's output
        warnings.simplefilter("ignore", OrderedStreamWarning)
        for estimator in estimators.values():
            clone(estimator).fit(X, y)
    seconds = {name: [] for name in estimators}
    for _ in range(n_passes):
        order = rng.permutation(len(y))
        Xo, yo = X[order], y[order]
        best = dict.fromkeys(estimators, np.inf)
        for _ in range(repeats):
            for name, estimator in estimators.items():
                model = clone(estimator)
                tic = time.perf_counter()
                model.fit(Xo, yo)
                best[name] = min(best[name], time.perf_counter() - tic)
        for name in estimators:
            seconds[name].append(best[name] / len(y))
    return {name: np.array(values) for name, values in seconds.items()}
