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
