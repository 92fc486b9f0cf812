"""A new size without a new emission: an earlier size's plan and LLVM text, by its guards.

At a new size whose optimized program is an earlier size's resized (``new_size.py``), the
program is lowered with each symbol an ``Extent`` (``codegen/extent_guards.py``): the plan
stage and the emitter record every answer a size gave them, and the plan they make, with its
sizes still Extents, is kept as a *template* with those guards. At a later size of the same
program, same argument layouts, options and backend settings, where every guard gives the
same answer, the plan is the template evaluated at the new sizes and the LLVM text is the
template's: neither is made again; the machine code comes from the backend by that text, as
a size-generic function's did (``CpuBackend.with_code``). Any guard that answers otherwise, a
poisoned log (a size that left by a way no guard can follow) or an emitter that refused the
Extents (it raised: lowered as before) gives the emission as before.

``CHECK`` (set by tests, or ``JITCORE_CHECK_EMISSION=1``) lowers as before too and raises
where the plan or the LLVM text differ from what the guards promised. See "A new size without
a new emission (emit50)" in docs/performance.md.
"""

from __future__ import annotations

import threading

import numpy as np

from jitcore import compiler, config, new_size
from jitcore.codegen.backend import backend_for
from jitcore.codegen.extent_guards import Log, instantiate

CHECK = config.check_emission_from_environment()
# Templates kept per optimized program (its emissions at sizes whose guards differed): each
# holds its LLVM text (about 80 KB for a softmax), beside the memo's 16 programs a function.
KEPT = 2
# Process-wide counts, for tests and the benchmark: lowerings with Extents, and reuses.
COUNTS = {"guarded": 0, "reused": 0, "refused": 0}


class Emissions:
    """The templates of one optimized program (kept in ``new_size.Memo`` beside it)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._kept: list = []  # (key, log, template), the most recent last

    def find(self, key, values):
        with self._lock:
            for kept in reversed(self._kept):
                if kept[0] == key and kept[1].holds(values):
                    return kept
        return None

    def keep(self, key, log, template) -> None:
        with self._lock:
            self._kept.append((key, log, template))
            del self._kept[:-KEPT]


def lower(emissions: Emissions, stored, old, new, optimized, specs, options):
    """The plan of ``optimized`` (``stored`` resized from symbols ``old`` to ``new``), from a
    template whose guards hold, or lowered with Extents to make one; None where the emitter
    refused Extents (the caller lowers as before)."""
    backend = backend_for(options.target)
    layouts = tuple(s.layout for s in specs)
    key = (options.target, layouts, options.fastmath, options.profile, backend.fingerprint())
    kept = emissions.find(key, new)
    if kept is not None:
        _, log, template = kept
        plan = instantiate(template, new, log)
        plan = backend.with_code(plan)
        COUNTS["reused"] += 1
        if CHECK:
            check(plan, compiler.lower(optimized, specs, options))
        return plan
    log = Log(new)
    proxied = new_size.resized(stored, old, log.extents())
    if proxied is None:
        COUNTS["refused"] += 1
        return None
    try:
        template = compiler.lower(proxied, specs, options)
    except Exception:  # the emitter could not take an Extent somewhere: lowered as before
        COUNTS["refused"] += 1
        return None
    COUNTS["guarded"] += 1
    plan = instantiate(template, new, log)
    if log.poisoned is None:
        template.object_code, template.optimized_llvm_ir = b"", ""  # the backend keeps code
        emissions.keep(key, log, template)
    if CHECK:
        check(plan, compiler.lower(optimized, specs, options))
    return plan


# The plan's fields that the emission decides (its code aside, which follows from the text).
_FIELDS = ("symbol", "arg_strided", "arg_needs_contiguous", "header", "has_status", "buffers",
           "outputs", "launches", "program", "callbacks", "profile", "llvm_ir", "code_flags")


def check(got, expected) -> None:
    """Raise where the plan from the guards is not the plan lowered as before (``CHECK``)."""
    for name in _FIELDS:
        a, b = getattr(got, name), getattr(expected, name)
        if a != b or type(a) is not type(b):
            raise AssertionError(f"an emission from guards differs in its {name}:\n{a!r}\n"
                                 f"-- lowered as before --\n{b!r}")
    if len(got.constants) != len(expected.constants) or not all(
            a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
            for a, b in zip(got.constants, expected.constants)):
        raise AssertionError("an emission from guards differs in its constants")
