"""Reproduction 4: observed mistakes and cumulative losses against the theorems' bounds.

Streams: ``d``-dimensional x uniform in the unit ball, a random unit vector u*, points with
|u*·x| < γ discarded, y = sign(u*·x); the noisy stream flips a fraction of the labels. Models
learn without intercept (the theorems are for homogeneous linear predictors). For a comparison
vector u the bounds use R = max‖x_t‖ and the hinge losses ℓ*_t = max(0, 1 − y_t u·x_t); every
bound holds for every u, so we report the smallest over u = s·u* for s on a grid.

Bounds (``docs/experiments.md`` lists the sources):

* Perceptron, separable: M ≤ (R/γ)² (Novikoff); any stream: M ≤ (R‖u‖ + √Σℓ*²)²
  (Freund & Schapire 1999, Theorem 2, with u scaled to margin 1).
* PA, separable: Σℓ_t² ≤ ‖u‖²R² (Crammer et al. 2006, Theorem 2); any stream of unit-norm
  x: Σℓ_t² ≤ (‖u‖ + 2√Σ(ℓ*_t)²)² (Theorem 3), so on the noisy stream PA learns the rows
  scaled to ‖x‖ = 1 (the margins of u* only grow: |u*·x|/‖x‖ ≥ γ).
* PA-I: M ≤ max(R², 1/C)(‖u‖² + 2CΣℓ*_t) (Theorem 4).
* PA-II: Σℓ_t² ≤ (R² + 1/(2C))(‖u‖² + 2CΣ(ℓ*_t)²) (Theorem 5).
* AROW: M ≤ √(r‖u‖² + uᵀX_A u)·√(log det(I + X_A/r) + U) + Σ_{t∈M∪U} g_t − U (Crammer,
  Kulesza, Dredze 2009, Theorem 2; g_t = ℓ*_t, U = updates that were not mistakes). X_A sums
  x xᵀ over the update rounds, which the counters do not identify, so we use the sum over all
  rounds and Σ g_t over all rounds: the right-hand side only grows (it is increasing in X_A in
  the PSD order and in the g's), so the reported bound is a valid, looser one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from olearn.plotting.style import DPI

SCALES = np.geomspace(0.25, 8.0, 41)


def margin_stream(n: int, d: int, gamma: float, noise: float, rng) -> tuple:
    """(X, y, u*) with margin ``gamma`` about the unit vector u*, then ``noise`` labels flipped."""
    from olearn.evaluation import flip_labels

    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    rows = []
    while sum(len(r) for r in rows) < n:
        x = rng.standard_normal((2 * n, d))
        x *= (rng.random(2 * n) ** (1.0 / d) / np.linalg.norm(x, axis=1))[:, None]
        rows.append(x[np.abs(x @ u) >= gamma])
    X = np.concatenate(rows)[:n]
    y = np.sign(X @ u)
    y = flip_labels(y, noise, random_state=rng) if noise else y
    return np.ascontiguousarray(X), y, u


@dataclass
class BoundRow:
    algorithm: str
    stream: str
    quantity: str
    theorem: str
    checkpoints: np.ndarray
    observed: np.ndarray
    bound: np.ndarray
    note: str = ""

    @property
    def holds(self) -> bool:
        return bool(np.all(self.observed <= self.bound + 1e-9))


@dataclass
class BoundsResult:
    rows: list
    settings: dict = field(default_factory=dict)

    def to_markdown(self) -> str:
        lines = [
            "| algorithm | stream | quantity | observed | bound | observed / bound | holds "
            "| source |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            o, b = row.observed[-1], row.bound[-1]
            lines.append(
                f"| {row.algorithm} | {row.stream} | {row.quantity} | {o:,.1f} | {b:,.1f} | "
                f"{o / b:.3f} | {'yes' if row.holds else '**no**'} | {row.theorem} |"
            )
        return "\n".join(lines)

    def figures(self, out, *, dpi: int = DPI):
        from olearn.plotting import plot_bounds, save

        os.makedirs(out, exist_ok=True)
        return {"bounds": save(plot_bounds(self), os.path.join(out, "bounds.png"), dpi=dpi)}


def _counters(models: dict, X, y, checkpoints) -> dict:
    """Train ``models`` side by side on (X, y); their counters (``stats_``) per checkpoint."""
    from olearn.evaluation import train_side_by_side

    curves = train_side_by_side(
        list(models.values()),
        X,
        y,
        checkpoints=checkpoints,
        classes=np.array([-1.0, 1.0]),
        snapshot=lambda m: m.stats_.copy(),
    )
    return {name: np.array(curves.models[i]) for i, name in enumerate(models)}


def _pa_theorem3_row(stream, X_unit, y, u_star, stats, checkpoints) -> BoundRow:
    """PA on unit-norm rows: Σℓ_t² ≤ (‖u‖ + 2√Σ(ℓ*_t)²)² (Crammer et al. 2006, Theorem 3)."""
    margins = y * (X_unit @ u_star)

    def bound(s):
        losses = np.maximum(0.0, 1.0 - s * margins) ** 2
        return (s + 2 * np.sqrt(_prefix_sums(losses, checkpoints))) ** 2

    return BoundRow(
        "PA",
        stream,
        "Σℓ²",
        "Crammer et al. 2006, Thm 3 (‖x‖ = 1)",
        checkpoints,
        stats[:, 4],
        _best_over_scales(bound),
        note="at ‖x‖ = 1",
    )


def _prefix_sums(values, checkpoints):
    return np.cumsum(values)[np.asarray(checkpoints) - 1]


def _best_over_scales(compute):
    """Smallest bound over u = s·u*, per checkpoint (each prefix may choose its own u)."""
    return np.min(np.stack([compute(s) for s in SCALES]), axis=0)


def bounds_experiment(
    *,
    n: int = 2000,
    d: int = 10,
    gamma: float = 0.1,
    noise: float = 0.1,
    C: float = 1.0,
    r: float = 1.0,
    n_checkpoints: int = 20,
    random_state: int = 0,
) -> BoundsResult:
    """Train Perceptron, PA, PA-I, PA-II and AROW on a separable and a noisy stream and compute
    each theorem's bound at every checkpoint (on the prefix seen so far)."""
    from olearn import AROWClassifier, PassiveAggressiveClassifier, PerceptronClassifier
    from olearn.evaluation import make_checkpoints

    rng = np.random.default_rng(random_state)
    checkpoints = make_checkpoints(n, n_checkpoints)
    models = {
        "Perceptron": PerceptronClassifier(fit_intercept=False),
        "PA": PassiveAggressiveClassifier(variant="PA", fit_intercept=False),
        "PA-I": PassiveAggressiveClassifier(variant="PA-I", C=C, fit_intercept=False),
        "PA-II": PassiveAggressiveClassifier(variant="PA-II", C=C, fit_intercept=False),
        "AROW": AROWClassifier(r=r, covariance="full", fit_intercept=False),
    }
    rows = []
    for stream, stream_noise in (("separable", 0.0), (f"{noise:.0%} label noise", noise)):
        X, y, u_star = margin_stream(n, d, gamma, stream_noise, rng)
        stats = _counters(models, X, y, checkpoints)
        rows += _stream_rows(stream, stream_noise == 0.0, X, y, u_star, stats, checkpoints, C, r)
        if stream_noise:
            X_unit = X / np.linalg.norm(X, axis=1)[:, None]
            pa = _counters({"PA": models["PA"]}, X_unit, y, checkpoints)["PA"]
            rows.append(_pa_theorem3_row(stream, X_unit, y, u_star, pa, checkpoints))
    order = list(models)  # rows grouped by stream, in the models' order within each
    rows.sort(key=lambda row: (row.stream != "separable", order.index(row.algorithm)))
    return BoundsResult(
        rows=rows,
        settings={
            "n": n,
            "d": d,
            "gamma": gamma,
            "noise": noise,
            "C": C,
            "r": r,
            "seed": random_state,
        },
    )


