"""``ufunc.at`` (in place, every occurrence of a repeated index applied in turn),
``ufunc.outer`` and ``x.at[idx].multiply/min/max`` with array keys, against NumPy bit for bit."""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import jitcore as jc
from tests.layouts import WRITABLE_LAYOUTS, relayout

AT_UFUNCS = [np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.bitwise_and,
             np.bitwise_or, np.bitwise_xor]
DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]
SPECIALS = np.array([0.0, -0.0, np.nan, 1.5, -2.0, np.inf, -np.inf, 3.0])


def _draw(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.choice(SPECIALS, n).astype(dtype)
    if dtype.kind == "c":
        return (rng.choice(SPECIALS, n) + 1j * rng.choice(SPECIALS, n)).astype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    return rng.integers(0, 100, n).astype(dtype)


def _same(got, want) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "fc":  # NaN payloads aside, bit for bit (the sign of zero counts)
        nan = np.isnan(want)
        return bool((np.isnan(got) == nan).all() and
                    (got[~nan].view(np.uint8) == want[~nan].view(np.uint8)).all())
    return bool((got == want).all())


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - compared with NumPy's below
        return e


def _check_at(ufunc, x, idx, v, traced_index=True, layout="C"):
    """``ufunc.at`` under jit writes what NumPy's does into ``x`` seen in ``layout``."""
    want = x.copy()
    want_out = _outcome(lambda: ufunc.at(want, idx, v))
    got = relayout(x, layout)
    if traced_index:
        got_out = _outcome(lambda: jc.jit(lambda y, i: ufunc.at(y, i, v))(got, np.asarray(idx)))
    else:
        got_out = _outcome(lambda: jc.jit(lambda y: ufunc.at(y, idx, v))(got))
    if isinstance(want_out, Exception):
        assert type(got_out) is type(want_out) and str(got_out) == str(want_out), (want_out, got_out)
        np.testing.assert_array_equal(got, x)  # nothing written
        return
    assert got_out is None, got_out
    assert _same(got, want), (ufunc.__name__, x, idx, v, got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("ufunc", AT_UFUNCS, ids=lambda u: u.__name__)
def test_ufunc_at_matches_numpy(ufunc, dtype):
    seed = zlib.crc32(f"{ufunc.__name__} {np.dtype(dtype).name}".encode())  # hash() varies by run
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(3):
            x, v = _draw(rng, dtype, 6), _draw(rng, dtype, 12)
            idx = rng.integers(-6, 6, 12)  # repeated and negative indices
            layout = WRITABLE_LAYOUTS[(seed + i) % len(WRITABLE_LAYOUTS)]
            _check_at(ufunc, x, idx, v, layout=layout)
            _check_at(ufunc, x, idx, v, traced_index=False, layout=layout)
            _check_at(ufunc, x, idx, v[:1], layout=layout)  # one value, broadcast
            _check_at(ufunc, x, idx[:4], v[:3], layout=layout)  # shape mismatch: NumPy's ValueError
            _check_at(ufunc, x, np.array([1, 6]), v[:2], layout=layout)  # out of range: IndexError, no write
            _check_at(ufunc, x, np.array([1, -7]), v[:2], traced_index=False, layout=layout)


def test_ufunc_at_mixed_dtypes_cast_after_every_step():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check_at(np.add, np.zeros(3, np.int8), [0, 0, 0], np.array([100, 100, 100], np.int16))
        _check_at(np.maximum, np.full(3, 5, np.int8), [0, 0], 100)  # constant, exact in int8
        _check_at(np.add, np.ones(3, np.float32), [0, 0, 1], 1.0)  # Python float: float64 loop
        _check_at(np.subtract, np.arange(4, dtype=np.uint8), [1, 1, 2], 3)
        _check_at(np.bitwise_or, np.arange(4, dtype=np.uint8), [1, 1], np.array([2, 300]))
        _check_at(np.multiply, np.array([3, 4]), [1, 0], 1.5, traced_index=False)  # no repeats:
    # ... a repeat with a float64 loop into int64 casts after each step (a loop over the steps)
    _check_at(np.multiply, np.array([3, 4]), [0, 0], 1.5, traced_index=False)
    _check_at(np.add, np.array([3, 4]), [0, 0, 1, 0], 1.5)
    # traced float64 values into float32: each step rounds to float32 before the next
    rng = np.random.default_rng(53)
    for x, v in [(np.ones((5, 3), np.float32), rng.normal(size=(40, 3))),
                 (np.zeros((5, 3), np.float16), rng.normal(size=(40, 3)).astype(np.float32)),
                 (np.zeros((5, 3), np.complex64), rng.normal(size=(40, 3)) * (1 + 0.5j))]:
        idx = rng.integers(-5, 5, 40)
        want, got = x.copy(), x.copy()
        np.add.at(want, idx, v)
        jc.jit(lambda y, i, w: np.add.at(y, i, w))(got, idx, v)
        assert _same(got, want), (x.dtype, want, got)


def test_ufunc_at_keys_and_shapes():
    x = np.arange(24.0).reshape(2, 3, 4)
    keys = [(np.array([1, 1, 0]), slice(None), np.array([3, 3, -1])),
            (slice(None), np.array([2, 2])),
            (np.array([True, False]),),
            (0, slice(1, 3), np.array([[0, 0], [1, 3]])),
            (Ellipsis, np.array([-1, -1, 0])),
            1, slice(None, None, -1), (), np.zeros(0, np.int64)]
    for key in keys:
        for ufunc in (np.add, np.maximum):
            want = x.copy()
            ufunc.at(want, key, 2.5)
            got = x.copy()
            jc.jit(lambda y, u=ufunc, k=key: u.at(y, k, 2.5))(got)
            assert _same(got, want), key
    zero_d = np.array(4.0)
    jc.jit(lambda y: np.multiply.at(y, (), 3.0))(zero_d)
    assert zero_d == 12.0
    empty = np.zeros((0, 3))
    jc.jit(lambda y, i: np.add.at(y, i, 1.0))(empty, np.zeros(0, np.int64))
    assert empty.shape == (0, 3)


def test_ufunc_at_other_ufuncs_need_unique_constant_indices():
    x = np.arange(1.0, 6.0)
    for ufunc, args in [(np.power, (2.0,)), (np.true_divide, (4.0,)), (np.negative, ())]:
        want = x.copy()
        ufunc.at(want, [0, 3, -1], *args)
        got = x.copy()
        jc.jit(lambda y, u=ufunc, a=args: u.at(y, [0, 3, -1], *a))(got)
        assert _same(got, want), ufunc
    # repeated or traced indices: a loop over the steps, as NumPy's
    _check_at(np.power, x, [0, 0, -1], 2.0, traced_index=False)
    _check_at(np.true_divide, x, [0, 1, 0, 4, 0], 3.0)
    want, got = x.copy(), x.copy()
    np.negative.at(want, [0, 0, 3])
    jc.jit(lambda y, i: np.negative.at(y, i))(got, np.array([0, 0, 3]))
    assert _same(got, want)
    with pytest.raises(ValueError, match="second operand needed"):
        jc.jit(lambda y: np.add.at(y, [0]))(x.copy())
    with pytest.raises(TypeError, match="boolean subtract"):
        jc.jit(lambda y: np.subtract.at(y, [0], True))(np.ones(3, bool))


def test_ufunc_at_writes_through_a_view():
    x = np.zeros((3, 4))
    want = x.copy()
    np.add.at(want[1], [0, 0, 3], 1.0)
    jc.jit(lambda y: np.add.at(y[1], [0, 0, 3], 1.0))(x)
    assert _same(x, want)


@pytest.mark.parametrize("method", ["multiply", "min", "max", "add"])
def test_at_index_update_modes_with_array_keys(method):
    x = np.array([3.0, np.nan, 1.0, 5.0, -0.0])
    i = np.array([0, 0, 2, 3, 3, -1, 4])
    v = np.array([2.0, 7.0, np.nan, -1.0, 9.0, 0.0, 0.0])
    ufunc = {"multiply": np.multiply, "min": np.minimum, "max": np.maximum, "add": np.add}[method]
    want = x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ufunc.at(want, i, v)
    got = jc.jit(lambda x, i, v: getattr(x.at[i], method)(v))(x, i, v)
    assert _same(got, want)
    counts = jc.jit(lambda c, i: getattr(c.at[i], method)(2))(np.full(4, 3, np.int32), np.array([3, 0, 3]))
    want = np.full(4, 3, np.int32)
    ufunc.at(want, np.array([3, 0, 3]), 2)
    assert _same(counts, want)


OUTER_UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.equal, np.less, np.maximum,
                np.minimum, np.power, np.bitwise_and, np.logical_xor, np.divmod, np.floor_divide]


@pytest.mark.parametrize("ufunc", OUTER_UFUNCS, ids=lambda u: u.__name__)
def test_ufunc_outer_matches_numpy(ufunc):
    cases = [(np.arange(6).reshape(2, 3) - 2, np.array([1, 0, 3])),
             (np.array([0.5, -0.0, np.nan]), np.array([[2.0], [-0.0]])),
             (np.float64(3.0), np.arange(1, 4)),
             (np.zeros((0, 2), np.int32), np.arange(1, 3)),
             (np.arange(1, 4, dtype=np.int8), 2)]
    for a, b in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _outcome(lambda a=a, b=b: ufunc.outer(a, b))
            if isinstance(b, int):
                got = _outcome(lambda a=a, b=b: jc.jit(lambda t: ufunc.outer(t, b))(a))
            else:
                got = _outcome(lambda a=a, b=b: jc.jit(lambda s, t: ufunc.outer(s, t))(a, b))
        if isinstance(want, Exception):
            assert isinstance(got, type(want)), (got, want)
            continue
        for g, w in zip(got if isinstance(want, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            assert _same(np.asarray(g), w), (ufunc.__name__, a, b, g, w)


def test_ufunc_outer_with_a_python_scalar_is_not_weak():
    got = jc.jit(lambda a: np.add.outer(a, 2.0))(np.ones(2, np.float32))
    assert got.dtype == np.add.outer(np.ones(2, np.float32), 2.0).dtype == np.float64


SCALAR_BOOL_KEYS = [True, False, (True,), (Ellipsis, False), (slice(None), True), (True, 1), (1, True),
                    (True, None, Ellipsis, False), (0, slice(None), True, 2), (True, 0, slice(1, 3), False),
                    (np.True_,), (np.array(False),), (True, True), (True, 0, 0, 0, 0)]


@pytest.mark.parametrize("key", SCALAR_BOOL_KEYS, ids=repr)
def test_scalar_boolean_index(key):
    x = np.arange(24.0).reshape(2, 3, 4)
    want = _outcome(lambda: x[key])
    got = _outcome(lambda: jc.jit(lambda a: a[key])(x))
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want), (got, want)
    else:
        assert _same(got, want)
    for value in (7.0, np.arange(4.0), np.ones((2, 1))):
        want = x.copy()
        want_out = _outcome(lambda v=value, w=want: w.__setitem__(key, v))
        got = x.copy()
        got_out = _outcome(lambda v=value, g=got: jc.jit(lambda a: a.__setitem__(key, v))(g))
        assert isinstance(got_out, Exception) == isinstance(want_out, Exception), (got_out, want_out)
        assert _same(got, want)


def test_scalar_boolean_index_of_a_0d_array():
    z = np.array(5.0)
    assert _same(jc.jit(lambda a: a[True])(z), z[True])
    assert _same(jc.jit(lambda a: a[False])(z), z[False])


def test_roll_expand_dims_numpy_integers_and_select_without_conditions():
    x = np.arange(6.0).reshape(2, 3)
    for shift, axis in [(np.int64(1), np.int64(0)), ((1, 2), (0, 0)), (1, ()), (np.int32(-4), (1, -1))]:
        assert _same(jc.jit(lambda a, s=shift, ax=axis: np.roll(a, s, ax))(x), np.roll(x, shift, axis))
    with pytest.raises(ValueError, match="not enough values to unpack"):  # NumPy's error, 0-d
        jc.jit(lambda a: np.roll(a, 1, ()))(np.array(5.0))
    assert jc.jit(lambda a: np.expand_dims(a, np.int64(0)))(x).shape == (1, 2, 3)
    assert jc.jit(lambda a: np.expand_dims(a, [np.int64(-1), 0]))(x).shape == (1, 2, 3, 1)
    # np.select([], [], traced) never reaches jitcore (NumPy dispatches on the lists only)
    with pytest.raises(ValueError, match="select with an empty condition list is not possible"):
        jc.jit(lambda a: np.select([], [], a))(x)


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum])
def test_running_extremes_keep_nan_and_signed_zeros_as_numpy(ufunc):
    f = jc.jit(lambda a: ufunc.accumulate(a))
    for x in (np.array([1.0, np.nan, 3.0, -np.inf]), np.array([-0.0, 0.0, -0.0, 0.0]),
              np.array([0.0, -0.0, 0.0]), np.array([5, -3, 7, 2], np.int8)):
        got, want = f(x), ufunc.accumulate(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_a_drawdown_runs_unchanged():
    def max_drawdown(prices):
        return (prices - np.maximum.accumulate(prices)).min()

    prices = np.cumsum(np.random.default_rng(7).standard_normal(500))
    assert jc.jit(max_drawdown)(prices) == max_drawdown(prices)


def test_running_extreme_of_a_matrix_needs_an_axis():
    with pytest.raises(ValueError, match="needs an axis"):
        jc.jit(lambda a: np.maximum.accumulate(a, axis=None))(np.ones((2, 2)))


def confusion_matrix(y_true, y_pred):
    m = np.zeros((3, 3), dtype=np.int64)
    np.add.at(m, (y_true, y_pred), 1)  # a local array, traced indices: NumPy's own idiom
    return m


def weighted_counts_in_a_loop(idx, w, n):
    h = np.zeros(4)
    for k in range(n):
        np.add.at(h, idx, w * k)
    return h


def test_ufunc_at_into_a_local_array_with_traced_indices():
    t, p = np.array([0, 1, 2, 1, 0, 0]), np.array([0, 2, 2, 1, 1, 0])
    np.testing.assert_array_equal(jc.jit(confusion_matrix)(t, p), confusion_matrix(t, p))
    idx, w = np.array([0, 3, 3, 1]), np.array([0.5, 1.0, 2.0, -1.0])
    for n in (3, np.int64(3)):  # a loop run by Python, and a traced loop carrying h
        np.testing.assert_array_equal(jc.jit(weighted_counts_in_a_loop)(idx, w, n),
                                      weighted_counts_in_a_loop(idx, w, 3))


def test_ufunc_at_into_a_local_array_without_autograph_names_the_array():
    with pytest.raises(jc.UnsupportedError, match="not an argument of the jitted function"):
        jc.jit(lambda i, w: np.add.at(np.zeros(4), i, w), autograph=False)(np.array([1]), np.array([2.0]))


def test_ufunc_reduce_dtype_fmax_fmin_and_logical_xor():
    def f(x, m):
        return (np.add.reduce(x, dtype=np.float64), np.multiply.reduce(x[2:], dtype=np.int16),
                np.maximum.reduce(x, dtype=np.float64), np.fmax.reduce(x), np.fmin.reduce(x, axis=None),
                np.fmax.reduce(m, axis=1, keepdims=True), np.logical_xor.reduce(m > 1, axis=0),
                np.logical_xor.reduce(m))

    for x in (np.array([0.1, np.nan, 3.5, -0.0], np.float32), np.array([100, 100, 7, -3], np.int8)):
        m = np.array([[np.nan, 2.0, 0.0], [np.nan, np.nan, 1.0]])
        with np.errstate(invalid="ignore"):
            want = f(x, m)
        for g, w in zip(jc.jit(f)(x, m), want, strict=True):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w, strict=True)


