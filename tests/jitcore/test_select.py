"""np.partition, np.argpartition, median and quantiles by selection (``codegen/cpu/sort_select.py``;
the nan-forms and a traced q at ranks found when the function runs, ints counted where their
span is small)
against NumPy: the partition contract (the kth element where sorting puts it, none after it
before it, none before it after it, NaN last; argpartition's positions a permutation that
partitions), not NumPy's arrangement of the other elements, which is its introselect's; medians
and quantiles equal to NumPy's. Lanes of 1..3000 elements hold NaN, infinities, zeros of both
signs and the inputs that break naive quickselects (sorted, reversed, all equal, organ pipe, a
few distinct values). One jitted function serves many lengths where its ranks stay the same
numbers (a new length reuses the code), and the heapsort guard runs on its own.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import sort_select
from tests.budget import examples
from tests.strategies import ordinary, specials

PATTERNS = ("random", "specials", "sorted", "reversed", "equal", "organ_pipe", "few", "sawtooth")
KTH = (3, 40, 300)  # the same ranks at every length from 301: one code for them all
DTYPES = [np.dtype(t) for t in ("f8", "f4", "f2", "i1", "u2", "i8", "?")]


def lane(dtype: np.dtype, n: int, pattern: str, seed: int) -> np.ndarray:
    """``n`` values of ``dtype`` in ``pattern``: the adversarial orders are of random values."""
    rng = np.random.default_rng(seed)
    if pattern == "specials" or dtype.kind == "b":
        pool = np.concatenate([specials(dtype), ordinary(dtype)])
        return rng.choice(pool, n)
    if pattern == "few":
        return rng.choice(np.concatenate([specials(dtype), ordinary(dtype)])[:4], n)
    if pattern == "equal":
        return np.full(n, ordinary(dtype)[1], dtype)
    base = np.sort(rng.choice(ordinary(dtype), n) if dtype.itemsize == 1 else
                   (rng.standard_normal(n) * 100).astype(dtype))
    if pattern == "random":
        return rng.permutation(base)
    if pattern == "reversed":
        return base[::-1].copy()
    if pattern == "organ_pipe":
        return np.concatenate([base[0::2], base[1::2][::-1]])
    if pattern == "sawtooth":
        return np.concatenate([base[i::7] for i in range(7)])
    return base


def assert_partitioned(part: np.ndarray, a: np.ndarray, kth, context: str) -> None:
    """``part`` holds ``a``'s lane values (last axis) with each kth one where sorting puts it,
    none sorting after it before it and none sorting before it after it (NaN sorts last)."""
    want = np.sort(a, axis=-1)
    floats = a.dtype.kind == "f"
    assert part.dtype == a.dtype and part.shape == a.shape, context
    assert np.array_equal(np.sort(part, axis=-1), want, equal_nan=floats), context
    for k in np.atleast_1d(kth) % a.shape[-1]:
        v = part[..., k:k + 1]
        assert np.array_equal(v, want[..., k:k + 1], equal_nan=floats), f"rank {k}: {context}"
        left, right = part[..., :k], part[..., k + 1:]
        if floats:
            assert np.all((left <= v) | np.isnan(v)), f"left of {k}: {context}"
            assert np.all((right >= v) | np.isnan(right)), f"right of {k}: {context}"
        else:
            assert np.all(left <= v) and np.all(right >= v), f"rank {k}: {context}"


def assert_argpartitioned(order: np.ndarray, a: np.ndarray, kth, context: str) -> None:
    assert order.dtype == np.int64
    assert np.array_equal(np.sort(order, axis=-1), np.broadcast_to(np.arange(a.shape[-1]), a.shape))
    assert_partitioned(np.take_along_axis(a, order, axis=-1), a, kth, context)


def _partitions(*lanes):
    """Each lane partitioned at ``KTH``, and the f8 and i8 ones argpartitioned: one function."""
    parts = tuple(np.partition(x, KTH) for x in lanes)
    return parts + (np.argpartition(lanes[0], KTH), np.argpartition(lanes[5], KTH))


PARTITIONS = jc.jit(_partitions)


@settings(max_examples=examples(8, ci=4), deadline=None)  # ci: ~0.4 s of CPU a new length
@given(n=st.integers(301, 3000), pattern=st.sampled_from(PATTERNS), seed=st.integers(0, 2**16))
def test_partition_contract_across_lengths(n, pattern, seed):
    lanes = [lane(dt, n, pattern, seed) for dt in DTYPES]
    got = PARTITIONS(*lanes)
    for dt, x, part in zip(DTYPES, lanes, got):
        assert_partitioned(part, x, KTH, f"{dt} {pattern} n={n} seed={seed}")
    for x, order in zip((lanes[0], lanes[5]), got[len(DTYPES):]):
        assert_argpartitioned(order, x, KTH, f"{x.dtype} {pattern} n={n} seed={seed}")


def test_a_new_length_reuses_the_code():
    """Lengths 301..3000 at the same ranks reuse one code. The ranks are run-time values
    (``loops.derived``), so a rank that a length's form gives (300 at n = 1500: ``n // 5``) is
    taken for that form there and compiles once more; 1000, 1234 and 2345 give none."""
    PARTITIONS(*[lane(dt, 1000, "random", 0) for dt in DTYPES])
    before = PARTITIONS.cache_info()
    for n in (1234, 2345):
        PARTITIONS(*[lane(dt, n, "random", n) for dt in DTYPES])
    info = PARTITIONS.cache_info()
    assert info.compiles == before.compiles and info.reused == before.reused + 2, info


@settings(max_examples=examples(6, ci=3), deadline=None)
@given(n=st.integers(1, 3000), pattern=st.sampled_from(PATTERNS), seed=st.integers(0, 2**16),
       axis=st.sampled_from((0, 1)))
def test_rows_columns_middle_and_last_ranks(n, pattern, seed, axis):
    """Three lanes of patterns along either axis, at the middle, the ends and beside them."""
    a = np.stack([lane(np.dtype("f8"), n, p, seed + i) for i, p in enumerate((pattern, "specials", "few"))])
    a = a if axis == 1 else np.ascontiguousarray(a.T)
    kth = sorted({0, n // 2, max(n // 2 - 1, 0), n - 1})
    part, order = jc.jit(lambda x: (np.partition(x, kth, axis=axis), np.argpartition(x, kth, axis=axis)))(a)
    lanes_last = (lambda v: v) if axis == 1 else (lambda v: v.T)
    context = f"{pattern} n={n} seed={seed} axis={axis}"
    assert_partitioned(lanes_last(part), lanes_last(a), kth, context)
    assert_argpartitioned(lanes_last(order), lanes_last(a), kth, context)


@settings(max_examples=examples(6, ci=2), deadline=None)  # ci: a compile each (5 selections)
@given(n=st.integers(1, 3000), pattern=st.sampled_from(PATTERNS), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([np.dtype(t) for t in ("f8", "f4", "i8", "u2")]))
def test_median_and_quantiles_equal_numpys(n, pattern, seed, dtype):
    """Values (and NaN) as NumPy's for the median, interpolated and discrete quantiles."""
    a = np.stack([lane(dtype, n, p, seed + i) for i, p in enumerate((pattern, "specials", "random"))])

    def stats(x):
        return (np.median(x, axis=1), np.quantile(x, [0.0, 0.3, 0.5, 1.0], axis=1),
                np.quantile(x, [0.1, 0.9], axis=1, method="nearest"),
                np.percentile(x, 37, axis=1, method="midpoint"),
                np.quantile(x, 0.75, axis=1, method="median_unbiased"))

    for got, want in zip(jc.jit(stats)(a), stats(a)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, f"{dtype} {pattern} n={n} seed={seed}")


