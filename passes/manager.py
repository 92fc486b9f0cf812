"""The pass manager: parses a pipeline and runs its passes with instrumentation around each.

Passes only rewrite IR. Verification, IR dumps and timing are done here, once, so that every
pass gets them for free and none of them prints or times itself (DESIGN.md §4).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import time
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ClassVar

from jitcore import ir
from jitcore.ir.core import Operation
from jitcore.ir.errors import JitcoreError, VerificationError


class PipelineError(JitcoreError):
    """A pipeline string names a pass or option that does not exist, or gives a bad value."""


class PassFailure(JitcoreError):
    """A pass left the IR invalid; the message names the pass and the verifier's complaint."""


@dataclasses.dataclass(frozen=True)
class Pass(ABC):
    """One rewrite of a module. ``name`` is its spelling in a pipeline string.

    Every subclass is made a frozen dataclass whose fields are the pass's options, spelt with
    dashes in a pipeline: ``fuse{max-recompute=3}`` is ``Fuse(max_recompute=3)``. Being frozen,
    a pass keeps no state from one run to the next; it never prints or times itself either: the
    manager does both, the same way for every pass.
    """

    name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True)(cls)  # in place: the class object stays the same

    @abstractmethod
    def run(self, module: Operation) -> bool:
        """Rewrite ``module`` in place; return True if anything changed."""

    def __str__(self) -> str:
        """The pass as a pipeline spells it, with the options that differ from their defaults."""
        changed = [f"{f.name.replace('_', '-')}={_format_value(getattr(self, f.name))}"
                   for f in dataclasses.fields(self) if getattr(self, f.name) != f.default]
        return f"{self.name}{{{','.join(changed)}}}" if changed else self.name


def _format_value(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


PASSES: dict[str, type[Pass]] = {}


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator making ``cls`` available to pipelines under ``cls.name``."""
    if not cls.name:
        raise PipelineError(f"pass class {cls.__name__} has no name")
    if PASSES.get(cls.name, cls) is not cls:
        raise PipelineError(f"two passes are named {cls.name!r}")
    PASSES[cls.name] = cls
    return cls


_ITEM = re.compile(r"\s*([\w-]+)\s*(?:\{(.*)\})?\s*", re.S)


def _split_top_level(text: str, where: str) -> list[str]:
    """``text`` split at the commas outside braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0 or depth > 1:
            raise PipelineError(f"unbalanced braces in pipeline {where!r}")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise PipelineError(f"unbalanced braces in pipeline {where!r}")
    return [*parts, text[start:]]


def _parse_value(text: str, kind: type, where: str):
    """``text`` as a value of ``kind`` (int, float, bool or str)."""
    if kind is bool:
        if text in ("true", "false"):
            return text == "true"
    elif kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    elif kind is str:
        return text
    raise PipelineError(f"{where}: expected {'true or false' if kind is bool else kind.__name__}, "
                        f"got {text!r}")


def parse_pass(text: str, pipeline: str | None = None) -> Pass:
    """``"fuse{max-recompute=3}"`` → ``Fuse(max_recompute=3)``; options omitted keep their defaults."""
    pipeline = text if pipeline is None else pipeline
    m = _ITEM.fullmatch(text)
    if m is None:
        raise PipelineError(f"cannot parse {text.strip()!r} in pipeline {pipeline!r}")
    name, body = m.group(1), m.group(2)
    if name not in PASSES:
        known = ", ".join(sorted(PASSES))
        raise PipelineError(f"unknown pass {name!r} in pipeline {pipeline!r}; known passes: {known}")
    cls = PASSES[name]
    fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls) if f.init}
    # Only a pass given options needs their types: evaluating the annotations costs 2 ms the
    # first time in a process, which the default pipeline (no options) would pay on its first compile.
    types = typing.get_type_hints(cls) if body is not None and body.strip() else {}
    options = {}
    for item in ([] if body is None or not body.strip() else body.split(",")):
        key, eq, value = (s.strip() for s in item.partition("="))
        if key not in fields:
            valid = ", ".join(fields) or "none"
            raise PipelineError(f"unknown option {key!r} of pass {name!r} in pipeline {pipeline!r}; "
                                f"its options: {valid}")
        if not eq:
            raise PipelineError(f"option {key!r} of pass {name!r} has no value (write {key}=VALUE)")
        if fields[key].name in options:
            raise PipelineError(f"option {key!r} of pass {name!r} given twice")
        where = f"option {key!r} of pass {name!r} in pipeline {pipeline!r}"
        options[fields[key].name] = _parse_value(value, types[fields[key].name], where)
    return cls(**options)


