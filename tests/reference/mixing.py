"""Literal NumPy oracles of the mixing rules of iterative parameter mixing (docs/distributed.md).

Entry by entry with Python loops, and with covariances and explicit matrix inverses where the
library keeps variances or Cholesky factors of precisions: written from the formulas alone.
A shard is ``(mu, cov)`` with ``mu`` a vector and ``cov`` a vector of variances (diagonal) or
a covariance matrix (full); weights are normalised here.
"""

from __future__ import annotations

import numpy as np


def _normalised(weights):
    w = np.asarray(weights, dtype=float)
    return w / w.sum()


def first_order(shards, weights, start, changed):
    """``w_j = Σ_{i ∈ C_j} λ_i w_ij / Σ_{i ∈ C_j} λ_i`` with ``C_j`` the shards whose ``w_ij``
    differs from ``start_j`` (``start_j`` if none), or ``Σ λ_i w_ij`` over all shards."""
    lam = _normalised(weights)
    out = np.array(start, dtype=float)
    for j in range(len(start)):
        total = 0.0
        mass = 0.0
        for w, l in zip(shards, lam, strict=True):
            if not changed or w[j] != start[j]:
                total += l * w[j]
                mass += l
        if mass > 0:
            out[j] = total / mass
    return out


def first_order_seen(shards, weights, start, sums):
    """``w_j = Σ_i λ_i c_ij w_ij / Σ_i λ_i c_ij`` with ``c_ij = sums[i][j]`` (``start_j`` where
    every ``c_ij`` is 0)."""
    lam = _normalised(weights)
    out = np.array(start, dtype=float)
    for j in range(len(start)):
        total = 0.0
        mass = 0.0
        for w, l, c in zip(shards, lam, sums, strict=True):
            total += l * c[j] * w[j]
            mass += l * c[j]
        if mass > 0:
            out[j] = total / mass
    return out


def sums_of_squares(rows, width, bias):
    """``c_j = Σ x_j²`` over ``rows`` (dense 2-D, one row a list), the intercept's coordinate
    (last) ``bias²`` per row."""
    c = [0.0] * (width + 1)
    for row in rows:
        for j in range(width):
            c[j] += row[j] * row[j]
        c[width] += bias * bias
    return np.array(c)


def diagonal(shards, weights, start, combine):
    """``(mu, variances)``: per coordinate, precisions p = 1/σ combined as
    "precision" (p = Σλp_i, μ = Σλp_iμ_i / p), "average" (μ = Σλμ_i, p as before) or
    "summed" (p = p⁰ + Σ(p_i − p⁰), pμ = p⁰μ⁰ + Σ(p_iμ_i − p⁰μ⁰))."""
    lam = _normalised(weights)
    mu0, var0 = start
    mu = np.empty(len(mu0))
    var = np.empty(len(mu0))
    for j in range(len(mu0)):
        if combine == "summed":
            p = 1.0 / var0[j]
            b = mu0[j] / var0[j]
            for m_i, v_i in shards:
                p += 1.0 / v_i[j] - 1.0 / var0[j]
                b += m_i[j] / v_i[j] - mu0[j] / var0[j]
            mu[j] = b / p
        else:
            p = sum(l / v_i[j] for (_, v_i), l in zip(shards, lam, strict=True))
            if combine == "precision":
                b = sum(l * m_i[j] / v_i[j] for (m_i, v_i), l in zip(shards, lam, strict=True))
                mu[j] = b / p
            else:
                mu[j] = sum(l * m_i[j] for (m_i, _), l in zip(shards, lam, strict=True))
        var[j] = 1.0 / p
    return mu, var


def full(shards, weights, start, combine):
    """``(mu, covariance)``: Σ⁻¹ = Σ λ_i Σ_i⁻¹ and μ = Σ Σ_i λ_i Σ_i⁻¹ μ_i ("precision"),
    μ = Σ λ_i μ_i ("average"), or Σ⁻¹ = Σ₀⁻¹ + Σ(Σ_i⁻¹ − Σ₀⁻¹) and
    Σ⁻¹μ = Σ₀⁻¹μ₀ + Σ(Σ_i⁻¹μ_i − Σ₀⁻¹μ₀) ("summed"); with explicit inverses."""
    lam = _normalised(weights)
    mu0, cov0 = start
    inv0 = np.linalg.inv(cov0)
    if combine == "summed":
        precision = inv0.copy()
        b = inv0 @ mu0
        for m_i, c_i in shards:
            inv_i = np.linalg.inv(c_i)
            precision += inv_i - inv0
            b += inv_i @ m_i - inv0 @ mu0
        cov = np.linalg.inv(precision)
        return cov @ b, cov
    precision = sum(l * np.linalg.inv(c_i) for (_, c_i), l in zip(shards, lam, strict=True))
    cov = np.linalg.inv(precision)
    if combine == "precision":
        b = sum(l * np.linalg.inv(c_i) @ m_i for (m_i, c_i), l in zip(shards, lam, strict=True))
        return cov @ b, cov
    return sum(l * m_i for (m_i, _), l in zip(shards, lam, strict=True)), cov
