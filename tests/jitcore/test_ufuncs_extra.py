"""fmod, float_power, heaviside, divmod, fmax/fmin, gcd/lcm, bitwise_count, logaddexp2, select
and the bitwise ufunc reductions against NumPy on the values the coverage table's generators
rarely draw together: every pair of special values (NaN, +-inf, +-0.0, zero divisors, INT_MIN,
-1, extremes) for every dtype NumPy accepts, exhaustive grids for 8-bit integers, and bad
input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.numpy as jnp
from tests import strategies
from tests.budget import examples
from tests.layouts import relayout
from tests.oracle import ULP_BOUNDS, assert_matches

INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                              np.uint64)]
FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
ALL = [np.dtype(np.bool_), *INTS, *FLOATS]


def specials(dtype: np.dtype) -> np.ndarray:
    """tests/strategies.py's special values of ``dtype`` and more small numbers with common
    factors (for gcd and lcm) and exact quotients."""
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind == "f":
        more = [0.5, -2.5, 3.0, 7.0, -7.0, 1e4]
    else:
        info = np.iinfo(dtype)
        more = [info.min + 1, info.max - 1, 2, 3, 6, 7, 12, 100]
        more += [-2, -6, -7, -12] if dtype.kind == "i" else []
    return np.concatenate([strategies.specials(dtype), np.array(more, dtype)])


def pairs(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values of ``dtype``, as two flat arrays."""
    s = specials(dtype)
    return np.repeat(s, s.size), np.tile(s, s.size)


def numpy(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def check(fn, *args, ulps=0):
    """jitcore's ``fn(*args)`` is NumPy's, for the arguments as given (contiguous) and seen
    through other layouts (reversed, every other element, unaligned), which compile once more."""
    expected = numpy(fn, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    views = [relayout(a, ("reversed", "strided", "unaligned")[i % 3]) if isinstance(a, np.ndarray) else a
             for i, a in enumerate(args)]
    for inputs in (args, views):
        actual = jc.jit(fn)(*inputs)
        actual = actual if isinstance(actual, tuple) else (actual,)
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert_matches(a, e, ulps, f"{fn.__name__} of {[np.shape(x) for x in inputs]}")


def _ids(dtypes):
    return [str(d) for d in dtypes]


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
def test_fmod_special_pairs(dtype):
    """C fmod: the dividend's sign, x fmod 0 is NaN for floats and 0 for integers, inf fmod y is
    NaN, x fmod inf is x; INT_MIN fmod -1 is 0."""
    check(np.fmod, *pairs(dtype))


DRAWN = {np.fmod: ALL, np.gcd: INTS, np.lcm: INTS, np.heaviside: FLOATS, np.divmod: ALL, np.fmax: ALL,
         np.fmin: ALL, np.float_power: ALL, np.bitwise_count: [np.dtype(np.bool_), *INTS]}


@pytest.mark.parametrize("fn", list(DRAWN), ids=lambda f: f.__name__)
@settings(max_examples=examples(6), deadline=None)
@given(data=st.data())
def test_drawn_arrays_match_numpy(fn, data):
    """Broadcast shapes, specials among the values and any layout (tests/strategies.py)."""
    dtype = data.draw(st.sampled_from(DRAWN[fn]))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=fn.nin, max_dims=3, max_side=4))
    args = [data.draw(strategies.arrays(dtype, shape)) for shape in shapes.input_shapes]
    expected = numpy(fn, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = jc.jit(fn)(*args)
    actual = actual if isinstance(actual, tuple) else (actual,)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        if fn in (np.fmax, np.fmin):  # +0.0 against -0.0: either is NumPy's (test_fmax_fmin_zero_tie)
            tie = (np.asarray(args[0]) == 0) & (np.asarray(args[1]) == 0)
            e = np.where(tie, a, e).astype(e.dtype)
        assert_matches(a, e, ULP_BOUNDS["pow"] if fn is np.float_power else 0, fn.__name__)


def test_fmod_exact_values():
    f = jc.jit(np.fmod)
    x = np.array([-7.0, 7.0, -0.0, 5.0, np.inf, 5.0, -5.0, 1e300])
    y = np.array([2.0, -2.0, 3.0, 0.0, 2.0, np.inf, -np.inf, 3.0])
    got = f(x, y)
    np.testing.assert_array_equal(got[:3], [-1.0, 1.0, -0.0])
    assert np.signbit(got[2]) and np.isnan(got[3]) and np.isnan(got[4])
    assert got[5] == 5.0 and got[6] == -5.0 and got[7] == np.fmod(1e300, 3.0)
    i8 = np.array([-128, -7, 7, -7, 5], np.int8)
    np.testing.assert_array_equal(f(i8, np.array([-1, 2, -2, 0, 0], np.int8)), [0, -1, 1, 0, 0])


@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.uint8)], ids=["int8", "uint8"])
@pytest.mark.parametrize("fn", [np.fmod, np.gcd, np.lcm, np.divmod], ids=lambda f: f.__name__)
def test_every_8bit_pair(fn, dtype):
    v = np.arange(256).astype(dtype)
    check(fn, np.repeat(v, 256), np.tile(v, 256))


