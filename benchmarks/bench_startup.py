"""Start-up and whole-process time of the ``olearn`` command, side by side with Vowpal Wabbit.

Run: ``PYTHONPATH=src python benchmarks/bench_startup.py [--data /tmp/olearn-bench-io]
[--rounds 7] [--compare-with OLD_SRC] [--no-big] [--only tiny|whole]``

* tiny: a warm ``olearn train arow`` on the first 100 lines of the core sparse set, and
  ``olearn --help``: fresh processes, wall and CPU (user + system, from ``wait4``) medians.
  With ``--compare-with OLD_SRC`` (a folder holding the ``olearn`` package of an earlier
  commit, e.g. from ``git worktree add``) the old and the current sources alternate process
  by process, and the two model files are compared byte for byte.
* whole: ``olearn train pa`` on the 424 MB svmlight file (``--n-features 2^20 --task binary``)
  against ``python -m vowpalwabbit -d sparse.vw -b 20 --loss_function hinge --binary`` on
  the VW-style file with the same numbers, without and with ``-f MODEL`` (olearn always
  writes its model), alternating; then the same on the files repeated 4× (1.7 GB, written
  next to them and removed afterwards unless ``--keep-big``).

The data files are those of ``bench_io.py`` (written if missing into ``--data``). Every number
is a median of ``--rounds`` fresh processes, warm caches (``olearn warmup`` and
``compileall`` run first); the load average is printed before and after. Nothing else is
written.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
PY = sys.executable


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one fresh process."""
    import time

    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    error = child.stderr.read().decode()
    child.stderr.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({child.returncode}): {error[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def alternate(cases: dict[str, tuple[list[str], dict]], rounds: int) -> dict[str, tuple]:
    """Median wall and CPU of each case, the cases alternating process by process."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (command, env) in cases.items():
            times[name].append(timed(command, env))
    return {
        name: (
            statistics.median(w for w, _ in runs),
            statistics.median(c for _, c in runs),
            min(w for w, _ in runs),
        )
        for name, runs in times.items()
    }


def environment(src: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(src)}


def commit(src: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def warm(src: Path) -> None:
    """Compiled code in Numba's cache, and bytecode in ``__pycache__`` (as an installed
    package has it: with ``PYTHONDONTWRITEBYTECODE`` set and stale ``.pyc`` files, every
    process would compile olearn's modules from source, ≈ 60 ms)."""
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(src / "olearn")], check=True, capture_output=True
    )
    subprocess.run(
        [PY, "-m", "olearn", "warmup"], env=environment(src), check=True, capture_output=True
    )


def tiny_section(folder: Path, svm: Path, args) -> None:
    tiny = folder / "tiny.svm"
    with open(svm, "rb") as src:
        tiny.write_bytes(b"".join(next(src) for _ in range(100)))
    sources = {"current": ROOT / "src"}
    if args.compare_with:
        sources = {"before": Path(args.compare_with), **sources}
    for src in sources.values():
        warm(src)
    cases = {}
    for label, src in sources.items():
        model = folder / f"tiny-{label}.olm"
        train = [PY, "-m", "olearn", "train", "arow", str(tiny), "-o", str(model), "--quiet"]
        cases[f"olearn train arow, 100 lines ({label})"] = (train, environment(src))
        cases[f"olearn --help ({label})"] = ([PY, "-m", "olearn", "--help"], environment(src))
    print(f"\n## start-up: medians of {args.rounds} fresh processes, warm cache")
    print(f"load average before: {load()}")
    results = alternate(cases, args.rounds)
    print("| command | wall (median) | wall (best) | CPU (median) |")
    print("|---|---|---|---|")
    for name, (wall, cpu, best) in results.items():
        print(f"| `{name}` | {wall:.3f} s | {best:.3f} s | {cpu:.3f} s |")
    print(f"load average after: {load()}")
    if args.compare_with:
        same = (folder / "tiny-before.olm").read_bytes() == (
            folder / "tiny-current.olm"
        ).read_bytes()
        print(f"model files byte-identical: {same}")


def vowpal_available() -> bool:
    done = subprocess.run([PY, "-m", "vowpalwabbit", "--help"], capture_output=True)
    return done.returncode == 0


