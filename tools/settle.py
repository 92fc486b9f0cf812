"""Waiting until this process's other threads have gone to sleep, before a timing starts.

Libraries leave worker threads running after they return: NumPy's OpenBLAS spins its workers
for 2^28 time-stamp cycles after each threaded call (98 ms on the 2-core Zen 4 host; no system
call in the loop, so the scheduler sees a busy thread), and JAX's and numexpr's pools spin
briefly too. A benchmark that times one library right after another measures the first one's
spinning on the second one's cores (docs/performance.md, "OpenBLAS's spinning workers").
``settle()`` is the benchmarks' one rule against it, for every library alike: before an
implementation's block of timed calls, wait until no other thread of the process is running
or runnable (state ``R`` in ``/proc/self/task/*/stat``: a spinning thread stays ``R`` even
while the scheduler has it off a core), polled every half millisecond. A thread blocked on a
lock, a condition variable or a sleep is ``S``. Where there is no ``/proc`` (macOS), it sleeps
``FALLBACK_S`` instead.
"""

from __future__ import annotations

import os
import threading
import time

LIMIT_S = 1.0  # a thread still running after this is busy for good (a peer's own timer thread)
FALLBACK_S = 0.2  # twice OpenBLAS's spin at 2.7 GHz, where no /proc says when it ends
POLL_S = 0.0005
QUIET_POLLS = 3  # polls in a row with every other thread asleep


def running_threads() -> int | None:
    """How many other threads of this process are running or runnable now; None without /proc."""
    me = threading.get_native_id()
    try:
        names = os.listdir("/proc/self/task")
    except OSError:
        return None
    running = 0
    for name in names:
        if int(name) == me:
            continue
        try:
            with open(f"/proc/self/task/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # the thread ended meanwhile
            continue
        running += stat[stat.rindex(b")") + 2:][:1] == b"R"  # the state follows "(comm) "
    return running


def settle(limit_s: float = LIMIT_S) -> float:
    """Wait until every other thread of this process is asleep (or ``limit_s`` has passed);
    the seconds waited."""
    start = time.perf_counter()
    if running_threads() is None:
        time.sleep(FALLBACK_S)
        return time.perf_counter() - start
    quiet = 0
    while quiet < QUIET_POLLS and time.perf_counter() - start < limit_s:
        quiet = quiet + 1 if running_threads() == 0 else 0
        if quiet < QUIET_POLLS:
            time.sleep(POLL_S)
    return time.perf_counter() - start
