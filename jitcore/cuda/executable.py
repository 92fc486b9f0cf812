"""A ``GpuPlan`` run on the GPU: the plan's program walked in Python, each launch one
``cuLaunchKernel``, each array in device memory.

Arguments may be NumPy arrays (copied to the device for the call) or ``DeviceArray``s (used
where they are); an argument the function writes in place (``x[i] = v``, ``x += y``, ``out=``)
gets its new value after the call, as in NumPy (a NumPy array by a copy back to the host);
results are ``DeviceArray``s, so a loop of jitted calls keeps its data on the
GPU until ``to_numpy()``. A loop or branch of the program reads its bounds or condition back
from the device (a few bytes, a synchronisation) before deciding. A callback step
(``debug_print``, ``debug_callback``, and the checks that raise NumPy's error for data it refuses
by a callback, such as a histogram of NaN) copies its operands to the host and calls its Python
function there, in program order; an exception it raises leaves the call.
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from jitcore import pytree
from jitcore.callbacks import run_callback, write_back_held
from jitcore.codegen.host import STATUS
from jitcore.codegen.kernel_body import INDEX_ERROR, ZERO_STEP
from jitcore.codegen.mathlib import TRIG_ARGUMENT_LIMITS
from jitcore.codegen.nvptx import TrigArgumentRangeError, UnsupportedOnGpuError
from jitcore.codegen.nvptx.checks import STATUS_BYTES
from jitcore.codegen.nvptx.kernels import TRIG_ARGUMENT_RANGE
from jitcore.codegen.nvptx.plan import GpuPlan
from jitcore.codegen.plan import Branch, Callback, Copy, ForLoop, Run, Storage, WhileLoop
from jitcore.cuda.device_array import Allocation, DeviceArray, device_put
from jitcore.cuda.driver import CudaError, Driver, driver
from jitcore.dispatch import Trimmed, check_no_aliasing, status_error
from jitcore.ir.dialects import kernel

SINGULAR_MATRIX = kernel.SINGULAR_MATRIX



class GpuIndexError(CudaError, IndexError):
    """An index out of range met by a GPU kernel that checks its indices in parallel; the
    message names the user's line of the indexing."""


def _overlap(a, b) -> bool:
    """Whether two arguments share memory: DeviceArrays on one allocation, or NumPy arrays
    that may (a DeviceArray and a NumPy array never do)."""
    if isinstance(a, DeviceArray) or isinstance(b, DeviceArray):
        return isinstance(a, DeviceArray) and isinstance(b, DeviceArray) and a.memory is b.memory
    return np.may_share_memory(a, b)


def _write_back(cuda: Driver, target, new: DeviceArray) -> None:
    """An argument's new value into the caller's array: a NumPy array by a copy back to the
    host, a DeviceArray by a device-to-device copy (none where the kernel wrote in its memory)."""
    if not isinstance(target, DeviceArray):
        np.copyto(target, new.to_numpy())
    elif target.transposed or new.transposed:
        raise UnsupportedOnGpuError(
            "jitcore's CUDA backend writes in place only to DeviceArrays in C order: pass "
            "np.ascontiguousarray of it, or return the new value")
    elif target.memory is not new.memory:
        cuda.copy(target.pointer, new.pointer, target.nbytes)


_modules: dict[tuple[str, bytes], object] = {}  # (symbol, PTX digest) -> the loaded module
_modules_lock = threading.Lock()


def load_module(cuda: Driver, plan: GpuPlan):
    """The plan's PTX loaded by the driver, once per process (one device)."""
    key = (plan.symbol, hashlib.sha256(plan.object_code).digest())
    with _modules_lock:
        module = _modules.get(key)
        if module is None:
            module = _modules[key] = cuda.load_module(plan.object_code)
        return module


