"""Data in, models out: parse speed, whole-process training from text, start-up, memory.

Run: ``PYTHONPATH=src python benchmarks/bench_io.py [--rows N] [--big-gb G]``

* writes the core benchmark's sparse set (``datasets.sparse_text``: 200,000 × 2²⁰, ~80
  nonzeros a row) as svmlight (scikit-learn's ``dump_svmlight_file``, values as ``%.16g``) and
  as VW-style text (``label |f index:value ...``, the same numbers) into a temporary folder;
* parse throughput (MB/s, in-process, warm): ``olearn.io.load_svmlight``, ``load_vw`` and
  scikit-learn's ``load_svmlight_file``;
* whole-process wall time (fresh processes, warm caches, best of 3): ``olearn train pa`` on
  either file, ``python -m vowpalwabbit`` on the VW file (if installed), and a process that
  runs scikit-learn's ``load_svmlight_file`` + one-pass ``PassiveAggressiveClassifier.fit``;
* start-up: ``olearn --help`` and ``olearn train`` on a 100-line file (warm cache);
* memory: peak RSS of ``olearn train`` on files of 1×, 2×, 4× … the svmlight file (the file
  repeated) up to ``--big-gb``, from ``resource.getrusage`` of the child.

Nothing is written outside the temporary folder, which is removed at the end.
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
sys.path.insert(0, str(ROOT / "src"))

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
PY = sys.executable


def write_files(folder: Path, rows: int) -> tuple[Path, Path]:
    from datasets import sparse_text
    from sklearn.datasets import dump_svmlight_file

    X, y = sparse_text(n_samples=rows)
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


def parse_rates(svm: Path, vw: Path) -> dict[str, float]:
    from sklearn.datasets import load_svmlight_file

    from olearn.io import load_svmlight, load_vw

    size = svm.stat().st_size / 1e6
    size_vw = vw.stat().st_size / 1e6
    load_svmlight(svm, n_features=2**20)  # compile / load from cache
    load_vw(vw, bits=20)
    rates = {}
    for name, call, mb in [
        ("olearn load_svmlight", lambda: load_svmlight(svm, n_features=2**20), size),
        ("olearn load_vw (hashing, 2^20)", lambda: load_vw(vw, bits=20), size_vw),
        (
            "sklearn load_svmlight_file",
            lambda: load_svmlight_file(str(svm), n_features=2**20),
            size,
        ),
    ]:
        times = [_timed(call) for _ in range(2)]
        wall = min(t[0] for t in times)
        cpu = min(t[1] for t in times)
        rates[name] = (mb / wall, mb / cpu)
    return rates


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
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="olearn-bench-io-"))
    try:
        run(folder, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(folder: Path, args) -> None:
    t = time.perf_counter()
    svm, vw = write_files(folder, args.rows)
    mb = svm.stat().st_size / 1e6
    print(
        f"files: {svm.name} {mb:.0f} MB, {vw.name} {vw.stat().st_size / 1e6:.0f} MB "
        f"({args.rows} rows; written in {time.perf_counter() - t:.0f} s)"
    )
    subprocess.run([PY, "-m", "olearn", "warmup"], env=ENV, check=True, capture_output=True)

    print("\n## parse throughput (in-process, warm)")
    for name, (wall, cpu) in parse_rates(svm, vw).items():
        print(f"  {name:34s} {wall:6.0f} MB/s wall  {cpu:6.0f} MB/s CPU")

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
