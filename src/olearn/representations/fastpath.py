"""Compiled helpers of the per-call paths: ``learn_one``/``predict_one`` and small
``partial_fit`` calls, where each NumPy call (about a microsecond on a few values) would cost
more than the learning itself.

An event is ``(idx, val)``: int64 indices and float64 values, or — when ``val is None`` —
a dict's keys and values packed into the one int64 array ``idx`` (keys first, then the bits
of the values; ``olearn.estimators._events.pack_dict``), split here for free instead of by
two NumPy calls in Python. (In the rest of ``representations`` a ``None`` *index* array
marks a dense row; events are always sparse.)

These functions live in this folder so that the cache stamp of ``olearn._compile`` covers
them.
"""

import numpy as np
from numba import types
from numba.extending import overload

from olearn._compile import jit
from olearn.representations import linear
from olearn.representations.rows import sparse_row_problem


def event_row(idx, val):
    """The event as ``(int64 indices, float64 values)``: ``(idx, val)`` as given, or the two
    halves of the packed array ``idx`` when ``val is None`` (views, no copy)."""
    raise NotImplementedError("compiled only")


@overload(event_row)
def _event_row(idx, val):
    if isinstance(val, types.NoneType):

        def packed(idx, val):
            n = idx.shape[0] // 2
            return idx[:n], idx[n:].view(np.float64)

        return packed

    def pair(idx, val):
        return idx, val

    return pair


@jit
def event_problem(idx, val, n_features):
    """``rows.sparse_row_problem`` of an event (packed or not): 0 if it can be learned,
    1 for an index outside ``[0, n_features)``, 2 for a NaN or infinite value."""
    idx, val = event_row(idx, val)
    return sparse_row_problem(idx, val, n_features)


@jit
def binary_score(idx, val, n_features, W, A, bias, rounds):
    """``predict_one``'s binary case in one call: ``(problem, score)``, the event's
    ``event_problem`` code and (when 0) its score ``w·x̃`` with ``w = W[0]`` — or, for an
    averaged model (``rounds > 0``), the average ``((T + 1)·w·x̃ − a·x̃) / T`` along x
    (``a = A[0]``, T = rounds), in O(nnz) without forming the average. The arithmetic is
    term for term that of ``linear.dot`` and the Python formula it replaces (bit-identical).
    """
    idx, val = event_row(idx, val)
    problem = sparse_row_problem(idx, val, n_features)
    if problem != 0:
        return problem, 0.0
    score = linear.dot(W[0], idx, val, bias)
    if rounds > 0.0:
        summed = linear.dot(A[0], idx, val, bias)
        score = ((rounds + 1.0) * score - summed) / rounds
    return 0, score


@jit
def all_finite(values):
    """Whether every value of a C-contiguous float array is finite: one vectorisable pass
    (``v − v`` is 0 for a finite v, NaN for NaN and ±inf), no early exit."""
    flat = values.ravel()
    bad = 0
    for j in range(flat.shape[0]):
        v = flat[j]
        bad |= (v - v) != 0.0
    return bad == 0


@jit
def binary_labels(y, negative, positive):
    """``(y_signed, ok)``: ±1.0 for each label (+1 for ``positive``), and whether every
    label is one of the two (``y == positive``, ``y == negative`` as NumPy compares them).
    Branch-free: labels in a random order would mispredict a branch half of the time."""
    n = y.shape[0]
    y_signed = np.empty(n)
    ok = True
    for i in range(n):
        label = y[i]
        is_positive = label == positive
        y_signed[i] = 2.0 * is_positive - 1.0
        ok &= is_positive | (label == negative)
    return y_signed, ok
