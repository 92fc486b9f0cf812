"""Software prefetch in reductions (``codegen/cpu/prefetch.py``): emitted for each contiguous
input of a reduction whose loads interleave across blocks, behind the size test, and never a
change in any bit. The IR, not the speed: no test here depends on the host."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import prefetch
from jitcore.codegen.cpu.reduction import SIDE_BLOCKS

N = prefetch.IN_CACHE_BYTES // 4 + 4099  # float32 elements just past the size test, with a tail


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch):
    """Each compile here runs the code generator: the disk cache's key is the traced program,
    which the monkeypatched settings below do not change."""
    monkeypatch.setattr(jc.config, "disk_cache", False)


def prefetches(text: str) -> list[str]:
    """The address operands of the ``llvm.prefetch`` calls in LLVM IR text."""
    return re.findall(r'call void @"?llvm\.prefetch\.p0"?\(ptr ([^,]+),', text)


def llvm(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("llvm")


SUM = lambda x: x.sum()  # noqa: E731
DOT = lambda x, y: (x * y).sum()  # noqa: E731


def test_a_large_whole_sum_prefetches_its_input():
    """A step of ``SIDE_BLOCKS`` blocks side by side reads that many 64-byte lines of float32
    (a group of 16): one prefetch each, besides the loop over the tail's lines."""
    x = np.ones(N, np.float32)
    calls = prefetches(llvm(SUM, x))
    assert len(calls) >= SIDE_BLOCKS + 2, "no prefetch in the runs of a whole sum of a large array"
    assert prefetches(jc.jit(SUM).lower(x).as_text("llvm-opt")), "the optimiser dropped the prefetches"


def test_every_operand_stream_of_a_fused_producer_is_prefetched():
    """sum(x*y) reads two arrays side by side: each gets its lines, twice the calls of sum(x)."""
    x, y = np.ones(N, np.float32), np.ones(N, np.float32)
    one, two = prefetches(llvm(SUM, x)), prefetches(llvm(DOT, x, y))
    assert one and len(two) == 2 * len(one)


def test_rows_of_a_matrix_and_their_tails_are_prefetched():
    """Rows of 3000 (blocks of two, a single block, a tail) prefetch in the runs and the tail."""
    text = llvm(lambda a: a.sum(axis=1), np.ones((N // 3000 + 1, 3000), np.float32))
    assert len(prefetches(text)) >= 3


def test_the_size_test_is_a_run_time_test_in_size_generic_code():
    """Size-generic code (the default) compares the arrays' bytes with ``IN_CACHE_BYTES``."""
    text = llvm(SUM, np.ones(N, np.float32))
    assert re.search(rf"icmp ugt i64 %[^,]+, {prefetch.IN_CACHE_BYTES}\b", text)


def test_fixed_size_code_decides_the_size_test_when_it_compiles(monkeypatch):
    """Fixed-size code (``host.SIZE_GENERIC`` off) knows the extents: none for an array that
    fits in cache, prefetches for one that does not, and no run-time test in either."""
    from jitcore.codegen import host  # here: imported first, b88cf5f's host -> cpu -> host cycle fails

    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    small = llvm(SUM, np.ones(4096, np.float32))
    large = llvm(SUM, np.ones(N, np.float32))
    assert not prefetches(small) and prefetches(large)
    assert str(prefetch.IN_CACHE_BYTES) not in small + large


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prefetch_changes_no_bit(dtype, monkeypatch):
    """The same sums with the prefetches forced on everywhere and with none: bit for bit."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(70_001) * 10.0 ** rng.integers(-8, 8, 70_001)).astype(dtype)
    y = rng.standard_normal(70_001).astype(dtype)
    a = x[:69_000].reshape(23, 3000)
    fns = [SUM, DOT, lambda a: a.sum(axis=1)]
    args = [(x,), (x, y), (a,)]
    monkeypatch.setattr(prefetch, "_large", lambda b, body, streams: True)
    forced = [jc.jit(f)(*xs) for f, xs in zip(fns, args)]
    assert prefetches(llvm(SUM, x))
    monkeypatch.setattr(prefetch, "_streams", lambda body, dim: [])
    plain = [jc.jit(f)(*xs) for f, xs in zip(fns, args)]
    assert not prefetches(llvm(SUM, x))
    for got, want in zip(forced, plain):
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
