"""Input forms as users have them: does any of them fall off the fast path?

Every case is timed against the canonical form in the same process, interleaved round by
round (medians over rounds):

* ``fit`` (PA-I and diagonal AROW, one pass) on each sparse form of the text-like set — CSR
  with unsorted indices (what ``TfidfVectorizer``, ``CountVectorizer``, ``X[:, cols]`` and
  ``A @ B`` produce), the ``has_sorted_indices = False`` flag on sorted data, float32, int64
  indices, COO, CSC, a ``csr_array`` — and real ``TfidfVectorizer`` output against its own
  canonical copy; and on each dense form of the dense set — float32, Fortran order, a
  DataFrame — against C-ordered float64. Ratio = form / canonical (target ≤ 1.3).
* single-row ``partial_fit`` and ``predict`` of a fitted PA-I model in each form, the rows
  sliced before timing (target ≤ 10 µs), and with labels of another dtype than the first
  call's. A one-row CSC matrix of 2²⁰ columns carries 4 MiB of column pointers: each is
  made just before its call, as a user has it (only the call timed; 2,000 of them made
  beforehand would take 8 GB and be cold in memory), and a CSR row is timed the same way
  right after making such a matrix (the caches it evicts: the floor of any CSC call);
* the two in one table: each input form's ``fit`` ratio, then its one-row calls and their
  ratio to the canonical row of its kind (``forms_table``);
* ``learn_one`` / ``predict_one`` with dict keys of each kind (int, NumPy integer, str);
* a predict-then-learn loop over CSR rows, ``predict(row)`` then ``partial_fit(row, y)``, and
  the same with ``predict_one``/``learn_one`` on dicts (target ≤ 15 µs a row).

Run from the repository root::

    python benchmarks/bench_inputs.py [--quick] [--rounds 7] [--cpu] [--sparse-fit]
                                      [--markdown out.md]

``--cpu``: ``fit`` timed in CPU time (``time.process_time``), the ratio of the minima over
rounds — steadier than wall-time medians on a machine shared with other jobs; but it sums
the threads of a process, and ``fit`` on a large CSC matrix uses two (its conversion runs
beside the learning): time that one in wall time, in a quiet window. ``--sparse-fit``: only
the ``fit`` table of the sparse forms.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets  # noqa: E402

import olearn  # noqa: E402

FIT_TARGET = 1.3
CALL_TARGET = 10e-6
STREAM_TARGET = 15e-6


# -- data ------------------------------------------------------------------------------------


def unsorted_copy(X: sp.csr_matrix, seed: int = 0) -> sp.csr_matrix:
    """The same matrix with the indices of every row in a random order (no duplicates)."""
    rng = np.random.default_rng(seed)
    out = X.copy()
    keys = rng.random(out.nnz) + np.repeat(np.arange(out.shape[0]), np.diff(out.indptr))
    order = np.argsort(keys, kind="stable")
    out.indices = out.indices[order]
    out.data = out.data[order]
    out.has_sorted_indices = False
    return out


def flagged_copy(X: sp.csr_matrix) -> sp.csr_matrix:
    """Sorted data whose ``has_sorted_indices`` flag says otherwise (scipy then copies)."""
    out = X.copy()
    out.has_sorted_indices = False
    return out


def tfidf_corpus(X: sp.csr_matrix) -> sp.csr_matrix:
    """Real ``TfidfVectorizer`` output: the rows of X written out as documents of words
    ``w<index>`` (each word as many times as its rounded weight × 3) and vectorised."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = []
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        words = []
        for j, v in zip(X.indices[a:b], X.data[a:b], strict=True):
            words.extend([f"w{j}"] * max(1, int(round(3 * v * 8))))
        docs.append(" ".join(words))
    return TfidfVectorizer().fit_transform(docs)


