"""Shifts and concatenations run in segments (``codegen/positions.py``): each segment between
the positions where a body's position tests or clamps change is a plain shifted copy, with no
clamp, no per-element select and no gather left in the optimized LLVM IR, and the results are
NumPy's on every split of the loop into thread chunks. The IR checks name no vector width."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen import positions
from jitcore.codegen.cpu import runtime
from jitcore.ir.attributes import AffineExpr

rng = np.random.default_rng(11)


def _llvm(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("llvm-opt")


SHIFTED = {
    "roll": lambda x: np.roll(x, 3),
    "roll-back": lambda x: np.roll(x, -5),
    "concatenate": lambda x: np.concatenate([x[3:], x[:3]]),
    "three-pieces": lambda x: np.concatenate([x[:2], x[5:], x[2:5]]),
    "pad": lambda x: np.pad(x, (2, 3)),
}


@pytest.mark.parametrize("name", sorted(SHIFTED))
@pytest.mark.parametrize("n", [1000, 1 << 20])  # unsplit and split (a range of threads' chunks)
def test_segments_are_plain_copies(name, n):
    """No gather and no position select survive: every segment reads in place."""
    x = rng.standard_normal(n).astype(np.float32)
    text = _llvm(SHIFTED[name], x)
    assert "gather" not in text
    assert "select <" not in text  # a vector select would be the per-element choice of piece


@pytest.mark.parametrize("name", sorted(SHIFTED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_])
def test_segments_match_numpy(name, dtype):
    x = (rng.standard_normal(37) * 5).astype(dtype)
    np.testing.assert_array_equal(jc.jit(SHIFTED[name])(x), SHIFTED[name](x))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), shift=st.integers(-70, 70), threads=st.sampled_from([1, 2, 3]),
       chunk=st.integers(1, 9), axis=st.sampled_from([0, 1]))
def test_roll_on_any_split(n, shift, threads, chunk, axis):
    """Thread chunks cut across the segments anywhere: each chunk runs its part of each."""
    x = rng.standard_normal((n, 4) if axis == 0 else (4, n)).astype(np.float32)
    fn = lambda x: np.roll(x, shift, axis)  # noqa: E731
    with (mock.patch.object(runtime, "MIN_SPLIT_WORK", 0),
          config.using(num_threads=threads, parallel_threshold=0, chunk_size=chunk)):
        got = jc.jit(fn)(x)
    np.testing.assert_array_equal(got, fn(x))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), low=st.integers(0, 7), high=st.integers(0, 7))
def test_pad(n, low, high):
    x = rng.standard_normal((3, n))
    for fn in (lambda x: np.pad(x, (0, high), constant_values=5.0),
               lambda x: np.pad(x, ((1, 0), (low, high)))):
        np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))


def test_shifted_reads_stay_one_kernel():
    x = rng.standard_normal(1000).astype(np.float32)
    fn = lambda x: x[1:] - x[:-1]  # noqa: E731
    assert jc.jit(fn).lower(x).as_text("optimized").count('"kernel.generic"') == 1
    np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))


# -- positions.py on its own -------------------------------------------------------------------

def test_in_bounds():
    shift = AffineExpr(0, 1, -3)  # d0 - 3: in [0, 10) for d0 in [3, 13)
    assert positions.in_bounds(shift, {0: (3, 13)}, 10)
    assert not positions.in_bounds(shift, {0: (2, 13)}, 10)
    assert not positions.in_bounds(shift, {0: (3, 14)}, 10)
    assert not positions.in_bounds(shift, {}, 10)
    assert positions.in_bounds(AffineExpr(None, 0, 4), {}, 10) is False  # nothing known: keep
    assert positions.in_bounds(AffineExpr(None, 0, 4), {0: (0, 1)}, 10)
    strided = AffineExpr(0, 2, 1)  # 2 * d0 + 1: in [0, 10) for d0 in [0, 5)
    assert positions.in_bounds(strided, {0: (0, 5)}, 10)
    assert not positions.in_bounds(strided, {0: (0, 6)}, 10)
