"""What a target is to the rest of jitcore: a backend that lowers a function to a plan and
loads a plan into the process.

A backend is an object with:

- ``name``: the target's name, as ``CompileOptions.target`` spells it;
- ``lower(func, layouts, options) -> CompiledFunction``: an optimised ``func.func`` to a plan
  (plain data, ``codegen/plan.py``) holding the target's code; ``layouts`` holds, per argument,
  its layout class (``ir/layout_class.py``: a C-contiguous one's strides are known, the
  others pass their strides, and the code may be specialised on the class);
- ``magic() -> tuple[str, str, str]``: what the code depends on besides the IR (for the CPU:
  triple, CPU name, features), part of any key that stores code across processes;
- ``fingerprint() -> str``: what else, in this process, the code ``lower`` makes depends on:
  the libraries it calls and the backend's size thresholds (for the CPU: which BLAS, when a
  launch is split, row blocks), part of any key that stores plans across processes;
- ``load(plan) -> int``: the address of the plan's entry point in this process, loading its
  code the first time;
- ``assembly(plan) -> str``: the plan's machine code as text (the "asm" stage);
- ``use_object_cache(cache)``: where to keep the object code of the target's own support code
  (the CPU's thread runtime), compiled once per process otherwise; ``cache`` is an
  ``ObjectCache`` (the frontend's disk cache) or None.

An ``ObjectCache`` keeps object code by the name and the source (LLVM IR, say) it was compiled
from; it alone decides what else the key holds (the target's ``magic()``, versions), and it
never returns code that was not stored for that name and source.

Targets are peers under ``codegen/`` (``codegen/cpu/``; ``codegen/nvptx/``, named "cuda");
``backend_for`` finds one by name.
"""

from __future__ import annotations

from typing import Protocol

from jitcore.codegen.cpu import CpuBackend
from jitcore.codegen.nvptx import NvptxBackend
from jitcore.codegen.plan import CompiledFunction, LowerOptions
from jitcore.ir.core import Operation
from jitcore.ir.errors import JitcoreError


class ObjectCache(Protocol):
    def load_object(self, name: str, source: str) -> bytes | None: ...

    def store_object(self, name: str, source: str, code: bytes) -> None: ...


class Backend(Protocol):
    name: str

    def lower(self, func: Operation, layouts: tuple[str, ...], options: LowerOptions) -> CompiledFunction: ...

    def magic(self) -> tuple[str, str, str]: ...

    def fingerprint(self) -> str: ...

    def load(self, plan: CompiledFunction) -> int: ...

    def assembly(self, plan: CompiledFunction) -> str: ...

    def use_object_cache(self, cache: ObjectCache | None) -> None: ...


_BACKENDS: dict[str, Backend] = {backend.name: backend for backend in (CpuBackend(), NvptxBackend())}
TARGETS = tuple(sorted(_BACKENDS))


def backend_for(target: str) -> Backend:
    """The backend of ``target``; a JitcoreError naming the known targets if there is none."""
    try:
        return _BACKENDS[target]
    except KeyError:
        raise JitcoreError(
            f"unknown compilation target {target!r}; the targets are {', '.join(TARGETS)}"
        ) from None
