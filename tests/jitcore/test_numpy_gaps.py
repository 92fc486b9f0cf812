"""Issue 12: small NumPy gaps the scientific programs met (np.pad's index modes, np.vander, a
list operand of ``@``, np.clip to out-of-range Python int arguments), each under jit against
NumPy, bit for bit."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples
from tests.jit_once import jit_once

INDEX_MODES = ["edge", "reflect", "symmetric", "wrap"]
EXTREME_MODES = ["maximum", "minimum"]
DTYPES = [np.float64, np.float32, np.int8, np.uint16, np.int64, np.bool_, np.complex128]


def assert_same(got, want, nan_bits=True):
    """Equal values, bits, dtype and shape; ``got`` a new array like NumPy's. ``nan_bits``
    False: NaN where NumPy has NaN, of any sign and payload (NumPy's contiguous max/min
    reductions give a fresh +NaN for a NaN in their first element or SIMD body, the NaN itself
    in their scalar tail: how long the body is depends on the CPU's vector width)."""
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    got, want = np.asarray(got), np.asarray(want)
    if not nan_bits and got.dtype.kind == "f":
        assert np.array_equal(np.isnan(got), np.isnan(want))
        got, want = np.where(np.isnan(got), np.nan, got), np.where(np.isnan(want), np.nan, want)
    assert got.tobytes() == want.tobytes()


def _arrays(min_side=1):
    return st.sampled_from(DTYPES).flatmap(lambda dt: hnp.arrays(
        dt, hnp.array_shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=4)))


# -- np.pad: 'edge', 'reflect', 'symmetric', 'wrap' ------------------------------------------------
@st.composite
def pad_widths(draw, ndim):
    """The spellings of pad_width NumPy takes: one int, one pair, one pair per axis; widths up
    to three times an axis, so reflections repeat."""
    one = st.integers(0, 9)
    return draw(st.one_of(one, st.tuples(one, one), st.tuples(*[st.tuples(one, one)] * ndim)))


@settings(max_examples=examples(80), deadline=None)
@given(data=st.data(), x=_arrays(min_side=0), mode=st.sampled_from(INDEX_MODES + EXTREME_MODES))
def test_pad_index_modes_match_numpy(data, x, mode):
    width = data.draw(pad_widths(x.ndim))
    # One jit for the test's examples, the width and mode static (a lambda closing over them
    # was traced anew every example: 80 front ends for 26 modules).
    jitted = jit_once(_pad, static_argnums=(1, 2))
    try:
        want = _pad(x, width, mode)
    except ValueError as e:  # padding an empty axis: the same refusal
        with pytest.raises(ValueError, match=re.escape(str(e))):
            jitted(x, width, mode)
    else:
        assert_same(jitted(x, width, mode), want, nan_bits=mode not in EXTREME_MODES)


def _pad(v, width, mode):
    return np.pad(v, width, mode=mode)


@pytest.mark.parametrize("mode", INDEX_MODES)
def test_pad_wider_than_the_array_repeats_as_numpy(mode):
    x = np.array([1.0, 2.0, 3.0])
    fn = lambda v: np.pad(v, (7, 11), mode=mode)  # noqa: E731
    assert_same(jc.jit(fn)(x), fn(x))


@pytest.mark.parametrize("mode", INDEX_MODES)
def test_pad_returns_a_new_array_for_zero_widths(mode):
    x = np.arange(6.0).reshape(2, 3)
    got = jc.jit(lambda v: np.pad(v, 0, mode=mode))(x)
    assert_same(got, np.pad(x, 0, mode=mode))
    assert not np.shares_memory(got, x)


@pytest.mark.parametrize("mode", ["edge", "reflect", "wrap"])
def test_pad_of_an_empty_axis_raises_numpys_value_error_at_the_users_line(mode):
    x = np.ones((0, 3))
    with pytest.raises(ValueError, match="can't extend empty axis"):
        np.pad(x, 1, mode=mode)
    with pytest.raises(jc.JitcoreError, match="can't extend empty axis") as info:
        jc.jit(lambda v: np.pad(v, 1, mode=mode))(x)
    assert isinstance(info.value, ValueError)
    assert "test_numpy_gaps.py" in str(info.value)


