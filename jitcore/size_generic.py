"""Size-generic functions, as the frontend sees them: which new sizes reused machine code.

The code generator makes a function's extents run-time values (``codegen/loops.py``'s
``Sizes``), so a new size with the same rank, dtypes, layout and broadcasting pattern emits the
same LLVM IR as the first size did; the backend then reuses that IR's machine code, in memory
or from the disk cache's object code (``codegen/cpu/backend.py``), and says so in the plan's
``code_source``. The frontend traces each new size as before (the trace gives the output
shapes and checks the program), and counts here what the trace cost: ``cache_info()``'s
``compiles`` leaves out the executables whose code was reused, its ``reused`` counts them.
See "Size-generic kernels" in docs/architecture.md.
"""

from __future__ import annotations

import contextlib

from jitcore import compiler
from jitcore.codegen.backend import backend_for


def lower(jitted, optimized, specs):
    """``compiler.lower`` for ``jitted``: with its disk cache off (``jit(f, cache=False)``),
    without the backend's object cache too; then count where the code came from."""
    backend = backend_for(jitted.options.target)
    off = getattr(backend, "object_cache_off", None)
    with off() if off is not None and not jitted.disk_cache else contextlib.nullcontext():
        plan = compiler.lower(optimized, specs, jitted.options)
    count_reuse(jitted, plan)
    return plan


def count_reuse(jitted, plan) -> None:
    """Count where ``plan``'s machine code came from, in ``jitted``'s cache counts: a reuse
    of code compiled in this process, or object code from the disk cache."""
    if plan.code_source == "llvm":
        return
    with jitted._lock:
        if plan.code_source == "memory":
            jitted._reused += 1
        else:
            jitted._from_disk += 1
