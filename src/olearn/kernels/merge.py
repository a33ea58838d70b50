"""Mixing kernel expansions (iterative parameter mixing, ``olearn.distributed``).

Shards that start a round from one expansion ``f⁰ = Σ_s α⁰_s k(x_s, ·)`` end it with their own
``f_i``: the start's vectors (their coefficients decayed by gradient rules, some removed or
merged by budget maintenance) and the vectors they added. Mixing is done on the functions, in
the union of the support vectors:

* ``"uniform"`` / weights ``λ``: ``f = Σ λ_i f_i`` — each vector with its coefficients scaled
  by its shard's weight, a vector several shards hold (one of the start's, identical in
  each) with the sum; the intercepts likewise. For the linear kernel this is the linear
  models' uniform mixing of ``w = Σ α_s x_s``.
* ``"changed"``: each coefficient averaged over the shards that changed it — the first-order
  rule read on the dual coefficients: a vector a shard added keeps its full coefficient (no
  other shard changed it), a start vector keeps its coefficient unless shards decayed or
  removed it (then their average, a removal counting as 0). It keeps the scale of what one
  shard learned about its own region of the input space.

The union holds up to n·B vectors; a budgeted model then applies its own maintenance
(``budget.py``: removal, projection or merging; ``loop.maintain``) until B are left, with the
Gram matrix it needs computed for the union, exactly as if the vectors had arrived one by one
over budget. Vectors are identified by their birth round and their values; the order of the
union (the start's vectors, then each shard's new ones, in shard order) makes the result
deterministic.
"""

from __future__ import annotations

import numpy as np

from olearn.kernels import budget as bm
from olearn.kernels import expansion as ex
from olearn.kernels.functions import KP_COEF0, KP_DEGREE, KP_GAMMA, POLY, RBF

#: The state tuple's fields (``loop.STATE``), by position.
_SV, _POOL_VAL, _POOL_IDX, _PTR, _LENGTH, _A, _B, _SQ, _SELFK, _BORN, _G, _COUNTS, _STATS = range(
    13
)


def vectors(state, sparse: bool):
    """The stored vectors of a state: ``(rows, A, sq, selfk, born)``, rows a list of
    ``(indices, values)`` (sparse storage) or of dense rows, in slot order."""
    n = int(state[_COUNTS][ex.N_SV])
    if sparse:
        ptr, length = state[_PTR], state[_LENGTH]
        rows = [
            (state[_POOL_IDX][ptr[i] : ptr[i] + length[i]].copy(),
             state[_POOL_VAL][ptr[i] : ptr[i] + length[i]].copy())
            for i in range(n)
        ]  # fmt: skip
    else:
        rows = [state[_SV][i].copy() for i in range(n)]
    return rows, state[_A][:n].copy(), state[_SQ][:n], state[_SELFK][:n], state[_BORN][:n]


def _key(row, born, sparse: bool):
    if sparse:
        return (float(born), row[0].tobytes(), row[1].tobytes())
    return (float(born), row.tobytes())


