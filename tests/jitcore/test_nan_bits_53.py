"""Which NaN the extremes and order statistics give (nansign53), bit for bit against NumPy where
NumPy's own answer does not depend on the CPU.

NumPy's elementwise ``maximum``/``minimum`` loops, and its reductions that run them across rows
(``axis=0`` of a C-ordered array), return the NaN operand itself: sign and payload kept, the
first one met. ``median``, ``quantile`` and ``percentile`` copy the lane's last value after the
partition (its NaN) over the result. NumPy's contiguous max/min reductions are the exception:
a NaN in their first element or SIMD body becomes a fresh +NaN, one in their scalar tail comes
through, and the body's length is the CPU's vector width; there only NaN-ness is compared, plus
the two-element lane whose second element is the NaN (a tail at any vector width).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.jit_once import jit_once

UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
# -NaN, a +NaN with a payload, a -NaN with a payload, in each float width's bits
NAN_BITS = {
    np.float64: (0xFFF8000000000000, 0x7FF8000000000009, 0xFFF8000000000005),
    np.float32: (0xFFC00000, 0x7FC00009, 0xFFC00005),
    np.float16: (0xFE00, 0x7E09, 0xFE05),
}


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(UINT[a.dtype.itemsize])


def _nan(dtype, k):
    return np.array([NAN_BITS[dtype][k]], UINT[np.dtype(dtype).itemsize]).view(dtype)[0]


def _with_nans(rng, dtype, shape, per_row):
    """Normal values with ``per_row`` NaNs of mixed kinds in each row but the last."""
    x = rng.standard_normal(shape).astype(dtype)
    for i in range(shape[0] - 1):
        for j in rng.choice(shape[1], per_row, replace=False):
            x[i, j] = _nan(dtype, rng.integers(3))
    return x


def _extremes(x, y):
    return (
        np.max(x, axis=0),
        np.min(x, axis=0),
        np.maximum(x, y),
        np.minimum(y, x),
        np.fmax(x, y),
        np.max(x, axis=1),
        np.min(x, axis=1),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_extremes_give_numpys_nan_operand(dtype):
    rng = np.random.default_rng(53)
    jitted = jc.jit(_extremes)
    for trial in range(6):  # one compile, many inputs: several NaNs a column, both operands
        x = _with_nans(rng, dtype, (7, 19), per_row=1 + trial % 3)
        y = _with_nans(rng, dtype, (7, 19), per_row=2)
        got, want = jitted(x, y), _extremes(x, y)
        for k, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape
            if k < 5:  # NumPy's elementwise loops: the NaN operand itself
                np.testing.assert_array_equal(_bits(g), _bits(w), err_msg=f"output {k}")
            else:  # contiguous reductions: NumPy's NaN bits follow its vector width
                np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"output {k}")
                np.testing.assert_array_equal(g[~np.isnan(g)], w[~np.isnan(w)])


def _pad(v, width, mode):
    return np.pad(v, width, mode=mode)


def test_pad_extremes_after_other_signatures_keep_the_tails_nan():
    """The call sequence that showed the NaN bits (session 53): one jit, width and mode static,
    a +NaN first, then -NaN at the lane's start (NumPy: a fresh +NaN) and end (NumPy: the -NaN)."""
    jitted = jit_once(_pad, static_argnums=(1, 2))
    neg = _nan(np.float64, 2)
    for mode in ("maximum", "minimum"):
        for x, bits_exact in (
            (np.array([np.nan, 0.0]), True),
            (np.array([neg, 0.0]), False),
            (np.array([0.0, neg]), True),
            (np.array([1.0, 2.0]), True),
        ):
            got, want = jitted(x, 1, mode), np.pad(x, 1, mode=mode)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            if bits_exact:
                np.testing.assert_array_equal(_bits(got), _bits(want))


def _order_statistics(x64, x16, keep):
    # float64's partition kernel only (each float width's costs seconds to generate); float16's
    # median reuses it. The quantile's interpolating methods share the NaN step. ``x64[keep]``:
    # the selection's median, whose left-out elements sort last as NaNs of their own.
    return (
        np.median(x64, axis=-1),
        np.percentile(x64, 50, axis=1, method="lower"),
        np.median(x16, axis=-1),
        np.median(x64[keep]),
    )


def test_order_statistics_give_the_lanes_own_nan():
    rng = np.random.default_rng(7)
    jitted = jc.jit(_order_statistics)
    for trial in range(4):  # one NaN a lane: NumPy's partition leaves it last
        xs = [_with_nans(rng, dtype, (6, 9), per_row=1) for dtype in (np.float64, np.float16)]
        keep = rng.random((6, 9)) < 0.6
        keep[-1] = True  # the NaN-free row, and one row's part (one NaN at most: NumPy's
        keep[:-1] &= np.arange(5)[:, None] == trial  # partition orders NaNs its own way)
        with np.errstate(invalid="ignore"):
            want = _order_statistics(*xs, keep)
        for k, (g, w) in enumerate(zip(jitted(*xs, keep), want)):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(_bits(g), _bits(w), err_msg=f"output {k}")
