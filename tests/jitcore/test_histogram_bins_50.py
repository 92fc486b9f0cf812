"""np.histogram's bins under jit, bit for bit against NumPy: equal bins by NumPy's own steps
(the index from the distance to the first edge, moved by one across an edge), uneven edges by a
count or a binary search. The draws put values on the edges and one ulp either side, where the
arithmetic and the edges disagree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

FLOATS = (np.float64, np.float32)
INTS = (np.int64, np.int16, np.uint8)


def _on_edges(edges, rng, n, dtype):
    """Values on the edges, one ulp either side, and between them, in ``dtype``."""
    e = edges.astype(dtype) if np.dtype(dtype).kind == "f" else np.round(edges).astype(dtype)
    if np.dtype(dtype).kind == "f":
        near = np.concatenate([e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf)])
    else:
        near = np.concatenate([e, e + 1, e - 1]).astype(dtype)
    return rng.choice(near, n)


def _same(got, want):
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@settings(max_examples=25, deadline=None)
@given(bins=st.integers(1, 90), dtype=st.sampled_from(FLOATS + INTS), seed=st.integers(0, 2**32 - 1),
       with_range=st.booleans(), n=st.sampled_from([0, 1, 7, 300]))
def test_equal_bins_match_numpy_on_the_edges(bins, dtype, seed, with_range, n):
    rng = np.random.default_rng(seed)
    lo, hi = sorted(rng.integers(-40, 40, 2) / rng.choice([1, 3, 7]))
    hi = hi if hi > lo else lo + 1
    kw = {"range": (lo, hi)} if with_range else {}
    edges = np.histogram_bin_edges(np.array([lo, hi]), bins, range=(lo, hi))
    x = _on_edges(edges, rng, n, dtype)
    if not with_range and n:
        x[:2] = np.array([lo, hi]).astype(dtype)[:n]  # the data's own range: the edges above

    def f(x):
        return np.histogram(x, bins, **kw)
    _same(jc.jit(f)(x), f(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_equal_bins_density_and_weights(dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(5000).astype(dtype)
    x[::50] = np.nan
    w = rng.random(5000)

    def f(x, w):
        return (np.histogram(x, 40, range=(-2, 2), weights=w),
                np.histogram(x, 13, range=(-1.5, 3.0), density=True))
    got, want = jc.jit(f)(x, w), f(x, w)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g[0], v[0], rtol=1e-12)
        np.testing.assert_array_equal(g[1], v[1])


@pytest.mark.parametrize("n_edges", [3, 9, 130, 400])
def test_uneven_edges_counted_or_searched(n_edges):
    """A few inner edges are compared with each value, more are searched: both give NumPy's
    bins, a value on an edge in the bin that starts there, the last edge in the last bin."""
    rng = np.random.default_rng(n_edges)
    edges = np.unique(np.round(rng.standard_normal(n_edges) * 3, 1))
    x = np.concatenate([_on_edges(edges, rng, 500, np.float64), [np.nan, np.inf, -np.inf]])

    def f(x):
        return np.histogram(x, edges)

    def g(x, e):
        return np.histogram(x, e)
    _same(jc.jit(f)(x), f(x))
    _same(jc.jit(g)(x, edges), g(x, edges))


def test_data_edges_with_nan_raise_as_numpy_does():
    def f(x):
        return np.histogram(x, 8)
    x = np.array([1.0, np.nan, 3.0])
    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(ValueError):
        jc.jit(f)(x)


def test_too_many_bins_for_the_data_range_raise_as_numpy_does():
    """float32 data at 1e8 (a spacing of 8) over 16 has no room for 8 finite bins: two edges
    round to one, and NumPy raises (jitcore returned the repeated edges). From the data's range
    when the call runs (histogram and histogram_bin_edges, one compile), from range= when
    tracing; a range with room still bins as NumPy does."""
    def f(x):
        return np.histogram(x, 8), np.histogram_bin_edges(x, 8)

    narrow = np.float32([1e8, 1e8 + 8, 1e8 + 16])
    message = r"Too many bins for data range\. Cannot create 8 finite-sized bins\."
    with pytest.raises(ValueError, match=message):
        f(narrow)
    with pytest.raises(ValueError, match=message + r" \(at .*test_histogram_bins_50.py"):
        jc.jit(f)(narrow)
    wide = np.float32([1e8, 1e8 + 64, 1e8 + 128])
    (hist, edges), only_edges = jc.jit(f)(wide)
    (want_hist, want_edges), want_only = f(wide)
    _same((hist, edges), (want_hist, want_edges))
    np.testing.assert_array_equal(only_edges, want_only)
    with pytest.raises(ValueError, match=message):
        jc.jit(lambda x: np.histogram(x, 8, range=(1e8, 1e8 + 16)))(narrow)


def test_select_of_positions_keeps_its_check_unless_both_arms_are_positions():
    """A where() of indices is proved a position only where both arms are (passes/effects.py):
    one arm out of range keeps the gather's check, and NumPy's IndexError."""
    def f(t, c, i):
        return t[np.where(c, 1, i)]

    def g(t, c, i):
        return t[np.where(c, 1, np.clip(i, 0, 3))] * 2.0
    t = np.arange(4.0)
    c = np.array([True, False, True])
    np.testing.assert_array_equal(jc.jit(f)(t, c, np.array([0, 3, 9])), f(t, c, np.array([0, 3, 9])))
    with pytest.raises(IndexError):
        f(t, c, np.array([0, 7, 9]))
    with pytest.raises(IndexError):
        jc.jit(f)(t, c, np.array([0, 7, 9]))
    np.testing.assert_array_equal(jc.jit(g)(t, c, np.array([5, 7, -2])), g(t, c, np.array([5, 7, -2])))


@pytest.mark.parametrize("n_edges", [5, 40])
def test_uneven_edges_with_weights_and_masks(n_edges):
    """With weights, or over a mask's selection, each value's bin is counted or searched."""
    rng = np.random.default_rng(n_edges)
    edges = np.unique(np.round(rng.standard_normal(n_edges) * 3, 1))
    x = np.concatenate([_on_edges(edges, rng, 400, np.float64), [np.nan, np.inf]])
    w = rng.random(x.size)

    def f(x, w):
        return np.histogram(x, edges, weights=w), np.histogram(x[x > -1.0], edges)
    (gw, ge), (mw, me) = jc.jit(f)(x, w), f(x, w)
    np.testing.assert_allclose(gw[0], mw[0], rtol=1e-12)
    np.testing.assert_array_equal(gw[1], mw[1])
    _same(ge, me)
