"""Object code loaded without LLVM: a small ELF loader for x86-64 relocatable objects.

A process whose plans come from the disk cache still had LLVM load their object code: the
native target initialised, a target machine, an MCJIT engine, the object added and finalised,
about a millisecond of a first call that is four or five in all. The objects this CPU target
emits (``target.py``: static relocation, the JIT's large code model) need little of a linker:
their allocated sections are copied into fresh pages and patched where the relocations say,
which on x86-64 is almost only absolute 64-bit addresses (``R_X86_64_64``). So ``load`` does
that itself, in pages of its own that are unmapped when the returned ``LoadedObject`` is
collected, as an engine of its own frees its code.

What it does not do it refuses (``Unsupported``), and the caller loads the object with MCJIT
instead: another machine or byte order, a relocation type not listed, a 32-bit relocation out of
range, a common or thread-local symbol. Unwinding tables (``.eh_frame``) are not loaded or
registered: nothing unwinds through kernels (they call no code that throws), and a debugger's
backtrace through one only loses its frame. Undefined symbols resolve as MCJIT's do: first the
symbols given to LLVM (``llvm.add_symbol``: the runtime's, BLAS), then the process's.

Profiling: with ``JITCORE_PERF_MAP=1`` (read by ``jitcore/config.py`` at import, ``PERF_MAP``
here) every function of a loaded object, the internal kernels too (``..._k0``, ``..._k0_rows``),
is appended to ``/tmp/perf-<pid>.map`` with its address and size, the file Linux ``perf`` reads
to name code that no ELF file on disk holds: ``perf report`` then splits a plan's time by kernel
instead of showing bare addresses. An object MCJIT loads instead (``Unsupported``) is not listed.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import struct
from functools import cache

import llvmlite.binding as llvm

from jitcore.codegen.cpu import target

_EM_X86_64 = 62
_ET_REL = 1
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS = 2, 4, 8
_SHF_WRITE, _SHF_ALLOC = 0x1, 0x2
_SHF_TLS = 0x400
_SHN_UNDEF, _SHN_ABS, _SHN_COMMON = 0, 0xFFF1, 0xFFF2
# x86-64 relocation types: (size in bytes, PC-relative): 64, PC32, PLT32, 32, 32S, PC64.
_R_X86_64 = {1: (8, False), 2: (4, True), 4: (4, True), 10: (4, False), 11: (4, False), 24: (8, True)}
_UNWIND_SECTIONS = (b".eh_frame",)
_PAGE = mmap.PAGESIZE
_STT_FUNC = 2
PERF_MAP = False  # jitcore/config.py sets it from JITCORE_PERF_MAP at import


def perf_map_path() -> str:
    """Where ``perf`` looks for this process's map of generated code."""
    return f"/tmp/perf-{os.getpid()}.map"


@cache
def _libc() -> ctypes.CDLL:
    """The process's C library (made on first use: an ELF host has one, Windows not)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.mprotect.restype = ctypes.c_int
    return libc


class Unsupported(Exception):
    """This object needs more than this loader does; load it with MCJIT."""


class LoadedObject:
    """An object's sections in pages of their own, unmapped when this is collected."""

    __slots__ = ("_pages", "address", "__weakref__")

    def __init__(self, pages: mmap.mmap, address: int):
        self._pages = pages
        self.address = address  # of the first page

    def __del__(self):
        pages = getattr(self, "_pages", None)
        if pages is not None:
            pages.close()


def load_owned(obj: bytes, symbols: list[str]) -> tuple[object, dict[str, int]]:
    """``load``, or where it refuses the object, MCJIT (``target.load_object_owned``, which
    also gives the errors for an object that lacks a symbol or needs one the process lacks):
    what holds the code (freed with it) and the addresses of ``symbols``."""
    try:
        return load(obj, symbols)
    except Unsupported:
        return target.load_object_owned(obj, symbols)


# Support code loaded for good (``load_kept``): the pages of each, never freed.
_kept: list[LoadedObject] = []


