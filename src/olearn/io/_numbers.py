"""Compiled scanning primitives over raw bytes: decimal numbers, whitespace, token ends.

Numbers are parsed without Python: sign, up to 19 significant digits, fraction, exponent.
With at most 15 significant digits and a decimal exponent within ±22 (what ``%g``, ``%.6f``
and most writers produce) the result is the correctly rounded double — exactly what
``float()`` gives — because both the integer mantissa and the power of ten are exact doubles
and one IEEE operation rounds once (Clinger's fast path). Longer numbers are within one unit in
the last place of the correctly rounded value.
"""

import numpy as np

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


@jit
def is_space(c):
    """Separator inside a line: space, tab, carriage return, vertical tab, form feed."""
    return c == SPACE or c == TAB or c == CR or c == 11 or c == 12


@jit
def is_token_end(c):
    return c == SPACE or c == TAB or c == CR or c == 11 or c == 12 or c == NEWLINE or c == HASH


@jit
def parse_number(buf, i, end):
    """Parse a decimal number starting at ``buf[i]``; stops at the first byte that cannot
    continue it. Returns ``(value, next_index, status)``; the caller checks the byte at
    ``next_index`` ends the token."""
    start = i
    negative = False
    if i < end and (buf[i] == MINUS or buf[i] == PLUS):
        negative = buf[i] == MINUS
        i += 1
    mantissa = np.uint64(0)
    n_digits = 0
    exponent = 0
    any_digit = False
    while i < end and 48 <= buf[i] <= 57:
        any_digit = True
        d = np.uint64(buf[i] - 48)
        if n_digits < 19:
            if mantissa != 0 or d != 0:
                mantissa = mantissa * np.uint64(10) + d
                n_digits += 1
        else:
            exponent += 1
        i += 1
    if i < end and buf[i] == DOT:
        i += 1
        while i < end and 48 <= buf[i] <= 57:
            any_digit = True
            d = np.uint64(buf[i] - 48)
            if n_digits < 19:
                if mantissa != 0 or d != 0:
                    mantissa = mantissa * np.uint64(10) + d
                    n_digits += 1
                exponent -= 1
            i += 1
    if not any_digit:
        # "nan", "inf", "infinity" (any case) are named as such; anything else is not a number
        if i < end and (buf[i] | 32) in (110, 105):  # 'n', 'i'
            return np.nan, i, NUMBER_NONFINITE
        return 0.0, start, NUMBER_BAD
    if i < end and (buf[i] | 32) == 101:  # 'e'
        j = i + 1
        exp_negative = False
        if j < end and (buf[j] == MINUS or buf[j] == PLUS):
            exp_negative = buf[j] == MINUS
            j += 1
        if j >= end or not (48 <= buf[j] <= 57):
            return 0.0, j, NUMBER_BAD
        e = 0
        while j < end and 48 <= buf[j] <= 57:
            if e < 100000:
                e = e * 10 + (buf[j] - 48)
            j += 1
        exponent += -e if exp_negative else e
        i = j
    if mantissa == 0:
        value = 0.0
    elif n_digits <= 15 and -22 <= exponent <= 22:
        if exponent >= 0:
            value = float(mantissa) * _POWERS_OF_TEN[exponent]
        else:
            value = float(mantissa) / _POWERS_OF_TEN[-exponent]
    elif exponent > 308 + 19:
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
