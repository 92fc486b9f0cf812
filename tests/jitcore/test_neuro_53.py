"""Session 53, a computational neuroscientist's findings: the size guard's check of large
constant tables (an FFT's), the long-compile warning where no loop ran unrolled, and the
kernels behind histogram, nonzero and bincount, each against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitcore as jc
from jitcore import compile_time, new_size
from jitcore.errors import CompileTimeWarning


def _numbers(scalars, *tables):
    found = new_size._Numbers()
    found.scalars = {float(v) for v in scalars}
    found.tables = [np.asarray(t, np.float64) for t in tables]
    return found


def test_a_number_is_new_only_where_neither_the_traces_scalars_nor_its_tables_hold_it():
    traced = _numbers([3, 4096], np.arange(0.0, 100.0), [np.nan, 7.5, -1e6])
    # held by a table, by a scalar, by the symbols; 123.25 and 200 by none
    optimized = _numbers([99, 4096, 123.25, 524288], [7.5, -1e6, np.nan, 200.0])
    new = new_size._new_numbers(traced, optimized, (524288,))
    assert sorted(new[np.isfinite(new)]) == [123.25, 200.0]
    many = np.arange(50.0, 150.0)  # more candidates than the one-by-one comparison takes
    assert sorted(new_size._new_numbers(traced, _numbers([], many), ())) == list(range(100, 150))


@pytest.fixture
def always_warn(monkeypatch):
    monkeypatch.setattr(compile_time, "WARN_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(compile_time, "UNROLLED_OPS", 20)


def test_a_long_program_with_no_loop_names_the_numpy_calls_that_made_it(always_warn):
    def spectrum(x):
        return np.fft.irfft(np.fft.rfft(x - x.mean()) * 2.0, 64)

    x = np.random.default_rng(1).standard_normal(64)
    with pytest.warns(CompileTimeWarning) as caught:
        got = jc.jit(spectrum, cache=False)(x)
    message = str(caught[0].message)
    assert "no loop ran unrolled" in message and "np.fft.rfft (1 call," in message
    assert "np.fft.irfft (1 call," in message and "list or tuple" not in message
    np.testing.assert_allclose(got, spectrum(x), rtol=0, atol=1e-13)


def test_a_long_program_of_an_unrolled_loop_still_blames_the_loop(always_warn):
    def unrolled(x):
        for scale in [(lambda v, k=k: v * (1.0 + k)) for k in range(3)]:
            x = np.fft.irfft(scale(np.fft.rfft(x)), 64)
        return x

    x = np.random.default_rng(2).standard_normal(64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = jc.jit(unrolled, cache=False)(x)
    (message,) = [str(w.message) for w in caught if issubclass(w.category, CompileTimeWarning)]
    assert "no loop ran unrolled" not in message and "unrolled" in message
    np.testing.assert_allclose(got, unrolled(x), rtol=0, atol=1e-12)


def _histogram_cases():
    """41 edges evenly spaced (np.arange, np.linspace, one a little off its place) and not, and
    values on every edge, one ulp either side, outside, NaN and inf (one shape: one compile)."""
    rng = np.random.default_rng(3)
    nudged = np.linspace(-1.0, 3.0, 41)
    nudged[7] += 0.024  # within a quarter bin (0.025) of its place: still guessed
    skewed = np.linspace(-1.0, 3.0, 41)
    skewed[7] += 0.03  # past it: the sorting path
    uneven = np.sort(rng.uniform(-50, 50, 41))
    for edges in (np.arange(-10.0, 10.25, 0.5), np.linspace(0.1, 0.7, 41), nudged, skewed, uneven):
        on = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)])
        data = np.concatenate([rng.uniform(edges[0] - 1, edges[-1] + 1, 3000), on, [np.nan, np.inf, -np.inf]])
        yield data, edges


def test_histograms_of_many_edges_match_numpy_bin_for_bin():
    f = jc.jit(lambda d, e: np.histogram(d, bins=e)[0])
    weighted = jc.jit(lambda d, e, w: np.histogram(d, bins=e, weights=w)[0])
    for data, edges in _histogram_cases():
        np.testing.assert_array_equal(f(data, edges), np.histogram(data, bins=edges)[0])
        w = np.linspace(0.5, 2.0, data.size)
        # (NumPy sums each bin's weights in sorted order: the sums agree to rounding)
        np.testing.assert_allclose(
            weighted(data, edges, w), np.histogram(data, edges, weights=w)[0], rtol=1e-12
        )
    # int values on int edges, float32 values on float64 edges: weights of one count exactly
    for data, edges in (
        (np.arange(-60, 61), np.arange(-50, 51)),
        (np.linspace(-2, 2, 999, dtype=np.float32), np.linspace(-1, 1, 33)),
    ):
        got = weighted(data, edges, np.ones(data.size))
        np.testing.assert_array_equal(got, np.histogram(data, edges)[0])


def test_a_histogram_of_edges_made_in_the_function_matches_numpy():
    def counts(d):
        return np.histogram(d, bins=np.arange(-5.0, 5.01, 0.25))[0]

    data = np.concatenate([np.arange(-6.0, 6.0, 0.125), np.random.default_rng(4).normal(0, 3, 5000)])
    np.testing.assert_array_equal(jc.jit(counts)(data), counts(data))


def test_bincounts_of_nonzeros_positions_match_numpy():
    def counts(m):
        nz = np.nonzero(m)
        return (
            np.bincount(nz[0], minlength=m.shape[0]),
            np.bincount(nz[1], minlength=m.shape[1] + 3),
            np.bincount(nz[2], minlength=m.shape[2]),
            np.bincount(np.flatnonzero(m), minlength=m.size),
            np.bincount(nz[1], minlength=2),  # shorter than the dim: counted as a selection
        )

    f = jc.jit(counts)
    rng = np.random.default_rng(6)
    for m in (rng.random((7, 5, 9)) < 0.3, np.zeros((7, 5, 9), bool), np.ones((7, 5, 9), bool)):
        m = m.copy()
        m[:, 2:, :] = False  # (so that minlength=2 holds every value)
        for got, want in zip(f(m), counts(m)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