@pytest.mark.parametrize("dtype", INTS, ids=_ids(INTS))
@pytest.mark.parametrize("fn", [np.gcd, np.lcm], ids=lambda f: f.__name__)
def test_gcd_lcm_special_pairs(fn, dtype):
    """Non-negative results; gcd(0, 0) = 0; lcm(x, 0) = 0; |INT_MIN| is 2**(n-1) (INT_MIN's bits),
    and lcm overflow wraps, all as NumPy."""
    check(fn, *pairs(dtype))


def test_gcd_lcm_values():
    f, g = jc.jit(np.gcd), jc.jit(np.lcm)
    x = np.array([12, -12, 0, 0, -(2**63), -(2**63), 2**62, 7, 1071], np.int64)
    y = np.array([-18, -18, 0, 5, 0, -(2**63), 3 * 2**40, 0, 462], np.int64)
    np.testing.assert_array_equal(f(x, y), [6, 6, 0, 5, -(2**63), -(2**63), 2**40, 7, 21])
    np.testing.assert_array_equal(g(x, y), numpy(np.lcm, x, y))
    assert g(np.int64(4), np.int64(-6)) == 12


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), *INTS], ids=_ids([np.bool_, *INTS]))
def test_bitwise_count(dtype):
    """Set bits of |x| as uint8 (|INT_MIN| has one)."""
    s = specials(dtype)
    if dtype.itemsize <= 2 and dtype != np.bool_:
        info = np.iinfo(dtype)
        s = np.arange(info.min, info.max + 1).astype(dtype)
    out = jc.jit(np.bitwise_count)(s)
    assert out.dtype == np.uint8
    check(np.bitwise_count, s)


@pytest.mark.parametrize("dtype", FLOATS, ids=_ids(FLOATS))
def test_heaviside_special_pairs(dtype):
    """NaN for NaN x, h0 (even NaN) at x = +-0, 0 below and 1 above."""
    check(np.heaviside, *pairs(dtype))
    h = jc.jit(np.heaviside)
    got = h(np.array([-0.0, 0.0, np.nan, -np.inf, np.inf], dtype), np.array([np.nan, -0.0, 0.5, 2, 2], dtype))
    assert np.isnan(got[0]) and got[1] == 0 and np.signbit(got[1]) and np.isnan(got[2])
    assert got[3] == 0 and not np.signbit(got[3]) and got[4] == 1


@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.uint64), *FLOATS],
                         ids=_ids([np.int8, np.uint64, *FLOATS]))
