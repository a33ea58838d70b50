"""Sorted distinct labels without ``np.unique``, whose first call imports ``numpy.ma`` (15 ms,
to test for a masked array): a cost the command line's start-up pays on every run. (NumPy is
imported on the first call: ``olearn --help`` imports this module and stays light.)"""

from __future__ import annotations


def distinct(values):
    """The sorted distinct values of ``values`` as a float64 array (``np.unique``'s)."""
    import numpy as np

    ordered = np.sort(np.asarray(values, dtype=np.float64).ravel())
    first = np.ones(ordered.shape, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]
