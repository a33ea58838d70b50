"""The compiled svmlight/libsvm parse loop over raw bytes (no Python per line or token).

A line is ``label [qid:N] index:value ... [# comment]``. The loop fills CSR arrays (int32
indices, float64 values), checks every token against the error catalogue (``_errors``) and
either stops at the first malformed line (reporting its position) or skips and counts it,
recording the row it came before (so that a prediction can keep its place).
"""

import numpy as np

from olearn._compile import jit
from olearn.io import _errors as E
from olearn.io._buffers import grow as _grow
from olearn.io._buffers import prefix as _prefix
from olearn.io._numbers import (
    COLON,
    HASH,
    MINUS,
    NEWLINE,
    NUMBER_NONFINITE,
    NUMBER_OK,
    PLUS,
    digit_value,
    is_space,
    is_token_end,
    leading_digits,
    parse_number,
    unsigned,
)

MAX_INDEX = 2**31 - 2  # int32 CSR indices
N_LABELS_TRACKED = 256

# Outcomes of a parse loop, and the slots of its counters (shared with the VW parse).
DONE = 0
MORE_ROWS = 1
MORE_VALUES = 2
MORE_SCRATCH = 3
MORE_SKIPPED = 4
S_ROWS = 0
S_NNZ = 1
S_LINE = 2
S_BAD = 3
S_CODE = 4
S_ERROR_LINE = 5
S_ERROR_START = 6
S_ERROR_END = 7
S_MIN = 8
S_MAX = 9
S_NEED = 10
S_UNSEEN = 11  # feature values beyond the width, ignored (``ignore_unseen``)
S_UNSEEN_ROWS = 12  # rows that had any
N_STATE = 13


@jit(_nrt=False)  # reads buf only: no reference counting on every call
def _token_end(buf, i, end):
    while i < end and not is_token_end(buf[unsigned(i)]):
        i += 1
    return i


@jit(_nrt=False)  # reads buf only: no reference counting on every call
def _line_end(buf, i, end):
    while i < end and buf[unsigned(i)] != NEWLINE:
        i += 1
    return i


