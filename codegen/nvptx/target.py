"""The NVPTX target: LLVM IR to PTX text for one GPU architecture (``sm_80``, ``sm_90``, ...).

The PTX is JIT-compiled by the CUDA driver when a module is loaded, so no CUDA toolkit is
needed to run it; ``ptxas`` (when installed) assembles it ahead of time in the tests. The PTX
ISA version is the lowest that the architecture needs (``PTX_FEATURES``): the lower it is, the
older the drivers that accept it.
"""

from __future__ import annotations

import functools
import re
import threading

import llvmlite.binding as llvm

from jitcore.ir.errors import JitcoreError

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_80"  # without a driver to ask (dump-ir, the PTX tests): Ampere
# the lowest PTX ISA version each architecture family needs (LLVM's feature names)
PTX_FEATURES = ((120, "+ptx87"), (100, "+ptx86"), (90, "+ptx80"), (80, "+ptx80"), (70, "+ptx80"))
_ARCH = re.compile(r"sm_(\d+)[af]?$")
_lock = threading.Lock()


def check_arch(arch: str) -> str:
    """``arch`` if LLVM's NVPTX target can generate code for it (``sm_70`` and later)."""
    match = _ARCH.match(arch)
    if match is None or int(match.group(1)) < 70:
        raise JitcoreError(f"unknown GPU architecture {arch!r}: give one as sm_XY (sm_70 or later), "
                           "e.g. sm_80 or sm_90")
    return arch


def arch_of(major: int, minor: int) -> str:
    """The architecture name of a compute capability, as the driver reports it."""
    return f"sm_{major}{minor}"


def ptx_features(arch: str) -> str:
    number = int(_ARCH.match(check_arch(arch)).group(1))
    return next(feature for lowest, feature in PTX_FEATURES if number >= lowest)


@functools.cache
def target_machine(arch: str) -> llvm.TargetMachine:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=check_arch(arch), features=ptx_features(arch), opt=3)


def data_layout(arch: str) -> str:
    return str(target_machine(arch).target_data)


def compile_ptx(llvm_ir: str, arch: str) -> tuple[llvm.ModuleRef, str]:
    """Parse, verify and optimise ``llvm_ir`` for ``arch``; the optimised module and its PTX."""
    tm = target_machine(arch)
    with _lock:  # one LLVM context: parse and optimise one module at a time
        module = llvm.parse_assembly(llvm_ir)
        module.triple = TRIPLE
        module.data_layout = str(tm.target_data)
        module.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(module, builder)
        return module, tm.emit_assembly(module)
