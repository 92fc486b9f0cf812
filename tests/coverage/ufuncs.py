"""Rows of the coverage table: the ufuncs of arithmetic, comparison, logic and bits."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import ulp
from tests.coverage.draw import INTS
from tests.coverage.generators import BINARY_SHAPES, g_binary, g_unary
from tests.coverage.harness import Case, case_adder, ufunc_case

CASES: list[Case] = []
case = case_adder(CASES)


def g_complex_power(draw, family):
    """Complex bases |part| <= 100 and exponents |part| <= 1.5 or small real integers (NumPy's
    repeated squaring), NaN/inf/0 among both: beyond that z**w's parts are ill-conditioned
    (the angle im(w log z) is huge), and the special-value grid of test_complex.py covers it."""
    sa, sb = draw.shape(BINARY_SHAPES)
    dtype = draw.dtype(family)
    if draw.integer(0, 2) == 0:
        exponent = np.array(draw.integer(-9, 9), dtype)
    else:
        exponent = draw.array(dtype, sb, "prod")
    return (draw.array(dtype, sa, "small"), exponent), {}


def g_power(draw, family):
    # NumPy refuses negative integer exponents (ValueError, data-dependent); jitcore defines
    # them (see test_negative_integer_power_is_defined), so integer exponents are drawn >= 0.
    if family == "complex":
        return g_complex_power(draw, family)
    sa, sb = draw.shape(BINARY_SHAPES)
    return (draw.array(draw.dtype(family), sa), draw.array(draw.dtype(family), sb, "nonneg")), {}


def _u(name, group, gen, **kw):
    return ufunc_case(case, name, group, gen, **kw)


for _name in ("add", "subtract", "multiply", "divide", "floor_divide", "remainder"):
    _u(_name, "arithmetic", g_binary())
_u("power", "arithmetic", g_power, tol=ulp("pow"))
for _name in ("fmod", "heaviside", "divmod"):
    _u(_name, "arithmetic", g_binary())
_u("float_power", "arithmetic", lambda draw, family: (g_complex_power if family == "complex" else g_binary())(
    draw, family), tol=ulp("pow"))
for _name in ("gcd", "lcm"):
    _u(_name, "arithmetic", g_binary())
for _name in ("negative", "positive", "absolute", "fabs", "square"):
    _u(_name, "arithmetic", g_unary())
_u("sign", "arithmetic", g_unary(), tol=ulp("sign"))  # exact but for complex (z / hypot)
_u("reciprocal", "arithmetic", g_unary(), unsupported=INTS,
   reason="integer reciprocal refused on purpose (UnsupportedError suggests 1 / x or 1 // x)")
for _name in ("maximum", "minimum"):
    _u(_name, "comparison", g_binary())


def _fixed_zero_tie(fn):
    """NumPy's ``fn`` (fmax, fmin), except for +0.0 against -0.0, where NumPy's float32/64 answer
    depends on the element's position in its SIMD loop (the vector body returns the second
    operand, the scalar remainder the first: see test_fmax_zero_tie_is_positional in
    tests/jitcore/test_ufuncs_extra.py). There jitcore always returns the second operand (the
    first for float16, as NumPy's float16 loop always does)."""
    def ref(x, y):
        out = np.asarray(fn(x, y))
        if out.dtype.kind == "f":
            x, y = (np.asarray(v).astype(out.dtype) for v in (x, y))
            tie = (x == y) & (np.signbit(x) != np.signbit(y))
            out = np.where(tie, x if out.dtype == np.float16 else y, out)
        return out
    return ref


for _name in ("fmax", "fmin"):
    _u(_name, "comparison", g_binary(), ref=_fixed_zero_tie(getattr(np, _name)))
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    _u(_name, "comparison", g_binary())
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    _u(_name, "logical", g_unary() if _name == "logical_not" else g_binary())
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"):
    _u(_name, "bitwise", g_unary() if _name == "invert" else g_binary())
_u("bitwise_count", "bitwise", g_unary())

_CONST = np.arange(3, dtype=np.int16)
case("ndarray + x (NumPy array on the left)", "arithmetic", lambda x: _CONST + x, g_unary())
_ZERO = np.zeros(1, dtype=np.int16)  # broadcasts against every drawn shape; ties with +-0.0
case("np.maximum(ndarray, x), np.minimum(ndarray, x) (constant on the left)", "comparison",
     lambda x: (np.maximum(_ZERO, x), np.minimum(_ZERO, x)), g_unary())
case("x + 2.5, x * 2 (Python scalars, weak)", "arithmetic", lambda x: (x + 2.5, x * 2, 3 - x), g_unary())


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.divide(x, y)": "also np.true_divide",
    "np.remainder(x, y)": "also np.mod; integer x % 0 is 0 as in NumPy",
    "np.floor_divide(x, y)": "integer x // 0 is 0 as in NumPy; INT_MIN // -1 wraps",
    "np.power(x, y)": "integer x ** -n is defined (1 // x**n); NumPy raises ValueError",
    "np.reciprocal(x)": "integers and bool refused on purpose (UnsupportedError: write 1 / x or 1 // x)",
    "np.fmod(x, y)": "integer x fmod 0 is 0 as in NumPy (which warns); INT_MIN fmod -1 is 0",
    "np.gcd(x, y)": "INT_MIN's magnitude is 2**(n-1) read as unsigned, as in NumPy",
    "np.lcm(x, y)": "computed as |x| // gcd * |y|, wrapping on overflow as in NumPy",
    "np.fmax(x, y)": "+0.0 against -0.0: the second operand (float16: the first); NumPy's float32/64 "
                     "answer depends on the element's position in its SIMD loop",
    "np.fmin(x, y)": "+0.0 against -0.0: the second operand (float16: the first); NumPy's float32/64 "
                     "answer depends on the element's position in its SIMD loop",
    "np.absolute(x)": "also np.abs and abs(x)",
    "np.invert(x)": "also np.bitwise_not and ~x",
}
