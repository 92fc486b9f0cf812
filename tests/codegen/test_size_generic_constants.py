"""Sizes as run-time values in kernel bodies and index maps (issue 10): one compile per form.

A mean divides by ``n``, a float constant of its kernel's body (a variance, a standard deviation
and ``np.average`` too; a whole 2-d array's mean by ``rows * columns``). A roll, a
concatenation, a pad, a gradient's ends and a convolution run their loop in segments whose ends
are ``n``, ``n + 2``, ``n - 1``, and read a second piece at ``d0 - n``. Those constants are
taken from the run-time extents (``kernel_body.sized_bound`` for a float divisor,
``Schedule._segmented_loop`` for segment ends, ``KernelBody.element_pointer`` for a negative
offset, ``loops.product_of`` for a product of two extents), so three sizes are one compile,
each agreeing with NumPy and giving the very bits of the same function compiled for its size
alone (``host.SIZE_GENERIC = False``). A literal that merely equals a size at the first call is
a guess: the next size compiles again, and is right.
"""

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen import host, loops

SIZES = (1371, 5000, 7919)  # above the small-size paths; odd, even, prime
SHAPES = ((20, 30), (45, 31), (79, 100))  # rows and columns both change


def data(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def fixed_size(fn, x):
    """``fn(x)`` compiled for this size alone (extents constants)."""
    host.SIZE_GENERIC = False
    try:
        return jc.jit(fn, cache=False)(x)
    finally:
        host.SIZE_GENERIC = True


def check_one_compile(fn, arrays, rtol=1e-12, atol=1e-12):
    jitted = jc.jit(fn, cache=False)
    for x in arrays:
        got = jitted(x)
        np.testing.assert_allclose(got, fn(x), rtol=rtol, atol=atol)
        np.testing.assert_array_equal(got, fixed_size(fn, x))
    info = jitted.cache_info()
    assert (info.traces, info.compiles, info.reused) == (len(arrays), 1, len(arrays) - 1)


DIVISORS = {
    "mean": lambda x: x.mean(),
    "var": lambda x: x.var(),
    "zscore": lambda x: (x - x.mean()) / x.std(),
    "sample-std": lambda x: (x - x.mean()) / x.std(ddof=1),
    "average": lambda x: np.average(x),
    "scaled": lambda x: np.cumprod(1 + x / x.size),
}


@pytest.mark.parametrize("name", DIVISORS)
def test_a_float_divisor_equal_to_the_length_is_its_run_time_value(name):
    check_one_compile(DIVISORS[name], [data(n) for n in SIZES])


def test_a_float32_mean_and_variance_divide_by_the_run_time_length():
    for fn in (lambda x: x.mean(), lambda x: x - x.var()):
        check_one_compile(fn, [data(n, np.float32) for n in SIZES], rtol=1e-5, atol=1e-5)


PRODUCTS = {
    "mean": lambda a: a.mean(),
    "var": lambda a: a.var(),
    "centred": lambda a: a - a.mean(),
    "outer": lambda a: np.outer(a[0], a[0]).mean(),
}


@pytest.mark.parametrize("name", PRODUCTS)
def test_a_divisor_that_is_a_product_of_two_extents_is_computed_from_them(name):
    check_one_compile(PRODUCTS[name], [data(shape) for shape in SHAPES])


SEGMENTED = {
    "roll": lambda x: np.roll(x, 3) + x,
    "roll-back": lambda x: np.roll(x, -7),
    "gradient": lambda x: np.gradient(x),
    "concatenate": lambda x: np.concatenate([x, x * 2]),
    "pad": lambda x: np.pad(x, 2),
    "convolve": lambda x: np.convolve(x, np.ones(3) / 3, "same"),
    "convolve-5": lambda x: np.convolve(x, np.arange(1.0, 6.0), "same"),
    "hstack": lambda x: np.hstack([x[:1], x, x[-1:]]),
    "ediff1d": lambda x: np.ediff1d(x, to_begin=0.0),
}


@pytest.mark.parametrize("name", SEGMENTED)
def test_segment_ends_and_negative_offsets_are_run_time_extents(name):
    check_one_compile(SEGMENTED[name], [data(n) for n in SIZES])


def test_a_roll_along_both_axes_of_a_matrix_compiles_once():
    fn = lambda x: np.roll(x, (1, 2), axis=(0, 1))  # noqa: E731
    check_one_compile(fn, [data(shape, np.float32) for shape in SHAPES])


def compiles_after_each(fn, arrays):
    """Call ``fn`` jitted on each array, checking each result against NumPy's; the compiles
    after each call."""
    jitted = jc.jit(fn, cache=False)
    after = []
    for x in arrays:
        np.testing.assert_allclose(jitted(x), fn(x), rtol=1e-12, atol=1e-12)
        after.append(jitted.cache_info().compiles)
    return after


def test_a_literal_divisor_equal_to_the_first_length_is_a_guess_the_next_length_corrects():
    # At n = 1371 the literal is taken for n; at 5000 it stays the constant 1371.0.
    fn = lambda x: x.sum() / 1371.0 + x  # noqa: E731
    assert compiles_after_each(fn, [data(n) for n in (1371, 5000, 7919)]) == [1, 2, 2]


def test_a_literal_product_equal_to_the_first_shape_is_a_guess_the_next_shape_corrects():
    fn = lambda a: a - a.sum() / 600.0  # noqa: E731  (600 = 20 * 30 at the first shape only)
    assert compiles_after_each(fn, [data(shape) for shape in ((20, 30), (40, 30), (50, 30))]) == [1, 2, 2]


def test_a_literal_segment_end_equal_to_the_first_length_is_a_guess_the_next_length_corrects():
    # x[:300] is all of x at n = 300, its pieces' ends n and 2 * n; at 400 they are constants.
    fn = lambda x: np.concatenate([x[:300], x[:300] * 2])  # noqa: E731
    assert compiles_after_each(fn, [data(n) for n in (300, 400, 500)]) == [1, 2, 2]
    pad = lambda x: np.pad(x[:1000], 2)  # noqa: E731
    assert compiles_after_each(pad, [data(n) for n in (1000, 1371, 1500)]) == [1, 2, 2]


def test_product_of_finds_two_symbols_above_near():
    assert loops.product_of(600, [20, 30]) == (20, 30)
    assert loops.product_of(400, [20, 30]) == (20, 20)
    assert loops.product_of(30, [3, 10]) is None  # 3 is no symbol a form is derived from
    assert loops.product_of(601, [20, 30]) is None
