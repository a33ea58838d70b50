"""Data in, models out: parse speed, whole-process training from text, start-up, memory.

Run: ``PYTHONPATH=src python benchmarks/bench_io.py [--rows N] [--big-gb G] [--parse-only]
[--data /tmp/olearn-bench-io] [--compare-with OLD_SRC]``

* writes the core benchmark's sparse set (``datasets.sparse_text``: 200,000 × 2²⁰, ~80
  nonzeros a row) as svmlight (scikit-learn's ``dump_svmlight_file``, values as ``%.16g``) and
  as VW-style text (``label |f index:value ...``, the same numbers) into a temporary folder;
* parse throughput (MB/s wall and CPU, in-process, warm, 1 and 2 parse threads interleaved):
  ``olearn.io.load_svmlight``, ``load_vw``, iteration over ``SvmlightReader``/``VWReader``,
  ``scan_svmlight``, and scikit-learn's ``load_svmlight_file``; then where the time goes
  (reading, the compiled loops alone, CSR assembly);
* whole-process wall time (fresh processes, warm caches, best of 3): ``olearn train pa`` on
  either file, ``python -m vowpalwabbit`` on the VW file (if installed), and a process that
  runs scikit-learn's ``load_svmlight_file`` + one-pass ``PassiveAggressiveClassifier.fit``;
* start-up: ``olearn --help`` and ``olearn train`` on a 100-line file (warm cache);
* memory: peak RSS of ``olearn train`` on files of 1×, 2×, 4× … the svmlight file (the file
  repeated) up to ``--big-gb``, from ``resource.getrusage`` of the child.

Nothing is written outside the temporary folder (removed at the end) and the ``--data`` folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if "--child-rates" not in sys.argv:  # a child of --compare-with imports the olearn it is given
    sys.path.insert(0, str(ROOT / "src"))

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
PY = sys.executable


def write_files(folder: Path, rows: int) -> tuple[Path, Path]:
    from datasets import sparse_text
    from sklearn.datasets import dump_svmlight_file

    X, y = sparse_text(n_samples=rows)
    folder.mkdir(parents=True, exist_ok=True)  # (--data names a folder that may not exist)
    svm = folder / "sparse.svm"
    dump_svmlight_file(X, y.astype(int), str(svm), zero_based=False)
    vw = folder / "sparse.vw"
    with open(svm, "rb") as src, open(vw, "wb") as out:
        for line in src:
            label, _, rest = line.partition(b" ")
            out.write(label + b" |f " + rest)
    return svm, vw


def best_of(command: list[str], repeats: int = 3) -> tuple[float, int]:
    """Best wall time (s) of a fresh process, and the largest peak RSS (KiB) seen."""
    runs = [peak_rss(command) for _ in range(repeats)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def peak_rss(command: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of one child, measured by ``/usr/bin/time`` (a small
    parent: a child forked from this big process would inherit its RSS high-water mark)."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed, int(done.stderr.decode().strip().splitlines()[-1])


def parse_rates(svm: Path, vw: Path, repeats: int) -> list[tuple[str, dict]]:
    """In-process throughput of each reader with 1 and 2 parse threads, interleaved (one
    round runs every case once with each thread count; best of ``repeats`` rounds):
    ``[(name, {threads: (MB/s wall, MB/s CPU)})]``. scikit-learn's loader (one thread)
    is timed in the same rounds."""
    from sklearn.datasets import load_svmlight_file

    from olearn.io import SvmlightReader, VWReader, load_svmlight, load_vw, scan_svmlight

    size = svm.stat().st_size / 1e6
    size_vw = vw.stat().st_size / 1e6
    d = 2**20
    cases = [
        (
            "load_svmlight (n_features given)",
            lambda t: load_svmlight(svm, n_features=d, threads=t),
            size,
        ),
        ("load_svmlight (auto: scan + parse)", lambda t: load_svmlight(svm, threads=t), size),
        ("load_vw (hashing into 2^20)", lambda t: load_vw(vw, bits=20, threads=t), size_vw),
        (
            "SvmlightReader, 8 MiB chunks",
            lambda t: _drain(SvmlightReader(svm, n_features=d, threads=t)),
            size,
        ),
        ("VWReader, 8 MiB chunks", lambda t: _drain(VWReader(vw, bits=20, threads=t)), size_vw),
        ("scan_svmlight", lambda t: scan_svmlight(svm, threads=t), size),
    ]
    for _, call, _ in cases:
        call(1)  # compile / load from cache, page the files in
    best: dict[str, dict] = {name: {} for name, _, _ in cases}
    best["scikit-learn load_svmlight_file"] = {}
    for _ in range(repeats):
        for name, call, mb in cases:
            for threads in (1, 2):
                wall, cpu = _timed(lambda call=call, threads=threads: call(threads))
                old = best[name].get(threads, (0.0, 0.0))
                best[name][threads] = (max(old[0], mb / wall), max(old[1], mb / cpu))
        wall, cpu = _timed(lambda: load_svmlight_file(str(svm), n_features=d))
        old = best["scikit-learn load_svmlight_file"].get(1, (0.0, 0.0))
        best["scikit-learn load_svmlight_file"][1] = (
            max(old[0], size / wall),
            max(old[1], size / cpu),
        )
    return list(best.items())


#: What ``--compare-with`` times in each version: calls every version since the first accepts.
VERSION_CASES = {
    "load_svmlight(path, n_features=2**20)": "load_svmlight(svm, n_features=2**20)",
    "load_vw(path, bits=20)": "load_vw(vw, bits=20)",
    "SvmlightReader iteration, arrays": "sum(len(c.y) for c in SvmlightReader(svm, n_features=d))",
    "SvmlightReader iteration, chunk.X": "sum(c.X.nnz for c in SvmlightReader(svm, n_features=d))",
    "VWReader iteration, arrays": "sum(len(c.y) for c in VWReader(vw, bits=20))",
    "scan_svmlight(path)": "scan_svmlight(svm)",
}


def version_rates(svm: Path, vw: Path, repeats: int) -> dict[str, tuple[float, float]]:
    """Best wall and CPU MB/s of each of ``VERSION_CASES`` with whatever olearn is on the
    path (run in a child process by ``compare_versions``)."""
    import olearn
    from olearn.io import SvmlightReader, VWReader, load_svmlight, load_vw, scan_svmlight

    print(f"olearn from {olearn.__file__}", file=sys.stderr)
    names = {"svm": svm, "vw": vw, "d": 2**20, "SvmlightReader": SvmlightReader}
    names["VWReader"] = VWReader
    names.update(load_svmlight=load_svmlight, load_vw=load_vw, scan_svmlight=scan_svmlight)
    sizes = {"svm": svm.stat().st_size / 1e6, "vw": vw.stat().st_size / 1e6}
    out = {}
    for name, code in VERSION_CASES.items():
        mb = sizes["vw" if "(vw" in code else "svm"]
        eval(code, names)  # noqa: S307 - our own fixed expressions; warms the caches
        times = [_timed(lambda code=code: eval(code, names)) for _ in range(repeats)]  # noqa: S307
        out[name] = (mb / min(t[0] for t in times), mb / min(t[1] for t in times))
    return out


def compare_versions(svm: Path, vw: Path, baseline: str, rounds: int, repeats: int) -> None:
    """Before/after: fresh processes alternating the olearn sources in ``baseline`` (e.g.
    ``git archive b3ce928 src | tar -x -C /tmp/olearn-base`` → /tmp/olearn-base/src) and
    this checkout's, ``rounds`` times; each times every case best of ``repeats``."""
    import json
    import statistics

    versions = {"before": baseline, "after": str(ROOT / "src")}
    got: dict = {}
    for _ in range(rounds):
        for label, src in versions.items():
            env = {**os.environ, "PYTHONPATH": src}
            subprocess.run([PY, "-m", "olearn", "warmup"], env=env, check=True, capture_output=True)
            done = subprocess.run(
                [PY, __file__, "--child-rates", str(svm), str(vw), str(repeats)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            for name, rates in json.loads(done.stdout.splitlines()[-1]).items():
                got.setdefault(name, {}).setdefault(label, []).append(rates)
        print(f"  (round done, load average {os.getloadavg()[0]:.2f})")
    for name, by_version in got.items():
        cells = []
        for label in versions:
            runs = by_version[label]
            wall = max(r[0] for r in runs)
            cpu = max(r[1] for r in runs)
            median = statistics.median(r[0] for r in runs)
            cells.append(f"{label} {wall:5.0f} wall (median {median:5.0f}) {cpu:5.0f} CPU")
        ratio = max(r[0] for r in by_version["after"]) / max(r[0] for r in by_version["before"])
        print(f"  {name:40s} " + " | ".join(cells) + f" | {ratio:.1f}x")


def _drain(reader) -> None:
    for chunk in reader:
        chunk.data  # noqa: B018 - what a consumer of the arrays touches


def parse_stages(svm: Path, vw: Path, repeats: int) -> list[tuple[str, float, float]]:
    """Where the time of a parse goes, one thread: ``[(stage, MB/s wall, MB/s CPU)]`` for
    reading blocks (no parse), the compiled loops alone on 8 MiB blocks already in memory,
    and building CSR matrices from the parsed chunks (``chunk.X`` and the stacking of a
    whole-file load)."""
    import numpy as np

    from olearn.io import SvmlightReader, _svmlight_parse, _vw_parse
    from olearn.io.chunks import open_source, parallel_blocks
    from olearn.io.svmlight import concatenate

    def in_memory(path: Path) -> list[np.ndarray]:
        data = np.fromfile(path, np.uint8)
        cuts = [0]
        while cuts[-1] < data.shape[0]:
            stop = min(cuts[-1] + (8 << 20), data.shape[0])
            if stop < data.shape[0]:
                stop = cuts[-1] + int(np.flatnonzero(data[cuts[-1] : stop] == 10)[-1]) + 1
            cuts.append(stop)
        return [data[a:b].copy() for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    def read_only() -> None:
        """The blocks as the parse loops get them: a plain file is mapped (no copy), so
        every page is touched here (one byte a page), as parsing would fault it in."""
        handle, _ = open_source(svm)
        with handle:
            touch = lambda buf, end, final: int(buf[:end:4096].sum())  # noqa: E731
            for _ in parallel_blocks(handle, 8 << 20, touch, threads=1):
                pass

    blocks, blocks_vw = in_memory(svm), in_memory(vw)
    no_pairs = np.zeros((0, 2), np.int64)

    def parse_all(blocks: list, vw_format: bool) -> None:
        """The compiled loop on every block, reusing its work arrays as a reader does."""
        if vw_format:
            work = _vw_parse.work_arrays(8 << 20)
            for b in blocks:
                parsed = _vw_parse.parse_vw(
                    b, b.shape[0], 20, 0, no_pairs, True, 1 << 25, False, work
                )
                work = parsed[-1]
        else:
            work = _svmlight_parse.work_arrays(8 << 20)
            for b in blocks:
                parsed = _svmlight_parse.parse_svmlight(b, b.shape[0], 1, 2**20, False, False, work)
                work = parsed[-1]

    chunks = list(SvmlightReader(svm, n_features=2**20))

    def csr() -> None:
        for chunk in chunks:
            chunk._X = None
            chunk.X  # noqa: B018
        concatenate(chunks, 2**20)

    size = svm.stat().st_size / 1e6
    size_vw = vw.stat().st_size / 1e6
    stages = [
        ("blocks of the mapped file, pages touched", read_only, size),
        ("parse_svmlight loop, blocks in memory", lambda: parse_all(blocks, False), size),
        ("parse_vw loop, blocks in memory", lambda: parse_all(blocks_vw, True), size_vw),
        (
            "scan_svmlight loop, blocks in memory",
            lambda: [
                _svmlight_parse.scan_svmlight(b, b.shape[0], np.empty(256), 0) for b in blocks
            ],
            size,
        ),
        ("CSR: chunk.X of every chunk + stacking them", csr, size),
    ]
    out = []
    for name, call, mb in stages:
        call()
        times = [_timed(call) for _ in range(repeats)]
        out.append((name, mb / min(t[0] for t in times), mb / min(t[1] for t in times)))
    return out


def _timed(call) -> tuple[float, float]:
    """Wall and CPU (this process) seconds of a call: on a shared machine the CPU time is
    the fairer measure of the parse loop itself."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def vowpal_available() -> bool:
    done = subprocess.run([PY, "-m", "vowpalwabbit", "--help"], capture_output=True, env=ENV)
    return done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--big-gb", type=float, default=2.0, help="largest file for memory")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--parse-only", action="store_true", help="only the in-process parse")
    parser.add_argument(
        "--data",
        help="folder holding (or to receive, if missing) sparse.svm and sparse.vw, kept "
        "between runs (outside the repository, e.g. /tmp/olearn-bench-io)",
    )
    parser.add_argument(
        "--compare-with",
        metavar="SRC",
        help="olearn sources of an earlier version (a folder holding the olearn package): "
        "time the readers before (SRC) and after (this checkout), alternating processes",
    )
    parser.add_argument("--child-rates", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_rates:
        import json

        svm, vw, repeats = args.child_rates
        print(json.dumps(version_rates(Path(svm), Path(vw), int(repeats))))
        return
    folder = Path(tempfile.mkdtemp(prefix="olearn-bench-io-"))
    try:
        run(folder, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(folder: Path, args) -> None:
    t = time.perf_counter()
    if args.data:
        svm, vw = Path(args.data) / "sparse.svm", Path(args.data) / "sparse.vw"
        if not (svm.exists() and vw.exists()):
            write_files(Path(args.data), args.rows)
    else:
        svm, vw = write_files(folder, args.rows)
    mb = svm.stat().st_size / 1e6
    print(
        f"files: {svm.name} {mb:.0f} MB, {vw.name} {vw.stat().st_size / 1e6:.0f} MB "
        f"({args.rows} rows; written in {time.perf_counter() - t:.0f} s)"
    )
    subprocess.run([PY, "-m", "olearn", "warmup"], env=ENV, check=True, capture_output=True)
    if args.compare_with:
        print(f"\n## before / after (best of {args.repeats} in-process, 2 rounds of processes)")
        print(f"  load average before: {os.getloadavg()[0]:.2f}")
        compare_versions(svm, vw, args.compare_with, 2, args.repeats)
        return

    print(f"\n## parse throughput (in-process, warm; best of {args.repeats} interleaved rounds)")
    print(f"  load average before: {os.getloadavg()[0]:.2f}")
    for name, by_threads in parse_rates(svm, vw, args.repeats):
        for threads, (wall, cpu) in sorted(by_threads.items()):
            print(f"  {name:36s} {threads} thr {wall:6.0f} MB/s wall {cpu:6.0f} MB/s CPU")
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    print("\n## where the time goes (one thread)")
    for name, wall, cpu in parse_stages(svm, vw, args.repeats):
        print(f"  {name:46s} {wall:6.0f} MB/s wall {cpu:6.0f} MB/s CPU")
    if args.parse_only:
        return

    print(f"\n## whole process (best of {args.repeats})")
    model = folder / "m.olm"
    olearn = [PY, "-m", "olearn", "train", "pa", "-o", str(model), "--quiet"]
    rows = [
        ("olearn train pa (svmlight, scan for width and labels)", olearn + [str(svm)]),
        (
            "olearn train pa (svmlight, --n-features --task given)",
            olearn + [str(svm), "--n-features", str(2**20), "--task", "binary"],
        ),
        ("olearn train pa (vw, --bits 20)", olearn + [str(vw), "--bits", "20"]),
        (
            "olearn train pa (vw, --bits 20 --task binary)",
            olearn + [str(vw), "--bits", "20", "--task", "binary"],
        ),
        (
            "sklearn load_svmlight_file + PA-I (SGDClassifier pa1) one pass",
            [
                PY,
                "-c",
                "import numpy as np, scipy.sparse as sp\n"
                "from sklearn.datasets import load_svmlight_file\n"
                "from sklearn.linear_model import SGDClassifier\n"
                f"X, y = load_svmlight_file({str(svm)!r}, n_features=2**20)\n"
                "# its loader returns int64 indices that its own estimators refuse\n"
                "X = sp.csr_matrix((X.data, X.indices.astype(np.int32), "
                "X.indptr.astype(np.int32)), shape=X.shape)\n"
                "SGDClassifier(loss='hinge', penalty=None, learning_rate='pa1', eta0=1.0, "
                "max_iter=1, tol=None).fit(X, y)",
            ],
        ),
    ]
    if vowpal_available():
        base = [PY, "-m", "vowpalwabbit", "-d", str(vw), "-b", "20", "--quiet"]
        rows.append(("python -m vowpalwabbit (squared loss, default)", base))
        rows.append(
            (
                "python -m vowpalwabbit --loss_function hinge --binary",
                base + ["--loss_function", "hinge", "--binary"],
            )
        )
    else:
        print("  (vowpalwabbit is not installed: no VW rows)")
    for name, command in rows:
        seconds, rss = best_of(command, args.repeats)
        print(f"  {name:58s} {seconds:6.2f} s  {mb / seconds:6.0f} MB/s  peak {rss / 1024:5.0f} MB")

    print("\n## start-up (best of 5)")
    tiny = folder / "tiny.svm"
    with open(svm, "rb") as src:
        tiny.write_bytes(b"".join(next(src) for _ in range(100)))
    help_s, _ = best_of([PY, "-m", "olearn", "--help"], 5)
    print(f"  olearn --help                         {help_s:.3f} s")
    tiny_s, _ = best_of([PY, "-m", "olearn", "train", "arow", str(tiny), "-o", str(model)], 5)
    print(f"  olearn train arow (100 lines, warm)   {tiny_s:.3f} s")
    imports, _ = best_of([PY, "-c", "import sklearn.base, numba"], 5)
    print(f"  (python -c 'import sklearn.base, numba': {imports:.3f} s)")

    print("\n## peak memory of olearn train against file size")
    size = svm.stat().st_size
    factor = 1
    while True:
        path = svm if factor == 1 else folder / f"big{factor}.svm"
        if factor > 1:
            with open(path, "wb") as out:
                for _ in range(factor):
                    with open(svm, "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 24)
        command = olearn + [str(path), "--n-features", str(2**20), "--task", "binary"]
        seconds, rss = peak_rss(command)
        print(
            f"  {path.stat().st_size / 1e9:5.2f} GB  {seconds:6.1f} s  "
            f"{path.stat().st_size / 1e6 / seconds:5.0f} MB/s  peak RSS {rss / 1024:5.0f} MB"
        )
        if factor > 1:
            path.unlink()
        if size * factor >= args.big_gb * 1e9:
            break
        factor *= 2


if __name__ == "__main__":
    main()
