"""Issue 12, item 6: the everyday NumPy API, written as the user code that failed, under jit
against NumPy (hypothesis draws the data). The coverage table (tests/coverage) has a row for
each function too, over every dtype family and the edge batch; here: the programs, traced
masks, the jnp creation names in loops, and the documented differences."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.numpy import manipulation
from tests.budget import examples

# Values with NaN, +-inf and -0.0 among ordinary ones.
FLOATS = st.one_of(st.floats(-1e3, 1e3), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5, 2.5]))
FINITE = st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=64)


def vectors(elements=FLOATS, min_size=1, max_size=12, dtype=np.float64):
    return hnp.arrays(dtype, st.integers(min_size, max_size), elements=elements)


def matrices(elements=FLOATS, dtype=np.float64):
    return hnp.arrays(dtype, hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=5),
                      elements=elements)


def same(fn, *args, rtol=0.0, atol=0.0):
    """``jit(fn)(*args)`` against ``fn(*args)`` on NumPy: values, dtypes and shapes."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = fn(*args)
        got = jc.jit(fn)(*args)
    for g, w in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want))):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


# -- jitcore.numpy's names, under jit and outside ----------------------------------------------

def test_jnp_names_outside_jit_are_numpy():
    assert isinstance(jnp.zeros(3), np.ndarray) and jnp.zeros(3).dtype == np.float64
    assert jnp.arange(4).tolist() == [0, 1, 2, 3]
    assert np.array_equal(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5))
    assert np.array_equal(jnp.eye(3, k=1), np.eye(3, k=1))
    assert jnp.pi == np.pi and jnp.e == np.e and np.isinf(jnp.inf) and np.isnan(jnp.nan)
    assert jnp.newaxis is None and jnp.linalg.matmul is jnp.matmul
    assert jnp.asarray([1, 2]).tolist() == [1, 2] and jnp.array(3, ndmin=2).shape == (1, 1)
    x = np.arange(3.0)
    assert jnp.asarray(x) is x  # no copy, as np.asarray


@settings(max_examples=examples(15, ci=8), deadline=None)
@given(vectors(FINITE))
def test_zeros_written_in_a_loop(x):
    """``out = jnp.zeros(n); out[i] = ...`` in a Python loop and in a compiled fori_loop."""
    def unrolled(x):
        out = jnp.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = x[i] * 2 + i
        return out

    def compiled(x):
        def body(i, out):
            out[i] = x[i] * 2 + i
            return out
        return jc.fori_loop(0, x.shape[0], body, jnp.zeros(x.shape[0]))

    same(unrolled, x)
    same(compiled, x)


@settings(max_examples=examples(15, ci=8), deadline=None)
@given(vectors(FINITE, min_size=2))
def test_array_of_traced_values_and_traced_linspace(x):
    same(lambda x: jnp.array([x.sum(), x[0], 1.0]), x, rtol=1e-12)  # sum order
    same(lambda x: jnp.array([[x[0], x[1]], [x[1], x[0]]]), x)
    same(lambda x: jnp.asarray(x) + jnp.full(x.shape, 2.0), x)
    same(lambda x: jnp.array([1.5, 2.0], ndmin=2) + jnp.asarray([0.5, x[0]]), x)
    same(lambda x: jnp.linspace(x[0], x[1], 7), x)
    same(lambda x: jnp.linspace(x[0], x[1], 4, endpoint=False, retstep=True), x)


# -- float helpers ------------------------------------------------------------------------------

@settings(max_examples=examples(25, ci=13), deadline=None)
@given(vectors(), st.integers(-3, 4))
def test_round_half_even_with_decimals(x, decimals):
    same(lambda x: np.round(x, decimals), x)
    same(lambda x: np.around(x.astype(np.float32), decimals), x)
    ints = np.nan_to_num(x, posinf=0, neginf=0).astype(np.int64)
    same(lambda i: np.round(i, decimals), ints)


def test_round_ties_go_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.675, 1250.0, 1350.0])
    same(lambda x: (np.round(x), np.round(x, 2), np.round(x, -2)), x)
    same(lambda i: np.round(i, -1), np.array([15, 25, -15, 149], np.int32))


@settings(max_examples=examples(25, ci=13), deadline=None)
@given(vectors(), vectors())
def test_sign_and_angle_helpers(x, y):
    same(lambda x: (np.signbit(x), np.deg2rad(x), np.rad2deg(x), np.radians(x), np.degrees(x)), x)
    y = np.resize(y, x.shape)
    same(lambda x, y: np.copysign(x, y), x, y)


