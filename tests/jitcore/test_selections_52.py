"""Sorts and orders of selections (session 52, ``jitcore/run_length.py``), against NumPy.

``np.sort(x[m])`` sorts the compacted selection over its kept count only (``array.head_sort``,
``codegen/cpu/sort_head.py``); ``np.unique`` of a selection with ``return_index`` and
``return_inverse``, ``np.diff`` with ``prepend=``/``append=``, ``y.sort()`` in place,
``np.sort(y)[::-1]`` and ``y[np.argsort(y)]``: NumPy's dtype, shape and values (sorts: the
bits of ``kind='stable'``, NaNs last in input order), for float32, float64 and int64 selections
keeping none, one, some or all. One compiled function per dtype covers every mask.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitTypeError

N = 40  # more than the merge loops' run (16): the CPU's own routine sorts it


def _orders(x, m):
    s = x[m]
    u = x[m]
    u.sort(kind="stable")
    at = np.flatnonzero(m[::-1])  # positions sorted in place: their values, not where they are
    at.sort()
    first, index, inverse, counts = np.unique(s, return_index=True, return_inverse=True, return_counts=True)
    return (
        np.sort(s, kind="stable"),
        np.sort(s, kind="stable")[::-1],
        u,
        s[np.argsort(s, kind="stable")],
        first,
        index,
        inverse,
        counts,
        np.unique(s, return_inverse=True)[1],
        np.diff(s, prepend=0, append=x[:2]),
        np.diff(s, 2, prepend=x[3]),
        at,
    )


def _statistics(x, m):
    t = np.sort(x[np.isfinite(x) & m])
    k = len(t) // 10
    s = x[m]
    return t[k : len(t) - k].mean(), np.median(s), np.percentile(s, 90), s[np.array([0, -1])]


_JITTED = {}


def _jit(fn):
    if fn not in _JITTED:
        _JITTED[fn] = jc.jit(fn)
    return _JITTED[fn]


def _values(dtype, rng):
    if dtype == np.int64:
        x = rng.integers(-5, 6, N)
        x[[3, 11]] = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        return x
    x = np.round(rng.standard_normal(N) * 3).astype(dtype)  # ties, 0.0 and -0.0
    x[[2, 9, 30]] = np.nan
    x[[5, 17]] = -0.0, np.inf
    x[21] = -np.inf
    payload = np.array(np.nan, dtype).view(np.uint64 if dtype == np.float64 else np.uint32) | 5
    x[26] = payload.view(dtype)  # a NaN of other bits: moved as it is
    return x


def _masks(rng):
    one = np.zeros(N, bool)
    one[2] = True  # a NaN (an int elsewhere), kept alone
    last = np.zeros(N, bool)
    last[-1] = True
    return {
        "none": np.zeros(N, bool),
        "one": one,
        "last": last,
        "all": np.ones(N, bool),
        "half": rng.random(N) < 0.5,
    }


def _same(got, want, bits: bool):
    assert type(got) is type(want), (type(got), type(want))
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
    np.testing.assert_array_equal(got, want)
    if bits:
        assert got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_orders_of_a_selection(dtype):
    rng = np.random.default_rng(52)
    x = _values(dtype, rng)
    for m in _masks(rng).values():
        got = _jit(_orders)(x, m)
        want = _orders(x, m)
        assert len(got) == len(want)
        for k, (a, b) in enumerate(zip(got, want)):
            # the unique values: NumPy's quicksort picks one of -0.0 and 0.0 (values equal)
            _same(a, b, bits=k != 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_statistics_of_a_selection(dtype):
    rng = np.random.default_rng(7)
    x = _values(dtype, rng)
    for m in _masks(rng).values():
        if not m.any():
            continue  # (NumPy's percentile of nothing raises, its median warns)
        got, want = _jit(_statistics)(x, m), _statistics(x, m)
        for a, b in zip(got, want):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)


def test_long_selections_by_the_quicksort():
    """Counts where the quicksort partitions (and its threads, past 2^15 keys), float keys
    with NaNs, zeros of both signs and ties; the rows left out are never read. Then sliced:
    past 2^16 rows the selection's positions are not folded to a constant."""
    rng = np.random.default_rng(3)
    sort = _jit(_sorted_inner)
    for n, keep in ((3000, 0.5), (70000, 0.9)):
        x = rng.standard_normal(n)
        x[rng.random(n) < 0.05] = np.nan
        x[rng.random(n) < 0.05] = -0.0
        x[rng.random(n) < 0.05] = 0.0
        m = rng.random(n) < keep
        for got, want in zip(sort(x, m), _sorted_inner(x, m)):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def _sorted_inner(x, m):
    s = np.sort(x[m], kind="stable")
    return s, s[3:-3]


