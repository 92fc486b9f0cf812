"""Consumers of a compacted selection, against NumPy (session 53, ``jitcore/run_length.py``).

``c = np.flatnonzero(x[1:] != x[:-1]) + 1`` (a selection computed from positions: only the kept
positions are compacted, its values recomputed at them, ``compaction.compaction``) consumed by
``np.concatenate`` with static pieces before, after and between, ``x[c]`` (through the
selection and through a prefix, ``compacted_indices``: the checks of the first count rows
only), ``np.diff``, elementwise ops, sums, ``np.cumsum`` and returns, each bounded by the
count (``array.head_rows``). Run-length encoding as a user writes it, and NumPy's IndexError
for an index past the end. Sizes 0, 1 and 5000 (past ``compacted_indices.COMPACT_MIN``, so
``x[c]`` compacts), data all equal, all different, random runs, one change at either end;
one compiled function per size covers every pattern.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _consumers(x):
    n = x.shape[0]
    c = np.flatnonzero(x[1:] != x[:-1]) + 1
    starts = np.concatenate(([0], c))
    ends = np.concatenate((c, [n]))
    both = np.concatenate(([0], c, [n], c * 2))
    d = np.diff(np.concatenate((starts, [n])))
    t = np.concatenate((x, [5]))  # (ends - 1 is -1 where x is empty: t's last)
    return (c, starts, ends, both, d, np.diff(c), c * 3 - 1, np.cumsum(c), c.sum(), starts.sum(),
            (d * 2).sum(), len(ends), x[c], t[ends - 1], t[both[1:-1] // 2])


def _rle(x):
    n = x.shape[0]
    change = np.flatnonzero(x[1:] != x[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [n])))
    return x[starts], lengths


def _past_end(x):
    c = np.flatnonzero(x[1:] != x[:-1]) + 1
    return x[np.concatenate((c, [x.shape[0]]))]


def _patterns(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(53)
    runs = np.repeat(rng.integers(0, 4, n), rng.integers(1, 6, n))[:n]
    one_first, one_last = np.zeros(n), np.zeros(n)
    one_first[:1], one_last[-1:] = 1, 1
    out = [np.zeros(n), np.arange(n), runs, one_first, one_last]
    return [p.astype(np.uint8) for p in out]


def _same(expected, got) -> None:
    assert type(got) is type(expected) or np.isscalar(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", [0, 1, 5000])
def test_consumers_match_numpy(n):
    f, rle = jc.jit(_consumers), jc.jit(_rle)
    for x in _patterns(n):
        for expected, got in zip(_consumers(x), f(x), strict=True):
            _same(expected, got)
        if n:
            for expected, got in zip(_rle(x), rle(x), strict=True):
                _same(expected, got)


def test_rle_of_nothing_raises_numpys_index_error():
    x = np.zeros(0, np.uint8)
    with pytest.raises(IndexError) as expected:
        _rle(x)
    with pytest.raises(IndexError) as got:
        jc.jit(_rle)(x)
    assert str(got.value) == str(expected.value)


def test_index_past_the_end_raises_numpys_error():
    f = jc.jit(_past_end)
    for x in _patterns(5000)[1:]:  # (all equal: the one index 5000 is past the end too)
        with pytest.raises(IndexError) as expected:
            _past_end(x)
        with pytest.raises(IndexError) as got:
            f(x)
        assert str(got.value) == str(expected.value)


def _windowed_extremes(x, k):
    j = np.arange(x.shape[0])
    top = np.iinfo(np.int64).max
    return (np.min(np.where(j < k, x, 5)), np.max(np.where(j < k, x, -5)), np.min(np.where(j < k, x, top)),
            np.min(np.where(j >= k, top, x)))


def test_min_and_max_of_a_run_time_window():
    """A min or max whose terms past a run-time bound are masked (``codegen/masked_rows.py``):
    over the window alone only where the masked value is the row's start."""
    f = jc.jit(_windowed_extremes)
    x = np.arange(10, 50, dtype=np.int64)
    for k in (0, 1, 7, 40, 41):
        for expected, got in zip(_windowed_extremes(x, k), f(x, k), strict=True):
            _same(expected, got)
