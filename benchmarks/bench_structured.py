"""UPOS tagging of UD English EWT: olearn's SequenceTagger against CRFsuite.

Both learners get the same token features (``olearn.structured.features.word_features``
plus a bias feature for CRFsuite; olearn hashes them into 2^18 rows, CRFsuite keeps a
dictionary), the same training data (EWT train) and are evaluated on EWT test. Runs are
interleaved in one process, so the comparison is fair even on a busy machine.

Usage::

    PYTHONPATH=src python benchmarks/bench_structured.py [--passes 10] [--lbfgs-iterations 100]
        [--data ../shared/data/ud-english-ewt]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from olearn.structured.features import encode_sentences, word_features
from olearn.structured.metrics import sentence_accuracy, token_accuracy
from olearn.structured.readers import read_conllu
from olearn.structured.tagger import SequenceTagger

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ud-english-ewt"


def load(data: Path):
    train = list(read_conllu(data / "en_ewt-ud-train.conllu.gz"))
    test = list(read_conllu(data / "en_ewt-ud-test.conllu.gz"))
    return [s[0] for s in train], [s[1] for s in train], [s[0] for s in test], [s[1] for s in test]


def row(name, passes, seconds_per_pass, train_tokens, acc, sacc, tag_seconds, test_tokens, note):
    print(
        f"| {name} | {passes} | {seconds_per_pass:.2f} | "
        f"{train_tokens / seconds_per_pass / 1e3:,.0f}k | {100 * acc:.2f} | {100 * sacc:.2f} | "
        f"{test_tokens / tag_seconds / 1e3:,.0f}k | {note} |",
        flush=True,
    )


def run_olearn(name, params, X, y, Xt, yt, note=""):
    model = SequenceTagger(random_state=0, **params)
    model.fit(X, y)
    per_pass = float(np.mean(model._pass_seconds[1:] or model._pass_seconds))
    started = time.perf_counter()
    predicted = model.predict(Xt)
    tag_seconds = time.perf_counter() - started
    n_train = sum(map(len, X))
    n_test = sum(map(len, Xt))
    acc = token_accuracy(yt, predicted)
    # tagging split into feature extraction + hashing and decoding (Viterbi), averages of 3
    encode, decode = [], []
    for _ in range(3):
        started = time.perf_counter()
        model.predict_codes(Xt)
        total = time.perf_counter() - started
        started = time.perf_counter()
        model._encode_X(Xt)
        encode.append(time.perf_counter() - started)
        decode.append(total - encode[-1])
    if not note:
        note = (
            f"tagging: features {n_test / np.mean(encode) / 1e3:,.0f}k tok/s, "
            f"Viterbi {n_test / max(np.mean(decode), 1e-9) / 1e3:,.0f}k tok/s"
        )
    row(
        name,
        model.max_iter,
        per_pass,
        n_train,
        acc,
        sentence_accuracy(yt, predicted),
        tag_seconds,
        n_test,
        note,
    )
    return acc


def crfsuite_features(X):
    return [[[*word_features(tokens, i), "bias"] for i in range(len(tokens))] for tokens in X]


def run_crfsuite(name, algorithm, params, iterations, F, y, Ft, Xt, yt, note=""):
    import pycrfsuite

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.crfsuite")
        times = {}
        # Train twice (1 and `iterations` passes): the difference is the cost of the passes
        # alone, without CRFsuite's one-off feature dictionary construction.
        for n_iter in (1, iterations):
            trainer = pycrfsuite.Trainer(verbose=False)
            trainer.select(algorithm, "crf1d")
            trainer.set_params({**params, "max_iterations": n_iter})
            for xseq, yseq in zip(F, y, strict=True):
                trainer.append(xseq, yseq)
            started = time.perf_counter()
            trainer.train(path)
            times[n_iter] = time.perf_counter() - started
            iterations_done = (
                trainer.logparser.last_iteration.get("num", n_iter)
                if (trainer.logparser.last_iteration)
                else n_iter
            )
        per_pass = (times[iterations] - times[1]) / max(iterations - 1, 1)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        started = time.perf_counter()
        predicted = [tagger.tag(xseq) for xseq in crfsuite_features(Xt)]
        tag_seconds = time.perf_counter() - started
        tagger.close()
    n_train = sum(map(len, y))
    n_test = sum(map(len, yt))
    acc = token_accuracy(yt, predicted)
    row(
        name,
        iterations_done,
        per_pass,
        n_train,
        acc,
        sentence_accuracy(yt, predicted),
        tag_seconds,
        n_test,
        note,
    )
    return acc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--lbfgs-iterations", type=int, default=100)
    parser.add_argument("--skip-lbfgs", action="store_true")
    args = parser.parse_args()
    X, y, Xt, yt = load(args.data)
    n_train = sum(map(len, X))
    print(
        f"EWT: {len(X)} training sentences ({n_train} tokens), {len(Xt)} test sentences "
        f"({sum(map(len, Xt))} tokens)"
    )
    started = time.perf_counter()
    encode_sentences(X, word_features, 18)
    seconds = time.perf_counter() - started
    print(
        f"olearn feature extraction + hashing of train: {seconds:.2f}s "
        f"({n_train / seconds / 1e3:,.0f}k tokens/s), once per fit"
    )
    started = time.perf_counter()
    F = crfsuite_features(X)
    Ft = None
    print(f"CRFsuite feature strings of train: {time.perf_counter() - started:.2f}s")
    for warm in (dict(), dict(k_best=3), dict(rule="AROW")):  # compile / load from the cache
        SequenceTagger(max_iter=1, n_bits=4, **warm).fit(X[:5], y[:5]).predict(X[:5])
    print()
    print(
        "| learner | passes | s / pass | train tokens/s | token acc % | sentence acc % "
        "| tag tokens/s | note |"
    )
    print("|---|---|---|---|---|---|---|---|")
    P = args.passes
    run_olearn("olearn perceptron (averaged)", dict(rule="perceptron", max_iter=P), X, y, Xt, yt)
    run_crfsuite("CRFsuite ap (averaged perceptron)", "ap", {}, P, F, y, Ft, Xt, yt)
    run_olearn(
        "olearn PA-I C=1, prediction, √Hamming (= CRFsuite pa)",
        dict(rule="PA-I", update="prediction", cost="sqrt_hamming", max_iter=P),
        X,
        y,
        Xt,
        yt,
    )
    run_crfsuite(
        "CRFsuite pa type 1, c=1, error_sensitive, averaging",
        "pa",
        {"type": 1, "c": 1.0, "error_sensitive": 1, "averaging": 1},
        P,
        F,
        y,
        Ft,
        Xt,
        yt,
    )
    run_olearn(
        "olearn PA-I C=1, max-loss, Hamming (default)", dict(rule="PA-I", max_iter=P), X, y, Xt, yt
    )
    run_olearn("olearn PA-II C=1, max-loss", dict(rule="PA-II", max_iter=P), X, y, Xt, yt)
    run_olearn(
        "olearn k-best MIRA k=3, PA-I C=1, max-loss",
        dict(rule="PA-I", k_best=3, max_iter=P),
        X,
        y,
        Xt,
        yt,
    )
    run_olearn("olearn AROW r=1, max-loss", dict(rule="AROW", max_iter=P), X, y, Xt, yt)
    run_crfsuite("CRFsuite arow (variance 1, gamma 1)", "arow", {}, P, F, y, Ft, Xt, yt)
    if not args.skip_lbfgs:
        run_crfsuite(
            f"CRFsuite lbfgs c2=1 (≤{args.lbfgs_iterations} iterations)",
            "lbfgs",
            {"c1": 0.0, "c2": 1.0},
            args.lbfgs_iterations,
            F,
            y,
            Ft,
            Xt,
            yt,
        )


if __name__ == "__main__":
    main()