INT_DTYPES = [np.dtype(t) for t in ("i8", "i4", "u2", "i1", "u8")]


def _int_partitions(*lanes):
    return tuple(np.partition(x, KTH, axis=-1) for x in lanes)


INT_PARTITIONS = jc.jit(_int_partitions)


def int_lane(dtype: np.dtype, n: int, span: int, seed: int) -> np.ndarray:
    """``n`` ints of ``dtype`` whose largest less smallest is ``span`` (clipped to the dtype's
    range; both ends present), shuffled."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    span = min(span, int(info.max) - int(info.min))
    low = int(info.min) + int(rng.integers(0, int(info.max) - int(info.min) - span + 1, dtype=np.uint64))
    values = low + rng.integers(0, span + 1, n, dtype=np.uint64).astype(object)
    values[:2] = (low, low + span)
    return rng.permutation(np.array(values.tolist(), dtype=dtype))


@settings(max_examples=examples(8, ci=4), deadline=None)  # ci: one compile, then ~ms a length
@given(n=st.integers(301, 40000), seed=st.integers(0, 2**16),
       spans=st.lists(st.sampled_from(("third", "length-1", "length", "slots-1", "slots", "whole")),
                      min_size=2, max_size=2))
def test_int_lanes_counted_or_selected(n, seed, spans):
    """Rows of ints whose spans lie on either side of the counting sort's limits (below the
    lane's length and below ``COUNT_SLOTS``; the whole range of the dtype), one row each way:
    each row is counted or selected on its own, and partitioned either way."""
    span_of = {"third": n // 3, "length-1": n - 1, "length": n, "slots-1": sort_select.COUNT_SLOTS - 1,
               "slots": sort_select.COUNT_SLOTS, "whole": 2**64}
    lanes = [np.stack([int_lane(dt, n, span_of[s], seed + i) for i, s in enumerate(spans)])
             for dt in INT_DTYPES]
    for dt, x, part in zip(INT_DTYPES, lanes, INT_PARTITIONS(*lanes)):
        assert_partitioned(part, x, KTH, f"{dt} {spans} n={n} seed={seed}")


METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "median_unbiased", "normal_unbiased")
NAN_LANE = 37


def nan_lanes(dtype: np.dtype, seed: int) -> np.ndarray:
    """38 lanes of 37 values in the patterns (specials too), lane i holding i NaNs: every
    count of numbers a lane can have, 0 and 1 included, at one shape (one compile)."""
    rng = np.random.default_rng(seed)
    rows = []
    for nans in range(NAN_LANE + 1):
        x = lane(dtype, NAN_LANE, PATTERNS[nans % len(PATTERNS)], seed + nans)
        x[rng.permutation(NAN_LANE)[:nans]] = np.nan
        rows.append(x)
    return np.stack(rows)


def _order_statistics(method: str):
    def stats(a, q):
        return (np.nanquantile(a, q, axis=1, method=method), np.quantile(a, q, axis=1, method=method),
                np.nanmedian(a, axis=1), np.nanpercentile(a[3], q * 100, method=method))
    return stats


ORDER_STATISTICS = {m: jc.jit(_order_statistics(m)) for m in METHODS}


@settings(max_examples=examples(13, ci=2), deadline=None)  # ci: 2-3 s a method and dtype (a compile)
@given(method=st.sampled_from(METHODS), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([np.dtype("f8"), np.dtype("f4")]),
       q=st.lists(st.sampled_from([0.0, 1.0, 0.5]) | st.floats(0, 1), min_size=4, max_size=4))
def test_nan_quantiles_and_a_traced_q_select_per_lane(method, seed, dtype, q):
    """nanquantile, nanpercentile, nanmedian and quantile at a traced q select the ranks each
    lane's count of numbers asks for when the function runs (``array.partition_at``): equal to
    NumPy's for every method, lanes of 0..37 numbers (a zero's sign at a rank is each
    algorithm's own choice among equal elements, and not compared)."""
    a, qs = nan_lanes(dtype, seed), np.array(q)
    want = _order_statistics(method)(a, qs)
    for got, expected in zip(ORDER_STATISTICS[method](a, qs), want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected, f"{method} {dtype} q={q} seed={seed}")