@jit
def _parse_lines(buf, start, end, base, n_features, ignore_unseen, skip_bad, out, state):
    """The parse loop of :func:`parse_svmlight` from ``buf[start]`` into the arrays of
    ``out`` (labels, qids, indptr, indices, values, skipped), counters in ``state``.
    ``skipped[k]`` receives the number of rows stored before the k-th skipped line.

    Returns ``(next position, outcome)``: DONE, or MORE_ROWS / MORE_VALUES / MORE_SKIPPED
    when an array is full (the caller grows it and resumes at the returned position, a
    line's start). The arrays are never reassigned here, so the hot loops do no reference
    counting.
    """
    labels, qids, indptr, indices, values, skipped = out
    n = state[S_ROWS]
    nnz = state[S_NNZ]
    line = state[S_LINE]
    n_bad = state[S_BAD]
    first_code = state[S_CODE]
    first_line = state[S_ERROR_LINE]
    first_start = state[S_ERROR_START]
    first_end = state[S_ERROR_END]
    min_index = state[S_MIN]
    max_index = state[S_MAX]
    n_unseen = state[S_UNSEEN]
    unseen_rows = state[S_UNSEEN_ROWS]
    outcome = DONE
    i = start
    while i < end:
        while i < end and is_space(buf[unsigned(i)]):
            i += 1
        if i >= end:
            break
        c = buf[unsigned(i)]
        if c == NEWLINE:
            i += 1
            line += 1
            continue
        if c == HASH:
            i = _line_end(buf, i, end)
            if i < end:
                i += 1
                line += 1
            continue
        line_start = i
        if n >= labels.shape[0] or n + 1 >= indptr.shape[0]:
            outcome = MORE_ROWS
            break
        code = 0
        tok = i
        line_unseen = 0
        label, j, status = parse_number(buf, i, end)
        qid = np.int64(0)
        if status == NUMBER_NONFINITE:
            code = E.NONFINITE
        elif status != NUMBER_OK or (j < end and not is_token_end(buf[unsigned(j)])):
            code = E.NONNUMERIC_LABEL
        else:
            i = j
            prev = np.int64(-1)
            while True:
                while i < end and is_space(buf[unsigned(i)]):
                    i += 1
                if i >= end:
                    break
                c = buf[unsigned(i)]
                if c == NEWLINE:
                    break
                if c == HASH:
                    i = _line_end(buf, i, end)
                    break
                tok = i
                if (
                    c == 113
                    and i + 3 < end
                    and buf[unsigned(i + 1)] == 105
                    and buf[unsigned(i + 2)] == 100
                    and buf[unsigned(i + 3)] == COLON
                ):  # "qid:"
                    k = i + 4
                    negative = False  # (a signed qid, "qid:-1", as scikit-learn reads it)
                    if k < end and (buf[unsigned(k)] == MINUS or buf[unsigned(k)] == PLUS):
                        negative = buf[unsigned(k)] == MINUS
                        k += 1
                    q = np.int64(0)
                    digits = 0
                    while k < end and 48 <= buf[unsigned(k)] <= 57 and digits < 18:
                        q = q * 10 + (buf[unsigned(k)] - 48)
                        digits += 1
                        k += 1
                    if digits == 0 or (k < end and not is_token_end(buf[unsigned(k)])):
                        code = E.BAD_QID
                        break
                    qid = -q if negative else q
                    i = k
                    continue
                if c == MINUS:
                    code = E.NEGATIVE_INDEX
                    break
                if c == PLUS:  # an index written with its sign, "+3:1" (scikit-learn reads it)
                    i += 1
                digits, leading = leading_digits(buf, i, end)  # most indices: one step
                more = digits < 0 or digits == 8  # near the end, or 8 digits: one by one
                if digits < 0:
                    digits, leading = np.int64(0), np.uint64(0)
                index = np.int64(leading)
                k = i + digits
                while more and k < end:
                    d = digit_value(buf[unsigned(k)])
                    if d > 9:
                        break
                    if index <= MAX_INDEX + 1:
                        index = index * 10 + np.int64(d)
                    digits += 1
                    k += 1
                if k >= end or buf[unsigned(k)] != COLON:
                    stop = _token_end(buf, i, end)
                    has_colon = False
                    for q in range(i, stop):
                        if buf[unsigned(q)] == COLON:
                            has_colon = True
                    code = E.BAD_INDEX if has_colon else E.MISSING_COLON
                    break
                if digits == 0:
                    code = E.BAD_INDEX
                    break
                value, k, status = parse_number(buf, k + 1, end)
                if status == NUMBER_NONFINITE:
                    code = E.NONFINITE
                    break
                if status != NUMBER_OK or (k < end and not is_token_end(buf[unsigned(k)])):
                    code = E.BAD_VALUE
                    break
                if base == 1 and index == 0:
                    code = E.ZERO_INDEX
                    break
                if index <= prev:
                    code = E.DUPLICATE_INDEX if index == prev else E.UNSORTED_INDEX
                    break
                column = index - base
                if n_features >= 0 and column >= n_features:
                    if not ignore_unseen:
                        code = E.INDEX_OUT_OF_RANGE
                        break
                    line_unseen += 1  # a feature the model never saw: no weight, no effect
                    prev = index
                    i = k
                    continue
                if column > MAX_INDEX:
                    code = E.INDEX_TOO_LARGE
                    break
                if nnz == indices.shape[0]:
                    code = -1  # out of room: resume from this line with larger arrays
                    break
                indices[nnz] = column
                values[nnz] = value
                nnz += 1
                prev = index
                i = k
        if code == -1:
            nnz = indptr[n]
            i = line_start
            outcome = MORE_VALUES
            break
        if code == 0:
            if nnz > indptr[n]:  # indices increase along a row
                min_index = min(min_index, np.int64(indices[indptr[n]]) + base)
                max_index = max(max_index, np.int64(indices[nnz - 1]) + base)
            labels[n] = label
            qids[n] = qid
            n += 1
            if line_unseen:
                n_unseen += line_unseen
                unseen_rows += 1
            indptr[n] = nnz
            if i < end:
                i += 1
                line += 1
            continue
        # a malformed line: report it, or roll it back and go on
        if skip_bad and n_bad == skipped.shape[0]:
            nnz = indptr[n]
            i = line_start
            outcome = MORE_SKIPPED
            break
        token_stop = _token_end(buf, tok, end)
        if tok == token_stop:  # an empty token (e.g. "3:" at the end) shows the line's tail
            token_stop = _line_end(buf, tok, end)
        if n_bad == 0:
            first_code = code
            first_line = line
            first_start = tok
            first_end = token_stop
        if skip_bad:
            skipped[n_bad] = n  # its place among the rows
        n_bad += 1
        if not skip_bad:
            break
        nnz = indptr[n]
        i = _line_end(buf, i, end)
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
    state[S_MIN] = min_index
    state[S_MAX] = max_index
    state[S_UNSEEN] = n_unseen
    state[S_UNSEEN_ROWS] = unseen_rows
    return i, outcome


