"""A Python int argument is traced as any int64 (session 47): one compile serves every int,
unless the trace needs the int's bounds (a Python int meeting an array of a narrower integer
dtype, where NumPy 2 raises OverflowError for an int that does not fit): then the function
keys its ints by their classes (``api.int_range``) and traces again. Before, every function
compiled once per class of magnitude (up to 11: 3, 300, 70000, 2**40 were four compiles)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import native_call

INTS = (0, 3, -5, 127, 128, 255, 256, 300, 40000, 70000, -40000, 2 ** 31, 2 ** 40, -(2 ** 40),
        2 ** 62, 2 ** 63 - 1, -(2 ** 63))


def scale(x, k):
    return x * k + k


def shift(x, k):
    return x + k


def clipped(x, k):
    return np.clip(x, 0, k)


def outcome(fn, *args):
    try:
        return fn(*args)
    except OverflowError as e:
        return type(e)


def same(got, want):
    if isinstance(want, type):
        assert isinstance(got, type) and issubclass(got, OverflowError), (got, want)
        return
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex128])
def test_one_compile_for_every_int_where_the_bounds_do_not_matter(dtype):
    x = np.arange(4).astype(dtype)
    jf = jc.jit(scale, cache=False)
    with np.errstate(over="ignore"):
        for k in INTS:
            same(outcome(jf, x, k), outcome(scale, x, k))
    assert jf.cache_info().traces == 1


@pytest.mark.parametrize("fn", [shift, clipped])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.uint64])
def test_narrower_integer_arrays_raise_as_numpy_does(fn, dtype):
    x = np.arange(4).astype(dtype)
    jf = jc.jit(fn, cache=False)
    with np.errstate(over="ignore"):
        for k in INTS:
            same(outcome(jf, x, k), outcome(fn, x, k))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float32]),
       st.lists(st.integers(-(2 ** 63), 2 ** 63 - 1), min_size=1, max_size=6))
def test_any_sequence_of_ints_gives_numpys_results(dtype, ks):
    x = np.arange(3).astype(dtype)
    jf = jc.jit(shift, cache=False)
    with np.errstate(over="ignore"):
        for k in ks:
            same(outcome(jf, x, k), outcome(shift, x, k))


def test_ints_of_every_size_take_the_native_call():
    if not native_call.AVAILABLE:
        pytest.skip("no native call on this Python")
    x = np.ones(3)
    jf = jc.jit(scale, cache=False)
    jf(x, 1)
    jf(x, 1)
    before = jf._native_hits.value
    for k in INTS:
        np.testing.assert_array_equal(jf(x, k), scale(x, k))
    assert jf._native_hits.value == before + len(INTS)


G = np.ones(3)


def with_global(x, k):
    return G + k + x


def test_a_global_that_becomes_a_narrow_integer_array_keys_by_bounds():
    global G
    jf = jc.jit(with_global, cache=False)
    x = np.zeros(3, np.int8)
    for k in (1, 300):
        same(outcome(jf, x, k), outcome(with_global, x, k))
    G = np.ones(3, np.int8)
    try:
        for k in (1, 300, -3, 127, 128):
            same(outcome(jf, x, k), outcome(with_global, x, k))
    finally:
        G = np.ones(3)


def seeded(seed, n):
    return np.random.default_rng(seed).normal(size=n)


def test_seeds_of_every_size_share_one_compile():
    jf = jc.jit(seeded, static_argnums=1, cache=False)
    for seed in (1, 300, 70000, 2 ** 33, 2 ** 62):
        np.testing.assert_array_equal(jf(seed, 4), seeded(seed, 4))
    assert jf.cache_info().traces == 1
