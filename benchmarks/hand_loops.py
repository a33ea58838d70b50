"""Hand-written Numba loops: the plain reference every olearn rule is timed against.

Written as a competent user would write them for one problem: one function per rule and input
layout, the formula inline, no switches, no counters beyond the online mistakes. Each learns
exactly what the matching olearn estimator learns (the intercept is the weight of a constant
feature 1 that counts in ‖x‖² and has its own variance; Σ₀ = I), so the benchmark can check
that both arrive at the same model before comparing their speed.

Sparse loops take CSR arrays ``(data, indptr, indices)``, dense ones a C-contiguous ``X``;
``w``/``mu`` has ``d + 1`` entries (intercept last). Each returns the number of online
mistakes (rounds with ``y·s ≤ 0``).

The full-covariance loops keep Σ itself and update it literally (``Σ ← Σ − β gḡᵀ`` with
``g = Σx``), as the papers write it; olearn keeps a Cholesky factor of Σ⁻¹ instead, which
costs about the same and stays positive definite.

``*_separate_bias`` loops step the intercept separately, as scikit-learn does:
``b ← b + α·y``, not counted in ``‖x‖²`` and without a variance of its own.
``pa1_sparse_function_type`` takes the rule as a first-class function value (the dispatch
mechanism olearn did not choose) to measure its cost.
"""

import math

import numpy as np
from numba import njit

#: Variances never fall below this (olearn's floor for Σ₀ = I; exact CW on noisy data
#: otherwise shrinks them to zero and divides by v = 0).
FLOOR = 1e-12

# ------------------------------------------------------------------ first order, sparse


@njit(cache=True)
def perceptron_sparse(data, indptr, indices, y, w):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        for p in range(a, b):
            s += w[indices[p]] * data[p]
        if y[i] * s <= 0.0:
            mistakes += 1
            w[d] += y[i]
            for p in range(a, b):
                w[indices[p]] += y[i] * data[p]
    return mistakes


@njit(cache=True)
def averaged_perceptron_sparse(data, indptr, indices, y, w, acc):
    """Lazy averaging: ``acc = Σ_t t·Δw_t``; the average is ``((T + 1)w − acc) / T``."""
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        t = i + 1.0
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        for p in range(a, b):
            s += w[indices[p]] * data[p]
        if y[i] * s <= 0.0:
            mistakes += 1
            w[d] += y[i]
            acc[d] += y[i] * t
            for p in range(a, b):
                w[indices[p]] += y[i] * data[p]
                acc[indices[p]] += y[i] * t * data[p]
    return mistakes


@njit(cache=True)
def pa_sparse(data, indptr, indices, y, w):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        sq = 1.0
        for p in range(a, b):
            s += w[indices[p]] * data[p]
            sq += data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / sq
            w[d] += step
            for p in range(a, b):
                w[indices[p]] += step * data[p]
    return mistakes


@njit(cache=True)
def pa1_sparse(data, indptr, indices, y, w, C):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        sq = 1.0
        for p in range(a, b):
            s += w[indices[p]] * data[p]
            sq += data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * min(C, (1.0 - m) / sq)
            w[d] += step
            for p in range(a, b):
                w[indices[p]] += step * data[p]
    return mistakes


@njit(cache=True)
def pa2_sparse(data, indptr, indices, y, w, C):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        sq = 1.0
        for p in range(a, b):
            s += w[indices[p]] * data[p]
            sq += data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / (sq + 0.5 / C)
            w[d] += step
            for p in range(a, b):
                w[indices[p]] += step * data[p]
    return mistakes


@njit(cache=True)
def pa1_sparse_separate_bias(data, indptr, indices, y, w, C):
    """PA-I with the intercept ``w[d]`` stepped apart: ``b ← b + α·y``, ‖x‖² without it."""
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        sq = 0.0
        for p in range(a, b):
            s += w[indices[p]] * data[p]
            sq += data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0 and sq > 0.0:
            step = y[i] * min(C, (1.0 - m) / sq)
            w[d] += step
            for p in range(a, b):
                w[indices[p]] += step * data[p]
    return mistakes


