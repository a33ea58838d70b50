"""One example at a time, every estimator and label form: does any fall off the fast path?

Each estimator with ``partial_fit`` (budgeted kernel models: ``budget=100``) is fitted on 300
dense rows of 20 features, then streams single rows: ``partial_fit(row, y)`` and each
prediction method, the rows sliced before timing. Then the label forms of a stream of
PA-I: labels of another dtype or container than ``fit``'s, ``classes=`` passed with every
call (the same array, a new equal array, a list), and five classes. Times are per call, the
minimum over rounds of the mean over ``--calls`` calls (target ≤ 10 µs for the linear
models' calls, issue 13).

Then the River-style calls of kernel models (``--only events``): ``learn_one`` and
``predict_one`` of an event against one-row ``partial_fit`` and ``predict`` of the same
example as a matrix, on twin models — dense storage (a dict of 20 integer keys against the
dense row) and sparse storage (a dict of 5 names against the one-row CSR matrix of their
hashed columns, width 2**18). The four calls alternate round by round; per call, the median
over rounds of the mean over ``--calls`` calls.

Run from the repository root::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_one_row.py [--rounds 5] [--calls 1000]
        [--only estimators,labels,events]

(A kernel model's scores use BLAS: on a machine shared with other jobs, OpenBLAS's threads
wait for busy cores and a one-row product takes ~10 ms instead of ~0.5 ms; one thread
measures the code, not the contention.)
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

import olearn
from olearn.io import murmurhash3_32

N_FEATURES = 20
UNSTREAMED = ("JointFeatureClassifier", "SequenceTagger")  # (inputs of their own)


def per_call(call, n_calls: int, rounds: int) -> float:
    call(0)  # (compiled, warm)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for i in range(n_calls):
            call(i)
        best = min(best, (time.perf_counter() - start) / n_calls)
    return best


def estimators():
    for name in sorted(olearn.__all__):
        cls = getattr(olearn, name)
        if isinstance(cls, type) and hasattr(cls, "partial_fit") and name not in UNSTREAMED:
            params = cls().get_params()
            yield name, cls(budget=100) if "budget" in params else cls()


def estimator_table(X, rows, n_calls, rounds):
    y_class = np.where(X[:, 1] > 0, 1, -1)
    y_value = X[:, 0].copy()
    print(f"| estimator (one dense row of {N_FEATURES}) | partial_fit | predict | "
          "decision_function | predict_proba |")  # fmt: skip
    print("|---|---|---|---|---|")
    for name, model in estimators():
        y = y_value if "Regressor" in name else y_class
        cells = [per_call(learner(model, name, rows, y), n_calls, rounds)]
        for method in ("predict", "decision_function", "predict_proba"):
            call = getattr(model, method, None)
            cells.append(None if call is None else per_call(predictor(call, rows), n_calls, rounds))
        times = ("—" if c is None else f"{c * 1e6:.1f} µs" for c in cells)
        print(f"| {name} | " + " | ".join(times) + " |")


def learner(model, name, rows, y):
    """``partial_fit`` of one row ``i`` of a model fitted on the first 300."""
    X = np.concatenate(rows[:300])
    if name == "UniclassPA":
        model.fit(X)
        return lambda i: model.partial_fit(rows[i])
    model.fit(X, y[:300])
    return lambda i: model.partial_fit(rows[i], y[i : i + 1])


def predictor(call, rows):
    return lambda i: call(rows[i])


def label_table(X, rows, n_calls, rounds):
    y = np.where(X[:, 1] > 0, 1, -1)
    words = np.where(y > 0, "spam", "ham")
    series = pd.Series(y)
    five = np.random.default_rng(1).integers(0, 5, X.shape[0])
    same = np.array([-1, 1])
    cases = {
        "int64 labels (as fit's)": (y, lambda m, i: m.partial_fit(rows[i], y[i : i + 1])),
        "int32 labels": (y, lambda m, i: m.partial_fit(rows[i], y[i : i + 1].astype(np.int32))),
        "str labels": (words, lambda m, i: m.partial_fit(rows[i], words[i : i + 1])),
        "a list of one label": (y, lambda m, i: m.partial_fit(rows[i], [int(y[i])])),
        "a pandas Series (sliced in the call)": (
            y, lambda m, i: m.partial_fit(rows[i], series.iloc[i : i + 1])),
        "classes= the same array every call": (
            y, lambda m, i: m.partial_fit(rows[i], y[i : i + 1], classes=same)),
        "classes= a new equal array every call": (
            y, lambda m, i: m.partial_fit(rows[i], y[i : i + 1], classes=np.array([-1, 1]))),
        "classes= a list every call": (
            y, lambda m, i: m.partial_fit(rows[i], y[i : i + 1], classes=[-1, 1])),
        "five classes": (five, lambda m, i: m.partial_fit(rows[i], five[i : i + 1])),
    }  # fmt: skip
    print("\n| PA-I `partial_fit`, one dense row | per call |")
    print("|---|---|")
    for label, (labels, call) in cases.items():
        model = olearn.PassiveAggressiveClassifier().fit(X[:300], labels[:300])
        t = per_call(lambda i, m=model, c=call: c(m, i), n_calls, rounds)
        print(f"| {label} | {t * 1e6:.1f} µs |")


EVENT_MODELS = ("KernelPAClassifier", "BudgetedSGDClassifier", "KernelPARegressor")
EVENT_WIDTH = 2**18


def interleaved(calls, n_calls: int, rounds: int) -> list[float]:
    """Per call of each of ``calls``: the median over rounds of the mean over ``n_calls``
    calls, the calls taking turns round by round (a noisy machine slows them alike)."""
    for call in calls:
        call(0)  # (compiled, warm)
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for call, spent in zip(calls, times, strict=True):
            start = time.perf_counter()
            for i in range(n_calls):
                call(i)
            spent.append((time.perf_counter() - start) / n_calls)
    return [statistics.median(spent) for spent in times]


def named_events(n: int, seed: int = 0):
    """n events of 5 names from a vocabulary of 1,000, with the one-row CSR matrix of each
    (its names hashed as ``learn_one`` hashes them)."""
    rng = np.random.default_rng(seed)
    events, matrices = [], []
    for _ in range(n):
        names = rng.choice(1000, size=5, replace=False)
        x = {f"w{k}": float(v) for k, v in zip(names, rng.standard_normal(5), strict=True)}
        columns = [murmurhash3_32(name) % EVENT_WIDTH for name in x]
        row = sp.csr_matrix((list(x.values()), columns, [0, 5]), shape=(1, EVENT_WIDTH))
        row.sort_indices()
        events.append(x)
        matrices.append(row)
    return events, matrices


def event_table(X, rows, n_calls, rounds):
    y_class = np.where(X[:, 1] > 0, 1, -1)
    names, name_rows = named_events(X.shape[0])
    dense_events = [dict(enumerate(row[0].tolist())) for row in rows]
    print("\n| kernel model (budget=100) | partial_fit | learn_one | predict | predict_one |")
    print("|---|---|---|---|---|")
    for name in EVENT_MODELS:
        regressor = "Regressor" in name
        y = X[:, 0].copy() if regressor else y_class
        labels = y.tolist()
        for storage, events, matrices in (
            ("dense, 20 integer keys", dense_events, rows),
            ("sparse, 5 names", names, name_rows),
        ):
            model = getattr(olearn, name)(budget=100)
            if storage.startswith("dense"):
                model.fit(X[:300], y[:300])
            else:
                for i in range(300):
                    model.learn_one(events[i], labels[i])
            twin = copy.deepcopy(model)
            calls = event_calls(model, twin, events[300:], matrices[300:], y[300:], labels[300:])
            times = interleaved(calls, n_calls, rounds)
            cells = " | ".join(f"{t * 1e6:.1f} µs" for t in times)
            print(f"| {name}, {storage} | {cells} |")


def event_calls(model, twin, events, matrices, y, labels):
    """``partial_fit``, ``learn_one``, ``predict``, ``predict_one`` of example i: the
    matrix calls on ``twin``, the event calls on ``model`` (twins: the same state)."""
    return [
        lambda i: twin.partial_fit(matrices[i], y[i : i + 1]),
        lambda i: model.learn_one(events[i], labels[i]),
        lambda i: twin.predict(matrices[i]),
        lambda i: model.predict_one(events[i]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--only", default="estimators,labels,events",
                        help="the tables to print, comma-separated")  # fmt: skip
    args = parser.parse_args()
    tables = set(args.only.split(","))
    warnings.simplefilter("ignore")  # (the kernel models' size warning, ordered streams)
    X = np.random.default_rng(0).standard_normal((300 + args.calls, N_FEATURES))
    rows = [X[i : i + 1] for i in range(X.shape[0])]
    if "estimators" in tables:
        estimator_table(X, rows, args.calls, args.rounds)
    if "labels" in tables:
        label_table(X, rows, args.calls, args.rounds)
    if "events" in tables:
        event_table(X, rows, args.calls, args.rounds)


if __name__ == "__main__":
    main()
