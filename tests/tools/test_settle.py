"""tools/settle.py: the benchmarks' wait for the process's other threads to go to sleep.

No timing is asserted: a thread that computes until it has finished must have finished when
``settle`` returns, and a library's workers are asleep afterwards."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import jitcore as jc

REPO = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO / "tools"))
try:
    import settle
finally:
    sys.path.pop(0)

needs_proc = pytest.mark.skipif(settle.running_threads() is None, reason="no /proc/self/task on this OS")


@jc.jit
def _count_up(n):
    total, i = 0.0, 0
    while i < n:  # a native loop: its thread stays running, without the GIL
        total = total + 1.0
        i = i + 1
    return total


@needs_proc
def test_settle_returns_after_a_running_thread_has_finished():
    _count_up(10)  # compiled here, not on the thread
    ran = {}
    started = threading.Event()

    def work():
        started.set()
        ran["total"] = float(_count_up(10**8))

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    settle.settle(limit_s=600)
    assert ran == {"total": 1e8}
    thread.join()


@needs_proc
def test_a_librarys_workers_are_asleep_after_settle():
    a = np.ones((512, 512))
    a @ a  # NumPy's BLAS, on its threads where it has several
    settle.settle(limit_s=600)
    assert settle.running_threads() == 0


def test_settle_says_how_long_it_waited():
    assert 0 <= settle.settle() < 600
