"""Python's arithmetic errors on traced Python numbers.

A traced Python number (an int or float argument, ``int(x[0])``, ``float(s)``, ``x.item()``: a
weak 0-d tracer) is computed in int64, float64 or complex128, as NumPy computes such scalars. But
where NumPy gives inf, NaN or 0 with a warning, Python raises: ``n / 0``, ``n // 0``, ``n % 0``
and ``divmod(n, 0)`` are ``ZeroDivisionError``; ``int()`` of a NaN is ``ValueError``, of an
infinity ``OverflowError``; ``0.0 ** -1`` is ``ZeroDivisionError``; a float power past the
largest float is ``OverflowError``. Each check here is a branch in the compiled code that raises
Python's exception, with Python's message, from the call when the data meets it (no cost while
tracing, a compare and a branch when it runs).

Python computes some of these into another type: ``2 ** -1`` is a float, ``(-8.0) ** (1/3)`` a
complex number. A constant exponent gives Python's type while tracing; where the data decides
the type, the call raises an error that says what to write instead, never a number of the wrong
type. An ``int()`` past int64 raises ``JitOverflowError`` (compiled code has no larger ints).
NumPy scalars (``x[0]``, ``x.sum()``) and arrays keep NumPy's semantics: nothing is checked.
"""

from __future__ import annotations

import builtins
import contextlib
import zlib

import numpy as np

from jitcore import primitives as prims
from jitcore import tracer as tracer_module
from jitcore import type_choice
from jitcore.dtypes import scalar_to_dtype
from jitcore.errors import JitIndexError, JitOverflowError, JitTypeError, JitValueError, JitZeroDivisionError
from jitcore.ir.dialects import kernel
from jitcore.ir.dialects.kernel import PYTHON_ERRORS
from jitcore.python_division import int_true_divide
from jitcore.tracer import Tracer, fresh, user_frame, user_location

_DIVISIONS = (np.true_divide, np.floor_divide, np.remainder)
_INT64_LIMIT = 2.0 ** 63


def python_number(x) -> bool:
    """A Python number, or a traced one (weak: an argument, ``int(t)``, arithmetic on those)."""
    return type(x) in (bool, int, float, complex) or (isinstance(x, Tracer) and x.weak)


def python_bool(x) -> bool:
    """A Python bool, or a traced one (a comparison of Python numbers, ``not t``: weak, bool)."""
    return type(x) is bool or (isinstance(x, Tracer) and x.weak and x.dtype == np.bool_)


def _traced_python(a, b) -> bool:
    return python_number(a) and python_number(b) and (isinstance(a, Tracer) or isinstance(b, Tracer))


def _kind(x) -> str:
    """``i``, ``f`` or ``c``: a bool is an int in Python's arithmetic."""
    kind = x.dtype.kind if isinstance(x, Tracer) else np.dtype(type(x)).kind
    return "i" if kind in "bu" else kind


_EXCEPTIONS = {"ZeroDivisionError": JitZeroDivisionError, "ValueError": JitValueError,
               "OverflowError": JitOverflowError, "IndexError": JitIndexError}


def error(code: int, index: int = 0, axis: int = 0, size: int = 0) -> Exception:
    """The exception a call raises for ``code`` (``kernel.PYTHON_ERRORS``): jitcore's subclass of
    Python's, with Python's message, filled in from the status words after the code."""
    name, message = PYTHON_ERRORS[code]
    as_float = float(np.int64(index).view(np.float64))
    where = f"{_FILES.get(size >> 32, 'the line')}:{size & 0xFFFFFFFF}"  # (a _line_word)
    message = message.format(index=index, axis=axis, size=size, float=as_float, where=where)
    if code in _ARITHMETIC and index > 0:  # ``_raise_when``'s word: the user's line and file
        line, file = index & 0xFFFFFFFF, _FILES.get(index >> 32)
        message = f"{message} (at {file}:{line})" if file else \
            f"{message} (at line {line} of the jitted function's file)"
    return _EXCEPTIONS[name](message)


# The files of the lines ``_raise_when`` puts in its word (their crc32 above the line's 32 bits):
# named where this process traced them (a function from the disk cache gives the line only)
_FILES: dict[int, str] = {}


