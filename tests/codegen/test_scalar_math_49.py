"""Scalar squares (pow49): glibc's pow(x, 2.0) without the call wherever glibc's documented error
bound says its answer is ``x * x``, and the call (pow's bits) everywhere else.

The band (codegen/scalar.py, ``_glibc_square``): with ``x * x = hi + lo`` exactly, pow's value
before its final rounding is within ``E(k) = 0.011 + (|k| + 1) * ln2 * 1.5 * 2**-15`` ULP of the
exact square (``k`` the square's binary exponent), so ``|lo| <= 0.5 - E(k)`` ULP gives ``hi``.
The tests count the compiled code's calls of pow (the symbol given to LLVM is a counting one
while they compile), so a band drawn too narrow (calls where none are needed) fails as surely
as one drawn too wide (``hi`` where pow differs).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import platform

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llvmlite import binding as llvm

import jitcore as jc

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
needs_glibc = pytest.mark.skipif(not GLIBC, reason="the square's fast path is glibc's pow's")

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.pow.restype, _LIBM.pow.argtypes = ctypes.c_double, [ctypes.c_double, ctypes.c_double]
_LIBM.powf.restype, _LIBM.powf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
_POW = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)
_POWF = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_float)


def exact_error_ulps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``|lo| / ulp(hi)`` of ``x * x = hi + lo`` (Dekker's exact product) and hi's exponent."""
    hi = x * x
    c = 134217729.0 * x
    xh = c - (c - x)
    xl = x - xh
    lo = ((xh * xh - hi) + 2 * xh * xl) + xl * xl
    k = np.frexp(hi)[1] - 1
    return np.abs(lo) / np.ldexp(1.0, k - 52), k


def edge(k: np.ndarray) -> np.ndarray:
    """The band's edge in ULP, from glibc's documented bounds (not from any sample)."""
    return 0.5 - 0.011 - (np.abs(k) + 1) * math.log(2) * 1.5 * 2.0 ** -15


def squares_49(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] ** 2  # a NumPy float64 scalar's power: C's pow
    return out


class CountedPow:
    """While open, the ``pow`` (``powf``) that code compiled then links to counts its calls."""

    def __init__(self, symbol: str = "pow"):
        self.symbol = symbol

    def __enter__(self):
        self.calls = 0
        real = getattr(_LIBM, self.symbol)

        def counted(x, y):
            self.calls += 1
            return real(x, y)

        self._callback = (_POW if self.symbol == "pow" else _POWF)(counted)
        self._cache = jc.config.disk_cache
        jc.config.disk_cache = False
        llvm.add_symbol(self.symbol, ctypes.cast(self._callback, ctypes.c_void_p).value)
        return self

    def __exit__(self, *exc):
        llvm.add_symbol(self.symbol, ctypes.cast(getattr(_LIBM, self.symbol), ctypes.c_void_p).value)
        jc.config.disk_cache = self._cache


def values(seed: int, n: int) -> np.ndarray:
    """Random float64s over many binades (squares from about 2**-300 to 2**300)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(1, 2, n) * np.exp2(rng.integers(-150, 150, n).astype(float)) * rng.choice([-1, 1], n)


@needs_glibc
def test_inside_the_documented_band_no_call_and_pows_bits():
    """|lo| between 0.4 ULP (session 48's band) and the documented edge: x * x, no call."""
    x = values(0, 200_000)
    r, k = exact_error_ulps(x)
    x = x[(r > 0.41) & (r <= edge(k) - 1e-6)][:300]
    assert len(x) == 300
    with CountedPow() as pow_:
        f = jc.jit(squares_49)
        got = f(x)
    want = np.array([_LIBM.pow(v, 2.0) for v in x])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, x * x)
    assert pow_.calls == 0


@needs_glibc
def test_beyond_the_band_pow_is_called_and_its_bits_kept():
    """Past the edge pow may round the other way (it does for about 4% of these): each calls."""
    x = values(1, 400_000)
    r, k = exact_error_ulps(x)
    x = x[r > edge(k) + 1e-6][:400]
    differs = np.array([_LIBM.pow(v, 2.0) != v * v for v in x])
    assert differs.sum() > 0
    with CountedPow() as pow_:
        got = jc.jit(squares_49)(x)
    np.testing.assert_array_equal(got, np.array([_LIBM.pow(v, 2.0) for v in x]))
    assert pow_.calls == len(x)


def float_error_ulps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A float32's square is exact in float64: ``|lo| / ulp(hi)`` in float ULPs, and hi's exponent."""
    exact = x.astype(np.float64) ** 2
    hi = exact.astype(np.float32)
    k = np.frexp(hi)[1] - 1
    return np.abs(exact - hi) / np.ldexp(1.0, k - 23), k


def float_edge(k: np.ndarray) -> np.ndarray:
    """powf's band edge in float ULP from its documented relerr_exp2 and relerr_log2."""
    return 0.5 - 1.69 * 2.0 ** -10 - (np.abs(k) + 1) * math.log(2) * 1.83 * 2.0 ** -9


def float_values(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.uniform(1, 2, n) * np.exp2(rng.integers(-60, 60, n).astype(float))
            * rng.choice([-1, 1], n)).astype(np.float32)