def sparse_forms(X: sp.csr_matrix) -> dict:
    """Each sparse input form of X (built before timing)."""
    int64 = X.copy()
    int64.indices = int64.indices.astype(np.int64)
    int64.indptr = int64.indptr.astype(np.int64)
    return {
        "CSR, canonical (baseline)": X,
        "CSR, unsorted indices": unsorted_copy(X),
        "CSR, has_sorted_indices=False flag": flagged_copy(X),
        "CSR, float32": X.astype(np.float32),
        "CSR, int64 indices": int64,
        "csr_array": sp.csr_array(X),
        "COO": X.tocoo(),
        "CSC": X.tocsc(),
    }


def dense_forms(X: np.ndarray) -> dict:
    import pandas as pd

    return {
        "dense, C float64 (baseline)": X,
        "dense, float32": X.astype(np.float32),
        "dense, Fortran order": np.asfortranarray(X),
        "DataFrame": pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]),
    }


# -- timing ----------------------------------------------------------------------------------


def interleaved(cases: dict, rounds: int) -> dict:
    """Median wall time of each thunk, the cases interleaved round by round (one untimed
    warm-up call each)."""
    for fn in cases.values():
        fn()
    times: dict = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def per_call(cases: dict, rounds: int) -> dict:
    """Median over rounds of the mean time per call of each ``(fn, list_of_args)``; a case
    whose call raises is reported as the error's type."""
    out: dict = {}
    live = {}
    for name, (fn, args) in cases.items():
        try:
            for a in args[:20]:
                fn(*a)
            live[name] = (fn, args)
        except Exception as error:  # noqa: BLE001 - the report names it
            out[name] = type(error).__name__
    times: dict = {name: [] for name in live}
    for _ in range(rounds):
        for name, (fn, args) in live.items():
            gc.collect()
            start = time.perf_counter()
            for a in args:
                fn(*a)
            times[name].append((time.perf_counter() - start) / len(args))
    out.update({name: statistics.median(t) for name, t in times.items()})
    return out


# -- cases -----------------------------------------------------------------------------------


def fit_ratios(forms: dict, y: np.ndarray, make, rounds: int, cpu: bool = False) -> dict:
    """fit time of each form / the first form's, per round then median (so that a slow
    round of the machine does not bias one form); with ``cpu``, CPU time and the ratio of
    the minima over rounds."""
    names = list(forms)
    clock = time.process_time if cpu else time.perf_counter
    for X in forms.values():
        make().fit(X, y)
    ratios: dict = {name: [] for name in names}
    seconds: dict = {name: [] for name in names}
    for _ in range(rounds):
        times = {}
        for name in names:
            model = make()
            gc.collect()
            start = clock()
            model.fit(forms[name], y)
            times[name] = clock() - start
        for name in names:
            ratios[name].append(times[name] / times[names[0]])
            seconds[name].append(times[name])
    if cpu:
        best = {name: min(seconds[name]) for name in names}
        return {name: (best[name], best[name] / best[names[0]]) for name in names}
    return {
        name: (statistics.median(seconds[name]), statistics.median(ratios[name])) for name in names
    }


def per_call_fresh(cases: dict, rounds: int) -> dict:
    """``per_call`` for arguments made just before each call (``(fn, makers)``: each maker
    returns the call's arguments); only the calls are timed."""
    out: dict = {}
    for fn, makers in cases.values():
        for make in makers[:20]:
            fn(*make())
    times: dict = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (fn, makers) in cases.items():
            gc.collect()
            total = 0.0
            for make in makers:
                args = make()
                start = time.perf_counter()
                fn(*args)
                total += time.perf_counter() - start
            times[name].append(total / len(makers))
    out.update({name: statistics.median(t) for name, t in times.items()})
    return out


def single_rows(X, n: int, start: int, form) -> list:
    """Rows start … start + n of X, each converted to ``form`` before timing."""
    return [form(X[i : i + 1]) for i in range(start, start + n)]


