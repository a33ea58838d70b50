"""Task benchmarks (issue 3): multiclass, regression and the sparse 20-class speed race.

Run on demand (not part of the tests)::

    PYTHONPATH=src python benchmarks/bench_tasks.py            # full sizes
    PYTHONPATH=src python benchmarks/bench_tasks.py --quick    # a smaller sparse set

1. scikit-learn's digits (10 classes): held-out accuracy after one pass of every olearn
   classifier (joint multi-prototype update, and one-vs-rest for PA-I) next to
   scikit-learn's SGDClassifier one-vs-rest (hinge loss; and learning_rate="pa1").
2. scikit-learn's diabetes: held-out RMSE after one pass of the olearn regressors next to
   scikit-learn's SGDRegressor (and after 20 passes for both SGDs).
3. A sparse text-like 20-class set (``datasets.sparse_multiclass``): one pass of olearn's
   multiclass PA-I against SGDClassifier(learning_rate="pa1") one-vs-rest: time (median of
   interleaved rounds, in one process) and held-out accuracy.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from datasets import sparse_multiclass
from sklearn.datasets import load_diabetes, load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.linear_model import SGDRegressor as SklearnSGDRegressor
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import olearn

warnings.filterwarnings("ignore", category=UserWarning)
warnings.filterwarnings("ignore", module="sklearn")


def _sk_ovr(**params):
    return SGDClassifier(max_iter=1, shuffle=False, tol=None, **params)


def digits_table() -> list[tuple[str, float, float]]:
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    models = {
        "olearn Perceptron": olearn.PerceptronClassifier(),
        "olearn averaged Perceptron": olearn.PerceptronClassifier(average=True),
        "olearn PA-I": olearn.PassiveAggressiveClassifier(),
        "olearn PA-I, one-vs-rest": olearn.PassiveAggressiveClassifier(multiclass="ovr"),
        "olearn SOP (full)": olearn.SecondOrderPerceptronClassifier(),
        "olearn CW exact (diag)": olearn.CWClassifier(),
        "olearn AROW (diag)": olearn.AROWClassifier(),
        "olearn AROW (full)": olearn.AROWClassifier(covariance="full"),
        "olearn SCW-I (diag)": olearn.SCWClassifier(),
        "sklearn SGDClassifier OvR (hinge)": _sk_ovr(),
        'sklearn SGDClassifier OvR (learning_rate="pa1")': _sk_ovr(
            learning_rate="pa1", eta0=1.0, penalty=None
        ),
    }
    rows = []
    for name, model in models.items():
        model.fit(X_train, y_train)
        online = getattr(model, "n_mistakes_", None)
        rate = online / len(y_train) if online is not None else float("nan")
        rows.append((name, model.score(X_test, y_test), rate))
    return rows


def diabetes_table() -> list[tuple[str, float]]:
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    sk = dict(shuffle=False, tol=None, learning_rate="invscaling", eta0=0.05, power_t=0.5)
    models = {
        "olearn PA-I (ε = 1)": olearn.PassiveAggressiveRegressor(epsilon=1.0),
        "olearn PA-II (ε = 1, C = 0.1)": olearn.PassiveAggressiveRegressor(
            variant="PA-II", C=0.1, epsilon=1.0
        ),
        "olearn AROW / RLS (full, r = 1)": olearn.AROWRegressor(covariance="full"),
        "olearn AROW / RLS (diag, r = 1)": olearn.AROWRegressor(),
        "olearn SGD (squared, η = 0.05)": olearn.SGDRegressor(eta0=0.05),
        "sklearn SGDRegressor (squared, η = 0.05)": SklearnSGDRegressor(max_iter=1, **sk),
        "olearn SGD, 20 passes": olearn.SGDRegressor(eta0=0.05, max_iter=20),
        "sklearn SGDRegressor, 20 passes": SklearnSGDRegressor(max_iter=20, **sk),
        "predict the training mean": None,
    }
    rows = []
    for name, model in models.items():
        if model is None:
            prediction = np.full(len(y_test), y_train.mean())
        else:
            prediction = model.fit(X_train, y_train).predict(X_test)
        rows.append((name, float(np.sqrt(np.mean((prediction - y_test) ** 2)))))
    return rows


SKLEARN_PA1 = 'sklearn SGDClassifier OvR (learning_rate="pa1")'
SKLEARN_PA1_AVERAGED = 'sklearn SGDClassifier OvR (learning_rate="pa1", average=True)'


def sparse_race(n_samples: int, n_features: int, rounds: int):
    """Rows: name -> (maker, the scikit-learn row it is compared with). C = 1 throughout;
    no intercept (scikit-learn damps the intercept of sparse data by 0.01; with olearn's
    constant feature of value 1 against word weights of about 0.1 it dominates the steps:
    the last row shows the cost)."""
    X, y = sparse_multiclass(n_samples=n_samples, n_features=n_features)
    n_train = int(0.8 * n_samples)
    X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    pa = olearn.PassiveAggressiveClassifier
    sk = dict(learning_rate="pa1", eta0=1.0, penalty=None, fit_intercept=False)
    rows = {
        "olearn PA-I (joint)": (lambda: pa(fit_intercept=False), SKLEARN_PA1),
        "olearn PA-I (one-vs-rest)": (
            lambda: pa(fit_intercept=False, multiclass="ovr"),
            SKLEARN_PA1,
        ),
        SKLEARN_PA1: (lambda: _sk_ovr(**sk), SKLEARN_PA1),
        "olearn PA-I (joint, averaged)": (
            lambda: pa(fit_intercept=False, average=True),
            SKLEARN_PA1_AVERAGED,
        ),
        SKLEARN_PA1_AVERAGED: (lambda: _sk_ovr(average=True, **sk), SKLEARN_PA1_AVERAGED),
        "olearn PA-I (joint, with intercept)": (lambda: pa(), SKLEARN_PA1),
    }
    for name, (make, _) in rows.items():  # compile (or load from the cache) first
        if name.startswith("olearn"):
            make().fit(X_train[:100], y_train[:100])
    times = {name: [] for name in rows}
    scores = {}
    for _ in range(rounds):
        for name, (make, _) in rows.items():
            model = make()
            start = time.perf_counter()
            model.fit(X_train, y_train)
            times[name].append(time.perf_counter() - start)
            scores[name] = model.score(X_test, y_test)
    medians = {name: float(np.median(times[name])) for name in rows}
    return [
        (name, medians[name], scores[name], medians[reference] / medians[name], reference)
        for name, (_, reference) in rows.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 50,000 × 2¹⁸ sparse set")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    print("## digits (10 classes), one pass, 30 % held out\n")
    print("| model | held-out accuracy | online mistake rate |\n|---|---|---|")
    for name, accuracy, rate in digits_table():
        print(f"| {name} | {accuracy:.3f} | {rate:.3f} |")

    print("\n## diabetes regression, one pass, 30 % held out\n")
    print("| model | held-out RMSE |\n|---|---|")
    for name, rmse in diabetes_table():
        print(f"| {name} | {rmse:.1f} |")

    n, d = (50_000, 2**18) if args.quick else (200_000, 2**20)
    print(f"\n## sparse 20-class set, {n:,} × {d:,}, one pass on 80 %, median of {args.rounds}\n")
    print("| model | fit time (s) | held-out accuracy | speed-up vs its sklearn row |")
    print("|---|---|---|---|")
    for name, seconds, accuracy, speedup, reference in sparse_race(n, d, args.rounds):
        versus = "—" if name == reference else f"{speedup:.1f}×"
        print(f"| {name} | {seconds:.3f} | {accuracy:.3f} | {versus} |")


if __name__ == "__main__":
    main()
