"""Whole float sums (and var, mean) of views whose axes merge into three or more runs, passed
in: NumPy's order (session 55, ``buffered_sum._buffers``). NumPy's buffer holds whole cores of
the innermost runs (as many as fit in 8192 elements) along the next run out, never crossing
it; before, jitcore added rows of the innermost run one after another, and a 3-d strided
argument's ``var()`` differed from NumPy's in the last bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.layouts import relayout


def whole(x):
    return x.sum()


_whole = jc.jit(whole)
_var = jc.jit(lambda x: x.var())


def _strided(a, steps):
    big = np.zeros(tuple(n * abs(s) for n, s in zip(a.shape, steps)), a.dtype)
    view = big[tuple(slice(None, None, s) for s in steps)]
    view[...] = a
    return view


# each shape parts one rule of the model from the others (float32 data, terms 1e-3 beside 1e3):
# the core two runs long (30, 30, 30); buffers that end where the outer run steps (2, 5, 3000);
# the whole view one buffer (3, 4, 5, 6); a flipped middle axis (4, -30, 300)
SHAPES = [
    ((30, 30, 30), (2, 2, 2)),
    ((2, 5, 3000), (2, 2, 2)),
    ((3, 4, 5, 6), (2, 2, 2, 2)),
    ((4, 30, 300), (2, -1, 2)),
]


@pytest.mark.parametrize("shape, steps", SHAPES)
@settings(max_examples=examples(3, ci=2), deadline=None)
@given(seed=st.integers(0, 2**16))
def test_whole_sums_of_views_of_three_runs_in_numpys_order(shape, steps, seed):
    a = (np.random.default_rng(seed).random(shape) * 1e3).astype(np.float32)
    a[..., ::3] = 1e-3  # terms of very different size: any other order shows in the bits
    x = _strided(a, steps)
    want, got = whole(x), _whole(x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (shape, steps, want, got)


def test_the_layouts_var_of_a_3d_array():
    """The case left from session 54: ``var()`` of tests/layouts' strided 3-d argument."""
    a = np.random.default_rng(8).lognormal(0, 1, (2, 3, 40))  # (a seed main got wrong)
    x = relayout(a, "strided")
    assert _var(x) == x.var()
