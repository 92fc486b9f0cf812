"""Finding a BLAS library in this process, by name, for contractions (``codegen/cpu/gemm.py``).

The library is NumPy's own: its wheels bundle OpenBLAS (scipy-openblas) in ``numpy.libs`` (or
``numpy/.libs``, ``numpy/.dylibs``) and export the CBLAS routines with a prefix and suffix,
``scipy_cblas_sgemm64_`` for the 64-bit-integer build. The same library ships alone as the
``scipy-openblas64`` and ``scipy-openblas32`` packages, which are looked in next. Using NumPy's
copy means the same code, the same threads and the same results as ``numpy.matmul``. Nothing
else is searched (a reference BLAS found on the system path could be far slower than the
loops it would replace); a NumPy built against another BLAS (Accelerate on macOS, MKL) simply
gets the compiled loop nests.

A plan names the routines its kernels call (``Launch.calls``); the address is resolved when
the plan is loaded (``register``), so plans stay plain data. ``JITCORE_BLAS=none`` (or ``0``,
``off``) turns the library off; ``JITCORE_BLAS=/path/to/lib.so`` uses that library.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import llvmlite.binding as llvm

from jitcore.ir.errors import JitcoreError

ROUTINES = ("sgemm", "dgemm", "sgemv", "dgemv", "sdot", "ddot")
# (prefix, suffix, integer bits) of the CBLAS names of the builds we know, most specific first.
_FLAVOURS = (("scipy_cblas_", "64_", 64), ("cblas_", "64_", 64), ("scipy_cblas_", "", 32),
             ("cblas_", "", 32))
_OFF = ("none", "0", "off", "false", "no")


@dataclass(frozen=True)
class BlasLibrary:
    """A loaded BLAS: its path and how its CBLAS routines are named and take integers."""

    path: str
    prefix: str
    suffix: str
    int_bits: int  # 64: ILP64 (every integer argument is 64-bit), 32: LP64

    def routine(self, name: str) -> str:
        """The symbol of CBLAS routine ``name`` (``"sgemm"``) in this library."""
        return f"{self.prefix}{name}{self.suffix}"

    def lapack_routine(self, name: str) -> str:
        """The symbol of LAPACK routine ``name`` (``"dgesdd"``): Fortran's trailing underscore,
        then the build's suffix (``scipy_dgesdd_64_`` beside ``scipy_cblas_dgemm64_``)."""
        return f"{self.prefix.removesuffix('cblas_')}{name}_{self.suffix}"

    def address(self, symbol: str) -> int | None:
        try:
            return ctypes.cast(getattr(_open(self.path), symbol), ctypes.c_void_p).value
        except AttributeError:
            return None


@cache
def _open(path: str) -> ctypes.CDLL:
    return ctypes.CDLL(path)


def _candidates() -> Iterator[str]:
    """Library files that may hold NumPy's OpenBLAS, in the order they are tried; found as
    they are tried, so that NumPy's own copy, found first, costs no search of sys.path for the
    scipy-openblas packages (a tenth of a millisecond of a process's first call)."""
    spec = importlib.util.find_spec("numpy")
    if spec is not None and spec.origin:
        numpy_dir = os.path.dirname(spec.origin)
        for folder in (os.path.join(os.path.dirname(numpy_dir), "numpy.libs"),
                       os.path.join(numpy_dir, ".libs"), os.path.join(numpy_dir, ".dylibs")):
            yield from _named_openblas(folder)
    for package in ("scipy_openblas64", "scipy_openblas32"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                yield from _named_openblas(os.path.join(folder, "lib"))


def _named_openblas(folder: str) -> list[str]:
    """The files of ``folder`` whose names hold "openblas", as ``glob("*openblas*")`` finds
    them, without compiling a pattern (a third of a millisecond of every first compile)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if "openblas" in n and not n.startswith("."))


def probe(path: str) -> BlasLibrary | None:
    """The library at ``path`` if it loads and exports every routine of one known flavour."""
    try:
        lib = _open(path)
    except OSError:
        return None
    for prefix, suffix, bits in _FLAVOURS:
        if all(hasattr(lib, f"{prefix}{r}{suffix}") for r in ROUTINES):
            return BlasLibrary(path, prefix, suffix, bits)
    return None


# The value of JITCORE_BLAS; jitcore.config, which reads the environment, sets it.
CHOICE = ""


def choose(text: str) -> None:
    """Use the library ``text`` names (a path, ``none``, or ``""``: NumPy's own) from now on."""
    global CHOICE
    CHOICE = text.strip()
    library.cache_clear()


@cache
def library() -> BlasLibrary | None:
    """The BLAS that contractions call in this process, or None (then they run as loops)."""
    choice = CHOICE
    if choice.lower() in _OFF:
        return None
    for path in [choice] if choice else _candidates():
        found = probe(path)
        if found is not None:
            return found
    return None


# libm's routines that LAPACK kernels call where NumPy's gufuncs do (codegen/cpu/lapack.py)
MATH_ROUTINES = ("log", "exp", "hypot")


@cache
def _libm_address(symbol: str) -> int | None:
    """The process's own (the interpreter links libm), else libm's as the loader finds it."""
    for find in (lambda: None, lambda: ctypes.util.find_library("m")):
        try:
            return ctypes.cast(getattr(ctypes.CDLL(find()), symbol), ctypes.c_void_p).value
        except (OSError, AttributeError):
            continue
    return None


def register(symbol: str) -> None:
    """Make ``symbol`` (a routine a plan calls) resolvable by the code loader, or fail."""
    if symbol in MATH_ROUTINES:
        address = _libm_address(symbol)
        if address is None:
            raise JitcoreError(f"this compiled function calls libm's {symbol!r}, which this process "
                               f"does not provide; compile it again here")
        llvm.add_symbol(symbol, address)
        return
    lib = library()
    address = lib.address(symbol) if lib is not None else None
    if address is None:
        raise JitcoreError(
            f"this compiled function calls the BLAS routine {symbol!r}, which this process does "
            f"not provide (JITCORE_BLAS={CHOICE!r}); compile it again here")
    llvm.add_symbol(symbol, address)