def test_heaviside_and_float_power_dtypes(dtype):
    """Integers (and, for float_power, every real float) compute in float64, as NumPy resolves."""
    x, y = pairs(dtype)
    check(np.heaviside, x, y)
    if dtype.kind in "iu":
        y = np.where(y < 0, 1, y).astype(dtype)  # (ints ** negative ints: NumPy raises, float_power doesn't)
    expected = numpy(np.float_power, x, y)
    assert expected.dtype == np.float64
    assert_matches(jc.jit(np.float_power)(x, y), expected, ULP_BOUNDS["pow"], "float_power")


def test_float_power_values():
    fp = jc.jit(np.float_power)
    x = np.array([-8.0, 0.0, -0.0, 2.0, -1.0, np.nan, 1.0], np.float32)
    y = np.array([1 / 3, -1.0, -1.0, 0.5, np.inf, 0.0, np.nan], np.float32)
    got = fp(x, y)
    assert got.dtype == np.float64
    assert_matches(got, numpy(np.float_power, x, y), ULP_BOUNDS["pow"])
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == -np.inf and got[4] == 1 and got[5] == 1
    assert fp(np.int8(2), np.int8(-2)) == 0.25  # np.power(int8(2), int8(-2)) would raise


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
def test_divmod_special_pairs(dtype):
    """The pair (floor_divide, remainder), with NumPy's zero-divisor and INT_MIN // -1 results."""
    check(np.divmod, *pairs(dtype))


def test_divmod_operator_and_broadcast():
    f = jc.jit(lambda x, y: divmod(x, y))
    x, y = np.arange(-6, 6, dtype=np.int16).reshape(3, 4), np.array([3, -3, 0, 5], np.int16)
    q, r = f(x, y)
    eq, er = numpy(np.divmod, x, y)
    assert_matches(q, eq)
    assert_matches(r, er)


