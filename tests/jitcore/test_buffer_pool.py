"""Large results reuse the memory of dropped ones (jitcore/buffer_pool.py), and never memory
that any array can still reach."""

import sys
import threading

import numpy as np
import pytest

import jitcore as jc
from jitcore import buffer_pool
from jitcore.errors import ConfigError

EXACT_COUNTS = sys.implementation.name == "cpython" and getattr(sys, "_is_gil_enabled", lambda: True)()
pytestmark = pytest.mark.skipif(
    not EXACT_COUNTS, reason="no exact reference counts here (not CPython, or no GIL): the pool is off")
N = 1 << 19  # float32: 2 MiB, above the fixture's MIN_BYTES


@pytest.fixture
def pool(monkeypatch):
    """A pool of its own for the test, with room for a few results, that keeps results of
    1 MiB and more (glibc's threshold, 32 MiB, would make each test's arrays 16 times larger)."""
    monkeypatch.setattr(buffer_pool, "MIN_BYTES", 1 << 20)
    fresh = buffer_pool.BufferPool(16 << 20)
    monkeypatch.setattr(buffer_pool, "POOL", fresh)
    return fresh


def scaled(x, k):
    return x * k + 1


def test_the_pool_is_on_where_reference_counts_are_exact():
    assert buffer_pool.POOL._free_count is not None


def test_a_dropped_result_memory_is_reused(pool):
    f = jc.jit(scaled)
    x = np.arange(N, dtype=np.float32)
    first = f(x, 2.0)
    address = first.ctypes.data
    np.testing.assert_array_equal(first, x * 2 + 1)
    del first
    second = f(x, 3.0)
    assert second.ctypes.data == address
    np.testing.assert_array_equal(second, x * 3 + 1)
    assert second.flags.c_contiguous and second.flags.writeable and second.flags.aligned
    assert second.shape == (N,) and second.dtype == np.float32


@pytest.mark.parametrize("keep", ["result", "view", "view of a view", "memoryview"])
def test_memory_still_reachable_is_never_reused(pool, keep):
    f = jc.jit(scaled)
    x = np.arange(N, dtype=np.float32)
    first = f(x, 2.0)
    kept = {"result": lambda a: a, "view": lambda a: a[5:], "view of a view": lambda a: a[5:][::2],
            "memoryview": memoryview}[keep](first)
    snapshot = np.array(kept)
    del first
    second = f(x, 3.0)
    np.testing.assert_array_equal(second, x * 3 + 1)
    np.testing.assert_array_equal(np.asarray(kept), snapshot)  # untouched by the second call


def test_small_results_are_plain_arrays(pool):
    f = jc.jit(scaled)
    small = f(np.ones(1000, np.float32), 2.0)
    assert small.flags.owndata
    assert pool.held_bytes() == 0


def test_scratch_between_kernels_is_pooled_from_a_smaller_size(pool):
    """A buffer a call uses between its kernels (a running sum's, 256 KiB) and never returns is
    pooled from ``SCRATCH_MIN_BYTES``, below the results' ``MIN_BYTES``: the second call takes
    the first one's block (glibc gave such pages back to the OS at each call's end when several
    were freed together: page faults in every call, docs/performance.md, fft35)."""
    f = jc.jit(lambda x: np.cumsum(x) * 2)
    x = np.ones(1 << 15)
    assert buffer_pool.SCRATCH_MIN_BYTES <= x.nbytes < buffer_pool.MIN_BYTES
    out = f(x)
    np.testing.assert_array_equal(out, np.cumsum(x) * 2)
    assert out.flags.owndata  # the result itself is a plain array: below MIN_BYTES
    held = pool.held_bytes()
    assert held >= x.nbytes  # the running sum's buffer
    np.testing.assert_array_equal(f(x + 1), np.cumsum(x + 1) * 2)
    assert pool.held_bytes() == held


def test_the_pool_never_holds_more_than_its_limit(pool):
    pool.set_limit(5 << 20)  # room for two 2 MiB results
    f = jc.jit(scaled)
    x = np.ones(N, np.float32)
    alive = [f(x, float(k)) for k in range(4)]  # four at once: two are not kept
    assert pool.held_bytes() <= 5 << 20
    for k, result in enumerate(alive):
        np.testing.assert_array_equal(result, x * k + 1)
    del alive, result
    pool.clear()
    assert pool.held_bytes() == 0


def test_lowering_the_limit_lets_go_of_free_memory(pool):
    f = jc.jit(scaled)
    x = np.ones(N, np.float32)
    f(x, 1.0)
    assert pool.held_bytes() > 0
    pool.set_limit(0)
    assert pool.held_bytes() == 0
    assert f(x, 2.0).flags.owndata  # off: plain arrays


def test_threads_get_distinct_memory(pool):
    f = jc.jit(scaled)
    x = np.arange(N, dtype=np.float32)
    errors = []

    def work(k):
        try:
            for _ in range(5):
                mine = f(x, float(k))
                np.testing.assert_array_equal(mine, x * k + 1)
        except AssertionError as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_config_setting():
    before = jc.config.buffer_pool_bytes
    try:
        jc.config.buffer_pool_bytes = 8 << 20
        assert buffer_pool.POOL.limit == 8 << 20
        with pytest.raises(ConfigError, match="buffer_pool_bytes"):
            jc.config.buffer_pool_bytes = -1
    finally:
        jc.config.buffer_pool_bytes = before
    assert jc.config.buffer_pool_bytes_from_environment({"JITCORE_BUFFER_POOL_BYTES": "64M"}) == 64 << 20
    with pytest.raises(ConfigError, match="JITCORE_BUFFER_POOL_BYTES"):
        jc.config.buffer_pool_bytes_from_environment({"JITCORE_BUFFER_POOL_BYTES": "lots"})
