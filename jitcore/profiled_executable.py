"""The executable of a plan compiled for ``jitcore.profiler``, and the kernel records it makes.

Apart from ``jitcore.profiler`` so that ``jitcore.api`` can build it without importing the
profiler (which patches ``api.JitFunction``)."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from jitcore.dispatch import Executable

local = threading.local()  # .sink: the kernel records of the profiled call on this thread


@dataclass(frozen=True)
class KernelRecord:
    """One kernel's runs within one call: when it first started, their total time and number,
    and the bytes and flops of all of them."""

    name: str
    start_ns: int
    duration_ns: int
    runs: int
    bytes_read: int
    bytes_written: int
    flops: int
    calls: tuple[str, ...] = ()  # library routines it called (a BLAS gemm)


class ProfiledExecutable(Executable):
    """An executable of a plan compiled with ``profile``: it passes the timing words as the
    descriptor's last slot, and after each call turns them into kernel records."""

    __slots__ = ("_stamps", "_stamps_lock")

    def __init__(self, plan, *rest):
        super().__init__(plan, *rest)
        self._stamps = np.zeros(2 + 3 * len(plan.launches), np.int64)
        self._constants.append(self._stamps.ctypes.data)
        self._stamps_lock = threading.Lock()  # one call at a time owns the words

    def __call__(self, arrays, callers=None):
        with self._stamps_lock:
            self._stamps[:] = 0
            try:
                return super().__call__(arrays, callers)
            finally:
                sink = getattr(local, "sink", None)
                if sink is not None:
                    sink.extend(_kernel_records(self.plan, self._stamps.tolist(), arrays))


def _kernel_records(plan, stamps: list[int], arrays) -> list[KernelRecord]:
    members: dict[int, list[int]] = {}  # a row group's launches, under its last one
    for i, launch in enumerate(plan.launches):
        members.setdefault(launch.runs_with if launch.runs_with >= 0 else i, []).append(i)
    records = []
    for i, group in members.items():
        first, total, runs = stamps[2 + 3 * i: 5 + 3 * i]
        if not runs:
            continue  # not reached: in a branch not taken, or after an error
        read = written = flops = 0
        for launch in (plan.launches[k] for k in group):
            operands = [s for s in launch.operands if s.kind != "status"]
            inputs = len(operands) - launch.results
            sizes = [_nbytes(plan, s, arrays) for s in operands]
            read, written = read + sum(sizes[:inputs]), written + sum(sizes[inputs:])
            flops += launch.flops
        name = "+".join(plan.launches[k].kernel.rsplit("_", 1)[-1] for k in group)
        records.append(KernelRecord(name, first, total, runs, read * runs, written * runs, flops * runs,
                                    tuple(c for k in group for c in plan.launches[k].calls)))
    return records


def _nbytes(plan, storage, arrays) -> int:
    if storage.kind == "input":
        return arrays[storage.index].nbytes
    if storage.kind == "constant":
        return plan.constants[storage.index].nbytes
    shape, dtype = plan.buffers[storage.index]
    return math.prod(shape) * dtype.itemsize