def test_divmod_out_arguments():
    """out= with both results, or one (None for the other), writes the caller's arrays."""
    x, y = np.arange(-4, 5, dtype=np.int32), np.array(3, np.int32)
    q, r = np.zeros(9, np.int32), np.zeros(9, np.float64)  # same_kind: int32 into float64
    jc.jit(lambda x, y, q, r: np.divmod(x, y, out=(q, r)))(x, y, q, r)
    np.testing.assert_array_equal(q, x // y)
    np.testing.assert_array_equal(r, x % y)
    r2 = np.zeros(9, np.int32)
    got = jc.jit(lambda x, y, r: np.divmod(x, y, out=(None, r))[0])(x, y, r2)
    np.testing.assert_array_equal(got, x // y)
    np.testing.assert_array_equal(r2, x % y)
    with pytest.raises(jc.UnsupportedError, match="not an argument"):
        jc.jit(lambda x, y: np.divmod(x, y, out=(np.zeros(9, np.int32), None)))(x, y)


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
@pytest.mark.parametrize("fn", [np.fmax, np.fmin], ids=lambda f: f.__name__)
def test_fmax_fmin_special_pairs(fn, dtype):
    """NaN loses to a number (NaN only if both are); otherwise NumPy's max/min. The +0.0 / -0.0
    ties are left to test_fmax_fmin_zero_tie."""
    x, y = pairs(dtype)
    if dtype.kind == "f":
        keep = ~((x == 0) & (y == 0))
        x, y = x[keep], y[keep]
    check(fn, x, y)


@pytest.mark.parametrize("dtype", FLOATS, ids=_ids(FLOATS))
@pytest.mark.parametrize("fn", [np.fmax, np.fmin], ids=lambda f: f.__name__)
def test_fmax_fmin_zero_tie(fn, dtype):
    """+0.0 against -0.0: NumPy's own float32/64 answer depends on where the element falls in its
    SIMD loop (the vector body returns the second operand, the remainder loop the first); jitcore
    always returns the second, whatever the size or layout, and for float16 the first, as NumPy's
    float16 loop always does."""
    f = jc.jit(fn)
    for n in (1, 3, 5, 8, 17, 100):
        for a, b in ((-0.0, 0.0), (0.0, -0.0)):
            x, y = np.full(n, a, dtype), np.full(n, b, dtype)
            want = a if dtype == np.float16 else b
            for got in (f(x, y), f(x[::-1], y), f(x, np.array(b, dtype)), f(np.array(a, dtype), y)):
                assert (got == 0).all() and (np.signbit(got) == np.signbit(want)).all(), (n, a, b)
    # NumPy itself returns one of the two operands, so either way is a NumPy answer.
    x, y = np.full(100, -0.0, dtype), np.full(100, 0.0, dtype)
    assert (numpy(fn, x, y) == 0).all()


@pytest.mark.parametrize("dtype", FLOATS, ids=_ids(FLOATS))
def test_logaddexp2_special_pairs(dtype):
    """a + 1 for a == b (infinities too), NaN in, NaN out; within logaddexp's term-ULP bound."""
    x, y = pairs(dtype)
    expected = numpy(np.logaddexp2, x, y)
    actual = jc.jit(np.logaddexp2)(x, y)
    exact = (x == y) | np.isinf(x) | np.isinf(y) | np.isnan(x) | np.isnan(y)
    assert_matches(actual[exact], expected[exact], 0, "logaddexp2 specials")
    bound = 1 if dtype == np.float16 else 3
    with np.errstate(all="ignore"):  # spacing of inf (NaN): only where the check is exact
        scale = np.spacing(np.maximum(np.abs(expected), np.maximum(x, y)).astype(dtype)).astype(np.float64)
        err = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / scale
    assert (err[~exact] <= bound).all(), err[~exact].max()


def test_logaddexp2_values():
    f = jc.jit(np.logaddexp2)
    got = f(np.array([3.0, 0.0, -np.inf, np.inf, 1e300, -1e300]), np.array([3.0, 0.0, 5.0, 1.0, 1e300, 2.0]))
    np.testing.assert_array_equal(got, [4.0, 1.0, 5.0, np.inf, 1e300 + 1, 2.0])


# -- np.select --------------------------------------------------------------------------------------
def test_select_first_true_wins():
    x = np.array([-3.0, -1.0, 0.0, 1.0, 2.5, np.nan], np.float32)
    fn = lambda x: np.select([x > 0, x > 1, x < 0], [x, x * 10, -x], 7)  # noqa: E731
    got = jc.jit(fn)(x)
    assert_matches(got, fn(x))
    assert got.dtype == np.float32  # the Python default stays weak, as in NumPy


@pytest.mark.parametrize("default", [0, 0.5, np.int64(3), np.float16(1.5), True],
                         ids=["int", "float", "int64", "float16", "bool"])
@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.uint16), np.dtype(np.float16),
                                   np.dtype(np.bool_)], ids=["int8", "uint16", "float16", "bool"])
def test_select_dtype_is_numpy_result_type(dtype, default):
    x = np.array([0, 1, 2, 3, 1], dtype)
    y = np.array([1, 0, 1, 0, 0], np.bool_)
    fn = lambda x, y: np.select([x > 1, y], [x, np.float32(2)], default)  # noqa: E731
    check(fn, x, y)


def test_select_fills_with_a_python_default_cast_unsafely():
    # Found by the fuzzer (session 31): -1 into uint64 raised JitOverflowError; NumPy's result
    # dtype keeps the Python default weak, then fills with it by an unsafe cast (it wraps).
    x = np.array([0, 1, 5], np.uint8)
    fn = lambda x: (np.select([x > 0], [x], default=-1), np.select([x > 0], [x.astype(np.uint64)], -1),  # noqa: E731
                    np.select([x > 0], [x], 300), np.select([x > 0], [x.astype(np.float16)], 1e300))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = fn(x)
    for got, w in zip(jc.jit(fn)(x), want):
        assert_matches(got, w)


def test_select_broadcasts_and_takes_lists():
    x = np.arange(6.0).reshape(2, 3)
    fn = lambda x: np.select([x[:, :1] > 1, [True, False, True]], [x, [1.0, 2.0, 3.0]], x[0])  # noqa: E731
    check(fn, x)