def whole_section(folder: Path, svm: Path, vw: Path, args) -> None:
    env = environment(ROOT / "src")
    warm(ROOT / "src")
    if not vowpal_available():
        print("\n(vowpalwabbit is not installed: pip install vowpalwabbit for the comparison)")
    sizes = [(svm, vw)]
    big = []
    if args.big:
        big = [folder / "big.svm", folder / "big.vw"]
        for small, path in zip((svm, vw), big, strict=True):
            if not path.exists():
                with open(path, "wb") as out:
                    for _ in range(4):
                        with open(small, "rb") as src:
                            shutil.copyfileobj(src, out, 1 << 24)
        sizes.append(tuple(big))
    model = folder / "whole.olm"
    try:
        for data_svm, data_vw in sizes:
            mb = data_svm.stat().st_size / 1e6
            cases = {
                "olearn train pa (svmlight, --n-features 2^20 --task binary)": (
                    [
                        PY,
                        "-m",
                        "olearn",
                        "train",
                        "pa",
                        str(data_svm),
                        "-o",
                        str(model),
                        "--quiet",
                        "--n-features",
                        str(2**20),
                        "--task",
                        "binary",
                    ],
                    env,
                ),  # fmt: skip
                "olearn train pa (VW text, --bits 20 --task binary)": (
                    [
                        PY,
                        "-m",
                        "olearn",
                        "train",
                        "pa",
                        str(data_vw),
                        "-o",
                        str(model),
                        "--quiet",
                        "--bits",
                        "20",
                        "--task",
                        "binary",
                    ],
                    env,
                ),  # fmt: skip
            }
            if vowpal_available():
                vw = [PY, "-m", "vowpalwabbit", "-d", str(data_vw), "-b", "20", "--quiet",
                      "--loss_function", "hinge", "--binary"]  # fmt: skip
                cases["python -m vowpalwabbit (VW text, -b 20, hinge, --binary)"] = (vw, env)
                # olearn always writes its model (-o is required); this one does too
                cases["python -m vowpalwabbit ... -f MODEL (writes its model)"] = (
                    [*vw, "-f", str(folder / "whole.vw-model")],
                    env,
                )
            print(f"\n## whole process, {mb:.0f} MB: medians of {args.rounds} alternating runs")
            print(f"load average before: {load()}")
            results = alternate(cases, args.rounds)
            vw_walls = [r[0] for n, r in results.items() if "vowpalwabbit" in n]
            print(
                "| command | wall (median) | wall (best) | CPU (median) | MB/s | vs VW | vs VW -f |"
            )
            print("|---|---|---|---|---|---|---|")
            for name, (wall, cpu, best) in results.items():
                ratios = " | ".join(f"{v / wall:.2f}×" for v in vw_walls) or "— | —"
                print(
                    f"| `{name}` | {wall:.2f} s | {best:.2f} s | {cpu:.2f} s | "
                    f"{mb / wall:.0f} | {ratios} |"
                )
            print(f"load average after: {load()}")
    finally:
        (folder / "whole.vw-model").unlink(missing_ok=True)
        if not args.keep_big:
            for path in big:
                path.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder of bench_io.py's sparse.svm and sparse.vw")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--compare-with", metavar="OLD_SRC")
    parser.add_argument("--only", choices=("tiny", "whole"))
    parser.add_argument("--no-big", dest="big", action="store_false", help="skip the 1.7 GB")
    parser.add_argument("--keep-big", action="store_true", help="keep the 1.7 GB files")
    args = parser.parse_args()
    folder = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="olearn-startup-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        svm, vw = folder / "sparse.svm", folder / "sparse.vw"
        if not (svm.exists() and vw.exists()):
            from bench_io import write_files

            write_files(folder, args.rows)
        print(f"olearn {commit(ROOT)}; python {sys.version.split()[0]}")
        if args.only in (None, "tiny"):
            with tempfile.TemporaryDirectory(prefix="olearn-tiny-") as tiny:
                tiny_section(Path(tiny), svm, args)
        if args.only in (None, "whole"):
            whole_section(folder, svm, vw, args)
    finally:
        if not args.data:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