def merge(states, weights, start, config, *, sparse: bool, changed: bool = False):
    """The mixed state (a tuple in ``loop.STATE``'s layout) of kernel shards that started
    from ``start``; ``config`` is the loop's ``(cfg, hp, kp, opts)``. One state comes back
    unchanged (a copy)."""
    from olearn._layout import OPT_JITTER
    from olearn.kernels import loop
    from olearn.representations.linear import merge_counters, mixing_weights

    if len(states) == 1:
        return tuple(array.copy() for array in states[0])
    cfg, _, kp, opts = config
    lam = mixing_weights(weights, len(states))
    rows0, A0, sq0, selfk0, born0 = vectors(start, sparse)
    index0 = {_key(r, b, sparse): j for j, (r, b) in enumerate(zip(rows0, born0, strict=True))}
    k = A0.shape[1]
    # start vectors: every shard's coefficients (0 where a shard dropped the vector)
    held = np.zeros((len(states), len(rows0), k))
    rows, A, sq, selfk, born = list(rows0), [], list(sq0), list(selfk0), list(born0)
    new_rows, new_A, new_sq, new_selfk, new_born = [], [], [], [], []
    for i, state in enumerate(states):
        rows_i, A_i, sq_i, selfk_i, born_i = vectors(state, sparse)
        for j, row in enumerate(rows_i):
            slot = index0.get(_key(row, born_i[j], sparse))
            if slot is not None:
                held[i, slot] = A_i[j]
                continue
            new_rows.append(row)
            new_A.append(A_i[j] if changed else lam[i] * A_i[j])
            new_sq.append(sq_i[j])
            new_selfk.append(selfk_i[j])
            new_born.append(born_i[j])
    b_shards = np.array([s[_B] for s in states])
    if changed:
        A = _changed(held, lam, A0)
        b = _changed(b_shards[:, None, :], lam, start[_B][None, :])[0]
    else:
        A = np.tensordot(lam, held, axes=1) if len(rows0) else np.zeros((0, k))
        b = lam @ b_shards
    rows += new_rows
    A = np.vstack([A, np.array(new_A).reshape(-1, k)])
    sq = np.array(sq + new_sq, dtype=np.float64)
    selfk = np.array(selfk + new_selfk, dtype=np.float64)
    born = np.array(born + new_born, dtype=np.float64)
    keep = np.flatnonzero(np.any(A != 0.0, axis=1))  # a vector every shard dropped
    rows = [rows[j] for j in keep]
    A, sq, selfk, born = A[keep], sq[keep], selfk[keep], born[keep]
    stats = merge_counters(states, start)
    budget, maintenance = int(cfg[4]), int(cfg[3])  # loop.CFG_BUDGET, loop.CFG_MAINTENANCE
    n_steps = 0
    if budget and len(rows) > budget:
        state = _packed(rows, A, b, sq, selfk, born, start, sparse, len(rows) + 1, maintenance,
                        int(cfg[1]), kp, opts[OPT_JITTER], with_gram=True)  # fmt: skip
        work = np.zeros(len(rows) + 1)
        counts = state[_COUNTS]
        while counts[ex.N_SV] > budget:
            if sparse and counts[ex.POOL_USED] + 2 * counts[ex.MAX_LENGTH] > state[_POOL_VAL].size:
                ex.compact(state[_POOL_VAL], state[_POOL_IDX], state[_PTR], state[_LENGTH],
                           counts[ex.N_SV], counts)  # fmt: skip
                if counts[ex.POOL_USED] + 2 * counts[ex.MAX_LENGTH] > state[_POOL_VAL].size:
                    state = _with_pool(state, 2 * state[_POOL_VAL].size)
                    counts = state[_COUNTS]
            loop.maintain(maintenance, sparse, kp, state, work)
            n_steps += 1
        rows, A, sq, selfk, born = vectors(state, sparse)
        gram = state[_G][: len(rows), : len(rows)]
        b = state[_B]
    else:
        gram = None
    stats[loop.STAT_MAINTENANCE] += n_steps
    cap = budget + 1 if budget else max(16, 2 * len(rows))
    out = _packed(rows, A, b, sq, selfk, born, start, sparse, cap, maintenance, int(cfg[1]),
                  kp, opts[OPT_JITTER], with_gram=bool(budget), gram=gram)  # fmt: skip
    return (*out[:-1], stats)


def _changed(held, lam, start):
    """``held`` (shards, ...) averaged with weights ``lam`` over the shards whose entry
    differs from ``start``; ``start`` where none does."""
    moved = held != start[None]
    weight = np.where(moved, lam.reshape(-1, *([1] * (held.ndim - 1))), 0.0)
    total = weight.sum(axis=0)
    out = start.copy()
    some = total > 0
    out[some] = (weight * held).sum(axis=0)[some] / total[some]
    return out


