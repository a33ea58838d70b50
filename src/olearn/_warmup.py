"""Compile every specialisation of the compiled loops once (``olearn warmup``)."""

import numpy as np
import scipy.sparse as sp


def warmup() -> None:
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
    _warmup_kernels()
    _warmup_structured()


def _warmup_kernels() -> None:
    from olearn import kernels

    kernels.warmup()


def _warmup_structured() -> None:
    from olearn.structured.tagger import SequenceTagger

    sentences = [["a", "b", "c"], ["b", "a"]]
    tags = [["X", "Y", "X"], ["Y", "X"]]
    for options in ({}, {"k_best": 3}, {"rule": "AROW"}, {"rule": "perceptron"}):
        SequenceTagger(n_bits=4, **options).fit(sentences, tags).predict(sentences)
