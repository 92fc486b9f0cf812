"""Session 54: sorts and sort-based NumPy calls, bit for bit against NumPy.

- np.histogram of many uneven edges bins each value by a branchless binary search
  (``reductions._searched_bins``), no sort: every halving count (17 to 70 edges), values on
  the edges and one ulp either side, NaN, +-inf, -0.0 against a 0.0 edge, float32 and int
  values against float64 edges, weights and a mask's selection. One compile per edge count
  (the edges are an argument), many inputs each.
- ``fuse`` keeps the search out of the count's scatter (its loop runs in order; the search's
  alone vectorizes).
- np.partition / argpartition / median take a lane already in order (sorted, all equal) as it
  is, after one read (``sort_select.in_order``): lanes in order but one pair, that pair in the
  first, a middle or the last block of the read, or the very last pair; the partition
  contract checked (tests/jitcore/test_select.py's)."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu.sort_select import IN_ORDER_BLOCK, SMALL
from jitcore.ir.dialects import kernel
from tests.jitcore.test_select import assert_argpartitioned, assert_partitioned


def _uneven_edges(rng, count):
    """``count`` sorted distinct uneven edges, 0.0 among them, rounded so values land on them."""
    pool = np.unique(np.round(rng.standard_normal(8 * count) * 3, 2))
    return np.sort(np.append(rng.choice(pool[pool != 0], count - 1, replace=False), 0.0))


def _near(edges, rng, n, dtype):
    """Values on the edges, one ulp either side, between them, outside them, NaN, +-inf, -0.0."""
    e = edges.astype(dtype)
    near = np.concatenate(
        [
            e,
            np.nextafter(e, -np.inf),
            np.nextafter(e, np.inf),
            rng.uniform(edges[0] - 1, edges[-1] + 1, edges.size).astype(dtype),
        ]
    )
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
    return np.concatenate([rng.choice(near, n), special])


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("count", [18, 33, 70])
def test_uneven_edges_searched_as_numpy_bins(count):
    """Every edge count from ``count`` down a few (a different last halving each, one compile
    for each shape) and data of several dtypes, against NumPy's histogram."""
    rng = np.random.default_rng(count)

    def f(x, e, xi, x32, w, m):
        return (
            np.histogram(x, e)[0],
            np.histogram(xi, e)[0],
            np.histogram(x32, e)[0],
            np.histogram(x, e, weights=w)[0],
            np.histogram(x[m], e)[0],
        )

    jitted = jc.jit(f)
    for k in range(4):
        edges = _uneven_edges(rng, count)
        x = _near(edges, rng, 3000, np.float64)
        xi = np.round(x[np.isfinite(x)] * 2).astype(np.int64)
        x32 = _near(edges, rng, 3000, np.float32)
        w = np.round(rng.random(x.size) * 8)  # small integers: the sums are exact in any order
        m = rng.random(x.size) < 0.5
        if k == 3:  # edges of float32 values: a value and its edge equal only in float64
            edges = edges.astype(np.float32).astype(np.float64)
        for g, want in zip(jitted(x, edges, xi, x32, w, m), f(x, edges, xi, x32, w, m)):
            _same(g, want)


def test_static_edges_and_edge_counts_near_powers_of_two():
    """Static edges (the path chosen while tracing) of 2 (compared), 4, 17, 31, 32, 63 and 65
    inner edges."""
    rng = np.random.default_rng(7)
    for count in (4, 6, 19, 33, 34, 65, 67):
        edges = _uneven_edges(rng, count)
        x = _near(edges, rng, 500, np.float64)
        _same(jc.jit(_histogram_of(edges))(x), np.histogram(x, edges)[0])


def _histogram_of(edges):
    return lambda x: np.histogram(x, edges)[0]


def test_search_is_kept_out_of_the_count():
    """The bin search (several reads of the edges a value) is a kernel of its own, not inlined
    into the scatter that counts the bins."""
    edges = _uneven_edges(np.random.default_rng(1), 40)
    module = jc.jit(lambda x, e: np.histogram(x, e)[0]).lower(np.zeros(1000), edges).optimized()
    scatters = [
        op
        for op in module.walk()
        if isinstance(op, kernel.GenericOp)
        and any(inner.op_name == "kernel.insert" for inner in kernel.body_ops(op))
    ]
    assert scatters
    for op in scatters:
        assert sum(inner.op_name == "kernel.extract" for inner in kernel.body_ops(op)) <= 2


