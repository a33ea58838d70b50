"""Compiled helpers of the per-call paths: ``learn_one``/``predict_one`` and small
``partial_fit`` calls, where each NumPy call (about a microsecond on a few values) would cost
more than the learning itself.

An event reaches compiled code as ``(idx, val)``, int64 indices and float64 values, or as
``(address, length)`` of a Python dict ``{index: value}`` (``id(x), len(x)``), which
``event_row`` reads in place through the CPython C API: no Python-level conversion at all
(two ``np.fromiter`` calls cost about as much as the learning step). Only what converts
without running Python code is read — integer keys within int64 (``int``, NumPy integers,
bool: objects of static C types), values of type ``float`` (or a subclass, such as
``np.float64``), ``int`` or another static C type (``np.float32``) — with the very
conversions NumPy and ``struct`` apply (``PyLong_AsLongLong``, ``PyFloat_AsDouble``), so the
arrays are bit for bit those of ``np.fromiter``; ``hash_dict`` also reads ``str`` keys
(feature names, hashed as the VW reader hashes them). Any other dict is reported unreadable
and the caller converts it in Python. Functions that read a dict must hold the GIL
(``jit(nogil=False)``): the dict may not change while it is read.

These functions live in this folder so that the cache stamp of ``olearn._compile`` covers
them. (In the rest of ``representations`` a ``None`` index array marks a dense row; events
are always sparse.)
"""

import ctypes

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from olearn._compile import jit
from olearn.io._vw_parse import murmur3_32

# -- reading a Python dict (CPython C API, under the GIL) ------------------------------------


def _type_is(context, builder, pyapi, type_ptr, name):
    """``Py_TYPE(obj) == &name`` for a type object of the C API (e.g. ``PyLong_Type``)."""
    target = context.get_c_value(builder, ir.IntType(8), name, dllimport=True)
    return builder.icmp_unsigned("==", type_ptr, builder.bitcast(target, type_ptr.type))


def _clear_error_if(builder, pyapi, maybe, ok):
    """After a C API conversion whose result ``maybe`` signals a possible error: if an
    exception is set, clear it and store False in ``ok``."""
    with builder.if_then(maybe, likely=False):
        with builder.if_then(cgutils.is_not_null(builder, pyapi.err_occurred())):
            pyapi.err_clear()
            builder.store(cgutils.false_bit, ok)


@intrinsic
def _dict_next(typingctx, address, position):
    """``PyDict_Next``: ``(next position or −1 at the end, key address, value address)``;
    borrowed references (the dict keeps them alive)."""
    signature = types.UniTuple(types.intp, 3)(types.intp, types.intp)

    def codegen(context, builder, sig, args):
        address, position = args
        pyapi = context.get_python_api(builder)
        pyobj, ssize = pyapi.pyobj, pyapi.py_ssize_t
        fnty = ir.FunctionType(
            ir.IntType(32), [pyobj, ssize.as_pointer(), pyobj.as_pointer(), pyobj.as_pointer()]
        )
        fn = cgutils.get_or_insert_function(builder.module, fnty, "PyDict_Next")
        ppos = cgutils.alloca_once_value(builder, position)
        pkey = cgutils.alloca_once_value(builder, pyobj(None))
        pvalue = cgutils.alloca_once_value(builder, pyobj(None))
        found = builder.call(fn, [builder.inttoptr(address, pyobj), ppos, pkey, pvalue])
        following = builder.select(
            cgutils.is_not_null(builder, found), builder.load(ppos), ssize(-1)
        )
        key = builder.ptrtoint(builder.load(pkey), ssize)
        value = builder.ptrtoint(builder.load(pvalue), ssize)
        return context.make_tuple(builder, sig.return_type, [following, key, value])

    return signature, codegen


#: ``Py_TPFLAGS_HEAPTYPE``: types created by Python code (classes) carry it; static C types
#: (int, bool, float, NumPy scalars) do not, so their conversions run no Python code.
_HEAPTYPE = 1 << 9


def _is_static_type(builder, type_ptr):
    """Whether a type object is a static C type (``PyType_GetFlags`` has no heap flag)."""
    long_type = ir.IntType(ctypes.sizeof(ctypes.c_ulong) * 8)
    fnty = ir.FunctionType(long_type, [type_ptr.type])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "PyType_GetFlags")
    flags = builder.call(fn, [type_ptr])
    heap = builder.and_(flags, long_type(_HEAPTYPE))
    return builder.icmp_unsigned("==", heap, long_type(0))


