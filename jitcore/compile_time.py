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

from jitcore.errors import CompileTimeWarning, UnsupportedError

WARN_AFTER_SECONDS = 5.0
UNROLLED_OPS = 300  # a traced program larger than this is most often a loop Python unrolled

# A loop whose unrolled copies have put more ops than this into the trace is warned about
# while it unrolls, before the minutes its compile may take are spent: LLVM spends about 5-10
# ms of a 2-core host per op of such a program (mpc_list, 11,943 ops: 97-145 s).
UNROLL_WARN_OPS = 2000
# ... and stopped past this many, with the same words as an error (session 54: a Holt-Winters
# loop over a growing list traced for 11 minutes and 5.6 GB at n = 2e5 before it was killed;
# 50,000 ops are minutes of LLVM). Raise it, or set None, to let such a loop unroll on.
UNROLL_STOP_OPS: int | None = 50_000

_UNROLLED = threading.local()  # .why: why a long loop of the trace being made ran unrolled;
# .early: None within a trace not yet warned about by ``warn_unrolling``, True once warned,
# False (or unset) outside a trace; .steps: the loop steps the trace ran unrolled; .library:
# the ops each NumPy function traced (its outermost calls), None outside a trace; .depth: the
# NumPy functions being traced now, one within another
_warned: weakref.WeakSet = weakref.WeakSet()  # the jitted functions warned about already


