"""Growable compiled buffers shared by the parse loops."""

import numpy as np

from olearn._compile import jit


@jit
def prefix(a, n):
    """A copy of ``a[:n]`` (a loop compiles far faster than slicing and ``copy``)."""
    b = np.empty(n, a.dtype)
    for i in range(n):
        b[i] = a[i]
    return b


@jit
def grow(a, n):
    """``a`` copied into a buffer of at least ``n`` (and at least twice its) elements."""
    b = np.empty(max(2 * a.shape[0], n), a.dtype)
    for i in range(a.shape[0]):  # a loop compiles far faster than slice assignment
        b[i] = a[i]
    return b