def _line_word(frame) -> int:
    file = frame.f_code.co_filename
    key = zlib.crc32(file.encode()) & 0x7FFFFFFF
    _FILES.setdefault(key, file)
    return (key << 32 | frame.f_lineno) if _FILES[key] == file else frame.f_lineno


_ARITHMETIC = range(kernel.DIVISION_BY_ZERO, kernel.POWER_OVERFLOW + 1)  # messages without words


_EXACT_IN_FLOAT64 = 2**53


def check_held_exactly(value, held: np.dtype, taken=None) -> None:
    """The call's OverflowError where ``value``, a 0-d int of 64 bits, is held in a float of
    ``held`` (a value whose type the data chose between an int and a float: ``type_choice``)
    at or past 2**53 in magnitude, where the float would round it (and ``taken`` holds: the
    path that gives it ran)."""
    if not isinstance(value, Tracer) or value.ndim or value.dtype.kind not in "iu" \
            or value.dtype.itemsize < 8 or np.dtype(held).kind not in "fc":
        return
    bounds = _bounds(value)
    if bounds is not None and -_EXACT_IN_FLOAT64 < bounds[0] and bounds[1] < _EXACT_IN_FLOAT64:
        return
    if value.dtype.kind == "u":
        bad = prims.ufunc(np.greater_equal, value, np.uint64(_EXACT_IN_FLOAT64))
        shown = prims.convert(value, np.dtype(np.int64))
    else:
        bad = prims.ufunc(np.greater_equal, value, _EXACT_IN_FLOAT64) | \
            prims.ufunc(np.less_equal, value, -_EXACT_IN_FLOAT64)
        shown = value
    if taken is not None:  # (a test as Python reads it: ``a and b`` of a float ``a`` tests ``a``)
        if taken.dtype != np.bool_:
            taken = prims.ufunc(np.not_equal, taken, 0)
        bad = prims.ufunc(np.bitwise_and, bad, taken)
    for only in _ONLY_WHERE:
        bad = prims.ufunc(np.bitwise_and, bad, only)
    frame = user_frame()
    prims.raise_if(bad, kernel.INT_HELD_AS_FLOAT, (shown, 0, _line_word(frame) if frame is not None else 0))


type_choice.check_held_exactly = check_held_exactly  # (type_choice asks it; it cannot import this module)


def raise_when(bad: Tracer, code: int) -> None:
    """The call raises ``error(code)`` where ``bad`` holds; refused inside a ``try`` whose
    ``except`` would catch it (Python would run the handler)."""
    _raise_when(bad, code)


# While one combination of kinds a traced condition chose is computed
# (``chosen_kind_arithmetic``): the 0-d test that the data took it, which every check needs too.
_ONLY_WHERE: list[Tracer] = []


@contextlib.contextmanager
def only_where(taken: Tracer):
    """The checks made inside raise only where ``taken`` holds."""
    _ONLY_WHERE.append(taken)
    try:
        yield
    finally:
        _ONLY_WHERE.pop()


def _raise_when(bad: Tracer, code: int) -> None:
    """``array.raise_if``: the call raises ``error(code)`` where ``bad`` holds (any element)."""
    if bad.ndim:
        bad = np.any(bad)
    for taken in _ONLY_WHERE:
        bad = prims.ufunc(np.bitwise_and, bad, taken)
    trace = bad.owner_trace
    name, message = PYTHON_ERRORS[code]
    prims.refuse_caught(trace, getattr(builtins, name), [bad],
                        f"an operation at {user_location()} may raise {name}",
                        "Test the value first (if d != 0: ...)")
    frame = user_frame()
    prims.raise_if(bad, code, (_line_word(frame),) if code in _ARITHMETIC and frame is not None else ())


# -- division -----------------------------------------------------------------------------
_FLOAT_DIVISIONS = {np.true_divide: kernel.FLOAT_DIVISION_BY_ZERO,
                    np.floor_divide: kernel.FLOAT_FLOOR_DIVISION_BY_ZERO,
                    np.remainder: kernel.FLOAT_MODULO_BY_ZERO}


