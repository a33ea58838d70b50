"""Compiled scanning primitives over raw bytes: decimal numbers, whitespace, token ends.

Numbers are parsed without Python and correctly rounded — the double ``float()`` gives:

* an integer mantissa of at most 2^53 (any number of up to 15 significant digits, most of
  16) and a decimal exponent within ±22 (what ``%g``, ``%.6f`` and most writers produce): the
  mantissa and the power of ten are exact doubles and one IEEE operation rounds once
  (Clinger's fast path);
* otherwise the Eisel–Lemire algorithm (Lemire, "Number parsing at a gigabyte per second",
  Software: Practice and Experience 51(8), 2021) over a 128-bit table of powers of five, which
  proves its result correctly rounded or declines; numbers of more than 19 digits are decided
  by agreeing results for the truncated mantissa and its successor;
* in the rare cases both decline (exact halfway ties, subnormals), a plain multiplication
  within a few units in the last place.
"""

import math
import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from olearn._compile import jit

# Byte values.
NEWLINE = 10
SPACE = 32
TAB = 9
CR = 13
HASH = 35
COLON = 58
BAR = 124
MINUS = 45
PLUS = 43
DOT = 46
QUOTE = 39

# Parse status of a number.
NUMBER_OK = 0
NUMBER_BAD = 1
NUMBER_NONFINITE = 2

_POWERS_OF_TEN = np.array([10.0**k for k in range(23)])

MIN_EXP10 = -342
MAX_EXP10 = 308


def _powers_of_five() -> tuple[np.ndarray, np.ndarray]:
    """128-bit normalised mantissas of 5^q (= those of 10^q), q in [-342, 308]: truncated
    for q ≥ 0, rounded up for q < 0 (the table of the Eisel–Lemire paper)."""
    high, low = [], []
    for q in range(MIN_EXP10, MAX_EXP10 + 1):
        if q >= 0:
            c = 5**q
            c <<= max(0, 128 - c.bit_length())  # into [2^127, 2^128), one shift (not a loop:
        else:  # the table is built at every import of the readers)
            p = 5**-q
            z = p.bit_length() if p & (p - 1) else p.bit_length() - 1  # smallest 2^z >= p
            b = z + 127 if q >= -27 else 2 * z + 128
            c = (1 << b) // p + 1
        c >>= max(0, c.bit_length() - 128)  # truncated, as halving one bit at a time
        high.append(c >> 64)
        low.append(c & ((1 << 64) - 1))
    return np.array(high, dtype=np.uint64), np.array(low, dtype=np.uint64)


_POW5_HIGH, _POW5_LOW = _powers_of_five()
_POW2_OFFSET = 1075
_POWERS_OF_TWO = np.array([math.ldexp(1.0, k) for k in range(-1075, 1024)])
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_LOW9 = np.uint64(0x1FF)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@intrinsic
def _mul64(typingctx, a, b):
    """The 128-bit product of two uint64: (high, low), one widening multiplication (LLVM's
    i128 product, a single instruction on x86-64 and arm64)."""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        low = builder.trunc(product, ir.IntType(64))
        high = builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (high, low))

    return sig, codegen


@jit
def eisel_lemire(mantissa, exp10):
    """The correctly rounded double of ``mantissa · 10^exp10`` (mantissa a nonzero uint64),
    or ``(0.0, False)`` when the 128-bit approximation cannot decide (Lemire 2021, §5)."""
    if exp10 < MIN_EXP10 or exp10 > MAX_EXP10:
        return 0.0, False
    clz = leading_zeros(mantissa)  # one instruction
    man = mantissa << clz
    clz = np.int64(clz)
    exp2 = ((217706 * exp10) >> 16) + 64 + 1023 - clz
    row = exp10 - MIN_EXP10
    x_hi, x_lo = _mul64(man, _POW5_HIGH[row])
    if (x_hi & _LOW9) == _LOW9 and x_lo + man < man:
        y_hi, y_lo = _mul64(man, _POW5_LOW[row])
        merged_hi = x_hi
        merged_lo = x_lo + y_hi
        if merged_lo < x_lo:
            merged_hi += _ONE
        if (merged_hi & _LOW9) == _LOW9 and merged_lo + _ONE == _ZERO and y_lo + man < man:
            return 0.0, False
        x_hi = merged_hi
        x_lo = merged_lo
    msb = x_hi >> np.uint64(63)
    ret = x_hi >> (msb + np.uint64(9))
    exp2 -= 1 - int(msb)
    if x_lo == _ZERO and (x_hi & _LOW9) == _ZERO and (ret & np.uint64(3)) == _ONE:
        return 0.0, False
    ret += ret & _ONE
    ret = ret >> _ONE
    if (ret >> np.uint64(53)) > _ZERO:
        ret = ret >> _ONE
        exp2 += 1
    if exp2 <= 0 or exp2 >= 0x7FF:
        return 0.0, False
    # ret < 2^53 and a power of two: the product is exact (normal range only)
    return float(ret) * _POWERS_OF_TWO[exp2 - 1075 + _POW2_OFFSET], True


