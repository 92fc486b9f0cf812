"""Session 53: compile time. A tiny function's float sums (every kernel at most
``backend.TINY_WORK`` points) are one pairwise leaf each, not NumPy's whole tree, and its
other reductions in lanes have no blocks: the tree's nodes and the blocks' cascade never run
at the sizes such code serves, and were most of a small reduction's LLVM IR. The same jitted
functions then run at sizes past a leaf and a block, whose code has them again: NumPy's bits
(a product: the documented order's) at every size, in one process.
"""

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import backend, reduction
from tests.codegen.test_reductions import documented_sum

SIZES = (7, 32, 300, 3)  # tiny (rows of 64 points in all), past a leaf and a block, tiny again


def row_sums(x):
    return x.sum(axis=1)


def kept_sum(x):
    return x[x > 0.25].sum()


def mean_and_sum(x):
    return np.mean(x), np.sum(x * 2.0)


def in_lanes(x, i):
    return x.max(axis=1), np.argmin(x, axis=1), np.sum(i, axis=1), np.prod(x, axis=1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sums_are_numpy_bits_below_and_past_a_leaf(dtype):
    rng = np.random.default_rng(53)
    jitted = [jc.jit(f) for f in (row_sums, kept_sum, mean_and_sum)]
    lanes = jc.jit(in_lanes)
    for n in SIZES:
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        rows = rng.standard_normal((2, n)).astype(dtype)
        for f, plain, arg in zip(jitted, (row_sums, kept_sum, mean_and_sum), (rows, x, x)):
            got, want = f(arg), plain(arg)
            for g, w in zip(np.atleast_1d(got) if not isinstance(got, tuple) else got,
                            np.atleast_1d(want) if not isinstance(want, tuple) else want):
                assert np.asarray(g).dtype == np.asarray(w).dtype, (f.__name__, n)
                assert np.array_equal(g, w), (f.__name__, n, g, w)
        near_one = (1.0 + rng.standard_normal((2, n)) * 1e-2).astype(dtype)
        ints = rng.integers(-9, 9, (2, n))
        got = lanes(near_one, ints)
        want = (*in_lanes(near_one, ints)[:3], documented_sum(near_one.T, op=np.multiply, identity=1))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w), (n, g, w)


def test_a_tiny_sum_is_one_leaf_and_a_long_one_the_tree():
    assert backend.TINY_WORK <= reduction.PAIRWISE_BLOCK
    f = jc.jit(lambda x: np.sum(x))
    tiny = f.lower(np.ones(backend.TINY_WORK)).as_text("llvm")
    long = f.lower(np.ones(backend.TINY_WORK + 1)).as_text("llvm")
    assert "pairwise.batch" not in tiny and "pairwise.descend" not in tiny
    assert "pairwise.batch" in long and "pairwise.descend" in long
