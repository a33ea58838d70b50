"""Parameter grids: one compiled loop over rows × configurations vs chunk lockstep.

    PYTHONPATH=src python benchmarks/bench_grid.py

Both train identical models (asserted); the script prints the wall-clock time of LIBOL's grid
selection (SCW-I: 81 configurations; AROW: 9) on a dense and a sparse set.
"""

import time

import numpy as np
import scipy.sparse as sp

from olearn.evaluation import libol_grid, make_estimator, select_parameters


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((50000, 200))
    y = np.sign(X[:, :5].sum(1) + rng.standard_normal(50000))
    n, d, nnz = 50000, 100000, 50
    indices = np.sort(rng.integers(0, d, (n, nnz)), axis=1).ravel()
    Xs = sp.csr_matrix((rng.random(n * nnz), indices, np.arange(0, n * nnz + 1, nnz)), (n, d))
    Xs.sum_duplicates()
    ys = np.sign(np.asarray(Xs[:, :5000].sum(1)).ravel() - 0.12)
    return {"dense 50k × 200": (X, y), "sparse 50k × 100k (50 nnz/row)": (Xs, ys)}


def main():
    for label, (X, y) in data().items():
        for name in ("scw1", "arow"):
            estimator = make_estimator(name)
            grid = libol_grid(estimator)
            select_parameters(estimator, grid, X[:100], y[:100], compiled=True)  # compile
            times = {}
            for compiled in (True, False):
                tic = time.perf_counter()
                result = select_parameters(estimator, grid, X, y, random_state=0, compiled=compiled)
                times[compiled] = time.perf_counter() - tic
                times[f"scores{compiled}"] = result.scores
            assert np.array_equal(times["scoresTrue"], times["scoresFalse"])
            print(
                f"{label:32s} {name:5s} {len(result.scores):3d} configs: "
                f"compiled {times[True]:6.2f} s, lockstep {times[False]:6.2f} s"
            )


if __name__ == "__main__":
    main()
