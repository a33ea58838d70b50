"""Compile every specialisation of the compiled loops once (``olearn warmup``)."""

import numpy as np
import scipy.sparse as sp


def warmup() -> None:
    from olearn import engine
    from olearn.estimators import AROWClassifier

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([0, 1])
    for covariance in ("diagonal", "full"):
        model = AROWClassifier(covariance=covariance)
        for data in (X, sp.csr_matrix(X)):
            model.fit(data, y)
        for index_type in (np.int32, np.int64):
            csr = sp.csr_matrix(X)
            csr.indices = csr.indices.astype(index_type)
            csr.indptr = csr.indptr.astype(index_type)
            model.fit(csr, y)
        model.learn_one({0: 1.0}, 1)
    assert engine.run.signatures
