"""float16 statistics in NumPy's accumulation dtypes, bits equal: ``sum``/``nansum`` and
``nanmean``/``nanvar``/``nanstd`` and ``var``/``std`` sum float16 data in float16 (pairwise,
as ``np.add.reduce``), each quotient by a count in float64, rounded to float16 once; only
``mean`` sums float16 in float32. So ``np.nanmean([60000, 60000, 1])`` is inf (the float16
sum overflows) where ``x.mean()`` is 4e4; jitcore gave 4e4 for both. A ``dtype=`` sums in it,
each deviation rounded back to the data's dtype (NumPy subtracts in place)."""

from __future__ import annotations

import warnings

import numpy as np

import jitcore as jc


def _statistics(overflow, rows):
    return (
        np.nanmean(overflow),
        np.nanvar(overflow),
        np.mean(overflow),
        np.nanvar(rows),
        np.nanstd(rows, axis=1, ddof=1),
        np.nanvar(rows, dtype=np.float32),
        np.nanvar(rows.astype(np.float32), dtype=np.float64),
        np.var(rows[0]),
    )


def test_float16_sums_as_numpy():
    overflow = np.array([60000, 60000, 1], np.float16)
    rows = (np.random.default_rng(1).random((4, 75)) * 3 + 100).astype(np.float16)  # near 100:
    rows[1, 3] = np.nan  # a float32 sum rounds otherwise than float16's
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        want = _statistics(overflow, rows)
        got = jc.jit(_statistics)(overflow, rows)
    assert want[0] == np.inf and want[2] == np.float16(40000)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, k
        np.testing.assert_array_equal(g, w, f"result {k}")
