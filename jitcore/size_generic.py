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
from collections import OrderedDict

from jitcore import compiler, emission_reuse
from jitcore.codegen.backend import backend_for


def lower(jitted, optimized, specs, resize=None):
    """``compiler.lower`` for ``jitted``: with its disk cache off (``jit(f, cache=False)``),
    without the backend's object cache too; then count where the code came from. ``resize``
    (``new_size.Resize``): the program is an earlier size's resized, and its emission may
    come from guards (``emission_reuse.py``)."""
    backend = backend_for(jitted.options.target)
    off = getattr(backend, "object_cache_off", None)
    with off() if off is not None and not jitted.disk_cache else contextlib.nullcontext():
        plan = None
        if resize is not None and jitted.options.target == "cpu":
            plan = emission_reuse.lower(resize.emissions, resize.stored, resize.old, resize.new,
                                        optimized, specs, jitted.options)
        if plan is None:
            plan = compiler.lower(optimized, specs, jitted.options)
    count_reuse(jitted, plan)
    return plan


# The code symbols a jitted function remembers having used (at least this many, or its bound).
KEPT_SYMBOLS = 64


def count_reuse(jitted, plan) -> None:
    """Count where ``plan``'s machine code came from, in ``jitted``'s cache counts: a reuse
    of code that this function used for another size, or object code from the disk cache.

    Code of the same LLVM IR that another jitted function compiled is shared too, but counts
    as this function's compile: its counts do not depend on what else the process ran."""
    with jitted._lock:
        seen = jitted.__dict__.setdefault("_code_symbols", OrderedDict())
        reused = plan.code_source == "memory" and plan.symbol in seen
        seen[plan.symbol] = None
        seen.move_to_end(plan.symbol)
        while len(seen) > max(KEPT_SYMBOLS, jitted._limit()):
            seen.popitem(last=False)
        if reused:
            jitted._reused += 1
        elif plan.code_source == "disk":
            jitted._from_disk += 1
