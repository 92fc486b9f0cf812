"""The CUDA driver API (``libcuda.so``, installed with the GPU's driver) through ctypes.

Only the driver: no CUDA toolkit is needed, since the driver JIT-compiles PTX itself. Every
call's ``CUresult`` other than 0 raises ``CudaDriverError`` carrying the driver's own name and
description of the error (``cuGetErrorName``, ``cuGetErrorString``). Without the library,
``load_driver`` raises ``NoCudaDriverError``, saying to use ``backend='cpu'``.

One ``Driver`` per process (``driver()``): device 0, its primary context (the one the CUDA
runtime and other libraries share), made current on each thread that calls.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading

from jitcore.cuda.staging import PINNED_MIN_BYTES, Staging
from jitcore.errors import JitcoreError

LIBRARIES = ("nvcuda.dll",) if sys.platform == "win32" else ("libcuda.so.1", "libcuda.so")
COMPUTE_CAPABILITY_MAJOR, COMPUTE_CAPABILITY_MINOR = 75, 76  # CUdevice_attribute values
OUT_OF_MEMORY = 2  # CUDA_ERROR_OUT_OF_MEMORY
# Freed device memory kept for reuse, at most: cuMemAlloc costs tens of microseconds and
# cuMemFree waits for the whole device, once per array per call without it
POOL_BYTES = 1 << 30


class CudaError(JitcoreError):
    """Base of the CUDA backend's errors."""


class NoCudaDriverError(CudaError):
    """No CUDA driver (``libcuda.so``) could be loaded, or it found no GPU."""


class CudaDriverError(CudaError):
    """A CUDA driver call failed: ``code``, ``name`` and ``description`` are the driver's."""

    def __init__(self, call: str, code: int, name: str, description: str):
        super().__init__(f"{call} failed: {name} ({code}): {description}")
        self.call, self.code, self.name, self.description = call, code, name, description


def find_library() -> ctypes.CDLL:
    """``libcuda`` loaded, or ``NoCudaDriverError`` listing what was tried."""
    names = [*LIBRARIES, ctypes.util.find_library("cuda")]
    errors = []
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(f"{name}: {e}")
    raise NoCudaDriverError("no CUDA driver (libcuda.so) found: " + "; ".join(errors)
                            + "; use backend='cpu'")