@pytest.mark.parametrize("mode", EXTREME_MODES)
def test_pad_with_the_extreme_fills_corners_as_numpy(mode):
    x = np.array([[1.0, 5.0, 2.0], [7.0, np.nan, 3.0], [-1.0, 4.0, 0.0]])
    for width in (1, ((1, 2), (3, 0)), ((0, 0), (2, 1))):
        fn = lambda v, w=width: np.pad(v, w, mode=mode)  # noqa: E731
        assert_same(jc.jit(fn)(x), fn(x))
        assert_same(jc.jit(fn)(x[:, :2] + 0.0), fn(x[:, :2] + 0.0))


def test_pad_modes_not_lowered_are_refused_by_name():
    with pytest.raises(jc.UnsupportedError, match="mode='empty'"):  # 'median': newuser37
        jc.jit(lambda v: np.pad(v, 1, mode="empty"))(np.ones(3))
    with pytest.raises(jc.UnsupportedError, match="traced stat_length"):
        jc.jit(lambda v: np.pad(v, 1, mode="maximum", stat_length=v[0]))(np.ones(3))
    with pytest.raises(jc.UnsupportedError, match="traced constant_values"):
        jc.jit(lambda v: np.pad(v, 1, constant_values=(v[0], 1.0)))(np.ones(3))
    with pytest.raises(jc.UnsupportedError, match="reflect_type='odd'"):
        jc.jit(lambda v: np.pad(v, 1, mode="reflect", reflect_type="odd"))(np.ones(3))


# -- np.vander ---------------------------------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(x=st.sampled_from(DTYPES).flatmap(lambda dt: hnp.arrays(dt, st.integers(0, 6))),
       n=st.one_of(st.none(), st.integers(0, 6)), increasing=st.booleans())
def test_vander_matches_numpy(x, n, increasing):
    fn = lambda v: np.vander(v, n, increasing=increasing)  # noqa: E731
    with np.errstate(all="ignore"):
        assert_same(jc.jit(fn)(x), fn(x))


def test_vander_refuses_as_numpy_does():
    with pytest.raises(ValueError, match="one-dimensional"):
        jc.jit(lambda v: np.vander(v))(np.ones((2, 2)))
    with pytest.raises(ValueError, match="negative dimensions"):
        jc.jit(lambda v: np.vander(v, -1))(np.ones(3))
    # n becomes static on demand
    assert_same(jc.jit(lambda v, n: np.vander(v, n))(np.ones(3), 2), np.vander(np.ones(3), 2))
    assert_same(jc.jit(lambda v, n: np.vander(v, n), static_argnames="n")(np.ones(3), 2),
                np.vander(np.ones(3), 2))


# -- a list operand of @ holding traced values -------------------------------------------------------
LIST_PRODUCTS = {
    "x @ [x[0, 0], 1.0]": lambda x: x @ [x[0, 0], 1.0],
    "[x[0, 0], 1.0] @ x": lambda x: [x[0, 0], 1.0] @ x,
    "x @ [[x[0, 0]], [2]]": lambda x: x @ [[x[0, 0]], [2]],
    "x[0] @ (x[1, 0], 1)": lambda x: x[0] @ (x[1, 0], 1),
    "np.matmul(x, [x[0, 1], 3])": lambda x: np.matmul(x, [x[0, 1], 3]),
    "f32 @ [x[0, 0], 1]": lambda x: x.astype(np.float32) @ [x[0, 0], 1],
    "f32 @ [1, 2]": lambda x: x.astype(np.float32) @ [1, 2],
}


