"""What a compiled function is on the GPU: the target-neutral plan (storages, launches, the
program of steps) with, per launch, its grid and block, and PTX as its code.

There is no host LLVM function: the host side is this data, which the CUDA runtime
(``jitcore/cuda/``) walks: each ``Run`` is a ``cuLaunchKernel`` of ``launches[i].kernel`` with
``shapes[i]``'s grid and block, its operands' device pointers as the kernel's parameters; a
``Copy`` is a device-to-device copy; a loop or branch reads its bounds or condition back from
the device.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jitcore.codegen.nvptx.kernels import LaunchShape
from jitcore.codegen.plan import CompiledFunction


@dataclass
class GpuPlan(CompiledFunction):
    """A ``CompiledFunction`` whose ``object_code`` is PTX text for ``arch``."""

    arch: str = ""
    shapes: list[LaunchShape] = field(default_factory=list)  # one per launch
    zeroed: list[int] = field(default_factory=list)  # buffers that start as zero bytes (scratch)
    # (launch tag, check number) -> the user's line of a parallel index check (``checks.py``)
    check_places: dict = field(default_factory=dict)

    @property
    def ptx(self) -> str:
        return self.object_code.decode()
