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
import weakref
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from olearn.estimators._validation import summed_repeats
from olearn.io._vw_parse import hash_bytes
from olearn.representations import fastpath

_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
#: One ``struct.Struct`` per dict size met (bounded: beyond it sizes are packed uncached).
_PACKERS: dict[int, struct.Struct] = {}
_MAX_PACKERS = 1024

#: The width of a model whose first input is an event (``learn_one`` on an unfitted model):
#: 2**18 features, Vowpal Wabbit's default (``-b 18``).
EVENT_WIDTH = 1 << 18


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


def sorted_event(x, n_features: int, *, unseen: bool = False):
    """``x`` as one canonical CSR row, (int64 indices, increasing; float64 values), every
    check of ``event_arrays`` done and its errors: what a one-row CSR matrix of the event
    holds once checked and sorted (a kernel expansion stores rows in that form), in one
    compiled call for the common forms (``fastpath.sorted_event``). ``unseen`` as in
    ``event_arrays``: indices beyond ``n_features`` dropped."""
    first, second = fast_event(x) or event_arrays(x, n_features, unseen=unseen)
    problem, idx, val = fastpath.sorted_event(first, second, n_features, unseen)
    if problem == fastpath.UNREADABLE:  # a key or value read in Python, a repeated index
        idx, val = event_arrays(x, n_features, unseen=unseen)
        problem, idx, val = fastpath.sorted_event(idx, val, n_features, unseen)
    if problem:
        event_arrays(x, n_features, unseen=unseen)  # raises the precise error
        raise ValueError("x cannot be read: an index is out of range or a value not finite.")
    return idx, val


def event_matrix(x, n_features=None) -> sp.csr_matrix:
    """One event as a one-row CSR matrix of ``n_features`` columns (``EVENT_WIDTH`` by
    default): how an unfitted model meets its first event."""
    if n_features is None:
        n_features = EVENT_WIDTH
    elif isinstance(n_features, bool) or not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    idx, val = event_arrays(x, int(n_features))
    return sp.csr_matrix((val, idx, [0, len(idx)]), shape=(1, int(n_features)))


def check_event_width(model, n_features):
    """``n_features`` for an unfitted model's first event: a full covariance is a D × D
    matrix, which the default width cannot have (2¹⁸ features: 512 GiB)."""
    if n_features is None and getattr(model, "_covariance_kind", lambda: None)() == "full":
        size = 8 * (EVENT_WIDTH + 1) ** 2 / 2**30
        raise ValueError(
            f"{type(model).__name__} with covariance='full' keeps a D × D matrix: give its "
            f"first learn_one n_features= (the default width {EVENT_WIDTH} would take "
            f"{size:.0f} GiB)."
        )
    return n_features


class EventInput:
    """What every model's ``learn_one``/``predict_one`` shares beyond reading the event: a
    model fitted on named columns reads ``str`` keys as those names, and ``n_features``
    sets the width of an unfitted model only."""

    def _by_name(self, x: dict, *, learn: bool) -> dict:
        """An event of a model fitted on named columns (a DataFrame: ``feature_names_in_``)
        with its ``str`` keys read as those names, not hashed: ``{"age": 41.0}`` is the
        column named "age", as ``predict`` of a DataFrame reads it. A name the model does
        not have is refused when learning (there is no column for it) and ignored when
        scoring, as a feature never seen in training is."""
        names = self.feature_names_in_
        kept = _NAME_COLUMNS.get(self)
        if kept is None or kept[0] is not names:
            kept = _NAME_COLUMNS[self] = (names, {str(name): j for j, name in enumerate(names)})
        columns = kept[1]
        event = {}
        for key, value in x.items():
            if type(key) is str:
                column = columns.get(key)
                if column is None:
                    if learn:
                        raise ValueError(
                            f"x has the feature {key!r}, which is not among the names the "
                            f"model was fitted on (feature_names_in_)."
                        )
                    continue
                key = column
            event[key] = event[key] + value if key in event else value  # (a name and its index)
        return event

    def _check_fitted_width(self, n_features) -> None:
        """``n_features`` given with a fitted model's event: its own width only."""
        if n_features is not None and n_features != self.n_features_in_:
            raise ValueError(
                f"n_features={n_features!r} sets the width of an unfitted model only; this "
                f"one has {self.n_features_in_} features."
            )


#: Each model's column of each name of its ``feature_names_in_`` (``_by_name``), with the
#: names array it was made from.
_NAME_COLUMNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
