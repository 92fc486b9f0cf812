"""A selection by a traced mask along a dim that is not the first (``G[:, keep]``,
``P[:, m, :]``, ``P[..., m]``), returned: NumPy's shape and element order (session 48, new
user h3 W1: the selected dim came back first, a transposed result)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def columns(G, keep):
    return G[:, keep]


def columns_plus_one(G, keep):
    return G[:, keep] + 1


def middle(P, m):
    return P[:, m, :]


def last(P, m):
    return P[..., m]


def reduced_and_returned(G, keep):
    return G[:, keep].sum(0), G[:, keep]


JITTED = {f: jc.jit(f) for f in (columns, columns_plus_one, middle, last, reduced_and_returned)}


def _same(got, want):
    for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
        assert g.flags.c_contiguous


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 5), st.integers(0, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_masked_dims_after_the_first_are_numpys(a, n, b, seed):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((a, n))
    keep = rng.random(n) > 0.5
    for f in (columns, columns_plus_one, reduced_and_returned):
        _same(JITTED[f](G, keep), f(G, keep))
    P = rng.standard_normal((a, n, b))
    _same(JITTED[middle](P, keep), middle(P, keep))
    Q = rng.standard_normal((b, a, n))
    _same(JITTED[last](Q, keep), last(Q, keep))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_, np.complex128])
def test_other_dtypes_keep_the_order(dtype):
    G = (np.arange(15).reshape(3, 5) % 4).astype(dtype)
    keep = np.array([True, False, True, True, False])
    _same(JITTED[columns](G, keep), columns(G, keep))
