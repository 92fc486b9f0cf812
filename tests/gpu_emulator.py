"""A stand-in CUDA device for the tests: the CUDA backend's kernels run on the CPU, so that the
runtime and the kernels' schedules are checked against NumPy on machines without a GPU.

A plan's LLVM IR (as the NVPTX target gets it) is compiled for the host instead, with the
GPU's intrinsics bound to Python: thread and block ids read from the emulated thread, and the
block barrier and warp shuffles made of ``threading.Barrier``s. Device memory is host memory.
A launch runs its blocks one after another; the threads of a block that synchronises (a block
reduction) run as real threads, those of the other kernels one after another (their threads
never wait for each other). This checks what jitcore's kernels and runtime compute, not what
LLVM's NVPTX back end makes of them: ``tests/codegen/test_nvptx.py`` assembles that PTX, and
the execution tests on a real GPU run it.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import functools
import threading

import llvmlite.binding as llvm

from jitcore.codegen.cpu import target as cpu_target

TIMEOUT = 60  # seconds a barrier waits before the test fails (never hang)
_SREG = ctypes.CFUNCTYPE(ctypes.c_int32)
_SHFL = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32)
_BARRIER = ctypes.CFUNCTYPE(None)
_WARP_SYNC = ctypes.CFUNCTYPE(None, ctypes.c_int32)
_RENAMED = {'"llvm.nvvm.read.ptx.sreg.': '"emu_sreg_', '"llvm.nvvm.shfl.sync.down.i32"': '"emu_shfl_down"',
            '"llvm.nvvm.barrier0"': '"emu_barrier"',
            '"llvm.nvvm.bar.warp.sync"': '"emu_warp_sync"', "define ptx_kernel ": "define ",
            "addrspace(3) ": "", " addrspace(3)*": "*", 'target triple = "nvptx64-nvidia-cuda"': ""}


class _Thread(threading.local):
    tid = ctaid = ntid = nctaid = 0


@functools.cache
def device() -> EmulatedDevice:
    """The one emulated device of the process (the intrinsics' symbols are bound to it)."""
    return EmulatedDevice()


class EmulatedDevice:
    """The methods of ``jitcore.cuda.driver.Driver`` that the runtime calls, on the CPU."""

    capability = (8, 0)

    def __init__(self):
        self.memory: dict[int, ctypes.Array] = {}
        self.launches = []  # (kernel name, grid, block), in order
        self._engines = []
        self._pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}  # by block size
        self._thread = _Thread()
        self._warps: list[tuple[list[int], threading.Barrier]] = []
        self._block: threading.Barrier | None = None
        t = self._thread
        sreg = {name: _SREG(lambda name=name: getattr(t, name))
                for name in ("tid", "ctaid", "ntid", "nctaid")}
        self._callbacks = [*sreg.values(), _SHFL(self._shuffle), _BARRIER(self._barrier),
                           _WARP_SYNC(self._warp_sync)]
        for name, fn in sreg.items():
            llvm.add_symbol(f"emu_sreg_{name}.x", ctypes.cast(fn, ctypes.c_void_p).value)
        llvm.add_symbol("emu_shfl_down", ctypes.cast(self._callbacks[-3], ctypes.c_void_p).value)
        llvm.add_symbol("emu_barrier", ctypes.cast(self._callbacks[-2], ctypes.c_void_p).value)
        llvm.add_symbol("emu_warp_sync", ctypes.cast(self._callbacks[-1], ctypes.c_void_p).value)

    # -- the intrinsics ----------------------------------------------------------------------
    def _shuffle(self, mask, value, offset, clamp):
        lane, (words, barrier) = self._thread.tid % 32, self._warps[self._thread.tid // 32]
        words[lane] = value
        barrier.wait(TIMEOUT)
        moved = words[lane + offset] if lane + offset <= clamp else value
        barrier.wait(TIMEOUT)
        return moved

    def _barrier(self):
        self._block.wait(TIMEOUT)

    def _warp_sync(self, mask):
        self._warps[self._thread.tid // 32][1].wait(TIMEOUT)

    # -- the driver's calls ----------------------------------------------------------------------
    def current(self):
        pass

    def synchronize(self):
        pass

    def load_plan(self, plan):
        """The plan's kernels compiled for the host: name -> (function, synchronises)."""
        text = plan.llvm_ir
        for old, new in _RENAMED.items():
            text = text.replace(old, new)
        names = [launch.kernel for launch, shape in zip(plan.launches, plan.shapes) if shape.grid]
        _, code = cpu_target.compile_ir(text)
        engine, addresses = cpu_target.load_object_owned(code, names)
        self._engines.append(engine)  # the code lives as long as the device
        kinds = {launch.kernel: shape.kind for launch, shape in zip(plan.launches, plan.shapes) if shape.grid}
        synchronising = ("block-reduce", "grid-reduce", "tiled-matmul", "row-group", "warp-row-group")
        return engine, {name: (addresses[name], kinds[name] in synchronising) for name in names}

    def function(self, module, name):
        return name, module[1][name]

    def launch(self, fn, grid, block, pointers):
        name, (address, synchronises) = fn
        self.launches.append((name, grid, block))
        kernel = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * len(pointers))(address)
        t = self._thread

        def run(ctaid, tid):
            t.tid, t.ctaid, t.ntid, t.nctaid = tid, ctaid, block, grid
            kernel(*pointers)

        for ctaid in range(grid):
            if not synchronises:
                for tid in range(block):
                    run(ctaid, tid)
                continue
            self._warps = [([0] * 32, threading.Barrier(32)) for _ in range(block // 32)]
            self._block = threading.Barrier(block)
            if block not in self._pools:  # threads kept for every block: starting them is the cost
                self._pools[block] = concurrent.futures.ThreadPoolExecutor(max_workers=block)
            pool = self._pools[block]
            for done in [pool.submit(run, ctaid, tid) for tid in range(block)]:
                done.result(TIMEOUT)

    # -- memory ------------------------------------------------------------------------------------
    def allocate(self, nbytes):
        # filled with garbage, as cuMemAlloc's memory may be: a scratch buffer the runtime
        # forgets to zero (or zeroes in part) shows up here, not only on a GPU
        buffer = ctypes.create_string_buffer(b"\xa5" * max(1, nbytes), max(1, nbytes))
        self.memory[ctypes.addressof(buffer)] = buffer
        return ctypes.addressof(buffer)

    def free(self, pointer):
        del self.memory[pointer]

    def to_device(self, pointer, host, nbytes):
        ctypes.memmove(pointer, host, nbytes)

    def to_host(self, host, pointer, nbytes):
        ctypes.memmove(host, pointer, nbytes)

    def copy(self, target, source, nbytes):
        ctypes.memmove(target, source, nbytes)

    def zero(self, pointer, nbytes):
        ctypes.memset(pointer, 0, nbytes)


def emulate(monkeypatch) -> EmulatedDevice:
    """The emulated device as the CUDA runtime's driver, with blocks of 64 threads (2 warps)
    rather than 256 and the tiled product's blocks of 4 x 4 threads with 2 x 2 results each
    (4 x 4 in the big tiles): the same code paths, far fewer emulated threads."""
    from jitcore.codegen.nvptx import kernels, matmul
    from jitcore.cuda import driver as cuda_driver
    from jitcore.cuda import executable

    monkeypatch.setattr(kernels, "BLOCK", 64)
    monkeypatch.setattr(kernels, "WARPS", 2)
    monkeypatch.setattr(matmul, "SIDE", 4)
    monkeypatch.setattr(matmul, "REGS", 2)
    monkeypatch.setattr(matmul, "DEPTH", 4)
    monkeypatch.setattr(matmul, "BIG_REGS", 4)
    monkeypatch.setattr(matmul, "BIG_DEPTH", 2)
    emulator = device()
    monkeypatch.setattr(cuda_driver, "_driver", emulator)
    monkeypatch.setattr(executable, "load_module", lambda cuda, plan: cuda.load_plan(plan))
    emulator.launches.clear()
    return emulator


def run_on_cuda(text: str, arrays: list) -> tuple:
    """The kernel conformance suite's CUDA backend (``tests/codegen/test_kernels.py``): IR text
    compiled by the CUDA backend and run on this machine's GPU; where there is none, on the
    emulated device when ``JITCORE_TEST_EMULATED_GPU=1`` (slow: a minute for the suite), else
    skipped."""
    import os
    from unittest import mock

    import numpy as np
    import pytest

    from jitcore import cuda, ir, pytree
    from jitcore.codegen.backend import backend_for
    from jitcore.codegen.nvptx import TrigArgumentRangeError
    from jitcore.codegen.plan import LowerOptions
    from jitcore.cuda import driver as cuda_driver
    from jitcore.cuda import executable
    from jitcore.ir import layout_class

    patches = []
    try:
        cuda.require()
    except cuda.NoCudaDriverError as e:
        if os.environ.get("JITCORE_TEST_EMULATED_GPU") != "1":
            pytest.skip(f"no GPU ({e}); JITCORE_TEST_EMULATED_GPU=1 runs the CUDA backend emulated")
        patches = [mock.patch.object(cuda_driver, "_driver", device()),
                   mock.patch.object(executable, "load_module", lambda cuda, plan: cuda.load_plan(plan))]
    module = ir.parse(text)
    ir.verify(module)
    (func,) = module.functions()
    results = len(func.attributes["function_type"].results)
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        plan = backend_for("cuda").lower(func, tuple(layout_class.C for _ in arrays), LowerOptions())
        run = executable.CudaExecutable(plan, pytree.flatten(tuple(range(results)))[1])
        try:
            return tuple(np.asarray(out) for out in run(list(arrays)))
        except TrigArgumentRangeError as e:  # raised, not computed wrong: a known limitation
            pytest.xfail(f"the CUDA backend's known limitation: {e}")
