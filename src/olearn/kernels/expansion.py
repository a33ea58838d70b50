"""Storage of a kernel expansion and its per-row primitives.

Support vectors live in slots ``0 … n−1`` (``n = counts[N_SV]``), in one of two layouts chosen
once per model:

* dense: row ``i`` of ``SV`` (capacity × d);
* sparse: ``pool_val[ptr[i] : ptr[i] + length[i]]`` with sorted column indices in
  ``pool_idx`` — a pool written at its end (``counts[POOL_USED]``) and compacted when full,
  so adding, removing and merging never allocate per example.

Per slot the expansion also keeps the coefficients ``A[i, :]`` (one per class row), the squared
norm ``sq[i] = ‖x_i‖²``, the cached self-kernel ``selfk[i] = k(x_i, x_i)`` and the round at which
the vector entered (``born[i]``, for truncation of the oldest). Removal swaps the last slot into
the freed one: O(d) instead of shifting every later vector.
"""

import numpy as np

from olearn._compile import jit

# Layout of the int64 ``counts`` array.
N_SV, POOL_USED, MAX_LENGTH = range(3)
N_COUNTS = 3


@jit
def sq_norm(val):
    s = 0.0
    for p in range(val.shape[0]):
        s += val[p] * val[p]
    return s


@jit
def dots(idx, val, SV, pool_val, pool_idx, ptr, length, n, scatter, out):
    """``out[i] = x_i·x`` for the ``n`` stored vectors (dense: one BLAS matrix-vector product;
    sparse: scatter x into a dense buffer, gather per stored nonzero, clear the buffer)."""
    if n == 0:
        return
    if idx is None:
        np.dot(SV[:n], val, out[:n])
    else:
        for p in range(val.shape[0]):
            scatter[idx[p]] = val[p]
        for i in range(n):
            s = 0.0
            a = ptr[i]
            for q in range(a, a + length[i]):
                s += pool_val[q] * scatter[pool_idx[q]]
            out[i] = s
        for p in range(val.shape[0]):
            scatter[idx[p]] = 0.0


@jit
def sparse_products(data, indptr, indices, SV, pool_val, pool_idx, ptr, length, n, scatter,
                    out):  # fmt: skip
    """``out[i, j] = x_i·x_j`` for the CSR rows x_i and the first n stored vectors of a
    sparse pool: ``dots`` row by row, whose cost is the stored values' rather than the
    width's. The same sums as scipy's product when both index lists are sorted (the common
    products added in the same order; the others are exact zeros)."""
    for i in range(out.shape[0]):
        a = indptr[i]
        b = indptr[i + 1]
        dots(indices[a:b], data[a:b], SV, pool_val, pool_idx, ptr, length, n, scatter, out[i])


@jit
def store(idx, val, slot, SV, pool_val, pool_idx, ptr, length, counts):
    """Copy row x into ``slot`` (the sparse pool must have room: the loop checks first)."""
    if idx is None:
        SV[slot, :] = val
    else:
        start = counts[POOL_USED]
        nnz = val.shape[0]
        for p in range(nnz):
            pool_val[start + p] = val[p]
            pool_idx[start + p] = idx[p]
        ptr[slot] = start
        length[slot] = nnz
        counts[POOL_USED] = start + nnz
        if nnz > counts[MAX_LENGTH]:
            counts[MAX_LENGTH] = nnz


@jit
def combine(sparse, m, n, h, SV, pool_val, pool_idx, ptr, length, counts):
    """``x_m ← h·x_m + (1 − h)·x_n`` (the merged vector of budget maintenance)."""
    g = 1.0 - h
    if not sparse:
        for j in range(SV.shape[1]):
            SV[m, j] = h * SV[m, j] + g * SV[n, j]
        return
    # Union of two sorted index lists, written at the end of the pool.
    out = counts[POOL_USED]
    a, a_end = ptr[m], ptr[m] + length[m]
    c, c_end = ptr[n], ptr[n] + length[n]
    while a < a_end or c < c_end:
        if c >= c_end or (a < a_end and pool_idx[a] < pool_idx[c]):
            pool_idx[out] = pool_idx[a]
            pool_val[out] = h * pool_val[a]
            a += 1
        elif a >= a_end or pool_idx[c] < pool_idx[a]:
            pool_idx[out] = pool_idx[c]
            pool_val[out] = g * pool_val[c]
            c += 1
        else:
            pool_idx[out] = pool_idx[a]
            pool_val[out] = h * pool_val[a] + g * pool_val[c]
            a += 1
            c += 1
        out += 1
    ptr[m] = counts[POOL_USED]
    length[m] = out - counts[POOL_USED]
    counts[POOL_USED] = out
    if length[m] > counts[MAX_LENGTH]:
        counts[MAX_LENGTH] = length[m]


@jit
def swap_remove(r, sparse, SV, ptr, length, A, sq, selfk, born, G, counts):
    """Drop slot ``r`` by moving the last slot into it (G: the Gram-like matrix kept by some
    maintenance strategies, permuted the same way; empty otherwise)."""
    last = counts[N_SV] - 1
    if r != last:
        if sparse:
            ptr[r] = ptr[last]
            length[r] = length[last]
        else:
            SV[r, :] = SV[last, :]
        A[r, :] = A[last, :]
        sq[r] = sq[last]
        selfk[r] = selfk[last]
        born[r] = born[last]
        if G.shape[0] > 0:
            for j in range(last + 1):
                G[r, j] = G[last, j]
            for j in range(last + 1):
                G[j, r] = G[j, last]
    A[last, :] = 0.0
    counts[N_SV] = last


@jit
def compact(pool_val, pool_idx, ptr, length, n, counts):
    """Move the live sparse vectors to the front of the pool, in pool order (each moves
    backwards, so copying forward is safe). Amortised: runs only when the pool is full."""
    order = np.argsort(ptr[:n])
    out = 0
    for o in range(n):
        i = order[o]
        a = ptr[i]
        for q in range(length[i]):
            pool_val[out + q] = pool_val[a + q]
            pool_idx[out + q] = pool_idx[a + q]
        ptr[i] = out
        out += length[i]
    counts[POOL_USED] = out