def python_bool_from_a_comparison(k):
    v = k >= 3  # k a Python int: v is a Python bool, an int to Python's own operators
    return np.logical_not(v), np.invert(v), np.logical_and(v, True), np.add(v, v), v + v, ~v


def test_numpy_functions_take_a_traced_python_bool_as_np_bool():
    # np.logical_not(v) gave int64 -1 (the weak bool read as a weak int): NumPy makes it np.bool_.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python's ~ on a bool
        for k in (1, 5):
            got, want = jc.jit(python_bool_from_a_comparison)(k), python_bool_from_a_comparison(k)
            for g, w in zip(got, want, strict=True):
                assert g == w and np.asarray(g).dtype == np.asarray(w).dtype, (k, got, want)


def python_bools_meet_numpy_values(k, flags, small):
    a, b = k > 2, k < 10  # Python bools: & | ^ between them are bools, + an int
    return a & b, a | False, a ^ b, a + b, flags + a, flags & a, small + a


def test_operators_on_a_traced_python_bool_as_python_and_numpy_give_them():
    flags, small = np.array([True, False]), np.array([1, 2], np.int8)
    for k in (1, 5, 20):
        want = python_bools_meet_numpy_values(k, flags, small)
        got = jc.jit(python_bools_meet_numpy_values)(k, flags, small)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype, (k, got, want)