def test_signbit_of_negative_zero_and_negative_nan():
    # The sign bit itself (array.signbit, a bit cast in the kernel): -0.0 and -nan count.
    for dtype in (np.float16, np.float32, np.float64):
        x = np.array([-0.0, 0.0, -1.0, np.inf, -np.inf, np.nan, -np.nan], dtype)
        same(np.signbit, x)
        assert jc.jit(np.signbit)(x[-1:])[0] and jc.jit(np.signbit)(x[-1]) is np.True_
        got = jc.jit(np.copysign)(np.ones_like(x), x)
        assert np.signbit(got).tolist() == np.signbit(x).tolist()  # a NaN's sign is copied too
        assert np.signbit(jc.jit(np.copysign)(x[5:6], -1.0)).tolist() == [True]


@settings(max_examples=examples(25, ci=13), deadline=None)
@given(vectors(), st.sampled_from([0.0, -5.0]), st.sampled_from([None, 9.0]))
def test_nan_to_num(x, nan, posinf):
    same(lambda x: np.nan_to_num(x, nan=nan, posinf=posinf), x)
    same(lambda x: np.nan_to_num(x.astype(np.float32) + 1j * x[::-1].astype(np.float32)), x)


@settings(max_examples=examples(25, ci=13), deadline=None)
@given(vectors(), vectors(), st.booleans())
def test_isclose_allclose(x, y, equal_nan):
    y = np.resize(y, x.shape)
    same(lambda x, y: np.isclose(x, y, rtol=1e-3, equal_nan=equal_nan), x, y)
    same(lambda x: np.isclose(x, 1), x)
    got = jc.jit(lambda x, y: np.allclose(x, y, equal_nan=equal_nan))(x, y)
    assert type(got) is bool and got == np.allclose(x, y, equal_nan=equal_nan)


# -- reductions ---------------------------------------------------------------------------------

@settings(max_examples=examples(25, ci=13), deadline=None)
@given(matrices(), st.sampled_from([None, 0, 1, -1, (0, 1)]), st.booleans())
def test_nan_reductions(x, axis, keepdims):
    for f in (np.nansum, np.nanmean, np.nanmax, np.nanmin, np.count_nonzero):
        same(lambda x, f=f: f(x, axis=axis, keepdims=keepdims), x, rtol=1e-9, atol=1e-9)
    for f in (np.nanvar, np.nanstd):
        same(lambda x, f=f: f(x, axis=axis, keepdims=keepdims, ddof=1), x, rtol=1e-6, atol=1e-6)


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(matrices(FINITE), st.sampled_from([None, 0, 1]))
def test_nanargmax_nanargmin(x, axis):
    if min(x.shape) > 1:
        x[0, 0] = np.nan  # one NaN, never a whole slice of them
    same(lambda x: (np.nanargmax(x, axis), np.nanargmin(x, axis)), x)


def test_nanargmax_of_an_all_nan_slice_raises_numpys_error():
    """NumPy raises ValueError; jitcore raises JitValueError (a ValueError) from the call."""
    x = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        np.nanargmax(x, axis=1)
    with pytest.raises(jc.JitValueError, match="All-NaN slice encountered"):
        jc.jit(lambda x: np.nanargmax(x, axis=1))(x)


@settings(max_examples=examples(25, ci=13), deadline=None)
@given(matrices(FINITE), st.data())
def test_traced_where_and_initial(x, data):
    mask = data.draw(hnp.arrays(bool, x.shape))
    axis = data.draw(st.sampled_from([None, 0, 1, (0, 1)]))
    for f in (np.sum, np.prod, np.any, np.all, np.mean, np.nansum):
        same(lambda x, m, f=f: f(x, axis=axis, where=m), x, mask, rtol=1e-9, atol=1e-9)
    for f in (np.max, np.min, np.nanmax):
        same(lambda x, m, f=f: f(x, axis=axis, where=m, initial=-7.0), x, mask)
    same(lambda x: np.sum(x, axis=axis, initial=5), x, rtol=1e-12, atol=1e-9)
    same(lambda x: np.max(x[:0], axis=0, initial=-2.0), x)