@needs_glibc
def test_float32_squares_inside_powfs_band_no_call():
    x = float_values(2, 100_000)
    r, k = float_error_ulps(x)
    x = x[(r <= float_edge(k) - 1e-6) & (np.abs(k) <= 120)][:300]
    assert len(x) == 300
    with CountedPow("powf") as powf:
        got = jc.jit(squares_49)(x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([_LIBM.powf(v, 2.0) for v in x], dtype=np.float32))
    np.testing.assert_array_equal(got, np.array([v ** 2 for v in x], dtype=np.float32))  # NumPy's
    assert powf.calls == 0


@needs_glibc
def test_float32_squares_beyond_the_band_call_powf():
    x = float_values(3, 400_000)
    r, k = float_error_ulps(x)
    x = np.concatenate([x[r > float_edge(k) + 1e-6][:300],
                        np.array([0.0, -0.0, np.inf, np.nan, 2.0 ** -70, 2.0 ** 64, 1.5e-45], np.float32)])
    with CountedPow("powf") as powf:
        got = jc.jit(squares_49)(x)
    with np.errstate(all="ignore"):
        want = np.array([v ** 2 for v in x], dtype=np.float32)
    np.testing.assert_array_equal(got, want)
    assert powf.calls == len(x)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.floats(1.0, 2.0, exclude_max=True), st.integers(-530, 520), st.booleans())
def test_squares_are_numpys_scalar_powers(m, e, negative):
    """Differential against NumPy's float64, float32 and float16 scalar powers, Python's float
    power and math.pow, over every binade a square reaches (subnormal and overflowing squares
    included)."""
    v = math.ldexp(-m if negative else m, e)
    x = np.array([v, 1.0])
    for f in (lambda x, v: x[0] ** 2, lambda x, v: v ** 2, lambda x, v: math.pow(v, 2)):
        try:
            with np.errstate(all="ignore"):
                want = f(x, v)
        except OverflowError:  # a Python float's power past the largest float
            with pytest.raises(OverflowError):
                jc.jit(f)(x, v)
            continue
        got = jc.jit(f)(x, v)
        assert type(got) is type(want)
        assert got == want or (got != got and want != want), (v, got, want)
    for dtype in (np.float32, np.float16):  # powf's squares (half ones in float, then rounded)
        with np.errstate(all="ignore"):
            xs = np.array([v, 1.0]).astype(dtype)
            want = xs[0] ** 2
        got = jc.jit(lambda x: x[0] ** 2)(xs)
        assert type(got) is type(want)
        assert got == want or (got != got and want != want), (xs[0], got, want)


def test_a_loop_of_squares_keeps_its_arguments_and_pows_bits():
    x = np.random.default_rng(5).uniform(-2, 2, 3000)
    before = x.copy()

    def rosenbrock(x):
        s = 0.0
        for i in range(x.shape[0] - 1):
            s += 100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
        return s

    got = jc.jit(rosenbrock)(x)
    want = rosenbrock(x)
    assert type(got) is type(want) and got == want
    np.testing.assert_array_equal(x, before)


@needs_glibc
def test_the_pow_call_is_cold():
    """The fast path is straight-line: the call sits behind llvm.expect in a block of its own."""
    text = jc.jit(squares_49).lower(np.ones(4)).as_text("llvm")
    assert "llvm.expect.i1" in text and "square.pow" in text


# -- the f64 log/exp workload: the log of an exp is computed, never rewritten as x (XLA's
# algebraic simplifier does so, which is how JAX's sum(log(exp(x))) is faster: it runs no exp
# and no log, and leaves NumPy's values wherever exp rounds, overflows or underflows) ----------

LOG_EXP_EDGES = [1e-20, 3e-17, 0.1, 709.0, 710.0, 800.0, -740.0, -745.0, -746.0,
                 -np.inf, np.inf, np.nan, 0.0, -0.0]


def test_log_of_exp_keeps_numpys_values_where_it_is_not_x():
    x = np.array(LOG_EXP_EDGES)
    with np.errstate(all="ignore"):
        want = np.log(np.exp(x))
    got = jc.jit(lambda x: np.log(np.exp(x)))(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)  # 0.0 at 1e-20, inf at 710, -744.44... at -745
    assert (want != x)[[0, 1, 2, 4, 5, 6, 7, 8]].all()  # where x itself would be wrong


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-760, 720, allow_nan=False), min_size=1, max_size=40))
def test_sum_of_log_of_exp_is_numpys(values):
    x = np.array(values)
    with np.errstate(all="ignore"):
        want = np.sum(np.log(np.exp(x)))
        elementwise = np.log(np.exp(x))
    got = jc.jit(lambda x: np.sum(np.log(np.exp(x))))(x)
    assert type(got) is type(want)
    if not np.isfinite(want):
        assert got == want
        return
    # exp's rounding differs by an ULP here and there: log(exp(x)) = x + that relative error
    tol = 4e-16 * np.sum(np.abs(elementwise)) + 4 * len(x) * 2.0 ** -52
    assert abs(got - want) <= tol, (got, want)