@intrinsic
def _int_key(typingctx, address):
    """``(ok, value)``: an integer key within int64 — an exact ``int`` by
    ``PyLong_AsLongLong``, or an object of a static C type with ``__index__`` (a NumPy
    integer, a bool) by the same call, which takes ``__index__`` as ``struct`` and NumPy do.
    Objects of Python classes are not read here (their ``__index__`` would run Python code
    while the dict is being read): they are converted in Python."""
    signature = types.Tuple((types.boolean, types.int64))(types.intp)

    def codegen(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        obj = builder.inttoptr(args[0], pyapi.pyobj)
        i64 = ir.IntType(64)
        ok = cgutils.alloca_once_value(builder, cgutils.false_bit)
        result = cgutils.alloca_once_value(builder, i64(0))
        type_ptr = pyapi.get_type(obj)
        readable = cgutils.alloca_once_value(
            builder, _type_is(context, builder, pyapi, type_ptr, "PyLong_Type")
        )
        with builder.if_then(builder.not_(builder.load(readable)), likely=False):
            with builder.if_then(_is_static_type(builder, type_ptr)):
                fnty = ir.FunctionType(ir.IntType(32), [pyapi.pyobj])
                fn = cgutils.get_or_insert_function(builder.module, fnty, "PyIndex_Check")
                has_index = builder.icmp_signed("!=", builder.call(fn, [obj]), ir.IntType(32)(0))
                builder.store(has_index, readable)
        with builder.if_then(builder.load(readable)):
            value = pyapi.long_as_longlong(obj)
            builder.store(value, result)
            builder.store(cgutils.true_bit, ok)
            _clear_error_if(builder, pyapi, builder.icmp_signed("==", value, i64(-1)), ok)
        return context.make_tuple(
            builder, sig.return_type, [builder.load(ok), builder.load(result)]
        )

    return signature, codegen


@intrinsic
def _real_value(typingctx, address):
    """``(ok, value)``: a ``float`` (or subclass, e.g. ``np.float64``), an exact ``int``, or
    an object of another static C type that converts (``np.float32``, a NumPy integer, a
    bool), by ``PyFloat_AsDouble`` (correctly rounded, as NumPy's and ``struct``'s
    conversion); a failed conversion (a str, None, an int beyond float) leaves ok False."""
    signature = types.Tuple((types.boolean, types.float64))(types.intp)

    def codegen(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        obj = builder.inttoptr(args[0], pyapi.pyobj)
        double = ir.DoubleType()
        ok = cgutils.alloca_once_value(builder, cgutils.false_bit)
        result = cgutils.alloca_once_value(builder, double(0.0))
        type_ptr = pyapi.get_type(obj)
        readable = cgutils.alloca_once_value(
            builder,
            builder.or_(
                _type_is(context, builder, pyapi, type_ptr, "PyFloat_Type"),
                _type_is(context, builder, pyapi, type_ptr, "PyLong_Type"),
            ),
        )
        with builder.if_then(builder.not_(builder.load(readable)), likely=False):
            fnty = ir.FunctionType(ir.IntType(32), [pyapi.pyobj, pyapi.pyobj])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "PyType_IsSubtype")
            float_type = context.get_c_value(builder, ir.IntType(8), "PyFloat_Type", dllimport=True)
            subtype = builder.call(fn, [type_ptr, builder.bitcast(float_type, type_ptr.type)])
            builder.store(
                builder.or_(
                    cgutils.is_not_null(builder, subtype), _is_static_type(builder, type_ptr)
                ),
                readable,
            )
        with builder.if_then(builder.load(readable)):
            value = pyapi.float_as_double(obj)
            builder.store(value, result)
            builder.store(cgutils.true_bit, ok)
            _clear_error_if(builder, pyapi, builder.fcmp_ordered("==", value, double(-1.0)), ok)
        return context.make_tuple(
            builder, sig.return_type, [builder.load(ok), builder.load(result)]
        )

    return signature, codegen


@intrinsic
def _str_key(typingctx, address):
    """``(ok, bytes, size)``: the UTF-8 bytes of an exact ``str`` (``PyUnicode_AsUTF8AndSize``:
    cached in the string, borrowed), or ok False (another type, or a lone surrogate)."""
    u8p = types.CPointer(types.uint8)
    signature = types.Tuple((types.boolean, u8p, types.intp))(types.intp)

    def codegen(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        obj = builder.inttoptr(args[0], pyapi.pyobj)
        ssize = pyapi.py_ssize_t
        bytes_type = context.get_value_type(u8p)
        ok = cgutils.alloca_once_value(builder, cgutils.false_bit)
        data = cgutils.alloca_once_value(builder, bytes_type(None))
        size = cgutils.alloca_once_value(builder, ssize(0))
        type_ptr = pyapi.get_type(obj)
        with builder.if_then(_type_is(context, builder, pyapi, type_ptr, "PyUnicode_Type")):
            fnty = ir.FunctionType(pyapi.cstring, [pyapi.pyobj, ssize.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "PyUnicode_AsUTF8AndSize")
            text = builder.call(fn, [obj, size])
            found = cgutils.is_not_null(builder, text)
            builder.store(builder.bitcast(text, bytes_type), data)
            builder.store(found, ok)
            with builder.if_then(builder.not_(found), likely=False):
                pyapi.err_clear()
        return context.make_tuple(
            builder,
            sig.return_type,
            [builder.load(ok), builder.load(data), builder.load(size)],
        )

    return signature, codegen


@jit(nogil=False)
def read_dict(address, length):
    """``(indices, values, ok)`` of the dict at ``address`` with ``length`` items, in
    iteration order; ``ok`` is False when an item is not readable here (see the module)."""
    idx = np.empty(length, dtype=np.int64)
    val = np.empty(length)
    position = 0
    for p in range(length):
        position, key, value = _dict_next(address, position)
        if position < 0:
            return idx, val, False
        ok, index = _int_key(key)
        if not ok:
            return idx, val, False
        ok, number = _real_value(value)
        if not ok:
            return idx, val, False
        idx[p] = index
        val[p] = number
    return idx, val, True


@jit(nogil=False)
def hash_dict(address, length, width):
    """``read_dict`` for dicts whose keys may also be strings (feature names): a ``str`` key
    is column ``MurmurHash3_x86_32(utf-8 name, seed 0) mod width`` — the VW reader's hash of
    a feature of the unnamed namespace (``| name:value``), the same compiled function — and
    an integer key is its own index. Colliding names stay separate entries (the caller sums
    them if it must, as the reader does)."""
    idx = np.empty(length, dtype=np.int64)
    val = np.empty(length)
    position = 0
    hashed = False
    for p in range(length):
        position, key, value = _dict_next(address, position)
        if position < 0:
            return idx, val, False
        ok, index = _int_key(key)
        if not ok:
            ok, text, size = _str_key(key)
            if not ok:
                return idx, val, False
            index = murmur3_32(numba.carray(text, (size,)), 0, size, 0) % width
            hashed = True
        ok, number = _real_value(value)
        if not ok:
            return idx, val, False
        idx[p] = index
        val[p] = number
    if hashed:
        idx, val = summed_repeats(idx, val)
    return idx, val, True


@jit
def _has_repeat(idx):
    """Whether an index occurs twice: never when the indices increase (most events, e.g. a
    CSR row's; one compare a value, ≈ 20 ns for 80), else a hash table of at least twice
    as many slots, O(n) (a sort of 80 indices costs more than the learning step they
    feed)."""
    n = idx.shape[0]
    p = 1
    while p < n and idx[p] > idx[p - 1]:
        p += 1
    if p >= n:
        return False
    size = 16
    while size < 2 * n:
        size *= 2
    keys = np.empty(size, dtype=np.int64)
    return _exact_repeat(idx, 0, n, keys, np.zeros(size, dtype=np.int64), 1)


@jit
def summed_repeats(idx, val):
    """The event with the values of a repeated index added up (hashed names that collide
    are one feature, as in the VW reader), in order of first appearance; the arrays as
    they are when no index repeats (``_has_repeat``; a sort only when one does)."""
    n = idx.shape[0]
    if not _has_repeat(idx):
        return idx, val
    order = np.argsort(idx, kind="mergesort")
    first = np.empty(n, dtype=np.int64)  # position of each index's first occurrence
    p = 0
    while p < n:
        q = p
        while q < n and idx[order[q]] == idx[order[p]]:
            first[order[q]] = order[p]
            q += 1
        p = q
    keep = np.zeros(n, dtype=np.bool_)
    total = np.zeros(n)
    for p in range(n):
        total[first[p]] += val[p]
        keep[first[p]] = True
    m = 0
    for p in range(n):
        m += keep[p]
    out_idx = np.empty(m, dtype=np.int64)
    out_val = np.empty(m)
    m = 0
    for p in range(n):
        if keep[p]:
            out_idx[m] = idx[p]
            out_val[m] = total[p]
            m += 1
    return out_idx, out_val


# -- events -----------------------------------------------------------------------------------


def event_row(idx, val):
    """The event as ``(int64 indices, float64 values, ok)``: the arrays as given, or the
    dict at address ``idx`` with ``val`` items read by ``read_dict`` (the caller must hold
    the GIL). Arrays whose indices repeat one are not ok: a repeated index means the sum of
    its values (a CSR row's meaning), which ``_events.event_arrays`` forms as a CSR row
    does; learned or squared entry by entry (‖x‖², xᵀΣx) it would be another example. A
    dict's integer keys are distinct."""
    raise NotImplementedError("compiled only")


@overload(event_row)
def _event_row(idx, val):
    if isinstance(idx, types.Integer):

        def from_dict(idx, val):
            return read_dict(idx, val)

        return from_dict

    def pair(idx, val):
        return idx, val, not _has_repeat(idx)

    return pair


#: ``binary_score``/``engine.learn_one_binary`` code for a dict that ``read_dict`` cannot
#: read, or a pair with a repeated index (the caller converts it in Python and calls again).
UNREADABLE = -2


@jit(nogil=False)
def binary_score(idx, val, n_features, W, A, bias, rounds):
    """``predict_one``'s binary case in one call: ``(problem, score)``, with problem 1 for a
    negative index, 2 for a value not finite (``rows.sparse_row_problem``'s codes) or
    ``UNREADABLE``, and when 0 the score ``w·x̃`` with ``w = W[0]`` — or, for an averaged
    model (``rounds > 0``), the average ``((T + 1)·w·x̃ − a·x̃) / T`` along x (``a = A[0]``,
    T = rounds), in O(nnz) without forming the average. An index ≥ ``n_features`` is a
    feature never seen in training: ignored (weight 0, as with hashing). The arithmetic is
    term for term that of ``linear.dot`` and the Python formula it replaces (bit-identical).
    Holds the GIL: it may read a dict."""
    idx, val, readable = event_row(idx, val)
    if not readable:
        return UNREADABLE, 0.0
    w = W[0]
    averaged = rounds > 0.0
    score = w[n_features] * bias
    summed = A[0, n_features] * bias if averaged else 0.0
    for p in range(idx.shape[0]):
        j = idx[p]
        v = val[p]
        if j < 0:
            return 1, 0.0
        if (v - v) != 0.0:
            return 2, 0.0
        if j < n_features:
            score += w[j] * v
            if averaged:
                summed += A[0, j] * v
    if averaged:
        score = ((rounds + 1.0) * score - summed) / rounds
    return 0, score


def named_event_row(idx, val, width):
    """``event_row`` that also reads a dict's ``str`` keys (feature names, hashed into
    ``width`` by ``hash_dict``, colliding names summed)."""
    raise NotImplementedError("compiled only")


@overload(named_event_row)
def _named_event_row(idx, val, width):
    if isinstance(idx, types.Integer):

        def from_dict(idx, val, width):
            return hash_dict(idx, val, width)

        return from_dict

    def pair(idx, val, width):
        return idx, val, not _has_repeat(idx)

    return pair


@jit(nogil=False)
def sorted_event(idx, val, n_features, unseen):
    """An event as one canonical CSR row in one call: ``(problem, indices, values)``, the
    indices increasing (each once) — what a one-row CSR matrix holds once checked and
    sorted, the form a kernel expansion stores. ``problem`` is 1 for an index negative or,
    unless ``unseen``, ≥ ``n_features``, 2 for a value not finite (``binary_score``'s
    codes), ``UNREADABLE`` for a dict ``hash_dict`` cannot read or a pair that repeats an
    index (the caller converts it in Python and calls again); the arrays are then empty.
    With ``unseen`` (an event to score) an index ≥ ``n_features`` is a feature never seen
    in training: dropped. Holds the GIL: it may read a dict."""
    idx, val, readable = named_event_row(idx, val, n_features)
    none = (np.empty(0, dtype=np.int64), np.empty(0))
    if not readable:
        return UNREADABLE, none[0], none[1]
    n = idx.shape[0]
    kept = 0
    increasing = True
    last = -1
    for p in range(n):
        j = idx[p]
        if j < 0 or (j >= n_features and not unseen):
            return 1, none[0], none[1]
        if (val[p] - val[p]) != 0.0:
            return 2, none[0], none[1]
        if j < n_features:
            kept += 1
            increasing = increasing and j > last
            last = j
    out_idx = np.empty(kept, dtype=np.int64)
    out_val = np.empty(kept)
    order = np.arange(n) if increasing else np.argsort(idx)
    q = 0
    for p in order:
        if idx[p] < n_features:
            out_idx[q] = idx[p]
            out_val[q] = val[p]
            q += 1
    return 0, out_idx, out_val


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
def all_finite_strided(values):
    """``all_finite`` of a 2-D array in any layout (a row of a DataFrame, a slice)."""
    bad = 0
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            bad |= (v - v) != 0.0
    return bad == 0


@jit
def binary_labels(y, negative, positive):
    """``(y_signed, ok)``: ±1.0 for each label (+1 for ``positive``), and whether every
    label is one of the two (``y == positive``, ``y == negative`` as NumPy compares them).
    Branch-free: labels in a random order would mispredict a branch half of the time."""
    y_signed = np.empty(y.shape[0])
    return y_signed, _signed_labels(y, negative, positive, y_signed)


@jit(inline="always")
def _signed_labels(y, negative, positive, y_signed):
    """``binary_labels`` into ``y_signed``: whether every label is one of the two."""
    ok = True
    for i in range(y.shape[0]):
        label = y[i]
        is_positive = label == positive
        y_signed[i] = 2.0 * is_positive - 1.0
        ok &= is_positive | (label == negative)
    return ok


@jit
def chunk_labels(y, classes, flat_state, saved, y_signed):
    """``binary_labels(y, classes[0], classes[1])`` for a ``partial_fit`` chunk, written into
    ``y_signed`` (kept by the caller from chunk to chunk: no array to allocate and box), and,
    when every label is known, the state saved first: ``flat_state``'s arrays (1-D views of
    the state's) copied one after the other into ``saved``, for the caller to put back if
    the chunk holds a non-finite value. Whether every label is known. One compiled call
    instead of ``binary_labels`` and a copy per array: right after a pass each Python step
    costs twice its warm time, ~5 µs a chunk in all."""
    known = _signed_labels(y, classes[0], classes[1], y_signed)
    if known:
        start = 0
        for values in flat_state:
            for k in range(values.shape[0]):  # (a slice assignment compiles 2 s of code)
                saved[start + k] = values[k]
            start += values.shape[0]
    return known


# -- input forms: CSR read in place, other forms converted once ---------------------------------

#: ``csr_scan`` verdicts: the rows can be read in place (canonical, or unsorted without a
#: repeated index), or a repeated index needs summing first (scipy's meaning of a CSR matrix).
CANONICAL, UNSORTED, DUPLICATES = 0, 1, 2
#: ``csr_scan``/``csr_scores`` problems (negative), with the row where they were found.
BAD_INDPTR, OUT_OF_RANGE, NOT_FINITE = -1, -2, -3
#: Rows out of order are checked for a repeated index through a table of row stamps
#: (``_repeated_in_rows``) of at most this many slots: 128 KiB of uint16, in L2 cache.
_FILTER_SLOTS = 1 << 16


@jit
def _indptr_problem(indptr, size):
    """The first row whose bounds are not ``0 ≤ indptr[i] ≤ indptr[i + 1] ≤ size``, or −1."""
    if indptr.shape[0] == 0:
        return 0
    if indptr[0] < 0:
        return 0
    for i in range(indptr.shape[0] - 1):
        if indptr[i + 1] < indptr[i] or indptr[i + 1] > size:
            return i
    if indptr[0] > size:
        return 0
    return -1


@jit
def _row_bounds(indptr, i):
    """Row ``i``'s bounds as unsigned integers: a loop over ``range(a, b)`` of these reads
    ``indices[p]`` without the wraparound test a signed (int32) position needs, which
    costs a third of a loop as short as a stamp test. ``indptr`` has been checked."""
    return np.uint64(indptr[i]), np.uint64(indptr[i + 1])


@jit
def _stamp_row(seen, indices, a, b, tag, mixed):
    """Leave ``tag`` in the slot of each index of ``indices[a:b]``; whether the row met its
    own tag (two of its indices share a slot). A slot is the index's low bits, or with
    ``mixed`` the top bits of its Fibonacci hash (for a row whose indices share their low
    bits: the second test of a row flagged by the first)."""
    mask = np.uint64(seen.shape[0] - 1)
    hit = False
    if mixed:
        shift = np.uint64(64)
        while (np.uint64(1) << (np.uint64(64) - shift)) < np.uint64(seen.shape[0]):
            shift -= np.uint64(1)
        for p in range(a, b):
            h = (np.uint64(indices[p]) * np.uint64(0x9E3779B97F4A7C15)) >> shift
            hit |= seen[h] == tag
            seen[h] = tag
    else:
        for p in range(a, b):
            h = np.uint64(indices[p]) & mask
            hit |= seen[h] == tag
            seen[h] = tag
    return hit


@jit
def _exact_repeat(indices, a, b, keys, stamps, stamp):
    """Whether ``indices[a:b]`` holds an index twice: an open-addressing hash table of at
    least twice the row's length whose slots carry the stamp of the row that filled them
    (no clearing between rows). O(b − a)."""
    mask = np.uint64(keys.shape[0] - 1)
    for p in range(a, b):
        j = np.int64(indices[p])
        slot = (np.uint64(j) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
        slot &= mask
        while stamps[slot] == stamp:
            if keys[slot] == j:
                return True
            slot = (slot + np.uint64(1)) & mask
        stamps[slot] = stamp
        keys[slot] = j
    return False


@jit
def _repeated_in_rows(indptr, indices, n_columns):
    """Whether some row holds an index twice (the rows in any order).

    Each row's indices leave the row's tag in a table of 2¹⁶ uint16 slots (a load, a compare
    and a store a value, ≈ 0.7–0.9 ns; a bitset over the width needs a read-modify-write
    and a second pass to clear it, ≈ 3 ns). A row that meets its own tag holds a repeat
    when the table is as wide as the matrix (each index its own slot); otherwise it may be
    two indices sharing a slot (≈ 4 % of rows of 80 values): such a row is stamped again
    with another slot function, and only a row flagged twice is tested exactly
    (``_exact_repeat``). Rows too long for the table to tell anything (more than √slots
    values) are tested exactly at once."""
    n = indptr.shape[0] - 1
    longest = 0
    for i in range(n):
        longest = max(longest, indptr[i + 1] - indptr[i])
    size = 16
    while size < 2 * longest:
        size *= 2
    keys = np.empty(size, dtype=np.int64)
    stamps = np.zeros(size, dtype=np.int64)
    slots = 1
    while slots < n_columns and slots < _FILTER_SLOTS:
        slots *= 2
    exact = slots >= n_columns
    nnz = indptr[n] - indptr[0]
    # the table pays when many values reuse it; a few rows are tested exactly
    seen = np.zeros(slots if nnz * 4 >= slots else 0, dtype=np.uint16)
    tag = 0
    for i in range(n):
        a, b = _row_bounds(indptr, i)
        length = np.int64(b - a)
        if length < 2:
            continue
        if seen.shape[0] > 0 and length * length <= slots:
            if tag >= 65534:  # the tags start again on a clean table
                seen[:] = 0
                tag = 0
            tag += 1
            if not _stamp_row(seen, indices, a, b, np.uint16(tag), False):
                continue
            if exact:
                return True
            tag += 1
            if not _stamp_row(seen, indices, a, b, np.uint16(tag), True):
                continue
        if _exact_repeat(indices, a, b, keys, stamps, i + 1):
            return True
    return False


def _count_nonfinite(values):
    """The number of NaN or infinite entries of a 1-D array (0 for integers)."""
    raise NotImplementedError("compiled only")


@overload(_count_nonfinite)
def _count_nonfinite_overload(values):
    # A float is not finite when its exponent bits are all set: an integer test on the bits
    # that the compiler vectorises (a test of ``v - v != 0`` on the floats it does not).
    dtype = values.dtype
    if dtype == types.float64 or dtype == types.float32:
        bits_type = np.uint64 if dtype == types.float64 else np.uint32
        exponent = bits_type(0x7FF0000000000000 if dtype == types.float64 else 0x7F800000)

        def count(values):
            bits = values.view(bits_type)
            total = 0
            for p in range(bits.shape[0]):
                total += (bits[p] & exponent) == exponent
            return total

        return count

    def none(values):
        return 0

    return none


#: ``_flat_check`` answers: canonical; every index in range and every value finite, some row
#: not strictly increasing; or a problem somewhere (``_scan_rows`` finds the first).
_FLAT_CANONICAL, _FLAT_VALID, _FLAT_PROBLEM = 0, 1, 2


@jit
def _flat_check(indptr, indices, data, n_columns, values):
    """The common case — every row strictly increasing, within ``[0, n_columns)`` and
    finite — tested on the flat arrays in loops the compiler vectorises (≈ 0.5 ns a value,
    against ≈ 4 ns row by row): the smallest and largest index, the neighbours that do not
    increase (those across a row boundary discounted) and the non-finite values. Returns
    ``_FLAT_CANONICAL``, ``_FLAT_VALID`` or ``_FLAT_PROBLEM``. ``indptr`` has been checked
    (``_indptr_problem``)."""
    n = indptr.shape[0] - 1
    start = indptr[0]
    end = indptr[n]
    if end == start:
        return _FLAT_CANONICAL
    if values and _count_nonfinite(data[start:end]) != 0:
        return _FLAT_PROBLEM
    flat = indices[start:end]
    low = flat[0]
    high = flat[0]
    descents = 0
    for p in range(1, flat.shape[0]):
        j = flat[p]
        low = min(low, j)
        high = max(high, j)
        descents += j <= flat[p - 1]
    if low < 0 or high >= n_columns:
        return _FLAT_PROBLEM
    across = 0  # descents between the last value of a row and the first of the next
    last = start
    for i in range(1, n):
        q = indptr[i]
        if q != last and q < end:
            across += indices[q] <= indices[q - 1]
            last = q
    return _FLAT_CANONICAL if descents == across else _FLAT_VALID


@jit
def csr_scan(indptr, indices, data, n_columns, values):
    """One pass over a CSR matrix's arrays: ``(verdict, row)``. With ``values`` False the
    values are not read (a third of the reads) and ``NOT_FINITE`` is never the answer: for
    ``fit``, whose binary passes count the rows with a non-finite value (a non-finite ‖x̃‖²)
    and then check the values.

    The verdict is ``CANONICAL`` (every row strictly increasing), ``UNSORTED`` (some row out
    of order, no index twice in a row), ``DUPLICATES`` (an index twice in a row), or a
    problem, found first at ``row``: ``BAD_INDPTR`` (row bounds decreasing or beyond the
    arrays), ``OUT_OF_RANGE`` (an index negative or ≥ ``n_columns``), ``NOT_FINITE`` (a NaN
    or infinite value). Reading rows needs neither sorted indices nor a canonical format;
    only a repeated index must be summed first (second-order rules square each stored value,
    and ‖x‖² sums squares). The common case is tested on the flat arrays
    (``_flat_check``); only when some row is not strictly increasing are the rows searched
    for a repeat (``_repeated_in_rows``)."""
    size = min(indices.shape[0], data.shape[0])
    bad = _indptr_problem(indptr, size)
    if bad >= 0:
        return BAD_INDPTR, bad
    flat = _flat_check(indptr, indices, data, n_columns, values)
    if flat == _FLAT_CANONICAL:
        return CANONICAL, 0
    if flat == _FLAT_PROBLEM:
        return _scan_rows(indptr, indices, data, n_columns, False, values)
    # some row is not strictly increasing: out of order, or an index repeated
    return (DUPLICATES if _repeated_in_rows(indptr, indices, n_columns) else UNSORTED), 0


@jit
def _scan_rows(indptr, indices, data, n_columns, valid, values):
    """``csr_scan`` row by row (and the reference of its tests): the first problem and its
    row, else the rows' order: ``DUPLICATES`` if a row holds an index twice, ``UNSORTED`` if
    a row descends, else ``CANONICAL`` (``valid``: every index is known in range and every
    value finite; only the order is left to find; ``values`` False: the values are not
    read)."""
    n = indptr.shape[0] - 1
    verdict = CANONICAL
    for i in range(n):
        a = indptr[i]
        b = indptr[i + 1]
        if not valid:
            out = False
            nonfinite = False
            for p in range(a, b):
                j = indices[p]
                out |= (j < 0) | (j >= n_columns)
                if values:
                    v = data[p]
                    nonfinite |= (v - v) != 0.0
            if out:
                return OUT_OF_RANGE, i
            if nonfinite:
                return NOT_FINITE, i
        for p in range(a + 1, b):
            if indices[p] <= indices[p - 1]:
                verdict = UNSORTED
    if verdict == UNSORTED and _repeated_in_rows(indptr, indices, n_columns):
        verdict = DUPLICATES
    return verdict, 0


@jit
def coo_row_pointers(row, nnz, indptr):
    """The CSR row pointers of a COO matrix whose entries are already grouped by row in
    increasing order (what ``tocoo()`` of a CSR matrix and most scipy operations make), so
    that its columns and values can be read in place as the CSR rows: fills ``indptr``
    (n_rows + 1, zeros) from the first ``nnz`` row indices and returns 0; returns 1 (and
    ``indptr`` is to be discarded) when the rows are not in order, ``OUT_OF_RANGE`` when a
    row index lies outside the shape. One pass over ``row``, no copy of the entries; a row's
    pointer is written where its first entry is met (counting each entry into ``indptr``
    chained every step on the last one's store: 2 ns an entry against 0.75)."""
    n_rows = indptr.shape[0] - 1
    last = 0  # the row of the entries met last; indptr[1 : last + 1] is written
    for k in range(nnz):
        r = row[k]
        if r != last:
            if r < 0 or r >= n_rows:
                return OUT_OF_RANGE
            if r < last:
                return 1
            for i in range(last + 1, r + 1):  # (rows without entries: empty)
                indptr[i] = k
            last = r
    for i in range(last + 1, n_rows + 1):
        indptr[i] = nnz
    return 0


@jit
def coo_to_csr(row, col, data, n_columns, indptr, indices, values):
    """A COO matrix's entries grouped by row, in their stored order (a counting sort:
    O(nnz + n_rows)), into ``indptr`` (n_rows + 1, zeros), ``indices`` and ``values``
    (nnz, float64). Returns 0, or ``OUT_OF_RANGE`` for a row or column index outside the
    shape; repeated entries are kept (``csr_scan`` finds them)."""
    n_rows = indptr.shape[0] - 1
    nnz = values.shape[0]
    for k in range(nnz):
        r = row[k]
        c = col[k]
        if r < 0 or r >= n_rows or c < 0 or c >= n_columns:
            return OUT_OF_RANGE
        indptr[r + 1] += 1
    for i in range(n_rows):
        indptr[i + 1] += indptr[i]
    nxt = indptr[:-1].copy()
    for k in range(nnz):
        r = row[k]
        q = nxt[r]
        nxt[r] = q + 1
        indices[q] = col[k]
        values[q] = data[k]
    return 0


@jit
def _value_columns(csc_indptr, start, columns):
    """``columns[k]``: the column of stored value ``start + k`` of a CSC matrix — the largest
    c < n_columns with ``csc_indptr[c] ≤ start + k`` — for every k < ``columns.shape[0]``,
    in O(nnz·log(n_columns / nnz) + nnz) reads of ``csc_indptr`` (never all of it: a
    one-row matrix of 2²⁰ columns has 4 MiB of column pointers, mostly not in cache).

    A binary search per value is a chain of ~14 cache misses whose branches the processor
    cannot predict, so the values' searches do not overlap (≈ 50 µs for 80 values). Here
    the searches advance together, one level at a time, without branches: the reads of a
    level are independent and their misses overlap. The top levels are replaced by one
    sweep of samples ~4 a value (a gather, then a merge with the ascending targets).
    ``csc_indptr`` must be non-decreasing for the columns to be right; any input gives
    columns in ``[0, n_columns)``."""
    nnz = columns.shape[0]
    last = csc_indptr.shape[0] - 2  # the last column
    if nnz == 0 or last < 0:
        return
    stride = 1
    while stride * 2 <= last:
        stride *= 2
    while stride > 16 and last // stride < 4 * nnz:
        stride >>= 1
    n_samples = last // stride + 1  # at columns 0, stride, 2·stride, … ≤ last
    samples = np.empty(n_samples, dtype=np.int64)
    for s in range(n_samples):
        samples[s] = csc_indptr[s * stride]
    s = 0
    for k in range(nnz):  # the last sample at or before each value: its search's start
        target = start + k
        while s + 1 < n_samples and samples[s + 1] <= target:
            s += 1
        columns[k] = s * stride
    step = stride >> 1
    while step > 0:
        for k in range(nnz):
            c = columns[k]
            probe = min(c + step, last)
            columns[k] = probe if csc_indptr[probe] <= start + k else c
        step >>= 1


@jit
def csc_count_rows(csc_indptr, csc_indices, c0, c1, counts):
    """The first half of ``csc_to_csr`` for the columns ``[c0, c1)`` of a CSC matrix: adds 1
    to ``counts[r + 1]`` for each stored value of row r. Returns 0, ``BAD_INDPTR`` (column
    pointers decreasing) or ``OUT_OF_RANGE`` (a row index outside ``[0, len(counts) − 1)``).
    The bounds of the whole pointer array are checked by the caller."""
    n_rows = counts.shape[0] - 1
    decreasing = False
    for c in range(c0, c1):  # (one test at the end: a loop the compiler vectorises)
        decreasing |= csc_indptr[c + 1] < csc_indptr[c]
    if decreasing:
        return BAD_INDPTR
    for k in range(csc_indptr[c0], csc_indptr[c1]):
        r = csc_indices[k]
        if r < 0 or r >= n_rows:
            return OUT_OF_RANGE
        counts[r + 1] += 1
    return 0


@jit
def csc_columns_to_csr(csc_indptr, csc_indices, data, c0, c1, next_position, indices, values):
    """The second half of ``csc_to_csr`` for the columns ``[c0, c1)``: each stored value
    written at its row's next position (``next_position[r]``, advanced), so that a row's
    columns increase. Two threads convert two ranges of columns at once when the second
    range's positions start after the first range's values of each row (the rows are then
    as one call makes them); ``csc_count_rows`` has checked the columns."""
    for c in range(c0, c1):
        for k in range(csc_indptr[c], csc_indptr[c + 1]):
            r = csc_indices[k]
            q = next_position[r]
            next_position[r] = q + 1
            indices[q] = c
            values[q] = data[k]


@jit
def csc_columns_in_use(csc_indices, csc_indptr, c0, c1, columns, cursors, rows):
    """The columns of ``[c0, c1)`` that hold values, in order, into ``columns``, their first
    positions into ``cursors`` and the rows there into ``rows``; returns their number
    (``csc_rows_to_csr`` walks them)."""
    m = 0
    last = csc_indices.shape[0] - 1
    if last < 0:
        return 0
    for c in range(c0, c1):  # (without a branch: half the columns hold values, at random)
        a = csc_indptr[c]
        columns[m] = c
        cursors[m] = a
        rows[m] = csc_indices[min(a, last)]
        m += csc_indptr[c + 1] > a
    return m


@jit
def csc_rows_to_csr(csc_indptr, csc_indices, data, columns, cursors, rows, m, lo, hi,
                    next_position, indices, values):  # fmt: skip
    """The values of rows ``[lo, hi)`` held by ``columns[:m]`` of a CSC matrix whose rows
    increase within each column: each column's values from its cursor (row ``rows[j]``) up
    to its first row ≥ hi, written at their rows' next positions (``csc_columns_to_csr``'s
    writes, in the same order for these rows). The cursors and their rows advance; the
    columns with values left are kept in order at the front (compacted in place). A column
    whose next row is beyond the slice costs a read of three sequential arrays, not of
    ``csc_indices``. Returns ``(columns kept, problem, row)``: problem 0; ``UNSORTED`` when
    a row is below lo or not above the previous one of its column (rows out of order or
    twice in a column: the caller converts the whole matrix); or ``NOT_FINITE`` with the
    first row holding a NaN or infinite value."""
    kept = 0
    first = -1
    for j in range(m):
        r = rows[j]
        c = columns[j]
        k = cursors[j]
        if r < hi:
            end = csc_indptr[c + 1]
            previous = lo - 1
            while True:
                if r <= previous:
                    return kept, UNSORTED, r
                previous = r
                q = next_position[r]
                next_position[r] = q + 1
                indices[q] = c
                v = data[k]
                values[q] = v
                if (v - v) != 0.0 and (first < 0 or r < first):
                    first = r
                k += 1
                if k >= end:
                    break
                r = csc_indices[k]
                if r >= hi:
                    break
            if k >= end:
                continue
        columns[kept] = c
        cursors[kept] = k
        rows[kept] = r
        kept += 1
    return kept, (NOT_FINITE if first >= 0 else 0), first


@jit
def csc_to_csr(csc_indptr, csc_indices, data, indptr, indices, values):
    """A CSC matrix's entries as CSR rows (columns increasing within a row) into ``indptr``
    (n_rows + 1, zeros), ``indices`` and ``values`` (nnz = the CSC's stored values, float64):
    O(nnz + n_rows + n_columns), or O(nnz·log(n_columns / nnz) + n_rows) when the matrix
    holds few values for its width (one row of 2²⁰ columns must not walk 2²⁰ column
    pointers: ``_value_columns``). Returns 0, ``BAD_INDPTR`` or ``OUT_OF_RANGE`` (a row
    index outside the shape). (``_validation`` converts large matrices on two threads with
    ``csc_count_rows`` and ``csc_columns_to_csr``, the two halves of this function.)"""
    n_rows = indptr.shape[0] - 1
    n_columns = csc_indptr.shape[0] - 1
    size = min(csc_indices.shape[0], data.shape[0])
    if n_columns < 0:
        return BAD_INDPTR
    start = csc_indptr[0]
    end = csc_indptr[n_columns]
    if start < 0 or end < start or end > size or end - start != values.shape[0]:
        return BAD_INDPTR
    wide = (end - start) * 32 < n_columns
    if wide:  # (pointers are read only where values are: a decrease may go unnoticed)
        for k in range(start, end):
            r = csc_indices[k]
            if r < 0 or r >= n_rows:
                return OUT_OF_RANGE
            indptr[r + 1] += 1
    else:
        problem = csc_count_rows(csc_indptr, csc_indices, 0, n_columns, indptr)
        if problem:
            return problem
    for i in range(n_rows):
        indptr[i + 1] += indptr[i]
    nxt = indptr[:-1].copy()
    if wide:
        columns = np.empty(end - start, dtype=np.int64)
        _value_columns(csc_indptr, start, columns)
        for k in range(start, end):
            r = csc_indices[k]
            q = nxt[r]
            nxt[r] = q + 1
            indices[q] = columns[k - start]
            values[q] = data[k]
    else:
        csc_columns_to_csr(csc_indptr, csc_indices, data, 0, n_columns, nxt, indices, values)
    return 0


@jit
def one_row_csc(csc_indptr, csc_indices, data, index_like):
    """A one-row CSC matrix as its CSR row: ``(problem, columns, values)`` — columns in
    increasing order, of ``index_like``'s dtype, and float64 values — with problem 0,
    ``BAD_INDPTR`` or ``OUT_OF_RANGE`` (a row index other than 0). One call and no counting
    pass: the stored values are already in column order (``_value_columns``)."""
    n_columns = csc_indptr.shape[0] - 1
    size = min(csc_indices.shape[0], data.shape[0])
    nothing = (np.empty(0, dtype=index_like.dtype), np.empty(0))
    if n_columns < 0:
        return BAD_INDPTR, nothing[0], nothing[1]
    start = csc_indptr[0]
    end = csc_indptr[n_columns]
    if start < 0 or end < start or end > size:
        return BAD_INDPTR, nothing[0], nothing[1]
    nnz = end - start
    values = np.empty(nnz)
    for k in range(nnz):
        if csc_indices[start + k] != 0:
            return OUT_OF_RANGE, nothing[0], nothing[1]
        values[k] = data[start + k]
    found = np.empty(nnz, dtype=np.int64)
    _value_columns(csc_indptr, start, found)
    columns = np.empty(nnz, dtype=index_like.dtype)
    for k in range(nnz):
        columns[k] = found[k]
    return 0, columns, values


@jit(inline="always")
def _binary_scores(indptr, indices, data, w, A, rounds, scale, bias, out):
    """``csr_scores`` of one weight row ``w`` over rows known clean (every index below the
    training width, every value finite), term for term in its order."""
    width = w.shape[0] - 1
    averaged = rounds > 0.0
    for i in range(indptr.shape[0] - 1):
        start = np.uint64(indptr[i])
        end = np.uint64(indptr[i + 1])
        if averaged:
            a = A[0]
            s = w[width] * bias
            q = a[width] * bias
            for p in range(start, end):
                j = np.uint64(indices[p])
                v = data[p]
                s += w[j] * v
                q += a[j] * v
            s = ((rounds + 1.0) * s - q) / rounds
        else:
            s = 0.0
            for p in range(start, end):
                s += w[np.uint64(indices[p])] * data[p]
            s += w[width] * bias
        if scale != 1.0:
            s *= scale
        out[i, 0] = s


@jit
def csr_scores(indptr, indices, data, n_columns, W, A, rounds, scale, bias, out):
    """Scores ``out[i, r] = w_r·x̃_i`` of CSR rows for prediction: ``(problem, row,
    unseen)``. W is (k, D) with D − 1 the training width: an index beyond it is a feature
    never seen in training, ignored (its weight is 0, as with hashing) and counted in
    ``unseen``; an index outside ``[0, n_columns)`` or a non-finite value is a problem
    (``csr_scan``'s codes), found first at ``row``. An averaged model (``rounds > 0``)
    scores with the average along x, ``((T + 1)·w·x̃ − a·x̃) / T``, never forming it, in
    ``binary_score``'s arithmetic (the intercept first), so that its ``predict`` and
    ``predict_one`` agree bit for bit. Other models sum as scipy's ``X @ W.T + b`` did
    (the stored values in order, then the intercept): the same scores as before."""
    size = min(indices.shape[0], data.shape[0])
    bad = _indptr_problem(indptr, size)
    if bad >= 0:
        return BAD_INDPTR, bad, 0
    k, D = W.shape
    width = D - 1
    averaged = rounds > 0.0
    if k == 1 and _flat_check(indptr, indices, data, min(n_columns, width), True) != _FLAT_PROBLEM:
        # a binary model's common case: every index seen in training and every value finite,
        # tested on the flat arrays in vectorised loops; the rows are then scored without a
        # test per value and with the sums in registers (the same sums, ≈ 3× faster)
        _binary_scores(indptr, indices, data, W[0], A, rounds, scale, bias, out)
        return 0, 0, 0
    summed = np.zeros(k if averaged else 0)  # a·x̃ of an averaged model
    unseen = 0
    for i in range(indptr.shape[0] - 1):
        for r in range(k):
            out[i, r] = W[r, width] * bias if averaged else 0.0
        if averaged:
            for r in range(k):
                summed[r] = A[r, width] * bias
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            v = data[p]
            if j < 0 or j >= n_columns:
                return OUT_OF_RANGE, i, unseen
            if (v - v) != 0.0:
                return NOT_FINITE, i, unseen
            if j >= width:
                unseen += 1
                continue
            for r in range(k):
                out[i, r] += W[r, j] * v
            if averaged:
                for r in range(k):
                    summed[r] += A[r, j] * v
        if averaged:
            for r in range(k):
                out[i, r] = ((rounds + 1.0) * out[i, r] - summed[r]) / rounds
        else:
            for r in range(k):
                out[i, r] += W[r, width] * bias
        if scale != 1.0:
            for r in range(k):
                out[i, r] *= scale
    return 0, 0, unseen


@jit
def csr_confidences(indptr, indices, data, S, bias, out):
    """``out[i, r] = Σ_j x_ij² σ_rj + σ_rb·b²`` of CSR rows for a diagonal model, every row r of S
    (indices beyond the training width, never seen, are ignored). The rows were checked by
    ``csr_scores`` (and repeated indices summed)."""
    k, D = S.shape
    width = D - 1
    for i in range(indptr.shape[0] - 1):
        for r in range(k):
            out[i, r] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if j < width:
                x2 = data[p] * data[p]
                for r in range(k):
                    out[i, r] += x2 * S[r, j]
        for r in range(k):  # the intercept last, as scipy's (X∘X) @ σ + σ_b·b² summed
            out[i, r] += S[r, width] * bias * bias