def _sorted(x, m):
    return np.sort(x[m])


def _sorted_short(x, m):  # (a function of its own: compiled at a capacity of 12)
    return np.sort(x[m])


def test_short_capacity_by_the_merge_loops():
    """A capacity of 16 or fewer: the kernel's own insertion loops, over the count only."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal(12)
    x[4] = np.nan
    for keep in (0.0, 0.3, 0.7, 1.0):
        m = rng.random(12) < keep
        got = _jit(_sorted_short)(x, m)
        assert got.tobytes() == np.sort(x[m], kind="stable").tobytes()


def test_radix_way_out(monkeypatch):
    """The quicksort gives up at once (no depth): the LSD passes sort the kept count."""
    from jitcore.codegen.cpu import sort_head

    monkeypatch.setattr(sort_head, "DEPTH", 0)
    rng = np.random.default_rng(4)
    x = rng.standard_normal(500).astype(np.float32)
    x[::7] = np.nan
    x[::11] = -0.0
    m = rng.random(500) < 0.6
    got = jc.jit(_sorted_out_of_cache, cache=False)(x, m)
    want = np.sort(x[m], kind="stable")
    assert got.tobytes() == want.tobytes()


def _sorted_out_of_cache(x, m):  # (a function of its own, compiled anew)
    return np.sort(x[m])


def test_refusals_name_the_line():
    def by_axis(x, m):
        return np.unique(x[m], axis=0)

    with pytest.raises(JitTypeError, match=r"numpy.unique with axis=.*test_selections_52.py:\d+"):
        jc.jit(by_axis)(np.ones(4), np.ones(4, bool))

    def rows(x, m):
        return np.diff(x[m], axis=1, prepend=np.zeros((2, 1)))

    with pytest.raises(JitTypeError, match=r"prepend= or append= that is not one value.*test_selections_52"):
        jc.jit(rows)(np.ones((4, 3)), np.ones(4, bool))


def test_index_past_the_count_raises():
    def past(x, m, i):
        return x[m][i]

    with pytest.raises(IndexError):
        jc.jit(past)(np.arange(5.0), np.array([1, 0, 1, 0, 0], bool), np.array([0, 2]))


def test_merge_loops_on_the_emulated_gpu(monkeypatch):
    """The kernel's merge passes over the count (what a GPU runs), past one run of 16."""
    from tests.gpu_emulator import emulate

    emulate(monkeypatch)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(50)
    x[[3, 8]] = np.nan, -0.0
    m = rng.random(50) < 0.6
    got = np.asarray(jc.jit(_sorted_on_gpu, backend="cuda")(x, m))
    assert got.tobytes() == np.sort(x[m], kind="stable").tobytes()


def _sorted_on_gpu(x, m):
    return np.sort(x[m])


def _counts_of_ones(x):
    ones = np.ones_like(x, dtype=np.int64)
    return np.cumsum(ones, axis=0), np.cumsum(ones, axis=1), np.cumsum(ones), np.cumsum(ones + 1, axis=1)


def test_running_counts_of_ones():
    """A running sum of int64 ones (a selection's positions) is each position plus one, with
    nothing carried; of other values it stays a scan."""
    x = np.zeros((3, 30000))  # (past 2^16 elements: not folded to a constant)
    got, want = jc.jit(_counts_of_ones)(x), _counts_of_ones(x)
    for a, b in zip(got, want):
        _same(a, b, bits=True)
