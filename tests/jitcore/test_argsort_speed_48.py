"""Long argsorts by words of key and position (codegen/cpu/sort_words.py, argsort48): positions,
dtypes and arguments against NumPy's ``kind='stable'`` argsort (jitcore's promise for every
kind: ties in input order), for floats (NaN, inf, -0.0), ints of every span, ties, all equal,
sorted, reversed and strided lanes, rows; the insertion pass that puts right keys tying in their
kept bits, and its way out to the pair passes; and that the route is the word sort (before
argsort48 the LSD passes of (key, position) pairs, or the kernel's scf loops for int32)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc

DTYPES = ["float64", "float32", "int64", "int32", "uint64", "uint32"]
_argsort = jc.jit(lambda a: np.argsort(a))
_stable = jc.jit(lambda a: np.argsort(a, kind="stable"))
_rows = jc.jit(lambda a: np.argsort(a, axis=-1))


def _check(fn, x, **kw):
    before = x.copy()
    got = fn(x)
    want = np.argsort(x, kind="stable", **kw)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, before)  # the argument is left as it was


def _lanes(dt, n, rng):
    """Lanes of ``n`` of ``dt``: spread values, heavy ties, the edge cases."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0], dtype=dt)
        whole = rng.standard_normal(n).astype(dt) * 1000
        yield "uniform", rng.random(n).astype(dt)
        yield "normal", whole
        yield "special", np.where(rng.random(n) < 0.3, rng.choice(special, n), whole).astype(dt)
        yield "zeros", rng.choice(np.array([0.0, -0.0], dtype=dt), n)
        yield "nans", np.where(rng.random(n) < 0.5, np.nan, whole).astype(dt)
        yield "rounded", np.round(whole / 300).astype(dt)
        yield "tiny", (rng.standard_normal(n) * 1e-300).astype(dt)  # subnormals (f32: zeros)
    else:
        info = np.iinfo(dt)
        whole = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        yield "whole", whole
        yield "close", (rng.standard_normal(n) * 1e7).astype(dt)
        yield "narrow", rng.integers(0, 50, n).astype(dt)
        yield "limits", rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dt), n)
        yield "two values", np.where(rng.random(n) < 0.5, info.min, info.max).astype(dt)
    yield "equal", np.full(n, whole[0], dtype=dt)
    yield "sorted", np.sort(whole)
    yield "reversed", np.sort(whole)[::-1].copy()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [20000, 70000])
def test_long_argsorts_match_numpy_stable(dt, n):
    rng = np.random.default_rng(n)
    for _, x in _lanes(dt, n, rng):
        _check(_argsort, x)
    _check(_stable, x)


@pytest.mark.parametrize("dt", DTYPES)
def test_strided_and_row_argsorts_match_numpy_stable(dt):
    rng = np.random.default_rng(3)
    for _, x in _lanes(dt, 2 * 70000, rng):
        _check(_argsort, x[::2])  # a strided lane
        _check(_rows, x.reshape(4, -1), axis=-1)  # lanes of 35000: tables on the stack
        _check(_rows, x.reshape(2, -1)[:, ::-1], axis=-1)  # of 70000, reversed


def test_million_element_argsorts_match_numpy_stable():
    rng = np.random.default_rng(6)
    for dt in DTYPES:
        for _, x in _lanes(dt, 10**6, rng):
            _check(_argsort, x)


def _low_bit_ties(n, rng, distinct):
    """float64 lanes whose keys need all 64 bits (1e300 and 1.0) and whose values near 1.0
    differ only in their last 24 bits: they tie in the bits kept beside a position."""
    near_one = 1.0 + rng.integers(0, distinct, n) * np.finfo(np.float64).eps
    x = np.where(rng.random(n) < 0.5, near_one, 1e300)
    x[0] = -1e300
    return x


def test_ties_in_the_kept_bits_are_put_right():
    """A few low-bit ties: the insertion pass orders them by the whole keys."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal(70000)
    x[::50] = _low_bit_ties(len(x[::50]), rng, 1 << 24)
    _check(_argsort, x)


@pytest.mark.parametrize("distinct", [1 << 10, 1 << 24])
def test_many_ties_in_the_kept_bits_go_to_the_pair_passes(distinct):
    """Ties past the insertion pass's budget: the lane is sorted again by the LSD passes
    (a lane, a strided one, rows)."""
    x = _low_bit_ties(140000, np.random.default_rng(distinct), distinct)
    _check(_argsort, x[:70000])
    _check(_argsort, x[::2])
    _check(_rows, x.reshape(2, -1), axis=-1)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DTYPES), st.sampled_from([17000, 66000]), st.integers(0, 63),
       st.integers(0, 2**32 - 1))
def test_argsorts_of_any_span_match_numpy_stable(dt, n, bits, seed):
    """Spans of every width (floats: values of every magnitude), with ties and NaNs."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "f":
        x = (rng.standard_normal(n) * 2.0 ** (bits - 32)).astype(dt)
        x[rng.integers(0, n, n // 20)] = np.nan
    else:
        r = random.Random(seed)
        info = np.iinfo(dt)
        span = min(1 << bits, int(info.max) - int(info.min))
        low = r.randint(int(info.min), int(info.max) - span)
        x = np.array([low + r.randint(0, span) for _ in range(n)], dtype=dt)
    x[rng.integers(0, n, n // 10)] = x[0]  # ties
    _check(_argsort, x)


@pytest.mark.parametrize("dt", DTYPES)
def test_long_argsorts_sort_words(dt):
    """A long argsort's kernel sorts 64-bit words of key and position (the shared bucket
    kernels of unsigned 64-bit keys): before argsort48 the LSD passes of pairs (floats, 64-bit
    ints) or the kernel's scf loops (32-bit ints)."""
    text = jc.jit(lambda a: np.argsort(a)).lower(np.zeros(10**5, dtype=dt)).plan().llvm_ir
    assert "jitcore_cpu_sort_buckets_u64_s" in text
    assert ("_word_ties" in text) == (np.dtype(dt).itemsize == 8)  # only 64-bit keys may tie
