"""How long each stage of a compile takes, and a warning when a compile takes long.

``jit`` times every compile by stage: tracing, each pass of the pipeline (a pass that runs
twice counts once, with both runs), the verifier between passes, and code generation (LLVM
included). When a compile takes more than ``WARN_AFTER_SECONDS``, a ``CompileTimeWarning``
names the function and the stage that took longest, once per jitted function: a user who
unrolled a long Python loop into the trace learns why the first call was slow, and where the
time went, without a profiler.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from jitcore.errors import CompileTimeWarning
from jitcore.passes.manager import recording_times

WARN_AFTER_SECONDS = 5.0
UNROLLED_OPS = 300  # a traced program larger than this is most often a loop Python unrolled

_UNROLLED = threading.local()  # .why: why a long loop of the trace being made ran unrolled
_warned: weakref.WeakSet = weakref.WeakSet()  # the jitted functions warned about already


class CompileClock:
    """Seconds per stage of one compile, in the order the stages first ran."""

    def __init__(self):
        self.stages: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the ``with`` block as stage ``name``, less the passes that run in it, which are
        stages of their own (``pass 'fuse'``; ``verifier``)."""
        start = time.perf_counter()
        with recording_times() as passes:
            yield
        rest = time.perf_counter() - start
        for pass_name, seconds in passes:
            self._add("verifier" if pass_name == "verify" else f"pass '{pass_name}'", seconds)
            rest -= seconds
        self._add(name, max(rest, 0.0))

    def _add(self, name: str, seconds: float) -> None:
        self.stages[name] = self.stages.get(name, 0.0) + seconds

    @property
    def total(self) -> float:
        return sum(self.stages.values())

    def slowest(self) -> tuple[str, float]:
        return max(self.stages.items(), key=lambda item: item[1])


def note_unrolled(error: Exception) -> None:
    """Record (the first of a trace) why a long loop or list comprehension ran unrolled: the
    error its body gave where the loop's index was traced (a value that needs a Python int),
    its first line and the user's line it names."""
    if getattr(_UNROLLED, "why", "") is None:
        lines = [line.strip() for line in str(error).split("\n") if line.strip()]
        _UNROLLED.why = lines[0] if len(lines) < 2 else f"{lines[0].rstrip('.')} ({lines[1]})."


@contextmanager
def unrolled_reason() -> Iterator[list]:
    """Within the block (a trace), ``note_unrolled`` records; the list holds its reason after."""
    before, _UNROLLED.why = getattr(_UNROLLED, "why", ""), None
    found: list = []
    try:
        yield found
    finally:
        if _UNROLLED.why:
            found.append(_UNROLLED.why)
        _UNROLLED.why = before


def warn_if_slow(owner: object, name: str, clock: CompileClock, traced_ops: int,
                 unrolled: str | None = None) -> None:
    """Warn if ``clock``'s compile of ``name`` took over ``WARN_AFTER_SECONDS``, unless this
    ``owner`` (the jitted function) was warned about before. ``traced_ops``: the size of the
    traced program, which tells an unrolled loop from a small program with costly kernels."""
    total = clock.total
    if total <= WARN_AFTER_SECONDS or owner in _warned:
        return
    _warned.add(owner)
    stage, seconds = clock.slowest()
    if traced_ops > UNROLLED_OPS and unrolled:
        why = (f"The traced program holds {traced_ops} operations, and compile time grows with "
               "it: a long loop or list comprehension ran unrolled, one copy of its body per "
               f"step, because its body needs the loop's index as a Python int: {unrolled} "
               "Computing that value element-wise (a window x[i:i + w], np.arange(i - w, i + w "
               "+ 1), np.where) keeps the loop one loop (docs/control-flow.md).")
    elif traced_ops > UNROLLED_OPS:
        why = (f"The traced program holds {traced_ops} operations, and compile time grows with "
               "it: a Python loop over a list or tuple (or a range jitcore cannot keep as a loop) is "
               "unrolled, one copy of its body per step, where a loop over range(n) or "
               "jitcore.fori_loop compiles its body once (docs/control-flow.md).")
    else:
        why = (f"The traced program holds only {traced_ops} operations, so the time is in their "
               "kernels (decompositions, sorts and many math functions take a second or more to "
               "generate; longer on a busy machine), not in an unrolled loop.")
    warnings.warn(CompileTimeWarning(
        f"compiling {name}() took {total:.1f} s, most of it in {stage} ({seconds:.1f} s). {why}"),
        stacklevel=user_stacklevel())


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside jitcore: the user's
    call that compiled, however deep the compile path inside jitcore is."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1  # warn_if_slow's frame is level 1 of warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level