@njit(cache=True)
def pa1_sparse_function_type(data, indptr, indices, y, w, rules, hp):
    """PA-I with the rule passed as a first-class function value (``rules[0]``)."""
    rule = rules[0]
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = w[d]
        sq = 1.0
        for p in range(a, b):
            s += w[indices[p]] * data[p]
            sq += data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        alpha, c = rule(m, sq, hp)
        if alpha != 0.0:
            step = y[i] * alpha
            w[d] += step
            for p in range(a, b):
                w[indices[p]] += step * data[p]
    return mistakes


# ------------------------------------------------------------------ first order, dense


@njit(cache=True)
def perceptron_dense(X, y, w):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        for j in range(d):
            s += w[j] * X[i, j]
        if y[i] * s <= 0.0:
            mistakes += 1
            w[d] += y[i]
            for j in range(d):
                w[j] += y[i] * X[i, j]
    return mistakes


@njit(cache=True)
def averaged_perceptron_dense(X, y, w, acc):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        t = i + 1.0
        s = w[d]
        for j in range(d):
            s += w[j] * X[i, j]
        if y[i] * s <= 0.0:
            mistakes += 1
            w[d] += y[i]
            acc[d] += y[i] * t
            for j in range(d):
                w[j] += y[i] * X[i, j]
                acc[j] += y[i] * t * X[i, j]
    return mistakes


@njit(cache=True)
def pa_dense(X, y, w):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        sq = 1.0
        for j in range(d):
            s += w[j] * X[i, j]
            sq += X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / sq
            w[d] += step
            for j in range(d):
                w[j] += step * X[i, j]
    return mistakes


@njit(cache=True)
def pa1_dense(X, y, w, C):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        sq = 1.0
        for j in range(d):
            s += w[j] * X[i, j]
            sq += X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * min(C, (1.0 - m) / sq)
            w[d] += step
            for j in range(d):
                w[j] += step * X[i, j]
    return mistakes


@njit(cache=True)
def pa2_dense(X, y, w, C):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        sq = 1.0
        for j in range(d):
            s += w[j] * X[i, j]
            sq += X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / (sq + 0.5 / C)
            w[d] += step
            for j in range(d):
                w[j] += step * X[i, j]
    return mistakes


@njit(cache=True)
def pa1_dense_separate_bias(X, y, w, C):
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        sq = 0.0
        for j in range(d):
            s += w[j] * X[i, j]
            sq += X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0 and sq > 0.0:
            step = y[i] * min(C, (1.0 - m) / sq)
            w[d] += step
            for j in range(d):
                w[j] += step * X[i, j]
    return mistakes


@njit(cache=True)
def pa1_dense_function_type(X, y, w, rules, hp):
    """PA-I with the rule passed as a function value (``rules[0]``), dense rows."""
    rule = rules[0]
    d = w.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = w[d]
        sq = 1.0
        for j in range(d):
            s += w[j] * X[i, j]
            sq += X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        alpha, c = rule(m, sq, hp)
        if alpha != 0.0:
            step = y[i] * alpha
            w[d] += step
            for j in range(d):
                w[j] += step * X[i, j]
    return mistakes


# ------------------------------------------------------------------ exact CW helpers


@njit(cache=True)
def exact_cw_alpha(m, v, phi):
    psi = 1.0 + 0.5 * phi * phi
    xi = 1.0 + phi * phi
    return max(0.0, (-m * psi + math.sqrt(0.25 * m * m * phi**4 + v * phi * phi * xi)) / (v * xi))


@njit(cache=True)
def exact_cw_precision_step(alpha, v, phi):
    """``αφ/√u`` with ``√u = 2v / (αvφ + √((αvφ)² + 4v))``."""
    avp = alpha * v * phi
    return alpha * phi * (avp + math.sqrt(avp * avp + 4.0 * v)) / (2.0 * v)


@njit(cache=True)
def scw2_alpha(m, v, phi, C):
    n = v + 0.5 / C
    phi2 = phi * phi
    gamma = phi * math.sqrt(phi2 * m * m * v * v + 4.0 * n * v * (n + v * phi2))
    return max(0.0, (gamma - (2.0 * m * n + phi2 * m * v)) / (2.0 * (n * n + n * v * phi2)))


# ------------------------------------------------------------------ diagonal, sparse
# Each loop: score and confidence in one pass, the rule's (α, c), then
# μ_j += α y σ_j x_j and σ_j ← σ_j / (1 + c σ_j x_j²) over the row and the intercept.