@pytest.mark.parametrize("name", list(LIST_PRODUCTS))
def test_list_operand_of_matmul_is_read_as_numpy_reads_it(name):
    fn = LIST_PRODUCTS[name]
    x = np.array([[1.5, -2.0], [3.0, 0.25]])
    assert_same(jc.jit(fn)(x), fn(x))


def test_list_operand_of_matmul_with_a_wrong_length_raises_like_numpy():
    x = np.ones((2, 2))
    with pytest.raises(ValueError):
        x @ [x[0, 0], 1.0, 2.0]
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        jc.jit(lambda v: v @ [v[0, 0], 1.0, 2.0])(x)


# -- np.clip of an integer array to Python int arguments past its range ------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32])
def test_clip_to_python_int_arguments_past_the_range_as_numpy(dtype):
    """The bounds are arguments of the jitted function (traced Python ints): NumPy 2 raises
    OverflowError for one past the range on the side where it would change the values."""
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, 1, 5, info.max], dtype)
    below, above = info.min - 1, info.max + 1
    clip = jc.jit(lambda v, lo, hi: np.clip(v, lo, hi))
    cases = [(above, above + 1000), (below - 1000, below), (above, 2 * above), (below, 3),
             (0, above), (below, above), (2, 3), (-1000 if info.min else 0, 1000)]
    for lo, hi in cases:
        try:
            want = np.clip(x, lo, hi)
        except OverflowError:
            with pytest.raises(OverflowError, match="out of bounds"):
                clip(x, lo, hi)
        else:
            assert_same(clip(x, lo, hi), want)


def test_clip_int8_to_1000_2000_raises_overflow_error():
    x = np.array([1, 2, -3], np.int8)
    with pytest.raises(OverflowError):
        np.clip(x, 1000, 2000)
    with pytest.raises(OverflowError):
        jc.jit(lambda v, lo, hi: np.clip(v, lo, hi))(x, 1000, 2000)
    with pytest.raises(OverflowError):
        jc.jit(lambda v: v.clip(1000, 2000))(x)



def test_a_0d_clip_with_its_bounds_dropped_is_a_numpy_scalar():
    """Found by fuzzing (session 30): a bound past the range on the side that changes nothing is
    dropped (uint16 to -2); the copy left of a 0-d operand was a 0-d array, NumPy's a scalar."""
    x = np.array(7, np.uint16)
    for lo, hi in ((-2, None), (None, 70000), (-2, 70000)):
        got, want = jc.jit(lambda v, lo=lo, hi=hi: np.clip(v, lo, hi))(x), np.clip(x, lo, hi)
        assert type(got) is type(want) is np.uint16 and got == want

# -- np.fliplr, np.flipud, np.rot90 (static k) ------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(x=_arrays(min_side=0), k=st.integers(-5, 5),
       axes=st.sampled_from([(0, 1), (1, 0), (0, 2), (-1, 0), (2, 1), (0, -3)]))
def test_rot90_matches_numpy(x, k, axes):
    fn = lambda v: np.rot90(v, k, axes)  # noqa: E731
    try:
        want = fn(x)
    except ValueError as e:  # axes out of range or equal for this ndim: the same refusal
        with pytest.raises(ValueError, match=re.escape(str(e))):
            jc.jit(fn)(x)
    else:
        assert_same(jc.jit(fn)(x), want)


@pytest.mark.parametrize("fn", [np.fliplr, np.flipud], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(), (4,), (3, 4), (2, 3, 2), (0, 2)])
def test_fliplr_and_flipud_match_numpy(fn, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    try:
        want = fn(x)
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))) as info:
            jc.jit(fn)(x)
        assert isinstance(info.value, jc.JitcoreError)
    else:
        assert_same(jc.jit(fn)(x), want)


def test_flips_and_turns_are_views_as_in_numpy():
    """A write through the result reaches the array, as NumPy's views do."""
    def write_through(v):
        out = v.copy()
        np.rot90(out)[0, 0] = -1.0
        np.fliplr(out)[1, 0] = -2.0
        np.flipud(out)[0, 1] = -3.0
        return out

    x = np.arange(12.0).reshape(3, 4)
    assert_same(jc.jit(write_through)(x), write_through(x))


