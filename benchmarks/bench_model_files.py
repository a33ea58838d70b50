"""How big are model files? Sizes on disk (and save / load times) of typical models.

* PA trained by the command line on the 40-line VW fixture (``tests/golden/small.vw``) with
  ``--bits 20`` and ``--bits 28``: hashed weights that are almost all zero;
* PA on the benchmark's sparse set (``datasets.sparse_text``, 2^20 features, ``--rows`` rows):
  weights that are mostly nonzero;
* the SequenceTagger (PA-I, averaged, 2^18 feature rows) on UD English EWT after ``--passes``
  passes, saved before and after ``predict`` (which builds the averaged-weights cache).

Usage::

    PYTHONPATH=src python benchmarks/bench_model_files.py [--rows 20000] [--passes 3]
        [--data ../shared/data/ud-english-ewt] [--skip-bits-28]

Run it with another olearn on ``PYTHONPATH`` to compare versions (the table in
benchmarks/README.md, "How big are model files?", was made that way).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SMALL_VW = HERE.parent / "tests" / "golden" / "small.vw"
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "ud-english-ewt"


def _mib(n: int) -> str:
    return f"{n:,} B" if n < 10_000 else f"{n / 2**20:,.2f} MiB"


def _timed(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def cli_pa(folder: Path, bits: int) -> tuple[int, float, float]:
    """File size after ``olearn train pa small.vw --bits B``; save and load times."""
    import olearn

    path = folder / f"pa{bits}.olm"
    command = [sys.executable, "-m", "olearn", "train", "pa", str(SMALL_VW)]
    command += ["--bits", str(bits), "-o", str(path), "--quiet"]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    olearn.load(path)  # the first load imports the estimator's modules
    model, load_s = _timed(lambda: olearn.load(path))
    _, save_s = _timed(lambda: olearn.save(model, path))
    return path.stat().st_size, save_s, load_s


def sparse_pa(folder: Path, rows: int) -> tuple[int, float, float, float]:
    sys.path.insert(0, str(HERE))
    import datasets

    import olearn

    X, y = datasets.sparse_text(n_samples=rows)
    model = olearn.PassiveAggressiveClassifier().fit(X, y)
    path = folder / "pa-sparse.olm"
    _, save_s = _timed(lambda: olearn.save(model, path))
    _, load_s = _timed(lambda: olearn.load(path))
    nonzero = np.count_nonzero(model.weights_) / model.weights_.size
    return path.stat().st_size, save_s, load_s, nonzero


def tagger(folder: Path, data: Path, passes: int) -> tuple[int, int, float, float, float]:
    import olearn
    from olearn.structured.readers import read_conllu

    train = list(read_conllu(data / "en_ewt-ud-train.conllu.gz"))
    test = list(read_conllu(data / "en_ewt-ud-test.conllu.gz"))
    X, y = [s[0] for s in train], [s[1] for s in train]
    model = olearn.SequenceTagger(max_iter=passes, random_state=0).fit(X, y)
    path = folder / "tagger.olm"
    _, save_s = _timed(lambda: olearn.save(model, path))
    before_predict = path.stat().st_size
    model.predict([s[0] for s in test])
    olearn.save(model, path)
    _, load_s = _timed(lambda: olearn.load(path))
    nonzero = np.count_nonzero(model.weights_) / model.weights_.size
    return before_predict, path.stat().st_size, save_s, load_s, nonzero


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--skip-bits-28", action="store_true")
    args = parser.parse_args()
    import olearn
    from olearn.io import model_file

    print(f"olearn {olearn.__version__}, model format {model_file.FORMAT_VERSION}")
    print("| model | file size | save (s) | load (s) | note |")
    print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for bits in (20,) if args.skip_bits_28 else (20, 28):
            size, save_s, load_s = cli_pa(folder, bits)
            print(f"| PA, small.vw, --bits {bits} | {_mib(size)} | {save_s:.2f} | {load_s:.2f} | "
                  f"2^{bits} + 1 weights |", flush=True)  # fmt: skip
        size, save_s, load_s, nonzero = sparse_pa(folder, args.rows)
        note = f"{100 * nonzero:.0f} % of the weights nonzero"
        print(f"| PA, sparse set, {args.rows:,} rows × 2^20 | {_mib(size)} | {save_s:.2f} | "
              f"{load_s:.2f} | {note} |", flush=True)  # fmt: skip
        if args.data.exists():
            before, after, save_s, load_s, nonzero = tagger(folder, args.data, args.passes)
            print(f"| tagger, EWT, {args.passes} passes | {_mib(before)} | {save_s:.2f} | "
                  f"{load_s:.2f} | {100 * nonzero:.0f} % of the weights nonzero |")  # fmt: skip
            print(f"| the same after `predict` | {_mib(after)} | | | |")


if __name__ == "__main__":
    main()
