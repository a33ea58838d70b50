"""The compiled parse loop of the Vowpal-Wabbit-style text format, with feature hashing.

A line is ``label [importance] ['tag] |namespace[:weight] feature[:value] ... |namespace ...``.
Hashing (stable across runs, platforms and versions; documented in docs/cli.md):

* a namespace's seed is MurmurHash3 (x86, 32-bit) of its name with seed 0 (the unnamed
  namespace ``| ...`` has seed 0);
* a feature's hash is MurmurHash3 of its name with its namespace's seed;
* a pair (quadratic) or n-gram combines hashes left to right as ``h ← (h · 16777619) ^ h'``
  modulo 2³² (the FNV prime, as Vowpal Wabbit), its value is the product of the values;
* the column is the hash modulo 2^bits; colliding features in one example add up.
"""

import numpy as np

from olearn._compile import jit
from olearn.io import _errors as E
from olearn.io._buffers import grow as _grow
from olearn.io._buffers import prefix as _prefix
from olearn.io._numbers import (
    BAR,
    COLON,
    NEWLINE,
    NUMBER_NONFINITE,
    NUMBER_OK,
    QUOTE,
    is_space,
    parse_number,
)

MASK32 = 0xFFFFFFFF
FNV_PRIME = 16777619


@jit
def _mul32(a, b):
    """(a · b) mod 2³² for 0 ≤ a, b < 2³² without overflowing int64."""
    low = (a & 0xFFFF) * b
    high = (((a >> 16) * b) & 0xFFFF) << 16
    return (low + high) & MASK32


@jit
def _rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & MASK32