def _packed(rows, A, b, sq, selfk, born, like, sparse, cap, maintenance, kcode, kp, jitter,
            *, with_gram, gram=None):  # fmt: skip
    """A state tuple holding the vectors in slots ``0 … n−1`` with ``cap`` slots, shaped as
    ``like`` (the model's layout); its Gram matrix for ``maintenance`` computed (or ``gram``
    copied) when ``with_gram``."""
    n = len(rows)
    k = A.shape[1]
    d = like[_SV].shape[1]
    SV = np.zeros((0 if sparse else cap, d))
    if sparse:
        lengths = np.array([len(r[0]) for r in rows], dtype=np.int64)
        used = int(lengths.sum())
        longest = int(lengths.max()) if n else 0
        size = max(64, 2 * used + 3 * max(longest, 1))
        pool_val = np.zeros(size)
        pool_idx = np.zeros(size, dtype=np.int64)
        ptr = np.zeros(cap, dtype=np.int64)
        length = np.zeros(cap, dtype=np.int64)
        ptr[1:n] = np.cumsum(lengths)[:-1] if n else []
        length[:n] = lengths
        if n:
            pool_idx[:used] = np.concatenate([r[0] for r in rows])
            pool_val[:used] = np.concatenate([r[1] for r in rows])
    else:
        used = longest = 0
        pool_val = np.zeros(0)
        pool_idx = np.zeros(0, dtype=np.int64)
        ptr = np.zeros(0, dtype=np.int64)
        length = np.zeros(0, dtype=np.int64)
        if n:
            SV[:n] = np.array(rows)
    A_out = np.zeros((cap, k))
    A_out[:n] = A
    columns = {}
    for name, values in (("sq", sq), ("selfk", selfk), ("born", born)):
        columns[name] = np.zeros(cap)
        columns[name][:n] = values
    keeps = with_gram and maintenance in (bm.PROJECT, bm.MERGE)
    G = np.zeros((cap, cap) if keeps else (0, 0))
    if keeps and n:
        if gram is None:
            gram = _gram(rows, sq, sparse, d, maintenance, kcode, kp, jitter)
        G[:n, :n] = gram
    counts = np.array([n, used, longest], dtype=np.int64)
    b = np.array(b, dtype=np.float64)
    sq, selfk, born = columns["sq"], columns["selfk"], columns["born"]
    stats = like[_STATS].copy()
    return (SV, pool_val, pool_idx, ptr, length, A_out, b, sq, selfk, born, G, counts, stats)


def _gram(rows, sq, sparse, d, maintenance, kcode, kp, jitter):
    """What budget maintenance keeps over the vectors: the inner products (merging) or
    ``(K + δI)⁻¹`` (projection)."""
    if sparse:
        import scipy.sparse as sp

        indptr = np.concatenate([[0], np.cumsum([len(r[0]) for r in rows])])
        R = sp.csr_matrix(
            (np.concatenate([r[1] for r in rows]), np.concatenate([r[0] for r in rows]), indptr),
            shape=(len(rows), d),
        )
        P = (R @ R.T).toarray()
    else:
        R = np.array(rows)
        P = R @ R.T
    if maintenance == bm.MERGE:
        return P
    if kcode == RBF:
        K = np.exp(-kp[KP_GAMMA] * np.maximum(sq[:, None] + sq[None, :] - 2.0 * P, 0.0))
    elif kcode == POLY:
        K = (kp[KP_GAMMA] * P + kp[KP_COEF0]) ** kp[KP_DEGREE]
    else:
        K = P
    return np.linalg.inv(K + jitter * np.eye(len(rows)))


def _with_pool(state, size):
    """``state`` with a sparse pool of ``size`` entries."""
    pool_val = np.zeros(size)
    pool_idx = np.zeros(size, dtype=np.int64)
    pool_val[: state[_POOL_VAL].size] = state[_POOL_VAL]
    pool_idx[: state[_POOL_IDX].size] = state[_POOL_IDX]
    return (state[_SV], pool_val, pool_idx, *state[_PTR:])