def _division_code(ufunc, kinds: str, divmod_: bool) -> int:
    if "c" in kinds:
        return kernel.COMPLEX_DIVISION_BY_ZERO
    if "f" in kinds:
        return kernel.FLOAT_DIVMOD_BY_ZERO if divmod_ else _FLOAT_DIVISIONS[ufunc]
    if divmod_ or ufunc is np.floor_divide:
        return kernel.INT_FLOOR_DIVISION_BY_ZERO
    return kernel.INT_MODULO_BY_ZERO if ufunc is np.remainder else kernel.DIVISION_BY_ZERO


def check_division(ufunc, a, b, divmod_: bool = False) -> None:
    """Python's ``ZeroDivisionError`` for ``a / b``, ``a // b``, ``a % b`` (``divmod``) of
    Python numbers, one traced, when ``b`` is zero; ``//`` and ``%`` of a complex number are
    Python's TypeError."""
    if ufunc not in _DIVISIONS or not _traced_python(a, b):
        return
    kinds = _kind(a) + _kind(b)
    if "c" in kinds and ufunc is not np.true_divide:
        symbol = "divmod()" if divmod_ else {np.floor_divide: "//", np.remainder: "%"}[ufunc]
        raise JitTypeError(f"unsupported operand type(s) for {symbol}: a Python complex number "
                           f"(Python's TypeError), at {user_location()}")
    if not isinstance(b, Tracer) and b != 0:
        return
    divisor = _traced(b, a, b)
    _raise_when(prims.ufunc(np.equal, divisor, 0), _division_code(ufunc, kinds, divmod_))


def python_ufunc(ufunc, a, b):
    """``ufunc(a, b)`` for an operator on ``a`` and ``b``: NumPy's, but ``a / b`` of Python ints
    (one traced) is Python's correctly rounded quotient (``python_division``), where a
    float64 division of the converted ints would round twice past 2**53."""
    if ufunc is not np.true_divide or not _traced_python(a, b) or _kind(a) + _kind(b) != "ii" \
            or all(bounds is not None and -2**53 <= bounds[0] and bounds[1] <= 2**53
                   for bounds in (_bounds(a), _bounds(b))):
        return prims.ufunc(ufunc, a, b)
    from jitcore.control_flow import cond  # here: control flow loads after the primitives

    a, b = (prims.convert(_traced(v, a, b), np.dtype(np.int64)) for v in (a, b))
    out = int_true_divide(a, b, lambda pred, slow, fast: cond(np.any(pred), slow, fast))
    return fresh(out, scalar=True, weak=True)


# -- int() of a float -----------------------------------------------------------------------
def check_int_of(x: Tracer) -> None:
    """Python's errors for ``int(x)`` (``round(x)``, ``math.floor(x)``) of a traced number,
    raised by the call: NaN, an infinity, or a value int64 cannot hold."""
    if x.dtype.kind == "f":
        from jitcore.control_flow import cond  # here: control flow loads after the primitives

        def which():  # one compare on the path taken when all is well
            _raise_when(prims.ufunc(np.isnan, x), kernel.INT_OF_NAN)
            _raise_when(prims.ufunc(np.isinf, x), kernel.INT_OF_INFINITY)
            _raise_when(prims.ufunc(np.absolute, x) >= _INT64_LIMIT, kernel.INT_OF_LARGE_FLOAT)

        cond(np.any(~(prims.ufunc(np.absolute, x) < _INT64_LIMIT)), which, lambda: None)
    elif x.dtype == np.uint64:
        _raise_when(x > np.uint64(2**63 - 1), kernel.INT_OF_LARGE_UINT64)


tracer_module.CHECK_INT_OF = check_int_of


