"""newuser37: ``np.fmax.accumulate`` and ``np.fmin.accumulate`` (running extremes that skip NaN)
under jit against NumPy, bit for bit: leading NaNs, NaN after numbers, -inf, signed zeros,
float32 along either axis, integers, ``dtype=``."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc

ROW = np.array([np.nan, np.nan, 1.0, np.nan, -0.0, 0.0, 3.0, np.nan, -np.inf, 7.0])
CASES = [
    (ROW, 0), (np.array([np.nan, -np.inf, np.nan]), 0), (np.array([-0.0, 0.0, np.nan, -0.0]), 0),
    (np.array([[np.nan, 2, 1], [0, np.nan, 5.0], [np.nan, np.nan, -1]], np.float32), 0),
    (np.array([[np.nan, 2, 1], [0, np.nan, 5.0], [np.nan, np.nan, -1]], np.float32), 1),
    (np.array([3, -1, 7, 2], np.int16), 0), (np.zeros(0), 0),
]


@pytest.mark.parametrize("ufunc", [np.fmax, np.fmin])
def test_nan_skipping_running_extremes_match_numpy(ufunc):
    fn = jc.jit(lambda v, axis: ufunc.accumulate(v, axis=axis), static_argnames="axis")
    for x, axis in CASES:
        got, want = fn(x, axis), ufunc.accumulate(x, axis=axis)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (x, axis, got, want)
    got = jc.jit(lambda v: ufunc.accumulate(v, dtype=np.float32))(ROW)
    assert got.tobytes() == ufunc.accumulate(ROW, dtype=np.float32).tobytes()
