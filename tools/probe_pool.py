#!/usr/bin/env python
"""Where a split launch's time goes on the runtime's threads: time-stamp counter readings at
each step of every launch, per thread (docs/performance.md, "threads38").

    PYTHONPATH=. python tools/probe_pool.py [--cases matvec-f32,matvec-f64,axpb-f32]
        [--threads 2] [--calls 400] [--gap-us 0] [--pause]

The probe replaces ``runtime._emit_worker`` and ``runtime._call_launch`` (before the process's
launchers compile, so only its own code carries the probes) by versions that also record, into
a buffer of this process, ``(tsc, event, thread, chunk)``: the launcher before it hands the
launch to the runtime's launch (``begin``: its decision, then ``run_chunks``) and after it
returns (``end``), and on every thread that runs the launch's worker its entry, each chunk's
start and end, and its exit. Per launch it reports
(medians over the calls, microseconds):

- ``wake``: from ``begin`` to a pool worker's entry (spinning: well under a microsecond;
  parked on the condition variable: a futex wake, and on a VM a halted vCPU to bring back);
- ``chunks``: how many chunks each thread ran, and a chunk's time;
- ``caller idle``: from the caller's last chunk to ``end`` (its wait for the helpers),
  and ``worker late``: from the caller's last chunk to the worker's;
- ``total``: ``begin`` to ``end``, against the one-thread launch.

``--gap-us`` sleeps (spins on the clock) that long between calls, as a caller doing other
work between launches would: the pool's workers are then parked or still spinning. ``--pause``
also times the CPU's ``pause`` instruction (the pool's spin counts them)."""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import statistics
import threading
import time

import numpy as np
from llvmlite import ir as ll

import jitcore as jc
from jitcore.codegen.cpu import runtime
from jitcore.codegen.llvm_types import I64, PTR, declare

CAPACITY = 1 << 18  # events of one run of calls at most (a ring: a longer run keeps its last ones)
EVENTS = ("begin", "enter", "start", "stop", "exit", "end")
_TRACE = (ctypes.c_int64 * (4 * CAPACITY))()
_COUNT = ctypes.c_int64(0)


def _record(b: ll.IRBuilder, event: str, chunk: ll.Value | None = None) -> None:
    """Append ``(tsc, event, pthread_self(), chunk)`` to the trace (a constant address)."""
    module = b.module
    tsc = b.call(declare(module, "llvm.readcyclecounter", I64, []), [])
    thread = b.call(declare(module, "pthread_self", I64, []), [])
    count = b.inttoptr(ll.Constant(I64, ctypes.addressof(_COUNT)), PTR)
    at = b.atomic_rmw("add", count, ll.Constant(I64, 1), "monotonic")
    slot = b.mul(b.and_(at, ll.Constant(I64, CAPACITY - 1)), ll.Constant(I64, 4))
    base = b.inttoptr(ll.Constant(I64, ctypes.addressof(_TRACE)), PTR)
    values = [tsc, ll.Constant(I64, EVENTS.index(event)), thread, chunk or ll.Constant(I64, -1)]
    for k, value in enumerate(values):
        b.store(value, b.gep(base, [b.add(slot, ll.Constant(I64, k))], source_etype=I64))


def _traced_worker(module: ll.Module, name: str, kernel_type: ll.FunctionType) -> ll.Function:
    """``runtime._emit_worker`` with the probes: entry, each chunk's start and stop, exit."""
    fn = ll.Function(module, ll.FunctionType(PTR, [PTR]), name)
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    _record(b, "enter")
    context = fn.args[0]
    params = kernel_type.args[:-2]

    def slot(k: int) -> ll.Value:
        return b.load(b.gep(context, [ll.Constant(I64, k)], source_etype=I64), typ=I64)

    chunks, extent = slot(runtime._CHUNKS), slot(runtime._EXTENT)
    kernel = b.inttoptr(slot(runtime._KERNEL), kernel_type.as_pointer())
    args = [b.inttoptr(slot(runtime._ARGS + k), t) if isinstance(t, ll.PointerType)
            else slot(runtime._ARGS + k) for k, t in enumerate(params)]
    quotient, remainder = b.sdiv(extent, chunks), b.srem(extent, chunks)

    def start(c: ll.Value) -> ll.Value:
        return b.add(b.mul(c, quotient), b.select(b.icmp_signed("<", c, remainder), c, remainder))

    next_chunk = b.gep(context, [ll.Constant(I64, runtime._NEXT)], source_etype=I64)
    loop, body, done = (fn.append_basic_block(n) for n in ("take", "run", "done"))
    b.branch(loop)
    b.position_at_end(loop)
    c = b.atomic_rmw("add", next_chunk, ll.Constant(I64, 1), "monotonic")
    b.cbranch(b.icmp_signed("<", c, chunks), body, done)
    b.position_at_end(body)
    _record(b, "start", c)
    b.call(kernel, [*args, start(c), start(b.add(c, ll.Constant(I64, 1)))])
    _record(b, "stop", c)
    b.branch(loop)
    b.position_at_end(done)
    _record(b, "exit")
    b.ret(ll.Constant(PTR, None))
    return fn


