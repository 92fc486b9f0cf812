"""Gathers and selections whose bounds come from a lane's length: one compile for every length.

A clip to ``[0, n - 1]`` (``np.take(..., mode="clip")``, ``x[np.clip(i, 0, n - 1)]``, the ranks
``np.nanmedian`` and ``np.quantile`` read), a binary search's ``hi = n`` (``np.searchsorted``)
and a traced q's ``q * (n - 1)`` are constants of each trace; the kernel body takes them from
the arguments' run-time extents (``codegen/kernel_body.py``'s ``sized_bound``), and a traced
q's range check names its callback by its place in the plan, so a new length re-traces but
reuses the code. Each function runs at three lengths (above ``2 * loops.NEAR``, where bounds
become run-time extents) and must compile once and give NumPy's bits; n = 1 and 2 (constants)
are checked against NumPy too. Lanes hold NaN, inf and -0.0, and one lane is all NaN.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitcore as jc
from tests.strategies import specials

LENGTHS = (70, 101, 150)  # lane lengths, each a compile of its own before
SHORT = (1, 2)


def lanes(n, seed):
    """Five lanes of length n: ordinary values with the float specials spread through, the
    second lane all NaN."""
    x = np.random.default_rng(seed).standard_normal((5, n))
    flat = x.reshape(-1)
    s = specials(np.float64)
    flat[3::11][: len(s)] = s[: len(flat[3::11])]
    x[1] = np.nan
    return x


def indices(n, seed):
    """Positions in and beyond ``[0, n)`` on both sides, for the clips."""
    return np.random.default_rng(seed).integers(-n - 3, 2 * n + 3, 40)


def nanmedian(x):
    return np.nanmedian(x, axis=-1)


def nanquantile(x):
    return np.nanquantile(x, 0.3, axis=-1)


def quantile_traced_q(x, q):
    return np.quantile(x, q, axis=-1)


def take_clip(x, i):
    return np.take(x[0], i, mode="clip")


def index_clip(x, i):
    return x[2][np.clip(i, 0, x.shape[1] - 1)]


def searchsorted(x, i):  # row 3 sorted (arguments): a sort in the function unrolls its merge
    return np.searchsorted(x[3], x[4])  # passes, one more at each power of two


def argmax_gather(x, i):
    return np.take_along_axis(x, np.argmax(x, axis=-1)[:, None], axis=-1)


def arguments(f, n, seed):
    x = lanes(n, seed)
    if f is quantile_traced_q:
        return x, np.float64(0.37)
    if f in (nanmedian, nanquantile):
        return (x,)
    x[3] = np.sort(x[3])  # NaNs last, as searchsorted expects
    return x, indices(n, seed)


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    if got.dtype.kind == "f":  # every NaN alike, -0.0 apart from 0.0
        nan = np.isnan(expected)
        np.testing.assert_array_equal(np.isnan(got), nan)
        got, expected = got[~nan], expected[~nan]
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    np.testing.assert_array_equal(got, expected)


def numpy(f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN lanes: NumPy warns
        return f(*args)


FAMILY = [nanmedian, nanquantile, quantile_traced_q, take_clip, index_clip, searchsorted, argmax_gather]


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_one_compile_for_every_lane_length_and_numpy_bits(f):
    jitted = jc.jit(f, cache=False)
    for n in LENGTHS:
        args = arguments(f, n, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = jitted(*args)
        same_bits(got, numpy(f, args))
    info = jitted.cache_info()
    assert (info.traces, info.compiles, info.reused) == (3, 1, 2), info
    for n in SHORT:
        args = arguments(f, n, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            same_bits(jitted(*args), numpy(f, args))


def test_a_reused_gather_reports_a_bad_index_with_its_own_length():
    def along(x, i):
        return np.take_along_axis(x, i, axis=-1)

    jitted = jc.jit(along, cache=False)
    x = lanes(LENGTHS[0], 0)
    jitted(x, np.zeros((5, 3), np.int64))
    n = LENGTHS[1]
    bad = np.zeros((5, 3), np.int64)
    bad[2, 1] = n
    with pytest.raises(IndexError, match=f"index {n} is out of bounds for axis 1 with size {n}"):
        jitted(lanes(n, 1), bad)
    assert jitted.cache_info().compiles == 1


def test_a_traced_q_out_of_range_still_raises_from_reused_code():
    jitted = jc.jit(quantile_traced_q, cache=False)
    jitted(lanes(LENGTHS[0], 0), np.float64(0.5))
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        jitted(lanes(LENGTHS[1], 1), np.float64(1.5))
    assert jitted.cache_info().compiles == 1


def test_only_a_clip_into_the_axis_leaves_out_its_index_check():
    """A clip below 0 wraps (NumPy reads from the end), one up to n raises: their checks stay."""
    below = jc.jit(lambda x, i: x[2][np.clip(i, -3, x.shape[1] - 1)], cache=False)
    above = jc.jit(lambda x, i: x[2][np.clip(i, 0, x.shape[1])], cache=False)
    for n in LENGTHS[:2]:
        x, i = lanes(n, n), indices(n, n)
        same_bits(below(x, i), x[2][np.clip(i, -3, n - 1)])
        with pytest.raises(IndexError, match=f"out of bounds for axis 0 with size {n}"):
            above(x, i)
    assert below.cache_info().compiles == 1