def test_where_without_initial_for_max_is_numpys_error():
    with pytest.raises(ValueError, match="does not have an identity"):
        jc.jit(lambda x: np.max(x, where=x > 0))(np.arange(3.0))


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(matrices(FINITE), st.sampled_from([None, 0, 1]), st.booleans())
def test_average(x, axis, returned):
    w = np.abs(x) + 0.5
    same(lambda x: np.average(x, axis=axis, returned=returned), x, rtol=1e-12)
    same(lambda x, w: np.average(x, axis=axis, weights=w, returned=returned), x, w, rtol=1e-12)
    if axis is not None:
        w1 = w[0] if axis == 1 else w[:, 0]
        same(lambda x, w: np.average(x, axis=axis, weights=w), x, w1, rtol=1e-12)


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(hnp.arrays(np.int64, st.integers(0, 30), elements=st.integers(0, 9)), st.booleans())
def test_bincount_with_static_minlength(x, weighted):
    if weighted:
        same(lambda x, w: np.bincount(x, w, minlength=10), x, np.linspace(-1, 1, x.size))
    else:
        same(lambda x: np.bincount(x, minlength=10), x)


def test_bincount_needs_minlength_and_checks_values_after_the_call():
    x = np.array([0, 3, 3, 7])
    with pytest.raises(jc.ConcretizationError, match="minlength"):
        jc.jit(np.bincount)(x)
    with pytest.raises(IndexError):
        jc.jit(lambda x: np.bincount(x, minlength=5))(x)  # 7 >= 5
    with pytest.raises(ValueError, match="no negative elements"):
        jc.jit(lambda x: np.bincount(x, minlength=9))(x - 1)  # -1: NumPy's ValueError


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(vectors(st.one_of(st.floats(-5, 5), st.sampled_from([np.nan, np.inf, -4.0, 4.0]))), st.booleans())
def test_histogram_with_static_bins(x, density):
    same(lambda x: np.histogram(x, 8, (-4, 4), density=density), x, rtol=1e-12)
    same(lambda x: np.histogram(x, [-3, -1, 0, 0.5, 3]), x)
    same(lambda x, w: np.histogram(x, 5, (-5, 5), weights=w), x, np.abs(x) % 1, rtol=1e-12)


def test_histogram_right_edge():
    x = np.array([0.0, 1.0, 2.0, 3.0, 3.0, -0.1, 3.1])
    same(lambda x: np.histogram(x, 3, (0, 3)), x)  # 3.0 in the last bin, -0.1 and 3.1 left out


@pytest.mark.parametrize("x", [
    np.array([0.3, -1.0, 2.5, 2.5, 0.1]),  # the max in the last bin
    np.array([2.0, 2.0]),  # min == max: widened by 0.5 each way
    np.zeros(0),  # no data: [0, 1]
    np.array([-3, 5, 5, 0], np.int8),  # integers: float64 edges
    np.array([0.1, 0.7, -2.0], np.float32),  # float32 edges, computed in float32
    np.array([True, False, True]),  # booleans: as uint8
])
def test_histogram_without_range_takes_the_data_range(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's warning for booleans
        same(lambda x: np.histogram(x, 4), x)
        same(lambda x: np.histogram(x, 3, weights=np.arange(x.size) * 0.5), x, rtol=1e-12)
        if x.size:
            same(lambda x: np.histogram(x, 2, density=True), x, rtol=1e-12)


# -- arrays -------------------------------------------------------------------------------------

@settings(max_examples=examples(20, ci=10), deadline=None)
@given(matrices(FINITE), st.integers(-3, 3))
def test_triangles_copy_atleast_ediff1d(x, k):
    same(lambda x: (np.triu(x, k), np.tril(x, k), np.copy(x)), x)
    same(lambda x: (np.atleast_1d(x[0, 0]), np.atleast_2d(x[0]), np.atleast_3d(x)), x)
    same(lambda x: np.ediff1d(x, to_begin=[-1.0], to_end=2.0), x)


def test_copy_is_not_a_view():
    def f(x):
        y = np.copy(x)
        y[0] = 100.0
        return x, y
    same(f, np.arange(3.0))


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(vectors(FINITE, max_size=5), vectors(FINITE, max_size=4), st.sampled_from(["xy", "ij"]),
       st.booleans())
def test_meshgrid(a, b, indexing, sparse):
    same(lambda a, b: np.meshgrid(a, b, indexing=indexing, sparse=sparse), a, b)


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.just(3)), elements=FINITE),
       hnp.arrays(np.float64, st.just(3), elements=FINITE))
