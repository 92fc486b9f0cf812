"""Every op of the first slice against NumPy: all dtypes, broadcasting, 0-d and size-0 arrays,
NaN, inf, -0.0, subnormals, the dtype's extremes, integer overflow and division by zero, and
every memory layout. Hypothesis draws shapes and values (tests/strategies.py: specials often,
any layout); each op and dtype also runs on the fixed batches of tests/strategies.py, which hold
every special value (pairwise for binary ops) in every layout on every run."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.numpy as jnp
from tests.budget import examples
from tests.layouts import layouts, relayout
from tests.oracle import ULP_BOUNDS, assert_close, assert_matches
from tests.strategies import arrays, edge_arrays, edge_pairs, edge_set, elements

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                np.uint32, np.uint64, np.float16, np.float32, np.float64)]
DTYPE_IDS = [str(d) for d in DTYPES]
# Hypothesis adds broadcast shapes on top of the fixed batches below (every special, pairwise,
# in every layout, every run); CI draws about half of the full profile's examples.
FEW = settings(max_examples=examples(3, ci=2), deadline=None)

BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "maximum": jnp.maximum, "minimum": jnp.minimum,
}
UNARY = {
    "neg": lambda a: -a, "abs": lambda a: abs(a), "sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan,
    "tanh": jnp.tanh, "exp": jnp.exp, "log": jnp.log, "sqrt": jnp.sqrt,
}
JITTED = {name: jc.jit(fn) for name, fn in {**BINARY, **UNARY}.items()}


def draw_arrays(data, dtypes, nonnegative_last=False):
    """Arrays of ``dtypes`` with mutually broadcastable shapes, specials among their values and
    each in a drawn layout; the last one without negative values if ``nonnegative_last``."""
    shapes = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=len(dtypes), min_dims=0, max_dims=3, min_side=0, max_side=4))
    out = []
    for i, (dtype, shape) in enumerate(zip(dtypes, shapes.input_shapes, strict=True)):
        low = 0 if nonnegative_last and i == len(dtypes) - 1 else None
        out.append(data.draw(arrays(dtype, shape, elements(dtype, min_value=low))))
    return out


def check(name: str, fn, args, ulps: int | None = None, context: str = ""):
    """jitcore agrees with NumPy, or both refuse the dtypes with a TypeError. NumPy runs on C
    copies of the arguments: its power loop takes an exponent of 0.5 that its strides repeat as
    sqrt (see docs/numpy_support.md), and jitcore's answer does not depend on the layout."""
    try:
        with np.errstate(all="ignore"):
            expected = fn(*(np.array(a, order="C") for a in args))
    except TypeError:
        with pytest.raises(jc.JitTypeError):
            JITTED[name](*args) if name in JITTED else jc.jit(fn)(*args)
        return
    actual = JITTED[name](*args) if name in JITTED else jc.jit(fn)(*args)
    dtype = np.asarray(expected).dtype
    bound = ULP_BOUNDS.get(name, 0) if ulps is None else ulps
    if dtype == np.float16 and bound:
        bound = 1  # computed in float32, then rounded once, as NumPy does
    where = [(a.dtype, a.shape, a.strides) for a in args]
    assert_matches(actual, expected, bound, f"{name} on {where} {context}")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(BINARY))
@FEW
@given(data=st.data())
def test_binary_op_matches_numpy(name, dtype, data):
    # NumPy raises for negative integer powers; that case has its own test below.
    a, b = draw_arrays(data, [dtype, dtype], nonnegative_last=name == "pow" and dtype.kind in "iu")
    check(name, BINARY[name], [a, b], ULP_BOUNDS["pow"] if name == "pow" else 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_op_on_every_pair_of_specials(name, dtype):
    # Integers to negative integer powers: NumPy raises (test_negative_integer_power_is_defined).
    exponents = edge_set(dtype)
    if name == "pow" and dtype.kind in "iu":
        exponents = exponents[exponents >= 0]
    for label, a, b in edge_pairs(dtype, exponents):
        check(name, BINARY[name], [a, b], ULP_BOUNDS["pow"] if name == "pow" else 0, label)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(UNARY))
@FEW
@given(data=st.data())
def test_unary_op_matches_numpy(name, dtype, data):
    (a,) = draw_arrays(data, [dtype])
    check(name, UNARY[name], [a])


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_op_on_every_special(name, dtype):
    for label, a in edge_arrays(dtype):
        check(name, UNARY[name], [a], context=label)


