"""Compiled helpers of the per-call paths: ``learn_one``/``predict_one`` and small
``partial_fit`` calls, where each NumPy call (about a microsecond on a few values) would cost
more than the learning itself.

An event reaches compiled code as ``(idx, val)``, int64 indices and float64 values, or as
``(address, length)`` of a Python dict ``{index: value}`` (``id(x), len(x)``), which
``event_row`` reads in place through the CPython C API: no Python-level conversion at all
(two ``np.fromiter`` calls cost about as much as the learning step). Only what converts
without running Python code is read — keys of exact type ``int`` within int64, values of
type ``float`` (or a subclass, such as ``np.float64``) or exact ``int`` — with the very
conversions NumPy and ``struct`` apply (``PyLong_AsLongLong``, ``PyFloat_AsDouble``), so the
arrays are bit for bit those of ``np.fromiter``. Any other dict is reported unreadable and
the caller converts it in Python. Functions that read a dict must hold the GIL
(``jit(nogil=False)``): the dict may not change while it is read.

These functions live in this folder so that the cache stamp of ``olearn._compile`` covers
them. (In the rest of ``representations`` a ``None`` index array marks a dense row; events
are always sparse.)
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from olearn._compile import jit
from olearn.representations import linear
from olearn.representations.rows import sparse_row_problem

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


@intrinsic
def _int_key(typingctx, address):
    """``(ok, value)``: an exact ``int`` within int64, by ``PyLong_AsLongLong`` (bool, NumPy
    integers and others are not read here: ``struct``/NumPy convert them in Python)."""
    signature = types.Tuple((types.boolean, types.int64))(types.intp)

    def codegen(context, builder, sig, args):
        pyapi = context.get_python_api(builder)
        obj = builder.inttoptr(args[0], pyapi.pyobj)
        i64 = ir.IntType(64)
        ok = cgutils.alloca_once_value(builder, cgutils.false_bit)
        result = cgutils.alloca_once_value(builder, i64(0))
        type_ptr = pyapi.get_type(obj)
        with builder.if_then(_type_is(context, builder, pyapi, type_ptr, "PyLong_Type")):
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
    """``(ok, value)``: a ``float`` (or subclass, e.g. ``np.float64``) or an exact ``int``,
    by ``PyFloat_AsDouble`` (correctly rounded, as NumPy's and ``struct``'s conversion)."""
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
            builder.store(cgutils.is_not_null(builder, subtype), readable)
        with builder.if_then(builder.load(readable)):
            value = pyapi.float_as_double(obj)
            builder.store(value, result)
            builder.store(cgutils.true_bit, ok)
            _clear_error_if(builder, pyapi, builder.fcmp_ordered("==", value, double(-1.0)), ok)
        return context.make_tuple(
            builder, sig.return_type, [builder.load(ok), builder.load(result)]
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


# -- events -----------------------------------------------------------------------------------


def event_row(idx, val):
    """The event as ``(int64 indices, float64 values, ok)``: the arrays as given (ok), or the
    dict at address ``idx`` with ``val`` items read by ``read_dict`` (the caller must hold
    the GIL)."""
    raise NotImplementedError("compiled only")


@overload(event_row)
def _event_row(idx, val):
    if isinstance(idx, types.Integer):

        def from_dict(idx, val):
            return read_dict(idx, val)

        return from_dict

    def pair(idx, val):
        return idx, val, True

    return pair


#: ``binary_score``/``engine.learn_one_binary`` code for a dict that ``read_dict`` cannot
#: read (the caller converts it in Python and calls again).
UNREADABLE = -2


@jit(nogil=False)
def binary_score(idx, val, n_features, W, A, bias, rounds):
    """``predict_one``'s binary case in one call: ``(problem, score)``, the event's
    ``rows.sparse_row_problem`` code (or ``UNREADABLE``) and, when 0, its score ``w·x̃``
    with ``w = W[0]`` — or, for an averaged model (``rounds > 0``), the average
    ``((T + 1)·w·x̃ − a·x̃) / T`` along x (``a = A[0]``, T = rounds), in O(nnz) without
    forming the average. The arithmetic is term for term that of ``linear.dot`` and the
    Python formula it replaces (bit-identical). Holds the GIL: it may read a dict."""
    idx, val, readable = event_row(idx, val)
    if not readable:
        return UNREADABLE, 0.0
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