@jit
def parse_svmlight(buf, end, base, n_features, ignore_unseen, skip_bad, work):
    """Parse the lines of ``buf[:end]`` (complete lines; a last line without newline is a
    complete line too).

    base : 0 or 1, the index of the first feature in the file.
    n_features : width of the model, or -1 (indices then only need to fit int32).
    ignore_unseen : indices at or beyond ``n_features`` are dropped and counted (prediction
        with a model that never saw them) instead of being an error.
    skip_bad : skip and count malformed lines instead of stopping at the first.

    work : ``(labels, qids, indptr, indices, values, skipped)`` arrays to parse into
        (``work_arrays``), reused from block to block: only the exact-size copies returned
        are new memory.

    Returns ``(labels, qids, indptr, indices, values, skipped, state, work)``: ``skipped``
    holds, for each skipped line in order (``skip_bad`` only: else it is empty), the number
    of rows stored before it; ``state`` holds the
    counters at the ``S_*`` slots — lines consumed (newlines), malformed lines, the first
    one's error code, 0-based line within the buffer and token span, the smallest and
    largest raw file index over the stored rows, the unseen features dropped and the rows
    that had any; ``work`` the work arrays, grown if they had to be.
    """
    labels, qids, indptr, indices, values, skipped = work
    indptr[0] = 0
    state = np.zeros(N_STATE, np.int64)
    state[S_ERROR_LINE] = -1
    state[S_MIN] = 2**62
    state[S_MAX] = -1
    i = 0
    while True:
        out = (labels, qids, indptr, indices, values, skipped)
        i, outcome = _parse_lines(
            buf, i, end, base, n_features, ignore_unseen, skip_bad, out, state
        )
        if outcome == MORE_ROWS:
            n = state[S_ROWS]
            labels = _grow(labels, n + 1)
            qids = _grow(qids, n + 1)
            indptr = _grow(indptr, n + 2)
        elif outcome == MORE_VALUES:
            nnz = state[S_NNZ]
            indices = _grow(indices, nnz + 1)
            values = _grow(values, nnz + 1)
        elif outcome == MORE_SKIPPED:
            skipped = _grow(skipped, state[S_BAD] + 1)
        else:
            break
    n = state[S_ROWS]
    nnz = state[S_NNZ]
    return (
        _prefix(labels, n),
        _prefix(qids, n),
        _prefix(indptr, n + 1),
        _prefix(indices, nnz),
        _prefix(values, nnz),
        _prefix(skipped, state[S_BAD] if skip_bad else 0),
        state,
        (labels, qids, indptr, indices, values, skipped),
    )


def work_arrays(chunk_bytes: int) -> tuple:
    """Work arrays for :func:`parse_svmlight` sized for blocks of about ``chunk_bytes``."""
    rows = max(16, chunk_bytes // 64)
    nnz = max(16, chunk_bytes // 8)
    return (
        np.empty(rows),
        np.empty(rows, np.int64),
        np.empty(rows + 1, np.int32),
        np.empty(nnz, np.int32),
        np.empty(nnz),
        np.empty(16, np.int64),  # skipped lines' places: few, grown when needed
    )


@jit
def scan_svmlight(buf, end, labels, n_labels):
    """A light pass for the width and the label set: the smallest and largest feature index
    and the distinct labels (up to ``labels.shape[0]`` of them, added to ``labels[:n_labels]``).
    Malformed lines are not diagnosed here (the parse does that).

    Returns ``(min_index, max_index, n_labels, n_examples)``; ``n_labels`` is -1 once there
    are more distinct labels than fit. (No line count: counting costs this loop 15 %.)
    """
    min_index = np.int64(2**62)
    max_index = np.int64(-1)
    n_examples = 0
    i = 0
    while i < end:
        while i < end and is_space(buf[unsigned(i)]):
            i += 1
        if i >= end:
            break
        if buf[unsigned(i)] == NEWLINE:
            i += 1
            continue
        if buf[unsigned(i)] == HASH:
            i = _line_end(buf, i, end) + 1
            continue
        label, j, status = parse_number(buf, i, end)
        n_examples += 1
        if status == NUMBER_OK and n_labels >= 0:
            known = False
            for q in range(n_labels):
                if labels[q] == label:
                    known = True
                    break
            if not known:
                if n_labels < labels.shape[0]:
                    labels[n_labels] = label
                    n_labels += 1
                else:
                    n_labels = -1
        i = _token_end(buf, i, end)
        while i < end and buf[unsigned(i)] != NEWLINE:
            while i < end and is_space(buf[unsigned(i)]):
                i += 1
            if i >= end or buf[unsigned(i)] == NEWLINE:
                break
            if buf[unsigned(i)] == HASH:
                i = _line_end(buf, i, end)
                break
            index = np.int64(0)
            first = i + (buf[unsigned(i)] == PLUS)  # (a signed index, "+3:1")
            k = first
            while k < end:
                d = digit_value(buf[unsigned(k)])
                if d > 9:
                    break
                if index <= MAX_INDEX + 1:
                    index = index * 10 + np.int64(d)
                k += 1
            if k > first and k < end and buf[unsigned(k)] == COLON:
                if index < min_index:
                    min_index = index
                if index > max_index:
                    max_index = index
            i = _token_end(buf, k, end)
        i += 1
    return min_index, max_index, n_labels, n_examples
