"""Benchmark of the core engine (issue 2): speed of every rule against a hand-written loop and
against the peers, latencies, start-up, the intercept choice and the dispatch cost.

Usage (from the repository root)::

    python benchmarks/run.py                 # full size: 200,000 × 2²⁰ sparse, 100,000 × 100 dense
    python benchmarks/run.py --quick         # 5 % of the rows, 3 rounds: for development
    python benchmarks/run.py --scale 0.25 --rounds 5 --only rules,peers

Every timed case runs once untimed (compilation) and then ``--rounds`` times, the cases
interleaved round by round in one process, and the median is reported; comparisons are ratios
of medians, so they hold when the machine is busy. The results are printed and written as
markdown (``--markdown``).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# after PYTHONPATH, so that ``PYTHONPATH=<another checkout>/src`` times that checkout's code
sys.path.append(str(HERE.parent / "src"))

import datasets  # noqa: E402
import hand_loops as hl  # noqa: E402

PHI = NormalDist().inv_cdf(0.95)  # η = 0.95
C = 1.0
R = 1.0
SECTIONS = ("rules", "peers", "latency", "startup", "intercept", "dispatch")


@dataclass
class Data:
    name: str
    X: object  # CSR matrix or dense array
    y: np.ndarray
    X_test: object
    y_test: np.ndarray

    @property
    def sparse(self) -> bool:
        return not isinstance(self.X, np.ndarray)

    def head(self, n: int) -> Data:
        return Data(self.name, self.X[:n], self.y[:n], self.X_test[:n], self.y_test[:n])


def load(scale: float) -> tuple[Data, Data]:
    """The two benchmark sets; a held-out tenth is generated with the same hidden model."""
    n_sparse = max(2_000, int(datasets.SPARSE_SHAPE[0] * scale))
    n_dense = max(2_000, int(datasets.DENSE_SHAPE[0] * scale))
    X, y = datasets.sparse_text(n_samples=n_sparse + n_sparse // 10)
    sparse = Data("sparse", X[:n_sparse], y[:n_sparse], X[n_sparse:], y[n_sparse:])
    sparse.X.sort_indices()
    X, y = datasets.dense(n_samples=n_dense + n_dense // 10)
    dense = Data(
        "dense",
        np.ascontiguousarray(X[:n_dense]),
        y[:n_dense],
        np.ascontiguousarray(X[n_dense:]),
        y[n_dense:],
    )
    return sparse, dense


# ---------------------------------------------------------------------------- timing


def interleaved(
    cases: dict,
    data: Data,
    rounds: int,
    warm: Data | None = None,
    *,
    clock=time.perf_counter,
    summary=statistics.median,
) -> tuple:
    """Median wall time of each ``case(data)``, cases interleaved round by round (or another
    ``clock`` and ``summary``: ``bench_loops.py`` takes the minimum CPU time).

    Each case runs once first on ``warm`` (a small slice: compilation, caches), untimed.
    Returns (summaries, outputs of the first timed round).
    """
    for fn in cases.values():
        fn(warm if warm is not None else data)
    times = {name: [] for name in cases}
    outputs = {}
    for r in range(rounds):
        for name, fn in cases.items():
            gc.collect()
            start = clock()
            out = fn(data)
            times[name].append(clock() - start)
            if r == 0:
                outputs[name] = out
    return {name: summary(t) for name, t in times.items()}, outputs


def per_call(calls: dict, rounds: int) -> dict:
    """Median (over rounds) of the mean time per call of each ``(fn, list_of_args)``."""
    for fn, args in calls.values():
        for a in args[:20]:
            fn(*a)
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, (fn, args) in calls.items():
            gc.collect()
            start = time.perf_counter()
            for a in args:
                fn(*a)
            times[name].append((time.perf_counter() - start) / len(args))
    return {name: statistics.median(t) for name, t in times.items()}


# ---------------------------------------------------------------------------- report


class Report:
    def __init__(self):
        self.blocks: list[tuple[str, list[str], list[list[str]], str]] = []

    def table(self, title: str, header: list[str], rows: list[list[str]], note: str = ""):
        self.blocks.append((title, header, rows, note))
        widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
        print(f"\n{title}")
        for line in [header, ["-" * w for w in widths], *rows]:
            print("  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)))
        if note:
            print(note)
        sys.stdout.flush()

    def markdown(self, preamble: str) -> str:
        out = [preamble]
        for title, header, rows, note in self.blocks:
            out.append(f"\n### {title}\n")
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "|".join("---" for _ in header) + "|")
            out.extend("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
            if note:
                out.append(f"\n{note}")
        return "\n".join(out) + "\n"


def ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms"


def us(t: float) -> str:
    return f"{t * 1e6:.1f} µs"


def verdict(value: float, target: float, higher_is_better: bool = True) -> str:
    ok = value >= target if higher_is_better else value <= target
    return "yes" if ok else "**no**"


# ---------------------------------------------------------------------------- the rules


def olearn_case(factory):
    def run(data: Data):
        model = factory()
        model.fit(data.X, data.y)
        return model.weights_[0].copy(), model.n_mistakes_

    return run


def loop_case(factory, data: Data):
    """The compiled loop alone, as the hand loops are timed: allocation and ``engine.run``
    (no validation, no label encoding; the labels are ±1 already)."""
    from olearn import engine
    from olearn.estimators._validation import engine_arrays

    template = factory().fit(data.X[:2], data.y[:2])

    def run(d: Data):
        template._allocate(d.X.shape[1])
        order = np.arange(d.X.shape[0])
        engine.run(*engine_arrays(d.X), d.y, order, *template._engine_state(), None)
        return template.weights_[0].copy(), template.n_mistakes_

    return run


def hand_case(fn, kind: str, *hp):
    """kind: 'linear', 'averaged', 'diagonal' or 'full' (state allocated inside the timing,
    as ``fit`` allocates its own)."""

    def run(data: Data):
        D = data.X.shape[1] + 1
        state = [np.zeros(D)]
        if kind == "averaged":
            state.append(np.zeros(D))
        elif kind == "diagonal":
            state.append(np.ones(D))
        elif kind == "full":
            state.append(np.eye(D))
        X = data.X
        args = (X.data, X.indptr, X.indices) if data.sparse else (X,)
        mistakes = fn(*args, data.y, *state, *hp)
        return state[0], mistakes

    return run


def rule_table():
    """(label, covariance or None, olearn factory, hand-loop stem, hand kind, hand hp)."""
    import olearn

    def cw(method, cov):
        return lambda: olearn.CWClassifier(eta=0.95, method=method, covariance=cov)

    def scw(variant, cov):
        return lambda: olearn.SCWClassifier(variant=variant, eta=0.95, C=C, covariance=cov)

    first_order = [
        ("Perceptron", olearn.PerceptronClassifier, "perceptron", "linear", ()),
        (
            "Averaged Perceptron",
            lambda: olearn.PerceptronClassifier(average=True),
            "averaged_perceptron",
            "averaged",
            (),
        ),
        ("PA", lambda: olearn.PassiveAggressiveClassifier(variant="PA"), "pa", "linear", ()),
        (
            "PA-I",
            lambda: olearn.PassiveAggressiveClassifier(variant="PA-I", C=C),
            "pa1",
            "linear",
            (C,),
        ),
        (
            "PA-II",
            lambda: olearn.PassiveAggressiveClassifier(variant="PA-II", C=C),
            "pa2",
            "linear",
            (C,),
        ),
    ]
    second_order = {
        cov: [
            (
                "SOP",
                lambda cov=cov: olearn.SecondOrderPerceptronClassifier(a=1.0, covariance=cov),
                "sop",
                (),
            ),
            ("CW (variance)", cw("variance", cov), "cw_variance", (PHI,)),
            ("CW (exact)", cw("exact", cov), "cw_exact", (PHI,)),
            ("AROW", lambda cov=cov: olearn.AROWClassifier(r=R, covariance=cov), "arow", (R,)),
            ("SCW-I", scw("I", cov), "scw1", (PHI, C)),
            ("SCW-II", scw("II", cov), "scw2", (PHI, C)),
        ]
        for cov in ("diagonal", "full")
    }
    return first_order, second_order


def bench_rules(report: Report, sets: list[Data], rounds: int) -> None:
    first_order, second_order = rule_table()
    rows = []
    for data in sets:
        layout = "sparse" if data.sparse else "dense"
        entries = [
            (label, "—", factory, getattr(hl, f"{stem}_{layout}"), kind, hp)
            for label, factory, stem, kind, hp in first_order
        ]
        for cov in ("diagonal", "full") if not data.sparse else ("diagonal",):
            entries += [
                (label, cov, factory, getattr(hl, f"{stem}_{cov}_{layout}"), cov, hp)
                for label, factory, stem, hp in second_order[cov]
            ]
        for label, cov, factory, hand_fn, kind, hp in entries:
            cases = {
                "olearn": olearn_case(factory),
                "loop": loop_case(factory, data),
                "hand": hand_case(hand_fn, kind, *hp),
            }
            t, out = interleaved(cases, data, rounds, warm=data.head(500))
            (w_ol, m_ol), (w_hand, m_hand) = out["olearn"], out["hand"]
            assert np.array_equal(out["loop"][0], w_ol), "engine.run and fit disagree"
            diff = np.max(np.abs(w_ol - w_hand)) / max(1.0, np.max(np.abs(w_hand)))
            ratio = t["hand"] / t["olearn"]
            rows.append(
                [
                    data.name,
                    label,
                    cov,
                    ms(t["olearn"]),
                    ms(t["hand"]),
                    f"{ratio:.2f}×",
                    verdict(ratio, 0.9),
                    f"{t['hand'] / t['loop']:.2f}×",
                    f"{m_ol}/{m_hand}",
                    f"{diff:.0e}",
                ]
            )
            print("  ", *rows[-1], flush=True)
    report.table(
        "Every rule against its hand-written Numba loop (one pass, `fit`)",
        [
            "set",
            "rule",
            "covariance",
            "olearn fit",
            "hand loop",
            "speed (hand/olearn)",
            "≥ 0.9×",
            "loop only (hand/engine.run)",
            "mistakes olearn/hand",
            "max |Δw|",
        ],
        rows,
        "olearn's time is the whole `fit` (validation, label encoding, allocation, loop); the "
        "hand loop's is allocation and loop, and so is 'loop only' for olearn (`engine.run` on "
        "±1 labels: what `fit` adds is its fixed work, ≈ 0.7 ms). max |Δw| is relative to max "
        "|w| (full: olearn keeps a Cholesky factor of Σ⁻¹, the hand loop Σ itself, so they agree "
        "to rounding only).",
    )


# ---------------------------------------------------------------------------- peers


def sklearn_pa():
    """scikit-learn's PA-I: PassiveAggressiveClassifier while it exists (deprecated in 1.8,
    warning filtered), else the documented SGDClassifier equivalent."""
    try:
        from sklearn.linear_model import PassiveAggressiveClassifier

        def make(**kw):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                return PassiveAggressiveClassifier(C=C, loss="hinge", **kw)

        return make, "PassiveAggressiveClassifier(C=1, loss='hinge')"
    except ImportError:
        from sklearn.linear_model import SGDClassifier

        def make(**kw):
            return SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=C, **kw)

        return make, "SGDClassifier(loss='hinge', penalty=None, learning_rate='pa1', eta0=1)"


def bench_peers(report: Report, sets: list[Data], rounds: int, river_rows: int) -> None:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Perceptron

    import olearn

    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    sk_pa, sk_pa_name = sklearn_pa()
    classes = np.array([-1.0, 1.0])
    rows = []
    chunk_rows = []
    for data in sets:
        chunks = [
            (data.X[a : a + 1000], data.y[a : a + 1000]) for a in range(0, data.X.shape[0], 1000)
        ]

        def fit(make):
            def run(d):
                return make().fit(d.X, d.y)

            return run

        def chunked(make, chunks=chunks, data=data):
            def run(d):
                model = make()
                parts = chunks if d is data else [(d.X, d.y)]  # the warm-up gets one chunk
                for Xc, yc in parts:
                    model.partial_fit(Xc, yc, classes=classes)
                return model

            return run

        def scores(model):
            def run(d):
                return model.decision_function(d.X)

            return run

        def ours_pa():
            return olearn.PassiveAggressiveClassifier(variant="PA-I", C=C)

        def sk_pa_1():
            return sk_pa(max_iter=1, shuffle=False, tol=None)

        def sk_perceptron():
            return Perceptron(max_iter=1, shuffle=False, tol=None)

        cases = {
            "olearn PA-I fit": fit(ours_pa),
            "sklearn PA-I fit": fit(sk_pa_1),
            "olearn Perceptron fit": fit(olearn.PerceptronClassifier),
            "sklearn Perceptron fit": fit(sk_perceptron),
            "olearn PA-I partial_fit ×1000": chunked(ours_pa),
            "sklearn PA-I partial_fit ×1000": chunked(lambda: sk_pa()),
            "olearn Perceptron partial_fit ×1000": chunked(olearn.PerceptronClassifier),
            "sklearn Perceptron partial_fit ×1000": chunked(lambda: Perceptron()),
            # scoring the set with a model fitted once, before timing
            "olearn PA-I decision_function": scores(ours_pa().fit(data.X, data.y)),
            "sklearn PA-I decision_function": scores(sk_pa_1().fit(data.X, data.y)),
        }
        t, _ = interleaved(cases, data, rounds, warm=data.head(500))
        for rule in ("PA-I", "Perceptron"):
            ours, theirs = t[f"olearn {rule} fit"], t[f"sklearn {rule} fit"]
            ratio = theirs / ours
            target = "≥ 1.2×" if rule == "PA-I" else "—"
            ok = verdict(ratio, 1.2) if rule == "PA-I" else ""
            rows.append(
                [
                    data.name,
                    f"{rule}: one-pass fit",
                    ms(ours),
                    ms(theirs),
                    f"{ratio:.2f}×",
                    target,
                    ok,
                ]
            )
            ours_c, theirs_c = (
                t[f"olearn {rule} partial_fit ×1000"],
                t[f"sklearn {rule} partial_fit ×1000"],
            )
            rows.append(
                [
                    data.name,
                    f"{rule}: partial_fit, 1,000-row chunks",
                    ms(ours_c),
                    ms(theirs_c),
                    f"{theirs_c / ours_c:.2f}×",
                    "",
                    "",
                ]
            )
            chunk_ratio = ours / ours_c
            chunk_rows.append(
                [
                    data.name,
                    rule,
                    ms(ours),
                    ms(ours_c),
                    f"{chunk_ratio:.2f}×",
                    verdict(chunk_ratio, 0.8),
                ]
            )
        ours, theirs = t["olearn PA-I decision_function"], t["sklearn PA-I decision_function"]
        rows.append(
            [data.name, "PA-I: decision_function of the set", ms(ours), ms(theirs),
             f"{theirs / ours:.2f}×", "", ""]
        )  # fmt: skip
        print("  ", *rows[-5:], sep="\n   ", flush=True)

    # River on a slice of the sparse set, per row, against olearn's per-row cost.
    sparse = sets[0]
    river_row = bench_river(sparse, river_rows, rounds)
    cases = {"olearn PA-I fit": lambda d: olearn.PassiveAggressiveClassifier(C=C).fit(d.X, d.y)}
    t, _ = interleaved(cases, sparse, rounds, warm=sparse.head(500))
    ours_row = t["olearn PA-I fit"] / sparse.X.shape[0]
    rows.append(
        [
            "sparse",
            f"PA-I: River PAClassifier.learn_one (first {river_rows:,} rows, per row)",
            us(ours_row) + "/row",
            us(river_row) + "/row",
            f"{river_row / ours_row:.0f}×",
            "",
            "",
        ]
    )
    report.table(
        "Against scikit-learn and River (PA-I with C = 1, Perceptron)",
        ["set", "case", "olearn", "peer", "speed-up (peer/olearn)", "target", "met"],
        rows,
        f"scikit-learn's PA-I is `{sk_pa_name}` (deprecated since 1.8; the warning is "
        "filtered); one-pass fits use `max_iter=1, shuffle=False, tol=None`. The chunks are "
        "sliced before timing (a stream hands them over). River's rows are dicts built before "
        "timing; olearn's per-row figure is its full one-pass `fit` divided by the rows.",
    )
    report.table(
        "partial_fit in 1,000-row chunks against one full pass (olearn)",
        ["set", "rule", "one fit", "partial_fit ×1000", "ratio (fit/chunks)", "≥ 0.8×"],
        chunk_rows,
    )


def river_dicts(X, n: int) -> list[dict]:
    out = []
    for i in range(n):
        a, b = X.indptr[i], X.indptr[i + 1]
        out.append(dict(zip(X.indices[a:b].tolist(), X.data[a:b].tolist(), strict=True)))
    return out


def bench_river(data: Data, n: int, rounds: int) -> float:
    from river.linear_model import PAClassifier

    rows = river_dicts(data.X, n)
    labels = (data.y[:n] > 0).tolist()
    times = []
    for _ in range(max(1, rounds // 2)):
        model = PAClassifier(C=C, mode=1)
        start = time.perf_counter()
        for x, yi in zip(rows, labels, strict=True):
            model.learn_one(x, yi)
        times.append((time.perf_counter() - start) / n)
    return statistics.median(times)


# ---------------------------------------------------------------------------- latency


def bench_latency(report: Report, sets: list[Data], rounds: int) -> None:
    from river.linear_model import PAClassifier
    from sklearn.linear_model import SGDClassifier

    import olearn

    warnings.filterwarnings("ignore", category=FutureWarning)
    sk_pa, _ = sklearn_pa()
    rows = []
    n_calls = 2_000
    for data in sets:
        n0 = min(5_000, data.X.shape[0] // 2)
        X_rows = [data.X[i : i + 1] for i in range(n0, n0 + n_calls)]
        y_rows = [data.y[i : i + 1] for i in range(n0, n0 + n_calls)]
        calls = {}
        for label, make in (
            ("olearn PA-I", lambda: olearn.PassiveAggressiveClassifier(C=C)),
            ("olearn AROW", lambda: olearn.AROWClassifier(r=R)),
        ):
            model = make().fit(data.X[:n0], data.y[:n0])
            calls[label] = (model.partial_fit, list(zip(X_rows, y_rows, strict=True)))
        sk = sk_pa().partial_fit(data.X[:n0], data.y[:n0], classes=[-1.0, 1.0])
        calls["sklearn PA-I"] = (sk.partial_fit, list(zip(X_rows, y_rows, strict=True))[:300])
        sgd = SGDClassifier().partial_fit(data.X[:n0], data.y[:n0], classes=[-1.0, 1.0])
        calls["sklearn SGDClassifier"] = (
            sgd.partial_fit,
            list(zip(X_rows, y_rows, strict=True))[:300],
        )
        t = per_call(calls, rounds)
        for name, value in t.items():
            target = "≤ 20 µs" if name.startswith("olearn") else ""
            ok = verdict(value, 20e-6, higher_is_better=False) if target else ""
            rows.append([f"partial_fit, one {data.name} row", name, us(value), target, ok])
        print("  ", *rows[-len(t) :], sep="\n   ", flush=True)

    # learn_one / predict_one on the sparse set's rows (≈ 80 nonzeros).
    sparse = sets[0]
    n0 = min(5_000, sparse.X.shape[0] // 2)
    dicts = river_dicts(sparse.X[n0:], n_calls)
    pairs = [
        (
            sparse.X.indices[sparse.X.indptr[i] : sparse.X.indptr[i + 1]].astype(np.int64),
            sparse.X.data[sparse.X.indptr[i] : sparse.X.indptr[i + 1]].copy(),
        )
        for i in range(n0, n0 + n_calls)
    ]
    labels = sparse.y[n0 : n0 + n_calls].tolist()
    nnz = statistics.mean(len(d) for d in dicts)
    calls = {}
    for label, make in (
        ("olearn PA-I", lambda: olearn.PassiveAggressiveClassifier(C=C)),
        ("olearn AROW", lambda: olearn.AROWClassifier(r=R)),
    ):
        model = make().fit(sparse.X[:n0], sparse.y[:n0])
        calls[f"{label} learn_one(dict)"] = (model.learn_one, list(zip(dicts, labels, strict=True)))
        calls[f"{label} learn_one((idx, val))"] = (
            model.learn_one,
            list(zip(pairs, labels, strict=True)),
        )
        calls[f"{label} predict_one(dict)"] = (model.predict_one, [(d,) for d in dicts])
        calls[f"{label} predict_one((idx, val))"] = (model.predict_one, [(p,) for p in pairs])
    river = PAClassifier(C=C, mode=1)
    for x, yi in zip(river_dicts(sparse.X, n0), (sparse.y[:n0] > 0).tolist(), strict=True):
        river.learn_one(x, yi)
    river_labels = [yi > 0 for yi in labels]
    calls["River PAClassifier learn_one(dict)"] = (
        river.learn_one,
        list(zip(dicts, river_labels, strict=True)),
    )
    calls["River PAClassifier predict_one(dict)"] = (river.predict_one, [(d,) for d in dicts])
    t = per_call(calls, rounds)
    for name, value in t.items():
        target = "≤ 5 µs" if name.startswith("olearn") else ""
        ok = verdict(value, 5e-6, higher_is_better=False) if target else ""
        rows.append([f"one sparse row, {nnz:.0f} nonzeros", name, us(value), target, ok])
    print("  ", *rows[-len(t) :], sep="\n   ", flush=True)
    report.table(
        "Latency of one example (mean per call, median over rounds)",
        ["input", "call", "time", "target", "met"],
        rows,
        "Models are fitted on the first 5,000 rows; the calls then stream the next rows "
        "(learning changes the model, as in use). `(idx, val)` is a pair of int64 and float64 "
        "arrays.",
    )


# ---------------------------------------------------------------------------- start-up


def _subprocess_time(code: str, env: dict | None = None) -> float:
    full_env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src"), **(env or {})}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full_env, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


IMPORT_CODE = """
import time
t = time.perf_counter()
import olearn
print(time.perf_counter() - t)
"""

IMPORT_ESTIMATOR_CODE = """
import time
t = time.perf_counter()
from olearn import PassiveAggressiveClassifier
print(time.perf_counter() - t)
"""

FIRST_CALL_CODE = """
import time
import numpy as np
import scipy.sparse as sp
rng = np.random.default_rng(0)
X = sp.random(200, 1000, density=0.05, format="csr", random_state=0)
y = np.where(rng.random(200) < 0.5, -1.0, 1.0)
t = time.perf_counter()
from olearn import {name}
{name}().fit(X, y)
print(time.perf_counter() - t)
"""


def bench_startup(report: Report, rounds: int) -> None:
    rows = []
    imports = [_subprocess_time(IMPORT_CODE) for _ in range(max(3, rounds))]
    value = statistics.median(imports)
    rows.append(["`import olearn`", ms(value), "≤ 0.4 s", verdict(value, 0.4, False)])
    value = statistics.median(_subprocess_time(IMPORT_ESTIMATOR_CODE) for _ in range(3))
    rows.append(
        ["`from olearn import PassiveAggressiveClassifier` (loads scikit-learn)", ms(value), "", ""]
    )
    for name in ("PassiveAggressiveClassifier", "AROWClassifier"):
        code = FIRST_CALL_CODE.format(name=name)
        with tempfile.TemporaryDirectory() as cache:
            env = {"NUMBA_CACHE_DIR": cache}
            cold = _subprocess_time(code, env)
            warm = statistics.median(_subprocess_time(code, env) for _ in range(3))
        rows.append([f"import + first `{name}().fit` on CSR, cold cache", ms(cold), "", ""])
        rows.append([f"import + first `{name}().fit` on CSR, warm cache", ms(warm), "", ""])
    report.table(
        "Start-up (fresh processes; medians)",
        ["what", "time", "target", "met"],
        rows,
        "Cold cache: an empty temporary `NUMBA_CACHE_DIR`, so the engine compiles for that input "
        "type; warm: the same directory afterwards, served from disk.",
    )


# ---------------------------------------------------------------------------- intercept


def accuracy(w, b, X_test, y_test) -> float:
    scores = np.asarray(X_test @ w) + b
    return float(np.mean(np.where(scores > 0, 1.0, -1.0) == y_test))


def bench_intercept(report: Report, sets: list[Data], rounds: int) -> None:
    rows = []
    for data in sets:
        layout = "sparse" if data.sparse else "dense"
        for rule, stem, kind, hp in (
            ("PA-I", "pa1", "linear", (C,)),
            ("AROW", "arow", "diagonal", (R,)),
        ):
            prefix = f"{stem}_{layout}" if kind == "linear" else f"{stem}_diagonal_{layout}"
            variants = {
                "constant feature (olearn)": hand_case(getattr(hl, prefix), kind, *hp),
                "separate bias (scikit-learn style)": hand_case(
                    getattr(hl, f"{prefix}_separate_bias"), kind, *hp
                ),
            }
            t, out = interleaved(variants, data, rounds, warm=data.head(500))
            base = t["constant feature (olearn)"]
            for name, (w, mistakes) in out.items():
                rows.append(
                    [
                        data.name,
                        rule,
                        name,
                        f"{mistakes / data.X.shape[0]:.4f}",
                        f"{accuracy(w[:-1], w[-1], data.X_test, data.y_test):.4f}",
                        f"{abs(w[-1]):.3f}",
                        ms(t[name]),
                        f"{base / t[name]:.2f}×",
                    ]
                )
            print("  ", *rows[-2:], sep="\n   ", flush=True)
    report.table(
        "Intercept: a constant feature against a separately stepped bias",
        [
            "set",
            "rule",
            "intercept",
            "online mistake rate",
            "held-out accuracy",
            "|b|",
            "time",
            "speed vs constant feature",
        ],
        rows,
        "Hand loops for both (identical otherwise). Constant feature: the intercept is the "
        "weight of a feature 1 that counts in ‖x‖² (and v) and has its own variance. Separate "
        "bias: b ← b + α·y, outside ‖x‖², no variance. Held-out: a further tenth of each set "
        "generated from the same hidden model.",
    )


# ---------------------------------------------------------------------------- dispatch


def bench_dispatch(report: Report, sets: list[Data], rounds: int) -> None:
    import numba
    from numba import types

    import olearn
    from olearn.rules import pa

    warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)
    signature = types.UniTuple(types.float64, 2)(types.float64, types.float64, types.float64[::1])
    first_class = numba.njit(signature)(pa.pa1.py_func)  # typed as a FunctionType value
    hp = np.array([C])
    rows = []
    for data in sets:
        layout = "sparse" if data.sparse else "dense"
        typed_loop = getattr(hl, f"pa1_{layout}_function_type")

        def hand_with(rules, typed_loop=typed_loop):
            def run(d):
                w = np.zeros(d.X.shape[1] + 1)
                X = d.X
                args = (X.data, X.indptr, X.indices) if d.sparse else (X,)
                return w, typed_loop(*args, d.y, w, rules, hp)

            return run

        engine_only = loop_case(lambda: olearn.PassiveAggressiveClassifier(C=C), data)

        cases = {
            "hand loop, rule inline": hand_case(getattr(hl, f"pa1_{layout}"), "linear", C),
            "hand loop, rule as a jitted-function argument": hand_with((pa.pa1,)),
            "hand loop, rule as a first-class function type": hand_with((first_class,)),
            "olearn engine.run (integer switch), no validation": engine_only,
            "olearn fit (integer switch)": olearn_case(
                lambda: olearn.PassiveAggressiveClassifier(C=C)
            ),
        }
        t, out = interleaved(cases, data, rounds, warm=data.head(500))
        base = t["hand loop, rule inline"]
        rows += [
            [data.name, name, ms(t[name]), f"{base / t[name]:.2f}×", out[name][1]] for name in cases
        ]
        print("  ", *rows[-len(cases) :], sep="\n   ", flush=True)
    report.table(
        "Dispatch: the cost of selecting the rule (PA-I)",
        ["set", "loop", "time", "speed vs inline", "mistakes"],
        rows,
        "A jitted function passed as an argument is specialised and inlined but is never served "
        "from the disk cache in a new process; a first-class function type is an indirect call; "
        "olearn's integer switch is inlined and cached (see `src/olearn/_compile.py`).",
    )


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the rows")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per case")
    parser.add_argument("--quick", action="store_true", help="--scale 0.05 --rounds 3")
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    parser.add_argument(
        "--sets", default="sparse,dense", help="data sets of the rules and intercept sections"
    )
    parser.add_argument("--river-rows", type=int, default=5_000)
    parser.add_argument(
        "--markdown", default=str(HERE / "results_core.md"), help="where to write the tables"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.scale, args.rounds, args.river_rows = 0.05, 3, 1_000
    sections = [s for s in args.only.split(",") if s]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {SECTIONS}")

    start = time.perf_counter()
    sparse, dense = load(args.scale)
    sets = [sparse, dense]
    print(
        f"data: sparse {sparse.X.shape[0]:,} × {sparse.X.shape[1]:,} "
        f"({sparse.X.nnz / sparse.X.shape[0]:.1f} nonzeros/row), dense "
        f"{dense.X.shape[0]:,} × {dense.X.shape[1]}; {args.rounds} rounds; "
        f"generated in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    report = Report()
    chosen = [data for data in sets if data.name in args.sets.split(",")]
    if "rules" in sections:
        bench_rules(report, chosen, args.rounds)
    if "peers" in sections:
        bench_peers(report, sets, args.rounds, args.river_rows)
    if "latency" in sections:
        bench_latency(report, sets, args.rounds)
    if "startup" in sections:
        bench_startup(report, args.rounds)
    if "intercept" in sections:
        bench_intercept(report, chosen, args.rounds)
    if "dispatch" in sections:
        bench_dispatch(report, chosen, args.rounds)

    import numba
    import sklearn

    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    preamble = (
        f"`python benchmarks/run.py {' '.join(sys.argv[1:])}`".replace(" `", "`")
        + f" — sparse {sparse.X.shape[0]:,} × {sparse.X.shape[1]:,}, dense "
        f"{dense.X.shape[0]:,} × {dense.X.shape[1]}, {args.rounds} interleaved rounds, "
        f"medians; {os.cpu_count()} CPUs, load average {load_avg:.1f} at the end; "
        f"numba {numba.__version__}, scikit-learn {sklearn.__version__}, "
        f"Python {sys.version.split()[0]}."
    )
    Path(args.markdown).write_text(report.markdown(preamble))
    print(f"\nwritten to {args.markdown} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
