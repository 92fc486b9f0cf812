"""Powers against NumPy, spelling by spelling: ``x ** 2``, ``x ** 2.0``, ``x ** np.float32(2)``,
``np.power(x, 2)``, a one-element exponent, an exponent known only at run time, and a full
array of exponents, for the exponents NumPy computes without pow (-1, 0, 0.5, 1, 2) and one it
does not (3), over every special value and a wide spread of magnitudes (subnormals to huge).

What NumPy 2.4 does (measured here; it is the oracle): its float32/float64 power loop, given an
exponent that stays put along the loop, computes -1, 0, 0.5, 1 and 2 as 1 / x, 1, sqrt(x), x and
x * x, for every spelling whose exponent is a scalar or one element (the operator's own fast
path gives the same); a full array of exponents, and any other exponent, take pow (on an
AVX-512 host its SIMD pow, within pow's ULP bound of x * x). jitcore matches the fast paths bit
for bit, and does pow's work by multiplications only where that is exact (passes/canonicalize.py).
NumPy scalars (``np.float32(v) ** 2``) take C's pow, which is not always correctly rounded: there
jitcore's x * x may be one ULP from NumPy, within pow's bound (tests/jitcore/test_numpy_parity.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.oracle import assert_matches, ulp_bound
from tests.strategies import arrays, edge_set

FAST_EXPONENTS = (-1, 0, 0.5, 1, 2)
EXPONENTS = (*FAST_EXPONENTS, 3)
DTYPES = [np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex128, np.int8, np.int64)]

# name -> (function of x and the exponent e, whether NumPy's exponent stays put along the loop,
# whether e is an argument of the jitted function rather than a constant of it)
SPELLINGS = {
    "x ** e": (lambda x, e: x ** e, True, False),
    "x ** float(e)": (lambda x, e: x ** float(e), True, False),
    "x ** x.dtype.type(e)": (lambda x, e: x ** x.dtype.type(e), True, False),
    "np.power(x, e)": (lambda x, e: np.power(x, e), True, False),
    "x ** 0-d e": (lambda x, e: x ** np.array(e, x.dtype), True, False),
    "x ** [e]": (lambda x, e: x ** np.array([e], x.dtype), True, False),
    "x ** full(e)": (lambda x, e: np.power(x, np.full(x.shape, e, x.dtype)), False, False),
    "x ** e at run time": (lambda x, e: x ** e, True, True),
    "np.power(x, full e at run time)": (lambda x, e: np.power(x, e), False, True),
}


def values(dtype: np.dtype) -> np.ndarray:
    """Every special value of ``dtype`` and 3000 numbers from its smallest to its largest."""
    rng = np.random.default_rng(7)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        spread = rng.integers(info.min, info.max, 3000, dtype=dtype, endpoint=True)
    else:
        part = np.finfo(dtype)
        exps = rng.uniform(np.log2(float(part.smallest_subnormal)), np.log2(float(part.max)), 3000)
        signs = rng.choice([-1.0, 1.0], 3000)
        with np.errstate(over="ignore"):
            spread = (signs * rng.uniform(1, 2, 3000) * 2.0 ** exps).astype(dtype)
            if dtype.kind == "c":
                spread = spread + 1j * spread[::-1]
    return np.concatenate([edge_set(dtype), spread])


def bound(dtype: np.dtype, result: np.dtype, e, stays_put: bool) -> int:
    """0 (bit for bit) where NumPy takes a fast path, or float16's exact cases (NumPy rounds the
    float32 pow, which for these exponents is correctly rounded; jitcore's ops round alike);
    pow's ULP bound elsewhere."""
    if result.kind in "iu" or (result.kind == "f" and stays_put and e in FAST_EXPONENTS
                               and (result != np.float16 or e != 0.5)):
        return 0
    return ulp_bound("pow", result)


def _argument(x: np.ndarray, e, spelling: str):
    return np.array(e, x.dtype) if "full" not in spelling else np.full(x.shape, e, x.dtype)


