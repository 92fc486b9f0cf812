"""Shifts and concatenations run in segments (``codegen/positions.py``): each segment between
the positions where a body's position tests or clamps change is a plain shifted copy, with no
clamp, no per-element select and no gather left in the optimized LLVM IR, and the results are
NumPy's on every split of the loop into thread chunks. The IR checks name no vector width."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen import positions
from jitcore.codegen.cpu import runtime
from jitcore.ir.attributes import AffineExpr

rng = np.random.default_rng(11)


def _llvm(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("llvm-opt")


SHIFTED = {
    "roll": lambda x: np.roll(x, 3),
    "roll-back": lambda x: np.roll(x, -5),
    "concatenate": lambda x: np.concatenate([x[3:], x[:3]]),
    "three-pieces": lambda x: np.concatenate([x[:2], x[5:], x[2:5]]),
    "pad": lambda x: np.pad(x, (2, 3)),
    # reversed pieces (an rfft's mirror, conj(Z[(m - k) % m])): the clamp of a read of scale -1
    "mirror": lambda x: np.concatenate([x[:1], x[:0:-1], x[:1]]),
}


@pytest.mark.parametrize("name", sorted(SHIFTED))
@pytest.mark.parametrize("n", [1000, 1 << 20])  # unsplit and split (a range of threads' chunks)
def test_segments_are_plain_copies(name, n):
    """No gather and no position select survive: every segment reads in place."""
    x = rng.standard_normal(n).astype(np.float32)
    text = _llvm(SHIFTED[name], x)
    assert "gather" not in text
    assert "select <" not in text  # a vector select would be the per-element choice of piece


@pytest.mark.parametrize("name", sorted(SHIFTED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_])
def test_segments_match_numpy(name, dtype):
    x = (rng.standard_normal(37) * 5).astype(dtype)
    np.testing.assert_array_equal(jc.jit(SHIFTED[name])(x), SHIFTED[name](x))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), shift=st.integers(-70, 70), threads=st.sampled_from([1, 2, 3]),
       chunk=st.integers(1, 9), axis=st.sampled_from([0, 1]))
def test_roll_on_any_split(n, shift, threads, chunk, axis):
    """Thread chunks cut across the segments anywhere: each chunk runs its part of each."""
    x = rng.standard_normal((n, 4) if axis == 0 else (4, n)).astype(np.float32)
    fn = lambda x: np.roll(x, shift, axis)  # noqa: E731
    with (mock.patch.object(runtime, "MIN_SPLIT_WORK", 0),
          config.using(num_threads=threads, parallel_threshold=0, chunk_size=chunk)):
        got = jc.jit(fn)(x)
    np.testing.assert_array_equal(got, fn(x))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 60), cut=st.integers(0, 60), threads=st.sampled_from([1, 3]),
       chunk=st.integers(1, 9), axis=st.sampled_from([0, 1]))
def test_reversed_pieces_on_any_split(n, cut, threads, chunk, axis):
    """Reversed pieces (negative-scale reads, unclamped inside their segments) between forward
    ones, thread chunks cutting the segments anywhere: NumPy's bits, -0.0 and NaN included."""
    cut = cut % n
    x = rng.standard_normal((n, 4) if axis == 0 else (4, n))
    x.flat[::5] = -0.0
    x.flat[::7] = np.nan

    def fn(x):
        pick = (lambda s: x[s]) if axis == 0 else (lambda s: x[:, s])
        pieces = [pick(slice(None, cut)), pick(slice(None, cut, -1)), pick(slice(None, None, -2))]
        return np.concatenate(pieces, axis) * 2
    with (mock.patch.object(runtime, "MIN_SPLIT_WORK", 0),
          config.using(num_threads=threads, parallel_threshold=0, chunk_size=chunk)):
        got = jc.jit(fn)(x)
    np.testing.assert_array_equal(got, fn(x))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), low=st.integers(0, 7), high=st.integers(0, 7))
