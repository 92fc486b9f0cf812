"""Long int sorts as native code (codegen/cpu/sort_ints.py over sort_buckets.py's buckets with
int sort keys): results, dtypes and inputs against NumPy's np.sort, for each of the routes a
lane's range picks (counted, spread over the width, bucketed as it is), and that the route is
native code (the kernels' scf loops before sort47)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc

INTS = ["int64", "int32", "uint64", "uint32"]
_sort = jc.jit(lambda a: np.sort(a))
_stable = jc.jit(lambda a: np.sort(a, kind="stable"))
_rows = jc.jit(lambda a: np.sort(a, axis=-1))


def _check(fn, x, **kw):
    before = x.copy()
    got = fn(x)
    want = np.sort(x, **kw)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, before)  # the argument is left as it was


def _spans(dt, n, rng):
    """Lanes for each route: a narrow span (counted), values of both signs within +-10^7 (spread
    over the width), the whole range (bucketed as they are), and the edge cases."""
    info = np.iinfo(dt)
    whole = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    yield "narrow", (rng.standard_normal(n) * 1000).astype(dt)
    yield "wide", (rng.standard_normal(n) * 1e7).astype(dt)
    yield "positive", rng.integers(0, 10**8, n).astype(dt)
    yield "whole", whole
    yield "limits", rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dt), n)
    yield "equal", np.full(n, info.max, dtype=dt)
    yield "sorted", np.sort(whole)
    yield "reversed", np.sort(whole)[::-1].copy()
    yield "two values", np.where(rng.random(n) < 0.5, info.min, info.max).astype(dt)


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("n", [3000, 20000, 70000])
def test_long_int_sorts_match_numpy(dt, n):
    rng = np.random.default_rng(n)
    for _, x in _spans(dt, n, rng):
        _check(_sort, x)
    _check(_stable, x, kind="stable")


@pytest.mark.parametrize("dt", ["int64", "int32"])
def test_strided_and_row_int_sorts_match_numpy(dt):
    rng = np.random.default_rng(7)
    for _, x in _spans(dt, 2 * 70000, rng):
        _check(_sort, x[::2])  # a strided lane
        _check(_rows, x.reshape(4, -1), axis=-1)  # lanes of 35000: tables on the stack
        _check(_rows, x.reshape(4, -1)[:, ::3], axis=-1)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(INTS), st.sampled_from([2100, 2500, 3000]), st.integers(0, 63),
       st.integers(0, 2**32 - 1))
def test_int_sorts_of_any_span_match_numpy(dt, n, bits, seed):
    """Spans of every width: counted below the counters, spread or bucketed above."""
    r = random.Random(seed)
    info = np.iinfo(dt)
    span = min(1 << bits, int(info.max) - int(info.min))
    low = r.randint(int(info.min), int(info.max) - span)
    x = np.array([low + r.randint(0, span) for _ in range(n)], dtype=dt)
    x[[r.randrange(n) for _ in range(n // 10)]] = x[0]  # ties
    _check(_sort, x)


@pytest.mark.parametrize("dt", ["int64", "int32", "uint64", "uint32"])
def test_long_int_sorts_are_native(dt):
    """A long int lane's kernel calls the shared bucket kernels of int keys (``sort_buckets``'
    symbols with the kind letter ``i``/``u``): before sort47 it ran the kernel's scf loops."""
    x = np.zeros(10**5, dtype=dt)
    text = jc.jit(lambda a: np.sort(a)).lower(x).plan().llvm_ir
    kind = "u" if dt.startswith("u") else "i"
    assert re.search(rf"jitcore_cpu_sort_buckets_{kind}{np.dtype(dt).itemsize * 8}_s\d+_count", text)


_argsort = jc.jit(lambda a: np.argsort(a))
_argsort_stable = jc.jit(lambda a: np.argsort(a, kind="stable"))


@pytest.mark.parametrize("dt", ["int64", "uint64"])
@pytest.mark.parametrize("n", [3000, 70000])
def test_long_int64_argsorts_match_numpy_stable(dt, n):
    """The LSD passes of keys less the lane's smallest: NumPy's stable order (ties in input
    order), for the default kind as for kind='stable'."""
    rng = np.random.default_rng(n + 1)
    for _, x in _spans(dt, n, rng):
        want = np.argsort(x, kind="stable")
        for fn in (_argsort, _argsort_stable):
            got = fn(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(_argsort(x[::2]), np.argsort(x[::2], kind="stable"))


def test_long_int64_argsort_is_native():
    text = jc.jit(lambda a: np.argsort(a)).lower(np.zeros(10**5, dtype=np.int64)).plan().llvm_ir
    assert "jitcore_cpu_sort_lsd_i64_argsort_scatter" in text
