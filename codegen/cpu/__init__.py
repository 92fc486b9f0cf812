"""The host CPU target: the CPU schedule of kernels (``schedule.py``), the target machine and
MCJIT (``target.py``), and the backend that ties them to a plan (``backend.py``)."""

from jitcore.codegen.cpu.backend import CpuBackend

__all__ = ["CpuBackend"]
