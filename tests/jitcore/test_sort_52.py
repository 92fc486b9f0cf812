"""Sorts of few distinct values (sortperf52): the quicksort's segments whose sample holds at most
two values, checked by one read and settled (``sort_quick._settle_few``: in the sort, the
threaded split rounds and the selections), one-thread float64 lanes sent to the quicksort where
a sample repeats (``sort._sample_repeats``), and counting sorts of ints with several counters a
key (``sort_ints.WAYS``). Against NumPy: np.sort's bits as ``kind='stable'`` (jitcore's order
for every kind: -0.0 and 0.0, NaNs' payloads in input order), argsort's positions as
``kind='stable'`` (docs/numpy_support.md), partition's contract, median's and unique's values;
dtypes, types and the argument after the call. The kernel alone at several vector widths, with
one other key at the places the check's read can miss (first vector, last whole vector, the
overlapping last one)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.backend import backend_for
from jitcore.codegen.cpu import sort_ints, sort_quick

FLOATS = ["float64", "float32"]


def _bits(a):
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64)


def _few(kind: str, n: int, dt, rng) -> np.ndarray:
    x = {
        "bools": lambda: rng.integers(0, 2, n) * 1.0,
        "four": lambda: rng.integers(0, 4, n) * 2.5 - 3.0,
        "equal": lambda: np.full(n, -7.25),
        "zeros": lambda: rng.choice(np.array([0.0, -0.0]), n),  # equal as floats: signs restored
        "two_and_one": lambda: np.where(np.arange(n) == n - 2, 9.0, rng.integers(0, 2, n) * 1.0),
        "nans": lambda: np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n) * 1.0),
        "ten": lambda: rng.integers(-5, 5, n) * 1.0,
    }[kind]()
    return np.ascontiguousarray(x).astype(dt)


KINDS = ["bools", "four", "equal", "zeros", "two_and_one", "nans", "ten"]
_sort = jc.jit(lambda a: np.sort(a))
_argsort = jc.jit(lambda a: np.argsort(a))
_median = jc.jit(lambda a: np.median(a))
_unique = jc.jit(lambda a: np.unique(a))
_strided = jc.jit(lambda a: np.sort(a[::2]))


def _check_sort(x):
    before = x.copy()
    got, want = _sort(x), np.sort(x, kind="stable")
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))
    np.testing.assert_array_equal(_bits(x), _bits(before))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dt", FLOATS)
def test_few_values_sorted(dt, threads):
    """40000 keys: the quicksort at both widths; 150001 float64: the radix path's length on
    one thread (now the quicksort where a sample repeats), the threaded rounds on two."""
    rng = np.random.default_rng(52)
    with jc.config.using(num_threads=threads):
        for n in (40000, 150001) if dt == "float64" else (40000,):
            for kind in KINDS:
                _check_sort(_few(kind, n, dt, rng))


def test_few_values_argsort_median_unique():
    rng = np.random.default_rng(7)
    for dt in ("float64", "float32", "int32"):
        for kind in ("bools", "four", "equal", "nans"):
            x = _few(kind, 30001, dt if dt.startswith("float") else "float64", rng)
            if dt.startswith("int"):
                x = np.nan_to_num(x, nan=1.0).astype(dt)
            got, want = _argsort(x), np.argsort(x, kind="stable")
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)  # equal keys in input order
            got, want = _median(x), np.median(x)
            assert type(got) is type(want)
            np.testing.assert_array_equal(got, want)
            got, want = _unique(x), np.unique(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", FLOATS)
def test_few_values_partition(dt):
    """The selections settle such a segment too: every kth where sorting puts it, nothing
    larger before it, nothing smaller after it; argpartition a permutation that does it."""
    rng = np.random.default_rng(11)
    part = jc.jit(lambda a: np.partition(a, (0, 3001, 29999)))
    arg = jc.jit(lambda a: np.argpartition(a, 15000))
    for kind in KINDS:
        x = _few(kind, 30000, dt, rng)
        for got, ks in ((part(x), (0, 3001, 29999)), (x[arg(x)], (15000,))):
            want = np.sort(x)
            np.testing.assert_array_equal(np.sort(got), want)
            for k in ks:
                np.testing.assert_array_equal(got[k], want[k])
                assert not np.any(got[:k] > got[k]) and not np.any(got[k + 1 :] < got[k])


# The kernel alone: the keys hold no NaN (sort.py moves them out first).
_kernels = {}


def _kernel(width: int, lanes: int):
    """The sort's entry, the process's own copy (``sort_quick.load_shared``, as a jitted sort
    loads it; compiled once a process, shared with tests/jitcore/test_float_sort_49.py)."""
    if (width, lanes) not in _kernels:
        symbol = sort_quick.shared_symbol(width, lanes)
        sort_quick.load_shared(symbol, backend_for("cpu")._compile_and_load)
        _kernels[width, lanes] = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                                  ctypes.c_int64)(sort_quick._loaded[symbol])
    return _kernels[width, lanes]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    width_lanes=st.sampled_from([(64, 8), (32, 16), (32, 4)]),
    n=st.integers(300, 3000),
    where=st.sampled_from(["first", "last_whole", "last", "middle", "none"]),
    values=st.sampled_from([(1.0,), (-0.0, 0.0), (2.0, -1.0), (3.0, 4.0)]),
    odd=st.sampled_from([-5.0, 3.5, 10.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernel_other_key_anywhere(width_lanes, n, where, values, odd, seed):
    """One key of a third value where the check's read could miss it: the first vector, the
    last whole vector, the overlapping last keys, the middle; or none."""
    width, lanes = width_lanes
    if (width, lanes) == (64, 8) or (width, lanes) == (32, 16):
        _sort(np.zeros(40000, f"float{width}"))  # the module loaded (where the target takes it)
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array(values), n).astype(f"float{width}")
    # "last": among the last keys, past the last whole vector where n % lanes > 1 (key n - 1
    # is in the pivot's sample, which then holds three values)
    at = {"first": 0, "last_whole": (n // lanes) * lanes - 1, "last": n - 2, "middle": n // 2, "none": None}[
        where
    ]
    if at is not None:
        x[at] = odd
    data = x.copy()
    assert _kernel(width, lanes)(data.ctypes.data, n, sort_quick.depth_limit(n)) == 0
    np.testing.assert_array_equal(data, np.sort(x))  # -0.0 == 0.0: equal keys, any order
    assert np.signbit(data[data == 0]).sum() == np.signbit(x[x == 0]).sum()


@pytest.mark.parametrize("dt", ["int64", "int32"])
def test_counting_sort_across_its_ways(dt):
    """Lanes of 2^16 keys or more count spans below 2^16: with WAYS counters a key up to
    2^16 / WAYS values, one counter a key above; runs of equal keys, strided lanes."""
    rng = np.random.default_rng(3)
    n = 70001
    limit = (1 << 16) // sort_ints.WAYS
    for span in (0, 1, 3, limit - 1, limit, (1 << 16) - 1):
        x = (rng.integers(0, span + 1, n) - 20000).astype(dt)
        x[:3] = (-20000, -20000 + span, -20000)  # the span exactly
        x[1000:9000] = x[5]  # a run of one key
        _check_sort(x)
        wide = np.repeat(x, 2)
        np.testing.assert_array_equal(_strided(wide), np.sort(x))


@pytest.mark.parametrize("dt", FLOATS)
def test_threaded_round_0_by_blocks(dt):
    """Round 0 of the threaded sort partitions two blocks apart and swaps keys between them:
    as many above the pivot in block 0 as below it in block 1, fewer, more, all (the halves'
    values crossed), and a pivot with nothing below it (round 0 again by ``<=``)."""
    n = 3 * (1 << 15) + 7
    rng = np.random.default_rng(29)
    high_then_low = np.concatenate([rng.random(n // 2) + 2.0, rng.random(n - n // 2)])
    sampled_zeros = np.zeros(n)
    sampled_zeros[[1, 7, 12345]] = (3.0, -0.0, 4.0)  # unsampled: the sample is 0.0 and 5.0
    sampled_zeros[-1] = 5.0
    lanes = [
        rng.random(n),
        np.sort(rng.random(n)),
        np.sort(rng.random(n))[::-1],
        high_then_low,
        sampled_zeros,
        np.where(rng.random(n) < 0.9, 0.0, rng.random(n)),
    ]
    with jc.config.using(num_threads=2):
        for x in lanes:
            _check_sort(np.ascontiguousarray(x).astype(dt))


_sort_rows = jc.jit(lambda a: np.sort(a, axis=-1))
_argsort_rows = jc.jit(lambda a: np.argsort(a, axis=-1))
_sort_strided = jc.jit(lambda a: (np.sort(a[::2]), np.argsort(a[::2])))


def _in_order_lanes(dt, n, rng):
    """Lanes in order (ties of -0.0 and 0.0 either way, NaNs last, negatives) and lanes in
    order but for one pair: first, in a whole block, in the last (partial) block."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        base = np.sort(np.concatenate([rng.standard_normal(n - 30), np.zeros(20), -np.zeros(10)]))
        base[n // 2 : n // 2 + 10] = np.where(np.arange(10) % 2, 0.0, -0.0)  # equal keys any way
        base = np.sort(base)  # zeros' signs kept as placed above, within the run of zeros
        base[-4:] = np.nan
    else:
        base = np.sort(rng.integers(-1000, 1000, n) if dt.kind == "i" else rng.integers(0, 2000, n))
    base = base.astype(dt)
    falling = (np.arange(n)[::-1] * 3 - (n if dt.kind == "i" else 0)).astype(dt)
    tie, late_tie = falling.copy(), falling.copy()
    tie[300] = tie[301]  # not strictly falling: ties keep their order
    late_tie[-1] = late_tie[-2]
    lanes = [base, np.full(n, base[3]), falling, tie, late_tie]
    if dt.kind == "f":
        lanes.append(np.concatenate([[np.nan], falling[1:]]).astype(dt))  # a NaN first
        lanes.append(np.where(np.arange(n) == n - 1, -0.0, falling + 1).astype(dt))  # ... -0.0 last
    for at in (0, 300, n - 6, n - 5) if dt.kind == "f" else (0, 300, n - 2):  # n - 5: a NaN early
        broken = base.copy()
        broken[at], broken[at + 1] = broken[at + 1], broken[at]
        if not np.array_equal(broken, base, equal_nan=True):
            lanes.append(broken)
    return lanes


@pytest.mark.parametrize("dt", ["float64", "float32", "int32", "uint32"])
def test_lanes_in_order_already(dt):
    """Sorts and argsorts of lanes already in order are copies and identities (stable: ties in
    input order), of strictly falling ones their reverses; one pair out of order anywhere, or
    one tie in a falling lane, sorts them."""
    rng = np.random.default_rng(17)
    n = 65 * 256 + 51  # longer than the networks' lanes; pairs not a whole number of blocks
    lanes = _in_order_lanes(dt, n, rng)
    rows = np.stack(lanes)
    got = _sort_rows(rows)
    np.testing.assert_array_equal(_bits(got), _bits(np.sort(rows, axis=-1, kind="stable")))
    np.testing.assert_array_equal(_argsort_rows(rows), np.argsort(rows, axis=-1, kind="stable"))
    for x in lanes:
        _check_sort(x)
        wide = np.repeat(x, 2)
        got_sort, got_order = _sort_strided(wide)
        np.testing.assert_array_equal(_bits(got_sort), _bits(np.sort(x, kind="stable")))
        np.testing.assert_array_equal(got_order, np.argsort(x, kind="stable"))
