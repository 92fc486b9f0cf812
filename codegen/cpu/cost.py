"""What a kernel's work weighs against the runtime's ``parallel_threshold``.

The threshold is in iteration points of a body that costs about what ``tanh(2x+1)`` costs in
float32 (``jitcore/config.py``: there starting and joining a thread costs what one thread
spends on about 128K points). A body of loads, stores and arithmetic only, a sum of squares or
a shifted copy, runs four to six times faster per point (measured on a 2-core AMD EPYC, one
thread, f32: 0.05-0.1 ns a point against 0.3 for ``tanh``), so a split pays only from that many
times more points. Such a kernel's points are weighed ``1 / CHEAP_DIVISOR`` each.

The weight only moves where the threshold falls. The chunks are still counted in points
(``chunk_size``), so which chunks a kernel is cut into, hence its results, do not depend on it.
"""

from __future__ import annotations

import math

from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

# Math ops as cheap as arithmetic: one or a few vector instructions each.
_CHEAP_MATH = frozenset({
    "math.absf", "math.absi", "math.sqrt", "math.floor", "math.ceil", "math.trunc", "math.rint",
    "math.copysign", "math.fma",
})
# Measured 4-6x (see above); 8 keeps a cheap kernel whole where a split would save at most a
# thread start's worth (a 1000x1000 float32 row norm: 50 us on one thread).
CHEAP_DIVISOR = 8


def is_cheap(op: Operation) -> bool:
    """Whether ``op``'s body is arithmetic only: no call of the math library, no loop."""
    for inner in kernel.body_ops(op):
        name = inner.op_name
        if name.startswith("math."):
            if name not in _CHEAP_MATH:
                return False
        elif name.startswith(("scf.", "complex.")):
            return False
    return True


def threshold_work(op: Operation) -> int:
    """``op``'s iteration points as the threshold weighs them."""
    points = math.prod(op.domain())
    return points // CHEAP_DIVISOR if is_cheap(op) else points