@jit
def murmur3_32(buf, start, stop, seed):
    """MurmurHash3 x86_32 of ``buf[start:stop]`` (Austin Appleby's reference), unsigned."""
    c1 = 0xCC9E2D51
    c2 = 0x1B873593
    h = seed & MASK32
    n = stop - start
    i = start
    for _ in range(n // 4):
        k = (
            np.int64(buf[i])
            | (np.int64(buf[i + 1]) << 8)
            | (np.int64(buf[i + 2]) << 16)
            | (np.int64(buf[i + 3]) << 24)
        )
        k = _mul32(k, c1)
        k = _rotl32(k, 15)
        k = _mul32(k, c2)
        h ^= k
        h = _rotl32(h, 13)
        h = (_mul32(h, 5) + 0xE6546B64) & MASK32
        i += 4
    tail = n & 3
    k = np.int64(0)
    if tail == 3:
        k ^= np.int64(buf[i + 2]) << 16
    if tail >= 2:
        k ^= np.int64(buf[i + 1]) << 8
    if tail >= 1:
        k ^= np.int64(buf[i])
        k = _mul32(k, c1)
        k = _rotl32(k, 15)
        k = _mul32(k, c2)
        h ^= k
    h ^= n
    h ^= h >> 16
    h = _mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = _mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@jit
def combine(h, g):
    """Hash of a feature pair or n-gram step: (h · FNV prime) ^ g mod 2³²."""
    return _mul32(h, FNV_PRIME) ^ g


@jit
def _is_end(c):
    return is_space(c) or c == NEWLINE or c == BAR


@jit
def _emit_row(hashes, vals, count, mask, out_idx, out_val, nnz):
    """Mask, sort and merge one example's hashed features into the CSR arrays."""
    cols = np.empty(count, np.int64)
    for q in range(count):
        cols[q] = hashes[q] & mask
    order = np.argsort(cols, kind="mergesort")
    last = -1
    for q in range(count):
        c = cols[order[q]]
        v = vals[order[q]]
        if c == last:
            out_val[nnz - 1] += v
        else:
            out_idx[nnz] = c
            out_val[nnz] = v
            nnz += 1
            last = c
    return nnz


@jit
def parse_vw(buf, end, final, bits, ngram, quadratic, require_label, skip_bad):
    """Parse the complete lines of ``buf[:end]`` (see the module docstring).

    ngram : n ≥ 2 adds all 2..n-grams of consecutive features within each namespace (0: none).
    quadratic : (q, 2) int64 array of namespace first letters (bytes) to cross.
    require_label : an unlabeled line is an error (training) or gets a NaN label (prediction).

    Returns ``(labels, weights, indptr, indices, values, lines, n_bad, code, error_line,
    token_start, token_end)`` as ``parse_svmlight``.
    """
    mask = (np.int64(1) << bits) - 1
    row_cap = max(16, end // 64)
    nnz_cap = max(16, end // 8)
    labels = np.empty(row_cap)
    weights = np.empty(row_cap)
    indptr = np.empty(row_cap + 1, np.int32)
    indices = np.empty(nnz_cap, np.int32)
    values = np.empty(nnz_cap)
    indptr[0] = 0
    # one example's features before crossing: hash, value, namespace letter, namespace number
    f_hash = np.empty(256, np.int64)
    f_val = np.empty(256)
    f_letter = np.empty(256, np.int64)
    f_group = np.empty(256, np.int64)
    n = 0
    nnz = 0
    line = 0
    n_bad = 0
    first_code = 0
    first_line = -1
    first_start = 0
    first_end = 0
    i = 0
    while i < end:
        while i < end and is_space(buf[i]):
            i += 1
        if i >= end:
            break
        if buf[i] == NEWLINE:
            i += 1
            line += 1
            continue
        line_start = i
        code = 0
        tok = i
        label = np.nan
        weight = 1.0
        # -- label section: tokens before the first '|'
        n_tokens = 0
        while i < end and buf[i] != NEWLINE and buf[i] != BAR and code == 0:
            if is_space(buf[i]):
                i += 1
                continue
            tok = i
            if n_tokens == 0 and buf[i] != QUOTE:
                value, j, status = parse_number(buf, i, end)
                if status == NUMBER_NONFINITE:
                    code = E.NONFINITE
                elif status != NUMBER_OK or (j < end and not _is_end(buf[j])):
                    code = E.NONNUMERIC_LABEL
                label = value
                i = j
            elif n_tokens == 1 and buf[i] != QUOTE:
                value, j, status = parse_number(buf, i, end)
                if status == NUMBER_OK and (j >= end or _is_end(buf[j])):
                    if value < 0.0:
                        code = E.BAD_IMPORTANCE
                    weight = value
                    i = j
                elif status == NUMBER_NONFINITE:
                    code = E.BAD_IMPORTANCE
                else:  # a tag without quote
                    while i < end and not _is_end(buf[i]):
                        i += 1
            else:  # tag, or VW's base value: ignored
                while i < end and not _is_end(buf[i]):
                    i += 1
            n_tokens += 1
        if code == 0 and (i >= end or buf[i] != BAR):
            if n_tokens > 0 and i < end:
                code = E.NO_FEATURES_BAR
                tok = line_start
        if code == 0 and require_label and n_tokens == 0:
            code = E.NO_LABEL
            tok = line_start
        # -- namespaces and features
        count = 0
        group = -1
        letter = 32
        scale = 1.0
        seed = np.int64(0)
        while code == 0 and i < end and buf[i] != NEWLINE:
            c = buf[i]
            if is_space(c):
                i += 1
                continue
            if c == BAR:
                i += 1
                group += 1
                scale = 1.0
                k = i
                while k < end and not _is_end(buf[k]) and buf[k] != COLON:
                    k += 1
                seed = murmur3_32(buf, i, k, 0) if k > i else np.int64(0)
                letter = buf[i] if k > i else 32
                if k < end and buf[k] == COLON:
                    tok = i
                    value, j, status = parse_number(buf, k + 1, end)
                    if status != NUMBER_OK or (j < end and not _is_end(buf[j])):
                        code = E.BAD_NAMESPACE_VALUE if status != NUMBER_NONFINITE else E.NONFINITE
                        break
                    scale = value
                    k = j
                i = k
                continue
            tok = i
            k = i
            while k < end and not _is_end(buf[k]) and buf[k] != COLON:
                k += 1
            name_end = k
            value = 1.0
            if k < end and buf[k] == COLON:
                value, j, status = parse_number(buf, k + 1, end)
                if status == NUMBER_NONFINITE:
                    code = E.NONFINITE
                    break
                if status != NUMBER_OK or (j < end and not _is_end(buf[j])):
                    code = E.BAD_VALUE
                    break
                k = j
            if count == f_hash.shape[0]:
                f_hash = _grow(f_hash, count + 1)
                f_val = _grow(f_val, count + 1)
                f_letter = _grow(f_letter, count + 1)
                f_group = _grow(f_group, count + 1)
            f_hash[count] = murmur3_32(buf, i, name_end, seed)
            f_val[count] = value * scale
            f_letter[count] = letter
            f_group[count] = group
            count += 1
            i = k
        if code == 0 and i >= end and final:
            code = E.CUT_OFF
            tok = line_start
        if code == 0:
            # crossings: n-grams within a namespace, then quadratic pairs of namespaces
            total = count
            if ngram >= 2:
                for s in range(count):
                    h = f_hash[s]
                    v = f_val[s]
                    for length in range(2, ngram + 1):
                        t = s + length - 1
                        if t >= count or f_group[t] != f_group[s]:
                            break
                        h = combine(h, f_hash[t])
                        v = v * f_val[t]
                        if total == f_hash.shape[0]:
                            f_hash = _grow(f_hash, total + 1)
                            f_val = _grow(f_val, total + 1)
                            f_letter = _grow(f_letter, total + 1)
                            f_group = _grow(f_group, total + 1)
                        f_hash[total] = h
                        f_val[total] = v
                        f_letter[total] = -1
                        f_group[total] = -1
                        total += 1
            for p in range(quadratic.shape[0]):
                for s in range(count):
                    if f_letter[s] != quadratic[p, 0]:
                        continue
                    for t in range(count):
                        if f_letter[t] != quadratic[p, 1]:
                            continue
                        if total == f_hash.shape[0]:
                            f_hash = _grow(f_hash, total + 1)
                            f_val = _grow(f_val, total + 1)
                            f_letter = _grow(f_letter, total + 1)
                            f_group = _grow(f_group, total + 1)
                        f_hash[total] = combine(f_hash[s], f_hash[t])
                        f_val[total] = f_val[s] * f_val[t]
                        f_letter[total] = -1
                        f_group[total] = -1
                        total += 1
            if n == labels.shape[0]:
                labels = _grow(labels, n + 1)
                weights = _grow(weights, n + 1)
                indptr = _grow(indptr, n + 2)
            while nnz + total > indices.shape[0]:
                indices = _grow(indices, nnz + total)
                values = _grow(values, nnz + total)
            nnz = _emit_row(f_hash, f_val, total, mask, indices, values, nnz)
            labels[n] = label
            weights[n] = weight
            n += 1
            indptr[n] = nnz
            if i < end:
                i += 1
                line += 1
            continue
        stop = tok
        if code == E.CUT_OFF or code == E.NO_FEATURES_BAR or code == E.NO_LABEL:
            while stop < end and buf[stop] != NEWLINE:
                stop += 1
        else:
            while stop < end and not (is_space(buf[stop]) or buf[stop] == NEWLINE):
                stop += 1
        if n_bad == 0:
            first_code = code
            first_line = line
            first_start = tok
            first_end = stop
        n_bad += 1
        if not skip_bad:
            break
        while i < end and buf[i] != NEWLINE:
            i += 1
        if i < end:
            i += 1
            line += 1
    return (
        _prefix(labels, n),
        _prefix(weights, n),
        _prefix(indptr, n + 1),
        _prefix(indices, nnz),
        _prefix(values, nnz),
        line,
        n_bad,
        first_code,
        first_line,
        first_start,
        first_end,
    )


@jit
def hash_bytes(buf, seed):
    """MurmurHash3 x86_32 of a whole byte array (used by ``olearn.io.murmurhash3_32``)."""
    return murmur3_32(buf, 0, buf.shape[0], seed)