class CudaExecutable:
    """A compiled function ready to call on the GPU; called as ``dispatch.Executable`` is."""

    takes_device_arrays = True  # the short path (dispatch.fast_key) may hand it DeviceArrays

    def __init__(self, plan: GpuPlan, out_tree: pytree.TreeDef, mutated: tuple[int, ...] = (),
                 scalars: tuple[bool, ...] = (), owners: tuple[int, ...] = (),
                 arguments: tuple[int, ...] = (), transposed: tuple[bool, ...] = ()):
        self.mutated = mutated  # arguments written in place: their new values follow the results
        self.plan = plan
        self.out_tree = out_tree
        self.cuda = driver()
        module = load_module(self.cuda, plan)
        # a launch run inside its row group's (grid 0) has no function of its own
        self.functions = [self.cuda.function(module, launch.kernel) if shape.grid else None
                          for launch, shape in zip(plan.launches, plan.shapes)]
        self.constants = [device_put(c).memory for c in plan.constants]
        # per result (the new values of arguments written in place come after the results)
        self.transposed = tuple(transposed) + (False,) * (len(plan.outputs) - len(transposed))
        # what each call repeats, made once: the storages' keys, the buffers' sizes
        self._inputs = [Storage("input", i) for i in range(len(plan.arg_strided))]
        self._buffers = [(Storage("buffer", i), int(np.prod(shape)) * dtype.itemsize, dtype, i in plan.zeroed)
                         for i, (shape, dtype) in enumerate(plan.buffers)]
        self._constants = [(Storage("constant", i), memory, plan.constants[i].dtype)
                           for i, memory in enumerate(self.constants)]
        self._outputs = [(storage, shape[::-1] if turn else shape, turn)
                         for (storage, shape), turn in zip(plan.outputs, self.transposed)]
        # results whose length the data chose (jitcore/data_length.py): their count's output
        self._trimmed = [(k, mark) for k, mark in enumerate(scalars) if isinstance(mark, Trimmed)]

    def call_flat(self, args: tuple):
        """The short path's call (``dispatch.fast_key``): positional C-contiguous NumPy arrays
        or ``DeviceArray``s, the arguments in order."""
        return self(list(args))

    def __call__(self, arrays: list, callers: list | None = None):
        cuda, plan = self.cuda, self.plan
        cuda.current()
        if self.mutated:
            check_no_aliasing(arrays if callers is None else callers, self.mutated, _overlap)
        where: dict[Storage, Allocation] = {}
        dtypes: dict[Storage, np.dtype] = {}
        for storage, a in zip(self._inputs, arrays):
            on_device = a if isinstance(a, DeviceArray) and not a.transposed else device_put(np.asarray(a))
            where[storage], dtypes[storage] = on_device.memory, on_device.dtype
        for storage, nbytes, dtype, zeroed in self._buffers:
            where[storage], dtypes[storage] = Allocation(cuda, nbytes), dtype
            if zeroed:  # a grid reduction's count of finished blocks, a scatter's claims: 0
                cuda.zero(where[storage].pointer, nbytes)
        for storage, memory, dtype in self._constants:
            where[storage], dtypes[storage] = memory, dtype
        if plan.has_status:
            where[STATUS] = Allocation(cuda, STATUS_BYTES)  # the CPU's 4 words, a key and a lock
            cuda.zero(where[STATUS].pointer, STATUS_BYTES)
        self._steps(plan.program, where)
        # No wait for the GPU here (JAX's asynchronous dispatch): a loop of calls on device
        # arrays queues its launches while earlier ones run; reading a result back
        # (``to_numpy``, ``np.asarray``) or ``block_until_ready`` waits. Only the status words
        # are read now, since an error must be raised by the call that made it (their copy to
        # the host waits for the launches before it).
        if plan.has_status:
            self._check_status(where[STATUS])
        outputs = [DeviceArray(where[storage], shape, dtypes[storage], turn)
                   for storage, shape, turn in self._outputs]
        if self.mutated:  # NumPy's semantics: the caller's arrays changed
            results = len(outputs) - len(self.mutated)
            targets = arrays if callers is None else callers
            for i, new in zip(self.mutated, outputs[results:]):
                _write_back(cuda, targets[i], new)
            outputs = outputs[:results]
        # A result whose length the data chose is its buffer's first rows: the count is read
        # back (a wait for the launches), the rows stay where they are
        for k, mark in self._trimmed:
            rows, kept = outputs[k], int(outputs[mark.count].to_numpy())
            if mark.made_of is None:
                outputs[k] = DeviceArray(rows.memory, (kept, *rows.shape[1:]), rows.dtype)
            elif mark.tags >= 0:  # (and each item's type, which the data chose)
                outputs[k] = mark.trim(rows.to_numpy()[:kept], kept, outputs[mark.tags].to_numpy())
            else:  # a list's items (or NumPy's empty array of one) are the host's
                outputs[k] = mark.trim(rows.to_numpy()[:kept], kept)
        # (tags of results whose type the data chose, type_choice.py: a device array has one)
        return pytree.unflatten(self.out_tree, outputs[:self.out_tree.num_leaves])

    # -- the program -----------------------------------------------------------------------
    def _steps(self, steps, where: dict, in_loop: bool = False) -> None:
        cuda = self.cuda
        for step in steps:
            if isinstance(step, Run):
                launch, shape = self.plan.launches[step.launch], self.plan.shapes[step.launch]
                cuda.launch(self.functions[step.launch], shape.grid, shape.block,
                            [where[s].pointer for s in launch.operands])
                if in_loop and STATUS in launch.operands:
                    self._check_status(where[STATUS])  # a bad index stops the loop, as on the CPU
            elif isinstance(step, Copy):
                cuda.copy(where[step.target].pointer, where[step.source].pointer, step.nbytes)
            elif isinstance(step, ForLoop):
                self._for(step, where)
            elif isinstance(step, WhileLoop):
                originals = self._originals(step.swaps, where)
                while True:
                    self._steps(step.before, where, True)
                    if not self._read(where[step.condition], np.bool_):
                        break
                    self._steps(step.body, where, True)
                    self._trade(step.swaps, where)
                self._restore(step.swaps, where, originals)
            elif isinstance(step, Branch):
                chosen = step.then if self._read(where[step.condition], np.bool_) else step.otherwise
                self._steps(chosen, where, in_loop)
            elif isinstance(step, Callback):
                kinds = self.plan.callbacks[step.number]  # results last: (shape, dtype, "out")
                arrays = [self._fetch(where[s], *kind) if len(kind) == 2 else np.empty(*kind[:2])
                          for s, kind in zip(step.operands, kinds)]
                run_callback(step.number, arrays)
                for s, kind, a in zip(step.operands, kinds, arrays):
                    if len(kind) == 3 and a.nbytes:  # a result the callback filled (a random draw)
                        self.cuda.to_device(where[s].pointer, a.ctypes.data, a.nbytes)
            else:
                raise UnsupportedOnGpuError(f"jitcore's CUDA backend cannot run the step {step!r}")

    def _for(self, step: ForLoop, where: dict) -> None:
        lower, upper, by = (int(self._read(where[s], np.int64)) for s in (step.lower, step.upper, step.step))
        if by == 0 and step.check_step:
            raise status_error(ZERO_STEP, 0, 0, 0)
        originals = self._originals(step.swaps, where)
        iv = lower
        while iv < upper if by > 0 else iv > upper:
            value = np.array(iv, np.int64)
            self.cuda.to_device(where[step.iv].pointer, value.ctypes.data, 8)
            self._steps(step.body, where, True)
            self._trade(step.swaps, where)
            iv += by
        self._restore(step.swaps, where, originals)

    @staticmethod
    def _originals(swaps, where: dict) -> list:
        return [(where[s.target], where[s.source]) for s in swaps]

    @staticmethod
    def _trade(swaps, where: dict) -> None:
        """Each swap's two buffers exchange roles at the end of an iteration."""
        for s in swaps:
            where[s.target], where[s.source] = where[s.source], where[s.target]

    def _restore(self, swaps, where: dict, originals: list) -> None:
        """After the loop, a carried value that ended in the other buffer is copied home."""
        for s, (target, source) in zip(swaps, originals):
            if where[s.target] is not target:
                self.cuda.copy(target.pointer, where[s.target].pointer, s.nbytes)
            where[s.target], where[s.source] = target, source

    def _fetch(self, memory: Allocation, shape, dtype) -> np.ndarray:
        """A host copy of a C-contiguous device array (a callback may keep it)."""
        out = np.empty(shape, dtype)
        if out.nbytes:
            self.cuda.to_host(out.ctypes.data, memory.pointer, out.nbytes)  # waits for the launches
        return out

    def _read(self, memory: Allocation, dtype):
        return self._fetch(memory, (), dtype)[()]

    def _check_status(self, memory: Allocation) -> None:
        words = np.zeros(5, np.int64)
        self.cuda.to_host(words.ctypes.data, memory.pointer, words.nbytes)
        flag, index, axis, size, key = words.tolist()
        if flag == 0:
            return
        write_back_held(None)  # (values held for the CPU's write-back: not read here)
        if flag == INDEX_ERROR and key:  # a parallel check's: the key names the check
            place = self.plan.check_places.get(((key >> 48) & 0x7FFF, key & 0xFF), "an unknown location")
            raise GpuIndexError(f"{status_error(flag, index, axis, size)} (at {place})")
        if flag in (*kernel.LINALG_ERRORS, *kernel.PYTHON_ERRORS, ZERO_STEP, INDEX_ERROR):
            raise status_error(flag, index, axis, size)
        if flag == TRIG_ARGUMENT_RANGE:
            limits = ", ".join(f"{abs_x:g} ({kind})" for kind, abs_x in TRIG_ARGUMENT_LIMITS.items())
            raise TrigArgumentRangeError(
                f"sin, cos or tan of an argument beyond the GPU math library's range (|x| <= {limits}): "
                "jitcore's CUDA backend cannot compute it accurately yet; reduce the argument first "
                "(np.remainder(x, 2 * np.pi)) or use backend='cpu'")
        raise UnsupportedOnGpuError(f"the GPU kernel reported an unknown status {flag}")
