"""Whether this llvmlite can emit x86-64 code. Tests that check machine code on fixed x86 CPUs
need it; llvmlite's own builds register the host's target (plus NVPTX and AMDGPU), so on an
ARM host those tests are skipped rather than failing with LLVM's "no available targets"."""

import llvmlite.binding as llvm
import pytest

X86_TRIPLE = "x86_64-unknown-linux-gnu"


def x86_target_available() -> bool:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        llvm.Target.from_triple(X86_TRIPLE)
    except RuntimeError:
        return False
    return True


requires_x86_target = pytest.mark.skipif(
    not x86_target_available(), reason="this llvmlite has no x86-64 target (an ARM host's build)")