@jit(inline="always")
def unsigned(i):
    """An index known to be non-negative, as unsigned: the compiled load then skips
    negative-index wrap-around."""
    return np.uint64(i)


@jit(inline="always")
def digit_value(c):
    """The value of an ASCII digit; anything else maps above 9 (unsigned wrap-around)."""
    return np.uint64(c) - np.uint64(48)


@intrinsic
def _load_u64(typingctx, buf, i):
    """The 8 bytes ``buf[i:i + 8]`` as a little-endian uint64 (one unaligned load; the
    caller checks ``i + 8 <= len(buf)``)."""
    sig = types.uint64(buf, i)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        at = builder.gep(array.data, [args[1]])
        return builder.load(builder.bitcast(at, ir.IntType(64).as_pointer()), align=1)

    return sig, codegen


_ASCII_ZEROS = np.uint64(0x3030303030303030)
_ABOVE_NINE = np.uint64(0x4646464646464646)
_HIGH_BITS = np.uint64(0x8080808080808080)
_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_EVEN_PAIRS = np.uint64(0x0000FFFF0000FFFF)
_TEN_POW_8 = np.uint64(100_000_000)
_TWO_POW_53 = np.uint64(2**53)
_LITTLE_ENDIAN = sys.byteorder == "little"  # the SWAR constants assume it


@jit(inline="always")
def eight_digits(buf, i, end):
    """``(True, value)`` if ``buf[i:i + 8]`` are eight ASCII digits, else ``(False, 0)``:
    the SWAR test and conversion of Lemire's fast_float (8 digits in three multiplications
    instead of a chain of eight)."""
    if not _LITTLE_ENDIAN or i + 8 > end:
        return False, np.uint64(0)
    v = _load_u64(buf, i)
    if ((v + _ABOVE_NINE) | (v - _ASCII_ZEROS)) & _HIGH_BITS != 0:
        return False, np.uint64(0)
    v = ((v & _LOW_NIBBLES) * np.uint64(2561)) >> np.uint64(8)
    v = ((v & _EVEN_BYTES) * np.uint64(6553601)) >> np.uint64(16)
    return True, ((v & _EVEN_PAIRS) * np.uint64(42949672960001)) >> np.uint64(32)


@jit(inline="always")
def leading_digits(buf, i, end):
    """``(count, value)`` of the ASCII digits that start ``buf[i:]``, read 8 bytes at once:
    count 0-7 when a non-digit follows within the 8 bytes, 8 when all 8 are digits (more
    may follow), -1 when fewer than 8 bytes remain (the caller reads them one by one)."""
    if not _LITTLE_ENDIAN or i + 8 > end:
        return np.int64(-1), np.uint64(0)
    v = _load_u64(buf, i)
    non_digits = ((v + _ABOVE_NINE) | (v - _ASCII_ZEROS)) & _HIGH_BITS
    if non_digits == _ZERO:
        count = np.uint64(8)
    else:
        count = trailing_zeros(non_digits) >> np.uint64(3)
        if count == _ZERO:
            return np.int64(0), np.uint64(0)
    # the digits as the last `count` of eight (leading zeros before them), converted at once
    v = (
        ((v - _ASCII_ZEROS) << (np.uint64(64) - (count << np.uint64(3))))
        if count < 8
        else (v - _ASCII_ZEROS)
    )
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & _EVEN_BYTES
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & _EVEN_PAIRS
    v = (v * np.uint64(10000) + (v >> np.uint64(32))) & _MASK32
    return np.int64(count), v


@jit
def is_space(c):
    """Separator inside a line: space, tab, carriage return, vertical tab, form feed."""
    return c == SPACE or c == TAB or c == CR or c == 11 or c == 12


@jit
def is_token_end(c):
    return c == SPACE or c == TAB or c == CR or c == 11 or c == 12 or c == NEWLINE or c == HASH


@jit(_nrt=False)
def _lower_at(buf, k, end):
    """The byte at ``buf[k]`` with ASCII letters in lower case (0 past ``end``)."""
    return buf[unsigned(k)] | 32 if k < end else 0


@jit(_nrt=False)
def _nonfinite_word_end(buf, i, end):
    """The end of the word ``nan``, ``inf`` or ``infinity`` (any case) at ``buf[i]``, or -1
    when there is none or a letter or digit follows it (``info``, ``nan2``)."""
    a, b, c = _lower_at(buf, i, end), _lower_at(buf, i + 1, end), _lower_at(buf, i + 2, end)
    if a == 110 and b == 97 and c == 110:  # nan
        k = i + 3
    elif a == 105 and b == 110 and c == 102:  # inf
        k = i + 3
        if (
            _lower_at(buf, k, end) == 105  # inity
            and _lower_at(buf, k + 1, end) == 110
            and _lower_at(buf, k + 2, end) == 105
            and _lower_at(buf, k + 3, end) == 116
            and _lower_at(buf, k + 4, end) == 121
        ):
            k += 5
    else:
        return -1
    if k < end and (48 <= buf[unsigned(k)] <= 57 or 97 <= buf[unsigned(k)] | 32 <= 122):
        return -1
    return k