N_IN_ORDER = 3 * IN_ORDER_BLOCK + 100
# the pairs swapped below (None: none), and ranks at both of each pair's places: the contract
# then sees the pair's order
SPOTS = (None, 0, SMALL - 1, SMALL, SMALL + IN_ORDER_BLOCK - 1, SMALL + IN_ORDER_BLOCK, N_IN_ORDER - 2)
KTH = tuple(sorted({300} | {k for w in SPOTS if w is not None for k in (w, w + 1)}))


def _in_order_but_one(dtype, n, where, rng):
    """``n`` sorted values of ``dtype`` (with ties), the pair at ``where`` swapped (None: none)."""
    if np.dtype(dtype).kind == "f":
        x = np.sort(np.round(rng.standard_normal(n) * 4, 1).astype(dtype))
        x[x == 0] = rng.choice(np.array([-0.0, 0.0], dtype), int(np.sum(x == 0)))  # ties of -0.0 and 0.0
    else:
        x = np.sort(rng.integers(0, 100 if dtype == np.uint8 else 10**6, n).astype(dtype))
    if where is not None:
        x[[where, where + 1]] = x[[where + 1, where]]
        if x[where] == x[where + 1]:  # a tie swapped is still in order: make it a descent
            x[where] = x[where + 1] + (1 if np.dtype(dtype).kind != "f" else 0.5)
    return x


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float64])
def test_partitions_of_lanes_in_order_but_one_pair(dtype):
    """Rows in order, all equal, or in order but one pair (at the start, across the short first
    block's end and the next's, the last pair), float rows with NaN at the end or in the middle, as
    rows of one array (one compile): partition, argpartition and median against the contract
    and NumPy's median."""
    rng = np.random.default_rng(5)
    n = N_IN_ORDER
    rows = [_in_order_but_one(dtype, n, w, rng) for w in SPOTS]
    rows.append(np.full(n, 3, dtype))
    if np.dtype(dtype).kind == "f":
        rows.append(np.concatenate([rows[0][:-9], np.full(9, np.nan, dtype)]))
        nan_inside = rows[0].copy()
        nan_inside[n // 2] = np.nan
        rows.append(nan_inside)
    x = np.stack(rows)

    def f(x):
        return np.partition(x, KTH, axis=-1), np.argpartition(x, KTH, axis=-1), np.median(x, axis=-1)

    part, order, median = jc.jit(f)(x)
    for i in range(x.shape[0]):
        assert_partitioned(part[i], x[i], KTH, f"{dtype} row {i}")
        assert_argpartitioned(order[i], x[i], KTH, f"{dtype} row {i}")
    want = np.median(x, axis=-1)
    assert median.dtype == want.dtype
    np.testing.assert_array_equal(median, want)
    # a strided lane (every other element of a longer one) and a lane just past SMALL
    y = np.repeat(rows[2], 2)[::2]
    got = jc.jit(lambda y: np.partition(y, KTH))(y)
    assert_partitioned(got, y, KTH, f"{dtype} strided")
    short = rows[1][:17]
    assert_partitioned(jc.jit(lambda z: np.partition(z, (0, 8)))(short), short, (0, 8), f"{dtype} 17")


def test_histogramdd_of_many_edges_searched():
    """histogram2d / histogramdd bin each dimension by the same search where it has more than
    ``_COUNTED_EDGES`` inner edges (equal bins from a count too): values on the edges, one ulp
    either side, NaN, +-inf; one dimension searched and one counted; weights."""
    rng = np.random.default_rng(11)
    e0, e1 = _uneven_edges(rng, 40), np.linspace(-2.0, 3.0, 12)
    x, y = _near(e0, rng, 2000, np.float64), _near(e1, rng, 2000, np.float64)
    w = np.round(rng.random(x.size) * 8)

    def f(x, y, w):
        return (
            np.histogram2d(x, y, bins=[e0, e1])[0],
            np.histogram2d(x, y, bins=50, range=[[-3, 3], [-2, 3]])[0],
            np.histogramdd(np.stack([y, x], axis=1), bins=(e1, e0), weights=w)[0],
        )

    for got, want in zip(jc.jit(f)(x, y, w), f(x, y, w)):
        _same(got, want)
