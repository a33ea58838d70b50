"""Built-in kernels, each a function of ``p = x·z``, ``‖x‖²`` and ``‖z‖²``.

Writing every built-in kernel through the inner product lets the loop compute all inner
products of a row with the support vectors at once (one matrix-vector product) and lets
merging update the Gram matrix of a merged vector exactly, by linearity (``budget.py``).

Kernel parameters reach compiled code as the float array ``kp = [gamma, degree, coef0]``
(scikit-learn's names):

* linear: ``k(x, z) = x·z``;
* polynomial: ``k(x, z) = (γ·x·z + coef0)^degree``;
* RBF: ``k(x, z) = exp(−γ‖x − z‖²)`` with ``‖x − z‖² = ‖x‖² + ‖z‖² − 2x·z`` clipped at 0
  (rounding may make it slightly negative for equal vectors).

A user-supplied kernel (code ``USER``) is a compiled function ``k(x, z)`` of two dense rows;
it is called directly by the loop, not through this module.
"""

import math

import numba

LINEAR, POLY, RBF, USER = 0, 1, 2, 3
KERNELS = {"linear": LINEAR, "poly": POLY, "rbf": RBF}
KP_GAMMA, KP_DEGREE, KP_COEF0 = range(3)


@numba.njit(cache=True)
def from_dot(code, p, sq_x, sq_z, kp):
    """``k(x, z)`` from ``p = x·z`` and the squared norms, for a built-in kernel ``code``."""
    if code == RBF:
        d2 = sq_x + sq_z - 2.0 * p
        if d2 < 0.0:
            d2 = 0.0
        return math.exp(-kp[KP_GAMMA] * d2)
    if code == POLY:
        return (kp[KP_GAMMA] * p + kp[KP_COEF0]) ** kp[KP_DEGREE]
    return p
