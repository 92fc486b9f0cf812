"""The pool's hot workers (codegen/cpu/thread_pool.py, codegen/cpu/runtime.py): after a launch
a worker spins for ``SPIN_NS``, marking its heartbeat, then blocks and uses no CPU; a launch
in the hot window (an eighth of the threshold up to it) splits only while a worker's heartbeat
is fresh, and one that finds the pool cold warms it only as the ``WARM_STREAK``-th of a row
each within the spin of the one before (a loop of calls), never alone or in a pair. Whichever
way a launch runs, the bits are the same.

The pool is the process's, so the tests that need it cold run in a forked child, which has
none of the parent's workers; the counts the launches keep (``runtime.POOL_STATE``) say which
way each launch went. Nothing here depends on how fast anything runs: a wait for a worker has
a deadline far beyond any scheduler's delay and fails only if the worker never comes.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import runtime, thread_pool
from tests.codegen.test_thread_pool import (
    DEADLINE_S,
    _in_child,
    _run_chunks,
    _threads_running_at_once,
    _within,
    needs_fork,
)

# A float32 ``x * 2 + 1`` weighs a quarter point a point (cost.CHEAP_WEIGHT): 4096 points are
# 1024, in the window [512, 4096) of a threshold of 4096; 1024 points (256) are below it.
THRESHOLD = 4096
IN_WINDOW, BELOW_WINDOW = 4096, 1024
FAR_FUTURE = 1 << 62  # a heartbeat "now" forever: the pool counts as hot
rng = np.random.default_rng(38)


@pytest.fixture(autouse=True)
def split_every_kernel(monkeypatch):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)


def _counts() -> tuple[int, int]:
    return runtime.POOL_STATE[runtime.HOT_LAUNCHES], runtime.POOL_STATE[runtime.WARMED]


def _axpb():
    return jc.jit(lambda x: x * 2 + 1)


def _call(f, x, threshold=THRESHOLD, threads=2):
    """``f(x)`` and how many launches it split because the pool was hot, and warmed it."""
    before = _counts()
    with config.using(num_threads=threads, parallel_threshold=threshold, chunk_size=64):
        out = np.asarray(f(x))
    hot, warmed = (after - b for after, b in zip(_counts(), before))
    return out, hot, warmed


def test_a_worker_marks_its_heartbeat_while_it_spins():
    run_chunks = _run_chunks()
    start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    _, met = _within(DEADLINE_S, lambda: _threads_running_at_once(run_chunks, 2))
    assert met
    # After the launch the worker spins (SPIN_NS) and stores the clock as it starts; on a busy
    # host it may run late, but it runs.
    deadline = time.monotonic() + DEADLINE_S
    while runtime.POOL_STATE[runtime.HEARTBEAT] < start and time.monotonic() < deadline:
        time.sleep(0.001)
    assert runtime.POOL_STATE[runtime.HEARTBEAT] >= start


def test_an_idle_pool_stops_spinning_and_uses_no_cpu():
    run_chunks = _run_chunks()
    assert _within(DEADLINE_S, lambda: _threads_running_at_once(run_chunks, 2))[1]
    time.sleep(20 * thread_pool.SPIN_NS / 1e9 + 0.05)  # the spin is long over
    beat = runtime.POOL_STATE[runtime.HEARTBEAT]
    before = time.process_time()
    time.sleep(0.5)
    used = time.process_time() - before
    assert runtime.POOL_STATE[runtime.HEARTBEAT] == beat, "a worker still spins"
    assert used < 0.02, f"{used * 1e3:.1f} ms of CPU in 0.5 s idle"


def test_a_hot_worker_splits_a_launch_in_the_window_with_the_same_bits():
    f = _axpb()
    x = rng.standard_normal(IN_WINDOW).astype(np.float32)
    want, *_ = _call(f, x, threads=1)
    np.testing.assert_array_equal(want, x * np.float32(2) + np.float32(1))
    saved = runtime.POOL_STATE[runtime.HEARTBEAT]
    try:
        runtime.POOL_STATE[runtime.HEARTBEAT] = FAR_FUTURE
        for threads in (2, 3):
            out, hot, warmed = _call(f, x, threads=threads)
            np.testing.assert_array_equal(out, want)
            assert (hot, warmed) == (1, 0), threads
        # below the window, or with threads off (the threshold out of reach): one call
        small = x[:BELOW_WINDOW]
        out, hot, _ = _call(f, small)
        np.testing.assert_array_equal(out, want[:BELOW_WINDOW])
        assert hot == 0
        out, hot, _ = _call(f, x, threshold=1 << 62)
        np.testing.assert_array_equal(out, want)
        assert hot == 0
    finally:
        runtime.POOL_STATE[runtime.HEARTBEAT] = saved


@needs_fork
def test_a_cold_pool_is_warmed_by_a_loop_of_launches_and_never_by_a_lone_one():
    f = _axpb()
    x = rng.standard_normal(IN_WINDOW).astype(np.float32)
    want, *_ = _call(f, x, threads=1)

    def child():
        # No worker in this child: nothing can mark the heartbeat until a launch starts one.
        runtime.POOL_STATE[runtime.HEARTBEAT] = 0
        runtime.POOL_STATE[runtime.LAST_WINDOW] = 0
        runtime.POOL_STATE[runtime.STREAK] = 0
        out, hot, warmed = _call(f, x)  # a lone launch: runs whole, wakes nothing
        if not (np.array_equal(out, want) and hot == 0 and warmed == 0):
            return False
        # Nor does the second of a pair: the wake costs more than it would save.
        for _ in range(runtime.WARM_STREAK - 2):
            out, hot, warmed = _call(f, x)
            if not (np.array_equal(out, want) and hot == 0 and warmed == 0):
                return False
        # The WARM_STREAK-th in a row, each within the spin of the one before, warms the pool.
        # The calls come microseconds apart, unless this process is descheduled for the whole
        # spin: then the streak starts again and a later one does.
        for _ in range(100):
            out, hot, warmed = _call(f, x)
            if not np.array_equal(out, want):
                return False
            if warmed:
                break
        if warmed != 1 or hot != 0:
            return False
        # The warmed worker was started and spins: its heartbeat moves.
        deadline = time.monotonic() + DEADLINE_S / 2
        while runtime.POOL_STATE[runtime.HEARTBEAT] == 0 and time.monotonic() < deadline:
            time.sleep(0.0005)
        return runtime.POOL_STATE[runtime.HEARTBEAT] > 0

    assert _in_child(child) == 0


@needs_fork
def test_launches_further_apart_than_the_spin_never_warm_the_pool():
    """Calls each well past the pool's spin after the last: a worker woken for the next would
    park before it came. However long this process waits, the gaps only grow."""
    f = _axpb()
    x = rng.standard_normal(IN_WINDOW).astype(np.float32)

    def child():
        runtime.POOL_STATE[runtime.HEARTBEAT] = 0
        runtime.POOL_STATE[runtime.LAST_WINDOW] = 0
        runtime.POOL_STATE[runtime.STREAK] = 0
        for _ in range(2 * runtime.WARM_STREAK):
            time.sleep(3 * thread_pool.SPIN_NS / 1e9)
            _, hot, warmed = _call(f, x)
            if hot or warmed:
                return False
        return True

    assert _in_child(child) == 0
