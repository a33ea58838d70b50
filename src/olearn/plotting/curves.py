"""Curves over examples (online mistake rate, updates, time, held-out accuracy), mean ranks
against the paper, observed counts against theoretical bounds."""

from __future__ import annotations

import numpy as np

from olearn.plotting.style import color_of, style


def _band(ax, x, values, name, index, *, scale=1.0, band=True):
    mean = values.mean(axis=0) * scale
    std = values.std(axis=0) * scale
    color = color_of(name, index)
    ax.plot(x, mean, color=color, label=name, marker="o" if len(x) < 12 else None, ms=3)
    if band and values.shape[0] > 1:
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.15, linewidth=0)


def plot_comparison(comparison, *, title: str | None = None):
    """LIBOL's three panels for a ``Comparison``: online mistake rate, cumulative updates and
    training time against examples seen, mean ± std (band) over the random orders."""
    with style() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
        panels = [
            ("mistake_rate", "online mistake rate (fraction)", 1.0),
            ("updates", "cumulative updates (count)", 1.0),
            ("seconds", "training time (ms)", 1000.0),
        ]
        for ax, (metric, label, scale) in zip(axes, panels, strict=True):
            for i, (name, result) in enumerate(comparison.results.items()):
                # wall-clock time on a shared machine is noisy: its band would hide the means
                _band(
                    ax,
                    result.checkpoints,
                    getattr(result, metric),
                    name,
                    i,
                    scale=scale,
                    band=metric != "seconds",
                )
            ax.set_xlabel("examples seen (count)")
            ax.set_ylabel(label)
            ax.set_title(label.split(" (")[0].capitalize() + (" (mean)" if scale != 1.0 else ""))
        axes[0].legend(loc="upper right", ncol=2)
        runs = next(iter(comparison.results.values())).n_runs
        fig.suptitle(
            title
            or f"{comparison.dataset}: mean ± std over {runs} random orders "
            f"(label noise {comparison.noise:g})"
        )
    return fig


def plot_learning_curves(panels, *, title: str = "Learning curves"):
    """Held-out accuracy against training examples.

    ``panels`` is a ``Comparison`` or a dict {panel title: Comparison}; one subplot each.
    """
    if not isinstance(panels, dict):
        panels = {panels.dataset: panels}
    with style() as plt:
        fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
        for ax, (panel_title, comparison) in zip(axes[0], panels.items(), strict=True):
            for i, (name, result) in enumerate(comparison.results.items()):
                if result.test_accuracy is None:
                    raise ValueError(f"{name} has no held-out curve (evaluate with X_test).")
                _band(ax, result.checkpoints, result.test_accuracy, name, i)
            ax.set_xlabel("training examples (count)")
            ax.set_ylabel("held-out accuracy (fraction)")
            ax.set_title(panel_title)
            ax.legend(loc="lower right")
        fig.suptitle(title)
    return fig


def plot_mean_ranks(table, *, title: str = "Mean rank by label noise (1 = best)"):
    """Ours (solid) beside the paper's (dashed) for a Table-1 result (``ranks``,
    ``paper_ranks``, ``noise_levels``, ``algorithms``)."""
    with style() as plt:
        fig, ax = plt.subplots(figsize=(6, 3.8))
        noise = np.asarray(table.noise_levels)
        for i, name in enumerate(table.algorithms):
            color = color_of(name, i)
            ax.plot(noise, table.ranks[name], color=color, marker="o", label=f"{name} (ours)")
            paper = [table.paper_rank(name, j) for j in range(len(noise))]
            keep = [j for j, value in enumerate(paper) if value is not None]
            if keep:
                ax.plot(
                    noise[keep],
                    [paper[j] for j in keep],
                    color=color,
                    linestyle="--",
                    marker="x",
                    alpha=0.7,
                    label=f"{name} (paper)",
                )
        ax.set_xlabel("label noise on the training stream (fraction)")
        ax.set_ylabel(f"mean rank over data sets (1–{len(table.algorithms)})")
        ax.set_ylim(0.8, len(table.algorithms) + 0.2)
        ax.invert_yaxis()
        ax.set_title(title)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def plot_bounds(result, *, title: str = "Observed mistakes / losses against the bounds"):
    """One panel per bound row: the observed cumulative quantity and its bound against the
    examples seen (log scale)."""
    rows = result.rows
    streams = list(dict.fromkeys(row.stream for row in rows))
    algorithms = list(dict.fromkeys(row.algorithm for row in rows))
    with style() as plt:
        fig, axes = plt.subplots(
            len(streams),
            len(algorithms),
            figsize=(2.9 * len(algorithms), 2.6 * len(streams)),
            squeeze=False,
        )
        for ax in axes.ravel():
            ax.set_visible(False)
        for row in rows:
            ax = axes[streams.index(row.stream), algorithms.index(row.algorithm)]
            ax.set_visible(True)
            color = color_of(row.algorithm.lower(), 0)
            ax.plot(row.checkpoints, row.observed, color=color, label=f"observed {row.quantity}")
            ax.plot(row.checkpoints, row.bound, color="black", linestyle="--", label="bound")
            ax.set_yscale("log")
            ax.set_title(f"{row.algorithm}, {row.stream}", fontsize=9)
            ax.set_xlabel("examples seen (count)")
            ax.set_ylabel(f"{row.quantity} (log scale)")
            ax.legend(loc="lower right", fontsize=7)
        fig.suptitle(title)
    return fig
