"""Curves over examples (online mistake rate, updates, held-out accuracy), time per example,
mean ranks against the paper, observed counts against theoretical bounds."""

from __future__ import annotations

import numpy as np

from olearn.plotting.style import color_of, legend_below, set_suptitle, set_title, style


def _band(ax, x, values, name, index, *, scale=1.0, band=True):
    mean = values.mean(axis=0) * scale
    std = values.std(axis=0) * scale
    color = color_of(name, index)
    (line,) = ax.plot(x, mean, color=color, label=name, marker="o" if len(x) < 12 else None, ms=3)
    if band and values.shape[0] > 1:
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.15, linewidth=0)
    return line


def _time_bars(ax, names, per_example):
    """Horizontal bars: median time per example over the timed passes, whiskers from the
    first to the third quartile."""
    rows = np.arange(len(names))[::-1]
    q1, medians, q3 = np.array([np.percentile(per_example[n], [25, 50, 75]) for n in names]).T
    low, high = medians - q1, q3 - medians
    ax.barh(
        rows,
        medians,
        xerr=[low, high],
        color=[color_of(n, i) for i, n in enumerate(names)],
        capsize=2,
        error_kw={"linewidth": 0.8},
    )
    ax.set_yticks(rows, names)
    ax.grid(axis="y", visible=False)
    ax.set_xlim(0, None)


def plot_comparison(comparison, *, title: str | None = None, times: dict | None = None):
    """LIBOL's panels for a ``Comparison`` (``comparison``, under ``title``; default: its data
    set, orders and noise): online mistake rate (online squared error for regressors alone)
    and cumulative updates against examples seen (mean ± std band over the random orders),
    and the training time.

    ``times`` maps each algorithm to the seconds per example of separately timed whole passes
    (``olearn.experiments.libol`` times one ``fit`` per order): the third panel shows their
    median as a bar (whiskers: the quartiles). Without it, the third panel plots the
    median over orders of the cumulative time of the checkpointed ``partial_fit`` calls, which
    on small data sets mostly measures per-call overhead and the machine's noise.
    """
    names = list(comparison.results)
    # regressors alone: their online squared error (their mistakes are rounds outside a tube)
    regression = all(r.squared_error is not None for r in comparison.results.values())
    loss, unit = (
        ("online squared error", "") if regression else ("online mistake rate", " (fraction)")
    )
    with style() as plt:
        fig, axes = plt.subplots(1, 3, figsize=(11, 4.2))
        handles = []
        for i, name in enumerate(names):
            result = comparison.results[name]
            curve = result.squared_error if regression else result.mistake_rate
            handles.append(_band(axes[0], result.checkpoints, curve, name, i))
            _band(axes[1], result.checkpoints, result.updates, name, i)
        for ax, label, suffix in zip(
            axes[:2], (loss, "cumulative updates"), (unit, " (count)"), strict=True
        ):
            ax.set_xlabel("examples seen (count)")
            ax.set_ylabel(label + suffix)
            set_title(ax, label.capitalize() + " (mean ± std)")
        if times is not None:
            _time_bars(axes[2], names, {n: np.asarray(times[n]) * 1e6 for n in names})
            axes[2].set_xlabel("training time per example (µs)")
            axes[2].set_ylabel("algorithm")
            runs = len(next(iter(times.values())))
            set_title(axes[2], f"Time of one pass (median of {runs} orders)")
        else:
            for i, name in enumerate(names):
                result = comparison.results[name]
                median = np.median(result.seconds, axis=0) * 1000
                axes[2].plot(result.checkpoints, median, color=color_of(name, i))
            axes[2].set_xlabel("examples seen (count)")
            axes[2].set_ylabel("training time (ms)")
            set_title(axes[2], "Training time (median over orders)")
        runs = next(iter(comparison.results.values())).n_runs
        set_suptitle(
            fig,
            title
            or f"{comparison.dataset}: {runs} random orders, label noise {comparison.noise:g}",
        )
        legend_below(fig, handles)
    return fig


def plot_learning_curves(panels, *, title: str = "Learning curves"):
    """Held-out accuracy (a regressor's R²) against training examples.

    ``panels`` is a ``Comparison`` or a dict {panel title: Comparison}; one subplot each, one
    legend under them all.
    """
    if not isinstance(panels, dict):
        panels = {panels.dataset: panels}
    with style() as plt:
        width = min(6.4 if len(panels) == 1 else 5.0 * len(panels), 11.0)
        fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.6), squeeze=False)
        handles = {}
        for ax, (panel_title, comparison) in zip(axes[0], panels.items(), strict=True):
            for i, (name, result) in enumerate(comparison.results.items()):
                if result.test_accuracy is None:
                    raise ValueError(f"{name} has no held-out curve (evaluate with X_test).")
                handles.setdefault(
                    name, _band(ax, result.checkpoints, result.test_accuracy, name, i)
                )
            ax.set_xlabel("training examples (count)")
            ax.set_ylabel(_held_out_label(comparison))
            set_title(ax, panel_title)
        set_suptitle(fig, title)
        legend_below(fig, list(handles.values()))
    return fig


