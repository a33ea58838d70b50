"""Reproduction 3: CW, SCW-I, SCW-II and AROW on two iris tasks (the SCW blog, seed 001).

Protocol of the blog: features centred, a bias feature (our intercept, with its own variance),
10,000 examples drawn at random with replacement from the 100 of each pair, η = 0.95, C = 1,
r = 1, full covariance Σ₀ = I. The blog reports update counts CW 47 (separable pair, last update
at t = 1,626), SCW-I 462, SCW-II 912, AROW 3,108 (non-separable pair). Ours come from other
random draws, so they can only agree in order of magnitude and ranking.

Training is chunked ``partial_fit`` between checkpoints; the snapshots (mean and Σ) taken at the
checkpoints give the weights-over-time curves and the animation frames.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from olearn.plotting.style import DPI

#: update counts reported by the blog (seed 001)
BLOG_UPDATES = {
    ("separable", "CW"): 47,
    ("nonseparable", "SCW-I"): 462,
    ("nonseparable", "SCW-II"): 912,
    ("nonseparable", "AROW"): 3108,
}
BLOG_LAST_UPDATE = {("separable", "CW"): 1626}

PAIRS = ("separable", "nonseparable")
PAIR_NAMES = {"separable": "separable", "nonseparable": "non-separable"}


def _estimators(eta: float, C: float, r: float) -> dict:
    from olearn import AROWClassifier, CWClassifier, SCWClassifier

    return {
        "CW": CWClassifier(eta=eta, covariance="full"),
        "SCW-I": SCWClassifier(variant="I", eta=eta, C=C, covariance="full"),
        "SCW-II": SCWClassifier(variant="II", eta=eta, C=C, covariance="full"),
        "AROW": AROWClassifier(r=r, covariance="full"),
    }


@dataclass
class IrisRun:
    """One algorithm on one pair: snapshots at the checkpoints, counters, final accuracy."""

    algorithm: str
    pair: str
    snapshots: list
    n_updates: int
    n_mistakes: int
    last_update_before: int
    accuracy: float
    frame_index: list


@dataclass
class IrisSCWResult:
    """All runs (``runs[(pair, algorithm)]``), the two data sets and the settings."""

    runs: dict
    datasets: dict
    settings: dict = field(default_factory=dict)

    def table(self) -> list[dict]:
        rows = []
        for (pair, algorithm), run in self.runs.items():
            rows.append(
                {
                    "pair": pair,
                    "algorithm": algorithm,
                    "updates": run.n_updates,
                    "blog updates": BLOG_UPDATES.get((pair, algorithm)),
                    "online mistakes": run.n_mistakes,
                    "last update before t": run.last_update_before,
                    "training accuracy": run.accuracy,
                }
            )
        return rows

    def to_markdown(self) -> str:
        lines = [
            "| pair | algorithm | updates (ours) | updates (blog) | online mistakes | "
            "last update before t | accuracy on the 100 points |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in self.table():
            blog = row["blog updates"]
            lines.append(
                f"| {row['pair']} | {row['algorithm']} | {row['updates']:,} | "
                f"{'' if blog is None else f'{blog:,}'} | {row['online mistakes']:,} | "
                f"{row['last update before t']:,} | {row['training accuracy']:.3f} |"
            )
        return "\n".join(lines)

    def figures(
        self,
        out,
        *,
        gif_frames: int | None = None,
        gifs=None,
        weights=True,
        boundaries: bool = True,
        dpi: int = DPI,
    ):
        """Write the figures to ``out``: per pair the final boundaries of every algorithm
        (``boundaries``); the weights over time of each (pair, algorithm) of ``weights`` (True:
        all); an animated GIF for each (pair, algorithm) of ``gifs`` (default: every algorithm
        on the non-separable pair; ``gif_frames`` limits the frames). PNGs at ``dpi``, GIFs at
        two thirds of it. Return {name: path}."""
        from olearn.plotting import (
            animate_boundary,
            plot_decision_boundary,
            plot_weights_over_time,
            save,
        )
        from olearn.plotting.boundary import boundary_legend
        from olearn.plotting.style import legend_below, set_suptitle, style

        os.makedirs(out, exist_ok=True)
        paths = {}
        n_draws = self.settings.get("n_draws", 0)
        for pair in PAIRS:
            data = self.datasets[pair]
            algorithms = [a for (p, a) in self.runs if p == pair]
            for algorithm in algorithms:
                if not (weights is True or (pair, algorithm) in (weights or ())):
                    continue
                run = self.runs[(pair, algorithm)]
                fig = plot_weights_over_time(
                    run.snapshots,
                    title=f"{algorithm} on the iris {PAIR_NAMES[pair]} pair: weights over time",
                    feature_names=[n.replace(" (cm)", "") for n in data.feature_names],
                )
                key = f"iris_{pair}_{algorithm.lower()}_weights"
                paths[key] = save(fig, os.path.join(out, key + ".png"), dpi=dpi)
            if not boundaries:
                continue
            with style() as plt:
                columns = min(2, len(algorithms))
                grid_rows = -(-len(algorithms) // columns)
                fig, axes = plt.subplots(
                    grid_rows, columns, figsize=(4.6 * columns, 3.9 * grid_rows + 0.9)
                )
                for ax, algorithm in zip(np.ravel(axes), algorithms, strict=True):
                    run = self.runs[(pair, algorithm)]
                    plot_decision_boundary(
                        run.snapshots[-1],
                        data.X,
                        data.y,
                        samples=30,
                        ax=ax,
                        title=f"{algorithm}: {run.n_updates:,} updates",
                        feature_names=_centred(data.feature_names),
                        class_names=data.target_names,
                        legend=False,
                    )
                set_suptitle(
                    fig,
                    f"Iris, {PAIR_NAMES[pair]} pair ({' vs '.join(data.target_names)}), "
                    f"after {n_draws:,} random draws",
                )
                legend_below(fig, boundary_legend(data.target_names, 30), ncol=4)
            paths[f"iris_{pair}_boundaries"] = save(
                fig, os.path.join(out, f"iris_{pair}_boundaries.png"), dpi=dpi
            )
        if gifs is None:
            gifs = [(p, a) for (p, a) in self.runs if p == "nonseparable"]
        for pair, algorithm in gifs:
            run = self.runs[(pair, algorithm)]
            frames = [run.snapshots[i] for i in run.frame_index]
            if gif_frames is not None:
                frames = frames[:gif_frames]
            data = self.datasets[pair]
            key = f"iris_{pair}_{algorithm.lower()}_animation"
            paths[key] = animate_boundary(
                frames,
                data.X,
                data.y,
                os.path.join(out, key + ".gif"),
                title=f"{algorithm} on the iris {PAIR_NAMES[pair]} pair",
                feature_names=_centred(data.feature_names),
                class_names=data.target_names,
                dpi=max(30, round(dpi * 2 / 3)),
            )
        return paths


def _centred(feature_names) -> list[str]:
    """'petal length (cm)' -> 'petal length, centred (cm)'."""
    return [n.replace(" (cm)", ", centred (cm)") for n in feature_names]


def _distinct_geometric(n: int, k: int) -> np.ndarray:
    """min(k, n) distinct, increasing, roughly geometric counts in [1, n], ending at n."""
    k = min(k, n)
    points = np.round(np.geomspace(1, n, k)).astype(np.int64)
    for i in range(1, k):  # early points round to the same count: push them apart
        points[i] = max(points[i], points[i - 1] + 1)
    points[-1] = n
    for i in range(k - 2, -1, -1):
        points[i] = min(points[i], points[i + 1] - 1)
    return points


def iris_scw(
    *,
    n_draws: int = 10_000,
    eta: float = 0.95,
    C: float = 1.0,
    r: float = 1.0,
    n_snapshots: int = 1000,
    n_frames: int = 24,
    random_state: int = 0,
) -> IrisSCWResult:
    """Run the SCW blog's iris experiment.

    Parameters
    ----------
    n_draws : int, default=10,000
        Examples drawn with replacement from the 100 of each pair.
    eta, C, r : the blog's hyper-parameters (η = 0.95, C = 1, r = 1).
    n_snapshots : int, default=1000
        Evenly spaced checkpoints for the weights-over-time curves.
    n_frames : int, default=24
        Geometrically spaced checkpoints (early updates move most) for the animation: the GIF
        has exactly this many frames (``n_draws`` if that is smaller).
    random_state : int
        Seed of the draws (the same draws feed every algorithm).
    """
    from olearn.datasets import load_iris_pair
    from olearn.evaluation import train_side_by_side
    from olearn.plotting.boundary import gaussian_snapshot

    if n_draws < 1:
        raise ValueError(f"n_draws must be >= 1, got {n_draws}.")
    frames = _distinct_geometric(n_draws, n_frames)
    even = np.unique(
        np.round(np.linspace(n_draws / n_snapshots, n_draws, n_snapshots)).astype(np.int64)
    )
    checkpoints = np.union1d(frames, even)
    frame_index = np.searchsorted(checkpoints, frames).tolist()
    runs, datasets = {}, {}
    rng = np.random.default_rng(random_state)
    for pair in PAIRS:
        data = load_iris_pair(separable=(pair == "separable"))
        datasets[pair] = data
        draws = rng.integers(0, data.n_samples, n_draws)
        estimators = _estimators(eta, C, r)
        curves = train_side_by_side(
            list(estimators.values()),
            np.ascontiguousarray(data.X[draws]),
            data.y[draws],
            checkpoints=checkpoints,
            classes=np.array([-1.0, 1.0]),
            snapshot=lambda m, names=data.feature_names: gaussian_snapshot(m, names),
        )
        for i, algorithm in enumerate(estimators):
            snapshots = curves.models[i]
            last = snapshots[-1]
            updates = curves.updates[i]
            # first checkpoint at which the final update count was already reached
            settled = int(checkpoints[np.argmax(updates == updates[-1])])
            accuracy = float(np.mean(np.sign(last.decision_function(data.X)) == data.y))
            runs[(pair, algorithm)] = IrisRun(
                algorithm=algorithm,
                pair=pair,
                snapshots=snapshots,
                n_updates=int(updates[-1]),
                n_mistakes=int(curves.mistakes[i, -1]),
                last_update_before=settled,
                accuracy=accuracy,
                frame_index=frame_index,
            )
    return IrisSCWResult(
        runs=runs,
        datasets=datasets,
        settings={"n_draws": n_draws, "eta": eta, "C": C, "r": r, "seed": random_state},
    )
