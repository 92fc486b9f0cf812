"""argmax, argmin, cumsum and cumprod against NumPy: every dtype, 0-d and size-0 arrays, NaN,
infinities and -0.0, ties, axis None / int / negative, keepdims and dtype=; error messages; and
the kernels they become.

cumsum and cumprod add (multiply) one element after another along the axis, as NumPy's
``accumulate`` loops do, in the same accumulator dtype, so float results are compared exactly
(float16 too: NumPy rounds each step to float16, and so does jitcore).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.numpy as jnp
from tests.budget import examples
from tests.layouts import layouts, relayout
from tests.oracle import assert_matches
from tests.strategies import arrays, edge_arrays

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                np.uint32, np.uint64, np.float16, np.float32, np.float64)]
SOME = settings(max_examples=examples(15, ci=8), deadline=None)  # CI: about half, see tests/budget.py

ARG = jc.jit(lambda a, kind, axis, keepdims: getattr(jnp, kind)(a, axis, keepdims=keepdims),
             static_argnames=("kind", "axis", "keepdims"))
SCAN = jc.jit(lambda a, kind, axis, dtype: getattr(jnp, kind)(a, axis, dtype),
              static_argnames=("kind", "axis", "dtype"))


def assert_same(actual, expected, context: str = "") -> None:
    """Bit-exact agreement: ``assert_matches`` with 0 ULP, and the sign of every zero (the
    oracle's ULP distance between -0.0 and +0.0 is 0)."""
    assert_matches(actual, expected, 0, context)
    actual, expected = np.asarray(actual), np.asarray(expected)
    if expected.dtype.kind == "f":
        zero = expected == 0
        same = np.signbit(actual[zero]) == np.signbit(expected[zero])
        assert same.all(), f"signs of zero differ ({context})"


@st.composite
def array_and_axis(draw, dtype: np.dtype):
    """A C-contiguous array whose values are often special (ties and NaN are common) and an
    axis of it; the tests give it a drawn layout once its values are final."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    a = draw(arrays(dtype, shape, layout=False))
    ndim = max(a.ndim, 1)  # NumPy takes axis 0 (or -1) of a 0-d array
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)))
    return a, axis


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_argreduce_matches_numpy(kind, dtype, data):
    a, axis = data.draw(array_and_axis(dtype))
    a = relayout(a, data.draw(layouts()))
    keepdims = data.draw(st.booleans())
    try:
        expected = getattr(np, kind)(a, axis=axis, keepdims=keepdims)
    except ValueError as e:  # an empty axis
        with pytest.raises(jc.JitTypeError, match=f"^{e}"):
            ARG(a, kind, axis, keepdims)
        return
    assert_matches(ARG(a, kind, axis, keepdims), expected, context=f"{kind} of {a!r}, axis={axis}")


def _dtype_argument(data, src: np.dtype):
    """None (NumPy's accumulator dtype), or a dtype to convert to and accumulate in."""
    return data.draw(st.one_of(st.none(), st.sampled_from(DTYPES)))


def _castable(a: np.ndarray, dtype) -> np.ndarray:
    """``a``, made safe to convert to ``dtype``: float to integer conversion of NaN, inf or
    out-of-range values is platform-defined in NumPy, so keep those out."""
    if dtype is None or a.dtype.kind != "f" or np.dtype(dtype).kind not in "iu":
        return a
    with np.errstate(all="ignore"):
        return np.abs(np.nan_to_num(a, nan=0, posinf=0, neginf=0)) % 100


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_scan_matches_numpy_exactly(kind, dtype, data):
    a, axis = data.draw(array_and_axis(dtype))
    acc = _dtype_argument(data, dtype)
    a = relayout(_castable(a, acc), data.draw(layouts()))
    with np.errstate(all="ignore"):
        expected = getattr(np, kind)(a, axis=axis, dtype=acc)
        got = SCAN(a, kind, axis, acc)
    assert_same(got, expected, context=f"{kind} of {a!r}, axis={axis}, dtype={acc}")


@pytest.mark.parametrize("kind", ["argmax", "argmin", "cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_every_special_in_every_layout(kind, dtype):
    """tests/strategies.py's fixed batch: each special 0-d, size 0, length 1, and rows of 67
    holding every special in every layout (along the rows; the whole array for 0-d and 1-d)."""
    for label, a in edge_arrays(dtype):
        axis = -1 if a.ndim == 2 else None
        with np.errstate(all="ignore"):
            try:
                expected = getattr(np, kind)(a, axis=axis)
            except ValueError as e:  # argmax of nothing
                with pytest.raises(jc.JitTypeError, match=f"^{e}"):
                    ARG(a, kind, axis, False)
                continue
            got = ARG(a, kind, axis, False) if kind.startswith("arg") else SCAN(a, kind, axis, None)
        assert_same(got, expected, f"{kind} of {label}")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("shape, axis", [((10000,), None), ((300, 41), 0), ((41, 300), 1), ((7, 50, 9), 1)])
def test_long_float_scans_are_bit_identical(dtype, shape, axis):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    y = (1 + rng.standard_normal(shape) / 100).astype(dtype)
    assert_same(SCAN(x, "cumsum", axis, None), np.cumsum(x, axis=axis))
    with np.errstate(all="ignore"):
        assert_same(SCAN(y, "cumprod", axis, None), np.cumprod(y, axis=axis))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_scans_keep_negative_zero(dtype):
    x = np.array([[-0.0, -0.0, 0.0], [-0.0, 1.0, -1.0]], dtype=dtype)
    for axis in (None, 0, 1):
        assert_same(SCAN(x, "cumsum", axis, None), np.cumsum(x, axis=axis))
        assert_same(SCAN(x, "cumprod", axis, None), np.cumprod(x, axis=axis))


@pytest.mark.parametrize("x, argmax, argmin", [
    ([2.0, 5.0, 5.0, -1.0, -1.0], 1, 3),  # first occurrence on ties
    ([1.0, np.nan, 3.0, np.nan], 1, 1),  # first NaN
    ([np.nan, 1.0], 0, 0),
    ([-np.inf, -np.inf], 0, 0),  # only the identity: index 0
    ([np.inf, np.inf], 0, 0),
    ([0.0, -0.0, 0.0], 0, 0),  # -0.0 == 0.0
    ([-0.0, 0.0], 0, 0),
])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_argreduce_special_values(x, argmax, argmin, dtype):
    a = np.array(x, dtype=dtype)
    assert np.argmax(a) == argmax and np.argmin(a) == argmin  # the table is NumPy's answer
    assert_matches(ARG(a, "argmax", None, False), np.int64(argmax))
    assert_matches(ARG(a, "argmin", None, False), np.int64(argmin))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64], ids=str)
def test_argreduce_integer_extremes(dtype):
    info = np.iinfo(dtype)
    for values in ([info.min, info.min], [info.max, info.max], [info.min, info.max, info.max, info.min]):
        a = np.array(values, dtype=dtype)
        for kind in ("argmax", "argmin"):
            assert_matches(ARG(a, kind, None, False), getattr(np, kind)(a))


def test_0d_arrays():
    x = np.array(3.5)
    for axis in (None, 0, -1):
        assert_matches(ARG(x, "argmax", axis, True), np.argmax(x, axis=axis, keepdims=True))
        assert_matches(SCAN(x, "cumsum", axis, None), np.cumsum(x, axis=axis))
    with pytest.raises(jc.JitTypeError, match="axis 1 is out of bounds for an array of dimension 1"):
        ARG(x, "argmax", 1, False)


@pytest.mark.parametrize("shape, axis, message", [
    ((0,), None, "attempt to get argmax of an empty sequence"),
    ((3, 0), 1, "attempt to get argmax of an empty sequence"),
    ((0, 0), 0, "attempt to get argmax of an empty sequence"),
    ((2, 3), 2, "argmax: axis 2 is out of bounds for an array of dimension 2"),
    ((2, 3), -3, "argmax: axis -3 is out of bounds for an array of dimension 2"),
    ((2, 3), (0,), r"argmax: axis must be an integer or None, got \(0,\)"),
])
def test_argreduce_errors(shape, axis, message):
    with pytest.raises(jc.JitTypeError, match=f"^{message}"):
        ARG(np.zeros(shape), "argmax", axis, False)
    with pytest.raises(jc.JitTypeError, match=f"^{message.replace('argmax', 'argmin')}"):
        ARG(np.zeros(shape), "argmin", axis, False)


def test_argreduce_along_a_nonempty_axis_of_an_empty_array():
    x = np.zeros((0, 3))
    assert_matches(ARG(x, "argmax", 1, False), np.argmax(x, axis=1))
    assert_matches(ARG(x, "argmin", 1, True), np.argmin(x, axis=1, keepdims=True))


def test_scan_errors():
    with pytest.raises(jc.JitTypeError, match="cumsum: axis 2 is out of bounds for an array of dimension 2"):
        SCAN(np.zeros((2, 3)), "cumsum", 2, None)
    with pytest.raises(jc.JitTypeError, match=f"dtype {np.dtype(np.longdouble)} is not supported"):
        SCAN(np.zeros(3), "cumprod", 0, np.longdouble)


@pytest.mark.parametrize("fn, message", [
    # (an argument or local out is written since session 40: tests/jitcore/test_reduction_out.py)
    (lambda x: np.argmax(x, out=np.zeros((), np.int64)),
     "numpy.argmax(..., out=) into a NumPy array that is not an arg"),
    (lambda x: jnp.cumsum(x, out=np.zeros(4)),
     "numpy.cumsum(..., out=) into a NumPy array that is not an arg"),
])
def test_out_is_refused(fn, message):
    with pytest.raises(jc.UnsupportedError) as info:
        jc.jit(fn)(np.arange(4.0))
    # the message's own line: the lines after it quote the user's source, this file's
    assert str(info.value).splitlines()[0].startswith(message)


def _traced_body(fn, x) -> str:
    """The traced IR of ``fn`` without the function's name (a lambda's differs by spelling)."""
    return re.sub(r'sym_name = "[^"]*"', "", str(jc.make_ir(fn)(x)))


def test_every_spelling_records_the_same_op():
    x = np.array([[1, 9, 3], [7, 2, 7]], dtype=np.int16)
    spellings = {
        '"array.argreduce"(%arg0) {axis = 1, kind = "max"}':
            (lambda a: a.argmax(axis=1), lambda a: np.argmax(a, axis=1), lambda a: jnp.argmax(a, 1)),
        '"array.argreduce"(%0) {axis = 0, kind = "min"} : (tensor<6xi16>)':  # flattened, reshaped
            (lambda a: a.argmin(keepdims=True), lambda a: np.argmin(a, keepdims=True)),
        '"array.scan"(%0) {axis = 0, kind = "sum"} : (tensor<2x3xi8>)':
            (lambda a: a.cumsum(0, np.int8), lambda a: np.cumsum(a, axis=0, dtype=np.int8)),
        '"array.scan"(%1) {axis = 0, kind = "prod"} : (tensor<6xi64>)':
            (lambda a: a.cumprod(), lambda a: np.cumprod(a), lambda a: jnp.cumprod(a)),
    }
    for op, fns in spellings.items():
        first = _traced_body(fns[0], x)
        assert op in first, first
        for fn in fns:
            assert _traced_body(fn, x) == first
            assert_matches(jc.jit(fn)(x), fns[0](x), context=op)


def test_concrete_arrays_go_to_numpy():
    x = np.array([3.0, 1.0, 2.0])
    assert jnp.argmax(x) == 0 and jnp.argmin(x) == 1
    np.testing.assert_array_equal(jnp.cumsum(x), np.cumsum(x))
    np.testing.assert_array_equal(jnp.cumprod(x, dtype=np.int32), np.cumprod(x, dtype=np.int32))


def test_strided_arguments():
    x = (np.arange(60, dtype=np.float32) * 1.5).reshape(6, 10)[::2, 1::3]
    assert not x.flags.c_contiguous
    for axis in (None, 0, 1):
        assert_matches(SCAN(x, "cumsum", axis, None), np.cumsum(x, axis=axis))
        assert_matches(ARG(x, "argmin", axis, False), np.argmin(x, axis=axis))
    assert_matches(ARG(x.T, "argmax", 1, False), np.argmax(x.T, axis=1))


def optimized(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("optimized")


def test_argmax_is_one_kernel_with_the_producer_inlined():
    x = np.ones((4, 5), np.float32)
    text = optimized(lambda a: jnp.argmax(a * 2 + 1, axis=0), x)
    assert text.count('"kernel.generic"') == 1
    assert 'iterator_types = ["reduction", "parallel"]' in text
    assert "-> (tensor<5xi64>, tensor<5xf32>)" in text


def test_cumsum_inlines_its_producer_but_is_never_inlined():
    x = np.ones((4, 5), np.float32)
    text = optimized(lambda a: jnp.cumsum(jnp.exp(a), axis=1), x)
    assert text.count('"kernel.generic"') == 1 and 'iterator_types = ["parallel", "scan"]' in text
    text = optimized(lambda a: jnp.cumsum(a, axis=0) * 2, x)
    assert text.count('"kernel.generic"') == 2


def test_scan_of_an_inlined_producer_equals_the_scan_of_its_result():
    # sin of huge arguments makes the kernel rerun with exact math: the scan must rerun too.
    x = np.array([[0.5, 1e30, -2.0, 3.0], [1.0, 2.0, 1e22, -7.0]], dtype=np.float64)
    fused = jc.jit(lambda a: jnp.cumsum(jnp.sin(a), axis=1))(x)
    separate = np.cumsum(jc.jit(jnp.sin)(x), axis=1)
    assert_same(fused, separate)


def test_scan_of_a_broadcast_and_argmax_of_a_transpose():
    x = np.array([3, -1, 4, 1, -5], dtype=np.int32)
    assert_matches(jc.jit(lambda a: jnp.cumsum(jnp.broadcast_to(a, (3, 5)), axis=0))(x),
                   np.cumsum(np.broadcast_to(x, (3, 5)), axis=0))
    y = np.arange(12, dtype=np.float64).reshape(3, 4) % 5
    assert_matches(jc.jit(lambda a: jnp.argmax(a.T, axis=1))(y), np.argmax(y.T, axis=1))


def test_argmax_of_a_fused_gather(monkeypatch):
    """``np.argmax(fit[idx], axis=1)`` (a GA's tournament): an index array checked by a pass of
    its own (``HOISTED_CHECK_MIN`` elements, 16384, lowered here to reach it at small sizes)
    leaves a gather that ``fuse`` puts in the argmax's body, whose ``kernel.extract`` the
    chunked argmax (``reduction._fold_arg_best``) emitted through ``scalar.emit``, which has no
    lowering for it. Short rows (only emitted: their length is a run-time extent) and long ones
    (run in chunks), argmin, float32, integers, NaN and ties, take_along_axis, negative indices;
    an index out of range still raises NumPy's IndexError."""
    import jitcore.indexing

    monkeypatch.setattr(jitcore.indexing, "HOISTED_CHECK_MIN", 0)

    def f(fit, fit32, ifit, short, long):
        best = np.argmax(fit[short], axis=1)
        return (best, np.argmin(fit32[short], axis=1), np.argmax(ifit[long], axis=1),
                np.argmin(fit[long], axis=1), np.take_along_axis(short, best[:, None], 1),
                short[np.arange(short.shape[0]), np.argmin(fit[short], axis=1)])

    r = np.random.default_rng(5)
    fit = r.integers(0, 9, 40).astype(np.float64)  # ties
    fit[[3, 17]] = np.nan  # the first NaN wins
    args = (fit, r.random(40).astype(np.float32), r.integers(-5, 5, 40),
            r.integers(-40, 40, (6, 3)), r.integers(0, 40, (3, 101)))
    for got, want in zip(jc.jit(f)(*args), f(*args), strict=True):
        np.testing.assert_array_equal(got, want)
    short = args[3].copy()
    short[4, 1] = 40
    with pytest.raises(IndexError, match="index 40 is out of bounds for axis 0 with size 40"):
        jc.jit(f)(*args[:3], short, args[4])
