"""Where a jitted program's time goes: ``with jitcore.profile() as p: ...``.

While a profile is active, every call of a jitted function (from any thread) runs a profiled
twin of its compiled code: the same program, compiled once more with ``CompileOptions(profile=
True)``, whose entry point reads ``CLOCK_MONOTONIC`` around each kernel launch and adds the time
to a few words per launch (``codegen/plan.py``, ``CompiledFunction.profile``). No Python runs
between kernels, so the kernels' times are the native code's own. After each call the words
are read into a ``CallRecord``; the profile prints a table sorted by time (``p.table()``,
``print(p)``) with bytes moved, GB/s against the machine's measured copy bandwidth and GFLOP/s,
and writes a trace that Perfetto and chrome://tracing open (``p.export_chrome_trace(path)``).

Profiling off costs nothing: ``JitFunction.__call__`` is swapped for the profiled call when the
first profile starts and put back when the last one ends, so the cached-call path is the same
code object as without this module. Profiles are process-wide (calls from other threads are
recorded too) and may nest: each active profile gets every call. The first profiled call of a
signature compiles the profiled twin: the record says so (``compiled``) and the table shows
such calls on a row of their own. A kernel that runs in a loop gets the sum of its runs and
their count; a row group's kernels (``codegen/cpu/rowwise.py``) run as one launch, timed as one
(``k0+k1+k2``). Byte counts are each operand's whole size per
run (what a kernel reads once and writes once), flops count the body's float arithmetic and
math functions, one per op (``codegen/host.py``): rough figures, for orders of magnitude.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import statistics
import threading
import time
import weakref
from dataclasses import dataclass, field

import numpy as np

from jitcore import native_call
from jitcore.api import JitFunction, python_call
from jitcore.profiled_executable import KernelRecord, ProfiledExecutable, local
from jitcore.tracer import current_trace

_ORIGINAL_CALL = python_call  # the Python call (not native_call's, which has no profiled twin)
_active: list[Profile] = []
_outside: list = []  # JitFunction.__call__ while no profile is active (native_call's, maybe)
_switch = native_call.SWITCH  # guards _active and every swap of JitFunction.__call__
_twins: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # jitted -> its profiled twin


def _now() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)  # the clock the compiled entry reads


@dataclass(frozen=True)
class CallRecord:
    """One call of a jitted function: its wall time (dispatch included) and its kernels."""

    function: str
    thread: int
    start_ns: int
    end_ns: int
    compiled: bool  # this call compiled (or loaded from disk) the profiled code
    kernels: tuple[KernelRecord, ...] = ()


@dataclass
class Profile:
    """The calls recorded between ``__enter__`` and ``__exit__``."""

    calls: list[CallRecord] = field(default_factory=list)

    def __enter__(self) -> Profile:
        with _switch:
            if not _active:
                _outside[:] = [JitFunction.__call__]
                JitFunction.__call__ = _profiled_call
            _active.append(self)
        return self

    def __exit__(self, *exc) -> None:
        with _switch:
            _active.remove(self)
            if not _active:
                JitFunction.__call__ = _outside.pop()

    def rows(self) -> list[dict]:
        """The table's rows: one per function (its calls) and one per kernel of it, summed
        over the calls, largest total time first."""
        bandwidth = copy_bandwidth()
        rows: dict[tuple, dict] = {}
        for call in self.calls:
            what = "call, compiling" if call.compiled else "call"
            row = rows.setdefault((call.function, what), _row(call.function, what))
            row["count"] += 1
            row["ns"] += call.end_ns - call.start_ns
            for k in call.kernels:
                row = rows.setdefault((call.function, k.name), _row(call.function, k.name, k.calls))
                row["count"] += k.runs
                row["ns"] += k.duration_ns
                row["bytes"] += k.bytes_read + k.bytes_written
                row["flops"] += k.flops
        for row in rows.values():
            seconds = row["ns"] / 1e9
            row["gb_s"] = row["bytes"] / seconds / 1e9 if seconds and row["bytes"] else None
            row["of_bandwidth"] = row["gb_s"] * 1e9 / bandwidth if row["gb_s"] else None
            row["gflop_s"] = row["flops"] / seconds / 1e9 if seconds and row["flops"] else None
        return sorted(rows.values(), key=lambda r: -r["ns"])

    def table(self) -> str:
        """The rows as a text table, and the copy bandwidth they are measured against."""
        head = ("function", "what", "count", "total ms", "mean us", "MB", "GB/s", "% bw", "GFLOP/s")
        lines = [head]
        for r in self.rows():
            what = r["what"] + (f" ({', '.join(r['calls'])})" if r["calls"] else "")
            lines.append((r["function"], what, str(r["count"]), f"{r['ns'] / 1e6:.3f}",
                          f"{r['ns'] / 1e3 / max(r['count'], 1):.1f}",
                          f"{r['bytes'] / 1e6:.1f}" if r["bytes"] else "",
                          _maybe(r["gb_s"], "{:.1f}"), _maybe(r["of_bandwidth"], "{:.0%}"),
                          _maybe(r["gflop_s"], "{:.2f}")))
        widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
        text = ["  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in
                          enumerate(zip(line, widths))) for line in lines]
        text.insert(1, "  ".join("-" * w for w in widths))
        text.append(f"copy bandwidth {copy_bandwidth() / 1e9:.1f} GB/s (np.copyto of 32 MiB: a read "
                    "and a write per byte); a kernel's bytes: its operands' sizes per run")
        return "\n".join(text)

    __str__ = table

    def chrome_trace(self) -> dict:
        """The calls and their kernels as Trace Event Format "complete" events (microseconds),
        each kernel nested in its call's slice on the calling thread."""
        pid = os.getpid()
        events = []
        for call in self.calls:
            events.append({"name": call.function, "cat": "jit call", "ph": "X", "pid": pid,
                           "tid": call.thread, "ts": call.start_ns / 1e3,
                           "dur": (call.end_ns - call.start_ns) / 1e3,
                           "args": {"compiled": call.compiled, "kernels": len(call.kernels)}})
            for k in call.kernels:
                seconds = k.duration_ns / 1e9
                moved = k.bytes_read + k.bytes_written
                events.append({"name": f"{call.function}:{k.name}", "cat": "kernel", "ph": "X",
                               "pid": pid, "tid": call.thread, "ts": k.start_ns / 1e3,
                               "dur": k.duration_ns / 1e3,
                               "args": {"runs": k.runs, "bytes read": k.bytes_read,
                                        "bytes written": k.bytes_written, "flops": k.flops,
                                        "GB/s": moved / seconds / 1e9 if seconds else None,
                                        "calls": list(k.calls)}})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def export_chrome_trace(self, path) -> None:
        """Write ``chrome_trace()`` as JSON to ``path``, for Perfetto or chrome://tracing."""
        with open(path, "w") as f:
            json.dump(self.chrome_trace(), f)

    def _add(self, record: CallRecord) -> None:
        self.calls.append(record)  # list.append is atomic: threads may record at once