def _stream_rows(stream, separable, X, y, u_star, stats, checkpoints, C, r) -> list:
    """The bound rows of one stream from the counters at the checkpoints (``stats[name]`` is
    (n_checkpoints, 5): rounds, mistakes, updates, loss, squared loss)."""
    rows = []
    d = X.shape[1]
    R = np.maximum.accumulate(np.linalg.norm(X, axis=1))[checkpoints - 1]
    margins = y * (X @ u_star)  # margins of the unit u*

    def hinge_sums(s, power):
        loss = np.maximum(0.0, 1.0 - s * margins)
        return _prefix_sums(loss**power, checkpoints)

    def add(name, quantity, theorem, observed, bound):
        rows.append(BoundRow(name, stream, quantity, theorem, checkpoints, observed, bound))

    mistakes = {name: s[:, 1] for name, s in stats.items()}
    updates = {name: s[:, 2] for name, s in stats.items()}
    squared = {name: s[:, 4] for name, s in stats.items()}
    if separable:
        true_gamma = np.minimum.accumulate(np.abs(margins))[checkpoints - 1]
        novikoff = (R / true_gamma) ** 2
        add("Perceptron", "mistakes", "Novikoff: (R/γ)²", mistakes["Perceptron"], novikoff)
        add("PA", "Σℓ²", "Crammer et al. 2006, Thm 2: ‖u‖²R²", squared["PA"], novikoff)
    else:
        add(
            "Perceptron",
            "mistakes",
            "Freund & Schapire 1999, Thm 2",
            mistakes["Perceptron"],
            _best_over_scales(lambda s: (R * s + np.sqrt(hinge_sums(s, 2))) ** 2),
        )
    add(
        "PA-I",
        "mistakes",
        "Crammer et al. 2006, Thm 4",
        mistakes["PA-I"],
        _best_over_scales(lambda s: np.maximum(R**2, 1 / C) * (s**2 + 2 * C * hinge_sums(s, 1))),
    )
    add(
        "PA-II",
        "Σℓ²",
        "Crammer et al. 2006, Thm 5",
        squared["PA-II"],
        _best_over_scales(lambda s: (R**2 + 1 / (2 * C)) * (s**2 + 2 * C * hinge_sums(s, 2))),
    )
    # AROW: X_all per prefix (the relaxation of X_A explained in the module docstring)
    X_all = np.cumsum(np.einsum("ni,nj->nij", X, X), axis=0)[checkpoints - 1]
    logdet = np.array([np.linalg.slogdet(np.eye(d) + Xa / r)[1] for Xa in X_all])
    M = mistakes["AROW"]
    U = updates["AROW"] - M

    def arow_bound(s):
        u = s * u_star
        quad = np.einsum("i,kij,j->k", u, X_all, u)
        return np.sqrt(r * s**2 + quad) * np.sqrt(logdet + U) + hinge_sums(s, 1) - U

    add(
        "AROW",
        "mistakes",
        "Crammer et al. 2009, Thm 2 (relaxed X_A)",
        M,
        _best_over_scales(arow_bound),
    )
    return rows