@njit(cache=True)
def sop_diagonal_sparse(data, indptr, indices, y, mu, sig):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
            step = y[i] * (1.0 - m) / (1.0 + v)
            mu[d] += step * sig[d]
            sig[d] = max(sig[d] / (1.0 + sig[d]), FLOOR)
            for p in range(a, b):
                j = indices[p]
                x = data[p]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def cw_variance_diagonal_sparse(data, indptr, indices, y, mu, sig, phi):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        bb = 1.0 + 2.0 * phi * m
        disc = bb * bb - 8.0 * phi * (m - phi * v)
        if disc <= 0.0:
            continue
        gamma = (-bb + math.sqrt(disc)) / (4.0 * phi * v)
        if gamma <= 0.0:
            continue
        step = y[i] * gamma
        c = 2.0 * gamma * phi
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for p in range(a, b):
            j = indices[p]
            x = data[p]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def cw_exact_diagonal_sparse(data, indptr, indices, y, mu, sig, phi):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = exact_cw_alpha(m, v, phi)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for p in range(a, b):
            j = indices[p]
            x = data[p]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def arow_diagonal_sparse(data, indptr, indices, y, mu, sig, r):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / (v + r)
            c = 1.0 / r
            mu[d] += step * sig[d]
            sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
            for p in range(a, b):
                j = indices[p]
                x = data[p]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def arow_diagonal_sparse_separate_bias(data, indptr, indices, y, mu, sig, r):
    """AROW with the intercept ``mu[d]`` stepped apart (``b ← b + α·y``, no variance)."""
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = 0.0
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0 and v > 0.0:
            alpha = (1.0 - m) / (v + r)
            step = y[i] * alpha
            c = 1.0 / r
            mu[d] += step
            for p in range(a, b):
                j = indices[p]
                x = data[p]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def scw1_diagonal_sparse(data, indptr, indices, y, mu, sig, phi, C):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = min(C, exact_cw_alpha(m, v, phi))
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for p in range(a, b):
            j = indices[p]
            x = data[p]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def scw2_diagonal_sparse(data, indptr, indices, y, mu, sig, phi, C):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        a, b = indptr[i], indptr[i + 1]
        s = mu[d]
        v = sig[d]
        for p in range(a, b):
            j = indices[p]
            s += mu[j] * data[p]
            v += sig[j] * data[p] * data[p]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = scw2_alpha(m, v, phi, C)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for p in range(a, b):
            j = indices[p]
            x = data[p]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


# ------------------------------------------------------------------ diagonal, dense


@njit(cache=True)
def sop_diagonal_dense(X, y, mu, sig):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
            step = y[i] * (1.0 - m) / (1.0 + v)
            mu[d] += step * sig[d]
            sig[d] = max(sig[d] / (1.0 + sig[d]), FLOOR)
            for j in range(d):
                x = X[i, j]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def cw_variance_diagonal_dense(X, y, mu, sig, phi):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        bb = 1.0 + 2.0 * phi * m
        disc = bb * bb - 8.0 * phi * (m - phi * v)
        if disc <= 0.0:
            continue
        gamma = (-bb + math.sqrt(disc)) / (4.0 * phi * v)
        if gamma <= 0.0:
            continue
        step = y[i] * gamma
        c = 2.0 * gamma * phi
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for j in range(d):
            x = X[i, j]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def cw_exact_diagonal_dense(X, y, mu, sig, phi):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = exact_cw_alpha(m, v, phi)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for j in range(d):
            x = X[i, j]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def arow_diagonal_dense(X, y, mu, sig, r):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            step = y[i] * (1.0 - m) / (v + r)
            c = 1.0 / r
            mu[d] += step * sig[d]
            sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
            for j in range(d):
                x = X[i, j]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def arow_diagonal_dense_separate_bias(X, y, mu, sig, r):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = 0.0
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0 and v > 0.0:
            step = y[i] * (1.0 - m) / (v + r)
            c = 1.0 / r
            mu[d] += step
            for j in range(d):
                x = X[i, j]
                mu[j] += step * sig[j] * x
                sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def scw1_diagonal_dense(X, y, mu, sig, phi, C):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = min(C, exact_cw_alpha(m, v, phi))
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for j in range(d):
            x = X[i, j]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


