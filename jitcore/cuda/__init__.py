"""jitcore's CUDA runtime: the driver through ctypes (``driver.py``), arrays in GPU memory
(``device_array.py``) and compiled plans run on the GPU (``executable.py``)."""

from jitcore.codegen.backend import backend_for
from jitcore.codegen.nvptx.target import arch_of
from jitcore.cuda import driver
from jitcore.cuda.device_array import DeviceArray, device_put
from jitcore.cuda.driver import CudaDriverError, CudaError, Driver, NoCudaDriverError
from jitcore.cuda.executable import CudaExecutable, GpuIndexError

__all__ = ["CudaDriverError", "CudaError", "CudaExecutable", "DeviceArray", "Driver", "GpuIndexError",
           "NoCudaDriverError", "device_put", "require"]


def require() -> Driver:
    """The driver, with the CUDA backend set to generate code for its device's compute
    capability; ``NoCudaDriverError`` where there is no driver or no GPU."""
    cuda = driver.driver()
    backend_for("cuda").use_arch(arch_of(*cuda.capability))
    return cuda