@pytest.mark.parametrize("name", ["add", "mul", "truediv", "floordiv", "lt", "maximum"])
@settings(max_examples=examples(25, ci=13), deadline=None)
@given(data=st.data())
def test_mixed_dtypes_promote_as_numpy(name, data):
    d1, d2 = data.draw(st.sampled_from(DTYPES)), data.draw(st.sampled_from(DTYPES))
    a, b = draw_arrays(data, [d1, d2])
    check(name, BINARY[name], [a, b])


SCALARS = [2, -3, 2.5, True, 0, 1e300, -0.0]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_python_scalars_are_weakly_typed(dtype, scalar):
    a = edge_set(dtype)  # with -0.0: x + 0 is not x
    answered = {}
    for name in ("add", "mul", "truediv", "lt"):
        fn = BINARY[name]
        try:
            with np.errstate(all="ignore"):
                answered[name] = fn(a, scalar)
        except (TypeError, OverflowError):
            with pytest.raises(jc.JitcoreError):
                jc.jit(lambda x, fn=fn: fn(x, scalar))(a)
    # The ops NumPy answers, in one jitted function: each op's compile of a tiny array was mostly
    # the fixed cost of a compile (tracing each op alone or beside the others promotes alike).
    if answered:
        fns = [BINARY[name] for name in answered]
        got = jc.jit(lambda x: tuple(fn(x, scalar) for fn in fns))(a)
        for (name, expected), actual in zip(answered.items(), got, strict=True):
            assert_matches(actual, expected, 0, f"{name} {scalar!r}")


def test_scalar_times_float32_stays_float32():
    x = np.arange(4, dtype=np.float32)
    assert jc.jit(lambda x: x * 2)(x).dtype == np.float32
    assert jc.jit(lambda x: x / 2)(x).dtype == np.float32
    assert jc.jit(lambda x: x + 1.5)(np.arange(4)).dtype == np.float64


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_division_by_zero_and_overflow(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.max, 7, -7 if info.min < 0 else 7, 0, info.min], dtype=dtype)
    b = np.array([0, 0, 0, 2, 0, -1 if info.min < 0 else 1], dtype=dtype)
    for name in ("floordiv", "mod", "add", "mul", "sub"):
        check(name, BINARY[name], [a, b])


def test_negative_integer_power_raises_numpys_error():
    # NumPy raises "Integers to negative integer powers are not allowed"; so does the compiled
    # call since newuser37 (docs/numpy_support.md, "Negative integer powers").
    a = np.array([1, -1, -1, 2, 0, 5], dtype=np.int64)
    b = np.array([-3, -3, -2, -1, 2, 0], dtype=np.int64)
    with pytest.raises(jc.JitValueError, match="negative integer powers"):
        jc.jit(lambda a, b: a ** b)(a, b)


def _in_place_power(x, e):
    x **= e
    return x


POWER_SPELLINGS = {
    "x ** 0.5": lambda x: x ** 0.5, "np.power(x, 0.5)": lambda x: np.power(x, 0.5),
    "x ** float32(0.5)": lambda x: x ** np.float32(0.5), "x ** 0-d 0.5": lambda x: x ** np.array(0.5),
    "x ** [0.5]": lambda x: x ** np.array([0.5]), "x[:1] ** [0.5]": lambda x: x[:1] ** np.array([0.5]),
    "x[0] ** 0.5": lambda x: x[0] ** 0.5, "np.power(x[0], 0.5)": lambda x: np.power(x[0], 0.5),
    "x[4] ** x[-6]": lambda x: x[4] ** x[-6], "x ** 2": lambda x: x ** 2, "x ** -1.0": lambda x: x ** -1.0,
    "x **= 0.5": lambda x: _in_place_power(x.copy(), 0.5),
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16], ids=str)
@pytest.mark.parametrize("spelling", list(POWER_SPELLINGS))
def test_powers_with_one_exponent_as_numpy(spelling, dtype):
    """NumPy's ``x ** 0.5`` is ``sqrt`` (its operator's fast path), and so is its float32/64
    power loop for an exponent of 0.5 that does not move along the loop: (-0.0) ** 0.5 is -0.0
    and (-inf) ** 0.5 NaN there, where C's pow (NumPy scalars, float16's loop, a one-element
    result) gives 0.0 and inf."""
    fn = POWER_SPELLINGS[spelling]
    x = edge_set(dtype)
    with np.errstate(all="ignore"):
        try:
            expected = fn(x)
        except TypeError:  # x **= 0.5 of integers
            with pytest.raises(jc.JitTypeError, match="same_kind"):
                jc.jit(fn)(x)
            return
    got = jc.jit(fn)(x)
    assert type(got) is type(expected)
    assert_matches(got, expected, ULP_BOUNDS["pow"], spelling)