# -- powers ---------------------------------------------------------------------------------
def python_power(a, b):
    """``a ** b`` of Python numbers, one traced, as Python computes it; None where either is not
    a Python number (NumPy's power then)."""
    if not _traced_python(a, b):
        return None
    kinds = _kind(a) + _kind(b)
    if "c" in kinds:
        return None  # complex powers: NumPy's, as before
    trace = (a if isinstance(a, Tracer) else b).owner_trace
    if kinds == "ii":
        if not isinstance(b, Tracer):
            if b >= 0:
                check_int_power(a, b)
                return None  # int ** int: NumPy's integer power
            a, kinds = prims.convert(prims.as_tracer(trace, a, np.dtype(np.float64)),
                                     np.dtype(np.float64)), "fi"  # Python's float result
        else:
            _raise_when(prims.ufunc(np.less, b, 0), kernel.NEGATIVE_INT_EXPONENT)
            check_int_power(a, b)
            return None
    base, exponent = (prims.as_tracer(trace, v, np.dtype(np.float64)) for v in (a, b))
    base, exponent = (prims.convert(v, np.dtype(np.float64)) for v in (base, exponent))
    out = prims.ufunc(np.power, base, exponent, scalar_math=True)
    zero_base = prims.ufunc(np.equal, base, 0.0)
    finite_exponent = prims.ufunc(np.isfinite, exponent)
    _raise_when(zero_base & (exponent < 0) & finite_exponent, kernel.ZERO_TO_NEGATIVE_POWER)
    if kinds != "fi":  # an int exponent never makes a complex number
        fractional = prims.ufunc(np.not_equal, prims.ufunc(np.floor, exponent), exponent)
        _raise_when((base < 0) & fractional & finite_exponent, kernel.COMPLEX_POWER)
    finite_in = prims.ufunc(np.isfinite, base) & finite_exponent
    _raise_when(prims.ufunc(np.isinf, out) & finite_in & ~zero_base, kernel.POWER_OVERFLOW)
    return fresh(out, scalar=True, weak=True)


# -- int overflow ----------------------------------------------------------------------------
def _bounds(x) -> tuple[int, int] | None:
    """Bounds known while tracing: a Python int's, or a loop index's (``index_forms``)."""
    if type(x) is int:
        return x, x
    form = getattr(x, "index_form", None)
    return None if form is None else (form.lo, form.hi)