def profile() -> Profile:
    """A profile of the jitted calls made while it is active: ``with jitcore.profile() as p``."""
    return Profile()


def _row(function: str, what: str, calls=()) -> dict:
    return {"function": function, "what": what, "calls": calls, "count": 0, "ns": 0, "bytes": 0,
            "flops": 0}


def _maybe(value, fmt: str) -> str:
    return "" if value is None else fmt.format(value)


@functools.cache
def copy_bandwidth() -> float:
    """Bytes per second of ``np.copyto`` on 32 MiB (read plus written), median of 5."""
    source = np.ones(4 * 2 ** 20)
    target = np.empty_like(source)
    np.copyto(target, source)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        np.copyto(target, source)
        times.append(time.perf_counter() - start)
    return 2 * source.nbytes / statistics.median(times)


def _profiled_call(self: JitFunction, *args, **kwargs):
    """``JitFunction.__call__`` while a profile is active: the call through the profiled twin,
    timed, with the kernel records its executable leaves on this thread."""
    if current_trace() is not None or getattr(self, "_profiles", None) is not None:
        return _ORIGINAL_CALL(self, *args, **kwargs)  # inlined into a trace, or the twin itself
    twin = _twin(self)
    outer, sink = getattr(local, "sink", None), []
    local.sink = sink
    compiles = twin._compiles
    start = _now()
    try:
        return _ORIGINAL_CALL(twin, *args, **kwargs)
    finally:
        record = CallRecord(self.__name__, threading.get_ident(), start, _now(),
                            twin._compiles != compiles, tuple(sink))
        local.sink = outer
        for p in list(_active):
            p._add(record)


def _twin(jitted: JitFunction) -> JitFunction:
    """The jitted function compiled with profiling on, one per jitted function."""
    twin = _twins.get(jitted)
    if twin is None:
        with _switch:
            twin = _twins.get(jitted)
            if twin is None:
                fun, nums, names = jitted._given
                twin = JitFunction(fun, nums, names, dataclasses.replace(jitted.options, profile=True),
                                   autograph=jitted.autograph, cache=jitted.disk_cache,
                                   max_signatures=jitted.max_signatures)
                twin._profiles = jitted.__name__
                _twins[jitted] = twin
    return twin


__all__ = ["CallRecord", "KernelRecord", "Profile", "ProfiledExecutable", "copy_bandwidth", "profile"]