_plain_launch = runtime._call_launch


def _traced_launch(b, operands):
    _record(b, "begin")
    chunked = _plain_launch(b, operands)
    _record(b, "end")
    return chunked


def install() -> None:
    """Probe every split launch from now on (before the first: the process's launchers are
    compiled once; compile with ``cache=False``)."""
    runtime._emit_worker = _traced_worker
    runtime._call_launch = _traced_launch


def tsc_per_us() -> float:
    """Time-stamp counter ticks per microsecond, against ``perf_counter`` over 50 ms."""
    reader = _tsc_reader()
    t0, c0 = time.perf_counter(), reader()
    time.sleep(0.05)
    t1, c1 = time.perf_counter(), reader()
    return (c1 - c0) / ((t1 - t0) * 1e6)


def _compile(text: str, symbol: str) -> int:
    from jitcore.codegen.cpu import target
    from jitcore.codegen.cpu.object_loader import load_kept
    return load_kept(target.compile_ir(text)[1], [symbol])[symbol]


def _tsc_reader():
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(I64, []), "probe_tsc")
    b = ll.IRBuilder(fn.append_basic_block())
    b.ret(b.call(declare(module, "llvm.readcyclecounter", I64, []), []))
    return ctypes.CFUNCTYPE(ctypes.c_int64)(_compile(str(module), "probe_tsc"))


def pause_ns(rounds: int = 1 << 16) -> float:
    """Nanoseconds of one ``pause`` (what the pool pauses between looks at its flags)."""
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [I64]), "probe_pauses")
    entry = fn.append_basic_block("entry")
    loop, done = fn.append_basic_block("loop"), fn.append_basic_block("done")
    b = ll.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(I64)
    i.add_incoming(ll.Constant(I64, 0), entry)
    b.call(declare(module, "llvm.x86.sse2.pause", ll.VoidType(), []), [])
    more = b.add(i, ll.Constant(I64, 1))
    i.add_incoming(more, loop)
    b.cbranch(b.icmp_signed("<", more, fn.args[0]), loop, done)
    b.position_at_end(done)
    b.ret_void()
    run = ctypes.CFUNCTYPE(None, ctypes.c_int64)(_compile(str(module), "probe_pauses"))
    best = float("inf")
    for _ in range(5):
        start = time.thread_time_ns()
        run(rounds)
        best = min(best, (time.thread_time_ns() - start) / rounds)
    return best


def launches():
    """The trace of the last call, as launches: lists of (tsc, event, thread, chunk)."""
    n = min(_COUNT.value, CAPACITY)
    events = sorted(tuple(_TRACE[4 * k: 4 * k + 4]) for k in range(n))
    out, current = [], None
    for e in events:
        if EVENTS[e[1]] == "begin":
            current = [e]
            out.append(current)
        elif current is not None:
            current.append(e)
    return out