# One jitted function per run-time spelling, shared by every exponent: its signature is the same
# for each (the exponent is an argument), so it compiles once a dtype and the other exponents
# run the same code on their own values. A fresh jit per case compiled complex128's pow anew
# six times (0.8 s each: its module is past the code memo's size limit).
RUN_TIME_JITTED = {name: jc.jit(fn) for name, (fn, _, at_run_time) in SPELLINGS.items() if at_run_time}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("e", EXPONENTS, ids=repr)
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_power_spellings_as_numpy(spelling, e, dtype):
    fn, stays_put, at_run_time = SPELLINGS[spelling]
    x = values(dtype)
    if dtype.kind in "iu" and e == -1 and (at_run_time or "float" not in spelling):
        return  # NumPy refuses integers to negative integer powers (test_numpy_parity.py)
    if at_run_time:
        arg = _argument(x, e, spelling)
        with np.errstate(all="ignore"):
            expected = fn(x, arg)
        got = RUN_TIME_JITTED[spelling](x, arg)
    else:
        with np.errstate(all="ignore"):
            expected = fn(x, e)
        got = jc.jit(lambda x: fn(x, e))(x)
    assert_matches(got, expected, bound(dtype, expected.dtype, e, stays_put), f"{spelling}, e = {e!r}")


@settings(max_examples=examples(4), deadline=None)
@given(data=st.data())
def test_power_draws_as_numpy(data):
    """Hypothesis draws (specials half the time, any layout) through the constant spellings."""
    dtype = data.draw(st.sampled_from([np.dtype(np.float32), np.dtype(np.float64)]))
    spelling = data.draw(st.sampled_from([k for k, v in SPELLINGS.items() if not v[2]]))
    e = data.draw(st.sampled_from(EXPONENTS))
    x = data.draw(arrays(dtype, st.integers(0, 70).map(lambda n: (n,))))
    fn, stays_put, _ = SPELLINGS[spelling]
    with np.errstate(all="ignore"):
        expected = fn(x, e)
    got = jc.jit(lambda x: fn(x, e))(x)
    assert_matches(got, expected, bound(dtype, expected.dtype, e, stays_put), f"{spelling}, e = {e!r}")


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=str)
@pytest.mark.parametrize("e", [2, -1], ids=repr)
def test_rewritten_power_is_the_correctly_rounded_one(e, dtype):
    """Where pow's work becomes x * x or 1 / x even though NumPy takes pow (a full array of
    exponents), jitcore gives the correctly rounded power: computed here in float64, where x**2
    is exact and 1 / x rounds twice harmlessly (53 >= 2 * 24 + 2 bits), then rounded once."""
    x = values(np.dtype(dtype))
    with np.errstate(all="ignore"):
        exact = (x.astype(np.float64) ** e).astype(dtype)
    got = jc.jit(lambda x: np.power(x, np.full(x.shape, e, x.dtype)))(x)
    assert_matches(got, exact, 0, f"x ** {e}")


def _optimized(fn, x) -> str:
    return jc.jit(fn).lower(x).as_text("optimized")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("e", [2, 2.0, -1, -1.0, 1.0, 0.0], ids=repr)
def test_fast_exponents_compile_without_pow(e, dtype):
    x = np.ones(8, dtype)
    for fn in (lambda x: x ** e, lambda x: np.power(x, e), lambda x: np.power(x, np.full(8, e, dtype))):
        assert "powf" not in _optimized(fn, x)
    assert "powf" not in _optimized(lambda x: np.sum(np.abs(x) ** e), x)


@pytest.mark.parametrize("e", [3, 3.0, 0.5, -2.0, 1.5])
def test_other_float_exponents_keep_pow(e):
    """x * x * x rounds twice where pow rounds once: not the same number."""
    x = np.ones(8, np.float32)
    assert "powf" in _optimized(lambda x: np.power(x, np.full(8, e, np.float32)), x)


def _to_the(e):
    return lambda x: x ** e


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64], ids=str)
def test_small_integer_powers_are_multiplications_that_wrap_as_numpy(dtype):
    x = values(np.dtype(dtype))
    for e in range(0, 18):
        fn = _to_the(e)
        assert ("ipowi" in _optimized(fn, x)) == (e > 16), e
        with np.errstate(all="ignore"):
            assert_matches(jc.jit(fn)(x), fn(x), 0, f"x ** {e}")
