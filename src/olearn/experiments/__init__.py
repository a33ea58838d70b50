"""Reproductions of the source documents' experiments (``docs/experiments.md``).

Each reproduction is a function returning a result object with ``to_markdown()`` and
``figures(out)``; ``run(name, out)`` runs one and ``run_all(out)`` writes every figure and a
Markdown report. ``quick=True`` uses the reduced sizes of the test suite.
"""

from __future__ import annotations

import importlib
import os
import time

#: name -> (module, function, title, full-size kwargs, quick kwargs)
EXPERIMENTS = {
    "table1": (
        "olearn.experiments.table1",
        "arow_table1",
        "AROW paper, Table 1: mean rank by label noise",
        {},
        {
            "n_permutations": 1,
            "tasks": ("digits-3v5", "breast-cancer", "arow-synthetic"),
            "synthetic_size": 500,
            "noise_levels": (0.0, 0.3),
        },
    ),
    "fig2": (
        "olearn.experiments.fig2",
        "arow_fig2",
        "AROW paper, Fig. 2: learning curves",
        {},
        {"n_runs": 2, "n_train": 600, "n_test": 600, "n_permutations": 1, "n_checkpoints": 6},
    ),
    "iris-scw": (
        "olearn.experiments.iris_scw",
        "iris_scw",
        "SCW on Iris (seed 001)",
        {},
        {"n_draws": 1000, "n_snapshots": 10, "n_frames": 5},
    ),
    "bounds": (
        "olearn.experiments.bounds",
        "bounds_experiment",
        "Mistake and loss bounds",
        {},
        {"n": 300, "n_checkpoints": 5},
    ),
    "libol": (
        "olearn.experiments.libol",
        "libol_comparison",
        "LIBOL-style comparison of the binary algorithms",
        {},
        {
            "tasks": ("digits-3v5", "breast-cancer"),
            "n_permutations": 2,
            "n_checkpoints": 5,
            "algorithms": ("perceptron", "pa1", "arow", "scw1"),
        },
    ),
}

_EXPORTS = {
    "arow_table1": "olearn.experiments.table1",
    "arow_fig2": "olearn.experiments.fig2",
    "iris_scw": "olearn.experiments.iris_scw",
    "bounds_experiment": "olearn.experiments.bounds",
    "libol_comparison": "olearn.experiments.libol",
}

__all__ = sorted([*_EXPORTS, "EXPERIMENTS", "run", "run_all"])


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'olearn.experiments' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def run(name: str, out: str | None = None, *, quick: bool = False, dpi: int = 150, **overrides):
    """Run one experiment; with ``out`` also write its figures (PNGs at ``dpi`` dots per inch,
    GIFs at two thirds of it). Returns (result, paths)."""
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}.")
    if out is not None:  # before minutes of work, not after
        _require_plotting()
    module, function, _, full, small = EXPERIMENTS[name]
    kwargs = {**(small if quick else full), **overrides}
    result = getattr(importlib.import_module(module), function)(**kwargs)
    paths = result.figures(out, dpi=dpi) if out is not None else {}
    return result, paths


def _require_plotting() -> None:
    from olearn._optional import require

    require("matplotlib", "writing the experiments' figures")
    require("PIL", "writing the experiments' animations")


def _section(name, result, paths, out, seconds) -> str:
    from olearn.experiments.report import section

    return section(name, EXPERIMENTS[name][2], result, paths, out, seconds)


def run_all(out: str, *, quick: bool = False, names=None, dpi: int = 150, log=print) -> str:
    """Run the experiments (all by default), write figures and ``report.md`` to ``out``;
    return the report's path."""
    names = list(EXPERIMENTS) if names is None else list(names)
    _require_plotting()
    os.makedirs(out, exist_ok=True)
    sections = []
    start = time.perf_counter()
    for name in names:
        tic = time.perf_counter()
        result, paths = run(name, out, quick=quick, dpi=dpi)
        seconds = time.perf_counter() - tic
        if log:
            log(f"{name}: {seconds:.1f} s, {len(paths)} figure(s)")
        sections.append(_section(name, result, paths, out, seconds))
    from olearn.experiments.report import header

    total = time.perf_counter() - start
    text = header(names, total, quick) + "\n\n".join(sections) + "\n"
    path = os.path.join(out, "report.md")
    with open(path, "w") as handle:
        handle.write(text)
    return path
