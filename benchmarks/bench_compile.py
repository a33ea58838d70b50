"""Cold compile time (issue 11): the CPU time of a first ``fit`` in a fresh process with an
empty ``NUMBA_CACHE_DIR``, so that every compiled loop it needs is compiled.

Usage (from the repository root)::

    python benchmarks/bench_compile.py                          # this checkout, 3 rounds
    python benchmarks/bench_compile.py --against ../old --rounds 3

``--against`` names another checkout (its ``src`` is put first on ``PYTHONPATH``): the two
run alternately, one fresh process each, and the table gives the median of each. CPU time
(``time.process_time``) of import plus the first fit; other processes on a busy machine take
CPU from it but add little CPU time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

WORKLOADS = {
    "linear": "from olearn import PassiveAggressiveClassifier as A, AROWClassifier as B\n"
    "A().fit(X, y); B().fit(X, y)",
    "kernel": "from olearn import KernelPAClassifier as A\nA().fit(X, y)",
    "tagger": "from olearn import SequenceTagger\nfrom olearn.datasets import hmm\n"
    "S, Y, _ = hmm.make_hmm_sequences(n_sequences=30, random_state=0)\n"
    "SequenceTagger(rule='PA-I', max_iter=1, random_state=0, n_bits=10).fit(S, Y)",
}

PROGRAM = """
import time, warnings
import numpy as np
warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
X = rng.standard_normal((60, 5)); y = np.where(X[:, 0] > 0, 1, -1)
t = time.process_time()
{workload}
print(time.process_time() - t)
"""


def cold_seconds(checkout: Path, workload: str) -> float:
    """CPU seconds of one workload in a fresh process with an empty compile cache."""
    with tempfile.TemporaryDirectory(prefix="olearn-cold-") as cache:
        env = {
            **os.environ,
            "NUMBA_CACHE_DIR": cache,
            "OLEARN_COMPILE_NOTICE": "0",
            "PYTHONPATH": str(checkout / "src"),
        }
        program = PROGRAM.format(workload=WORKLOADS[workload])
        out = subprocess.run(
            [sys.executable, "-c", program], env=env, check=True, capture_output=True, text=True
        )
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append")
    args = parser.parse_args()
    checkouts = {"this": HERE.parent}
    if args.against is not None:
        checkouts["against"] = args.against.resolve()
    print("| workload | " + " | ".join(f"{name} (CPU s, median)" for name in checkouts) + " |")
    print("|---|" + "---|" * len(checkouts))
    for workload in args.only or WORKLOADS:
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        for _ in range(args.rounds):
            for name, checkout in checkouts.items():
                times[name].append(cold_seconds(checkout, workload))
        cells = " | ".join(
            f"{statistics.median(t):.1f} ({min(t):.1f}–{max(t):.1f})" for t in times.values()
        )
        print(f"| {workload} | {cells} |", flush=True)
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
