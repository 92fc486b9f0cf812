"""The host CPU target: one LLVM target machine, the O3 pipeline, and an MCJIT engine.

Created once per process (LLVM's target setup is global and not cheap). Every compiled module
is optimised for the host CPU's name and features with loop and SLP vectorization on, emitted
as object code, and that object code is added to one shared MCJIT engine; a function whose
kernels are all tiny and run once takes the cheaper light pipeline instead (``LIGHT_PASSES``,
machine code at level 0 with the higher levels' selector and register allocator).

Vector width. On a CPU with AVX-512 the kernels can compute on 512-bit vectors (16 floats, 8
doubles) or on 256-bit ones, and LLVM's own choice is a tuning flag of the CPU model, not a
measurement of our code: it prefers 256 bits on every Intel AVX-512 model (``skylake-avx512``
through ``graniterapids``, and ``x86-64-v4``) and 512 on AMD's ``znver4``/``znver5``. jitcore
decides per target instead (``vector_bits``) and states it in the target machine's features,
``-prefer-256-bit`` for 512 and ``+prefer-256-bit`` for 256, so the choice is part of
``magic()``'s features and code compiled for one width is never taken for the other's:

- measured (``MEASURED_VECTOR_BITS``): ``znver5`` 512. On the development machine (AMD EPYC,
  Zen 5, 2 cores; docs/performance.md "Vector width" has the tables and how to rerun them) the
  512-bit kernels of the math library run 1.7-2.0x faster than 256-bit ones while the data is in
  cache (100k elements: exp, log, tanh, sin, cos, sqrt, f32 and f64) and 1.1-1.8x faster at 10M
  elements, where memory bounds part of the time; elementwise arithmetic (a*b+c*d-1) and sums
  are equal within the noise (0.9-1.1x) at every size;
- measured: ``znver4`` 512. On an AMD EPYC Zen 4 (2 cores, AVX-512 on 256-bit datapaths: a
  512-bit instruction issues as two halves) the 512-bit kernels still run faster, as LLVM's
  tuning assumes: in cache (100k elements, one process compiling both widths and calling them
  alternately with NumPy) exp, log, tanh, sin, cos and tanh(2x+1) 1.1-1.6x (f32 exp 1.17x,
  f64 log 1.37x), arithmetic and sums 1.0-1.2x; at 10M, where memory bounds part of the time,
  the math library 1.0-1.8x and arithmetic and sums 0.96-1.03x (the noise). No kind of kernel
  measured faster at 256 bits, so there is one width for all (docs/performance.md, "Vector
  width on Zen 4");
- not measured, by rule: 512 on every other AVX-512 CPU (NumPy's own AVX-512 loops are 512-bit
  there, and a math kernel is compute-bound), except the first AVX-512 server cores,
  ``skylake-avx512``, ``cascadelake`` and ``cooperlake``, where 512-bit floating-point work
  lowers the core's clock for every instruction that follows and many parts have a single
  512-bit FMA unit: 256 there, as LLVM chooses;
- without AVX-512 there is no choice to make: LLVM uses the widest registers (256-bit with AVX,
  128-bit NEON or SSE), and the features are the host's, unchanged.

``JITCORE_VECTOR_BITS=256`` or ``512`` overrides the choice on an AVX-512 CPU (to measure it, or
for a CPU the rule gets wrong); it is read once, when the target machine is created, and is
ignored elsewhere. No test assumes a width: tests that look at machine code compile for fixed
CPUs (``target_machine``), never the host.
"""

from __future__ import annotations

import ctypes
import re
import struct
import threading
from functools import cache, lru_cache

import llvmlite
import llvmlite.binding as llvm

from jitcore.codegen import mathlib, stage_times
from jitcore.ir.errors import JitcoreError

_lock = threading.Lock()

