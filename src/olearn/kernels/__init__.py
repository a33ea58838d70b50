"""Kernel (nonparametric) online learning: support-vector expansions on an optional budget.

``f_r(x) = Σ_i A[i, r]·k(x_i, x) + b_r·bias`` over stored support vectors ``x_i`` (seed 004;
ALGORITHMS.md, kernel section). The modules:

* ``functions``: the built-in kernels (linear, polynomial, RBF) as functions of the inner
  product and the two squared norms, selected by an integer code;
* ``expansion``: storage of the support vectors (dense rows, or sparse rows in a pool) and the
  primitives the loop needs (inner products with a row, adding, swap-removing, compaction);
* ``budget``: budget maintenance (removal, projection, merging; Wang, Crammer, Vucetic 2012);
* ``loop``: the compiled online loop (and the decision function of user-supplied kernels;
  built-in kernels predict with BLAS products in ``estimators/kernel.py``).

Everything compiled here is cached on disk under olearn's policy (``olearn._compile``): the
import below installs it before any ``@njit`` of this package runs.
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)


def warmup() -> None:
    """Compile (or load from the disk cache) the kernel loop and decision function for dense
    and sparse input, and the event reading of ``learn_one``/``predict_one``. ``olearn
    warmup`` should call this too."""
    import numpy as np
    import scipy.sparse as sp

    from olearn.estimators.kernel import BudgetedSGDClassifier

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 1, 1])
    for data in (X, sp.csr_matrix(X)):
        model = BudgetedSGDClassifier(budget=2).fit(data, y)
        model.predict(data)
        for event in ({0: 1.0, "a": 1.0}, (np.array([1]), np.array([1.0]))):
            model.learn_one(event, 1)
            model.predict_one(event)