def row_forms(X_sparse, X_dense) -> dict:
    import pandas as pd

    columns = [f"f{j}" for j in range(X_dense.shape[1])]
    return {
        "CSR, canonical": (X_sparse, lambda r: r),
        "CSR, unsorted indices": (X_sparse, lambda r: unsorted_copy(r, seed=1)),
        "CSR, has_sorted_indices=False flag": (X_sparse, flagged_copy),
        "CSR, float32": (X_sparse, lambda r: r.astype(np.float32)),
        "csr_array": (X_sparse, sp.csr_array),
        "COO": (X_sparse, lambda r: r.tocoo()),
        "dense, C float64": (X_dense, lambda r: np.ascontiguousarray(r)),
        "dense, float32": (X_dense, lambda r: r.astype(np.float32)),
        "dense, Fortran order": (X_dense, np.asfortranarray),
        "DataFrame": (X_dense, lambda r: pd.DataFrame(r, columns=columns)),
    }


def dict_events(X: sp.csr_matrix, start: int, n: int, key) -> list:
    out = []
    for i in range(start, start + n):
        a, b = X.indptr[i], X.indptr[i + 1]
        out.append({key(j): float(v) for j, v in zip(X.indices[a:b], X.data[a:b], strict=True)})
    return out


# -- main ------------------------------------------------------------------------------------


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def fmt_us(t) -> str:
    return t if isinstance(t, str) else f"{t * 1e6:.1f} µs"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sets, fewer rounds")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--cpu", action="store_true", help="fit in CPU time, minima")
    parser.add_argument(
        "--sparse-fit", action="store_true", help="only fit on the sparse forms (a short run)"
    )
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    n_sparse = 10_000 if args.quick else 50_000
    n_dense = 20_000 if args.quick else 100_000
    n_calls = 300 if args.quick else 2_000
    header = (
        f"{'CPU-time minima for fit, ' if args.cpu else ''}commit {_commit()}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average {os.getloadavg()[0]:.2f} at start, Python {platform.python_version()}"
    )
    print(header, flush=True)

    Xs, ys = datasets.sparse_text(n_samples=n_sparse + n_calls + 5_000)
    Xs.sort_indices()
    Xd, yd = datasets.dense(n_samples=n_dense + n_calls + 5_000)
    Xd = np.ascontiguousarray(Xd)
    lines: list[str] = [header, ""]

    def table(title, head, rows):
        print(f"\n{title}")
        block = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        block += ["| " + " | ".join(row) + " |" for row in rows]
        print("\n".join(block), flush=True)
        lines.extend([f"### {title}", "", *block, ""])

    # fit: every form against the canonical one
    pa = lambda: olearn.PassiveAggressiveClassifier(variant="PA-I")  # noqa: E731
    arow = lambda: olearn.AROWClassifier()  # noqa: E731
    fit_rows = []
    fits: dict = {}  # form -> rule -> (time, ratio to its baseline)

    def record(result: dict, rule: str) -> None:
        for name, (t, ratio) in result.items():
            fit_rows.append([name, rule, f"{t * 1e3:.1f} ms", f"{ratio:.2f}×"])
            fits.setdefault(name.removesuffix(" (baseline)"), {})[rule] = (t, ratio)

    forms = sparse_forms(Xs[:n_sparse])
    for rule, make in (("PA-I", pa), ("AROW", arow)):
        record(fit_ratios(forms, ys[:n_sparse], make, rounds, args.cpu), rule)
    if args.sparse_fit:
        table(f"fit, one pass ({n_sparse:,} × 2²⁰ sparse)",
              ["input", "rule", "fit", "form / baseline"], fit_rows)  # fmt: skip
        _finish(args.markdown, lines)
        return 0
    tfidf = tfidf_corpus(Xs[: n_sparse // 5])
    canonical = tfidf.copy()
    canonical.sort_indices()
    y_tfidf = ys[: n_sparse // 5]
    for rule, make in (("PA-I", pa), ("AROW", arow)):
        result = fit_ratios(
            {"TfidfVectorizer output, sorted copy (baseline)": canonical,
             "TfidfVectorizer output": tfidf}, y_tfidf, make, rounds, args.cpu,
        )  # fmt: skip
        record(result, rule)
    dforms = dense_forms(Xd[:n_dense])
    for rule, make in (("PA-I", pa), ("AROW", arow)):
        record(fit_ratios(dforms, yd[:n_dense], make, rounds, args.cpu), rule)

    # single rows: partial_fit and predict of a fitted PA-I model
    start = n_sparse
    sparse_model = pa().fit(Xs[start - 5_000 : start], ys[start - 5_000 : start])
    dense_model = pa().fit(Xd[:5_000], yd[:5_000])
    import pandas as pd

    columns = [f"f{j}" for j in range(Xd.shape[1])]
    frame_model = pa().fit(pd.DataFrame(Xd[:5_000], columns=columns), yd[:5_000])
    cases_fit, cases_predict = {}, {}
    for name, (X, form) in row_forms(Xs, Xd).items():
        model = sparse_model if sp.issparse(X) else dense_model
        if name == "DataFrame":
            model = frame_model  # fitted with feature names, as a DataFrame user has it
        y = ys if sp.issparse(X) else yd
        rows = single_rows(X, n_calls, start if sp.issparse(X) else 5_000, form)
        labels = [y[i : i + 1] for i in range(len(rows))]
        cases_fit[name] = (model.partial_fit, list(zip(rows, labels, strict=True)))
        cases_predict[name] = (model.predict, [(r,) for r in rows])
    rows = single_rows(Xs, n_calls, start, lambda r: r)
    for label_name, dtype in (("int64", np.int64), ("int32", np.int32)):
        labels = [ys[i : i + 1].astype(dtype) for i in range(start, start + n_calls)]
        cases_fit[f"CSR, labels {label_name} (fitted on float64)"] = (
            sparse_model.partial_fit,
            list(zip(rows, labels, strict=True)),
        )
    fit_times = per_call(cases_fit, rounds)
    predict_times = per_call(cases_predict, rounds)
    # one-row CSC matrices, each made just before its call (see the module docstring)
    n_fresh = min(n_calls, 300)
    csr_rows = single_rows(Xs, n_fresh, start, lambda r: r)

    def fresh(form):
        return [lambda i=i: (form(csr_rows[i]), ys[start + i : start + i + 1])
                for i in range(n_fresh)]  # fmt: skip

    def csr_after_csc(r):
        r.tocsc()  # made and dropped: the caches a CSC user's row evicts
        return r

    fresh_cases = {"CSC (made before each call)": fresh(lambda r: r.tocsc()),
                   "CSR, right after making a one-row CSC": fresh(csr_after_csc)}  # fmt: skip
    for name, makers in fresh_cases.items():
        fresh_fit = per_call_fresh({name: (sparse_model.partial_fit, makers)}, rounds)
        fresh_predict = per_call_fresh(
            {name: (lambda x, y: sparse_model.predict(x), makers)}, rounds
        )
        fit_times[name], predict_times[name] = fresh_fit[name], fresh_predict[name]
        cases_fit[name] = None
    table(
        f"input forms: fit (one pass, PA-I and diagonal AROW; {n_sparse:,} × 2²⁰ sparse, "
        f"{n_dense:,} × 100 dense, TfidfVectorizer output of {n_sparse // 5:,} documents), "
        "then one row of a fitted PA-I model (mean per call)",
        ["input", "fit, PA-I", "fit, AROW", "partial_fit, one row", "predict, one row"],
        forms_table(fits, fit_times, predict_times),
    )

    # events: learn_one / predict_one with each kind of dict key
    events = {
        "dict, int keys": dict_events(Xs, start, n_calls, int),
        "dict, NumPy int64 keys": dict_events(Xs, start, n_calls, np.int64),
        "dict, str keys": dict_events(Xs, start, n_calls, lambda j: f"w{j}"),
        "(indices, values) arrays": [
            (
                Xs.indices[Xs.indptr[i] : Xs.indptr[i + 1]].astype(np.int64),
                Xs.data[Xs.indptr[i] : Xs.indptr[i + 1]].copy(),
            )
            for i in range(start, start + n_calls)
        ],  # fmt: skip
    }
    labels = [ys[i] for i in range(start, start + n_calls)]
    learn, predict_one = {}, {}
    for name, xs in events.items():
        model = pa()
        model.learn_one  # noqa: B018 - bound below
        try:
            model.fit(Xs[start - 5_000 : start], ys[start - 5_000 : start])
        except Exception:  # noqa: BLE001
            pass
        learn[name] = (model.learn_one, list(zip(xs, labels, strict=True)))
        predict_one[name] = (model.predict_one, [(x,) for x in xs])
    learn_times = per_call(learn, rounds)
    predict_one_times = per_call(predict_one, rounds)
    table(
        "one event: learn_one and predict_one (PA-I, fitted; mean per call)",
        ["event", "learn_one", "predict_one"],
        [[name, fmt_us(learn_times[name]), fmt_us(predict_one_times[name])] for name in learn],
    )

    # predict-then-learn streams
    rows = single_rows(Xs, n_calls, start, lambda r: r)
    row_labels = [ys[i : i + 1] for i in range(start, start + n_calls)]
    dicts = events["dict, int keys"]

    def stream_rows(model=sparse_model):
        for x, y in zip(rows, row_labels, strict=True):
            model.predict(x)
            model.partial_fit(x, y)

    event_model = pa().fit(Xs[:5_000], ys[:5_000])

    def stream_events(model=event_model):
        for x, y in zip(dicts, labels, strict=True):
            model.predict_one(x)
            model.learn_one(x, y)

    stream = interleaved({"rows": stream_rows, "events": stream_events}, rounds)
    table(
        "predict-then-learn, per row (PA-I)",
        ["stream", "per row"],
        [
            ["CSR rows: predict(row), partial_fit(row, y)", fmt_us(stream["rows"] / n_calls)],
            ["dicts: predict_one(x), learn_one(x, y)", fmt_us(stream["events"] / n_calls)],
        ],
    )
    _finish(args.markdown, lines)
    return 0


#: The one-row case of each form whose ``fit`` is timed under another name.
_ROW_OF_FIT = {"CSC": "CSC (made before each call)"}
#: The canonical row each one-row time is divided by.
_CANONICAL_ROW = {True: "CSR, canonical", False: "dense, C float64"}


def forms_table(fits: dict, fit_times: dict, predict_times: dict) -> list[list[str]]:
    """One row per input form: its ``fit`` ratio to its canonical form per rule (with the
    time), then its one-row ``partial_fit`` and ``predict`` and their ratio to the canonical
    row of its kind (sparse or dense). A form timed one way only has "—" in the others."""

    def fit_cell(name, rule):
        if rule not in fits.get(name, {}):
            return "—"
        t, ratio = fits[name][rule]
        return f"{ratio:.2f}× ({t * 1e3:.1f} ms)"

    def call_cell(times, name, canonical):
        t, base = times.get(name), times.get(canonical)
        if t is None or isinstance(t, str) or isinstance(base, str) or base is None:
            return fmt_us(t) if t is not None else "—"
        return f"{t * 1e6:.1f} µs ({t / base:.2f}×)"

    names = list(fits) + [n for n in fit_times if n not in fits and n not in _ROW_OF_FIT.values()]
    rows = []
    for name in names:
        row = _ROW_OF_FIT.get(name, name)
        canonical = _CANONICAL_ROW[not (name.startswith("dense") or name == "DataFrame")]
        rows.append([name, fit_cell(name, "PA-I"), fit_cell(name, "AROW"),
                     call_cell(fit_times, row, canonical),
                     call_cell(predict_times, row, canonical)])  # fmt: skip
    return rows


def _finish(markdown, lines: list) -> None:
    lines.append(f"load average at the end: {os.getloadavg()[0]:.2f}")
    print(lines[-1])
    if markdown:
        with open(markdown, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
