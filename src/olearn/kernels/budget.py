"""Budget maintenance (Wang, Crammer, Vucetic, "Breaking the curse of kernelization: budgeted
stochastic gradient descent for large-scale SVM training", JMLR 13, 2012, §4).

When an update brings the expansion to ``B + 1`` vectors, one step brings it back to ``B``:

* ``REMOVE`` (§4.1): drop the vector with the smallest coefficient norm ``‖A[r, :]‖``.
* ``PROJECT`` (§4.2): drop that vector and add its projection onto the span of the others:
  ``Δα_j = α_r·a_j`` with ``(K_S + δI) a = k_S(x_r)`` — the weight degradation
  ``‖α_r φ(x_r) − Σ_j Δα_j φ(x_j)‖²`` is minimal. ``M = (K + δI)⁻¹`` over all stored vectors is
  kept up to date (block inverse when a vector enters, O(n²)), so ``a = −M[S, r] / M[r, r]``
  costs O(B) and the downdate O(B²). The jitter ``δ`` keeps K invertible when the vectors
  are linearly dependent (a linear kernel with d < B, repeated inputs).
* ``MERGE`` (§4.3, RBF only): merge the smallest vector ``x_m`` with the partner ``x_n`` that
  loses least: ``z = h x_m + (1 − h) x_n``, ``α_z = α_m k(x_m, z) + α_n k(x_n, z)``, where
  ``k(x_m, z) = k_mn^{(1−h)²}`` and ``k(x_n, z) = k_mn^{h²}`` for the RBF kernel; the
  degradation is ``‖α_m‖² + ‖α_n‖² + 2 α_m·α_n k_mn − ‖α_z‖²``, ``h ∈ [0, 1]`` maximises
  ``‖α_z‖²`` by golden-section search. Searching h for every candidate partner costs ~25
  exponentials each; we rank the partners by the degradation at the closed-form
  ``h₀ = (‖α_m‖² + α_m·α_n)/‖α_m + α_n‖²`` (the binary case's weighted mean α_m/(α_m + α_n),
  exact for close vectors; 3 exponentials) and search h for the chosen pair only: O(B) per
  maintenance step with a small constant. As in the paper only partners "of the same label"
  are considered — for coefficient vectors, ``α_m·α_n > 0``; with none, ``x_m`` is removed.
  The Gram matrix of inner products ``P`` is kept so that ``k_mn`` and the merged vector's inner
  products
  ``z·x_i = h x_m·x_i + (1 − h) x_n·x_i`` cost O(1) each.
* ``OLDEST``: drop the vector that entered first (NORMA's truncation; Kivinen, Smola,
  Williamson 2004, §3.2).

Nothing here allocates: work vectors are preallocated by the loop (B + 1 slots).
"""

import math

from olearn._compile import jit
from olearn.kernels import expansion

REMOVE, PROJECT, MERGE, OLDEST = range(4)
MAINTENANCE = {"remove": REMOVE, "project": PROJECT, "merge": MERGE, "oldest": OLDEST}

#: Golden-section steps for h: the bracket shrinks to 0.618^20 ≈ 7e-5 of [0, 1] (beyond ~1e-5
#: the comparisons of the flat objective would be rounding noise).
GOLDEN_ITERATIONS = 20
_INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0
#: Values closer than this (relative) count as equal in the golden-section comparison and the
#: choice of the partner: a near-flat objective (almost identical vectors) then resolves the
#: same way whatever the rounding, so results are reproducible across implementations.
TIE = 1e-12


@jit
def smallest(A, n):
    """Slot with the smallest coefficient norm ``‖A[i, :]‖²`` (first on ties)."""
    best = 0
    best_norm = math.inf
    for i in range(n):
        s = 0.0
        for r in range(A.shape[1]):
            s += A[i, r] * A[i, r]
        if s < best_norm:
            best_norm = s
            best = i
    return best


@jit
def oldest(born, n):
    best = 0
    for i in range(1, n):
        if born[i] < born[best]:
            best = i
    return best


@jit
def inverse_add(M, kcol, kxx, n, u):
    """Grow ``M = (K + δI)⁻¹`` by the vector entering slot ``n`` (block inverse, O(n²)):
    ``u = M c``, ``s = k(x, x) + δ − cᵀu`` (≥ δ in exact arithmetic, clamped there),
    ``M ← [[M + u uᵀ/s, −u/s], [−uᵀ/s, 1/s]]``. ``kxx`` already includes δ."""
    s = kxx
    for i in range(n):
        t = 0.0
        for j in range(n):
            t += M[i, j] * kcol[j]
        u[i] = t
        s -= kcol[i] * t
    return s


@jit
def inverse_grow(M, n, u, s):
    for i in range(n):
        ui = u[i] / s
        for j in range(n):
            M[i, j] += ui * u[j]
        M[i, n] = -ui
        M[n, i] = -ui
    M[n, n] = 1.0 / s


@jit
def project(r, A, M, n):
    """Project vector r onto the others (``a = −M[S, r] / M[r, r]``), then drop it from M."""
    mrr = M[r, r]
    for j in range(n):
        if j != r:
            a = -M[j, r] / mrr
            for c in range(A.shape[1]):
                A[j, c] += a * A[r, c]
    for i in range(n):
        if i == r:
            continue
        f = M[i, r] / mrr
        for j in range(n):
            M[i, j] -= f * M[r, j]


