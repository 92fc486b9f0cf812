"""Full float sums of 2-d views NumPy cannot read as one run give NumPy's bits
(``jitcore/buffered_sum.py``): NumPy copies whole rows, in its iterator's order, into a buffer
of 8192 elements and adds each buffer's pairwise sum to the total, so ``a[::-1].sum()``,
``a[:, ::-1].sum()`` and ``a[::2, 1::3].sum()`` (made in the function or passed in) are neither
a pairwise sum of everything nor of each row. Shapes straddle the buffer: rows longer than it,
as long, and short rows that fill it unevenly. NumPy is the oracle: bits, type."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples

SHAPES = [(2, 4097), (3, 8192), (8193, 2), (91, 90), (17, 1025), (6, 7), (4096, 3)]


def made_inside(a):
    return (a[::-1].sum(), a[:, ::-1].sum(), a[::2, 1::3].sum(), np.sum(a[:, 1:]), a[::-1].mean(),
            a.T[:, ::-1].sum(), a[::2, 1:2].sum())


def passed_in(rows_reversed, columns_reversed, columns_cut, one_column):
    return (rows_reversed.sum(), np.sum(columns_reversed), columns_cut.mean(), columns_cut.sum(),
            one_column.sum())


_made_inside, _passed_in = jc.jit(made_inside), jc.jit(passed_in)


def _same(want, got, what):
    assert type(got) is type(want), what
    assert np.array_equal(want, got), (what, want, got)


# (ci: 3, each example compiles both functions anew for its shape)
@settings(max_examples=examples(6, ci=3), deadline=None)
@given(shape=st.sampled_from(SHAPES), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**16))
def test_full_sums_of_views_are_numpys_bits(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = (rng.normal(size=shape) * rng.choice([1.0, 1e6], size=shape)).astype(dtype)
    for k, (w, g) in enumerate(zip(made_inside(a), _made_inside(a))):
        _same(w, g, ("inside", k))
    views = (a[::-1], a[:, ::-1], a[:, 1:], a[::2, 1:2])
    for k, (w, g) in enumerate(zip(passed_in(*views), _passed_in(*views))):
        _same(w, g, ("argument", k))