def test_run_time_ranks_in_any_order_repeated_or_outside():
    """``partition_at``'s ranks per lane: unsorted, repeated, negative and past the lane (those
    ask for nothing); float lanes with NaN, int lanes counted or selected, a strided view."""
    from jitcore import primitives as prims

    rng = np.random.default_rng(5)
    floats = np.stack([lane(np.dtype("f8"), 300, p, i) for i, p in enumerate(PATTERNS)])
    ints = np.stack([int_lane(np.dtype("i8"), 300, span, i) for i, span in enumerate((50, 10**6) * 4)])
    ranks = rng.integers(-3, 303, (len(PATTERNS), 9))
    ranks[:, 4] = ranks[:, 3]
    f = jc.jit(lambda x, y, r: (prims.partition_at(x, 1, r), prims.partition_at(y[:, ::-1], 1, r)))
    for x, part in zip((floats, ints[:, ::-1]), f(floats, ints, ranks)):
        for row, got, wanted in zip(x, part, ranks):
            asked = sorted({int(k) for k in wanted if 0 <= k < 300})
            assert_partitioned(got, row, asked, f"{x.dtype} {wanted}")


def test_more_ranks_than_bisected_are_selected_in_turn():
    """Over ``BISECT_UP_TO`` ranks a lane, constant (a table) or found when the function runs
    (45 q: 90 neighbours), select one after another."""
    a = np.stack([lane(np.dtype("f8"), 700, p, 9) for p in ("specials", "random", "few")])
    kth = list(range(0, 700, 7))
    q = np.linspace(0, 1, 45)
    assert len(kth) > sort_select.BISECT_UP_TO and 2 * len(q) > sort_select.BISECT_UP_TO
    part, nan_q = jc.jit(lambda x, q: (np.partition(x, kth), np.nanquantile(x, q, axis=1)))(a, q)
    assert_partitioned(part, a, kth, "constant ranks")
    np.testing.assert_array_equal(nan_q, np.nanquantile(a, q, axis=1))


