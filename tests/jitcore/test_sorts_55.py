"""Session 55: sorts, partitions and running totals of selections, bit for bit against NumPy.

- ``sort_keys.restore_lost`` finds the sorted lane's zeros and NaNs by binary searches and reads
  a contiguous input a vector at a time (a vector holding a zero or NaN key by key, the tail
  key by key): -0.0/0.0 and NaN payloads in every position of a block, at the lane's ends, in
  a strided lane, in lanes of many lengths.
- Int lanes are partitioned (``np.partition``/``argpartition``/``np.median``) by the
  quicksort's vector partitions (``sort_quick._QuickKernel`` of kind "i"/"u") and sorted by
  them where too wide to count (``use_int_quicksort``), the radix path past the depth limit:
  signed and unsigned 32/64-bit keys at their extremes (a signed compare of unsigned keys, or a
  network padded with a smaller value, shows here).
- A running total of a compacted selection (``np.cumsum(x[m])``, Kaplan-Meier's
  ``np.cumprod`` of the unique times' terms) runs over the kept count only: ``array.scan``
  with a count, its kernel's ``head``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import sort_quick, target
from tests.budget import examples
from tests.jitcore.test_select import assert_argpartitioned, assert_partitioned

AVX512 = "avx512" in target.kernel_isa()
# a signed and an unsigned kind, at both widths (the kernels of int32 and uint64 differ from
# these in the width alone, which the float kernels' tests cover)
INTS = ["int64", "uint32"]


def _bits(a):
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(np.ascontiguousarray(got)), _bits(np.ascontiguousarray(want)))


def _sorts(x, y, z):
    return np.sort(x), np.sort(x[::3]), np.sort(y), np.sort(z, axis=-1)


SORTS = jc.jit(_sorts)
_POOL = np.array([0.0, -0.0, np.nan, -np.nan, 1.5, -1.5, np.inf, -np.inf])


@settings(max_examples=examples(12, ci=6), deadline=None)  # one compile; ~0.1 s an example
@given(st.data())
def test_zeros_and_nans_put_back_in_input_order(data):
    """Zeros of both signs and NaNs of several payloads anywhere (a block's first and last
    keys, the lane's last keys past its whole blocks), in float64 and float32 lanes and a
    strided one: NumPy's stable sort bit for bit."""
    seed = data.draw(st.integers(0, 2**32 - 1))
    share = data.draw(st.sampled_from([0.0, 0.01, 0.3, 1.0]))
    rng = np.random.default_rng(seed)

    def lane(n, dtype):
        x = np.round(rng.standard_normal(n), 1)
        special = rng.random(n) < share
        x[special] = rng.choice(_POOL, int(special.sum()))
        x = x.astype(dtype)
        for at in data.draw(st.lists(st.integers(0, n - 1), max_size=4)):
            x[at] = -0.0  # hand-placed ones (a block's edge, the tail)
        if x.dtype == np.float64:  # a NaN with a payload and sign of its own
            x.view(np.uint64)[rng.integers(0, n)] = 0xFFF0000000000123
        return x

    x, y, z = lane(9001, np.float64), lane(3001, np.float32), lane(4 * 41, np.float64).reshape(4, 41)
    got = SORTS(x, y, z)
    want = (
        np.sort(x, kind="stable"),
        np.sort(x[::3], kind="stable"),
        np.sort(y, kind="stable"),
        np.sort(z, axis=-1, kind="stable"),
    )
    for g, w in zip(got, want, strict=True):
        _same_bits(g, w)


def _int_lanes(dtype, n, rng):
    info = np.iinfo(dtype)
    ends = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1], dtype=dtype)
    full = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return {
        "full": full,
        "ends": rng.choice(ends, n),
        "few": rng.integers(0, 3, n).astype(dtype),
        "sorted": np.sort(full),
        "mixed": np.where(rng.random(n) < 0.2, rng.choice(ends, n), full).astype(dtype),
    }


@pytest.fixture
def any_target(monkeypatch):
    """The quicksort on every target (its width where AVX-512 chooses none)."""
    if not AVX512:
        monkeypatch.setattr(sort_quick, "FORCE_LANES", 8)


