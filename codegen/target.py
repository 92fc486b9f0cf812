"""The host CPU target: one LLVM target machine, the O3 pipeline, and an MCJIT engine.

Created once per process (LLVM's target setup is global and not cheap). Every compiled module
is optimised for the host CPU's name and features with loop and SLP vectorization on, then
added to one shared MCJIT engine.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from functools import cache

import llvmlite.binding as llvm

from jitcore.ir.errors import JitcoreError

_lock = threading.Lock()


@cache
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


@cache
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
    """Parse, verify, optimise and JIT ``llvm_ir``; return the module and symbol addresses.

    The machine code is emitted as an object file first and its undefined symbols are checked
    against this process: LLVM may call a runtime helper (``__truncdfhf2``, say) that the
    process lacks, and jumping to an unresolved symbol would crash the interpreter.
    """
    tm = host_target_machine()
    module = llvm.parse_assembly(llvm_ir)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    optimize(module, tm)
    for name in symbols:
        # get_function_address aborts the process on a missing symbol: check first.
        if module.get_function(name) is None:
            raise JitcoreError(f"internal error: compiled module has no function {name!r}")
    obj = tm.emit_object(module)
    missing = [s for s in undefined_symbols(obj) if not _process_provides(s)]
    if missing:
        raise JitcoreError(
            f"internal error: the compiled code needs {', '.join(missing)}, which this process "
            "does not provide; please report this with the function that triggered it"
        )
    with _lock:
        engine = _engine()
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addresses = {name: engine.get_function_address(name) for name in symbols}
    return module, addresses


def undefined_symbols(elf: bytes) -> list[str]:
    """Names an ELF64 little-endian object file uses but does not define."""
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab_offset = sections[link][4]
        for pos in range(offset, offset + size, entsize):
            name_at, _, _, shndx = struct.unpack_from("<IBBH", elf, pos)
            if shndx == 0 and name_at:
                end = elf.index(b"\0", strtab_offset + name_at)
                names.append(elf[strtab_offset + name_at : end].decode())
    return names


@cache
def _process_provides(symbol: str) -> bool:
    return hasattr(ctypes.CDLL(None), symbol)


def assembly(module: llvm.ModuleRef) -> str:
    """The host machine code of an optimised module, as assembly text."""
    return host_target_machine().emit_assembly(module)
