"""Python's cyclic garbage collector paused while a module's LLVM IR is emitted.

An emission builds thousands of llvmlite objects that live until its text is printed (each
instruction points at its block, each block at its function: cycles), so the collector's young
collections find nothing to free and promote them, and the promotions start full collections
of the whole heap: 38% of the emission's CPU in a sample of the test suite (4.9 s of 13.1 s,
docs/performance.md, "Session 57: emission speed"). Paused, the objects stay young until the
emission ends, and one young collection then frees its garbage without touching the heap.

The pause is process-wide (Python has no other); threads emitting at once share it, the last
to finish ends it, and a collector that the program turned off stays off.
"""

from __future__ import annotations

import contextlib
import gc
import threading

_lock = threading.Lock()
_inside = 0  # emissions under way that paused the collector


@contextlib.contextmanager
def collector_paused():
    """Runs its block with automatic collection off (unless someone else turned it off), then
    collects the young generation: the emission's cyclic garbage, all of it still young."""
    global _inside
    with _lock:
        ours = _inside > 0 or gc.isenabled()
        if ours:
            _inside += 1
            gc.disable()
    try:
        yield
    finally:
        if ours:
            with _lock:
                _inside -= 1
                last = _inside == 0
                if last:
                    gc.enable()
            if last:
                gc.collect(0)