def test_rot90_with_a_traced_k_names_static_argnames(without_auto_static):
    with pytest.raises(jc.ConcretizationError, match="static_argnames"):
        jc.jit(lambda v, k: np.rot90(v, k))(np.ones((2, 2)), 1)


# -- np.geomspace with static endpoints -----------------------------------------------------------
@pytest.mark.parametrize("args", [(1, 1000, 4), (-1, -1000, 5), (2.0, 3.0, 7), (1j, 1000j, 3)])
def test_geomspace_of_static_endpoints_matches_numpy(args):
    import jitcore.numpy as jnp

    fn = lambda v: v * jnp.geomspace(*args)  # noqa: E731
    x = np.ones(args[2])
    assert_same(jc.jit(fn)(x), x * np.geomspace(*args))


def test_geomspace_of_traced_endpoints_is_refused_by_name():
    with pytest.raises(jc.UnsupportedError, match="numpy.geomspace"):
        jc.jit(lambda v: np.geomspace(v[0], 10.0, 3))(np.ones(2))


# -- np.ptp ----------------------------------------------------------------------------------------
@settings(max_examples=examples(40), deadline=None)
@given(x=_arrays(min_side=0), axis=st.sampled_from([None, 0, -1, (0, -1)]), keepdims=st.booleans())
def test_ptp_matches_numpy(x, axis, keepdims):
    fn = lambda v: np.ptp(v, axis=axis, keepdims=keepdims)  # noqa: E731
    with np.errstate(all="ignore"):
        try:
            want = fn(x)
        except (TypeError, ValueError) as e:  # bool (subtract), an empty reduction: the same refusal
            with pytest.raises(type(e)):
                jc.jit(fn)(x)
            return
        assert_same(jc.jit(fn)(x), want)


def test_ptp_of_int8_wraps_as_numpy():
    x = np.array([127, -128], np.int8)
    with np.errstate(all="ignore"):
        assert_same(jc.jit(np.ptp)(x), np.ptp(x))


# -- NumPy scalars where NumPy gives one (audit10b) -------------------------------------------------
# Each of these gave a 0-d array under jit where NumPy gives a NumPy scalar.
SCALAR_RESULTS = {
    "median": lambda x: np.median(x),
    "median of a 0-d": lambda x: np.median(x[1]),
    "percentile": lambda x: np.percentile(x, 30),
    "quantile of a 2-d": lambda x: np.quantile(x.reshape(2, 2), 0.5),
    "interp at one x": lambda x: np.interp(x[0], np.sort(x), x),
    "searchsorted of one value": lambda x: np.searchsorted(np.sort(x), 2.5),
    "digitize of one value": lambda x: np.digitize(x[0], np.array([0.0, 2.0])),
    "det": lambda x: np.linalg.det(x.reshape(2, 2)),
    "nan_to_num of a 0-d": lambda x: np.nan_to_num(x[2]),
    "copysign": lambda x: np.copysign(1.0, x[3]),
    "bitwise_count": lambda x: np.bitwise_count(x.astype(np.int64)[0]),
}


@pytest.mark.parametrize("name", SCALAR_RESULTS)
def test_results_numpy_gives_as_scalars_are_scalars(name):
    fn, x = SCALAR_RESULTS[name], np.array([3.0, 1.0, np.inf, -0.0])
    got, want = jc.jit(fn)(x), fn(x)
    assert type(got) is type(want) and got.dtype == want.dtype
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes() or np.isclose(got, want)


def test_keepdims_and_array_q_stay_arrays():
    fn = lambda x: (np.median(x, keepdims=True), np.quantile(x, [0.5]), np.median(x[0], keepdims=True),  # noqa: E731
                    np.nanmedian(x[0], keepdims=True))
    x = np.array([3.0, 1.0, 2.0])
    for got, want in zip(jc.jit(fn)(x), fn(x), strict=True):
        assert_same(got, want)