# Widths measured on a CPU model (LLVM's name for it), by tools/bench.py's math suite.
MEASURED_VECTOR_BITS = {"znver5": 512, "znver4": 512}
# AVX-512 cores whose 512-bit floating-point instructions lower the clock (Intel's "licence"
# levels) enough that LLVM keeps them at 256 bits; not measured here.
DOWNCLOCKING_AVX512 = frozenset({"skylake-avx512", "cascadelake", "cooperlake"})
VECTOR_BITS_VARIABLE = "JITCORE_VECTOR_BITS"
# The value of JITCORE_VECTOR_BITS; jitcore.config, which reads the environment, sets it.
VECTOR_BITS_OVERRIDE: str | None = None

# Where the host's description (``magic()``) is kept for later processes of this boot of this
# machine, and the math library's definitions (``_isa_definitions``): an object with
# ``load(key) -> str | None`` and ``store(key, text)``, or None (``jitcore.disk_cache`` sets
# it). Asking LLVM for the triple, CPU name and features costs about half a millisecond of a
# process's first call, a tenth of a call that loads its code from disk.
HOST_MEMO = None
BOOT_ID = "/proc/sys/kernel/random/boot_id"  # Linux's: a new random id at every boot
_remembered: tuple[str, str, str] | None = None  # the memo's description, once read

# The light pipeline, for a function where vectorization and scheduling cannot matter (every
# kernel tiny and run once: ``backend.light``): a short list of LLVM's passes instead of an
# O-level pipeline, and machine code at LLVM's level 1 (cheaper instruction selection and
# register allocation). O2 without its vectorizers spent about 10 ms on each of the tests'
# tiny modules, nearly all of it a fixed cost per pass and function; the list takes about
# half of that, and these functions' calls run as fast as O2's within the noise
# (docs/performance.md, "The light pipeline, round 2"). Each kernel is inlined into the entry
# that calls it once (as O2 would: fewer functions to emit, no calls); SROA makes registers of
# the stack slots that fit; instcombine folds the emitter's constant strides and offsets
# (``i * 1 + 0``); simplifycfg merges straight-line blocks, and instcombine folds what that
# exposes. Machine code at LLVM's level 0, with the instruction selector and register
# allocator of the higher levels (``LEVEL_0_CODEGEN_OPTIONS``): level 1 spent about 70% of a
# light compile's LLVM time on machine code, most of it in passes that tiny run-once loops do
# not need (loop strength reduction, scheduling, machine LICM and CSE); level 0 as LLVM makes
# it (fast selection and fast register allocation) ran the math library's chains 2-5x slower.
# With the options the machine code costs about half, and calls run 1.00-1.29x as long as at
# level 1, 0-0.15 us (a loop reloads its constants: level 0 has no machine LICM)
# (docs/performance.md, "First calls, session 33"). All of it is in ``backend.fingerprint()``.
LIGHT_PASSES = ("always_inliner", "sroa", "instruction_combine", "simplify_cfg", "instruction_combine")
LIGHT_CODEGEN_OPT = 0
# LLVM's command-line options that make level-0 machine code select instructions with the
# SelectionDAG and allocate registers with the greedy allocator, as levels 1-3 do. They are
# process-wide, but change nothing at levels 1-3, which do both already (the O3 pipeline's
# object code is byte for byte the same with them): only level-0 target machines see them,
# and jitcore makes those for the light pipeline alone. Set before the first such machine.
LEVEL_0_CODEGEN_OPTIONS = ("-fast-isel=false", "-optimize-regalloc")
# A module written in vectors already (the float32 quicksort's: ``sort_quick.py``) says so
# with this named metadata, and O3 runs on it without the SLP vectorizer: there it vectorized
# nothing (the same object code) and took 60% of the module's passes, about 1.4 s of 2.3
# (docs/performance.md, "Session 54: compile time"). In the text, so that every compile of
# it (the object cache's, a test's ``compile_module``) gets the same code.
NO_SLP_METADATA = "jitcore.no_slp"


