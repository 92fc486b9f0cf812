"""The pool keeps its workers off the launching thread's CPU (codegen/cpu/thread_pool.py,
``PLACEMENT``): Linux may wake a parked worker onto the CPU of the thread that woke it while
another idles, and the two then share a core for the whole launch. Each worker's affinity is
the pool's CPUs less the caller's CPU at the last launch; when the caller moves, the next
launch moves the workers. The tests run in a forked child (a fresh pool whose CPUs are this
process's), pin the launching thread to one CPU and then another, and read every worker's
affinity back from the kernel. A worker records its thread id as it starts, so the masks are
waited for (a launch that finds an id not yet recorded places it at a later launch)."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import runtime, thread_pool
from tests.codegen.test_thread_pool import DEADLINE_S, _in_child, _run, _tanh, needs_fork

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two_cpus = pytest.mark.skipif(not thread_pool.PLACEMENT or len(CPUS) < 2,
                                    reason="placement is Linux's, and needs two CPUs to choose from")


@pytest.fixture(autouse=True)
def split_every_kernel(monkeypatch):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)


def _workers(caller: int) -> dict[int, set[int]]:
    """Every thread of this process but ``caller``, with its affinity."""
    tasks = (int(t) for t in os.listdir("/proc/self/task"))
    return {t: os.sched_getaffinity(t) for t in tasks if t != caller}


@needs_fork
@needs_two_cpus
def test_workers_are_kept_off_the_callers_cpu_and_follow_it():
    f = jc.jit(_tanh)
    x = np.random.default_rng(39).standard_normal(5000).astype(np.float32)
    want = _run(f, [x], 1)

    def child():
        allowed = os.sched_getaffinity(0)
        me = threading.get_native_id()
        if not np.array_equal(_run(f, [x], 3), want):  # the pool of this child: two workers
            return False
        for step, cpu in enumerate((CPUS[0], CPUS[1], CPUS[0])):
            os.sched_setaffinity(0, {cpu})
            moved = runtime.POOL_STATE[runtime.MOVED]
            deadline = time.monotonic() + DEADLINE_S / 4
            while True:
                if not np.array_equal(_run(f, [x], 3), want):
                    return False
                workers = _workers(me)
                if len(workers) == 2 and all(mask == allowed - {cpu} for mask in workers.values()):
                    break
                if time.monotonic() > deadline:
                    print("workers' affinity", workers, "caller on", cpu)
                    return False
                time.sleep(0.001)
            # after the caller's move the launches moved them (the first pin may be where the
            # caller already ran, the workers already off it)
            if step and runtime.POOL_STATE[runtime.MOVED] <= moved:
                return False
        return True

    assert _in_child(child) == 0


@needs_fork
@needs_two_cpus
def test_a_pool_of_one_cpu_places_nothing():
    """A caller allowed one CPU when the pool starts leaves its workers there: no other CPU to
    move them to (and no failed call)."""
    f = jc.jit(_tanh)
    x = np.random.default_rng(40).standard_normal(5000).astype(np.float32)
    want = _run(f, [x], 1)

    def child():
        os.sched_setaffinity(0, {CPUS[1]})
        me = threading.get_native_id()
        for _ in range(5):
            if not np.array_equal(_run(f, [x], 2), want):
                return False
        return all(mask == {CPUS[1]} for mask in _workers(me).values()) and len(_workers(me)) == 1

    assert _in_child(child) == 0