@njit(cache=True)
def scw2_diagonal_dense(X, y, mu, sig, phi, C):
    d = mu.shape[0] - 1
    mistakes = 0
    for i in range(y.shape[0]):
        s = mu[d]
        v = sig[d]
        for j in range(d):
            s += mu[j] * X[i, j]
            v += sig[j] * X[i, j] * X[i, j]
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = scw2_alpha(m, v, phi, C)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        step = y[i] * alpha
        mu[d] += step * sig[d]
        sig[d] = max(sig[d] / (1.0 + c * sig[d]), FLOOR)
        for j in range(d):
            x = X[i, j]
            mu[j] += step * sig[j] * x
            sig[j] = max(sig[j] / (1.0 + c * sig[j] * x * x), FLOOR)
    return mistakes


# ------------------------------------------------------------------ full, dense
# Each loop: x̃ = (x, 1), g = Σx̃, v = x̃·g, the rule's (α, c), then μ += α y g and
# Σ ← Σ − β g gᵀ with the paper's β = c / (1 + c v).


@njit(cache=True)
def _full_round(X, i, mu, Sigma, xt, g):
    """Shared by the full loops below: fills x̃ and g = Σx̃, returns (s, v)."""
    d = mu.shape[0] - 1
    for j in range(d):
        xt[j] = X[i, j]
    xt[d] = 1.0
    s = 0.0
    v = 0.0
    for a in range(d + 1):
        s += mu[a] * xt[a]
        ga = 0.0
        for b in range(d + 1):
            ga += Sigma[a, b] * xt[b]
        g[a] = ga
        v += xt[a] * ga
    return s, v


@njit(cache=True)
def _full_step(mu, Sigma, g, step, beta):
    D = mu.shape[0]
    for a in range(D):
        mu[a] += step * g[a]
        for b in range(D):
            Sigma[a, b] -= beta * g[a] * g[b]


@njit(cache=True)
def sop_full_dense(X, y, mu, Sigma):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
            _full_step(mu, Sigma, g, y[i] * (1.0 - m) / (1.0 + v), 1.0 / (1.0 + v))
    return mistakes


@njit(cache=True)
def cw_variance_full_dense(X, y, mu, Sigma, phi):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if v <= 0.0:
            continue
        bb = 1.0 + 2.0 * phi * m
        disc = bb * bb - 8.0 * phi * (m - phi * v)
        if disc <= 0.0:
            continue
        gamma = (-bb + math.sqrt(disc)) / (4.0 * phi * v)
        if gamma <= 0.0:
            continue
        c = 2.0 * gamma * phi
        _full_step(mu, Sigma, g, y[i] * gamma, c / (1.0 + c * v))
    return mistakes


@njit(cache=True)
def cw_exact_full_dense(X, y, mu, Sigma, phi):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = exact_cw_alpha(m, v, phi)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        _full_step(mu, Sigma, g, y[i] * alpha, c / (1.0 + c * v))
    return mistakes


@njit(cache=True)
def arow_full_dense(X, y, mu, Sigma, r):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if m < 1.0:
            _full_step(mu, Sigma, g, y[i] * (1.0 - m) / (v + r), 1.0 / (v + r))
    return mistakes


@njit(cache=True)
def scw1_full_dense(X, y, mu, Sigma, phi, C):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = min(C, exact_cw_alpha(m, v, phi))
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        _full_step(mu, Sigma, g, y[i] * alpha, c / (1.0 + c * v))
    return mistakes


@njit(cache=True)
def scw2_full_dense(X, y, mu, Sigma, phi, C):
    xt = np.empty(mu.shape[0])
    g = np.empty(mu.shape[0])
    mistakes = 0
    for i in range(y.shape[0]):
        s, v = _full_round(X, i, mu, Sigma, xt, g)
        m = y[i] * s
        if m <= 0.0:
            mistakes += 1
        if v <= 0.0 or phi * math.sqrt(v) - m <= 0.0:
            continue
        alpha = scw2_alpha(m, v, phi, C)
        if alpha <= 0.0:
            continue
        c = exact_cw_precision_step(alpha, v, phi)
        _full_step(mu, Sigma, g, y[i] * alpha, c / (1.0 + c * v))
    return mistakes