def override_vector_bits(text: str | None) -> None:
    """Use ``text`` (``"256"``, ``"512"``, or None: the CPU's choice). Only before the first
    compilation: the target machine, made once, keeps the width it was made with."""
    global VECTOR_BITS_OVERRIDE
    if (text or None) == VECTOR_BITS_OVERRIDE:
        return
    if host_target_machine.cache_info().currsize or host_light_machine.cache_info().currsize:
        raise JitcoreError(f"{VECTOR_BITS_VARIABLE} must be chosen before the first compilation")
    VECTOR_BITS_OVERRIDE = text or None
    forget_host()


def forget_host() -> None:
    """Ask LLVM for the host's description again (after a new override, or a new memo)."""
    global _remembered
    _remembered = None
    host_features.cache_clear()
    _host_machine.cache_clear()
    _described_host.cache_clear()


def vector_bits(cpu: str, features: str, override: str | None = None) -> int | None:
    """The vector width for kernels on ``cpu`` with LLVM ``features``: 512 or 256 on a CPU with
    AVX-512, None elsewhere (LLVM's choice: the widest registers there are). ``override``, the
    value of JITCORE_VECTOR_BITS, replaces the choice on an AVX-512 CPU."""
    if "+avx512f" not in features.split(","):
        return None
    if override:
        if override.strip() not in ("256", "512"):
            raise JitcoreError(f"{VECTOR_BITS_VARIABLE} must be 256 or 512, not {override!r}")
        return int(override)
    if cpu in MEASURED_VECTOR_BITS:
        return MEASURED_VECTOR_BITS[cpu]
    return 256 if cpu in DOWNCLOCKING_AVX512 else 512


def with_vector_bits(features: str, bits: int | None) -> str:
    """``features`` with the x86 tuning flag that makes LLVM use ``bits``-wide vectors."""
    if bits is None:
        return features
    flag = "+prefer-256-bit" if bits == 256 else "-prefer-256-bit"
    kept = [f for f in features.split(",") if f and f[1:] != "prefer-256-bit"]
    return ",".join([*kept, flag])


