"""The pass manager: parses a pipeline and runs its passes with instrumentation around each.

Passes only rewrite IR. Verification, IR dumps and timing are done here, once, so that every
pass gets them for free and none of them prints or times itself (DESIGN.md §4).
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar

from jitcore import ir
from jitcore.ir.core import Operation
from jitcore.ir.errors import JitcoreError, VerificationError


class PipelineError(JitcoreError):
    """A pipeline string names a pass that does not exist."""


class PassFailure(JitcoreError):
    """A pass left the IR invalid; the message names the pass and the verifier's complaint."""


class Pass(ABC):
    """One rewrite of a module. ``name`` is its spelling in a pipeline string.

    A pass keeps no state from one run to the next, and never prints or times itself: the
    manager does both, the same way for every pass.
    """

    name: ClassVar[str] = ""

    @abstractmethod
    def run(self, module: Operation) -> bool:
        """Rewrite ``module`` in place; return True if anything changed."""


PASSES: dict[str, type[Pass]] = {}


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator making ``cls`` available to pipelines under ``cls.name``."""
    if not cls.name:
        raise PipelineError(f"pass class {cls.__name__} has no name")
    if PASSES.get(cls.name, cls) is not cls:
        raise PipelineError(f"two passes are named {cls.name!r}")
    PASSES[cls.name] = cls
    return cls


def parse_pipeline(text: str) -> list[Pass]:
    """``"canonicalize, cse,dce"`` → pass instances, in order; ``""`` is the empty pipeline."""
    if not text.strip():
        return []
    passes = []
    for name in (part.strip() for part in text.split(",")):
        if name not in PASSES:
            known = ", ".join(sorted(PASSES))
            raise PipelineError(f"unknown pass {name!r} in pipeline {text!r}; known passes: {known}")
        passes.append(PASSES[name]())
    return passes


def _write_stderr(text: str) -> None:
    sys.stderr.write(text + "\n")


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
        pass's fault. ``timings`` holds the passes of the latest run only.
        """
        self.timings = []
        if self.verify_each:
            ir.verify(module)
        for p in self.passes:
            start = time.perf_counter()
            changed = p.run(module)
            if self.timing:
                self.timings.append((p.name, time.perf_counter() - start))
            if self.verify_each:
                try:
                    ir.verify(module)
                except VerificationError as e:
                    raise PassFailure(f"pass '{p.name}' produced invalid IR: {e}") from e
            if self.print_after_all or (self.print_after_change and changed):
                self.printer(f"// -----// IR Dump After {p.name} //----- //\n" + ir.print_op(module))
        return module

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
