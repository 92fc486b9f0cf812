"""The NVPTX target: LLVM IR to PTX text for one GPU architecture (``sm_80``, ``sm_90``, ...).

The PTX is JIT-compiled by the CUDA driver when a module is loaded, so no CUDA toolkit is
needed to run it; ``ptxas`` (when installed) assembles it ahead of time in the tests. The PTX
ISA version is the lowest that the architecture needs (``PTX_FEATURES``): the lower it is, the
older the drivers that accept it.

A device newer than the architectures in ``PTX_FEATURES`` (say sm_103, sm_110 or sm_121, whose
PTX needs an ISA this LLVM's table does not give, which would end the process with an LLVM
error) gets the PTX of the newest one listed below it: PTX for ``sm_XY`` is JIT-compiled by the
driver for any later device. Arch-specific targets (``sm_90a``) are accepted where listed.
"""

from __future__ import annotations

import functools
import re
import threading

import llvmlite.binding as llvm

from jitcore.ir.errors import JitcoreError

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_80"  # without a driver to ask (dump-ir, the PTX tests): Ampere
# the architectures code is generated for, with the lowest PTX ISA version each needs (LLVM's
# feature names), as verified with llvmlite 0.50's LLVM and ptxas 13
PTX_FEATURES = {70: "+ptx80", 72: "+ptx80", 75: "+ptx80", 80: "+ptx80", 86: "+ptx80", 87: "+ptx80",
                89: "+ptx80", 90: "+ptx80", 100: "+ptx86", 120: "+ptx87"}  # (sm_101 is now sm_110)
# A kernel's parameters: 4352 bytes below PTX ISA 8.1, 32764 from it (sm_70 and later, a CUDA
# 12.1 driver); a module whose kernels need more than the first asks for ISA 8.1 (PARAMETER_ISA)
PARAMETER_BYTES, LARGE_PARAMETER_BYTES, PARAMETER_ISA = 4352, 32764, "+ptx81"
ARCH_SPECIFIC = (90, 100, 120)  # those with an ``a`` variant (sm_90a: features of that chip only)
_ARCH = re.compile(r"sm_(\d+)(a?)$")
_lock = threading.Lock()


def check_arch(arch: str) -> str:
    """The architecture to generate code for a device of ``arch`` (``sm_70`` and later): ``arch``
    itself if listed in ``PTX_FEATURES``, else the newest listed below it (see the module's
    docstring)."""
    match = _ARCH.match(arch)
    number = int(match.group(1)) if match is not None else 0
    specific = match is not None and match.group(2) == "a"
    if number < 70 or (specific and number not in ARCH_SPECIFIC):
        raise JitcoreError(f"unknown GPU architecture {arch!r}: give one as sm_XY (sm_70 or later), "
                           "e.g. sm_80 or sm_90, or sm_90a")
    if number in PTX_FEATURES:
        return arch
    return f"sm_{max(n for n in PTX_FEATURES if n < number)}"


def arch_of(major: int, minor: int) -> str:
    """The architecture name of a compute capability, as the driver reports it."""
    return f"sm_{major}{minor}"


def ptx_features(arch: str, large_parameters: bool = False) -> str:
    """The PTX ISA version for ``arch`` (at least ISA 8.1 for ``large_parameters``)."""
    features = PTX_FEATURES[int(_ARCH.match(check_arch(arch)).group(1))]
    if large_parameters and int(features[4:]) < int(PARAMETER_ISA[4:]):
        return PARAMETER_ISA
    return features


@functools.cache
def target_machine(arch: str, large_parameters: bool = False) -> llvm.TargetMachine:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=check_arch(arch), features=ptx_features(arch, large_parameters),
                                        opt=3)


def data_layout(arch: str) -> str:
    return str(target_machine(arch).target_data)


def compile_ptx(llvm_ir: str, arch: str, large_parameters: bool = False) -> tuple[llvm.ModuleRef, str]:
    """Parse, verify and optimise ``llvm_ir`` for ``arch``; the optimised module and its PTX
    (``large_parameters``: a kernel takes more than ``PARAMETER_BYTES`` of parameters)."""
    tm = target_machine(arch, large_parameters)
    with _lock:  # one LLVM context: parse and optimise one module at a time
        module = llvm.parse_assembly(llvm_ir)
        module.triple = TRIPLE
        module.data_layout = str(tm.target_data)
        module.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(module, builder)
        return module, tm.emit_assembly(module)