def test_pad(n, low, high):
    x = rng.standard_normal((3, n))
    for fn in (lambda x: np.pad(x, (0, high), constant_values=5.0),
               lambda x: np.pad(x, ((1, 0), (low, high)))):
        np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))


def test_shifted_reads_stay_one_kernel():
    x = rng.standard_normal(1000).astype(np.float32)
    fn = lambda x: x[1:] - x[:-1]  # noqa: E731
    assert jc.jit(fn).lower(x).as_text("optimized").count('"kernel.generic"') == 1
    np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))


# -- positions.py on its own -------------------------------------------------------------------

def test_in_bounds():
    shift = AffineExpr(0, 1, -3)  # d0 - 3: in [0, 10) for d0 in [3, 13)
    assert positions.in_bounds(shift, {0: (3, 13)}, 10)
    assert not positions.in_bounds(shift, {0: (2, 13)}, 10)
    assert not positions.in_bounds(shift, {0: (3, 14)}, 10)
    assert not positions.in_bounds(shift, {}, 10)
    assert positions.in_bounds(AffineExpr(None, 0, 4), {}, 10) is False  # nothing known: keep
    assert positions.in_bounds(AffineExpr(None, 0, 4), {0: (0, 1)}, 10)
    strided = AffineExpr(0, 2, 1)  # 2 * d0 + 1: in [0, 10) for d0 in [0, 5)
    assert positions.in_bounds(strided, {0: (0, 5)}, 10)
    assert not positions.in_bounds(strided, {0: (0, 6)}, 10)
    mirror = AffineExpr(0, -1, 9)  # 9 - d0: in [0, 10) for d0 in [0, 10)
    assert positions.in_bounds(mirror, {0: (0, 10)}, 10)
    assert not positions.in_bounds(mirror, {0: (0, 11)}, 10)
    assert not positions.in_bounds(AffineExpr(0, -1, 10), {0: (0, 10)}, 10)


@settings(max_examples=200, deadline=None)
@given(scale=st.integers(-4, 4).filter(bool), offset=st.integers(-30, 30), size=st.integers(1, 12))
def test_in_range_is_where_the_read_lies_inside(scale, offset, size):
    """Each dim position of ``[lo, hi)``, and none outside, reads inside ``[0, size)``, for
    forward and reversed (negative scale) reads alike."""
    lo, hi = positions._in_range(AffineExpr(0, scale, offset), size)
    inside = [p for p in range(-60, 60) if 0 <= scale * p + offset < size]
    assert (lo, hi) == ((inside[0], inside[-1] + 1) if inside else (lo, lo))


# -- max and min in any order, with the documented order's bits --------------------------------

def _pick(name, acc, x):
    """The body's combine: NumPy's max or min, NaN sticky, a tie going to ``x``."""
    better = acc > x if name == "max" else acc < x
    return acc if better or acc != acc else x


