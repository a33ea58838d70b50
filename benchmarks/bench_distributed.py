"""Distributed training (olearn.distributed): accuracy of iterative parameter mixing, and
what the cluster costs.

Run from the repository root (on demand, never in tests)::

    PYTHONPATH=src python benchmarks/bench_distributed.py accuracy [--rows 200000]
    PYTHONPATH=src python benchmarks/bench_distributed.py cost --data /tmp/olearn-dist \\
        [--copies 10] [--repeats 3] [--rounds 2]

``accuracy``: held-out accuracy after 1, 2 and 3 rounds of ``olearn.distributed.fit`` against
one sequential pass, for PA-I, AROW (diagonal), SCW (diagonal) and AROW (full covariance), on

* the core benchmark's sparse set (``datasets.sparse_text``: 200,000 × 2²⁰ text-like rows and
  a held-out tenth), split iid into 4 partitions (and 8, 32);
* a per-domain split: the same generator in 4 domains, each with its own vocabulary (its own
  Zipf rank → feature map) and one shared hidden model, one domain per partition (the test set
  mixes the domains); the same rows shuffled give its iid control.

Full covariance runs on the rows folded to 2⁸ columns (index mod 256; D² = 65,536 per class).
Mixing rules: "auto" ("seen" for PA-I, precision for the second-order models) against
"uniform", and "changed" for PA-I. The fits run on an in-process Dask cluster: the model
depends only on the data, the partitions and the rule (bit for bit), not on the cluster.

``cost``: the core sparse set written as svmlight, repeated ``--copies`` times into one file
(10 copies: 2,000,000 rows, 4.2 GB), trained with PA-I for ``--rounds`` rounds on two
partitions by

* Dask, 2 workers × 1 thread (a ``LocalCluster`` of processes on the loopback interface);
* Dask, 1 worker × 1 thread (the same partitions, one after the other);
* a plain two-process control: a ``ProcessPoolExecutor`` of 2 processes running the same
  per-block function on the same byte blocks, mixing on the driver exactly as ``fit`` does;
* sequential ``olearn train pa1 --passes ROUNDS`` (one process, its reader's two threads).

Cases alternate (``--repeats`` times, medians). Reported: wall-clock; the workers' total CPU
(process CPU of the worker processes, read before and after each fit); the driver's share of
each round (broadcast, mixing: ``RoundReport.driver_seconds``); Dask against the control.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))


def load_average() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


# -- data -----------------------------------------------------------------------------------------


def core_sparse(rows: int):
    """The core sparse set and a held-out tenth (as benchmarks/run.py loads it)."""
    import datasets

    X, y = datasets.sparse_text(n_samples=rows + rows // 10)
    X.sort_indices()
    return X[:rows], y[:rows], X[rows:], y[rows:]


def multi_domain(rows: int, n_domains: int = 4, seed: int = 1):
    """``rows`` training rows (and a held-out tenth) from ``n_domains`` domains of the core
    generator, each with its own vocabulary, labelled by one hidden model; training rows in
    domain order, test rows shuffled."""
    import datasets

    rng = np.random.default_rng(seed)
    n_features = datasets.SPARSE_SHAPE[1]
    per = (rows + rows // 10) // n_domains
    parts, ranks = [], []
    for _ in range(n_domains):
        X, feature_of_rank = datasets._text_rows(per, n_features, 80, 1.1, rng)
        parts.append(X)
        ranks.append(feature_of_rank)
    hidden = np.zeros(n_features)
    informative = rng.choice(n_features, size=n_features // 50, replace=False)
    hidden[informative] = rng.normal(size=len(informative))
    for feature_of_rank in ranks:  # each domain's frequent words matter
        hidden[feature_of_rank[:1000]] = rng.normal(size=1000)
    domain = np.repeat(np.arange(n_domains), per)
    X = sp.vstack(parts).tocsr()
    X.sort_indices()
    score = X @ hidden
    y = np.where(score > np.median(score), 1.0, -1.0)
    y = np.where(rng.random(len(y)) < 0.05, -y, y)
    test = np.zeros(len(y), dtype=bool)
    for d in range(n_domains):  # a tenth of every domain held out
        rows_d = np.flatnonzero(domain == d)
        test[rows_d[-(len(rows_d) // 11) :]] = True
    train = np.flatnonzero(~test)
    order = rng.permutation(np.flatnonzero(test))
    return X[train], y[train], X[order], y[order], rng.permutation(len(train))


def folded(X, width: int = 256):
    """Rows folded to ``width`` columns (index mod width), for full covariance."""
    # copies: sum_duplicates sorts the indices and values in place, which would scramble the
    # rows of the unfolded X if the values were shared
    X = sp.csr_matrix(
        (X.data.copy(), X.indices % width, X.indptr.copy()), shape=(X.shape[0], width)
    )
    X.sum_duplicates()
    return X


# -- accuracy -------------------------------------------------------------------------------------


def models():
    from olearn import AROWClassifier, PassiveAggressiveClassifier, SCWClassifier

    return {
        "PA-I": (lambda: PassiveAggressiveClassifier(variant="PA-I", C=1.0), False),
        "AROW (diagonal)": (lambda: AROWClassifier(r=1.0), False),
        "SCW (diagonal)": (lambda: SCWClassifier(), False),
        "AROW (full, 2⁸ columns)": (lambda: AROWClassifier(r=1.0, covariance="full"), True),
    }


def dask_rows(client, X, y, n_blocks: int):
    """X and y as Dask arrays of ``n_blocks`` row blocks held by the cluster."""
    import dask.array as da

    bounds = np.linspace(0, X.shape[0], n_blocks + 1).astype(int)
    xs, ys = [], []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        [fx, fy] = client.scatter([X[lo:hi], y[lo:hi]])
        xs.append(da.from_delayed(fx, (hi - lo, X.shape[1]), dtype=float, meta=X[:0]))
        ys.append(da.from_delayed(fy, (hi - lo,), dtype=float, meta=y[:0]))
    return da.concatenate(xs), da.concatenate(ys)


def bench_accuracy(rows: int, partitions=(4, 8, 32), rounds: int = 3) -> None:
    from dask.distributed import Client, LocalCluster

    from olearn.distributed import fit

    print(f"# accuracy, {rows} training rows; load average {load_average()}")
    sets = {}
    X, y, Xt, yt = core_sparse(rows)
    sets["core sparse set, iid"] = (X, y, Xt, yt)
    X, y, Xt, yt, shuffle = multi_domain(rows)
    sets["4 domains, per-domain split"] = (X, y, Xt, yt)
    sets["4 domains, iid split"] = (X[shuffle], y[shuffle], Xt, yt)
    cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False)
    client = Client(cluster)
    mixings = ("auto", "uniform", "changed")  # "changed": first-order models only
    header = "| model | split | sequential one pass | " + " | ".join(
        f"{mixing} r{r}" for mixing in mixings for r in range(1, rounds + 1)
    )
    table = [header + " |", "|" + "---|" * (header.count("|") + 1)]
    by_partitions = []
    for set_name, (X, y, Xt, yt) in sets.items():
        for name, (make, full) in models().items():
            Xs, Xts = (folded(X), folded(Xt)) if full else (X, Xt)
            started = time.perf_counter()
            sequential = make().fit(Xs, y).score(Xts, yt)
            cells = [f"{100 * sequential:.2f}"]
            dX, dy = dask_rows(client, Xs, y, 32)
            for mixing in mixings:
                if mixing == "changed" and name != "PA-I":
                    cells += ["—"] * rounds
                    continue
                scores = []
                model = make()

                def score(report, model=model, scores=scores, X_test=Xts, y_test=yt):
                    scores.append(model.score(X_test, y_test))

                fit(
                    model, dX, dy, client=client, n_rounds=rounds, n_partitions=4, mixing=mixing,
                    progress=score,
                )  # fmt: skip
                cells += [f"{100 * s:.2f}" for s in scores]
            table.append(f"| {name} | {set_name} | " + " | ".join(cells) + " |")
            print(table[-1], f"({time.perf_counter() - started:.0f} s)", flush=True)
            if full:
                continue
            for n in partitions:
                model = fit(make(), dX, dy, client=client, n_rounds=rounds, n_partitions=n)
                by_partitions.append((name, set_name, n, model.score(Xts, yt), sequential))
    print()
    print("\n".join(table))
    print()
    print("| model | split | sequential | " + " | ".join(f"{n} partitions" for n in partitions))
    print("|" + "---|" * (3 + len(partitions)))
    rows_out = {}
    for name, set_name, _, score, sequential in by_partitions:
        rows_out.setdefault((name, set_name, sequential), []).append(f"{100 * score:.2f}")
    for (name, set_name, sequential), cells in rows_out.items():
        print(f"| {name} | {set_name} | {100 * sequential:.2f} | " + " | ".join(cells) + " |")
    client.close()
    cluster.close()
    print(f"\nload average after: {load_average()}")


# -- cost -----------------------------------------------------------------------------------------


def write_big(folder: Path, copies: int) -> Path:
    """The core sparse set as svmlight (``dump_svmlight_file``), repeated ``copies`` times."""
    folder.mkdir(parents=True, exist_ok=True)
    one = folder / "sparse.svm"
    big = folder / f"sparse-x{copies}.svm"
    if big.exists():
        return big
    if not one.exists():
        import datasets
        from sklearn.datasets import dump_svmlight_file

        X, y = datasets.sparse_text()
        dump_svmlight_file(X, y.astype(int), str(one), zero_based=False)
    with open(big, "wb") as out:
        for _ in range(copies):
            with open(one, "rb") as src:
                while chunk := src.read(64 << 20):
                    out.write(chunk)
    return big


def worker_cpu(client) -> float:
    """Total CPU seconds (user + system) of the worker processes so far."""

    def cpu():
        import psutil

        times = psutil.Process().cpu_times()
        return times.user + times.system

    return sum(client.run(cpu).values())


def dask_case(client, path, rounds, blocksize):
    from olearn import PassiveAggressiveClassifier
    from olearn.distributed import fit

    reports = []
    before = worker_cpu(client)
    started = time.perf_counter()
    fit(
        PassiveAggressiveClassifier(variant="PA-I"), [str(path)], client=client,
        n_rounds=rounds, n_partitions=2, blocksize=blocksize, progress=reports.append,
    )  # fmt: skip
    wall = time.perf_counter() - started
    cpu = worker_cpu(client) - before
    share = statistics.median(r.driver_seconds / r.seconds for r in reports)
    round_seconds = statistics.median(r.seconds for r in reports)
    return {"wall": wall, "cpu": cpu, "driver share": share, "round": round_seconds}


def _control_pass(template, state, blocks, reader):
    """A control process's pass over its partition's blocks (``(path, offset, length)``),
    with olearn.distributed's own per-block function."""
    from fsspec.utils import read_block

    from olearn.distributed import _fit

    start = time.process_time()
    for path, offset, length in blocks:
        with open(path, "rb") as handle:
            block = read_block(handle, offset, length, b"\n")
        state = _fit._learn_block(template, state, None, "text", block, reader, path, None)
    return state, time.process_time() - start


