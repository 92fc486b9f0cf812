"""A column reduction's block of 16 rows is unrolled 8 rows at a time (``reduction.BLOCK_ROWS_UNROLLED``):
whole, LLVM copied the row's vectorized column loop 16 times, most of a column sum's compile
(docs/performance.md, "Where a compile's time goes, session 35"). Unrolling reorders no addition."""

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import reduction


def test_column_sum_blocks_are_unrolled_in_part_and_match_numpy():
    x = np.random.default_rng(35).standard_normal((67, 5))
    x[3, 1], x[40, 2], x[66, 4] = np.inf, np.nan, -0.0
    f = jc.jit(lambda a: a.sum(axis=0), cache=False)
    text = f.lower(x).as_text("llvm")
    assert f'!"llvm.loop.unroll.count", i32 {reduction.BLOCK_ROWS_UNROLLED}' in text
    got, want = f(x), x.sum(axis=0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-13)
    assert got[1] == np.inf
