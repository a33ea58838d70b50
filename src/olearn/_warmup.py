"""Compile every specialisation of the compiled loops once (``olearn warmup``,
``olearn.warmup()``), group by group, saying what compiles and how long it took.

Numba compiles a loop at its first call for each kind of input and caches the machine code on
disk; a later process loads it in milliseconds. Warming up calls every loop on tiny inputs of
every kind the library and the command line use: the estimators' dense and sparse paths, the
kernel learners, the sequence tagger, and the command line's own path (the text readers and
the models it trains without scikit-learn), so that the first real run starts at once.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np


def _training() -> None:
    import scipy.sparse as sp

    from olearn import engine
    from olearn.estimators import AROWClassifier, PerceptronClassifier

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    inputs = [X]
    for index_type in (np.int32, np.int64):
        csr = sp.csr_matrix(X)
        csr.indices = csr.indices.astype(index_type)
        csr.indptr = csr.indptr.astype(index_type)
        inputs.append(csr)
    # binary models keep one row; multiclass ones keep feature-major rows: both layouts,
    # with and without diagonal variances and averaging sums
    for y in (np.array([0, 1, 1]), np.array([0, 1, 2])):
        models = [
            AROWClassifier(covariance="diagonal"),
            AROWClassifier(covariance="full"),
            PerceptronClassifier(average=True),
        ]
        for model in models:
            for data in inputs:
                model.fit(data, y)
            model.learn_one({0: 1.0}, 1)
    assert engine.run.signatures


def _probabilities() -> None:
    from olearn.estimators import AROWClassifier

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    AROWClassifier().fit(X, np.array([0, 1, 2])).predict_proba(X)


def _kernels() -> None:
    from olearn import kernels

    kernels.warmup()


def _structured() -> None:
    from olearn.structured.tagger import SequenceTagger

    sentences = [["a", "b", "c"], ["b", "a"]]
    tags = [["X", "Y", "X"], ["Y", "X"]]
    for options in ({}, {"k_best": 3}, {"rule": "AROW"}, {"rule": "perceptron"}):
        SequenceTagger(n_bits=4, **options).fit(sentences, tags).predict(sentences)


#: the command line's inputs: file name -> its text
_FILES = {
    "binary.svm": "1 1:0.5 3:1\n-1 2:1\n1 1:1 2:0.5\n",
    "multiclass.svm": "1 1:0.5 3:1\n2 2:1\n3 1:1 2:0.5\n",
    "regression.svm": "0.5 1:0.5 3:1\n-1.5 2:1\n2.25 1:1 2:0.5\n",
    "binary.vw": "1 |a x y:0.5 |b z\n-1 |a w\n1 |b z:2\n",
}

#: (algorithm and options, file) trained and then predicted through ``olearn.cli.main``
_COMMANDS = (
    (["arow"], "binary.svm"),
    (["arow", "--covariance", "full"], "binary.svm"),
    (["perceptron", "--average"], "binary.svm"),
    (["pa"], "binary.svm"),
    (["arow"], "multiclass.svm"),
    (["arow", "--covariance", "full"], "multiclass.svm"),
    (["perceptron", "--average"], "multiclass.svm"),
    (["pa"], "regression.svm"),
    (["arow"], "regression.svm"),
    (["arow"], "binary.vw"),
    (["perceptron", "--average"], "binary.vw"),
)


def _command_line() -> None:
    import olearn.io
    from olearn.cli import main

    olearn.io.warmup()
    with tempfile.TemporaryDirectory(prefix="olearn-warmup-") as folder:
        for name, text in _FILES.items():
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(text)
        model = os.path.join(folder, "model.olm")
        output = os.path.join(folder, "predictions.txt")
        for algorithm, name in _COMMANDS:
            data = os.path.join(folder, name)
            for argv in (
                ["train", *algorithm, data, "-o", model, "--quiet"],
                ["predict", model, data, "-o", output, "--quiet"],
            ):
                if main(argv) != 0:
                    raise RuntimeError(f"warm-up failed: olearn {' '.join(argv)}")


#: (what is compiled, the function that calls it on every kind of input)
GROUPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("training loops (dense and sparse input, binary, multiclass, one-by-one)", _training),
    ("class probabilities of the Gaussian multiclass models", _probabilities),
    ("kernel learners", _kernels),
    ("sequence tagger", _structured),
    ("command line: text readers and training without scikit-learn", _command_line),
)


def warmup(*, progress: bool = True) -> float:
    """Compile (or load from the disk cache) every compiled loop, group by group; with
    ``progress`` write one line per group to standard error. Returns the seconds taken."""
    from olearn import _compile, _notice

    del _compile  # imported for its side effect: the compile listener is installed
    out = sys.stderr
    started = time.perf_counter()
    if progress:
        print(
            "olearn: warming up (each group compiles once, later runs load it from the disk cache)",
            file=out,
            flush=True,
        )
    for text, function in GROUPS:
        if progress:
            print(f"  {text} ...", end="", file=out, flush=True)
        tic = time.perf_counter()
        compiled = _notice.state.compiled
        with _notice.muted():
            function()
        if progress:
            how = "compiled" if _notice.state.compiled > compiled else "cached"
            print(f" {time.perf_counter() - tic:.1f} s ({how})", file=out, flush=True)
    return time.perf_counter() - started