def load_kept(obj: bytes, symbols: list[str]) -> dict[str, int]:
    """Load object code for the rest of the process (the targets' support code, which MCJIT's
    shared engine held for good): the addresses of ``symbols``. MCJIT where ``load`` refuses."""
    try:
        pages, addresses = load(obj, symbols)
    except Unsupported:
        return target.load_object(obj, symbols)
    _kept.append(pages)
    return addresses


def load(obj: bytes, symbols: list[str]) -> tuple[LoadedObject, dict[str, int]]:
    """Load the relocatable object ``obj``: the pages that hold it and the addresses of
    ``symbols`` in it. Raises ``Unsupported`` for what the module docstring lists, and for an
    object it cannot parse."""
    try:
        return _load(obj, symbols)
    except (struct.error, IndexError, ValueError, OverflowError) as e:
        raise Unsupported(f"a malformed object ({e})") from None


def _load(obj: bytes, symbols: list[str]) -> tuple[LoadedObject, dict[str, int]]:
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise Unsupported("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", obj, 0x10)
    if e_type != _ET_REL or e_machine != _EM_X86_64:
        raise Unsupported(f"ELF type {e_type}, machine {e_machine}")
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]

    def name_of(section) -> bytes:
        start = names_at + section[0]
        return obj[start:obj.index(b"\0", start)]

    # Where each loaded section goes: read-only and executable ones first, writable ones on
    # pages after them, so that the first pages can be made read-and-execute only.
    placed: dict[int, int] = {}
    size = 0
    for writable in (False, True):
        if writable:
            size = -(-size // _PAGE) * _PAGE
        for index, (_, _, flags, _, _, length, _, _, align, _) in enumerate(sections):
            if not flags & _SHF_ALLOC or bool(flags & _SHF_WRITE) != writable:
                continue
            if flags & _SHF_TLS:
                raise Unsupported("thread-local data")
            if name_of(sections[index]) in _UNWIND_SECTIONS:
                continue
            if align > _PAGE:
                raise Unsupported(f"a section aligned to {align} bytes, more than a page")
            align = max(align, 1)
            size = -(-size // align) * align
            placed[index] = size
            size += length
    total = max(-(-size // _PAGE) * _PAGE, _PAGE)
    # Private: a forked child's writes to the data stay its own, as with MCJIT's pages.
    pages = mmap.mmap(-1, total, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                      prot=mmap.PROT_READ | mmap.PROT_WRITE)
    try:
        view = ctypes.c_char.from_buffer(pages)
        base = ctypes.addressof(view)
        del view  # no export left: the pages may be closed
        for index, offset in placed.items():
            _, kind, _, _, at, length = sections[index][:6]
            if kind != _SHT_NOBITS:
                pages[offset:offset + length] = obj[at:at + length]
        addresses = _symbol_addresses(obj, sections, placed, base)
        for _, kind, _, _, at, length, link, target, _, entsize in sections:
            if kind == _SHT_RELA and target in placed:
                _relocate(obj, pages, base, placed[target], at, length, entsize, addresses[link])
        named = _defined(obj, sections, addresses)
        lost = [name for name in symbols if name not in named]
        if lost:
            raise Unsupported(f"no symbol {', '.join(lost)}")
        wanted = {name: named[name] for name in symbols}
        if PERF_MAP:
            _write_perf_map(obj, sections, addresses)
        code_end = _code_end(sections, placed)
        if code_end and _libc().mprotect(base, code_end, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
            raise Unsupported(f"mprotect failed (errno {ctypes.get_errno()})")
    except BaseException:
        pages.close()
        raise
    return LoadedObject(pages, base), wanted


def _code_end(sections, placed) -> int:
    """The end of the pages that hold the read-only sections (page-aligned)."""
    ends = [o + sections[i][5] for i, o in placed.items() if not sections[i][2] & _SHF_WRITE]
    return -(-max(ends, default=0) // _PAGE) * _PAGE


def _symbol_addresses(obj, sections, placed, base) -> dict[int, list[int]]:
    """Per symbol table (by section index): each symbol's address (its value for ``R_*``)."""
    tables = {}
    for index, (_, kind, _, _, at, length, link, _, _, entsize) in enumerate(sections):
        if kind != _SHT_SYMTAB:
            continue
        strings = sections[link][4]
        values = []
        for pos in range(at, at + length, entsize):
            name_at, info, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", obj, pos)
            if shndx == _SHN_UNDEF:
                if not name_at:
                    values.append(0)  # the null symbol
                    continue
                name = obj[strings + name_at:obj.index(b"\0", strings + name_at)].decode()
                values.append(_external(name))
            elif shndx == _SHN_ABS:
                values.append(value)
            elif shndx == _SHN_COMMON or shndx >= 0xFF00:
                raise Unsupported(f"symbol in special section {shndx:#x}")
            elif shndx in placed:
                values.append(base + placed[shndx] + value)
            else:
                values.append(None)  # in a section not loaded (unwinding tables)
        tables[index] = values
    return tables


def _defined(obj, sections, tables) -> dict[str, int]:
    """The defined global symbols' addresses by name."""
    named = {}
    for index, values in tables.items():
        _, _, _, _, at, length, link, _, _, entsize = sections[index]
        strings = sections[link][4]
        for value, pos in zip(values, range(at, at + length, entsize)):
            name_at, info, _, shndx = struct.unpack_from("<IBBH", obj, pos)
            if name_at and shndx != _SHN_UNDEF and info >> 4 != 0 and value is not None:
                named[obj[strings + name_at:obj.index(b"\0", strings + name_at)].decode()] = value
    return named


def _write_perf_map(obj, sections, tables) -> None:
    """Append each loaded function symbol (global or internal) to the perf map: ``address
    size name`` in hex, one a line."""
    lines = []
    for index, values in tables.items():
        _, _, _, _, at, length, link, _, _, entsize = sections[index]
        strings = sections[link][4]
        for value, pos in zip(values, range(at, at + length, entsize)):
            name_at, info, _, shndx, _, size = struct.unpack_from("<IBBHQQ", obj, pos)
            if name_at and shndx != _SHN_UNDEF and info & 0xF == _STT_FUNC and value and size:
                name = obj[strings + name_at:obj.index(b"\0", strings + name_at)].decode()
                lines.append(f"{value:x} {size:x} {name}\n")
    with open(perf_map_path(), "a") as out:
        out.writelines(lines)


def _external(name: str) -> int:
    address = llvm.address_of_symbol(name)
    if address is None:
        try:
            address = ctypes.cast(getattr(_libc(), name), ctypes.c_void_p).value
        except AttributeError:
            raise Unsupported(f"undefined symbol {name}") from None
    return address


def _relocate(obj, pages, base, section_offset, at, length, entsize, values) -> None:
    """Apply the relocations at ``at`` to the section placed at ``section_offset``."""
    for pos in range(at, at + length, entsize):
        where, info, addend = struct.unpack_from("<QQq", obj, pos)
        kind, symbol = info & 0xFFFFFFFF, info >> 32
        spec = _R_X86_64.get(kind)
        if spec is None:
            raise Unsupported(f"relocation type {kind}")
        value = values[symbol]
        if value is None:
            raise Unsupported("a relocation against a section not loaded")
        size, relative = spec
        offset = section_offset + where
        result = value + addend - (base + offset if relative else 0)
        if size == 8:
            pages[offset:offset + 8] = (result & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
            continue
        if kind == 10 and not 0 <= result < 2**32:  # R_X86_64_32: zero-extended
            raise Unsupported("a 32-bit address out of range")
        if kind != 10 and not -(2**31) <= result < 2**31:
            raise Unsupported("a 32-bit displacement out of range")
        pages[offset:offset + 4] = (result & 0xFFFFFFFF).to_bytes(4, "little")