@pytest.mark.parametrize("bad", ["int-condition", "float-condition", "lengths", "empty"])
def test_select_bad_input_raises_jitcore_errors(bad):
    x = np.arange(4.0)
    fn = {
        "int-condition": lambda x: np.select([(x > 1).astype(np.int8)], [x]),
        "float-condition": lambda x: np.select([x], [x]),
        "lengths": lambda x: np.select([x > 1, x < 3], [x]),
        # (np.select([], [], x) never reaches jitcore: NumPy dispatches on the lists only)
        "empty": lambda x: jnp.select([], [], x),
    }[bad]
    with pytest.raises((TypeError, ValueError)):
        numpy(fn, x)
    with pytest.raises(jc.JitTypeError, match="numpy.select"):
        jc.jit(fn)(x)


# -- bitwise reductions -----------------------------------------------------------------------------
def _reducer(ufunc, kw):
    return lambda x: ufunc.reduce(x, **kw)


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), *INTS], ids=_ids([np.bool_, *INTS]))
@pytest.mark.parametrize("ufunc", [np.bitwise_and, np.bitwise_or, np.bitwise_xor], ids=lambda f: f.__name__)
def test_bitwise_reduce(ufunc, dtype):
    rng = np.random.default_rng(0)
    x = specials(dtype)[rng.integers(0, specials(dtype).size, (3, 4, 5))]
    for kw in ({}, {"axis": 1}, {"axis": -1, "keepdims": True}, {"axis": (0, 2)}, {"axis": None},
               {"axis": None, "keepdims": True}):
        expected = ufunc.reduce(x, **kw)
        got = jc.jit(_reducer(ufunc, kw))(x)
        assert_matches(got, expected, 0, f"{ufunc.__name__}.reduce {kw}")


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), np.dtype(np.int16), np.dtype(np.uint64)],
                         ids=["bool", "int16", "uint64"])
@pytest.mark.parametrize("ufunc", [np.bitwise_and, np.bitwise_or, np.bitwise_xor], ids=lambda f: f.__name__)
def test_bitwise_reduce_empty_gives_identity(ufunc, dtype):
    """bitwise_and of nothing has every bit set (True for bool); or and xor give 0."""
    x = np.zeros((3, 0), dtype)
    got = jc.jit(lambda x: ufunc.reduce(x, axis=1))(x)
    assert_matches(got, ufunc.reduce(x, axis=1))


@pytest.mark.parametrize("axis", [0, -1, (), None])
@pytest.mark.parametrize("ufunc", [np.bitwise_and, np.bitwise_or, np.bitwise_xor], ids=lambda f: f.__name__)
def test_bitwise_reduce_of_0d(ufunc, axis):
    """NumPy takes axis 0 and -1 of a 0-d array here and returns the element; (0,) and 1 are
    out of bounds (a JitcoreError under jit)."""
    x = np.array(-5, np.int16)
    for keepdims in (False, True):
        assert_matches(jc.jit(_reducer(ufunc, {"axis": axis, "keepdims": keepdims}))(x),
                       ufunc.reduce(x, axis=axis, keepdims=keepdims))
    for bad in ((0,), 1):
        with pytest.raises(np.exceptions.AxisError):
            ufunc.reduce(x, axis=bad)
        with pytest.raises(jc.JitTypeError, match="out of bounds"):
            jc.jit(_reducer(ufunc, {"axis": bad}))(x)


def test_bitwise_reduce_of_floats_raises_jitcore_error():
    with pytest.raises(TypeError):
        np.bitwise_or.reduce(np.ones(3))
    with pytest.raises(jc.JitTypeError, match="bitwise_or.reduce of float64"):
        jc.jit(lambda x: np.bitwise_or.reduce(x))(np.ones(3))


@pytest.mark.parametrize("fn", [np.gcd, np.lcm, np.bitwise_count], ids=lambda f: f.__name__)
def test_integer_only_ufuncs_refuse_floats(fn):
    args = (np.ones(3),) * fn.nin
    with pytest.raises(TypeError):
        fn(*args)
    with pytest.raises(jc.JitTypeError, match=fn.__name__):
        jc.jit(fn)(*args)


