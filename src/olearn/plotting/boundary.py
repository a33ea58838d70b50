"""Decision boundaries of 2-D models, boundaries sampled from a Gaussian over weights, weights
over time with ±σ bands, and the boundary animated over updates (the SCW blog's figures)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from olearn.plotting.style import CLASS_COLORS, CLASS_MARKERS, legend_below, set_title, style

_SAMPLE_GREY = "#8c8c8c"


@dataclass
class GaussianSnapshot:
    """A linear model at one moment: mean (features then intercept) and, for second-order
    models, the covariance over the same coordinates (intercept included).

    ``t`` is the number of examples seen, ``n_updates`` the updates so far;
    ``feature_names`` name the features (axis labels; empty: x1, x2, ...); ``classes`` the
    model's two labels (``classes_``: their colours in a plot; empty: the sorted labels of
    the plotted y).
    """

    t: int
    n_updates: int
    mean: np.ndarray
    covariance: np.ndarray | None
    feature_names: tuple = ()
    classes: tuple = ()

    def decision_function(self, X):
        """The mean's score μ·x + b of every row of X."""
        return np.asarray(X) @ self.mean[:-1] + self.mean[-1]


def gaussian_snapshot(model, feature_names=()) -> GaussianSnapshot:
    """Snapshot a fitted binary linear olearn ``model`` (mean and, if it has one, Σ), with
    the ``feature_names`` to label its axes."""
    mean = np.concatenate([np.ravel(model.coef_[0]), np.ravel(model.intercept_)[:1]])
    covariance = None
    bias = 1.0 if getattr(model, "fit_intercept", True) else 0.0
    if getattr(model, "precision_cholesky_", np.zeros(0)).size:
        from scipy.linalg import cho_solve

        L = model.precision_cholesky_[0]
        covariance = cho_solve((L, True), np.eye(L.shape[0]))
        covariance = (covariance + covariance.T) / 2
    elif getattr(model, "variances_", np.zeros(0)).size:
        covariance = np.diag(model.variances_[0])
    if covariance is not None:
        # the intercept is bias × last weight: scale its row and column alike
        scale = np.ones(len(mean))
        scale[-1] = bias
        covariance = covariance * np.outer(scale, scale)
    return GaussianSnapshot(
        t=int(model.n_rounds_) if hasattr(model, "n_rounds_") else 0,
        n_updates=int(model.n_updates_),
        mean=mean,
        covariance=covariance,
        feature_names=tuple(feature_names),
        classes=tuple(np.asarray(getattr(model, "classes_", ())).tolist()),
    )


def _sample_weights(snapshot: GaussianSnapshot, noise: np.ndarray) -> np.ndarray:
    """μ + A z for each row z of ``noise`` (standard normal draws), A Aᵀ = Σ."""
    cov = snapshot.covariance
    # Σ is symmetric positive definite by construction; an eigen-decomposition with clipped
    # eigenvalues tolerates rounding that makes a tiny eigenvalue negative.
    values, vectors = np.linalg.eigh(cov)
    factor = vectors * np.sqrt(np.clip(values, 0.0, None))
    return snapshot.mean + noise[:, : len(snapshot.mean)] @ factor.T


def _grid(X, resolution=120, pad=0.15):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    gx, gy = np.meshgrid(
        np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    )
    return gx, gy, np.column_stack([gx.ravel(), gy.ravel()])


def _line(ax, w, box, **style):
    """Draw the line w0·x + w1·y + w2 = 0 across the box (a linear boundary is a line: no
    need to contour a grid)."""
    x0, x1, y0, y1 = box
    if abs(w[1]) >= abs(w[0]) and w[1] != 0:
        xs = np.array([x0, x1])
        ys = -(w[0] * xs + w[2]) / w[1]
    elif w[0] != 0:
        ys = np.array([y0, y1])
        xs = -(w[1] * ys + w[2]) / w[0]
    else:
        return None  # no boundary: the model predicts one class everywhere
    return ax.plot(xs, ys, **style)[0]


