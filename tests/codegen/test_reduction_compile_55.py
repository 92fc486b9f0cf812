"""Session 55: the compile time of whole-array reductions (``x.sum()``, ``x.max()``,
``x.argmax()``), which every first call pays.

- A float sum's leaves go through one batch of 4 slots (``reduction.PairwiseRow._batch``): a
  subtree's 4 leaves, its 2 (each twice) or 1 leaf (four times), with each leaf's last groups
  and tail emitted once, the leaf a run-time index. Its bits stay NumPy's for every form of
  node, contiguous or read through a strided copy (which now holds a batch's 4 leaves).
- A max or min recheck (a lane holding a zero or a NaN) runs its blocks one at a time, and an
  argmax's index lanes move as one vector: the modules' sizes below hold them to that.

NumPy is the oracle: bits, dtype and Python type.
"""

import numpy as np
import pytest

import jitcore as jc
from jitcore import config

# Sizes whose trees hold 4-leaf, 2-leaf and single-leaf nodes side by side (257, 500: all
# three), leaves of unequal group counts (385, 1031), every tail length, and pieces (9000).
SIZES = (1, 7, 8, 129, 200, 257, 300, 385, 500, 511, 1000, 1031, 4104, 9000, 20_003)


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64 if a.dtype == np.float64 else np.int32)


def _same(expected, got, *context):
    assert type(got) is type(expected), (type(got), type(expected), *context)
    assert np.array_equal(_bits(got), _bits(expected)), (expected, got, *context)


_sum = jc.jit(lambda x: x.sum())
_sum_of_products = jc.jit(lambda x, y: np.sum(x * y))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batched_leaves_are_numpys_bits_in_place_and_strided(dtype):
    rng = np.random.default_rng(55)
    for n in SIZES:
        # large terms of both signs that mostly cancel: another order shows in many bits
        base = (rng.normal(size=3 * n) * rng.choice([1.0, 1e7], size=3 * n)).astype(dtype)
        for x in (base[:n], base[::3], base[::-2][:n]):
            _same(x.sum(), _sum(x), n, x.strides)
        x, y = base[:n], base[n:2 * n]
        with config.using(num_threads=2, parallel_threshold=0, chunk_size=1):
            _same(np.sum(x * y), _sum_of_products(x, y), n)


# The modules' lines (LLVM IR text) at session 55, with room for small changes elsewhere;
# session 54's were 1157, 1284 and 1437.
MOST_LINES = {"sum": 900, "max": 1000, "argmax": 1150}
FUNCTIONS = {"sum": lambda x: x.sum(), "max": lambda x: x.max(), "argmax": lambda x: x.argmax()}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_whole_reductions_stay_short(name):
    text = jc.jit(FUNCTIONS[name], cache=False).lower(np.ones(100)).as_text("llvm")
    assert text.count("\n") < MOST_LINES[name], (name, text.count("\n"))
