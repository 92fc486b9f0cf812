"""The ELF loader of the CPU target (``codegen/cpu/object_loader.py``): plans' object code
loaded without LLVM computes what NumPy does, its pages are freed with the code, and what it
cannot load it refuses, so that MCJIT loads it instead.

Loading runs only on x86-64 ELF hosts (elsewhere every object is refused, which the fallback
tests cover on any host)."""

import ctypes
import gc
import struct
import weakref

import llvmlite.binding as llvm
import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen.cpu import object_loader

X86_64_ELF = llvm.get_process_triple().startswith("x86_64-") and "linux" in llvm.get_process_triple()
needs_x86_64 = pytest.mark.skipif(not X86_64_ELF, reason="the loader loads x86-64 ELF objects only")


def plan_of(f):
    (executable,) = f._cache.values()
    return executable.plan


def compiled(fn, *args):
    f = jc.jit(fn, cache=False)
    return f, f(*args)


@needs_x86_64
def test_plans_load_without_llvm_and_compute_as_numpy():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    a = rng.standard_normal((24, 24))
    cases = [
        (lambda x, y: jnp.tanh(x * 2 + y), (x, y), lambda x, y: np.tanh(x * 2 + y)),  # constants
        (lambda x, y: jnp.sum(jnp.exp(x) * y), (x, y), lambda x, y: np.sum(np.exp(x) * y)),
        (lambda a: a @ a, (a,), lambda a: a @ a),  # BLAS, an undefined symbol of the object
        (lambda x: jnp.sort(x), (x,), np.sort),
    ]
    for fn, args, reference in cases:
        f, got = compiled(fn, *args)
        assert isinstance(plan_of(f).loaded_code.engine, object_loader.LoadedObject)
        np.testing.assert_allclose(got, reference(*args), rtol=2e-5, atol=2e-5)


@needs_x86_64
def test_the_thread_runtime_loads_without_llvm_and_splits_compute_as_numpy():
    x = np.linspace(-3, 3, 300_000).astype(np.float32)  # split on threads: the runtime is loaded
    _, got = compiled(lambda x: jnp.tanh(x) + 1, x)
    np.testing.assert_allclose(got, np.tanh(x) + 1, rtol=2e-6, atol=2e-6)
    assert object_loader._kept  # the support code, in pages kept for the process


@needs_x86_64
def test_the_pages_are_freed_with_the_code():
    f, _ = compiled(lambda x: x * 3 - 1, np.arange(5.0))
    pages = weakref.ref(plan_of(f).loaded_code.engine)
    del f
    gc.collect()
    assert pages() is None


def tanh_object():
    f, _ = compiled(lambda x: jnp.tanh(x), np.arange(4.0))
    plan = plan_of(f)
    return plan.object_code, plan.symbol


def with_byte(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


def relocation_types_at(obj: bytes) -> list[int]:
    """The offsets in ``obj`` of each RELA relocation's type field."""
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    found = []
    for i in range(shnum):
        header = struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
        kind, at, size, entsize = header[1], header[4], header[5], header[9]
        if kind == 4:
            found += list(range(at + 8, at + size, entsize))
    return found


@needs_x86_64
def test_what_it_cannot_load_it_refuses():
    obj, symbol = tanh_object()
    object_loader.load(obj, [symbol])  # loads as it is
    refused = [
        with_byte(obj, 0x12, struct.pack("<H", 183)),  # another machine (AArch64)
        with_byte(obj, 5, b"\x02"),  # big-endian
        with_byte(obj, relocation_types_at(obj)[0], struct.pack("<I", 9)),  # GOTPCREL: no GOT here
        obj[:200],  # cut short
    ]
    for bad in refused:
        with pytest.raises(object_loader.Unsupported):
            object_loader.load(bad, [symbol])
    with pytest.raises(object_loader.Unsupported):
        object_loader.load(obj, [symbol + "_missing"])


def test_a_refused_object_is_loaded_by_mcjit_and_computes_the_same(monkeypatch):
    def refuse(obj, symbols):
        raise object_loader.Unsupported("refused by the test")

    monkeypatch.setattr(object_loader, "load", refuse)
    x = np.linspace(-2, 2, 33)
    f, got = compiled(lambda x: jnp.tanh(x) * 2, x)
    assert isinstance(plan_of(f).loaded_code.engine, llvm.ExecutionEngine)
    np.testing.assert_allclose(got, np.tanh(x) * 2, rtol=1e-12, atol=1e-12)


PICK = """
@table = internal constant [4 x double] [double 1.5, double 2.5, double 3.5, double 4.5]
@count = internal global i64 0

define double @pick(i64 %i) {
  %p = getelementptr [4 x double], ptr @table, i64 0, i64 %i
  %v = load double, ptr %p
  %n = load i64, ptr @count
  %m = add i64 %n, 1
  store i64 %m, ptr @count
  ret double %v
}
"""


@needs_x86_64
def test_pc_relative_relocations_and_writable_data():
    """Position-independent code of the small code model: read-only constants reached by 32-bit
    PC-relative displacements, a counter in writable data (the target's objects use absolute
    64-bit addresses, which every other test loads)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    machine = llvm.Target.from_triple(llvm.get_process_triple()).create_target_machine(
        reloc="pic", codemodel="small")
    module = llvm.parse_assembly(PICK)
    module.triple = machine.triple
    obj = machine.emit_object(module)
    assert 2 in {struct.unpack_from("<I", obj, at)[0] for at in relocation_types_at(obj)}  # PC32
    pages, addresses = object_loader.load(obj, ["pick"])
    pick = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64)(addresses["pick"])
    assert [pick(i) for i in (3, 0, 2, 1)] == [4.5, 1.5, 3.5, 2.5]
    again, more = object_loader.load(obj, ["pick"])  # a second copy: data of its own
    assert ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64)(more["pick"])(1) == 2.5
    assert pages.address != again.address


@needs_x86_64
def test_a_perf_map_names_every_function_of_a_loaded_plan(monkeypatch, tmp_path):
    path = tmp_path / "perf.map"
    monkeypatch.setattr(object_loader, "PERF_MAP", True)
    monkeypatch.setattr(object_loader, "perf_map_path", lambda: str(path))
    x = np.linspace(-2, 2, 300_000)  # above the tiny size: kernels of their own, split
    _, got = compiled(lambda x: jnp.exp(x) * 2, x)
    np.testing.assert_allclose(got, np.exp(x) * 2, rtol=1e-14)
    entries = {}
    for line in path.read_text().splitlines():
        address, size, name = line.split(" ", 2)
        entries[name] = (int(address, 16), int(size, 16))
    kernels = [name for name in entries if name.startswith("jit_") and name.endswith("_k0")]
    assert kernels and all(name[:-3] in entries for name in kernels)  # a plan's entry and kernel
    assert all(address > 0 and size > 0 for address, size in entries.values())
    spans = sorted(entries.values())
    assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))  # functions do not overlap


def test_the_perf_map_setting_is_read_by_config():
    from jitcore import config
    from jitcore.errors import ConfigError

    assert config.perf_map_from_environment({"JITCORE_PERF_MAP": "1"}) is True
    assert config.perf_map_from_environment({"JITCORE_PERF_MAP": "off"}) is False
    assert config.perf_map_from_environment({}) is False
    with pytest.raises(ConfigError, match="JITCORE_PERF_MAP='maybe'"):
        config.perf_map_from_environment({"JITCORE_PERF_MAP": "maybe"})