def summarise(launch, per_us: float, caller: int) -> dict:
    """One launch's steps in microseconds (see the module docstring)."""
    begin = launch[0][0]
    end = next(t for t, e, _, _ in launch if EVENTS[e] == "end")
    threads: dict[int, dict] = {}
    for t, e, who, _ in launch:
        if EVENTS[e] in ("begin", "end"):
            continue
        row = threads.setdefault(who, {"chunks": 0, "busy": 0.0, "last": begin, "enter": t})
        if EVENTS[e] == "start":
            row["chunk_start"] = t
        elif EVENTS[e] == "stop":
            row["chunks"] += 1
            row["busy"] += (t - row["chunk_start"]) / per_us
            row["last"] = t
    mine = threads.get(caller, {"chunks": 0, "last": begin, "busy": 0.0, "enter": begin})
    others = [row for who, row in threads.items() if who != caller]
    out = {"total": (end - begin) / per_us, "caller_enter": (mine["enter"] - begin) / per_us,
           "caller_chunks": mine["chunks"], "caller_busy": mine["busy"],
           "caller_idle": (end - mine["last"]) / per_us, "helpers": len(others)}
    if others:
        helper = min(others, key=lambda row: row["enter"])
        out.update(wake=(helper["enter"] - begin) / per_us, helper_chunks=helper["chunks"],
                   helper_busy=helper["busy"], worker_late=(helper["last"] - mine["last"]) / per_us)
    return out


def _matvec(n: int, dtype):
    return (lambda a, x: a @ x,
            lambda rng: (rng.standard_normal((n, n)).astype(dtype), rng.standard_normal(n).astype(dtype)))


def _vectors(rng, count: int, n: int):
    return tuple(rng.standard_normal(n).astype(np.float32) for _ in range(count))


def _squares(rng, n: int, dtype) -> list[np.ndarray]:
    return [rng.standard_normal((n, n)).astype(dtype) for _ in range(2)]


CASES = {
    "matvec-f32": _matvec(1024, np.float32),
    "matvec-f64": _matvec(1024, np.float64),
    "matvec512-f32": _matvec(512, np.float32),
    "matvec512-f64": _matvec(512, np.float64),
    "vecmat-f32": (lambda a, x: x @ a, _matvec(1024, np.float32)[1]),
    "vecmat-f64": (lambda a, x: x @ a, _matvec(1024, np.float64)[1]),
    "vecmat2048-f32": (lambda a, x: x @ a, _matvec(2048, np.float32)[1]),
    "axpb-f32": (lambda x, y: x * 2.0 + y, lambda rng: _vectors(rng, 2, 1 << 20)),
    "tanh-f32": (lambda x: np.tanh(2 * x + 1), lambda rng: _vectors(rng, 1, 1 << 19)),
    "gemm128-f32": (lambda a, b: a @ b, lambda rng: _squares(rng, 128, np.float32)),
    "gemm128-f64": (lambda a, b: a @ b, lambda rng: _squares(rng, 128, np.float64)),
}


def report(name: str, threads: int, gap: float, walls: list[float], rows: list[dict]) -> str:
    """One line: the call's and the launch's medians, and where the launch's time went."""
    def med(key, among=rows):
        values = [r[key] for r in among if key in r]
        return statistics.median(values) if values else float("nan")

    def share(test) -> str:
        return f"{sum(1 for r in rows if test(r)) / len(rows):4.0%}"

    call = f"{name:11} t{threads} gap {gap:5.0f}: call {statistics.median(walls) * 1e6:6.1f}"
    if not rows:
        return call + f" (not split in {len(walls)} calls)"
    totals = [r["total"] for r in rows]
    p10, p90 = np.percentile(totals, 10), np.percentile(totals, 90)
    line = (f"{call} split {len(rows)}/{len(walls)} launch {med('total'):6.1f} [p10 {p10:6.1f}"
            f" p90 {p90:6.1f}] caller chunks {med('caller_chunks'):4.1f} enter {med('caller_enter'):5.1f}"
            f" (late>5us {share(lambda r: r['caller_enter'] > 5)}) idle {med('caller_idle'):5.1f}")
    helped = [r for r in rows if r.get("helper_chunks", 0) > 0]
    if threads > 1:
        line += (f" | helper ran {share(lambda r: r.get('helper_chunks', 0) > 0)}, entered {med('wake'):6.1f}"
                 f" (<2us {share(lambda r: r.get('wake', 1e9) < 2)})"
                 f" chunks {med('helper_chunks', helped):4.1f}"
                 f" late {med('worker_late', helped):6.1f}")
    return line


def counts() -> tuple[int, int]:
    """Launches split because a worker was hot, and launches that warmed the pool, so far."""
    if not hasattr(runtime, "POOL_STATE"):  # the base tree
        return 0, 0
    return runtime.POOL_STATE[runtime.HOT_LAUNCHES], runtime.POOL_STATE[runtime.WARMED]


