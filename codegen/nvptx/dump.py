"""The ``ptx`` stage of ``dump-ir``: an optimised module's one function as PTX for any
architecture, with or without a GPU."""

from __future__ import annotations

from jitcore.codegen.errors import CodegenError
from jitcore.codegen.nvptx import target
from jitcore.codegen.nvptx.backend import NvptxBackend
from jitcore.codegen.plan import LowerOptions


def ptx_text(module, arch: str = target.DEFAULT_ARCH, fastmath: bool = False) -> str:
    """The PTX of ``module``'s function (an optimised module: kernels) for ``arch``."""
    arch = target.check_arch(arch)
    functions = list(module.functions())
    if len(functions) != 1:
        raise CodegenError(f"the ptx stage needs one function, this module has {len(functions)}")
    (func,) = functions
    plan = NvptxBackend().lower_for(func, len(func.body.args), LowerOptions(fastmath=fastmath), arch)
    return plan.ptx