def _draw_boundary(ax, model, X, y, noise, labels, feature_names) -> list:
    """Draw the data, the boundary of ``model`` and, for a Gaussian model, one sampled
    boundary per row of ``noise`` (standard normal draws) into ``ax``; return the legend
    handles (classes, mean, samples) in a fixed order."""
    snapshot = model if isinstance(model, GaussianSnapshot) else None
    if snapshot is None and hasattr(model, "coef_") and np.ndim(model.coef_) == 2:
        if model.coef_.shape[0] == 1:
            snapshot = gaussian_snapshot(model)
    gx, gy, points = _grid(X)
    classes = _class_order(model, y)
    for k, label in enumerate(classes):
        shown = y == label
        if not shown.any():
            continue  # (its colour stays reserved: k counts it)
        ax.scatter(
            *X[shown].T,
            s=18,
            marker=CLASS_MARKERS[k % len(CLASS_MARKERS)],
            alpha=0.85,
            color=CLASS_COLORS[k % len(CLASS_COLORS)],
            edgecolors="none",
            zorder=3,
        )
    box = (gx.min(), gx.max(), gy.min(), gy.max())
    samples = len(noise)
    sampled = snapshot is not None and snapshot.covariance is not None and samples > 0
    if sampled:
        for w in _sample_weights(snapshot, noise):
            _line(ax, w, box, color=_SAMPLE_GREY, linewidth=0.6, alpha=0.6, zorder=1)
    if snapshot is not None:
        _line(ax, snapshot.mean, box, color="black", linewidth=2, zorder=4)
    else:
        z = np.asarray(model.decision_function(points))
        if z.ndim == 1:
            ax.contour(gx, gy, z.reshape(gx.shape), levels=[0], colors="black", linewidths=2)
        else:  # multiclass: boundaries between the arg-max regions
            regions = z.argmax(axis=1).reshape(gx.shape)
            ax.contour(
                gx, gy, regions, levels=np.arange(z.shape[1]) + 0.5, colors="black", linewidths=2
            )
    ax.set_xlim(gx.min(), gx.max())
    ax.set_ylim(gy.min(), gy.max())
    names = list(feature_names) or ["feature 1", "feature 2"]
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    names = labels if labels is not None else [str(c) for c in classes]
    return boundary_legend(names, samples if sampled else 0)


def _class_order(model, y) -> list:
    """The classes in colour order: the model's ``classes_`` — a class keeps its colour
    whichever subset of the data is plotted — then any label of y the model never saw (a
    ``GaussianSnapshot``: the model's ``classes`` it keeps); else the sorted labels of y."""
    seen = np.unique(y).tolist()
    known = getattr(model, "classes_", None)
    if known is None and isinstance(model, GaussianSnapshot) and model.classes:
        known = model.classes
    if known is None:
        return seen
    known = np.asarray(known).tolist()
    return known + [label for label in seen if label not in known]