def control_case(pool, path, rounds, blocksize):
    """The same rounds on two plain processes: pre-pass, passes, mixing on the driver."""
    from dask.bytes import read_bytes

    from olearn import PassiveAggressiveClassifier
    from olearn.distributed import _models, _sources

    started = time.perf_counter()
    cpu = 0.0
    size = os.path.getsize(path)
    _, [blocks] = read_bytes(str(path), delimiter=b"\n", blocksize=blocksize, sample=False)
    reads = [_sources._Read.of(b) for b in blocks]
    spans = [(str(path), r.args[1], r.args[2]) for r in reads]
    halves = [spans[: len(spans) // 2], spans[len(spans) // 2 :]]
    reader = {"format": "svmlight"}
    summaries = list(pool.map(_control_summary, halves, [reader, reader]))
    cpu += sum(s[1] for s in summaries)
    n = sum(s[0][0] for s in summaries)
    assert n > 0 and size > 0
    lo = min(s[0][1] for s in summaries)
    hi = max(s[0][2] for s in summaries)
    labels = np.unique(np.concatenate([s[0][3] for s in summaries]))
    reader.update(zero_based=lo == 0, n_features=hi - (0 if lo == 0 else 1) + 1)
    family = _models.family_of(PassiveAggressiveClassifier(variant="PA-I"))
    family.begin(reader["n_features"], labels)
    for r in range(rounds):
        template = family.template("auto")  # as fit: "seen" sums squares in the first round
        start = family.state()
        results = list(pool.map(_control_pass, [template] * 2, [start] * 2, halves, [reader] * 2))
        cpu += sum(c for _, c in results)
        family.set_state(family.merge([s for s, _ in results], start, "auto"), r + 1)
    return {"wall": time.perf_counter() - started, "cpu": cpu}


def _control_summary(blocks, reader):
    from fsspec.utils import read_block

    from olearn.distributed import _sources

    start = time.process_time()
    n, lo, hi, labels = 0, 2**62, -1, []
    for path, offset, length in blocks:
        with open(path, "rb") as handle:
            block = read_block(handle, offset, length, b"\n")
        bn, blo, bhi, blabels = _sources.block_summary("text", block, reader, path, True)
        n += bn
        if bhi >= 0:
            lo, hi = min(lo, blo), max(hi, bhi)
        labels.append(blabels)
    return (n, lo, hi, np.concatenate(labels)), time.process_time() - start


def sequential_case(path, rounds):
    started = time.perf_counter()
    before = os.times()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "olearn",
            "train",
            "pa1",
            str(path),
            "-o",
            os.devnull,
            "--passes",
            str(rounds),
            "--quiet",
        ],  # fmt: skip
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return {"wall": time.perf_counter() - started, "cpu": cpu}


def bench_cost(folder: Path, copies: int, repeats: int, rounds: int, blocksize: int) -> None:
    import multiprocessing

    from dask.distributed import Client, LocalCluster

    path = write_big(folder, copies)
    gb = os.path.getsize(path) / 1e9
    print(f"# cost: {path} ({gb:.2f} GB), PA-I, {rounds} rounds, 2 partitions, blocks of "
          f"{blocksize >> 20} MiB; load average {load_average()}")  # fmt: skip
    loopback = "127.0.0.1:0"
    options = dict(threads_per_worker=1, processes=True, host="127.0.0.1",
                   dashboard_address=loopback, worker_dashboard_address=loopback)  # fmt: skip
    two = Client(LocalCluster(n_workers=2, **options))
    one = Client(LocalCluster(n_workers=1, **options))
    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
    small = folder / "warm.svm"
    with open(path, "rb") as src, open(small, "wb") as out:
        out.write(b"".join(src.readline() for _ in range(2000)))
    for client in (two, one):  # imports and compiled loops loaded on every worker
        dask_case(client, small, 1, 1 << 20)
    control_case(pool, small, 1, 1 << 20)
    results: dict[str, list] = {"dask2": [], "dask1": [], "control": [], "sequential": []}
    for repeat in range(repeats):
        results["dask2"].append(dask_case(two, path, rounds, blocksize))
        results["control"].append(control_case(pool, path, rounds, blocksize))
        results["dask1"].append(dask_case(one, path, rounds, blocksize))
        results["sequential"].append(sequential_case(path, rounds))
        print(f"  repeat {repeat + 1}: " + ", ".join(
            f"{k} {v[-1]['wall']:.1f} s wall / {v[-1]['cpu']:.1f} s CPU" for k, v in results.items()
        ) + f"; load {load_average()}", flush=True)  # fmt: skip

    def med(case, key):
        return statistics.median(r[key] for r in results[case])

    print()
    print("| run | wall (median) | workers' CPU (median) | driver's share of a round |")
    print("|---|---|---|---|")
    print(
        f"| Dask, 2 workers × 1 thread | {med('dask2', 'wall'):.1f} s | "
        f"{med('dask2', 'cpu'):.1f} s | {100 * med('dask2', 'driver share'):.2f} % |"
    )
    print(
        f"| Dask, 1 worker × 1 thread | {med('dask1', 'wall'):.1f} s | "
        f"{med('dask1', 'cpu'):.1f} s | {100 * med('dask1', 'driver share'):.2f} % |"
    )
    print(
        f"| plain 2 processes (control) | {med('control', 'wall'):.1f} s | "
        f"{med('control', 'cpu'):.1f} s | |"
    )
    print(f"| sequential `olearn train pa1` | {med('sequential', 'wall'):.1f} s | "
          f"{med('sequential', 'cpu'):.1f} s (the process) | |")  # fmt: skip
    print()
    cpu_ratio = statistics.median(
        a["cpu"] / b["cpu"] for a, b in zip(results["dask2"], results["dask1"], strict=True)
    )
    overhead = statistics.median(
        a["wall"] / b["wall"] for a, b in zip(results["dask2"], results["control"], strict=True)
    )
    print(f"workers' total CPU, 2 workers / 1 worker: {cpu_ratio:.3f}× (target ≤ 1.15)")
    print(f"driver's share of a round (2 workers): {100 * med('dask2', 'driver share'):.2f} % "
          "(target ≤ 10 %)")  # fmt: skip
    print(f"Dask / plain two-process control, wall: {overhead:.3f}× (target ≤ 1.15)")
    for base in ("dask1", "sequential"):
        speed = statistics.median(
            b["wall"] / a["wall"] for a, b in zip(results["dask2"], results[base], strict=True)
        )
        print(f"wall-clock speed-up of 2 workers over {base}: {speed:.2f}×")
    print(f"load average after: {load_average()}")
    pool.shutdown()
    for client in (two, one):
        cluster = client.cluster
        client.close()
        cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("section", choices=("accuracy", "cost"))
    parser.add_argument("--rows", type=int, default=200_000, help="accuracy: training rows")
    parser.add_argument("--data", type=Path, default=Path("/tmp/olearn-dist"), help="cost: folder")
    parser.add_argument("--copies", type=int, default=10, help="cost: copies of the core set")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2, help="cost: rounds")
    parser.add_argument("--blocksize", type=int, default=64 << 20, help="cost: bytes a block")
    args = parser.parse_args()
    if args.section == "accuracy":
        bench_accuracy(args.rows)
    else:
        bench_cost(args.data, args.copies, args.repeats, args.rounds, args.blocksize)


if __name__ == "__main__":
    main()
