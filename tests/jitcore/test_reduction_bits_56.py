"""NumPy's bits for ``where=`` sums of strided and broadcast operands and for float16 sums
(session 56). A differential probe: one compile per layout class, many data draws each.

- ``x.sum(where=m)`` and ``np.mean(x, where=m)``: NumPy runs ``x`` and ``m`` together in its
  iterator's order (both operands' strides vote; C order where they disagree), merges axes
  where both step over the inner one, and reads what is left through its 8192-element buffer,
  which ends runs of kept terms where a buffer ends (``jitcore/buffered_where.py``). Before,
  jitcore added a strided or broadcast pair's runs in C order, unbroken.
- float16: NumPy's reduce loop (its innermost axis reduced) adds each run's float32 pairwise
  sum to the float16 total, rounding it after each run; its elementwise loop (a column sum,
  or a Fortran array's row sum) adds each term in float16. Before, jitcore summed every float16
  reduction in float32 and rounded once.

The sizes cross NumPy's 8-element unroll, its 128-element pairwise block and its buffer.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.layouts import relayout


def _draw(seed, shape, dtype, kept):
    rng = np.random.default_rng(seed)
    a = (rng.random(shape) * 1e3).astype(dtype)
    a[..., ::3] *= np.asarray(1e-4, dtype)  # terms of very different size: any other order shows
    return a, rng.random(shape) < kept


def _same(want, got, note):
    for w, g in zip(want, got, strict=True):
        w, g = np.asarray(w), np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes(), (note, w, g)


def whole(x, m):
    return x.sum(where=m), np.mean(x, where=m)


_whole = jc.jit(whole)


# (37, 300): buffers of 27 rows, the last of each block short; (3, 5000): a buffer a row
@pytest.mark.parametrize("layouts", [("strided", "C"), ("C", "strided"), ("F", "strided"), ("C", "row")])
@settings(max_examples=examples(12, ci=6), deadline=None)
@given(
    seed=st.integers(0, 2**16),
    kept=st.sampled_from([0.5, 0.97, 1.0]),
    shape=st.sampled_from([(37, 300), (3, 5000)]),
)
def test_where_sums_of_strided_and_broadcast_operands_are_numpys_bits(layouts, seed, kept, shape):
    a, keep = _draw(seed, shape, np.float32, kept)
    x = relayout(a, layouts[0])
    m = np.broadcast_to(keep[0], shape) if layouts[1] == "row" else relayout(keep, layouts[1])
    _same(whole(x, m), _whole(x, m), (layouts, shape, kept))


def test_a_one_dimensional_mask_broadcast_over_rows():
    """``m`` of the rows' shape: NumPy's iterator sees stride 0 down ``m``'s column, so the
    rows do not merge and its buffer cuts the runs every 27 rows of 300."""
    a, keep = _draw(56, (37, 300), np.float64, 0.9)
    for m in (keep[0], np.ones(300, bool)):
        _same(whole(a, m), _whole(a, m), m.all())


def halves(x, m):
    return x.sum(where=m), x.sum(axis=0, where=m), x.sum(axis=1, where=m), x.sum(axis=0), x.prod(axis=0)


_halves = jc.jit(halves)


@pytest.mark.parametrize("layouts", [("C", "C"), ("F", "C"), ("F", "F")])
@settings(max_examples=examples(12, ci=6), deadline=None)
@given(seed=st.integers(0, 2**16), kept=st.sampled_from([0.5, 0.9, 1.0]))
def test_float16_sums_round_where_numpys_loops_round(layouts, seed, kept):
    rng = np.random.default_rng(seed)
    a = (rng.random((37, 300)) * 10).astype(np.float16)
    a[:, ::7] = (1 + rng.random((37, 43)) * 0.01).astype(np.float16)  # products that stay finite
    x, m = relayout(a, layouts[0]), relayout(rng.random(a.shape) < kept, layouts[1])
    with np.errstate(over="ignore"):
        want = halves(x, m)
    _same(want, _halves(x, m), (layouts, kept))


@pytest.mark.parametrize("n", [7, 8, 129, 8193, 20000])
def test_float16_where_sum_of_a_row_rounds_after_each_run(n):
    """Runs of kept terms, each summed in float32 and added to the float16 total."""
    rng = np.random.default_rng(n)
    x = (rng.random(n) * 10).astype(np.float16)
    m = rng.random(n) < 0.8
    _same((x.sum(where=m),), (_whole(x, m)[0],), n)
