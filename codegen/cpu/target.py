"""The host CPU target: one LLVM target machine, the O3 pipeline, and an MCJIT engine.

Created once per process (LLVM's target setup is global and not cheap). Every compiled module
is optimised for the host CPU's name and features with loop and SLP vectorization on, emitted
as object code, and that object code is added to one shared MCJIT engine.
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


def magic() -> tuple[str, str, str]:
    """What the machine code depends on besides the IR: triple, CPU name, CPU features."""
    tm = host_target_machine()
    return (tm.triple, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())


def compile_ir(llvm_ir: str) -> tuple[llvm.ModuleRef, bytes]:
    """Parse, verify and optimise ``llvm_ir`` for the host; the optimised module and its
    object code."""
    tm = host_target_machine()
    module = llvm.parse_assembly(llvm_ir)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    optimize(module, tm)
    return module, tm.emit_object(module)


def load_object(obj: bytes, symbols: list[str]) -> dict[str, int]:
    """Add object code to the process's engine; the addresses of ``symbols`` in it.

    Its undefined symbols are checked against this process first: LLVM may call a runtime
    helper (``__truncdfhf2``, say) that the process lacks, and jumping to an unresolved symbol
    would crash the interpreter. So would asking the engine for a symbol it lacks.
    """
    defined, undefined = elf_symbols(obj)
    lost = [name for name in symbols if name not in defined]
    if lost:
        raise JitcoreError(f"internal error: the object code defines no {', '.join(lost)}")
    missing = [s for s in undefined if not _process_provides(s)]
    if missing:
        raise JitcoreError(
            f"internal error: the compiled code needs {', '.join(missing)}, which this process "
            "does not provide; please report this with the function that triggered it"
        )
    with _lock:
        engine = _engine()
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        return {name: engine.get_function_address(name) for name in symbols}


def compile_module(llvm_ir: str, symbols: list[str]) -> tuple[llvm.ModuleRef, dict[str, int]]:
    """Compile and load ``llvm_ir``: the optimised module and the addresses of ``symbols``."""
    module, obj = compile_ir(llvm_ir)
    return module, load_object(obj, symbols)


def elf_symbols(elf: bytes) -> tuple[set[str], list[str]]:
    """The global names an ELF64 little-endian object file defines, and those it uses but does
    not define."""
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    defined, undefined = set(), []
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        strtab_offset = sections[link][4]
        for pos in range(offset, offset + size, entsize):
            name_at, info, _, shndx = struct.unpack_from("<IBBH", elf, pos)
            if not name_at:
                continue
            end = elf.index(b"\0", strtab_offset + name_at)
            name = elf[strtab_offset + name_at : end].decode()
            if shndx == 0:
                undefined.append(name)
            elif info >> 4 != 0:  # not STB_LOCAL
                defined.add(name)
    return defined, undefined


@cache
def _process_provides(symbol: str) -> bool:
    """Whether the process defines ``symbol``, or the runtime gave LLVM its address
    (``llvm.add_symbol``: the runtime's settings)."""
    return hasattr(ctypes.CDLL(None), symbol) or llvm.address_of_symbol(symbol) is not None


def assembly(optimized_llvm_ir: str) -> str:
    """The host machine code of an optimised module's text, as assembly text."""
    return host_target_machine().emit_assembly(llvm.parse_assembly(optimized_llvm_ir))