def test_parts_of_a_complex_scalar_are_scalars():
    fn = lambda z: (z.sum().real, np.imag(z[0]), np.real(z), z[1].imag)  # noqa: E731
    z = np.array([1 + 2j, -0.0 - 3j])
    for got, want in zip(jc.jit(fn)(z), fn(z), strict=True):
        assert_same(got, want)


# -- NumPy scalars through arguments, loops and branches (audit25) ----------------------------------
def _newton(x0):
    x, n = x0, 0
    while np.abs(x * x - 2.0) > 1e-12 and n < 50:
        x = x - (x * x - 2.0) / (2 * x)
        n += 1
    return x, n


def _positive_mean(x):
    return x[x > 0].mean() if (x > 0).any() else 0.0


def _first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    return -1


# Each gave a 0-d array where NumPy gives a NumPy scalar (or, for Python numbers, a number).
SCALAR_FLOWS = {
    "argument returned": (lambda s: s, (np.float32(1.5),)),
    "while carry": (_newton, (np.float64(1.0),)),
    "x if c else y": (_positive_mean, (np.array([-1.0, 2.0]),)),
    "early return in a traced if": (_first_negative, (np.array([1.0, -2.0, 3.0]),)),
}


@pytest.mark.parametrize("name", SCALAR_FLOWS)
def test_scalars_stay_scalars_through_control_flow(name):
    fn, args = SCALAR_FLOWS[name]
    got, want = jc.jit(fn)(*args), fn(*args)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert not isinstance(g, np.ndarray) and np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
        assert g == w


def test_a_zero_d_array_argument_stays_an_array():
    x = np.array(2.0)
    assert_same(jc.jit(lambda x: x)(x), x)
    assert_same(jc.jit(lambda x: x)(np.float64(2.0)), np.float64(2.0))


# NEP 50: a NumPy function of a Python number is a strong NumPy value (float32 * np.sqrt(12) is
# float64); Python's operators keep it weak (float32 * (12 * 2.0) is float32).
NAMED_CALLS = {
    "sqrt": lambda x, p: x * np.sqrt(p),
    "multiply": lambda x, p: x * np.multiply(p, 2),
    "clip": lambda x, p: x * np.clip(p, 0, 100),
    "operator": lambda x, p: x * (p * 2.0),
}


@pytest.mark.parametrize("name", NAMED_CALLS)
def test_numpy_functions_of_python_numbers_are_strong(name):
    fn = NAMED_CALLS[name]
    for p in (12, 12.5):
        assert_same(jc.jit(fn)(np.float32(2), p), fn(np.float32(2), p))


def test_masked_extremes_take_initial():
    fn = lambda x: (x[x > 0].max(initial=-np.inf), x[x > 5].min(initial=7.0))  # noqa: E731
    x = np.array([[1.0, -2.0], [3.0, 0.5]])
    for got, want in zip(jc.jit(fn)(x), fn(x), strict=True):
        assert_same(got, want)
    with pytest.raises(OverflowError, match="infinity"):
        jc.jit(lambda x: np.max(x, initial=-np.inf))(np.arange(3))


def test_unravel_index_of_traced_flat_indices():
    def fn(a):
        return np.unravel_index(np.argmax(a), a.shape), np.unravel_index(np.arange(5), a.shape, order="F")

    a = np.array([[1.0, 5.0, 2.0], [5.0, 9.0, np.nan]])
    got, want = jc.jit(fn)(a), fn(a)
    for g, w in zip(got[0] + got[1], want[0] + want[1], strict=True):
        assert_same(g, w)
    with pytest.raises(ValueError, match="index 6 is out of bounds for array with size 6"):
        jc.jit(lambda i: np.unravel_index(i, (2, 3)))(np.array([1, 6]))
