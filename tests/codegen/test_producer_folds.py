"""A row sum that computes its elementwise input itself (``codegen/cpu/producer_folds.py``):
softmax's ``exp(x - max)`` stored and summed in one pass over each row. The result must be the
unfolded one, bit for bit: the exponentials as jitcore's elementwise kernel computes them, the
row sums in the documented order (``test_reductions.documented_sum``), then the division."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import producer_folds
from tests.codegen.test_reductions import documented_sum


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


EXPS = jc.jit(lambda x: np.exp(x - x.max(axis=1, keepdims=True)))  # the producer alone


def _rows(shape, dtype, seed):
    x = (np.random.default_rng(seed).standard_normal(shape) * 8).astype(dtype)
    x[0, shape[1] // 2] = np.nan  # a NaN row
    x[1, :] = np.inf  # inf - inf: a row of NaN
    x[2, -1] = np.inf
    x[3, 0] = -np.inf
    x[4, :] = -0.0
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_folded_softmax_keeps_the_unfolded_bits(dtype):
    """Rows of 1 to 4097 (short rows in order, whole blocks, tails, a lone leftover), one jitted
    function for all (a size-generic code once the length varies), and a split on two threads."""
    fn = jc.jit(softmax)
    folded = '.folded"' in fn.lower(_rows((8, 1000), dtype, 0)).as_text("llvm")
    assert folded == (np.dtype(dtype).itemsize * 8 <= producer_folds.FOLDED_BITS)  # where it runs
    for seed, n in enumerate((1, 31, 257, 1000, 4097)):
        x = _rows((9, n), dtype, seed)
        e = EXPS(x)
        expected = e / documented_sum(e.T)[:, None]
        np.testing.assert_array_equal(fn(x), expected, err_msg=f"row length {n}")
    x = _rows((600, 520), dtype, 7)
    e = EXPS(x)
    with jc.config.using(num_threads=2, parallel_threshold=0):
        np.testing.assert_array_equal(jc.jit(softmax)(x), e / documented_sum(e.T)[:, None])
