"""Seconds spent in LLVM's stages, for whoever asks: ``dump-ir --timing`` splits code
generation into emitting LLVM IR, optimising it and making machine code with this.

``recording()`` opens a list that ``timed(stage)`` blocks run inside it (in this thread or
task) append ``(stage, seconds)`` to, as ``passes.manager.recording_times`` does for passes.
Outside a recording, ``timed`` costs one context-variable read: nothing next to LLVM.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_TIMES: ContextVar[list[tuple[str, float]] | None] = ContextVar("codegen_times", default=None)

LLVM_OPTIMIZATION = "LLVM optimisation"  # parse, verify and the O3 pipeline
MACHINE_CODE = "machine code"  # the target machine's object code


@contextmanager
def recording() -> Iterator[list[tuple[str, float]]]:
    times: list[tuple[str, float]] = []
    token = _TIMES.set(times)
    try:
        yield times
    finally:
        _TIMES.reset(token)


@contextmanager
def timed(stage: str) -> Iterator[None]:
    times = _TIMES.get()
    if times is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        times.append((stage, time.perf_counter() - start))