@cache
def target_machine(triple: str, cpu: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    """A target machine for ``cpu`` with ``features`` as given (with_vector_bits included),
    emitting code at LLVM's ``opt`` level (3; ``LIGHT_CODEGEN_OPT`` for the light pipeline)."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return _new_machine(triple, cpu, features, opt)


def _new_machine(triple: str, cpu: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    """A new target machine; the caller has initialised its target."""
    if opt == 0:
        _level_0_codegen_options()
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=cpu, features=features, opt=opt, reloc="default", codemodel="jitdefault"
    )


@cache
def _level_0_codegen_options() -> None:
    """Set ``LEVEL_0_CODEGEN_OPTIONS``, once per process (LLVM reads them whenever it builds a
    code generation pipeline, so before the first level-0 machine emits code). Under the lock:
    two threads' first light compiles may get here at once, and LLVM's parser is not locked."""
    with _lock:
        for option in LEVEL_0_CODEGEN_OPTIONS:
            llvm.set_option("jitcore", option)


def _new_host_machine(opt: int = 3) -> llvm.TargetMachine:
    """A new host target machine. Only the native target is initialised: every target (which
    ``target_machine`` needs for other CPUs and for NVPTX) costs a millisecond more, and a
    process that loads its code from the disk cache needs none of them."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return _new_machine(*(_remembered or _host_machine()), opt)


@cache
def host_features() -> str:
    """The host CPU's features, with the vector width this target uses (see the docstring)."""
    cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    return with_vector_bits(features, vector_bits(cpu, features, VECTOR_BITS_OVERRIDE))


@cache
def host_target_machine() -> llvm.TargetMachine:
    """The host's target machine, made on the first compile (a disk-cache hit makes none)."""
    return _new_host_machine()


@cache
def host_light_machine() -> llvm.TargetMachine:
    """The host's target machine of the light pipeline (``LIGHT_CODEGEN_OPT``)."""
    return _new_host_machine(LIGHT_CODEGEN_OPT)


def _loading_machine() -> llvm.TargetMachine:
    """A target machine for an engine that only loads object code (``load_object``): it
    generates no code, so only the triple and the relocation and code models matter, not the
    host's CPU and features, whose parsing costs about a millisecond of a first call from the
    disk cache (0.3 ms here against 1.2 for the host's)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_triple(llvm.get_process_triple()).create_target_machine(
        reloc="default", codemodel="jitdefault")


@cache
def _engine() -> llvm.ExecutionEngine:
    tm = _loading_machine()
    empty = llvm.parse_assembly("")
    empty.triple = tm.triple
    return llvm.create_mcjit_compiler(empty, tm)


def optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine | None = None, unroll: bool = True,
             light: bool = False, slp: bool = True, level: int = 3) -> None:
    """Run LLVM's O3 pipeline with loop and SLP vectorization, in place; ``unroll=False``
    leaves out the loop unroller (see ``backend.TINY_WORK``), ``slp=False`` the SLP
    vectorizer (``NO_SLP_METADATA``); ``light`` runs the light pipeline's passes instead
    (``LIGHT_PASSES``); ``level`` below 3 runs LLVM's O1 or O2 pipeline, without vectorizers
    (scalar support code: ``SUPPORT_LEVEL``)."""
    tm = tm or host_target_machine()
    if light:
        for fn in module.functions:  # the kernels, each called once from the entry
            if (fn.linkage == llvm.Linkage.internal and not fn.is_declaration
                    and b"noinline" not in set(fn.attributes)):
                fn.add_function_attribute("alwaysinline")
        pm = llvm.create_new_module_pass_manager()
        for name in LIGHT_PASSES:
            getattr(pm, f"add_{name}_pass")()
        pm.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options()))
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = level == 3
    pto.slp_vectorization = slp and level == 3
    pto.loop_unrolling = unroll
    builder = llvm.create_pass_builder(tm, pto)
    builder.getModulePassManager().run(module, builder)


def magic() -> tuple[str, str, str]:
    """What the machine code depends on besides the IR: triple, CPU name, and the features the
    code is compiled with (the host's, with the vector width: ``host_features``). Read from
    the host, with no target machine made: the disk cache's key needs it before anything is
    compiled, and a hit then makes none. Kept in ``HOST_MEMO`` under the boot's id, the
    vector-width override and LLVM's version, where a later process of the same boot reads it
    instead of asking LLVM; a process that makes a host target machine then makes it from the
    same description."""
    return _described_host()


@cache
def _described_host() -> tuple[str, str, str]:
    global _remembered
    key = _memo_key()
    if key is not None:
        parts = (HOST_MEMO.load(key) or "").split("\n")
        if len(parts) == 3 and all(parts[:2]):
            _remembered = (parts[0], parts[1], parts[2])
            return _remembered
    found = _host_machine()
    if key is not None:
        HOST_MEMO.store(key, "\n".join(found))
    return found


def _memo_key() -> str | None:
    """The memo's key for this boot and these settings; None without a memo or a boot id
    (not Linux): a boot id is never another machine's, and a CPU changes only across boots."""
    if HOST_MEMO is None:
        return None
    try:
        with open(BOOT_ID) as f:
            boot = f.read().strip()
    except OSError:
        return None
    return (f"boot {boot} vector_bits {VECTOR_BITS_OVERRIDE} llvmlite {llvmlite.__version__} "
            f"llvm {llvm.llvm_version_info}") if boot else None


def compile_ir(llvm_ir: str, machine: tuple[str, str, str] | None = None,
               unroll: bool = True, light: bool = False, level: int = 3) -> tuple[llvm.ModuleRef, bytes]:
    """Parse, verify and optimise ``llvm_ir`` for the host, or for ``machine`` (a triple, CPU
    name and features, as ``magic()`` names the host); the optimised module and its object code.
    ``unroll``: whether O3 runs the loop unroller; ``light``: the light pipeline instead of O3,
    and machine code at ``LIGHT_CODEGEN_OPT`` (``optimize``); ``level``: LLVM's pipeline level
    (``optimize``). O3 leaves out the SLP vectorizer where the text carries ``NO_SLP_METADATA``."""
    tm = machine_for(machine, light)
    with stage_times.timed(stage_times.LLVM_OPTIMIZATION):
        module = llvm.parse_assembly(with_legal_width(llvm_ir, machine[2] if machine else host_features()))
        module.triple = tm.triple
        module.data_layout = str(tm.target_data)
        module.verify()
        optimize(module, tm, unroll, light, slp=f"!{NO_SLP_METADATA} =" not in llvm_ir, level=level)
        _inline_math(module, tm, machine[2] if machine else host_features())
    with stage_times.timed(stage_times.MACHINE_CODE):
        return module, tm.emit_object(module)


def machine_for(machine: tuple[str, str, str] | None = None, light: bool = False) -> llvm.TargetMachine:
    """The target machine that emits code for ``machine`` (None: the host), light or not."""
    opt = LIGHT_CODEGEN_OPT if light else 3
    if machine:
        return target_machine(*machine, opt)
    return host_light_machine() if light else host_target_machine()


def math_isa(features: str | None = None) -> frozenset[str]:
    """The instruction sets the math library may use (``mathlib.ISA_FUNCTIONS``) on a target
    with LLVM ``features``, the host's (``magic()``) by default: "avx512" with AVX-512F and VL.
    The features are in ``magic()``, which every compile's cache key holds, and the functions
    they choose are named in the IR, so code for one set is never taken for another."""
    return _math_isa(magic()[2] if features is None else features)


@lru_cache(maxsize=16)
def _math_isa(features: str) -> frozenset[str]:  # (asked per kernel: the split once per string)
    found = set(features.split(","))
    return frozenset({"avx512"}) if {"+avx512f", "+avx512vl"} <= found else frozenset()


def kernel_isa(features: str | None = None) -> frozenset[str]:
    """``math_isa``, plus "avx512dq" where the target has AVX-512DQ (vector conversions between
    64-bit integers and float64, 64-bit multiplies): ``intdiv.by_reciprocal`` needs them to
    beat a division per element (emulated on AVX2 it measured slower than LLVM's
    ``div`` on Zen 5, 1.4-2.0x). Chosen in the IR, so the cache key's features decide it, as for
    ``math_isa``."""
    return _kernel_isa(magic()[2] if features is None else features)


@lru_cache(maxsize=16)
def _kernel_isa(features: str) -> frozenset[str]:
    found = set(features.split(","))
    return _math_isa(features) | ({"avx512dq"} if "+avx512dq" in found else set())

def _inline_math(module: llvm.ModuleRef, tm: llvm.TargetMachine, features: str) -> None:
    """Define and inline the math library's functions with vector variants, which the O3
    pipeline left as calls (the loop vectorizer's to the vector variants, the remainder's to
    the scalar one); their vectors no wider than ``features`` prefer."""
    names = tuple(sorted(f.name for f in module.functions if f.name.startswith(mathlib.ISA_PREFIX)))
    bits = 256 if "+prefer-256-bit" in features.split(",") else 512
    text = _isa_definitions(names, bits) if names else None
    if text is None:
        return
    defs = llvm.parse_assembly(text)
    defs.triple, defs.data_layout = module.triple, module.data_layout
    module.link_in(defs)
    pm = llvm.create_new_module_pass_manager()
    pm.add_always_inliner_pass()
    pm.add_global_dead_code_eliminate_pass()
    pm.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3)))
    for fn in module.functions:  # inlined everywhere; compiler.used keeps them: emit no code for them
        if fn.name.startswith(mathlib.ISA_PREFIX) and not fn.is_declaration:
            fn.linkage = "available_externally"