class Driver:
    """The driver's calls that jitcore uses, each checked. ``lib`` is ``libcuda`` (a test may
    pass a stand-in with the same functions)."""

    def __init__(self, lib):
        self.lib = lib
        self._local = threading.local()
        self._staging = None  # not opened yet; False: pinning failed
        self._staging_lock = threading.Lock()
        # freed blocks by size (allocation sizes rounded by _bucket), and every live block's size
        self._pool: dict[int, list[int]] = {}
        self._sizes: dict[int, int] = {}
        self._pooled = 0
        self._pool_lock = threading.Lock()
        self.check("cuInit", lib.cuInit(0))
        count = ctypes.c_int()
        self.check("cuDeviceGetCount", lib.cuDeviceGetCount(ctypes.byref(count)))
        if count.value < 1:
            raise NoCudaDriverError("the CUDA driver found no GPU; use backend='cpu'")
        device = ctypes.c_int()
        self.check("cuDeviceGet", lib.cuDeviceGet(ctypes.byref(device), 0))
        self.device = device.value
        self.context = ctypes.c_void_p()
        self.check("cuDevicePrimaryCtxRetain",
                   lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.context), self.device))
        self.capability = (self._attribute(COMPUTE_CAPABILITY_MAJOR),
                           self._attribute(COMPUTE_CAPABILITY_MINOR))

    # -- errors --------------------------------------------------------------------------
    def check(self, call: str, result: int) -> None:
        """Raise ``CudaDriverError`` for a ``CUresult`` other than CUDA_SUCCESS (0)."""
        if result == 0:
            return
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        named = self.lib.cuGetErrorName(result, ctypes.byref(name)) == 0 and name.value
        described = self.lib.cuGetErrorString(result, ctypes.byref(text)) == 0 and text.value
        raise CudaDriverError(call, result, name.value.decode() if named else "CUDA_ERROR_UNKNOWN",
                              text.value.decode() if described else "(the driver has no description)")

    # -- device and context --------------------------------------------------------------
    def _attribute(self, attribute: int) -> int:
        value = ctypes.c_int()
        self.check("cuDeviceGetAttribute",
                   self.lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, self.device))
        return value.value

    def current(self) -> None:
        """Make the context current on this thread (once per thread)."""
        if not getattr(self._local, "current", False):
            self.check("cuCtxSetCurrent", self.lib.cuCtxSetCurrent(self.context))
            self._local.current = True

    # -- modules and launches ------------------------------------------------------------
    def load_module(self, ptx: bytes) -> ctypes.c_void_p:
        """A module JIT-compiled by the driver from PTX text."""
        self.current()
        module = ctypes.c_void_p()
        self.check("cuModuleLoadData", self.lib.cuModuleLoadData(ctypes.byref(module),
                                                                 ctypes.c_char_p(ptx + b"\0")))
        return module

    def function(self, module: ctypes.c_void_p, name: str) -> ctypes.c_void_p:
        fn = ctypes.c_void_p()
        self.check("cuModuleGetFunction",
                   self.lib.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()))
        return fn

    def launch(self, fn: ctypes.c_void_p, grid: int, block: int, pointers: list[int]) -> None:
        """``fn<<<grid, block>>>(pointers...)`` on the default stream."""
        values = [ctypes.c_uint64(p) for p in pointers]
        params = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])
        self.check("cuLaunchKernel", self.lib.cuLaunchKernel(
            fn, ctypes.c_uint(grid), ctypes.c_uint(1), ctypes.c_uint(1),
            ctypes.c_uint(block), ctypes.c_uint(1), ctypes.c_uint(1),
            ctypes.c_uint(0), None, params, None))

    def synchronize(self) -> None:
        self.check("cuCtxSynchronize", self.lib.cuCtxSynchronize())

    # -- memory --------------------------------------------------------------------------
    def allocate(self, nbytes: int) -> int:
        """``nbytes`` of device memory (uninitialised), a freed block of the same bucket if the
        pool holds one. Reuse is safe without waiting: every launch and copy of jitcore's is
        ordered on the default stream (the staging stream synchronises with it), so work on a
        block's last owner is done before work of the next one starts."""
        self.current()
        size = _bucket(nbytes)
        with self._pool_lock:
            free = self._pool.get(size)
            if free:
                self._pooled -= size
                pointer = free.pop()
                self._sizes[pointer] = size
                return pointer
        try:
            pointer = self._allocate(size)
        except CudaDriverError as e:
            if e.code != OUT_OF_MEMORY or not self.release_pool():
                raise
            pointer = self._allocate(size)  # once more, with the pool's blocks given back
        with self._pool_lock:
            self._sizes[pointer] = size
        return pointer

    def _allocate(self, size: int) -> int:
        pointer = ctypes.c_uint64()
        self.check("cuMemAlloc", self.lib.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(size)))
        return pointer.value

    def free(self, pointer: int) -> None:
        """Back to the pool while it holds under ``POOL_BYTES``, else to the driver."""
        with self._pool_lock:
            size = self._sizes.pop(pointer, 0)
            if size and self._pooled + size <= POOL_BYTES:
                self._pool.setdefault(size, []).append(pointer)
                self._pooled += size
                return
        self.check("cuMemFree", self.lib.cuMemFree_v2(ctypes.c_uint64(pointer)))

    def release_pool(self) -> int:
        """Give the pool's blocks back to the driver; the bytes released."""
        with self._pool_lock:
            blocks = [(p, size) for size, free in self._pool.items() for p in free]
            self._pool.clear()
            self._pooled = 0
        for pointer, _ in blocks:
            self.check("cuMemFree", self.lib.cuMemFree_v2(ctypes.c_uint64(pointer)))
        return sum(size for _, size in blocks)

    def staging(self):
        """The pinned staging buffers (``staging.py``), opened at the first large copy; None
        where pinning failed (the copies are then the plain ones)."""
        if self._staging is None:
            self._staging = Staging.open(self) or False
        return self._staging or None

    def to_device(self, pointer: int, host: int, nbytes: int) -> None:
        if nbytes >= PINNED_MIN_BYTES and self.staging() is not None:
            with self._staging_lock:
                self._staging.to_device(pointer, host, nbytes)
        elif nbytes:
            self.check("cuMemcpyHtoD", self.lib.cuMemcpyHtoD_v2(
                ctypes.c_uint64(pointer), ctypes.c_void_p(host), ctypes.c_size_t(nbytes)))

    def to_host(self, host: int, pointer: int, nbytes: int) -> None:
        if nbytes >= PINNED_MIN_BYTES and self.staging() is not None:
            with self._staging_lock:
                self._staging.to_host(host, pointer, nbytes)
        elif nbytes:
            self.check("cuMemcpyDtoH", self.lib.cuMemcpyDtoH_v2(
                ctypes.c_void_p(host), ctypes.c_uint64(pointer), ctypes.c_size_t(nbytes)))

    def copy(self, target: int, source: int, nbytes: int) -> None:
        if nbytes:
            self.check("cuMemcpyDtoD", self.lib.cuMemcpyDtoD_v2(
                ctypes.c_uint64(target), ctypes.c_uint64(source), ctypes.c_size_t(nbytes)))

    def zero(self, pointer: int, nbytes: int) -> None:
        if nbytes:
            self.check("cuMemsetD8", self.lib.cuMemsetD8_v2(ctypes.c_uint64(pointer), ctypes.c_ubyte(0),
                                                          ctypes.c_size_t(nbytes)))


def _bucket(nbytes: int) -> int:
    """An allocation's size in the pool: a multiple of 512 bytes (a 0-byte allocation is an
    error to the driver), from 1 MiB a multiple of an eighth of its power of two (at most 12.5%
    more), so that sizes that differ a little share blocks."""
    nbytes = max(1, nbytes)
    grain = 512 if nbytes < 1 << 20 else 1 << (nbytes.bit_length() - 4)
    return -(-nbytes // grain) * grain


_driver: Driver | None = None
_lock = threading.Lock()


def driver() -> Driver:
    """The process's driver, initialised on first use; ``NoCudaDriverError`` without one."""
    global _driver
    with _lock:
        if _driver is None:
            _driver = Driver(find_library())
        return _driver
