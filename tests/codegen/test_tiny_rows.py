"""A size-generic kernel reducing rows of at most ``TINY_ROW`` elements compiles their length as
a constant (``codegen/cpu/schedule.py``, ``_with_tiny_rows_constant``): the same order as the
run-time code, so the same bits; code shared by sizes with that row length only, and longer
rows still share one code for every length."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen import host
from jitcore.codegen.cpu.schedule import TINY_ROW

rng = np.random.default_rng(11)


def pairwise(X):
    return np.sum((X[None, :] - X[:, None]) ** 2, -1) ** 0.5


def points(n: int, dims: int, dtype) -> np.ndarray:
    x = rng.standard_normal((n, dims)).astype(dtype)
    x[1, 0], x[2, -1] = -0.0, np.inf  # a signed zero and an infinity in some rows
    return x


def compiled_fixed(fn, *args):
    """``fn``'s result compiled for these sizes only (no run-time extents)."""
    saved, host.SIZE_GENERIC = host.SIZE_GENERIC, False
    try:
        return jc.jit(fn)(*args)
    finally:
        host.SIZE_GENERIC = saved


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiny_rows_have_the_bits_of_fixed_size_code_and_share_it_across_other_extents(dtype):
    f = jc.jit(pairwise)
    for n in (37, 70):  # the row length (3) is the constant; the number of points is not
        x = points(n, 3, dtype)
        got = f(x)
        np.testing.assert_array_equal(got, compiled_fixed(pairwise, x))
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(got, pairwise(x.astype(np.float64)), rtol=1e-6)
    info = f.cache_info()
    assert (info.traces, info.compiles, info.reused) == (2, 1, 1)


def test_each_tiny_row_length_has_its_code_and_longer_rows_share_one():
    row_sums = jc.jit(lambda x: np.sum(x * x, axis=1))
    for length in range(2, TINY_ROW + 4):
        x = rng.standard_normal((40, length)).astype(np.float32)
        got = row_sums(x)
        np.testing.assert_array_equal(got, compiled_fixed(lambda x: np.sum(x * x, axis=1), x))
        np.testing.assert_allclose(got, np.sum(x.astype(np.float64) ** 2, axis=1), rtol=1e-6)
    info = row_sums.cache_info()
    tiny = TINY_ROW - 1  # lengths 2 .. TINY_ROW, a code each; then one for the rest
    assert (info.traces, info.compiles) == (TINY_ROW + 2, tiny + 1)
