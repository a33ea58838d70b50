"""Loop speed on a shared machine (issue 13): the dense Perceptrons and the dense
full-covariance AROW and CW-variance against their hand loops, 1,000-row ``partial_fit``
chunks against one pass, what importance weights cost, ``fit`` on the other dense forms
(float32, Fortran order, a DataFrame) against C-ordered float64, and one-row calls per form.

Usage (from the repository root)::

    python benchmarks/bench_loops.py                       # scale 0.25, 7 rounds
    python benchmarks/bench_loops.py --scale 1 --rounds 9
    python benchmarks/bench_loops.py --scale 1 --only forms --wall   # two threads: wall time

CPU time (``time.process_time``) rather than wall time, the minimum over rounds rather than
the median, and the compared cases interleaved round by round in one process: other
processes on a busy machine then add little (they take CPU from us, not CPU time), and the
minimum is the run least disturbed by what remains (caches, frequency). The load average is
printed with the results. The data and the hand loops are ``run.py``'s. ``fit`` on a
Fortran-ordered array or a DataFrame runs on two threads when two CPUs are usable: its CPU
time is not its duration, so ``--wall`` times the forms in wall time (medians; on a quiet
machine), with the CPU time each cost.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import hand_loops as hl  # noqa: E402
import run  # noqa: E402  (run.py: the data, the hand-loop and olearn cases)


def minima(cases: dict, data, rounds: int, warm=None) -> tuple[dict, dict]:
    """Minimum CPU time of each ``case(data)``, interleaved (``run.interleaved``)."""
    return run.interleaved(cases, data, rounds, warm, clock=time.process_time, summary=min)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_rules(dense, rounds: int) -> list[str]:
    import olearn

    cases = [
        ("Perceptron", "—", olearn.PerceptronClassifier, hl.perceptron_dense, "linear", ()),
        ("Averaged Perceptron", "—", lambda: olearn.PerceptronClassifier(average=True),
         hl.averaged_perceptron_dense, "averaged", ()),
        ("AROW", "full", lambda: olearn.AROWClassifier(r=run.R, covariance="full"),
         hl.arow_full_dense, "full", (run.R,)),
        ("CW (variance)", "full",
         lambda: olearn.CWClassifier(eta=0.95, method="variance", covariance="full"),
         hl.cw_variance_full_dense, "full", (run.PHI,)),
    ]  # fmt: skip
    lines = [
        "| rule | covariance | olearn fit | engine.run | hand loop | hand/fit | hand/engine.run |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, cov, factory, hand, kind, hp in cases:
        t, out = minima(
            {
                "fit": run.olearn_case(factory),
                "loop": run.loop_case(factory, dense),
                "hand": run.hand_case(hand, kind, *hp),
            },
            dense,
            rounds,
            warm=dense.head(500),
        )
        assert out["fit"][1] == out["hand"][1], (label, "mistakes differ")
        lines.append(
            f"| {label} | {cov} | {run.ms(t['fit'])} | {run.ms(t['loop'])} | "
            f"{run.ms(t['hand'])} | {t['hand'] / t['fit']:.2f}× | "
            f"{t['hand'] / t['loop']:.2f}× |"
        )
        print(lines[-1], f"({load()})", flush=True)
    return lines


def bench_chunks(sets, rounds: int) -> list[str]:
    import olearn

    classes = np.array([-1.0, 1.0])
    from olearn.estimators import base

    lines = [
        "| set | rule | one fit | partial_fit ×1000 | fit/chunks | chunks, journaled |",
        "|---|---|---|---|---|---|",
    ]
    for data in sets:
        chunks = [(data.X[a : a + 1000], data.y[a : a + 1000])
                  for a in range(0, data.X.shape[0], 1000)]  # fmt: skip
        for rule, make in (
            ("PA-I", lambda: olearn.PassiveAggressiveClassifier(variant="PA-I", C=run.C)),
            ("Perceptron", olearn.PerceptronClassifier),
        ):

            def fit(d, make=make):
                return make().fit(d.X, d.y)

            def chunked(d, make=make, chunks=chunks, data=data):
                model = make()
                for Xc, yc in chunks if d is data else [(d.X, d.y)]:
                    model.partial_fit(Xc, yc, classes=classes)
                return model

            def journaled(d, chunked=chunked):
                # every sparse chunk's pass keeps the undo journal, its values unchecked
                # (``representations/_journal.py``; by default from 2¹⁷ values a chunk)
                journal_values = base._JOURNAL_MIN_VALUES
                base._JOURNAL_MIN_VALUES = 0
                try:
                    return chunked(d)
                finally:
                    base._JOURNAL_MIN_VALUES = journal_values

            cases = {"fit": fit, "chunks": chunked}
            if data.name == "sparse":
                cases["journaled"] = journaled
            t, out = minima(cases, data, rounds, warm=data.head(500))
            assert np.array_equal(out["fit"].weights_, out["chunks"].weights_)
            extra = "—"
            if "journaled" in t:
                assert np.array_equal(out["fit"].weights_, out["journaled"].weights_)
                extra = f"{run.ms(t['journaled'])} ({t['fit'] / t['journaled']:.2f}×)"
            lines.append(
                f"| {data.name} | {rule} | {run.ms(t['fit'])} | {run.ms(t['chunks'])} | "
                f"{t['fit'] / t['chunks']:.2f}× | {extra} |"
            )
            print(lines[-1], f"({load()})", flush=True)
    return lines


def bench_weights(sets, rounds: int) -> list[str]:
    import olearn

    lines = [
        "| set | rule | fit | fit, weights all 1 | fit, weights in [0.5, 2) | weighted/fit |",
        "|---|---|---|---|---|---|",
    ]
    for data in sets:
        n = data.X.shape[0]
        ones = np.ones(n)
        weights = np.random.default_rng(0).uniform(0.5, 2.0, n)
        for rule, make in (
            ("PA-I", lambda: olearn.PassiveAggressiveClassifier(variant="PA-I", C=run.C)),
            ("AROW (diagonal)", lambda: olearn.AROWClassifier(r=run.R)),
        ):

            def fit(d, make=make, w=None):
                return make().fit(d.X, d.y, sample_weight=None if w is None else w[: len(d.y)])

            t, out = minima(
                {
                    "fit": fit,
                    "ones": lambda d, fit=fit, w=ones: fit(d, w=w),
                    "weighted": lambda d, fit=fit, w=weights: fit(d, w=w),
                },
                data,
                rounds,
                warm=data.head(500),
            )
            assert np.array_equal(out["fit"].weights_, out["ones"].weights_)
            lines.append(
                f"| {data.name} | {rule} | {run.ms(t['fit'])} | {run.ms(t['ones'])} | "
                f"{run.ms(t['weighted'])} | {t['weighted'] / t['fit']:.2f}× |"
            )
            print(lines[-1], f"({load()})", flush=True)
    return lines


def _dense_forms(X) -> dict:
    import pandas as pd

    return {
        "C float64": X,
        "float32": X.astype(np.float32),
        "Fortran order": np.asfortranarray(X),
        "DataFrame": pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]),
    }


def wall_and_cpu(cases: dict, data, rounds: int) -> tuple[dict, dict]:
    """Median wall time and median CPU time (every thread of the process) of each
    ``case(data)``, interleaved round by round after one untimed run each: for code that
    runs on two threads, whose CPU time is not its duration."""
    import gc
    import statistics

    for fn in cases.values():
        fn(data)
    wall = {name: [] for name in cases}
    cpu = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            fn(data)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    median = statistics.median
    return {k: median(v) for k, v in wall.items()}, {k: median(v) for k, v in cpu.items()}


def bench_forms(dense, rounds: int, wall: bool = False) -> list[str]:
    """``fit`` on each dense form against C-ordered float64 (issue 13: within 1.3×): CPU-time
    minima, or with ``wall`` wall-time medians (Fortran order and DataFrames are converted
    by two threads when two CPUs are usable), each with the median CPU time it cost."""
    import olearn

    forms = _dense_forms(dense.X)
    lines = ["| rule | " + " | ".join(forms) + " |", "|---|" + "---|" * len(forms)]
    if wall:
        lines.insert(0, "wall-time medians (ratio to C float64), CPU time of all threads")
    for rule, make in (
        ("PA-I", lambda: olearn.PassiveAggressiveClassifier(variant="PA-I", C=run.C)),
        ("Perceptron", olearn.PerceptronClassifier),
        ("AROW (diagonal)", lambda: olearn.AROWClassifier(r=run.R)),
    ):
        cases = {name: (lambda d, X=X, make=make: make().fit(X, d.y)) for name, X in forms.items()}
        if wall:
            t, cpu = wall_and_cpu(cases, dense, rounds)
            base = t["C float64"]
            cells = " | ".join(
                f"{run.ms(t[name])} ({t[name] / base:.2f}×), CPU {run.ms(cpu[name])}"
                for name in forms
            )
        else:
            t, _ = minima(cases, dense, rounds)
            base = t["C float64"]
            cells = " | ".join(f"{run.ms(t[name])} ({t[name] / base:.2f}×)" for name in forms)
        lines.append(f"| {rule} | {cells} |")
        print(lines[-1], f"({load()})", flush=True)
    return lines


def bench_rows(dense, rounds: int, n: int = 500) -> list[str]:
    """One-row ``partial_fit`` and ``predict`` of PA-I per dense form (target ≤ 10 µs): the
    mean per call over ``n`` rows streamed after a fit on 5,000 rows, CPU-time minimum."""
    import olearn

    start = 5_000
    lines = ["| input | partial_fit | predict |", "|---|---|---|"]
    for name, X in _dense_forms(dense.X[: start + n]).items():
        # a DataFrame per row, as a stream builds them (each with its own columns Index)
        rows = [type(X)(X.values[i : i + 1], columns=list(X.columns)) if name == "DataFrame"
                else X[i : i + 1] for i in range(start, start + n)]  # fmt: skip
        labels = [dense.y[i : i + 1] for i in range(start, start + n)]
        fitted = X.iloc[:start] if name == "DataFrame" else X[:start]
        model = olearn.PassiveAggressiveClassifier(variant="PA-I", C=run.C)
        model.fit(fitted, dense.y[:start])

        def learn(d, model=model, rows=rows, labels=labels):
            for row, label in zip(rows, labels, strict=True):
                model.partial_fit(row, label)

        def predict(d, model=model, rows=rows):
            for row in rows:
                model.predict(row)

        t, _ = minima({"learn": learn, "predict": predict}, dense, rounds)
        learn_us, predict_us = t["learn"] / n * 1e6, t["predict"] / n * 1e6
        lines.append(f"| {name} | {learn_us:.1f} µs | {predict_us:.1f} µs |")
        print(lines[-1], f"({load()})", flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="rules,chunks,weights,forms,rows")
    parser.add_argument(
        "--wall", action="store_true", help="forms: wall-time medians (and their CPU time)"
    )
    args = parser.parse_args(argv)
    sparse, dense = run.load(args.scale)
    only = args.only.split(",")
    print(f"scale {args.scale}, rounds {args.rounds}, {load()}", flush=True)
    out = []
    if "rules" in only:
        out += ["", *bench_rules(dense, args.rounds)]
    if "chunks" in only:
        out += ["", *bench_chunks([sparse, dense], args.rounds)]
    if "weights" in only:
        out += ["", *bench_weights([sparse, dense], args.rounds)]
    if "forms" in only:
        out += ["", *bench_forms(dense, args.rounds, wall=args.wall)]
    if "rows" in only:
        out += ["", *bench_rows(dense, args.rounds)]
    print("\n".join(out))
    print(load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
