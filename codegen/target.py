"""The host CPU target: one LLVM target machine, the O3 pipeline, and an MCJIT engine.

Created once per process (LLVM's target setup is global and not cheap). Every compiled module
is optimised for the host CPU's name and features with loop and SLP vectorization on, then
added to one shared MCJIT engine.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import llvmlite.binding as llvm

from ir.errors import JitcoreError

_lock = threading.Lock()


@lru_cache(maxsize=None)
def host_target_machine() -> llvm.TargetMachine:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        reloc="default",
        codemodel="jitdefault",
    )


@lru_cache(maxsize=None)
def _engine() -> llvm.ExecutionEngine:
    tm = host_target_machine()
    empty = llvm.parse_assembly("")
    empty.triple = tm.triple
    return llvm.create_mcjit_compiler(empty, tm)


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine | None = None) -> None:
    """Run LLVM's O3 pipeline with loop and SLP vectorization, in place."""
    tm = tm or host_target_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    builder = llvm.create_pass_builder(tm, pto)
    builder.getModulePassManager().run(module, builder)


def compile_module(llvm_ir: str, symbols: list[str]) -> tuple[llvm.ModuleRef, dict[str, int]]:
    """Parse, verify, optimise and JIT ``llvm_ir``; return the module and symbol addresses."""
    tm = host_target_machine()
    module = llvm.parse_assembly(llvm_ir)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    optimize(module, tm)
    with _lock:
        engine = _engine()
        engine.add_module(module)
        engine.finalize_object()
        engine.run_static_constructors()
        addresses = {}
        for name in symbols:
            # get_function_address aborts the process on a missing symbol: check first.
            if module.get_function(name) is None:
                raise JitcoreError(f"internal error: compiled module has no function {name!r}")
            addresses[name] = engine.get_function_address(name)
    return module, addresses


def assembly(module: llvm.ModuleRef) -> str:
    """The host machine code of an optimised module, as assembly text."""
    return host_target_machine().emit_assembly(module)