def in_range_for(a: np.ndarray, dst: np.dtype) -> np.ndarray:
    """``a`` with the floats that C leaves undefined when cast to integer ``dst`` (NaN, inf,
    out of range after truncation) replaced by 0: NumPy's result there depends on which SIMD
    path it takes. jitcore defines them; see the test after this one."""
    if a.dtype.kind != "f" or np.dtype(dst).kind not in "iu":
        return a
    info = np.iinfo(dst)
    with np.errstate(all="ignore"):
        t = np.trunc(a.astype(np.float64))
        ok = np.isfinite(t) & (t >= info.min) & (t <= info.max)
    return np.where(ok, a, 0).astype(a.dtype)


@pytest.mark.parametrize("src", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("dst", DTYPES, ids=DTYPE_IDS)
@settings(max_examples=examples(2), deadline=None)
@given(data=st.data())
def test_astype_matches_numpy(src, dst, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    a = relayout(in_range_for(data.draw(arrays(src, shape, layout=False)), dst), data.draw(layouts()))
    with np.errstate(all="ignore"):
        expected = a.astype(dst)
    actual = jc.jit(lambda x: x.astype(dst))(a)
    assert_matches(actual, expected, 0, f"{src} -> {dst}")


@pytest.mark.parametrize("src", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("dst", DTYPES, ids=DTYPE_IDS)
def test_astype_of_every_special(src, dst):
    convert = jc.jit(lambda x: x.astype(dst))
    for label, a in edge_arrays(in_range_for(edge_set(src), dst)):
        if a.ndim == 1:  # size 0 and length 1: elementwise, as the 67-long rows (the draws have them)
            continue
        with np.errstate(all="ignore"):
            expected = a.astype(dst)
        assert_matches(convert(a), expected, 0, f"{src} -> {dst}, {label}")


def test_float_to_int_outside_the_range_is_defined_as_x86_truncation():
    # C leaves these undefined; jitcore defines them as x86's cvtt instructions do: NaN and
    # out-of-range give the minimum of the (at least 32-bit) intermediate, then wrap.
    x = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, 3.7, -3.7, 300.0, -1.0])
    expected = {
        np.int8: [0, 0, 0, 0, 0, 3, -3, 44, -1],
        np.uint8: [0, 0, 0, 0, 0, 3, 253, 44, 255],
        np.int32: [-2**31] * 5 + [3, -3, 300, -1],
        np.uint32: [0, 0, 0, 0, 0, 3, 2**32 - 3, 300, 2**32 - 1],
        np.int64: [-2**63] * 5 + [3, -3, 300, -1],
        np.uint64: [2**63, 0, 2**63, 0, 2**63, 3, 2**64 - 3, 300, 2**64 - 1],
    }
    for dst, values in expected.items():
        got = jc.jit(lambda v, dst=dst: v.astype(dst))(x)
        np.testing.assert_array_equal(got, np.array(values, dtype=object).astype(dst), err_msg=str(dst))


REDUCTIONS = ["sum", "max", "min", "mean"]


def axes_for(ndim: int):
    return st.one_of(
        st.none(),
        st.integers(-ndim, ndim - 1) if ndim else st.none(),
        st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim).map(tuple),
    )


@functools.cache
def reduction(kind, axis, keepdims):
    """One jitted function per reduction, so that calls with one signature compile once."""
    return jc.jit(lambda x: getattr(x, kind)(axis=axis, keepdims=keepdims))


def check_reduction(kind, a, axis, keepdims, context=""):
    fn = reduction(kind, axis, keepdims)
    context = f"{kind} axis={axis} keepdims={keepdims} of {a.shape} {a.strides} {context}"
    try:
        with np.errstate(all="ignore"):
            expected = fn.fun(a)
    except ValueError:  # max/min of an empty axis: NumPy refuses, and so do we
        with pytest.raises(jc.JitTypeError, match="zero-size"):
            fn(a)
        return
    actual = fn(a)
    if np.asarray(expected).dtype.kind == "f" and kind in ("sum", "mean"):
        # The order of a float sum is free; its error is bounded by the sum of the finite |x|.
        rtol = {np.float16: 1e-2, np.float32: 1e-5, np.float64: 1e-12}[np.asarray(expected).dtype.type]
        finite = a[np.isfinite(a)].astype(np.float64)
        assert_close(actual, expected, rtol, context, atol=rtol * max(np.abs(finite).sum(), 1.0))
    else:
        assert_matches(actual, expected, 0, context)