def _fits(a, b, combine) -> bool:
    bounds = _bounds(a), _bounds(b)
    if None in bounds:
        return False
    (alo, ahi), (blo, bhi) = bounds
    ends = [combine(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    return -2**63 <= min(ends) and max(ends) < 2**63


def check_int_overflow(ufunc, a, b) -> None:
    """Python's exact ints where ``a + b``, ``a - b``, ``a * b``, ``a << b`` or ``a // b`` of
    Python ints (one traced) leaves int64: a JitOverflowError from the call, not a number that
    wrapped around; and Python's ValueError for a negative count of ``<<`` and ``>>``.
    Operands with bounds known while tracing (constants, loop indices) that cannot overflow pay
    nothing, and a sum with a constant is not checked (``_check_sum``)."""
    if ufunc not in _CHECKED or not _traced_python(a, b) or _kind(a) + _kind(b) != "ii":
        return
    if ufunc in (np.add, np.subtract):
        _check_sum(ufunc, a, b)
    elif ufunc is np.multiply:
        _check_product(a, b)
    elif ufunc is np.floor_divide:
        _check_quotient(a, b)
    elif ufunc is np.right_shift:
        if _bounds(b) is None or _bounds(b)[0] < 0:  # a count past 63 is Python's 0 or -1 already
            _raise_when(prims.ufunc(np.less, _traced(b, a, b), 0), kernel.NEGATIVE_SHIFT)
    else:
        _check_left_shift(a, b)


def _check_left_shift(a, b) -> None:
    if _fits(a, b, lambda x, y: x << y if y >= 0 else 0) and _bounds(b)[0] >= 0:
        return
    a, b = _traced(a, a, b), _traced(b, a, b)
    _raise_when(prims.ufunc(np.less, b, 0), kernel.NEGATIVE_SHIFT)
    shift = prims.ufunc(np.minimum, prims.ufunc(np.maximum, b, 0), 63)  # in range for the test
    back = prims.ufunc(np.right_shift, prims.ufunc(np.left_shift, a, shift), shift)
    lost = prims.ufunc(np.not_equal, back, a) | ((b > 63) & prims.ufunc(np.not_equal, a, 0))
    _raise_when(lost, kernel.INT_OVERFLOW)


_INT64_MIN = -2**63
_NEAR_LIMIT = 2.0 ** 63 * (1 - 2.0 ** -50)  # past the float product's rounding error


def _check_product(a, b) -> None:
    """``a * b`` past int64. The float64 product is a cheap filter (one multiply and a
    compare); near the limit, where its rounding could go either way (``1 * (2**63 - 1)``,
    ``2 * -2**62`` fit), the wrapped product divided back decides exactly, off the common path."""
    if _fits(a, b, lambda x, y: x * y) or any(type(v) is int and v in (0, 1) for v in (a, b)):
        return
    from jitcore.control_flow import cond  # here: control flow loads after the primitives

    a, b = _traced(a, a, b), _traced(b, a, b)
    wide = prims.ufunc(np.multiply, *(prims.convert(v, np.dtype(np.float64)) for v in (a, b)))
    near = prims.ufunc(np.absolute, wide) >= _NEAR_LIMIT

    def exact():
        wrapped = prims.ufunc(np.multiply, a, b)
        minus_one, smallest = (prims.ufunc(np.equal, a, -1), prims.ufunc(np.equal, b, _INT64_MIN))
        divisor = prims.where(prims.ufunc(np.equal, a, 0) | minus_one, 1, a)
        back = prims.ufunc(np.floor_divide, wrapped, divisor)  # b again where nothing wrapped
        lost = (minus_one & smallest) | (~minus_one & prims.ufunc(np.not_equal, back, b)
                                         & prims.ufunc(np.not_equal, a, 0))
        _raise_when(lost, kernel.INT_OVERFLOW)

    cond(np.any(near), exact, lambda: None)


def _check_quotient(a, b) -> None:
    """``-2**63 // -1`` (and ``divmod``) is 2**63, past int64."""
    if any(bounds is not None and (bounds[0] > lim or bounds[1] < lim)
           for bounds, lim in ((_bounds(a), _INT64_MIN), (_bounds(b), -1))):
        return
    a, b = _traced(a, a, b), _traced(b, a, b)
    _raise_when(prims.ufunc(np.equal, a, _INT64_MIN) & prims.ufunc(np.equal, b, -1), kernel.INT_OVERFLOW)


def check_int_negation(ufunc, x) -> None:
    """``-n`` and ``abs(n)`` of a traced Python int: Python's 2**63 for -2**63 does not fit."""
    if ufunc not in (np.negative, np.absolute) or not (isinstance(x, Tracer) and x.weak) \
            or x.dtype != np.int64:
        return
    bounds = _bounds(x)
    if bounds is not None and bounds[0] > _INT64_MIN:
        return
    _raise_when(prims.ufunc(np.equal, x, _INT64_MIN), kernel.INT_OVERFLOW)


_CHECKED = (np.add, np.subtract, np.multiply, np.left_shift, np.right_shift, np.floor_divide)


def _check_sum(ufunc, a, b) -> None:
    """``a + b`` or ``a - b`` past int64. Both operands traced: the wrapped result's sign against
    the operands' (two's complement: a sum overflows where both operands' signs differ from the
    result's), one test and a branch that is never taken. One a constant (``int(x[0]) - 1``,
    ``1 - n``): the traced one against the bound that constant leaves it (session 55; before, a
    constant step was not checked), outside compiled loops' bodies: so not a loop's counter
    (``n += 1`` on a loop's carry, or in a branch of its body), which would have to start
    within its steps of int64's limit, and whose test would keep a counting loop from
    vectorizing (a counter under a data test: 2.2 ms for 10^6 steps with it, 0.32 ms without)."""
    if type(a) is int or type(b) is int:
        _check_constant_step(ufunc, a, b)
        return
    if _fits(a, b, (lambda x, y: x + y) if ufunc is np.add else (lambda x, y: x - y)):
        return
    out = prims.ufunc(ufunc, a, b)
    flips = prims.ufunc(np.bitwise_and, prims.ufunc(np.bitwise_xor, a, out),
                        prims.ufunc(np.bitwise_xor, b if ufunc is np.add else a,
                                    out if ufunc is np.add else b))
    _raise_when(prims.ufunc(np.less, flips, 0), kernel.INT_OVERFLOW)


_INT64_MAX = 2**63 - 1


def _check_constant_step(ufunc, a, b) -> None:
    """``t + c``, ``c + t``, ``t - c`` or ``c - t``, ``t`` traced, ``c`` a Python int: ``t``
    outside the range that keeps the exact result in int64 raises; a bound past int64's own
    costs nothing, so ``t + 1`` tests only ``t == 2**63 - 1``."""
    t, c = (b, a) if type(a) is int else (a, b)
    # Not in a compiled loop: a raise there keeps the caller's arrays as the loop left them,
    # which costs a loop that writes one 4-15x (int(x[i]) + 1 into a passed-in out, 10^6
    # steps: 2 -> 9-29 ms), for a value that wraps only within its step of int64's limit.
    if t.owner_trace.loops or _fits(a, b, (lambda x, y: x + y) if ufunc is np.add
                                    else (lambda x, y: x - y)):
        return
    if ufunc is np.add or t is a:  # t + c, c + t, t - c: t + step within int64
        step = c if ufunc is np.add else -c
        lo, hi = _INT64_MIN - step, _INT64_MAX - step
    else:  # c - t within int64: t within [c - max, c - min]
        lo, hi = c - _INT64_MAX, c - _INT64_MIN
    if max(lo, _INT64_MIN) > min(hi, _INT64_MAX):  # (c past int64: no t gives an int64 result)
        scalar_to_dtype(c, np.dtype(np.int64))  # its refusal, naming c
    lo, hi = max(lo, _INT64_MIN), min(hi, _INT64_MAX)
    bad = []
    if lo > _INT64_MIN:
        bad.append(prims.ufunc(np.less, t, lo))
    if hi < _INT64_MAX:
        bad.append(prims.ufunc(np.greater, t, hi))
    if bad:
        _raise_when(bad[0] if len(bad) == 1 else bad[0] | bad[1], kernel.INT_OVERFLOW)


def check_int_power(base, exponent) -> None:
    """``base ** exponent`` of Python ints, the exponent not negative: JitOverflowError from the
    call where the power leaves int64."""
    if type(exponent) is int:
        if exponent <= 1 or (_bounds(base) is not None
                             and all(-2**63 <= v ** exponent < 2**63 for v in _bounds(base))):
            return
        high, low = _int_root(exponent), _negative_root(exponent)  # the bases whose power fits
        base = _traced(base, base, exponent)
        _raise_when((base > high) | (base < low), kernel.INT_OVERFLOW)
        return
    base, exponent = _traced(base, base, exponent), _traced(exponent, base, exponent)
    wide = prims.ufunc(np.power, *(prims.convert(v, np.dtype(np.float64)) for v in (base, exponent)),
                       scalar_math=True)
    # n ** 1 is n (its float rounds up to 2**63 from 2**63 - 1); (-2) ** 63 is -2**63, which fits:
    # there the wrapped power agrees. No other power of an int lies within the float's error of
    # the limit.
    smallest = prims.ufunc(np.equal, wide, float(_INT64_MIN)) \
        & prims.ufunc(np.equal, prims.ufunc(np.power, base, exponent), _INT64_MIN)
    _raise_when((prims.ufunc(np.absolute, wide) >= _INT64_LIMIT) & ~smallest
                & prims.ufunc(np.greater, exponent, 1), kernel.INT_OVERFLOW)


def _int_root(exponent: int) -> int:
    if exponent <= 1:
        return 2**63 - 1
    root = int(round(2 ** (63 / exponent)))
    while root ** exponent >= 2**63:
        root -= 1
    while (root + 1) ** exponent < 2**63:
        root += 1
    return root


def _negative_root(exponent: int) -> int:
    """The most negative base whose power fits: ``-2**21`` for cubes ((-2**21) ** 3 = -2**63)."""
    if exponent % 2 == 0:
        return -_int_root(exponent)
    root = -_int_root(exponent)
    return root - 1 if (root - 1) ** exponent >= -2**63 else root


def _traced(v, a, b) -> Tracer:
    trace = (a if isinstance(a, Tracer) else b).owner_trace
    if isinstance(v, Tracer):
        return v
    return prims.constant(trace, np.asarray(scalar_to_dtype(v, np.dtype(np.int64))))  # (2**63: refused)