def test_cross_products(a, b):
    same(lambda a, b: np.cross(a, b), a, b, rtol=1e-12, atol=1e-9)
    same(lambda a, b: np.cross(a.T, b, axisa=0, axisc=0), a, b, rtol=1e-12, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if manipulation._CROSS_TAKES_2D:  # NumPy before 2.5: deprecated, still computed
            same(lambda a, b: np.cross(a[:, :2], b[:2]), a, b, rtol=1e-12, atol=1e-9)
        else:  # refused since NumPy 2.5: the same ValueError
            def planar(a, b):
                return np.cross(a[:, :2], b[:2])

            for fn in (planar, jc.jit(planar)):
                with pytest.raises(ValueError, match="3-dimensional vectors"):
                    fn(a, b)


@settings(max_examples=examples(20, ci=10), deadline=None)
@given(vectors(FINITE, max_size=20), vectors(FINITE, max_size=6), st.sampled_from(["full", "same", "valid"]))
def test_convolve_correlate(a, v, mode):
    same(lambda a, v: np.convolve(a, v, mode), a, v, rtol=1e-9, atol=1e-9)
    same(lambda a, v: np.correlate(a, v, mode), a, v, rtol=1e-9, atol=1e-9)
    same(lambda a, v: np.correlate(a + 1j * a[::-1], v - 2j, mode), a, v, rtol=1e-9, atol=1e-9)


def test_convolve_correlate_special_values_dtypes_and_long_windows():
    """Terms past a's ends are left out (an inf in v gives no nan there), integers wrap, bools
    or their ands, a window longer than a swaps roles, and a window longer than the shifted
    sum's (``manipulation.SHIFTED_TAPS``) takes the gathered form."""
    def program(a, v, ai, vi, ab, vb, long_v):
        out = []
        for mode in ("full", "same", "valid"):
            out += [np.convolve(a, v, mode), np.correlate(a, v, mode), np.convolve(v, a, mode),
                    np.convolve(ai, vi, mode), np.correlate(ab, vb, mode), np.convolve(a, long_v, mode)]
        return tuple(out)
    a = np.array([1.5, -0.0, np.nan, 2.0, -3.0, 0.25, 7.0, -1.0, 4.0])
    v = np.array([np.inf, 0.5, -2.0, 0.0])
    ai = np.array([2**62, -(2**62), 3, -7, 11], np.int64)
    vi = np.array([3, -1, 2], np.int64)
    ab, vb = np.array([True, False, False, True, False]), np.array([False, True])
    long_v = np.linspace(-1.0, 1.0, 70)
    with np.errstate(all="ignore"):
        same(program, a, v, ai, vi, ab, vb, long_v, rtol=1e-12, atol=1e-12)


@settings(max_examples=examples(15, ci=8), deadline=None)
@given(hnp.arrays(np.float64, st.just((3, 4, 5)), elements=FINITE), st.integers(-2, 2))
def test_trace(x, offset):
    same(lambda x: (np.trace(x, offset), np.trace(x, offset, 1, 2)), x, rtol=1e-12, atol=1e-9)


# -- small programs -----------------------------------------------------------------------------

def test_normalised_histogram_program():
    def program(samples):
        clean = np.nan_to_num(samples, nan=0.0)
        hist, edges = np.histogram(clean, 10, (-3.0, 3.0), density=True)
        centres = (edges[:-1] + edges[1:]) / 2
        return hist, np.average(centres, weights=hist + 1e-12), np.round(hist.sum() * 6 / 10, 6)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(500)
    x[::50] = np.nan
    same(program, x, rtol=1e-9)


def test_cross_product_geometry_program():
    def normals(tri):
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        length = np.sqrt(np.nansum(n * n, axis=-1, keepdims=True))
        return n / np.where(length == 0, 1.0, length), np.allclose(length, 0.0)
    tri = np.random.default_rng(1).standard_normal((20, 3, 3))
    same(normals, tri, rtol=1e-12, atol=1e-12)


def test_moving_average_and_filter_program():
    def smooth(signal):
        kernel = jnp.ones(5) / 5
        padded = np.concatenate([np.zeros(2), signal, np.zeros(2)])
        return np.convolve(padded, kernel, "valid"), np.isclose(np.convolve(signal, kernel, "same"),
                                                                signal, atol=0.5)
    same(smooth, np.sin(np.linspace(0, 6, 40)), rtol=1e-12, atol=1e-12)


def test_round_is_a_method_too():
    def f(x):
        return x.round(2), x.round(), np.trace(x.reshape(3, 4), 1)

    x = np.linspace(-3.14159, 7.5, 12)
    for got, want in zip(jc.jit(f)(x), f(x)):
        np.testing.assert_array_equal(got, want)
