"""Decision boundaries of 2-D models, boundaries sampled from a Gaussian over weights, weights
over time with ±σ bands, and the boundary animated over updates (the SCW blog's figures)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from olearn.plotting.style import style


@dataclass
class GaussianSnapshot:
    """A linear model at one moment: mean (features then intercept) and, for second-order
    models, the covariance over the same coordinates (intercept included).

    ``t`` is the number of examples seen, ``n_updates`` the updates so far.
    """

    t: int
    n_updates: int
    mean: np.ndarray
    covariance: np.ndarray | None
    feature_names: tuple = ()

    def decision_function(self, X):
        return np.asarray(X) @ self.mean[:-1] + self.mean[-1]


def gaussian_snapshot(model, feature_names=()) -> GaussianSnapshot:
    """Snapshot a fitted binary linear olearn model (mean and, if it has one, Σ)."""
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
    )


def _sample_weights(snapshot: GaussianSnapshot, samples: int, rng) -> np.ndarray:
    cov = snapshot.covariance
    # Σ is symmetric positive definite by construction; an eigen-decomposition with clipped
    # eigenvalues tolerates rounding that makes a tiny eigenvalue negative.
    values, vectors = np.linalg.eigh(cov)
    factor = vectors * np.sqrt(np.clip(values, 0.0, None))
    return snapshot.mean + rng.standard_normal((samples, len(snapshot.mean))) @ factor.T


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


def _draw_boundary(ax, model, X, y, samples, rng, labels, feature_names):
    snapshot = model if isinstance(model, GaussianSnapshot) else None
    if snapshot is None and hasattr(model, "coef_") and np.ndim(model.coef_) == 2:
        if model.coef_.shape[0] == 1:
            snapshot = gaussian_snapshot(model)
    gx, gy, points = _grid(X)
    classes = np.unique(y)
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    for k, label in enumerate(classes):
        name = labels[k] if labels is not None and k < len(labels) else str(label)
        ax.scatter(
            *X[y == label].T,
            s=14,
            marker=markers[k % len(markers)],
            alpha=0.7,
            label=f"class {name}",
            color=["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"][k % 5],
            edgecolors="none",
        )
    from matplotlib.lines import Line2D

    box = (gx.min(), gx.max(), gy.min(), gy.max())
    handles = [Line2D([], [], color="black", lw=2, label="decision boundary (mean)")]
    if snapshot is not None and snapshot.covariance is not None and samples:
        for w in _sample_weights(snapshot, samples, rng):
            _line(ax, w, box, color="gray", linewidth=0.5, alpha=0.5)
        handles.append(
            Line2D([], [], color="gray", lw=0.5, label=f"{samples} samples from N(μ, Σ)")
        )
    if snapshot is not None:
        _line(ax, snapshot.mean, box, color="black", linewidth=2)
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
    scatter_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=scatter_handles + handles, loc="best", fontsize=7, framealpha=0.8)


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
):
    """Scatter a 2-D data set with the model's decision boundary.

    Parameters
    ----------
    model : fitted estimator with ``decision_function`` or a ``GaussianSnapshot``
        Any 2-D model; for linear models with a covariance (CW, AROW, SCW, SOP) also
        ``samples`` boundaries of weight vectors drawn from N(μ, Σ) (grey).
    X : array (n, 2); y : array (n,)
    samples : int, default=30
        Number of sampled boundaries (0 for none).
    title, feature_names, class_names : labels.
    random_state : seed of the sampled weights.
    ax : matplotlib Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary needs 2-D inputs, got X of shape {X.shape}.")
    y = np.asarray(y)
    rng = np.random.default_rng(random_state)
    with style() as plt:
        if ax is None:
            fig, ax = plt.subplots(figsize=(5, 4))
        else:
            fig = ax.figure
        _draw_boundary(ax, model, X, y, samples, rng, class_names, feature_names)
        ax.set_title(title or f"Decision boundary of {type(model).__name__}")
    return fig


def plot_weights_over_time(snapshots, *, title="Weights over time (mean ± σ)", feature_names=()):
    """Each weight (features and bias) against examples seen, with a ±σ band from diag Σ."""
    ts = np.array([s.t for s in snapshots])
    means = np.array([s.mean for s in snapshots])
    has_cov = snapshots[0].covariance is not None
    names = list(feature_names or snapshots[0].feature_names) or [
        f"w{j}" for j in range(means.shape[1] - 1)
    ]
    labels = [f"w{j} ({name})" for j, name in enumerate(names)] + [f"w{len(names)} (bias)"]
    with style() as plt:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        for j in range(means.shape[1]):
            color = f"C{j}"
            ax.plot(ts, means[:, j], color=color, label=labels[j])
            if has_cov:
                sigma = np.sqrt(np.array([max(s.covariance[j, j], 0.0) for s in snapshots]))
                ax.fill_between(
                    ts, means[:, j] - sigma, means[:, j] + sigma, color=color, alpha=0.2
                )
        ax.set_xscale("log")
        ax.set_xlabel("examples seen (log scale)")
        ax.set_ylabel("weight value (band: ±σ)")
        ax.set_title(title)
        ax.legend(loc="best")
    return fig


def animate_boundary(
    snapshots,
    X,
    y,
    path,
    *,
    samples: int = 30,
    fps: int = 8,
    title: str = "",
    feature_names=(),
    class_names=None,
    random_state=0,
    dpi: int = 60,
    colors: int = 16,
) -> str:
    """Write a GIF with one frame per snapshot: the boundary of the mean and ``samples``
    boundaries drawn from N(μ, Σ), titled with t and the update count.

    Frames are rendered by matplotlib and written by Pillow, each quantised to ``colors``
    colours (a plot needs few; it keeps the file small). The last frame is held 3 s.
    """
    from PIL import Image

    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if not snapshots:
        raise ValueError("no snapshots to animate.")
    rng = np.random.default_rng(random_state)
    images = []
    with style() as plt:
        fig, ax = plt.subplots(figsize=(4.8, 3.8), dpi=dpi)
        for s in snapshots:
            ax.clear()
            _draw_boundary(ax, s, X, y, samples, rng, class_names, feature_names)
            ax.set_title(f"{title} t = {s.t:,}, updates = {s.n_updates:,}".strip())
            fig.canvas.draw()
            frame = Image.fromarray(np.asarray(fig.canvas.buffer_rgba())[..., :3].copy())
            images.append(frame.quantize(colors=colors, method=Image.Quantize.MEDIANCUT))
        plt.close(fig)
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