@jit(_nrt=False)  # reads buf only: no reference counting of it on every call (numba option)
def parse_number(buf, i, end):
    """Parse a decimal number starting at ``buf[i]``; stops at the first byte that cannot
    continue it. Returns ``(value, next_index, status)``; the caller checks the byte at
    ``next_index`` ends the token."""
    start = i
    negative = False
    if i < end and (buf[unsigned(i)] == MINUS or buf[unsigned(i)] == PLUS):
        negative = buf[unsigned(i)] == MINUS
        i += 1
    mantissa = np.uint64(0)
    n_digits = 0
    exponent = 0
    any_digit = False
    truncated = False
    # Leading zeros carry no digit; then up to 19 digits fit the uint64 mantissa.
    while i < end and buf[unsigned(i)] == 48:
        any_digit = True
        i += 1
    start_digits = i
    while n_digits <= 11:
        ok, eight = eight_digits(buf, i, end)
        if not ok:
            break
        mantissa = mantissa * _TEN_POW_8 + eight
        n_digits += 8
        i += 8
    while i < end:
        d = digit_value(buf[unsigned(i)])
        if d > 9:
            break
        if n_digits < 19:
            mantissa = mantissa * np.uint64(10) + d
            n_digits += 1
        else:
            exponent += 1
            truncated = truncated or d != 0
        i += 1
    any_digit = any_digit or i > start_digits
    if i < end and buf[unsigned(i)] == DOT:
        i += 1
        if n_digits == 0:  # zeros after the point only scale the value
            while i < end and buf[unsigned(i)] == 48:
                any_digit = True
                exponent -= 1
                i += 1
        start_digits = i
        while n_digits <= 11:
            ok, eight = eight_digits(buf, i, end)
            if not ok:
                break
            mantissa = mantissa * _TEN_POW_8 + eight
            n_digits += 8
            exponent -= 8
            i += 8
        while i < end:
            d = digit_value(buf[unsigned(i)])
            if d > 9:
                break
            if n_digits < 19:
                mantissa = mantissa * np.uint64(10) + d
                n_digits += 1
                exponent -= 1
            else:
                truncated = truncated or d != 0
            i += 1
        any_digit = any_digit or i > start_digits
    if not any_digit:
        # "nan", "inf", "infinity" (any case) are named as such; any other word ("none",
        # "neg", "id42") is not a number
        k = _nonfinite_word_end(buf, i, end)
        if k >= 0:
            return np.nan, k, NUMBER_NONFINITE
        return 0.0, start, NUMBER_BAD
    if i < end and (buf[unsigned(i)] | 32) == 101:  # 'e'
        j = i + 1
        exp_negative = False
        if j < end and (buf[unsigned(j)] == MINUS or buf[unsigned(j)] == PLUS):
            exp_negative = buf[unsigned(j)] == MINUS
            j += 1
        if j >= end or not (48 <= buf[unsigned(j)] <= 57):
            return 0.0, j, NUMBER_BAD
        e = 0
        while j < end and 48 <= buf[unsigned(j)] <= 57:
            if e < 100000:
                e = e * 10 + (buf[unsigned(j)] - 48)
            j += 1
        exponent += -e if exp_negative else e
        i = j
    if mantissa == 0:
        return (-0.0 if negative else 0.0), i, NUMBER_OK
    if not truncated and mantissa <= _TWO_POW_53 and -22 <= exponent <= 22:
        if exponent >= 0:
            value = float(mantissa) * _POWERS_OF_TEN[exponent]
        else:
            value = float(mantissa) / _POWERS_OF_TEN[-exponent]
        return (-value if negative else value), i, NUMBER_OK
    else:
        value, exact = eisel_lemire(mantissa, exponent)
        if exact and truncated:
            upper, exact = eisel_lemire(mantissa + np.uint64(1), exponent)
            exact = exact and upper == value
        if exact:
            return (-value if negative else value), i, NUMBER_OK
    if exponent > 308 + 19:
        value = np.inf
    elif exponent < -324 - 19:
        value = 0.0
    elif exponent >= 0:
        value = float(mantissa) * 10.0**exponent
    elif exponent >= -308:
        value = float(mantissa) / 10.0**-exponent
    else:  # subnormal range: two steps keep the power of ten finite
        value = float(mantissa) / 10.0 ** -(exponent + 300) / 1e300
    if negative:
        value = -value
    if not np.isfinite(value):
        return value, i, NUMBER_NONFINITE
    return value, i, NUMBER_OK
