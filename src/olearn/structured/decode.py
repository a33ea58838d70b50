"""Compiled decoders for a first-order chain.

A sequence ``y`` of length n over L labels scores

.. math:: s(y) = \\mathrm{start}_{y_1} + \\sum_i E_{i, y_i}
               + \\sum_{i>1} T_{y_{i-1}, y_i} + \\mathrm{end}_{y_n}

with ``E`` the emission scores (``emission_scores``). ``viterbi`` returns the argmax in
O(n L²); ``kbest_viterbi`` the k best sequences in O(n L² k) (list Viterbi: every cell keeps
its k best partial paths with back-pointers to (previous label, previous rank)). Ties go to
the lowest label (and the lowest rank): the first maximum, as ``np.argmax``. Labels that must
never be emitted carry an emission of ``-inf``.
"""

import numpy as np

from olearn._compile import jit


@jit
def emission_scores(w, feats, tok_ptr, first, n, n_labels, bias_row, allowed, out):
    """``out[i, y] = w[bias_row, y] + Σ_{f ∈ feats(token first+i)} w[f, y]``.

    ``w`` is the flat weight vector whose first ``(bias_row + 1)·L`` entries are the emission
    rows (feature-major, labels contiguous); ``feats[tok_ptr[t]:tok_ptr[t+1]]`` are the hashed
    features of token t. Labels with ``allowed[y] == False`` get ``-inf``.
    """
    L = n_labels
    b = bias_row * L
    for i in range(n):
        t = first + i
        for y in range(L):
            out[i, y] = w[b + y]
        for p in range(tok_ptr[t], tok_ptr[t + 1]):
            base = feats[p] * L
            for y in range(L):
                out[i, y] += w[base + y]
        for y in range(L):
            if not allowed[y]:
                out[i, y] = -np.inf


@jit
def viterbi(E, start, trans, end, out):
    """Best sequence for emissions ``E`` (n, L); writes it to ``out`` and returns its score."""
    n, L = E.shape
    delta = np.empty((n, L))
    back = np.zeros((n, L), dtype=np.int32)
    for y in range(L):
        delta[0, y] = start[y] + E[0, y]
    for i in range(1, n):
        for y in range(L):
            best = -np.inf
            arg = 0
            for p in range(L):
                s = delta[i - 1, p] + trans[p, y]
                if s > best:
                    best = s
                    arg = p
            delta[i, y] = best + E[i, y]
            back[i, y] = arg
    best = -np.inf
    arg = 0
    for y in range(L):
        s = delta[n - 1, y] + end[y]
        if s > best:
            best = s
            arg = y
    out[n - 1] = arg
    for i in range(n - 1, 0, -1):
        out[i - 1] = back[i, out[i]]
    return best


@jit
def _insert(scores, labels, ranks, count, k, s, p, r):
    """Insert candidate (s, p, r) into the descending top-k lists; returns the new count.

    Strict comparison keeps the earlier candidate first on ties (lowest label, lowest rank).
    """
    if count == k and not s > scores[k - 1]:
        return count
    pos = count if count < k else k - 1
    while pos > 0 and s > scores[pos - 1]:
        if pos < k:
            scores[pos] = scores[pos - 1]
            labels[pos] = labels[pos - 1]
            ranks[pos] = ranks[pos - 1]
        pos -= 1
    scores[pos] = s
    labels[pos] = p
    ranks[pos] = r
    return count + 1 if count < k else k


@jit
def kbest_viterbi(E, start, trans, end, k, out, out_scores):
    """The k best sequences, best first: the first n columns of the rows of ``out`` (k, ≥ n)
    and ``out_scores`` (k,).

    Returns how many were found (fewer than k when fewer sequences have a finite score).
    """
    n, L = E.shape
    delta = np.full((n, L, k), -np.inf)
    back_label = np.zeros((n, L, k), dtype=np.int32)
    back_rank = np.zeros((n, L, k), dtype=np.int32)
    count = np.zeros((n, L), dtype=np.int32)
    for y in range(L):
        s = start[y] + E[0, y]
        if s > -np.inf:
            delta[0, y, 0] = s
            count[0, y] = 1
    for i in range(1, n):
        for y in range(L):
            if E[i, y] == -np.inf:
                continue
            c = np.int64(0)  # (not the literal 0: _insert compiles once, for int64)
            for p in range(L):
                for r in range(count[i - 1, p]):
                    s = delta[i - 1, p, r] + trans[p, y] + E[i, y]
                    c = _insert(delta[i, y], back_label[i, y], back_rank[i, y], c, k, s, p, r)
            count[i, y] = c
    final_scores = np.full(k, -np.inf)
    final_labels = np.zeros(k, dtype=np.int32)
    final_ranks = np.zeros(k, dtype=np.int32)
    found = np.int64(0)
    for y in range(L):
        for r in range(count[n - 1, y]):
            s = delta[n - 1, y, r] + end[y]
            found = _insert(final_scores, final_labels, final_ranks, found, k, s, y, r)
    for j in range(found):
        out_scores[j] = final_scores[j]
        y = final_labels[j]
        r = final_ranks[j]
        for i in range(n - 1, -1, -1):
            out[j, i] = y
            if i > 0:
                y, r = back_label[i, y, r], back_rank[i, y, r]
    return found


@jit
def sequence_score(E, start, trans, end, y):
    """``s(y)`` for one label sequence."""
    n = y.shape[0]
    s = start[y[0]] + end[y[n - 1]]
    for i in range(n):
        s += E[i, y[i]]
        if i > 0:
            s += trans[y[i - 1], y[i]]
    return s


@jit
def add_hamming(E, gold, out):
    """Loss-augmented emissions: ``out[i, y] = E[i, y] + [y ≠ gold_i]`` (Hamming cost)."""
    n, L = E.shape
    for i in range(n):
        for y in range(L):
            out[i, y] = E[i, y] + (0.0 if y == gold[i] else 1.0)
