"""The NVPTX (CUDA GPU) target: kernels as PTX, a plan the CUDA runtime runs."""

from jitcore.codegen.nvptx.backend import NvptxBackend, TrigArgumentRangeError, UnsupportedOnGpuError

__all__ = ["NvptxBackend", "TrigArgumentRangeError", "UnsupportedOnGpuError"]
