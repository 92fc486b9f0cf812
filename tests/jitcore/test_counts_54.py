"""Counting and segmented reductions (session 54), against NumPy bit for bit.

1. ``np.add.reduceat`` of float32, float64 and integer pieces: each piece is its first row plus
   ``array.window_sum`` of the rest (NumPy's pairwise sum over the window, every lane at once,
   from -0.0), read over the window alone because fusion keeps the window's traced end an input
   (``passes/fuse.py`` rule (d)). Pieces of 0, 1, under 8, 8 to 128 and past 128 rows (the
   pairwise sum's three shapes), -0.0, NaN and inf, unsorted and repeated indices, along every
   axis, traced and static indices.
2. ``np.nonzero`` of an n-d mask and values computed from its positions (``t * dt``): the flat
   positions compacted once, the values recomputed from them over the count
   (``compaction._axis_ramps``), never computed at every position of the mask.
3. ``np.bincount``: the clamp of checked values is one test of the value, so the scatter's
   positions are proved in range (``effects._arm_bounds`` reads ``(x >= 0) & (x < n)``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.passes import effects
from tests.budget import examples
from tests.jit_once import jit_once


def _same(got, want):
    """The same results: types, dtypes, shapes and bytes (signed zeros and NaN payloads too)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, got.shape, want.dtype, want.shape)
    assert got.tobytes() == want.tobytes(), (got, want)


def pieces(rows, cols, idx):
    """Traced indices along axis 0 of 2-d rows and 1-d values, along axis 1 of the transpose."""
    return (
        np.add.reduceat(rows, idx),
        np.add.reduceat(cols, idx, axis=1),
        np.add.reduceat(rows[:, 0], idx),
        np.add.reduceat(rows.astype(np.float32), idx),
        np.add.reduceat((rows * 8).astype(np.int32), idx),
    )


N = 300  # pieces up to 300 rows: under 8, one leaf of 128, two levels of NumPy's pairwise tree


@st.composite
def _cuts(draw):
    """12 indices in [0, N): sorted (pieces of every length), or not (repeats, backward ones)."""
    idx = draw(st.lists(st.integers(0, N - 1), min_size=12, max_size=12))
    kind = draw(st.sampled_from(["sorted", "as drawn", "long"]))
    if kind == "sorted":
        idx.sort()
    elif kind == "long":  # a first piece past 128 rows, then short ones from 280
        idx = [0, 200, 207, 208, 215, 216, 280, 281, 281, 290, 291, 299]
    return np.array(idx, dtype=np.int64)


@given(_cuts(), st.integers(0, 2**32 - 1), st.sampled_from(["normal", "zeros", "specials"]))
@settings(max_examples=examples(40, 15), deadline=None)
def test_reduceat_pieces_are_numpys(idx, seed, values):
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((N, 5))
    if values == "zeros":  # pieces of -0.0 stay -0.0 (NumPy starts from the first element)
        rows = np.where(rng.random(5) < 0.6, -0.0, 0.0) * np.ones((N, 1))
    elif values == "specials":
        rows[rng.random((N, 5)) < 0.05] = np.nan
        rows[rng.random((N, 5)) < 0.05] = -np.inf
        rows[rng.random((N, 5)) < 0.2] = -0.0
    cols = np.ascontiguousarray(rows.T)
    _same(jit_once(pieces)(rows, cols, idx), pieces(rows, cols, idx))


def static_pieces(rows, fortran):
    """Static indices (one compiled loop, not a kernel per piece) on C and Fortran rows."""
    cut = [0, 1, 1, 9, 140, 3, 299]
    return (
        np.add.reduceat(rows, cut),
        np.add.reduceat(fortran, cut),
        np.add.reduceat(rows[:, 1], cut),
        np.add.reduceat((rows * 4).astype(np.int64), cut),
        np.add.reduceat(rows, [7]),
    )


def test_static_reduceat_pieces_are_numpys():
    rng = np.random.default_rng(54)
    for rows in (rng.standard_normal((N, 3)), np.full((N, 3), -0.0)):
        fortran = np.asfortranarray(rows[::-1])
        _same(jit_once(static_pieces)(rows, fortran), static_pieces(rows, fortran))


def raster(m, dt):
    """A spike raster's times and neurons, and values computed from both positions."""
    t, n = np.nonzero(m)
    return t * dt, n, (n + 1) * 2, t - n, np.float32(dt) * t, np.bincount(n, minlength=m.shape[1])


def cube(m, dt):
    a, b, c = np.nonzero(m)
    return a * dt + c, b * 3, c


def test_values_from_nonzero_positions_are_numpys():
    rng = np.random.default_rng(7)
    for p in (0.0, 0.02, 0.5, 1.0):  # none, few, half, every position kept
        m = rng.random((37, 23)) < p
        _same(jit_once(raster)(m, 0.001), raster(m, 0.001))
        m3 = rng.random((4, 5, 6)) < p
        _same(jit_once(cube)(m3, 0.25), cube(m3, 0.25))
    empty = np.zeros((0, 23), bool)
    _same(jc.jit(raster)(empty, 0.5), raster(empty, 0.5))


def test_values_from_positions_are_not_computed_at_every_position():
    text = str(jc.make_ir(raster)(np.zeros((200, 50), bool), 0.001))
    # only positions are compacted (two operands), never a (200, 50) array of values
    compacts = [line for line in text.splitlines() if '"array.compact"' in line]
    assert compacts and all(line.count("%") == 3 for line in compacts), compacts
    assert '"array.head_rows"' in text  # the arithmetic on them runs over the count
    neurons = str(jc.make_ir(lambda m: np.nonzero(m)[1])(np.zeros((200, 50), bool)))
    assert '"array.head_rows"' in neurons  # so does a position's unravelling (flat % 50)


def counts(x, w):
    return np.bincount(x, minlength=1000), np.bincount(x, w, minlength=1000)


def test_bincount_positions_are_proved_in_range():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 1000, 5000)
    x[:2] = (0, 999)
    w = rng.standard_normal(x.size)
    _same(jit_once(counts)(x, w), counts(x, w))
    module = jc.make_ir(counts)(x, w)
    scatters = [op for op in module.walk() if op.op_name == "array.scatter_nd"]
    assert len(scatters) == 2 and all(effects.proved_positions(op.operands[2], 1000) for op in scatters)
