"""``olearn._sets.distinct``: ``np.unique`` of labels without importing ``numpy.ma``."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from olearn._sets import distinct


@given(st.lists(st.one_of(st.integers(-3, 3), st.floats(allow_nan=False)), max_size=40))
def test_distinct_is_numpys_unique(values):
    expected = np.unique(np.asarray(values, dtype=np.float64))
    got = distinct(values)
    assert got.dtype == np.float64 and got.tolist() == expected.tolist()
    assert np.signbit(got).tolist() == np.signbit(expected).tolist()  # which zero is kept