class CompileClock:
    """Seconds per stage of one compile, in the order the stages first ran."""

    def __init__(self):
        self.stages: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the ``with`` block as stage ``name``, less the passes that run in it, which are
        stages of their own (``pass 'fuse'``; ``verifier``)."""
        from jitcore.passes.manager import recording_times  # (not at import: tracing, which
        # imports this module, must not load the passes; test_namespace)

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


def note_unrolled_step() -> None:
    """Count one step of a loop the trace runs unrolled (a copy of its body)."""
    _UNROLLED.steps = getattr(_UNROLLED, "steps", 0) + 1


@contextmanager
def library_call(name: str, size) -> Iterator[None]:
    """Within the block, NumPy function ``name`` is traced: where it is the outermost such call
    of a trace, the ops it adds (``size()``: the ops of the block being traced) count as its.
    A long compile with no loop unrolled then names the calls whose ops make the program long
    (``warn_if_slow``), where it blamed a loop that was not there (neuro53: an FFT)."""
    counts = getattr(_UNROLLED, "library", None)
    depth = getattr(_UNROLLED, "depth", 0)
    if counts is None or depth:
        _UNROLLED.depth = depth + 1
        try:
            yield
        finally:
            _UNROLLED.depth = depth
        return
    before = size()
    _UNROLLED.depth = 1
    try:
        yield
    finally:
        _UNROLLED.depth = 0
        calls, ops = counts.get(name, (0, 0))
        counts[name] = (calls + 1, ops + max(size() - before, 0))


class Unrolled(list):
    """Why a loop of a trace ran unrolled (its first reason, if any), and ``early``: whether
    ``warn_unrolling`` warned while tracing (``warn_if_slow`` then says nothing more);
    ``steps``, the loop steps it ran unrolled, and ``library``, the ops and calls of each
    NumPy function it traced, by name (``library_call``)."""

    early = False
    steps = 0
    library: dict = {}


@contextmanager
def unrolled_reason() -> Iterator[Unrolled]:
    """Within the block (a trace), ``note_unrolled`` records; the list holds its reason after."""
    before = (getattr(_UNROLLED, "why", ""), getattr(_UNROLLED, "early", False),
              getattr(_UNROLLED, "steps", 0), getattr(_UNROLLED, "library", None),
              getattr(_UNROLLED, "depth", 0))
    _UNROLLED.why, _UNROLLED.early, _UNROLLED.steps, _UNROLLED.library, _UNROLLED.depth = \
        None, None, 0, {}, 0
    found = Unrolled()
    try:
        yield found
    finally:
        if _UNROLLED.why:
            found.append(_UNROLLED.why)
        found.early = bool(_UNROLLED.early)
        found.steps, found.library = _UNROLLED.steps, _UNROLLED.library
        _UNROLLED.why, _UNROLLED.early, _UNROLLED.steps, _UNROLLED.library, _UNROLLED.depth = before


@contextmanager
def unroll_warnings() -> Iterator[None]:
    """Within the block (a trace: a compile's, or ``lower``'s alone), ``warn_unrolling`` warns
    at most once; within ``unrolled_reason``'s block already, as that one's."""
    if getattr(_UNROLLED, "early", False) is not False:
        yield
        return
    _UNROLLED.early = None
    try:
        yield
    finally:
        _UNROLLED.early = False


def stop_unrolling(where: str, ops: int, done: int, trips: int, changes: str | None,
                   reason: str | None = None) -> None:
    """Raise, where the loop at ``where``'s unrolled copies hold more than ``UNROLL_STOP_OPS``
    ops, the error that says which loop, why it runs unrolled and what compiles instead: its
    compile would take many minutes and gigabytes (``warn_unrolling`` gives the same words)."""
    if UNROLL_STOP_OPS is None or ops <= UNROLL_STOP_OPS:
        return
    raise UnsupportedError(
        f"{_unrolling_words(where, ops, done, trips, changes, reason)} jitcore stopped tracing it "
        f"past {UNROLL_STOP_OPS} operations, where its compile would take many minutes and "
        "gigabytes: rewrite the loop as said (or set jitcore.compile_time.UNROLL_STOP_OPS = None "
        "to let it unroll on)")


def warn_unrolling(where: str, ops: int, done: int, trips: int, changes: str | None,
                   reason: str | None = None) -> None:
    """Warn, once per trace, that the loop at ``where`` (the user's file and line) is being
    unrolled and its copies hold ``ops`` ops after ``done`` of its ``trips`` steps: why it
    ran unrolled (``changes``, the Python object its body changes, or what ``note_unrolled``
    recorded, or ``reason``, what its statement shows: a try, a state it cannot carry) and
    what compiles as one loop instead."""
    if getattr(_UNROLLED, "early", False) is not None:  # outside a trace, or warned already
        return
    _UNROLLED.early = True
    warnings.warn(CompileTimeWarning(_unrolling_words(where, ops, done, trips, changes, reason)),
                  stacklevel=user_stacklevel())


def _unrolling_words(where: str, ops: int, done: int, trips: int, changes: str | None,
                     reason: str | None) -> str:
    if changes:
        why = (f"its body changes a Python object ({changes}), which a compiled loop, its body "
               "traced once, would change once. Write into an array made before the loop "
               "instead (out = np.zeros((n, ...)); out[k] = v), or, for a list that one step "
               "uses alone, make it afresh at the top of the loop's body (xs = [x0], then "
               "xs.append(x)): either compiles as one loop")
    elif getattr(_UNROLLED, "why", None):
        why = (f"its body needs the loop's index as a Python int: {_UNROLLED.why} Computing that "
               "value element-wise (a window x[i:i + w], np.arange(i - w, i + w + 1), np.where) "
               "keeps the loop one loop")
    elif reason:
        why = reason
    else:
        why = ("its trip count is short and each step cheap on its own, or its body refused a "
               "compiled loop at its first step (a value of a type a loop cannot carry, made in "
               "its body). A loop over range(n) whose state is arrays and numbers, or "
               "jitcore.fori_loop, compiles its body once")
    steps = f"{done} of its {trips} steps" if trips > 1 else f"{done} steps"
    return (f"the loop at {where} is being unrolled while tracing: {steps} have put {ops} operations "
            f"into the compiled program so far, one copy of its body per step, and compile time grows "
            f"with them (about 5-10 ms an operation: minutes for tens of thousands). It runs "
            f"unrolled because {why} (docs/control-flow.md).")


def warn_if_slow(owner: object, name: str, clock: CompileClock, traced_ops: int,
                 unrolled: str | None = None, early: bool = False, library: dict | None = None) -> None:
    """Warn if ``clock``'s compile of ``name`` took over ``WARN_AFTER_SECONDS``, unless this
    ``owner`` (the jitted function) was warned about before. ``traced_ops``: the size of the
    traced program, which tells an unrolled loop from a small program with costly kernels.
    ``library``: where no loop ran unrolled, the calls and ops of each NumPy function traced
    (``library_call``), which name what made a long program instead."""
    total = clock.total
    if total <= WARN_AFTER_SECONDS or owner in _warned:
        return
    _warned.add(owner)
    if early:  # warned while tracing already, naming the loop's line
        return
    stage, seconds = clock.slowest()
    if traced_ops > UNROLLED_OPS and unrolled:
        why = (f"The traced program holds {traced_ops} operations, and compile time grows with "
               "it: a long loop or list comprehension ran unrolled, one copy of its body per "
               f"step, because its body needs the loop's index as a Python int: {unrolled} "
               "Computing that value element-wise (a window x[i:i + w], np.arange(i - w, i + w "
               "+ 1), np.where) keeps the loop one loop (docs/control-flow.md).")
    elif traced_ops > UNROLLED_OPS and library is not None and \
            2 * sum(ops for _, ops in library.values()) >= traced_ops:
        why = _library_ops(traced_ops, library)
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


def _library_ops(traced_ops: int, library: dict) -> str:
    """Why a program with no unrolled loop is long: the NumPy functions whose traced
    implementations made most of its ops, largest first."""
    largest = sorted(library.items(), key=lambda item: -item[1][1])[:3]
    named = " and ".join(f"{fn} ({calls} call{'s' if calls > 1 else ''}, {ops} operations)"
                         for fn, (calls, ops) in largest)
    fft = any(fn.startswith("np.fft.") for fn, _ in largest)
    return (f"The traced program holds {traced_ops} operations and no loop ran unrolled: most "
            f"were traced by {named}, whose implementations are programs of many operations "
            + ("(a transform is a kernel per stage, a stage per factor of its padded length: "
               "longer transforms trace more) " if fft else "")
            + "compiled once per signature and kept by the disk cache (unless cache=False), so "
            "later calls and sessions do not pay it again.")


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside jitcore: the user's
    call that compiled, however deep the compile path inside jitcore is."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1  # warn_if_slow's frame is level 1 of warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level