KTH = [0, 300, 601, 1300, 1999]


@pytest.mark.parametrize("dtype", INTS)
def test_int_partitions_by_vector_partitions(dtype, any_target):
    """Ranks at both ends and inside, one compile a dtype, five kinds of lanes."""
    fn = jc.jit(lambda a: (np.partition(a, KTH), np.argpartition(a, KTH), np.median(a)), cache=False)
    for kind, x in _int_lanes(dtype, 2000, np.random.default_rng(7)).items():
        part, order, median = fn(x)
        assert_partitioned(part, x, KTH, f"{dtype} {kind}")
        assert_argpartitioned(order, x, KTH, f"{dtype} {kind}")
        assert median == np.median(x) and np.asarray(median).dtype == np.median(x).dtype, kind


@pytest.mark.parametrize("dtype", INTS)
def test_int_sorts_by_the_quicksort(dtype, any_target, monkeypatch):
    """Lanes too wide to count go by the quicksort (int64 under 2^17): a lane, a strided one,
    rows; then (int64), past a depth limit of one level, by the radix path again."""
    rng = np.random.default_rng(8)

    def check(fn):
        for kind, x in _int_lanes(dtype, 5000, rng).items():
            rows = x[:4096].reshape(2, 2048)
            got = fn(x, rows)
            for g, w in zip(got, (np.sort(x), np.sort(x[::2]), np.sort(rows, axis=-1)), strict=True):
                assert g.dtype == w.dtype and np.array_equal(g, w), (dtype, kind)

    sorts = lambda a, r: (np.sort(a), np.sort(a[::2]), np.sort(r, axis=-1))  # noqa: E731
    width = np.dtype(dtype).itemsize * 8
    assert sort_quick.use_int_quicksort(width, 5000, frozenset({"avx512"})) is not None
    fn = jc.jit(sorts, cache=False)
    assert (
        sort_quick.SYMBOL_PREFIX in fn.lower(np.zeros(5000, dtype), np.zeros((2, 2048), dtype)).plan().llvm_ir
    )
    check(fn)
    if dtype == "int64":
        monkeypatch.setattr(sort_quick, "depth_limit", lambda n: 1)
        check(jc.jit(sorts, cache=False))


def _running(x, m, rows, rm):
    return (
        np.cumsum(x[m]),
        np.cumprod(x[m]),
        np.cumsum(np.sort(x[m])),
        np.cumsum(rows[rm], axis=0),
        np.cumsum(x[m].astype(np.int32)),
    )


RUNNING = jc.jit(_running)


def _km(t, e):
    ut, i = np.unique(t, return_index=True)
    d = np.add.reduceat(e.astype(np.int64), i)
    return ut, d, np.cumprod(1.0 - d / (t.size - i))


def test_running_totals_of_a_selection_over_its_count():
    """No rows, one, a few, all kept; rows of a 2-d selection; the Kaplan-Meier estimate of
    sorted and unsorted times; the scans carry their count (the kernels' ``head``)."""
    rng = np.random.default_rng(9)
    for share in (0.0, 0.0004, 0.5, 1.0):
        x = np.round(rng.standard_normal(2500), 1) + 1.0
        m = rng.random(2500) < share
        m[0] = share > 0  # (at least one kept for the smallest share)
        rows, rm = rng.standard_normal((300, 3)), rng.random(300) < share
        for got, want in zip(RUNNING(x, m, rows, rm), _running(x, m, rows, rm), strict=True):
            _same_bits(got, want)
    km = jc.jit(_km)
    for times in (np.sort(rng.integers(0, 40, 3000)), rng.integers(0, 3, 3000), np.zeros(3000, int)):
        t, e = times.astype(float), rng.random(3000) < 0.5
        for got, want in zip(km(t, e), _km(t, e), strict=True):
            _same_bits(got, want)
    text = RUNNING.lower(x, m, rows, rm).as_text()
    scans = [line for line in text.splitlines() if '"scan"' in line]
    assert scans and all("head = " in line for line in scans), scans
