"""Arrays in GPU memory: ``device_put(x)`` copies a NumPy array to the GPU, and the CUDA
backend's jitted functions take and return ``DeviceArray``s, so a loop of calls keeps its data
on the device. ``to_numpy()`` (or ``np.asarray``) copies one back."""

from __future__ import annotations

import numpy as np

from jitcore.cuda.driver import Driver, driver


class Allocation:
    """``nbytes`` of device memory, freed when the last array using it goes."""

    __slots__ = ("driver", "pointer", "nbytes")

    def __init__(self, cuda: Driver, nbytes: int):
        self.driver = cuda
        self.nbytes = nbytes
        self.pointer = cuda.allocate(nbytes)

    def __del__(self):
        pointer, self.pointer = getattr(self, "pointer", 0), 0
        if pointer:
            try:
                self.driver.free(pointer)
            except Exception:  # noqa: BLE001  (the process may be exiting; never raise in __del__)
                pass


class DeviceArray:
    """A C-contiguous array in GPU memory, with ndarray's ``shape``, ``dtype``, ``ndim``,
    ``size`` and ``nbytes``. ``transposed``: its memory holds its transpose (a result the
    compiled code computed transposed, as NumPy would give it in Fortran order)."""

    __jitcore_device_array__ = True  # what jit's argument handling looks for
    __slots__ = ("memory", "shape", "dtype", "transposed")

    def __init__(self, memory: Allocation, shape: tuple[int, ...], dtype, transposed: bool = False):
        self.memory = memory
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.transposed = transposed

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def pointer(self) -> int:
        return self.memory.pointer

    def to_numpy(self) -> np.ndarray:
        """A new NumPy array with this array's values (waits for the GPU's work before it)."""
        stored = self.shape[::-1] if self.transposed else self.shape
        out = np.empty(stored, self.dtype)
        self.memory.driver.synchronize()
        self.memory.driver.to_host(out.ctypes.data, self.pointer, out.nbytes)
        return out.T if self.transposed else out

    def block_until_ready(self) -> DeviceArray:
        """This array, once the GPU's work queued before it is done (jitted calls return
        before their kernels finish; JAX's method of the same name)."""
        self.memory.driver.synchronize()
        return self

    def __array__(self, dtype=None, copy=None):
        out = self.to_numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray({self.to_numpy()!r})"


def device_put(x) -> DeviceArray:
    """``x`` (anything ``np.asarray`` takes) copied to the GPU; a DeviceArray as it is."""
    if isinstance(x, DeviceArray):
        return x
    host = np.ascontiguousarray(x)
    cuda = driver()
    memory = Allocation(cuda, host.nbytes)
    cuda.to_device(memory.pointer, host.ctypes.data, host.nbytes)
    return DeviceArray(memory, host.shape, host.dtype)
