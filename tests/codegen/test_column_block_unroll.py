"""A column reduction (``x.sum(axis=0)``): until session 46 its block of 16 rows was unrolled 8
rows at a time (``reduction.BLOCK_ROWS_UNROLLED``, a compile-time measure, session 35). Since
pairwise46 a float column sum adds the rows in order, as NumPy's does, and gives NumPy's bits;
this checks those bits, with inf, NaN and -0.0 among the terms, for floats and ints."""

import numpy as np
import pytest

import jitcore as jc


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_column_sums_add_rows_in_order_as_numpy(dtype):
    x = np.random.default_rng(35).standard_normal((67, 5))
    if dtype != np.int64:
        x[3, 1], x[40, 2], x[66, 4] = np.inf, np.nan, -0.0
    x = (x * 100).astype(dtype) if dtype == np.int64 else x.astype(dtype)
    f = jc.jit(lambda a: a.sum(axis=0), cache=False)
    got, want = f(x), x.sum(axis=0)
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
