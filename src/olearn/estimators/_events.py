"""Events of ``learn_one``/``predict_one``: what the compiled calls take, and the checked
conversion.

An event is a dict ``{feature: value}`` or a pair ``(indices, values)``; a feature is an
integer index (``int``, a NumPy integer) or a name (``str``), hashed into the model's width
with the VW reader's MurmurHash3 (``fastpath.hash_dict``). The per-call
budget is a few microseconds for 80 nonzeros, so the common forms go to compiled code as they
are (``fast_event``): a dict as its address and length, read in place
(``olearn.representations.fastpath.read_dict``), a pair of int64 and float64 arrays as
itself. The compiled call checks the indices' range and the values' finiteness, and sends
back a pair that repeats an index (``fastpath.event_row``). When the fast form does not
apply, or the compiled code rejects or cannot read the event, ``event_arrays`` converts with
every check in Python and raises the precise error. A repeated index means the sum of its
values, as in a CSR row: ``event_arrays`` sums it as ``fit`` sums such a row.
"""

from __future__ import annotations

import math
import operator
import struct
from numbers import Real

import numpy as np

from olearn.estimators._validation import summed_repeats
from olearn.io._vw_parse import hash_bytes
from olearn.representations import fastpath

_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
#: One ``struct.Struct`` per dict size met (bounded: beyond it sizes are packed uncached).
_PACKERS: dict[int, struct.Struct] = {}
_MAX_PACKERS = 1024


def fast_event(x):
    """``x`` as the compiled fast paths take it — ``(id(x), len(x))`` for a dict (which the
    caller keeps alive during the call; the hot callers test for a dict themselves), the
    pair itself for int64 and float64 1-D arrays of one length — or None when ``x`` needs
    ``event_arrays``. Nothing is checked beyond types and shapes."""
    if type(x) is dict:
        return id(x), len(x)
    if type(x) is tuple and len(x) == 2:
        idx, val = x
        if (
            type(idx) is np.ndarray
            and type(val) is np.ndarray
            and idx.dtype is _INT64
            and val.dtype is _FLOAT64
            and idx.ndim == 1
            and idx.shape == val.shape
        ):
            return x
    return None


def named_event(x, n_features: int):
    """A dict whose keys include names (``str``) as (int64 indices, float64 values), the
    names hashed in compiled code (``fastpath.hash_dict``) — unchecked: for the compiled
    calls that check the indices and values themselves (and whose callers word a rejected
    event's error with ``event_arrays``). None when the dict cannot be read there."""
    if type(x) is dict:
        idx, val, ok = fastpath.hash_dict(id(x), len(x), n_features)
        if ok:
            return idx, val
    return None


def pack_dict(x: dict):
    """The keys of ``x`` then the bits of its values as one int64 array of length 2·len(x)
    (one ``struct`` call: cheaper than two ``np.fromiter``), or None if a key is not an
    integer within int64 (``struct`` takes ``__index__`` only: a float or string key is
    never truncated) or a value not a float."""
    n = len(x)
    packer = _PACKERS.get(n)
    if packer is None:
        packer = struct.Struct(f"{n}q{n}d")
        if len(_PACKERS) < _MAX_PACKERS:
            _PACKERS[n] = packer
    raw = np.empty(2 * n, dtype=np.int64)
    try:
        packer.pack_into(raw, 0, *x, *x.values())
    except struct.error:
        return None
    return raw


def event_arrays(x, n_features: int, *, unseen: bool = False):
    """``x`` as (int64 indices, float64 values), every check done: a clear ValueError for a
    malformed event, a non-integer, negative or out-of-range index, or a NaN or infinite
    value. A ``str`` key is a feature name, hashed into ``[0, n_features)`` as the VW reader
    hashes it (``fastpath.hash_dict``; names that collide add up); a pair's repeated index
    is summed as in a CSR row (``_summed_as_a_row``). With ``unseen`` (an event
    to score), an index beyond ``n_features`` is a feature never seen in training: dropped,
    as with hashing, not an error."""
    if isinstance(x, dict):
        idx, val, ok = fastpath.hash_dict(id(x), len(x), n_features)
        if not ok:
            raw = pack_dict(x)
            if raw is not None:
                n = len(x)
                idx, val = raw[:n], raw[n:].view(np.float64)
            else:
                idx = _indices(list(x), n_features, unseen)
                val = np.fromiter(x.values(), np.float64, len(x))
                idx, val = fastpath.summed_repeats(idx, val)
    else:
        try:
            idx, val = x
        except (TypeError, ValueError):
            raise ValueError(
                "x must be a dict {index: value} or a pair of equal-length arrays."
            ) from None
        idx = np.asarray(idx)
        val = np.asarray(val, dtype=np.float64)
        if idx.shape != val.shape or idx.ndim != 1:
            raise ValueError("x must be a dict {index: value} or a pair of equal-length arrays.")
        if idx.dtype.kind in "iub":
            bad = (idx < 0) | ((idx >= n_features) & (not unseen))
            if bad.any():
                _raise_out_of_range(idx[bad][0], n_features)
            if idx.dtype.kind == "u":
                idx = np.minimum(idx, n_features)  # beyond the width: unseen, dropped below
            idx = idx.astype(np.int64, copy=False)
        else:
            idx = _indices(idx.tolist(), n_features, unseen)
        if fastpath._has_repeat(idx):
            idx, val = _summed_as_a_row(idx, val)
    bad = (idx < 0) | ((idx >= n_features) & (not unseen))
    if bad.any():
        _raise_out_of_range(idx[bad][0], n_features)
    if not np.isfinite(val).all():
        raise ValueError("x contains NaN or infinity.")
    if unseen:
        seen = idx < n_features
        if not seen.all():
            idx, val = idx[seen], val[seen]
    return idx, val


def _summed_as_a_row(idx, val):
    """A pair that repeats an index (checked, ≥ 0) summed as ``fit`` sums a CSR row that
    does (``summed_repeats``: sorted, scipy's order of addition), so that the event is
    learned and scored bit for bit as that row; the caller's arrays are not changed."""
    indptr = np.array([0, len(idx)])
    data, _, indices = summed_repeats(val, indptr, idx, (1, int(idx.max()) + 1))
    return indices.astype(np.int64), data


def _indices(keys: list, n_features: int, unseen: bool = False) -> np.ndarray:
    """Feature indices given as arbitrary objects: integers, floats with an integral value
    (3.0), or names (str, hashed); anything else (1.5, NaN, None) is an error, never
    truncated. A name hashes as in ``fastpath.hash_dict``."""
    out = []
    for key in keys:
        if isinstance(key, str):
            name = np.frombuffer(key.encode("utf-8", "surrogatepass"), np.uint8)
            out.append(int(hash_bytes(name, 0)) % n_features)
            continue
        try:
            index = operator.index(key)
        except TypeError:
            if not (isinstance(key, Real) and math.isfinite(key) and float(key).is_integer()):
                raise ValueError(
                    f"feature indices must be integers or names (str), got {key!r}."
                ) from None
            index = int(key)
        if index < 0 or (index >= n_features and not unseen):
            _raise_out_of_range(key, n_features)
        out.append(min(index, n_features))  # an unseen index: any value ≥ n_features
    return np.array(out, dtype=np.int64)


def _raise_out_of_range(index, n_features: int):
    raise ValueError(f"feature index out of range [0, {n_features}): {index}.")


def raise_problem(x, n_features: int):
    """Raise the error of an event that a compiled check rejected."""
    event_arrays(x, n_features)
    raise ValueError("x cannot be learned: an index is out of range or a value not finite.")