def thread_states() -> str:
    """Each other thread of the process: its state, where it waits, its CPU time (ms)."""
    out = []
    for task in os.listdir("/proc/self/task"):
        if int(task) == threading.get_native_id():
            continue
        try:
            stat = open(f"/proc/self/task/{task}/stat").read().rsplit(")", 1)[1].split()
            wchan = open(f"/proc/self/task/{task}/wchan").read()
        except OSError:
            continue
        out.append(f"{task}:{stat[0]} {wchan} cpu{stat[36]} {(int(stat[11]) + int(stat[12])) * 10}ms")
    return ", ".join(out)


_CPUS = sorted(os.sched_getaffinity(0))  # before any pinning


def pin_threads() -> None:
    """This thread on the lowest CPU it may use, the process's other threads (the pool's
    workers) on the rest."""
    cpus = _CPUS
    me = threading.get_native_id()
    for task in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(task), {cpus[0]} if int(task) == me else set(cpus[1:]) or {cpus[0]})


def spin_for(us: float) -> None:
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="matvec-f32,matvec-f64,axpb-f32")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--gap-us", default="0", help="comma-separated gaps between calls")
    parser.add_argument("--pause", action="store_true")
    parser.add_argument("--pin", action="store_true",
                        help="pin this thread to the first CPU and every other thread of the process"
                             " to the others (with chrt -f: cores of our own, as on a quiet host)")
    parser.add_argument("--timeline", type=int, default=0, help="print this many launches' events")
    parser.add_argument("--set", action="append", default=[],
                        help="MODULE.NAME=VALUE: a constant of codegen/cpu's modules set before compiling"
                             " (thread_pool.SPIN_NS=1_000_000)")
    args = parser.parse_args()
    for assignment in args.set:
        target_name, value = assignment.split("=")
        module_name, constant = target_name.rsplit(".", 1)
        setattr(importlib.import_module(f"jitcore.codegen.cpu.{module_name}"), constant, eval(value))
    install()
    per_us = tsc_per_us()
    libc = ctypes.CDLL(None)
    libc.pthread_self.restype = ctypes.c_uint64
    caller = ctypes.c_int64(libc.pthread_self()).value
    if args.pause:
        print(f"pause: {pause_ns():.1f} ns")
    print(f"tsc {per_us:.0f}/us; load {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    for name in args.cases.split(","):
        fn, make = CASES[name]
        inputs = make(rng)
        jitted = jc.jit(fn, cache=False)
        np.testing.assert_allclose(jitted(*inputs), fn(*inputs), rtol=1e-3, atol=1e-3)
        time.sleep(0.2)  # OpenBLAS's workers spin about 0.1 s after NumPy's product
        for gap in map(float, args.gap_us.split(",")):
            for threads in map(int, args.threads.split(",")):
                jc.config.num_threads = threads
                walls = []
                for _ in range(3):  # the pool's workers started (a warmed pool's on the second call)
                    jitted(*inputs)
                if args.pin:
                    pin_threads()
                _COUNT.value = 0
                counts_before = counts()
                for _ in range(args.calls):
                    spin_for(gap)
                    t = time.perf_counter()
                    jitted(*inputs)
                    walls.append(time.perf_counter() - t)
                if args.pin:  # this thread on every CPU again: a compile counts them (split_chunks)
                    os.sched_setaffinity(0, _CPUS)
                traced = launches()
                rows = [summarise(launch, per_us, caller) for launch in traced]
                for launch in traced[len(traced) // 2: len(traced) // 2 + args.timeline]:
                    print("   " + " ".join(f"{EVENTS[e]}{'' if who == caller else '*'}"
                                           f"{'' if chunk < 0 else chunk}@{(t - launch[0][0]) / per_us:.1f}"
                                           for t, e, who, chunk in launch))
                hot, warmed = (after - before for after, before in zip(counts(), counts_before))
                print(report(name, threads, gap, walls, rows) + f" hot {hot} warmed {warmed}", flush=True)
                if args.timeline:
                    print("   threads:", thread_states(), flush=True)


if __name__ == "__main__":
    main()