def parse_pipeline(text: str) -> list[Pass]:
    """``"canonicalize, cse,fuse{max-recompute=3}"`` → pass instances, in order; ``""`` is the
    empty pipeline."""
    if not text.strip():
        return []
    return [parse_pass(part, text) for part in _split_top_level(text, text)]


def format_pipeline(passes: list[Pass]) -> str:
    """The pipeline text that ``parse_pipeline`` turns back into ``passes``."""
    return ",".join(str(p) for p in passes)


def _write_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")


# Where every PassManager run in this context also reports each pass's wall time, and the
# verifier's as "verify": a list that a compile sets for its own duration (``recording_times``),
# for jitcore's warning about a long compile, which names the stage that took longest.
_TIMES: ContextVar[list[tuple[str, float]] | None] = ContextVar("pass_times", default=None)


@contextmanager
def recording_times() -> Iterator[list[tuple[str, float]]]:
    """A list that the pass managers run inside the ``with`` block (in this thread or task)
    append ``(pass, seconds)`` to, one entry per pass run and per verification."""
    times: list[tuple[str, float]] = []
    token = _TIMES.set(times)
    try:
        yield times
    finally:
        _TIMES.reset(token)


class PassManager:
    """Runs a pipeline over a module, verifying, dumping and timing around each pass."""

    def __init__(
        self,
        pipeline: str | list[Pass],
        *,
        verify_each: bool = True,
        print_after_all: bool = False,
        print_after_change: bool = False,
        timing: bool = False,
        printer: Callable[[str], None] | None = None,
    ):
        self.passes = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
        self.verify_each = verify_each
        self.print_after_all = print_after_all
        self.print_after_change = print_after_change
        self.timing = timing
        self.printer = printer or _write_stderr
        self.timings: list[tuple[str, float]] = []

    def run(self, module: Operation) -> Operation:
        """Run every pass in order on ``module`` (in place) and return it.

        With ``verify_each`` the input is verified first, so a failure after a pass is that
        pass's fault; after that, only a pass that changed the module is followed by a
        verification (one that returns False left it as it was, already verified: three passes
        in four of the default pipeline; tests/passes/test_pass_manager.py holds every pass to
        its False). ``timings`` holds the passes of the latest run only.
        """
        self.timings = []
        sink = _TIMES.get()
        if self.verify_each:
            self._verify(module, sink, None)
        for p in self.passes:
            start = time.perf_counter()
            changed = p.run(module)
            seconds = time.perf_counter() - start
            if self.timing:
                self.timings.append((str(p), seconds))
            if sink is not None:
                sink.append((str(p), seconds))
            if self.verify_each and changed is not False:
                self._verify(module, sink, p)
            if self.print_after_all or (self.print_after_change and changed):
                self.printer(f"// -----// IR Dump After {p} //----- //\n" + ir.print_op(module))
        return module

    @staticmethod
    def _verify(module: Operation, sink: list | None, after: Pass | None) -> None:
        start = time.perf_counter()
        try:
            ir.verify(module)
        except VerificationError as e:
            if after is None:
                raise
            raise PassFailure(f"pass '{after}' produced invalid IR: {e}") from e
        finally:
            if sink is not None:
                sink.append(("verify", time.perf_counter() - start))

    def format_timing(self) -> str:
        """A report of the latest run's wall time per pass, in the layout of MLIR's -mlir-timing."""
        total = sum(seconds for _, seconds in self.timings)
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            "... Execution time report ...".center(79).rstrip(),
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, seconds in [*self.timings, ("Total", total)]:
            percent = 100.0 * seconds / total if total else 0.0
            lines.append(f"  {seconds:8.4f} ({percent:5.1f}%)  {name}")
        return "\n".join(lines)