def reduction_values(kind, dtype, bound=100):
    """Values whose float sums cannot overflow in any order (NaN and inf are fine: they give
    the same result in every order); max and min take any."""
    if dtype.kind != "f" or kind in ("max", "min"):
        return elements(dtype)
    return st.one_of(elements(dtype, min_value=-bound, max_value=bound), st.sampled_from([np.inf, -np.inf]))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("kind", REDUCTIONS)
@settings(max_examples=examples(6, ci=3), deadline=None)
@given(data=st.data())
def test_reductions_match_numpy(kind, dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    a = data.draw(arrays(dtype, shape, reduction_values(kind, dtype)))
    check_reduction(kind, a, data.draw(axes_for(a.ndim)), data.draw(st.booleans()))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("kind", REDUCTIONS)
def test_reductions_of_every_special(kind, dtype):
    values = edge_set(dtype)
    if dtype.kind == "f" and kind in ("sum", "mean"):
        values = values[~(np.abs(values) > 1000)]  # no overflow in any order (NaN stays)
    for label, a in edge_arrays(values):
        if a.ndim < 2:
            check_reduction(kind, a, None, False, label)
        elif a.flags.c_contiguous:
            check_reduction(kind, a, None, True, label)
        else:
            check_reduction(kind, a, 0, False, label)
            check_reduction(kind, a, -1, True, label)


def test_reductions_propagate_nan_like_numpy():
    x = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]])
    cases = [(kind, axis) for kind in REDUCTIONS for axis in (None, 0, 1)]
    # One jitted function for all (one compile: each reduction of a 2x3 array alone was mostly a
    # compile's fixed cost).
    got = jc.jit(lambda v: tuple(getattr(v, kind)(axis=axis) for kind, axis in cases))(x)
    for (kind, axis), actual in zip(cases, got, strict=True):
        with np.errstate(all="ignore"):
            expected = getattr(x, kind)(axis=axis)
        assert_matches(actual, expected, 0, f"{kind} axis={axis}")


def test_jnp_reduction_functions():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    fns = {
        "sum": lambda v: jnp.sum(v, axis=(0, 2), keepdims=True),
        "max": lambda v: jnp.max(v, axis=-1),
        "min": lambda v: jnp.min(v),
        "mean": lambda v: jnp.mean(v, axis=1),
    }
    for name, fn in fns.items():
        assert_matches(jc.jit(fn)(x), np.asarray(fn(x)), 0, name)


@settings(max_examples=examples(30, ci=15), deadline=None)
@given(data=st.data())
def test_where_matches_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    c, a, b = draw_arrays(data, [np.dtype(bool), dtype, dtype])
    assert_matches(jc.jit(jnp.where)(c, a, b), np.where(c, a, b), 0)


@settings(max_examples=examples(30, ci=15), deadline=None)
@given(data=st.data())
def test_reshape_and_transpose_match_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)))
    perm = tuple(data.draw(st.permutations(range(a.ndim))))
    assert_matches(jc.jit(lambda x: x.transpose(perm))(a), a.transpose(perm))
    assert_matches(jc.jit(lambda x: x.T)(a), a.T)
    assert_matches(jc.jit(lambda x: x.reshape(-1))(a), a.reshape(-1))
    assert_matches(jc.jit(lambda x: (x.T + 0).reshape(a.size, 1) if a.size else x.T)(a),
                   (a.T + 0).reshape(a.size, 1) if a.size else a.T)


def test_fused_chain_with_broadcast_and_transpose():
    """A transpose, a broadcast of y along the rows and three elementwise ops are one kernel
    that reads x through a transposed map; the values match NumPy's."""
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(5).astype(np.float32)

    def fn(x, y):
        # .copy(): C order (the chain alone is Fortran-ordered in NumPy, as x.T is, and is
        # computed transposed, reading x in order; test_inputs_errors checks that layout)
        return (jnp.maximum(x.T * 2 + y, 0) - (x.T - y[None, :])).copy()

    assert_matches(jc.jit(fn)(x, y), fn(x, y))
    text = jc.jit(fn).lower(x, y).as_text("optimized")
    assert text.count('"kernel.generic"') == 1, text
    assert "affine_map<(d0, d1) -> (d1, d0)>" in text and "affine_map<(d0, d1) -> (d1)>" in text, text
    assert text.count('"arith.subf"') == 2 and '"arith.maximumf"' in text, text