# The math library's definitions are a function of the names and the width alone, and built in
# Python (5-10 ms for a family: float32 exp at four widths 9.6 ms, read back 0.4): a suite
# or a program compiles the same few sets again and again. Bounded: a set is a few KB of text.
# Kept in ``HOST_MEMO`` too (the disk cache, whose key holds jitcore's source version), where a
# later process's first compile that calls the same functions reads them instead of building.
@lru_cache(maxsize=64)
def _isa_definitions(names: tuple[str, ...], bits: int) -> str | None:
    key = f"math library {bits} {' '.join(names)}"
    kept = HOST_MEMO.load(key) if HOST_MEMO is not None else None
    if kept is not None:
        return kept or None
    text = mathlib.isa_definitions(names, bits)
    if HOST_MEMO is not None:
        HOST_MEMO.store(key, text or "")
    return text


def with_legal_width(llvm_ir: str, features: str) -> str:
    """``llvm_ir`` with every function limited to 256-bit registers where ``features`` prefer
    256 bits. ``-prefer-256-bit`` alone only steers the vectorizers: LLVM still computes an
    explicit 512-bit type (f32 math widened to f64 lanes, say) in zmm registers, which lowers the
    clock just as well, unless the function says, as clang's code does, that it needs no wider
    registers (``min-legal-vector-width``). llvmlite's IR builder has no string attributes, so
    the attribute is added to the text of each definition."""
    if "+prefer-256-bit" not in features.split(","):
        return llvm_ir
    return re.sub(r"^(define [^\n]*?)(\s*\{)?$", r'\1 "min-legal-vector-width"="256"\2', llvm_ir,
                  flags=re.MULTILINE)


