"""PTX assembled ahead of time by NVIDIA's ``ptxas`` (the CUDA toolkit's, where installed), with
what it reports per kernel: registers, spills, stack and shared memory.

jitcore never needs ``ptxas`` to run (the driver JIT-compiles PTX); the tests and
``tools/ptxas_report.py`` use it to check generated PTX without a GPU, and to show how heavy
each kernel is for the register file of an architecture.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jitcore.codegen.errors import CodegenError

TIMEOUT = 300  # seconds for one module

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SHARED = re.compile(r"(\d+) bytes smem")


class PtxasError(CodegenError):
    """``ptxas`` refused the PTX: the message holds its diagnostics."""


@dataclass(frozen=True)
class KernelStats:
    """What ``ptxas -v`` reports of one entry function."""

    name: str
    arch: str
    registers: int
    spill_stores: int  # bytes
    spill_loads: int  # bytes
    stack: int  # bytes of stack frame
    shared: int  # bytes of static shared memory


def find() -> str | None:
    """The path of ``ptxas`` on PATH, or None."""
    return shutil.which("ptxas")


def assemble(ptx: str, arch: str, ptxas: str | None = None) -> list[KernelStats]:
    """``ptx`` assembled by ``ptxas -v -arch=<arch>``: its entry functions' reports, in the
    order ptxas gives them; ``PtxasError`` with its diagnostics if it refuses the PTX."""
    ptxas = ptxas or find()
    if ptxas is None:
        raise PtxasError("ptxas (the CUDA toolkit's) is not on PATH")
    with tempfile.TemporaryDirectory(prefix="jitcore-ptxas-") as folder:
        source = Path(folder) / "module.ptx"
        source.write_text(ptx)
        command = [ptxas, "-v", f"-arch={arch}", str(source), "-o", str(Path(folder) / "module.cubin")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        raise PtxasError(f"ptxas -arch={arch} refused the PTX:\n{done.stderr}")
    return parse(done.stdout + done.stderr)


def parse(report: str) -> list[KernelStats]:
    """The entry functions of a ``ptxas -v`` report (each: its name and arch, then its frame
    and spill line, then its registers and shared memory line)."""
    stats, current = [], None
    for line in report.splitlines():
        if (entry := _ENTRY.search(line)) is not None:
            current = {"name": entry.group(1), "arch": entry.group(2)}
        elif current is not None and (frame := _FRAME.search(line)) is not None:
            current["stack"], current["spill_stores"], current["spill_loads"] = map(int, frame.groups())
        elif current is not None and (used := _USED.search(line)) is not None:
            shared = _SHARED.search(line)
            current = {"stack": 0, "spill_stores": 0, "spill_loads": 0, **current}
            stats.append(KernelStats(registers=int(used.group(1)),
                                     shared=int(shared.group(1)) if shared else 0, **current))
            current = None
    return stats