def test_fused_with_neighbours():
    """The new ops fuse into one kernel with their neighbours, the gcd loop included."""
    fn = lambda x, y: np.gcd(x * 2, y) + np.fmod(x, y) + np.bitwise_count(x)  # noqa: E731
    x, y = np.arange(-50, 50, dtype=np.int32), np.arange(100, dtype=np.int32)[::-1] - 20
    check(fn, x, y)
    text = str(jc.jit(fn).lower(x, y).as_text("optimized"))
    assert text.count('"kernel.generic"') == 1


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint8)


@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp_and_ldexp_are_exact_at_every_edge(dtype):
    """Bits for bits with NumPy: subnormals, the largest float, zeros, inf and NaN; ldexp's
    exponents past the range each way (one rounding into the subnormals, or inf / 0)."""
    info = np.finfo(dtype)
    tiny, sub = info.smallest_normal, info.smallest_subnormal
    x = np.array([0.0, -0.0, 1.0, -3.5, 0.75, np.inf, -np.inf, np.nan, info.max, -tiny, sub,
                  3 * sub, 0.75 * tiny, 1.5 * tiny], dtype)
    m, e = jc.jit(np.frexp)(x)
    wm, we = np.frexp(x)
    assert (m.dtype, e.dtype) == (wm.dtype, we.dtype)
    np.testing.assert_array_equal(_bits(m), _bits(wm))
    np.testing.assert_array_equal(e, we)
    span = int(info.maxexp - info.minexp + info.nmant)
    n = np.array([0, 1, -1, span, -span, span + 5, -span - 5, int(info.minexp) - 1,
                  int(info.maxexp), np.iinfo(np.int32).min, np.iinfo(np.int32).max, -3, 7, 2], np.int32)
    for xs in (x, np.full_like(x, 1.5), np.full_like(x, sub), np.full_like(x, info.max)):
        got, want = jc.jit(np.ldexp)(xs, n), np.ldexp(xs, n)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(_bits(got), _bits(want))
    np.testing.assert_array_equal(jc.jit(np.ldexp)(x, n.astype(np.int64)), np.ldexp(x, n.astype(np.int64)))


def test_frexp_ldexp_dtypes_and_scalars():
    ints = np.array([0, 3, -12])
    for fn, args in [(np.frexp, (ints,)), (np.frexp, (np.float32(6.0),)),
                     (lambda e: np.ldexp(1.0, e), (np.array([3, -1075], np.int32),)),
                     (lambda e: np.ldexp(5, e), (np.array([1, 2], np.int8),)),  # weak 5: float16
                     (lambda x: np.ldexp(x, 3), (np.float32(6.0),)), (np.ldexp, (ints, ints))]:
        got, want = jc.jit(fn)(*args), fn(*args)
        pairs = zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want)))
        for g, w in pairs:
            assert type(g) is type(w) and g.dtype == w.dtype, (fn, g, w)
            np.testing.assert_array_equal(g, w)
    with pytest.raises(jc.JitTypeError, match="ldexp"):
        jc.jit(np.ldexp)(np.ones(2), np.ones(2))  # float exponents: NumPy refuses them too


@pytest.mark.parametrize("choice", [0, 2.5, 7, True], ids=["int", "float", "int7", "bool"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float16], ids=["float32", "int8", "float16"])
def test_select_takes_a_python_number_choice_weakly(dtype, choice):
    # Found by a new-user program (session 42, RGB to HSV): np.select([c, ~c], [0, x]) of a
    # float32 x is float32 in NumPy; the Python 0 was made an int64 array, and the result float64.
    x = np.array([0, 1, 2, 3], dtype)
    fn = lambda x: np.select([x > 1, x < 1], [choice, x * 2])  # noqa: E731
    check(fn, x)