def load_object(obj: bytes, symbols: list[str]) -> dict[str, int]:
    """Add object code to the process's engine, for good; the addresses of ``symbols`` in it.

    Its undefined symbols are checked against this process first: LLVM may call a runtime
    helper (``__truncdfhf2``, say) that the process lacks, and jumping to an unresolved symbol
    would crash the interpreter. So would asking the engine for a symbol it lacks.
    """
    _check_symbols(obj, symbols)
    with _lock:
        engine = _engine()
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        return {name: engine.get_function_address(name) for name in symbols}


def load_object_owned(obj: bytes, symbols: list[str]) -> tuple[llvm.ExecutionEngine, dict[str, int]]:
    """Load object code into an engine of its own: the engine, and the addresses of
    ``symbols``. MCJIT cannot remove object code from an engine, so code that may be freed
    gets its own; collecting the engine frees the code, after which its addresses must not be
    called. Its undefined symbols resolve as ``load_object``'s do: the process's and those
    given with ``llvm.add_symbol`` (the runtime's, BLAS)."""
    _check_symbols(obj, symbols)
    with _lock:
        # The engine owns (and disposes) its target machine: a new one, not the cached host's.
        tm = _loading_machine()
        empty = llvm.parse_assembly("")
        empty.triple = tm.triple
        engine = llvm.create_mcjit_compiler(empty, tm)
        # An engine is made with a module, which finalize_object would compile (~1 ms for
        # nothing): taken out again, the engine holds only the object code.
        engine.remove_module(empty)
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        return engine, {name: engine.get_function_address(name) for name in symbols}


@cache
def _host_machine() -> tuple[str, str, str]:
    """The host's triple, CPU name and features, as ``target_machine`` takes them."""
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), host_features()


def _check_symbols(obj: bytes, symbols: list[str]) -> None:
    """Refuse object code that lacks one of ``symbols`` or needs one the process lacks."""
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


def assembly(optimized_llvm_ir: str, light: bool = False) -> str:
    """The host machine code of an optimised module's text, as assembly text (emitted as
    ``compile_ir`` emitted it: ``light`` or not)."""
    return machine_for(None, light).emit_assembly(llvm.parse_assembly(optimized_llvm_ir))
