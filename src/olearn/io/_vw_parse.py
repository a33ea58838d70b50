"""The compiled parse loop of the Vowpal-Wabbit-style text format, with feature hashing.

A line is ``label [importance [base]] ['tag] |namespace[:weight] feature[:value] ...
|namespace ...`` (an unquoted tag touches the ``|``).
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
    unsigned,
)
from olearn.io._svmlight_parse import (  # the parse loops' shared protocol
    DONE,
    MORE_ROWS,
    MORE_SCRATCH,
    MORE_SKIPPED,
    MORE_VALUES,
    N_STATE,
    S_BAD,
    S_CODE,
    S_ERROR_END,
    S_ERROR_LINE,
    S_ERROR_START,
    S_LINE,
    S_NEED,
    S_NNZ,
    S_ROWS,
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


@jit(_nrt=False)  # reads buf only: no reference counting on every call
def murmur3_32(buf, start, stop, seed):
    """MurmurHash3 x86_32 of ``buf[start:stop]`` (Austin Appleby's reference), unsigned."""
    c1 = 0xCC9E2D51
    c2 = 0x1B873593
    h = seed & MASK32
    n = stop - start
    i = start
    for _ in range(n // 4):
        k = (
            np.int64(buf[unsigned(i)])
            | (np.int64(buf[unsigned(i + 1)]) << 8)
            | (np.int64(buf[unsigned(i + 2)]) << 16)
            | (np.int64(buf[unsigned(i + 3)]) << 24)
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
        k ^= np.int64(buf[unsigned(i + 2)]) << 16
    if tail >= 2:
        k ^= np.int64(buf[unsigned(i + 1)]) << 8
    if tail >= 1:
        k ^= np.int64(buf[unsigned(i)])
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
def _emit_row(hashes, vals, count, mask, keys, out_idx, out_val, nnz):
    """Mask, sort and merge one example's hashed features into the CSR arrays.

    The sort key is ``column · 2³² + position``: sorting it orders by column and, within a
    column, by position (a stable sort), so colliding values are added in input order.
    ``keys`` is scratch of at least ``count`` elements."""
    for q in range(count):
        keys[q] = ((hashes[q] & mask) << 32) | q
    keys[:count].sort()
    last = -1
    for q in range(count):
        c = keys[q] >> 32
        v = vals[keys[q] & 0xFFFFFFFF]
        if c == last:
            out_val[nnz - 1] += v
        else:
            out_idx[nnz] = c
            out_val[nnz] = v
            nnz += 1
            last = c
    return nnz


@jit(_nrt=False)  # reads values only
def _all_finite(values, start, stop):
    """Whether ``values[start:stop]`` are all finite (x − x is 0 for a finite x, NaN else:
    one comparison per row instead of one per value)."""
    zero = 0.0
    for q in range(start, stop):
        zero += values[q] - values[q]
    return zero == 0.0


@jit
def _parse_lines(
    buf, start, end, mask, ngram, quadratic, require_label, max_row, skip_bad, out, scratch, state
):
    """The parse loop of :func:`parse_vw` from ``buf[start]`` into the arrays of ``out``
    (labels, weights, indptr, indices, values, skipped), one example's features in ``scratch``
    (hashes, values, namespace letters, namespace numbers, sort keys), counters in ``state``.

    Returns ``(next position, outcome)`` as ``_svmlight_parse._parse_lines`` (MORE_SCRATCH:
    the scratch arrays are full; ``state[S_NEED]`` is the size needed; an example of more
    than ``max_row`` features, crossings included, is a malformed line). The arrays are
    never reassigned here, so the hot loops do no reference counting.
    """
    labels, weights, indptr, indices, values, skipped = out
    f_hash, f_val, f_letter, f_group, keys = scratch
    n = state[S_ROWS]
    nnz = state[S_NNZ]
    line = state[S_LINE]
    n_bad = state[S_BAD]
    first_code = state[S_CODE]
    first_line = state[S_ERROR_LINE]
    first_start = state[S_ERROR_START]
    first_end = state[S_ERROR_END]
    outcome = DONE
    need = 0
    room = min(f_hash.shape[0], max_row)  # features an example may use in the scratch
    i = start
    while i < end:
        while i < end and is_space(buf[unsigned(i)]):
            i += 1
        if i >= end:
            break
        if buf[unsigned(i)] == NEWLINE:
            i += 1
            line += 1
            continue
        line_start = i
        if n >= labels.shape[0] or n + 1 >= indptr.shape[0]:
            outcome = MORE_ROWS
            break
        code = 0
        tok = i
        label = np.nan
        has_label = False
        weight = 1.0
        # -- label section: tokens before the first '|', as Vowpal Wabbit reads them:
        # label [importance [base]] ['tag], where a tag is quoted or touches the '|' (the label
        # is one even touching it). The base (VW's initial prediction) is checked, not used.
        # A problem after the label is reported once the line is known to have its '|'.
        n_tokens = 0
        tagged = False
        header_code = 0
        header_tok = i
        while i < end and buf[unsigned(i)] != NEWLINE and buf[unsigned(i)] != BAR and code == 0:
            if is_space(buf[unsigned(i)]):
                i += 1
                continue
            tok = i
            if n_tokens == 0 and buf[unsigned(i)] != QUOTE:
                value, j, status = parse_number(buf, i, end)
                if status == NUMBER_NONFINITE:
                    code = E.NONFINITE
                elif status != NUMBER_OK or (j < end and not _is_end(buf[unsigned(j)])):
                    code = E.NONNUMERIC_LABEL
                label = value
                has_label = True
                i = j
            else:
                k = i
                while k < end and not _is_end(buf[unsigned(k)]):
                    k += 1
                problem = 0
                if buf[unsigned(i)] == QUOTE or (k < end and buf[unsigned(k)] == BAR):
                    problem = E.EXTRA_TOKEN if tagged else 0
                    tagged = True
                elif n_tokens > 2:
                    problem = E.EXTRA_TOKEN
                else:
                    value, j, status = parse_number(buf, i, end)
                    number = status == NUMBER_OK and j == k
                    if n_tokens == 1:
                        if number and value >= 0.0:
                            weight = value
                        else:
                            problem = E.BAD_IMPORTANCE
                    elif not number:
                        problem = E.BAD_BASE
                if problem != 0 and header_code == 0:
                    header_code = problem
                    header_tok = tok
                i = k
            n_tokens += 1
        if code == 0 and n_tokens > 0 and (i >= end or buf[unsigned(i)] != BAR):
            code = E.NO_FEATURES_BAR  # (a last line without newline too: it is complete)
            tok = line_start
        if code == 0 and header_code != 0:
            code = header_code
            tok = header_tok
        if code == 0 and require_label and not has_label:  # e.g. "'tag |f a": a tag only
            code = E.NO_LABEL
            tok = line_start
        # -- namespaces and features
        count = 0
        group = -1
        letter = 32
        scale = 1.0
        seed = np.int64(0)
        while code == 0 and i < end and buf[unsigned(i)] != NEWLINE:
            c = buf[unsigned(i)]
            if is_space(c):
                i += 1
                continue
            if c == BAR:
                i += 1
                group += 1
                scale = 1.0
                k = i
                while k < end and not _is_end(buf[unsigned(k)]) and buf[unsigned(k)] != COLON:
                    k += 1
                seed = murmur3_32(buf, i, k, 0) if k > i else np.int64(0)
                letter = buf[unsigned(i)] if k > i else 32
                if k < end and buf[unsigned(k)] == COLON:
                    tok = i
                    value, j, status = parse_number(buf, k + 1, end)
                    if status != NUMBER_OK or (j < end and not _is_end(buf[unsigned(j)])):
                        code = E.BAD_NAMESPACE_VALUE if status != NUMBER_NONFINITE else E.NONFINITE
                        break
                    scale = value
                    k = j
                i = k
                continue
            tok = i
            k = i
            while k < end and not _is_end(buf[unsigned(k)]) and buf[unsigned(k)] != COLON:
                k += 1
            name_end = k
            value = 1.0
            if k < end and buf[unsigned(k)] == COLON:
                value, j, status = parse_number(buf, k + 1, end)
                if status == NUMBER_NONFINITE:
                    code = E.NONFINITE
                    break
                if status != NUMBER_OK or (j < end and not _is_end(buf[unsigned(j)])):
                    code = E.BAD_VALUE
                    break
                k = j
            if count == room:
                if count >= max_row:
                    code = E.ROW_TOO_LARGE
                    tok = line_start
                    break
                code = -1  # out of room: resume from this line with larger arrays
                outcome = MORE_SCRATCH
                need = count + 1
                break
            f_hash[count] = murmur3_32(buf, i, name_end, seed)
            f_val[count] = value * scale
            f_letter[count] = letter
            f_group[count] = group
            count += 1
            i = k
        if code == -1:
            i = line_start
            break
        if code == 0:
            # crossings: n-grams within a namespace, then quadratic pairs of namespaces
            total = count
            if ngram >= 2:
                for s in range(count):
                    if code != 0:
                        break
                    h = f_hash[s]
                    v = f_val[s]
                    for length in range(2, ngram + 1):
                        t = s + length - 1
                        if t >= count or f_group[t] != f_group[s]:
                            break
                        h = combine(h, f_hash[t])
                        v = v * f_val[t]
                        if total == room:
                            code = E.ROW_TOO_LARGE if total >= max_row else -1
                            break
                        f_hash[total] = h
                        f_val[total] = v
                        f_letter[total] = -1
                        f_group[total] = -1
                        total += 1
            for p in range(quadratic.shape[0]):
                for s in range(count):
                    if code != 0 or f_letter[s] != quadratic[p, 0]:
                        continue
                    for t in range(count):
                        if f_letter[t] != quadratic[p, 1]:
                            continue
                        if total == room:
                            code = E.ROW_TOO_LARGE if total >= max_row else -1
                            break
                        f_hash[total] = combine(f_hash[s], f_hash[t])
                        f_val[total] = f_val[s] * f_val[t]
                        f_letter[total] = -1
                        f_group[total] = -1
                        total += 1
            if code == -1:  # the crossings ran out of room
                outcome = MORE_SCRATCH
                need = total + 1
                i = line_start
                break
            if code != 0:
                tok = line_start
            if code == 0 and nnz + total > indices.shape[0]:
                outcome = MORE_VALUES
                need = nnz + total
                i = line_start
                break
            row_start = nnz
            if code == 0:
                nnz = _emit_row(f_hash, f_val, total, mask, keys, indices, values, nnz)
            if code == 0 and not _all_finite(values, row_start, nnz):
                # a namespace weight, a crossing or colliding features overflowed
                nnz = row_start
                code = E.OVERFLOW
                tok = line_start
        if code == 0:
            labels[n] = label
            weights[n] = weight
            n += 1
            indptr[n] = nnz
            if i < end:
                i += 1
                line += 1
            continue
        if skip_bad and n_bad == skipped.shape[0]:
            i = line_start
            outcome = MORE_SKIPPED
            break
        stop = tok
        if (
            code == E.NO_FEATURES_BAR
            or code == E.NO_LABEL
            or code == E.OVERFLOW
            or code == E.ROW_TOO_LARGE
        ):  # the problem is the whole line
            while stop < end and buf[unsigned(stop)] != NEWLINE:
                stop += 1
        else:
            while stop < end and not (
                is_space(buf[unsigned(stop)]) or buf[unsigned(stop)] == NEWLINE
            ):
                stop += 1
        if n_bad == 0:
            first_code = code
            first_line = line
            first_start = tok
            first_end = stop
        if skip_bad:
            skipped[n_bad] = n  # its place among the rows
        n_bad += 1
        if not skip_bad:
            break
        while i < end and buf[unsigned(i)] != NEWLINE:
            i += 1
        if i < end:
            i += 1
            line += 1
    state[S_ROWS] = n
    state[S_NNZ] = nnz
    state[S_LINE] = line
    state[S_BAD] = n_bad
    state[S_CODE] = first_code
    state[S_ERROR_LINE] = first_line
    state[S_ERROR_START] = first_start
    state[S_ERROR_END] = first_end
    state[S_NEED] = need
    return i, outcome


@jit
def parse_vw(buf, end, bits, ngram, quadratic, require_label, max_row, skip_bad, work):
    """Parse the lines of ``buf[:end]`` (see the module docstring; a last line without
    newline is a complete line).

    ngram : n ≥ 2 adds all 2..n-grams of consecutive features within each namespace (0: none).
    quadratic : (q, 2) int64 array of namespace first letters (bytes) to cross.
    require_label : an unlabeled line is an error (training) or gets a NaN label (prediction).
    max_row : most features an example may have, crossings included (the scratch arrays
        grow up to it; an example that needs more is a malformed line).

    work : ``(labels, weights, indptr, indices, values, skipped, f_hash, f_val, f_letter,
        f_group, keys)`` arrays reused from block to block (``work_arrays``).

    Returns ``(labels, weights, indptr, indices, values, skipped, state, work)`` as
    ``parse_svmlight``.
    """
    mask = (np.int64(1) << bits) - 1
    labels, weights, indptr, indices, values, skipped, f_hash, f_val, f_letter, f_group, keys = work
    indptr[0] = 0
    width = f_hash.shape[0]
    state = np.zeros(N_STATE, np.int64)
    state[S_ERROR_LINE] = -1
    i = 0
    while True:
        out = (labels, weights, indptr, indices, values, skipped)
        scratch = (f_hash, f_val, f_letter, f_group, keys)
        i, outcome = _parse_lines(
            buf, i, end, mask, ngram, quadratic, require_label, max_row, skip_bad, out,
            scratch, state,
        )  # fmt: skip
        if outcome == MORE_ROWS:
            n = state[S_ROWS]
            labels = _grow(labels, n + 1)
            weights = _grow(weights, n + 1)
            indptr = _grow(indptr, n + 2)
        elif outcome == MORE_VALUES:
            indices = _grow(indices, state[S_NEED])
            values = _grow(values, state[S_NEED])
        elif outcome == MORE_SCRATCH:
            width = min(max(2 * width, state[S_NEED]), max_row)
            f_hash = np.empty(width, np.int64)
            f_val = np.empty(width)
            f_letter = np.empty(width, np.int64)
            f_group = np.empty(width, np.int64)
            keys = np.empty(width, np.int64)
        elif outcome == MORE_SKIPPED:
            skipped = _grow(skipped, state[S_BAD] + 1)
        else:
            break
    n = state[S_ROWS]
    nnz = state[S_NNZ]
    return (
        _prefix(labels, n),
        _prefix(weights, n),
        _prefix(indptr, n + 1),
        _prefix(indices, nnz),
        _prefix(values, nnz),
        _prefix(skipped, state[S_BAD] if skip_bad else 0),
        state,
        (labels, weights, indptr, indices, values, skipped, f_hash, f_val, f_letter, f_group, keys),
    )


def work_arrays(chunk_bytes: int) -> tuple:
    """Work arrays for :func:`parse_vw` sized for blocks of about ``chunk_bytes`` (and 256
    features an example before crossings: hash, value, namespace letter and number, key)."""
    rows = max(16, chunk_bytes // 64)
    nnz = max(16, chunk_bytes // 8)
    return (
        np.empty(rows),
        np.empty(rows),
        np.empty(rows + 1, np.int32),
        np.empty(nnz, np.int32),
        np.empty(nnz),
        np.empty(16, np.int64),  # skipped lines' places: few, grown when needed
        np.empty(256, np.int64),
        np.empty(256),
        np.empty(256, np.int64),
        np.empty(256, np.int64),
        np.empty(256, np.int64),
    )


@jit
def hash_bytes(buf, seed):
    """MurmurHash3 x86_32 of a whole byte array (used by ``olearn.io.murmurhash3_32``)."""
    return murmur3_32(buf, 0, buf.shape[0], seed)