def _documented(name, row, lanes):
    """The documented lane order (codegen/cpu/reduction.py) in Python: element i in lane
    i % lanes, the last len % lanes in lane 0, each lane in order; lanes pairwise; the init
    (the identity) on the left."""
    init = row.dtype.type(-np.inf if name == "max" else np.inf)
    rest = len(row) // lanes * lanes
    parts = [init] * lanes
    for i, x in enumerate(row):
        lane = i % lanes if i < rest else 0
        parts[lane] = _pick(name, parts[lane], x)
    while len(parts) > 1:
        parts = [_pick(name, a, b) for a, b in zip(parts[::2], parts[1::2])]
    return _pick(name, init, parts[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [40, 81, 300, 1000, 4101])
def test_max_and_min_keep_the_documented_bits(dtype, n):
    """Zeros of both signs and NaNs of two payloads, few or many: any order gives the values,
    and a lane that holds a zero or a NaN is taken again in the documented order for its bits."""
    bits = np.uint32 if dtype == np.float32 else np.uint64
    nan_a = np.array(np.nan, dtype)
    nan_b = (nan_a.view(bits) | bits(1)).view(dtype)
    specials = np.array([0.0, -0.0, 2.0, -2.0, nan_a, nan_b], dtype)
    lanes = 16 if dtype == np.float32 else 8
    for weights in ([1, 1, 0, 0, 0, 0], [1, 1, 5, 5, 0, 0], [1, 1, 40, 40, 1, 1], [0, 0, 1, 1, 0, 0]):
        p = np.array(weights, float) / sum(weights)
        x = rng.choice(specials, (3, n), p=p).astype(dtype)
        x[1] = rng.standard_normal(n)  # a row with no ties
        for name in ("max", "min"):
            got = jc.jit(lambda a, name=name: getattr(a, name)(axis=-1))(x)
            expected = np.array([_documented(name, row, lanes) for row in x], dtype)
            np.testing.assert_array_equal(got.view(bits), expected.view(bits), err_msg=f"{name} {weights}")
            whole = jc.jit(lambda a, name=name: getattr(a, name)())(x[0])
            assert np.array(whole).view(bits) == np.array(_documented(name, x[0], lanes)).view(bits)


# Made once: a new length re-traces and, its code being size-generic, mostly reuses the machine code.
_ARG_EXTREMES = {name: (jc.jit(lambda a, name=name: getattr(np, name)(a)),
                        jc.jit(lambda a, name=name: getattr(np, name)(a, axis=-1)))
                 for name in ("argmax", "argmin")}


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5000), dtype=st.sampled_from([np.float32, np.float64, np.int32]),
       values=st.sampled_from([(0.0, -0.0, 1.0), (np.nan, 2.0, -np.inf), (5.0, 5.0, 4.0), (3.0, np.inf)]),
       threads=st.sampled_from([1, 3]))
def test_argmax_and_argmin_take_the_first_occurrence_in_any_split(n, dtype, values, threads):
    """Chains of chunks, the tail and the last elements, and pieces on threads: NumPy's first
    occurrence (the first NaN) whatever the length."""
    if dtype == np.int32:
        values = tuple(v for v in values if np.isfinite(v)) or (1.0,)
    x = rng.choice(np.array(values, dtype), n)
    with (mock.patch.object(runtime, "MIN_SPLIT_WORK", 0),
          config.using(num_threads=threads, parallel_threshold=0, chunk_size=7)):
        for name, (whole, along_rows) in _ARG_EXTREMES.items():
            assert whole(x) == getattr(np, name)(x), (name, n)
            assert along_rows(x.reshape(1, -1))[0] == getattr(np, name)(x), (name, n)


@settings(max_examples=30, deadline=None)
@given(shape=st.lists(st.integers(0, 9), min_size=2, max_size=3),
       shifts=st.lists(st.integers(-12, 12), min_size=3, max_size=3), data=st.data())
def test_multi_axis_roll_is_one_kernel(shape, shifts, data):
    """``np.roll`` over several axes (each a concatenation of slices) is one kernel reading
    ``x`` through the shifted maps of every combination of pieces, each element written once."""
    axes = tuple(data.draw(st.permutations(range(len(shape))), label="axes"))
    x = rng.standard_normal(shape).astype(np.float32)
    fn = lambda x: np.roll(x, tuple(shifts[:len(axes)]), axes)  # noqa: E731
    np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))
    assert jc.jit(fn).lower(x).as_text("optimized").count('"kernel.generic"') <= 1  # 0: x itself


def test_multi_axis_roll_segments_are_plain_copies():
    x = rng.standard_normal((300, 200)).astype(np.float32)
    for fn in (lambda x: np.roll(x, (1, 2), axis=(0, 1)), lambda x: np.roll(x, -7)):
        text = _llvm(fn, x)
        assert "gather" not in text and "select <" not in text
        np.testing.assert_array_equal(jc.jit(fn)(x), fn(x))