BITWISE_UFUNCS = (np.bitwise_and, np.bitwise_or, np.bitwise_xor)


def _bitwise_scans(a):
    return [u.accumulate(a, axis=k) for u in BITWISE_UFUNCS for k in (0, 1, -1)]


@pytest.mark.parametrize("dtype, layout", [(np.bool_, "C"), (np.int8, "C"), (np.uint8, "reversed"),
                                           (np.int32, "F"), (np.int64, "strided"), (np.uint64, "C")])
def test_bitwise_accumulates_as_numpy(dtype, layout):
    """Prefix and/or/xor (session 53) along each axis: NumPy's dtype (no promotion: int8 stays
    int8, bool stays bool) and values, edge values of the dtype included, one compile per case."""
    rng = np.random.default_rng(53)
    info = np.iinfo(dtype) if np.dtype(dtype).kind != "b" else None
    values = rng.random((4, 6)) < 0.5 if info is None else rng.integers(info.min, info.max, (4, 6),
                                                                       dtype=dtype, endpoint=True)
    if info is not None:
        values[0, :2], values[1, 0] = (info.min, info.max), -1 if info.min else info.max
    x = relayout(values, layout)
    for got, want in zip(jc.jit(_bitwise_scans)(x), _bitwise_scans(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_bitwise_accumulate_options_and_refusals_as_numpy():
    gray = np.array([0, 1, 3, 2, 6, 7, 5, 2**32 - 1], np.uint32)
    f = jc.jit(lambda g, e: (np.bitwise_xor.accumulate(g), np.bitwise_or.accumulate(g, axis=None),
                             np.bitwise_and.accumulate(g, dtype=np.int64), np.bitwise_xor.accumulate(e)))
    empty = np.zeros((0, 3), np.int16)
    for got, want in zip(f(gray, empty), (np.bitwise_xor.accumulate(gray), np.bitwise_or.accumulate(gray),
                                          np.bitwise_and.accumulate(gray, dtype=np.int64), empty)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="multiple axes"):
        jc.jit(lambda a: np.bitwise_xor.accumulate(a, axis=None))(np.ones((2, 2), np.int64))
    with pytest.raises(TypeError, match="not supported for the input types"):
        jc.jit(lambda a: np.bitwise_or.accumulate(a))(np.ones(3))
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        jc.jit(lambda a: np.bitwise_and.accumulate(a))(np.array(3))


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_unpackbits_and_packbits_of_0d_as_numpy(bitorder):
    """NumPy reads a 0-d array (or NumPy scalar) as 1-d for any axis of packbits/unpackbits."""
    f = jc.jit(lambda b, m: (np.unpackbits(b, bitorder=bitorder), np.unpackbits(b, axis=0, count=3),
                             np.unpackbits(b, axis=-1, count=-3), np.packbits(m, axis=0, bitorder=bitorder)))
    g = lambda b, m: (np.unpackbits(b, bitorder=bitorder), np.unpackbits(b, axis=0, count=3),  # noqa: E731
                      np.unpackbits(b, axis=-1, count=-3), np.packbits(m, axis=0, bitorder=bitorder))
    for b, m in ((np.uint8(5), np.array(True)), (np.array(200, np.uint8), np.int64(0))):
        for got, want in zip(f(b, m), g(b, m)):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds"):
        jc.jit(lambda b: np.unpackbits(b, axis=1))(np.uint8(5))


def test_byteswap_as_numpy():
    """``x.byteswap()`` (session 53): a new array of each element's bytes reversed, every
    integer and float size and bool; ``inplace=True`` writes a strided argument and returns it."""
    def swaps(a, b, c, d, e, f):
        return tuple(v.byteswap() for v in (a, b, c, d, e, f)) + (a[1].byteswap(),)

    def in_place(w):
        return w.byteswap(inplace=True) + 0

    rng = np.random.default_rng(5)
    args = [rng.integers(0, 2**63, 7, dtype=np.uint64).view(dt)[: 7 * 8 // np.dtype(dt).itemsize]
            for dt in (np.int16, np.uint32, np.int64, np.float32, np.float64)] + [np.arange(4) % 3 == 0]
    args[3] = relayout(args[3], "reversed")
    for got, want in zip(jc.jit(swaps)(*args), swaps(*args)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8))
    mine, numpy_own = (relayout(np.arange(1, 9, dtype=np.uint32) * 0x01020304, "strided") for _ in range(2))
    np.testing.assert_array_equal(jc.jit(in_place)(mine), in_place(numpy_own))
    np.testing.assert_array_equal(mine, numpy_own)


def test_views_of_another_item_size_as_numpy():
    """``words.view(np.uint8)`` and ``bytes.view(np.uint32)`` (session 53): the last axis's
    little-endian bytes, every integer and float size both ways, a view of a view; NumPy's
    ValueError where its rules refuse (a strided last axis, 0-d, a partial word)."""
    def views(w, b, d):
        return (w.view(np.uint8), w.view(np.uint16), w[:, ::-1].copy().view(np.int64), b.view(np.uint32),
                b.view(np.float64), d.view(np.int8), d[1:].view(np.uint32))

    rng = np.random.default_rng(9)
    w = rng.integers(0, 2**32, (3, 4), dtype=np.uint32)
    w[0, :3] = (0, 2**32 - 1, 0x01020304)
    b, d = rng.integers(0, 256, (2, 16), dtype=np.uint8), rng.standard_normal((2, 2))
    for got, want in zip(jc.jit(views)(w, b, d), views(w, b, d)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    for x in (w[:, ::2], np.uint32(5), np.ones(3, np.uint8)):
        with pytest.raises(ValueError, match="dtype|contiguous") as raised:
            jc.jit(lambda a: a.view(np.uint16))(x)
        assert isinstance(raised.value, jc.JitcoreError)


def test_views_of_other_dtypes_share_the_array():
    """A write to ``x.view(np.uint8)`` (or to ``x.view(np.int64)`` of floats) reaches ``x``, and
    one to ``x`` reaches the view, as in NumPy (before session 53 the view was a copy)."""
    def through_bytes(x):
        b = x.view(np.uint8)
        b[1] = 7
        x[1] = 0x01020304
        return x.copy(), b.copy()

    def through_bits(d):
        bits = d.view(np.int64)
        bits[0] = bits[0] ^ np.int64(-2**63)  # the sign bit flipped
        return d.copy()

    x, d = np.zeros(3, np.uint32), np.array([1.5, -2.0])
    for got, want in zip(jc.jit(through_bytes)(x.copy()), through_bytes(x.copy())):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jc.jit(through_bits)(d.copy()), through_bits(d.copy()))
