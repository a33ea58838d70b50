"""Class probabilities of the multiclass Gaussian models (CW, AROW, SCW ``predict_proba``):
the compiled Gauss–Hermite sum (``olearn.tasks.gaussian_max``) against the NumPy formulation
it replaced (scipy's ``log_ndtr`` over all 64 nodes and all classes, kept as the oracle in
tests/test_gaussian_proba.py). Run on demand::

    PYTHONPATH=src python benchmarks/bench_proba.py            # about 2 minutes
    PYTHONPATH=src python benchmarks/bench_proba.py --quick    # fewer rows and rounds

Two kinds of scores: random ones (m ~ N(0, 1), v ~ U(0.01, 0.51): close races between many
classes) and those of an AROW model (diagonal) fitted on k Gaussian blobs, on held-out rows
(one class usually far ahead). Time per row, for many rows in one call and for one row per
call; interleaved rounds in one process, medians. Also the largest difference between the
two (it is rounding: the compiled sum leaves out at most 2⁻⁵⁸ of each class's sum).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import log_ndtr

import olearn
from olearn.estimators.base import max_probabilities

_NODES, _WEIGHTS = np.polynomial.hermite.hermgauss(64)


def numpy_max_probabilities(means, variances, block=512):
    """The formulation before the compiled loop (olearn d15fd85)."""
    u = np.sqrt(2.0) * _NODES
    weights = _WEIGHTS / np.sqrt(np.pi)
    sd = np.sqrt(variances)
    n, k = means.shape
    out = np.empty((n, k))
    for start in range(0, n, block):
        m = means[start : start + block]
        d = sd[start : start + block]
        for r in range(k):
            t = m[:, r, None] + d[:, r, None] * u
            logs = log_ndtr((t[:, None, :] - m[:, :, None]) / d[:, :, None])
            logs[:, r, :] = 0.0
            out[start : start + block, r] = np.exp(logs.sum(axis=1)) @ weights
    total = out.sum(axis=1, keepdims=True)
    return out / np.where(total > 0, total, 1.0)


def random_scores(k, n, rng):
    return rng.normal(size=(n, k)), rng.random((n, k)) * 0.5 + 0.01


def model_scores(k, n, rng):
    """Means and variances of the class scores of a diagonal AROW fitted on k blobs."""
    d = 20
    centres = rng.normal(scale=1.5, size=(k, d))
    y = rng.integers(0, k, 2 * n + 50 * k)
    X = centres[y] + rng.normal(size=(len(y), d))
    train, test = X[: len(y) - n], X[len(y) - n :]
    model = olearn.AROWClassifier(shuffle=True, random_state=0).fit(train, y[: len(train)])
    means = model.decision_function(test)
    variances = (test * test) @ model.variances_[:, :-1].T + model.variances_[:, -1]
    return means, variances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 2 if args.quick else 3
    rows = {2: 20_000, 5: 20_000, 20: 2_000, 100: 200}
    singles = {2: 200, 5: 100, 20: 20, 100: 3}
    if args.quick:
        rows = {k: n // 4 for k, n in rows.items()}
        singles = {k: max(1, n // 4) for k, n in singles.items()}
    rng = np.random.default_rng(0)
    cases = [("random", k) for k in rows] + [("AROW", k) for k in (5, 20, 100)]
    data = {
        (kind, k): (random_scores if kind == "random" else model_scores)(k, rows[k], rng)
        for kind, k in cases
    }
    max_probabilities(*data[("random", 2)])  # compile (or load) before timing
    times: dict[tuple, list[float]] = {}
    difference: dict[tuple, float] = {}
    for _ in range(rounds):
        for kind, k in cases:
            means, variances = data[(kind, k)]
            for name, function in (
                ("before", numpy_max_probabilities),
                ("after", max_probabilities),
            ):
                tic = time.perf_counter()
                P = function(means, variances)
                times.setdefault((kind, k, "many", name), []).append(
                    (time.perf_counter() - tic) / len(means)
                )
                tic = time.perf_counter()
                for i in range(singles[k]):
                    function(means[i : i + 1], variances[i : i + 1])
                times.setdefault((kind, k, "one", name), []).append(
                    (time.perf_counter() - tic) / singles[k]
                )
                if name == "before":
                    expected = P
            difference[(kind, k)] = float(np.abs(P - expected).max())
    print("| scores | classes | many rows: before → after (µs/row) | one row a call |")
    print("|---|---|---|---|")
    for kind, k in cases:
        cells = []
        for how in ("many", "one"):
            before = np.median(times[(kind, k, how, "before")]) * 1e6
            after = np.median(times[(kind, k, how, "after")]) * 1e6
            cells.append(f"{before:,.1f} → {after:,.1f} ({before / after:.1f}×)")
        print(f"| {kind} | {k} | {cells[0]} ({rows[k]:,} rows) | {cells[1]} |")
    print(f"\nlargest |after − before|: {max(difference.values()):.1e}")


if __name__ == "__main__":
    main()