def test_closed_over_arrays_are_constants():
    w = np.linspace(-1, 1, 12).reshape(3, 4)
    b = np.float64(0.25)

    def fn(x):
        return (x * w + b).sum(axis=0)

    x = np.arange(12.0).reshape(3, 4)
    assert_matches(jc.jit(fn)(x), fn(x), 0)
    assert "array.constant" in str(jc.make_ir(fn)(x))


def test_strided_and_negative_stride_inputs_are_read_in_place():
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    views = [base[::2, 1::3], base[::-1], base.T, base[:, ::-2], np.asfortranarray(base)]
    fn = jc.jit(lambda x: x * 3 - 1)
    for v in views:
        assert_matches(fn(v), v * 3 - 1, 0, str(v.strides))
    # reshape of a strided view needs a contiguous copy first; the result is still right
    assert_matches(jc.jit(lambda x: x.reshape(-1) + 1)(base.T), base.T.reshape(-1) + 1)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply], ids=lambda u: u.__name__)
def test_ufunc_accumulate_matches_numpy(ufunc, dtype):
    x = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    for axis in (0, 1, -1):
        got = jc.jit(lambda v, axis=axis: ufunc.accumulate(v, axis=axis))(x)
        assert_matches(got, ufunc.accumulate(x, axis=axis))


# -- 0-d arrays (once known bugs of the coverage table, tests/coverage/bugs.py) -----------------
def test_accumulate_of_a_0d_array_raises_like_numpy():
    x = np.array(5.0)
    for ufunc in (np.add, np.multiply):
        with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
            ufunc.accumulate(x)
        with pytest.raises(jc.JitTypeError, match="cannot accumulate on a scalar"):
            jc.jit(lambda v, u=ufunc: u.accumulate(v))(x)
    assert_matches(jc.jit(np.cumsum)(x), np.cumsum(x))  # np.cumsum of 0-d is fine in both


def test_pad_of_a_0d_array_and_pad_width_errors_match_numpy():
    x = np.array(2.5)
    for width in (1, (1, 2), ((1, 2),), np.array(3), 0):
        got = jc.jit(lambda v, w=width: np.pad(v, w, constant_values=7))(x)
        assert isinstance(got, np.ndarray) and got.shape == () and got == 2.5
    y = np.arange(6.0).reshape(2, 3)
    for width, error in (((), TypeError), (1.5, TypeError), (-1, ValueError), ((1, 2, 3), ValueError)):
        for v in (x, y):
            with pytest.raises(error):
                np.pad(v, width)
            with pytest.raises(error):
                jc.jit(lambda a, w=width: np.pad(a, w))(v)
    # only the constants of padded sides count; np.pad returns a new array
    f = jc.jit(lambda a: (np.pad(a, ((0, 0), (1, 0)), constant_values=((1, 2), (5, 6))), np.pad(a, 0)))
    got, same = f(y)
    assert_matches(got, np.pad(y, ((0, 0), (1, 0)), constant_values=((1, 2), (5, 6))))

    def write(a):
        b = np.pad(a, 0)
        b += 1
        return b

    z = y.copy()
    assert_matches(jc.jit(write)(z), y + 1)
    assert_matches(z, y)


_AXIS_FUNCTIONS = {
    "sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "any": np.any, "all": np.all,
    "mean": np.mean, "var": np.var, "argmax": np.argmax, "cumsum": np.cumsum,
    "add.reduce": np.add.reduce, "maximum.reduce": np.maximum.reduce,
    "logical_or.reduce": np.logical_or.reduce, "x.sum": lambda v, axis: v.sum(axis=axis),
    "x.all": lambda v, axis: v.all(axis=axis), "x.mean": lambda v, axis: v.mean(axis=axis),
    "repeat": lambda v, axis: np.repeat(v, 2, axis=axis), "take": lambda v, axis: np.take(v, 0, axis=axis),
    "squeeze": lambda v, axis: np.squeeze(v, axis),
}