@jit
def _merged_sq_norm(e_m, e_n, am2, an2, amn):
    """``‖α_z‖²`` from ``e_m = k(x_m, z)`` and ``e_n = k(x_n, z)``."""
    return am2 * e_m * e_m + an2 * e_n * e_n + 2.0 * amn * e_m * e_n


@jit
def golden_h(gd2, am2, an2, amn, iterations):
    """argmax over h ∈ [0, 1] of ``‖α_z(h)‖²`` with ``k(x_m, z) = exp(−γd²(1 − h)²)``,
    ``k(x_n, z) = exp(−γd²h²)`` (``gd2 = γ‖x_m − x_n‖²``), by golden-section search."""
    lo = 0.0
    hi = 1.0
    c = hi - _INV_PHI * (hi - lo)
    d = lo + _INV_PHI * (hi - lo)
    fc = _merged_sq_norm(math.exp(-gd2 * (1 - c) ** 2), math.exp(-gd2 * c * c), am2, an2, amn)
    fd = _merged_sq_norm(math.exp(-gd2 * (1 - d) ** 2), math.exp(-gd2 * d * d), am2, an2, amn)
    for _ in range(iterations):
        if fc > fd + TIE * abs(fd):
            hi = d
            d = c
            fd = fc
            c = hi - _INV_PHI * (hi - lo)
            fc = _merged_sq_norm(
                math.exp(-gd2 * (1 - c) ** 2), math.exp(-gd2 * c * c), am2, an2, amn
            )
        else:
            lo = c
            c = d
            fc = fd
            d = lo + _INV_PHI * (hi - lo)
            fd = _merged_sq_norm(
                math.exp(-gd2 * (1 - d) ** 2), math.exp(-gd2 * d * d), am2, an2, amn
            )
    return 0.5 * (lo + hi)


@jit
def _pair(m, j, A, P, gamma):
    """``(‖α_j‖², α_m·α_j, γ‖x_m − x_j‖²)``."""
    an2 = 0.0
    amn = 0.0
    for c in range(A.shape[1]):
        an2 += A[j, c] * A[j, c]
        amn += A[m, c] * A[j, c]
    d2 = P[m, m] + P[j, j] - 2.0 * P[m, j]
    if d2 < 0.0:
        d2 = 0.0
    return an2, amn, gamma * d2


@jit
def _merge_loss(gd2, am2, an2, amn):
    """Degradation of merging at ``h₀ = (‖α_m‖² + α_m·α_n) / ‖α_m + α_n‖²`` — the weighted
    mean ``α_m/(α_m + α_n)`` of the binary case, optimal as ``γ‖x_m − x_n‖² → 0`` — used to
    rank the partners (three exponentials each instead of a search per partner)."""
    h = (am2 + amn) / (am2 + an2 + 2.0 * amn)
    e_m = math.exp(-gd2 * (1 - h) ** 2)
    e_n = math.exp(-gd2 * h * h)
    return am2 + an2 + 2.0 * amn * math.exp(-gd2) - _merged_sq_norm(e_m, e_n, am2, an2, amn)


@jit
def merge_partner(m, A, P, n, gamma):
    """Best partner of slot m and its h; ``-1`` when no vector has ``α_m·α_n > 0``.

    Partners are ranked by the degradation of the merge at ``h₀`` (``_merge_loss``); the h of
    the chosen pair is then found by golden-section search (``GOLDEN_ITERATIONS`` steps).
    """
    am2 = 0.0
    for c in range(A.shape[1]):
        am2 += A[m, c] * A[m, c]
    best = -1
    best_loss = math.inf
    for j in range(n):
        if j == m:
            continue
        an2, amn, gd2 = _pair(m, j, A, P, gamma)
        if amn <= 0.0:
            continue
        loss = _merge_loss(gd2, am2, an2, amn)
        if loss < best_loss - TIE * (am2 + an2):
            best_loss = loss
            best = j
    if best < 0:
        return -1, 0.0
    an2, amn, gd2 = _pair(m, best, A, P, gamma)
    return best, golden_h(gd2, am2, an2, amn, GOLDEN_ITERATIONS)


@jit
def merge(
    m, j, h, gamma, sparse, SV, pool_val, pool_idx, ptr, length, A, sq, selfk, born, P, counts, work
):
    """Replace x_m by z = h x_m + (1 − h) x_j with coefficients α_z, then drop slot j."""
    n = counts[expansion.N_SV]
    g = 1.0 - h
    d2 = P[m, m] + P[j, j] - 2.0 * P[m, j]
    if d2 < 0.0:
        d2 = 0.0
    e_m = math.exp(-gamma * d2 * g * g)
    e_j = math.exp(-gamma * d2 * h * h)
    for c in range(A.shape[1]):
        A[m, c] = A[m, c] * e_m + A[j, c] * e_j
    # Inner products of z, by linearity (exact up to rounding, no pass over the features).
    for i in range(n):
        work[i] = h * P[m, i] + g * P[j, i]
    zz = h * h * P[m, m] + 2.0 * h * g * P[m, j] + g * g * P[j, j]
    for i in range(n):
        P[m, i] = work[i]
        P[i, m] = work[i]
    P[m, m] = zz
    sq[m] = zz
    selfk[m] = 1.0
    born[m] = max(born[m], born[j])
    expansion.combine(sparse, m, j, h, SV, pool_val, pool_idx, ptr, length, counts)
    expansion.swap_remove(j, sparse, SV, ptr, length, A, sq, selfk, born, P, counts)