@pytest.fixture
def always_heapsort(monkeypatch):
    monkeypatch.setattr(sort_select, "ROUNDS_PER_BIT", 0)


@pytest.mark.usefixtures("always_heapsort")
def test_the_heapsort_guard_alone():
    """The fallback that bounds the worst case, run on every range (no quickselect round)."""
    a = np.stack([lane(np.dtype("f8"), 700, p, 7) for p in PATTERNS])
    kth = (0, 1, 349, 350, 698, 699)
    part, order = jc.jit(lambda x: (np.partition(x, kth), np.argpartition(x, kth)), cache=False)(a)
    assert_partitioned(part, a, kth, "heapsort")
    assert_argpartitioned(order, a, kth, "heapsort")


def test_partitions_of_many_lanes_by_the_network():
    """Enough lanes that the sort network takes them (``kernelize/sort.py``'s NETWORK_LANES):
    rows and columns, with the specials, partitioned and argpartitioned."""
    rng = np.random.default_rng(3)
    a = np.stack([lane(np.dtype("f4"), 60, PATTERNS[i % len(PATTERNS)], i) for i in range(40)])
    a[rng.random(a.shape) < 0.05] = np.nan
    kth = (0, 17, 29, 30, 59)
    part, order = jc.jit(lambda x: (np.partition(x, kth, axis=1), np.argpartition(x.T, kth, axis=0)))(a)
    assert_partitioned(part, a, kth, "rows")
    assert_argpartitioned(order.T, a, kth, "columns")


def test_a_rank_just_past_a_run_of_equals():
    """The rank right after the range's least value's run (the equal pass's end): one 1 among
    600 zeros and 399 twos, so that the answer is the 1 and not any element after the zeros."""
    rng = np.random.default_rng(11)
    a = np.stack([rng.permutation(np.repeat([0.0, 1.0, 2.0], [600, 1, 399])) for _ in range(8)])
    part = jc.jit(lambda x: np.partition(x.astype(np.int8), (600,)))(a)
    assert_partitioned(part, a.astype(np.int8), (600,), "equals")


def test_a_traced_kth_names_the_argument_to_make_static(without_auto_static):
    def top(x, k):
        return np.sort(x[np.argpartition(x, -k)[-k:]])

    x = np.arange(10.0)[::-1]
    with pytest.raises(jc.ConcretizationError, match=r"static_argnames=\('k',\)"):
        jc.jit(top)(x, 3)
    np.testing.assert_array_equal(jc.jit(top, static_argnames="k")(x, 3), [7.0, 8.0, 9.0])


def _medians(f, i):
    return np.median(f, axis=1), np.median(i.T, axis=0, keepdims=True)


MEDIANS = jc.jit(_medians)


def test_a_median_compiles_once_a_parity_of_the_length():
    """A median's ranks (``n // 2 - 1``, ``n // 2``, the last for NaN) are run-time values
    (``loops.derived``), and so are the reads of the middle: every even length runs one code,
    every odd one another. Floats with the specials (NaN, -0.0, infinities), int64 at its
    limits; values as NumPy's."""
    for n in (1000, 1234, 1001, 2047):
        f = np.stack([lane(np.dtype("f8"), n, p, n) for p in ("specials", "few", "random")])
        i = np.stack([lane(np.dtype("i8"), n, p, n) for p in ("specials", "random", "reversed")])
        i[1, :2] = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        for got, want in zip(MEDIANS(f, i), _medians(f, i)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, f"n={n}")
    info = MEDIANS.cache_info()
    assert info.compiles == 2 and info.reused == 2, info