def _held_out_label(comparison) -> str:
    """The held-out score's axis label: a regressor's score is R², which is no fraction
    (it is negative below the mean's)."""
    regressors = [r.squared_error is not None for r in comparison.results.values()]
    if all(regressors):
        return "held-out R²"
    if any(regressors):
        return "held-out accuracy (R² for regressors)"
    return "held-out accuracy (fraction)"


def plot_mean_ranks(table, *, title: str = "Mean rank by label noise (1 = best)"):
    """Ours (solid) beside the paper's (dashed) for a Table-1 result ``table`` (with
    ``ranks``, ``paper_ranks``, ``noise_levels``, ``algorithms``), under ``title``."""
    with style() as plt:
        fig, ax = plt.subplots(figsize=(6.4, 5.0))
        noise = np.asarray(table.noise_levels)
        handles = []
        for i, name in enumerate(table.algorithms):
            color = color_of(name, i)
            handles += ax.plot(
                noise, table.ranks[name], color=color, marker="o", label=f"{name} (ours)"
            )
            paper = [table.paper_rank(name, j) for j in range(len(noise))]
            keep = [j for j, value in enumerate(paper) if value is not None]
            if keep:
                handles += ax.plot(
                    noise[keep],
                    [paper[j] for j in keep],
                    color=color,
                    linestyle="--",
                    marker="x",
                    alpha=0.75,
                    label=f"{name} (paper)",
                )
        ax.set_xlabel("label noise on the training stream (fraction)")
        ax.set_ylabel(f"mean rank over data sets (1–{len(table.algorithms)})")
        ax.set_ylim(0.8, len(table.algorithms) + 0.2)
        ax.invert_yaxis()
        set_title(ax, title)
        # column-major legend: each algorithm's "ours" above its "paper"
        legend_below(fig, handles, ncol=len(table.algorithms))
    return fig


#: colours of the two streams of the bounds experiment
_STREAM_COLORS = ("#1f77b4", "#d62728")


def plot_bounds(result, *, title: str = "Observed mistakes and losses against the bounds"):
    """One panel per algorithm: its observed cumulative quantity (solid) and the theorem's
    bound (dashed) against the examples seen, one colour per stream, log scale; ``result``
    is a bounds experiment's result (its ``rows``), ``title`` the figure's title."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import LogFormatter

    rows = result.rows
    streams = list(dict.fromkeys(row.stream for row in rows))
    algorithms = list(dict.fromkeys(row.algorithm for row in rows))
    columns = 3
    grid_rows = -(-(len(algorithms) + 1) // columns)  # one cell more: the legend's
    with style() as plt:
        fig, axes = plt.subplots(
            grid_rows, columns, figsize=(10, 3.3 * grid_rows + 0.4), squeeze=False
        )
        cells = list(axes.ravel())
        for ax, algorithm in zip(cells, algorithms, strict=False):
            mine = [row for row in rows if row.algorithm == algorithm]
            for row in mine:
                color = _STREAM_COLORS[streams.index(row.stream) % len(_STREAM_COLORS)]
                ax.plot(row.checkpoints, row.observed, color=color)
                ax.plot(row.checkpoints, row.bound, color=color, linestyle="--")
            ax.set_yscale("log")
            # plain numbers (20, 50, 100), not 2 × 10¹; minor ticks labelled on short ranges
            ax.yaxis.set_major_formatter(LogFormatter())
            ax.yaxis.set_minor_formatter(
                LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.4))
            )
            notes = [f"{row.stream} {row.note}" for row in mine if row.note]
            set_title(ax, f"{algorithm}: {mine[0].quantity}" + "".join(f"\n({n})" for n in notes))
            ax.set_xlabel("examples seen (count)")
            ax.set_ylabel(f"{mine[0].quantity} (log scale)")
        handles = []
        for k, stream in enumerate(streams):
            color = _STREAM_COLORS[k % len(_STREAM_COLORS)]
            handles.append(Line2D([], [], color=color, label=f"{stream}: observed"))
            handles.append(Line2D([], [], color=color, linestyle="--", label=f"{stream}: bound"))
        legend_cell = cells[len(algorithms)]
        legend_cell.axis("off")
        legend_cell.legend(handles=handles, loc="center", frameon=False, title="stream")
        for ax in cells[len(algorithms) + 1 :]:
            ax.remove()
        set_suptitle(fig, title)
    return fig
