"""Python's true division of two ints, correctly rounded, in int64 and uint64 arithmetic.

Python's ``a / b`` of ints is the float nearest the exact quotient. Each int converted to float64
first (NumPy's ``true_divide`` of int64) rounds twice past 2**53: ``(2**53 + 1) / 3`` came out
one ULP low. Where both magnitudes are at most 2**53 the float64 division is exact-then-rounded
already; otherwise the quotient is Python's own construction: both magnitudes normalised to 64
bits, a 128-by-64-bit division (Hacker's Delight's ``divlu``, 32-bit digits, no wider type)
gives 55 or 56 quotient bits and a remainder, the remainder is kept as a sticky bit, and one
conversion to float64 rounds to nearest even. Written with NumPy's ufuncs on uint64 values, so
the same code runs on NumPy scalars (the tests check it against Python on its own) and on traced
values.
"""

from __future__ import annotations

import numpy as np

_EXACT = 2**53  # magnitudes that float64 holds exactly
_DIGIT = np.uint64(2**32)
_LOW = np.uint64(2**32 - 1)


def int_true_divide(a, b, choose):
    """``a / b`` of int64 values as Python gives it (a float64); ``b`` is not zero (the caller
    raises Python's ZeroDivisionError). ``choose(pred, slow, fast)`` calls one of the functions
    (``jc.cond`` when traced: the exact path runs only where an operand passes 2**53)."""
    exact = _within_float(a) & _within_float(b)
    fast = a.astype(np.float64) / b.astype(np.float64)

    def slow():
        out = nearest_quotient(_magnitude(a), np.maximum(_magnitude(b), np.uint64(1)))
        return np.where(exact | (a == 0), fast, np.where((a < 0) != (b < 0), -out, out))

    return choose(~exact, slow, lambda: fast)


def _within_float(x):
    """|x| <= 2**53 for int64 ``x``: one add and one unsigned compare."""
    return x.astype(np.uint64) + np.uint64(_EXACT) <= np.uint64(2 * _EXACT)


def _magnitude(x):
    """|x| of int64 as uint64 (|-2**63| = 2**63 fits)."""
    unsigned = x.astype(np.uint64)
    return np.where(x < 0, np.uint64(0) - unsigned, unsigned)


def nearest_quotient(a, b):
    """The float64 nearest ``a / b`` for uint64 ``a``, ``b`` in [1, 2**63]."""
    length_a, length_b = bit_length(a), bit_length(b)
    a_top = a << (64 - length_a).astype(np.uint64)  # top bit set: a_top / b_top in (1/2, 2)
    b_top = b << (64 - length_b).astype(np.uint64)
    # (a_top * 2**55) // b_top has 55 or 56 bits: the 53 kept, the rounding bit, and more
    quotient, remainder = divide_wide(a_top >> np.uint64(9), a_top << np.uint64(55), b_top)
    sticky = (remainder != np.uint64(0)).astype(np.uint64)  # below the rounding bit
    rounded = (quotient | sticky).astype(np.float64)  # one rounding, to nearest even
    exponent = (length_a - length_b - 55 + 1023).astype(np.int64)  # in [905, 1031]: normal
    return rounded * (exponent << 52).view(np.float64)


def int_bit_length(x):
    """``n.bit_length()`` of a traced Python int (int64, or uint64 past int64's range): the bits
    of ``|n|``, 0 for 0."""
    magnitude = x if x.dtype == np.uint64 else _magnitude(x.astype(np.int64))
    return np.where(magnitude == np.uint64(0), 0, bit_length(np.maximum(magnitude, np.uint64(1))))


def int_sqrt(x):
    """``math.isqrt(n)`` of a traced int ``n >= 0`` (int64 or uint64): the float64 root's floor,
    which is at most one off for n below 2**64, corrected both ways by exact integer tests
    (``r * r > n`` as ``r > n // r``, no product past 64 bits)."""
    n = x.astype(np.uint64)
    r = np.floor(np.sqrt(n.astype(np.float64))).astype(np.uint64)
    one = np.uint64(1)
    for _ in range(2):
        r = np.where((r > np.uint64(0)) & (r > n // np.maximum(r, one)), r - one, r)
    for _ in range(2):
        r = np.where(r + one <= n // (r + one), r + one, r)
    return r.astype(np.int64)


def bit_length(x):
    """``int.bit_length`` of uint64 ``x`` >= 1, as int64 (float64's exponent of a value that
    converts exactly)."""
    big = x >= np.uint64(_EXACT)
    exact = np.where(big, x >> np.uint64(11), x)
    biased = exact.astype(np.float64).view(np.int64) >> 52
    return biased - 1022 + np.where(big, 11, 0).astype(np.int64)


def divide_wide(high, low, divisor):
    """``(high * 2**64 + low) // divisor`` and the remainder, for uint64 values with the
    divisor's top bit set and ``high < divisor`` (the quotient fits 64 bits): two 64-by-32-bit
    digit steps, each estimate corrected at most twice (Knuth's algorithm D)."""
    top, bottom = divisor >> np.uint64(32), divisor & _LOW
    low_high, low_low = low >> np.uint64(32), low & _LOW
    q1 = _digit(high, low_high, top, bottom)
    partial = high * _DIGIT + low_high - q1 * divisor  # < divisor
    q0 = _digit(partial, low_low, top, bottom)
    return q1 * _DIGIT + q0, partial * _DIGIT + low_low - q0 * divisor


def _digit(numerator, next_digit, top, bottom):
    """One quotient digit of ``(numerator * 2**32 + next_digit) // (top * 2**32 + bottom)``."""
    q = numerator // top
    rest = numerator - q * top
    active = np.ones_like(q, dtype=np.bool_)
    for _ in range(2):  # the estimate is at most 2 too large
        high = active & ((q >= _DIGIT) | (q * bottom > rest * _DIGIT + next_digit))
        q = q - high.astype(np.uint64)
        rest = rest + np.where(high, top, np.uint64(0))
        active = high & (rest < _DIGIT)
    return q
