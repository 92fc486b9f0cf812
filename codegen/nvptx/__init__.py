"""The NVPTX (CUDA GPU) target: kernels as PTX, a plan the CUDA runtime runs."""

from jitcore.codegen.nvptx.backend import NvptxBackend, UnsupportedOnGpuError

__all__ = ["NvptxBackend", "UnsupportedOnGpuError"]
