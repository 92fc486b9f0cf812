"""Slices of traced bounds on several axes (``Y[:k, :k]``, ``a[k:, k:]`` in a loop over k): a
block, which keeps every dim, where a selection by a mask of several dims (``x[m2]``) has one.
Session 56 (t56/u3 W1): such a block was read as the mask's selection, flattened: ``Y[:k, :k]``
returned ``(k*k,)``, ``.sum(axis=0)`` a number, ``[0]`` an element, ``.T`` nothing. NumPy is
the oracle for every function at every bound, including empty blocks."""

import numpy as np
import pytest

import jitcore as jc

RNG = np.random.default_rng(56)
Y = RNG.standard_normal((6, 7))
X3 = RNG.standard_normal((5, 6, 3))
Z = RNG.standard_normal((40, 40))  # (a loop this long runs as a loop, not unrolled)


def leading(y, k):
    return y[:k, :k]


def trailing_transposed(y, k):
    return y[k:, k:].T


def first_row(y, k):
    return y[:k, :k][0]


def column_sums(y, k):
    return y[:k, :k].sum(axis=0)


def row_means_and_maxima(y, a, b):
    block = y[a:b, a:b]
    return block.mean(axis=1) * 1.0, block.max(axis=1)


def two_bounds(y, k, j):
    return y[k:, 1:j] * 2.0


def three_dims(x, k):
    return x[:k, :k].sum(axis=1), x[:k, :k].sum(axis=(0, 1)), x[:k, :k].sum()


def written_transposed(y, k):
    z = y.copy()
    z[:k, :k] = z[:k, :k].T
    return z


def schur_loop(y):
    a = y.copy()
    out = np.zeros(a.shape[1])
    for k in range(a.shape[0]):
        out[k:] += a[k:, k:].sum(axis=0) - a[k:, k:].min(axis=0)
        a[k:, k:] -= np.outer(a[k:, k], a[k, k:]) * 0.01
    return out, a


CASES = [(leading, (Y, 3)), (leading, (Y, 0)), (leading, (Y, -2)), (trailing_transposed, (Y, 2)),
         (first_row, (Y, 2)), (column_sums, (Y, 4)), (column_sums, (Y, 0)),
         (row_means_and_maxima, (Y, 1, 5)), (two_bounds, (Y, 3, 5)), (two_bounds, (Y, 5, 2)),
         (three_dims, (X3, 3)), (written_transposed, (Y[:, :6].copy(), 4)), (schur_loop, (Z,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}{args[1:]}" for fn, args in CASES])
def test_a_block_keeps_numpys_dims_and_values(fn, args):
    expected, got = fn(*args), jc.jit(fn)(*args)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-13)


def test_a_block_reduced_along_an_axis_compiles_once_for_every_bound():
    f = jc.jit(column_sums)
    for k in (1, 3, 6, 0, -1):
        np.testing.assert_allclose(f(Y, k), column_sums(Y, k), rtol=1e-13, atol=1e-13)
    assert f.cache_info().compiles == 1


def test_a_block_reduced_along_an_empty_axis_raises_numpys_error():
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        jc.jit(lambda y, k: y[:k, :k].max(axis=0))(Y, 0)