@pytest.mark.parametrize("name", list(_AXIS_FUNCTIONS))
def test_axis_0_and_minus_1_of_a_0d_array_as_numpy(name):
    # NumPy takes an int axis 0 or -1 of a 0-d array as no axis in its ufunc reductions,
    # argmax, cumsum, repeat, take and squeeze, but not in mean/var, and never a tuple (0,).
    fn = _AXIS_FUNCTIONS[name]
    x = np.array(5, np.int16)
    for axis in (0, -1, np.int64(0), 1, -2, (0,), (), None):
        try:
            want = fn(x, axis)
        except (TypeError, ValueError) as e:  # np.exceptions.AxisError is both
            with pytest.raises((type(e), jc.JitcoreError)):
                jc.jit(lambda v, a=axis: fn(v, a))(x)
            continue
        got = jc.jit(lambda v, a=axis: fn(v, a))(x)
        assert_matches(got, want, 0, f"{name} axis={axis!r}")


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64])
def test_clip_to_python_ints_beyond_the_dtype_range_as_numpy(dtype):
    # NumPy 2: a bound beyond the range on the side where it changes nothing is fine (uint8 from
    # -3 up, int8 up to 300); beyond it on the other side NumPy raises OverflowError.
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, 1, 5, info.max], dtype)
    below, above = info.min - 3, info.max + 300
    for lo, hi in ((below, 3), (0, above), (below, above), (below, None), (None, above), (5, 2)):
        got = jc.jit(lambda v, lo=lo, hi=hi: np.clip(v, lo, hi))(x)
        assert_matches(got, np.clip(x, lo, hi), 0, f"clip({lo}, {hi})")
    for lo, hi in ((above, None), (None, below), (below, below + 1)):
        with pytest.raises(OverflowError):
            np.clip(x, lo, hi)
        with pytest.raises(jc.JitcoreError, match="does not fit"):
            jc.jit(lambda v, lo=lo, hi=hi: np.clip(v, lo, hi))(x)


_KIND_FUNCTIONS = {
    # NumPy scalars: ufuncs, reductions, integer indexing and x[()], products of 1-d arrays
    "x[()]": lambda v: v[()], "v[1]": lambda v: v.reshape(-1)[0], "x + 1": lambda v: v + 1,
    "np.sin": np.sin, "np.clip": lambda v: np.clip(v, 0, 1), "np.sum": np.sum,
    "sum axis 0": lambda v: np.sum(v, axis=0), "np.mean": np.mean, "np.std": np.std,
    "np.argmax": np.argmax, "add.reduce": np.add.reduce, "v @ v": lambda v: v.reshape(1) @ v.reshape(1),
    "np.take": lambda v: np.take(v, 0), "sum().astype": lambda v: v.sum().astype(np.float32),
    # 0-d arrays: astype, copy, *_like, reshape, views, where, pad, tensordot
    "x": lambda v: v, "x[...]": lambda v: v[...], "astype": lambda v: v.astype(np.float32),
    "np.astype": lambda v: np.astype(v, np.float64), "copy": lambda v: v.copy(),
    "zeros_like": np.zeros_like, "full_like": lambda v: np.full_like(v, 3),
    "reshape": lambda v: v.reshape(()), "v.reshape(())": lambda v: v.reshape(1).reshape(()),
    "T": lambda v: v.T, "squeeze": np.squeeze,
    "broadcast_to": lambda v: np.broadcast_to(v, ()), "where": lambda v: np.where(v > 0, v, 1.0),
    "pad": lambda v: np.pad(v, 1), "tensordot": lambda v: np.tensordot(v.reshape(1), v.reshape(1), 1),
}


@pytest.mark.parametrize("name", list(_KIND_FUNCTIONS))
def test_0d_results_are_scalars_or_arrays_as_in_numpy(name):
    fn = _KIND_FUNCTIONS[name]
    x = np.array(1.5)
    got, want = jc.jit(fn)(x), fn(x)
    assert type(got) is type(want), f"{type(got).__name__} (NumPy {type(want).__name__})"
    assert_matches(np.asarray(got), np.asarray(want), 0)
    pair = jc.jit(lambda v: (fn(v), fn(v) * 1))(x)  # a ufunc of either is a scalar
    assert [type(p) for p in pair] == [type(want), type(want * 1)]


def test_an_indexed_element_is_a_copy_not_a_view():
    def f(x):
        first = x[0]
        x[0] = 5.0
        first += 1  # rebinds the scalar; x is unchanged
        x[1] += 1  # but x[i] += 1 writes
        return first, x[0]

    x, y = np.arange(3.0), np.arange(3.0)
    got, want = jc.jit(f)(x), f(y)
    assert got == want and [type(g) for g in got] == [type(w) for w in want]
    np.testing.assert_array_equal(x, y)
