"""NumPy's in-place semantics under jit: slice assignment, augmented assignment, ``out=``,
writes through views, and the caller's arrays updated after the call; JAX's ``x.at[...]``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples
from tests.layouts import WRITABLE_LAYOUTS, relayout
from tests.oracle import assert_matches
from tests.strategies import arrays


def run_both(fn, *args, layout="C"):
    """Run ``fn`` in NumPy and under jit on separate copies (jitcore's in ``layout``, one of
    ``WRITABLE_LAYOUTS``); return both results and arguments."""
    plain = [a.copy() for a in args]
    jitted = [relayout(a, layout) for a in args]
    return fn(*plain), jc.jit(fn)(*jitted), plain, jitted


def assert_same(fn, *args, layout="C"):
    expected, got, plain, jitted = run_both(fn, *args, layout=layout)
    for p, j in zip(plain, jitted, strict=True):
        np.testing.assert_array_equal(j, p)
        assert j.dtype == p.dtype
    if expected is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, expected)
        assert np.asarray(got).dtype == np.asarray(expected).dtype


def test_write_through_a_view_changes_the_argument():
    def step(U):
        u = U[1:-1, 1:-1]
        u += 1

    for layout in WRITABLE_LAYOUTS:
        assert_same(step, np.arange(20.0).reshape(4, 5), layout=layout)


def test_stencil_update_reads_the_old_values():
    def smooth(x):
        x[1:-1] = (x[:-2] + x[2:]) / 2
        return x.sum()

    for layout in WRITABLE_LAYOUTS:
        assert_same(smooth, np.arange(10.0) ** 2, layout=layout)


def test_augmented_assignment_and_out():
    def f(a, b, c):
        a += b
        a *= 2
        np.add(a, b, out=c)
        np.multiply(c, 3, out=c)
        return a - c

    for layout in WRITABLE_LAYOUTS:
        assert_same(f, np.ones(5), np.arange(5.0), np.zeros(5), layout=layout)


def test_reshape_and_transpose_are_views():
    def f(x):
        y = x.reshape(4, 5)
        y[0] = -1
        x.reshape(5, 4).T[1] = 7
        return x

    assert_same(f, np.arange(20.0))


def test_a_view_taken_before_a_write_sees_it():
    def f(x):
        v = x[1:]
        x[0:3] = 100
        return v * 1

    assert_same(f, np.arange(6.0))


@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_slice_assignment_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    x = data.draw(arrays(np.int32, shape, st.integers(-100, 100), layout=False))
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    value = data.draw(st.integers(-5, 5))

    def f(x):
        x[key] = value
        x[key] += 3

    assert_same(f, x, layout=data.draw(st.sampled_from(WRITABLE_LAYOUTS)))


def test_setitem_casts_unsafely_but_augmented_assignment_is_same_kind():
    def setitem(x):
        x[0] = 2.7

    assert_same(setitem, np.arange(3))

    def iadd(x):
        x += 1.5

    with pytest.raises(jc.JitTypeError, match="same_kind"):
        jc.jit(iadd)(np.arange(3))


def test_returns_none_and_the_caller_sees_the_update():
    x = np.zeros(4)

    @jc.jit
    def fill(a):
        a[...] = 3

    assert fill(x) is None
    np.testing.assert_array_equal(x, 3)
    x[:] = 0
    assert fill(x) is None  # the cached call writes back too
    np.testing.assert_array_equal(x, 3)
    assert fill.cache_info().hits == 1


def _unaligned_float64(n):
    """n float64 numbers at an odd address (jitcore passes such arguments as aligned copies)."""
    x = np.frombuffer(bytearray(8 * n + 1), dtype=np.uint8)[1:].view(np.float64)
    assert not x.flags.aligned
    return x


def test_writes_to_an_unaligned_argument_reach_the_caller():
    @jc.jit
    def f(a, s):
        a += s
        a[0] = -1
        return a * 2

    for x in (_unaligned_float64(10)[::2], _unaligned_float64(6).reshape(2, 3).T):
        x[...] = np.arange(x.size).reshape(x.shape)
        expected = x.copy()
        want = f.fun(expected, 1.5)
        for _ in range(2):  # the first call compiles, the second is cached
            x[...] = np.arange(x.size).reshape(x.shape)
            got = f(x, 1.5)
            np.testing.assert_array_equal(x, expected)
            np.testing.assert_array_equal(got, want)


def test_overlapping_arguments_written_in_place_are_refused():
    base = np.arange(10.0)

    @jc.jit
    def f(a, b):
        a += b

    with pytest.raises(jc.JitTypeError, match="shares memory"):
        f(base[:5], base[3:8])


def test_out_into_a_closed_over_array_writes_it_as_numpy_does():
    # (refused before session 47; a closed-over array is now an input where it is read)
    buffer = np.zeros(3)
    f = jc.jit(lambda x: np.add(x, 1, out=buffer))
    for k in range(1, 3):
        result = f(np.full(3, float(k)))
        assert result is buffer
        np.testing.assert_array_equal(buffer, np.full(3, k + 1.0))


def test_functional_updates_with_at():
    x = np.arange(6.0)
    s, a, g, m = jc.jit(lambda v: (v.at[1:3].set(0.5), v.at[::2].add(10), v.at[0].get(),
                                   v.at[-2:].max(4.5)))(x)
    np.testing.assert_array_equal(s, [0, 0.5, 0.5, 3, 4, 5])
    np.testing.assert_array_equal(a, [10, 1, 12, 3, 14, 5])
    assert g == 0
    np.testing.assert_array_equal(m, [0, 1, 2, 3, 4.5, 5])
    np.testing.assert_array_equal(x, np.arange(6.0))  # .at never writes in place


def test_interior_update_compiles_to_one_kernel_over_the_interior():
    def step(U):
        U[1:-1, 1:-1] += 1

    text = jc.jit(step).lower(np.ones((4, 5))).as_text("optimized")
    assert text.count('"kernel.generic"') == 1
    assert "copy_inputs = [0]" in text and "domain = [2, 3]" in text


def test_in_place_writes_to_an_identity_ufunc_result_leave_its_operand_alone():
    # np.positive(x), x ** 1, np.conj(real x), np.floor(int x) are new arrays in NumPy, not x.
    def f(x):
        y = np.positive(x)
        y += 1
        z = x ** 1
        z += 10
        w = np.conj(x)
        w -= 100
        return x, y, z, w

    for x in (np.arange(3.0), np.arange(3), np.arange(3.0) + 0j):
        for got, want in zip(jc.jit(f)(x.copy()), f(x.copy()), strict=True):
            assert_matches(got, want)
    g = jc.jit(lambda x: (x, np.floor(x).__iadd__(7)))
    for got, want in zip(g(np.arange(4)), (np.arange(4), np.arange(4) + 7), strict=True):
        assert_matches(got, want)
