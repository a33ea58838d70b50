"""Compile the compiled loops' specialisations a user's calls take, once (``olearn warmup``,
``olearn.warmup()``), group by group, saying what compiles and how long it took.

Numba compiles a loop at its first call for each kind of input and caches the machine code on
disk; a later process loads it in milliseconds. Warming up makes the calls users make on tiny
inputs of every kind the library and the command line read: each linear estimator family's
fit, partial_fit (a chunk, one row), scores, probabilities and one-event calls on dense rows
and CSR, the other input forms, the kernel learners, the sequence tagger, and the command
line's own path (the text readers and the models it trains without scikit-learn), so that the
first real run starts at once. ``tests/test_install.py`` runs a newcomer's calls after it and
fails on any that compiles.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np


def _inputs() -> list:
    """The kinds of rows the loops compile for: dense float64, CSR with int32 and int64
    indices (six rows: a chunk of at least three values per weight takes ``partial_fit``'s
    short path)."""
    import scipy.sparse as sp

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.0], [0.0, 0.5], [1.0, 0.5]])
    inputs = [X]
    for index_type in (np.int32, np.int64):
        csr = sp.csr_matrix(X)
        csr.indices = csr.indices.astype(index_type)
        csr.indptr = csr.indptr.astype(index_type)
        inputs.append(csr)
    return inputs


def _calls(model, X, y) -> None:
    """A user's calls on a model: fit, partial_fit of a chunk and of one row, the scores
    (and probabilities), and the one-event calls."""
    model.fit(X, y)
    model.partial_fit(X, y)
    model.partial_fit(X[:1], y[:1])
    model.predict(X)
    for method in ("decision_function", "predict_proba"):
        if hasattr(model, method):
            getattr(model, method)(X)
    model.learn_one({0: 1.0}, y[0])
    model.predict_one({1: 0.5})
    if hasattr(model, "predict_proba_one"):
        model.predict_proba_one({1: 0.5})


def _training() -> None:
    from olearn import engine
    from olearn.estimators import (
        AROWClassifier,
        AROWRegressor,
        PassiveAggressiveClassifier,
        PassiveAggressiveRegressor,
        PerceptronClassifier,
        SGDRegressor,
        UniclassPA,
    )

    # binary models keep one row, multiclass ones feature-major rows: both layouts, each
    # representation (first-order with and without averaging sums, diagonal, full)
    classifiers = [
        PassiveAggressiveClassifier(),
        PerceptronClassifier(average=True),
        AROWClassifier(covariance="diagonal"),
        AROWClassifier(covariance="full"),
    ]
    for y in (np.array([0, 1, 1, 0, 1, 0]), np.array([0, 1, 2, 0, 1, 2])):
        for model in classifiers:
            for X in _inputs():
                _calls(model, X, y)
    for model in classifiers[:3]:  # a first event's string keys, hashed (not at D × D)
        type(model)(**model.get_params()).learn_one({"word": 1.0}, 1)
    targets = np.array([0.5, -1.0, 2.0, 0.0, 1.5, -0.5])
    for model in (PassiveAggressiveRegressor(), AROWRegressor(), SGDRegressor()):
        for X in _inputs():
            _calls(model, X, targets)
    X = _inputs()[0]
    UniclassPA().fit(X).predict(X)
    assert engine.run.signatures


def _other_forms() -> None:
    """The other forms users have, converted or read by loops of their own: float32 rows,
    column-major rows (a DataFrame's), COO and CSC matrices, one-row ones among them."""
    import scipy.sparse as sp

    from olearn.estimators import AROWClassifier, PassiveAggressiveClassifier

    X = _inputs()[0]
    csr = sp.csr_matrix(X)
    strided = np.repeat(X, 2, axis=1)[:, ::2]  # neither C nor F order (a DataFrame's view)
    forms = [X.astype(np.float32), np.asfortranarray(X), strided, csr.astype(np.float32),
             csr.tocoo(), csr.tocsc()]  # fmt: skip
    y = np.array([0, 1, 1, 0, 1, 0])
    models = (PassiveAggressiveClassifier(), AROWClassifier(), AROWClassifier(covariance="full"))
    for model in models:
        for data in forms:
            model.fit(data, y)
            model.partial_fit(data, y)
            model.predict(data)
        for one in (csr[:1].tocoo(), csr[:1].tocsc()):
            model.partial_fit(one, y[:1])
            model.predict(one)


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
    ("linear models (dense and sparse, binary, multiclass, regression, one-by-one)", _training),
    ("linear models on other input forms (float32, column-major, COO, CSC)", _other_forms),
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