def boundary_legend(class_names, samples: int = 30) -> list:
    """The legend entries of a boundary plot: each class (colour and marker as drawn), the
    boundary of the mean and, when ``samples``, the sampled boundaries."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D(
            [],
            [],
            linestyle="none",
            marker=CLASS_MARKERS[k % len(CLASS_MARKERS)],
            color=CLASS_COLORS[k % len(CLASS_COLORS)],
            label=f"class {name}",
        )
        for k, name in enumerate(class_names)
    ]
    handles.append(Line2D([], [], color="black", lw=2, label="boundary of the mean μ"))
    if samples:
        handles.append(
            Line2D([], [], color=_SAMPLE_GREY, lw=1, label=f"{samples} boundaries of w ~ N(μ, Σ)")
        )
    return handles


def plot_decision_boundary(
    model,
    X,
    y,
    samples: int = 30,
    *,
    title: str | None = None,
    feature_names=(),
    class_names=None,
    random_state=0,
    ax=None,
    legend: bool = True,
):
    """Scatter a 2-D data set with the model's decision boundary.

    Parameters
    ----------
    model : fitted estimator with ``decision_function`` or a ``GaussianSnapshot``
        Any 2-D model; for linear models with a covariance (CW, AROW, SCW, SOP) also
        ``samples`` boundaries of weight vectors drawn from N(μ, Σ) (grey).
    X : array (n, 2)
        The points to scatter.
    y : array (n,)
        Their labels. A class's colour is its position in ``model.classes_`` (for a
        ``GaussianSnapshot``: in the model's ``classes`` it keeps, else in the sorted labels
        of y), so that it keeps its colour whichever subset of the data is plotted.
    samples : int, default=30
        Number of sampled boundaries (0 for none).
    title, feature_names : labels.
    class_names : list of str, optional
        The classes' names in the legend, in the order of ``model.classes_`` (for a
        ``GaussianSnapshot``: of its ``classes``, else of the sorted labels of y); default:
        the labels themselves.
    random_state : seed of the sampled weights.
    ax : matplotlib Axes to draw into (default: a new figure).
    legend : bool, default=True
        Add the legend under the axes (outside the data). Figures of several panels pass
        False and add one legend for all (``olearn.plotting.style.legend_below``).

    Returns
    -------
    matplotlib.figure.Figure
    """

    X, y = _check_points("plot_decision_boundary", X, y, samples)
    if not (isinstance(model, GaussianSnapshot) or hasattr(model, "decision_function")):
        raise TypeError(
            f"plot_decision_boundary draws a classifier's boundary: {type(model).__name__} has "
            "no decision_function."
        )
    noise = np.random.default_rng(random_state).standard_normal((samples, X.shape[1] + 1))
    with style() as plt:
        own = ax is None
        if own:
            fig, ax = plt.subplots(figsize=(5.6, 4.8))
        else:
            fig = ax.figure
        handles = _draw_boundary(ax, model, X, y, noise, class_names, feature_names)
        set_title(ax, title or f"Decision boundary of {type(model).__name__}")
        if legend and own:
            legend_below(fig, handles, ncol=2)
        elif legend:
            ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig


def _check_points(caller: str, X, y, samples: int):
    """X as a float (n, 2) array and y as (n,) labels, or a ValueError naming the problem
    (not an IndexError or NumPy's reduction error from deep inside the drawing)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"{caller} needs 2-D inputs, got X of shape {X.shape}.")
    if X.shape[0] == 0:
        raise ValueError(f"{caller}: X has no points to plot.")
    if not np.isfinite(X).all():
        raise ValueError(f"{caller}: X contains NaN or infinity, which cannot be plotted.")
    if y.shape != (X.shape[0],):
        raise ValueError(f"{caller} needs one label per point: X has {X.shape[0]} rows, y has "
                         f"shape {y.shape}.")  # fmt: skip
    if samples < 0:
        raise ValueError(f"{caller}: samples must be ≥ 0 (0: no sampled boundaries), got "
                         f"{samples}.")  # fmt: skip
    return X, y


def plot_weights_over_time(snapshots, *, title="Weights over time (mean ± σ)", feature_names=()):
    """Each weight (features and bias) against examples seen, with a ±σ band from diag Σ:
    one line per weight over the ``snapshots`` (``GaussianSnapshot`` s in order), named by
    ``feature_names`` (default: the snapshots' own), under ``title``."""

    ts = np.array([s.t for s in snapshots])
    means = np.array([s.mean for s in snapshots])
    has_cov = snapshots[0].covariance is not None
    names = list(feature_names or snapshots[0].feature_names) or [
        f"w{j}" for j in range(means.shape[1] - 1)
    ]
    labels = [f"w{j} ({name})" for j, name in enumerate(names)] + [f"w{len(names)} (bias)"]
    with style() as plt:
        fig, ax = plt.subplots(figsize=(7.2, 4.0))
        handles = []
        for j in range(means.shape[1]):
            color = f"C{j}"
            handles.append(ax.plot(ts, means[:, j], color=color, label=labels[j])[0])
            if has_cov:
                sigma = np.sqrt(np.array([max(s.covariance[j, j], 0.0) for s in snapshots]))
                ax.fill_between(
                    ts, means[:, j] - sigma, means[:, j] + sigma, color=color, alpha=0.2
                )
        ax.set_xscale("log")
        ax.set_xlabel("examples seen (log scale)")
        ax.set_ylabel("weight (band: mean ± σ)" if has_cov else "weight")
        set_title(ax, title)
        legend_below(fig, handles)
    return fig


def _palette(frames, colors: int, keep=()):
    """One palette for every frame of a GIF: quantised from the first, middle and last frames
    side by side, so a colour (a class) maps to the same entry in every frame, plus the
    colours ``keep`` exactly (hex strings: the class colours, which median cut may otherwise
    average with the grey lines around small markers)."""
    from PIL import Image

    picks = [frames[0], frames[len(frames) // 2], frames[-1]]
    mosaic = np.concatenate(picks, axis=1)
    kept = [int(c[i : i + 2], 16) for c in keep for i in (1, 3, 5)]
    n = colors - len(keep)
    base = Image.fromarray(mosaic).quantize(colors=n, method=Image.Quantize.MEDIANCUT)
    palette = Image.new("P", (1, 1))
    palette.putpalette(base.getpalette()[: 3 * n] + kept)
    return palette


def animate_boundary(
    snapshots,
    X,
    y,
    path,
    *,
    samples: int = 30,
    fps: int = 6,
    title: str = "",
    feature_names=(),
    class_names=None,
    random_state=0,
    dpi: int = 100,
    colors: int = 24,
) -> str:
    """Write a GIF with one frame per snapshot: the boundary of the mean and ``samples``
    boundaries drawn from N(μ, Σ), titled with t and the update count. Returns the path.

    ``snapshots`` are ``GaussianSnapshot`` s in order, drawn over the points ``X`` (n, 2)
    coloured by their labels ``y``; the GIF goes to ``path`` at ``fps`` frames per second.
    ``title``, ``feature_names`` and ``class_names`` label the frames, as in
    :func:`plot_decision_boundary`; ``random_state`` seeds the sampled weights.

    Every frame has the same layout (fixed margins, the legend under the axes) and the same
    ``colors``-colour palette (one palette for all frames keeps each class its colour and the
    file small). At the default 100 dpi a frame is 520 × 440 pixels with 10-point text. The
    last frame is held 3 s.
    """
    from PIL import Image

    X, y = _check_points("animate_boundary", X, y, samples)
    if not snapshots:
        raise ValueError("no snapshots to animate.")
    # the same draws z in every frame: each sampled boundary μ + A z moves smoothly with (μ, Σ)
    noise = np.random.default_rng(random_state).standard_normal((samples, X.shape[1] + 1))
    frames = []
    with style() as plt:
        # no constrained layout: a layout recomputed per frame would make the axes jump
        fig = plt.figure(figsize=(5.2, 4.4), dpi=dpi, layout="none")
        ax = fig.add_axes((0.15, 0.25, 0.81, 0.62))
        for s in snapshots:
            ax.clear()
            handles = _draw_boundary(ax, s, X, y, noise, class_names, feature_names)
            ax.set_title(f"{title}\nt = {s.t:,} examples, {s.n_updates:,} updates".strip())
            if not fig.legends:
                fig.legend(
                    handles=handles,
                    loc="lower center",
                    bbox_to_anchor=(0.5, 0.01),
                    ncol=2,
                    frameon=False,
                )
            fig.canvas.draw()
            frames.append(np.asarray(fig.canvas.buffer_rgba())[..., :3].copy())
        plt.close(fig)
    palette = _palette(frames, colors, keep=CLASS_COLORS[: len(np.unique(y))])
    images = [
        Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames
    ]
    durations = [int(1000 / fps)] * len(images)
    durations[-1] = 3000
    images[0].save(
        str(path),
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=True,
    )
    return str(path)
