"""What a kernel's work weighs against the runtime's ``parallel_threshold``.

The threshold is in iteration points of a body that costs about what ``tanh(2x+1)`` costs in
float32 (``jitcore/config.py``: it was set when starting and joining a thread cost what one
thread spends on about 128K points; waking the persistent pool, ``thread_pool.py``, costs far
less, but on the busy 2-core host two threads still lost to one below and around it, so it
stays: docs/performance.md, "Persistent thread pool"). A body of loads, stores and arithmetic
only, a sum of squares or a shifted copy, runs four to six times faster per point (measured
on a 2-core AMD EPYC, one thread, f32: 0.05-0.1 ns a point against 0.3 for ``tanh``), so a
split pays only from that many times more points. Such a kernel's points are weighed
``1 / CHEAP_DIVISOR`` each.

A body that only moves data (a copy, a transpose, ``np.roll``'s shifted segments: nothing but
position tests and selects) is bound by memory, which one core of that machine already takes
nearly all of: ``np.roll`` of 10M elements ran no faster on two threads than on one, and up to
1.6x slower when other processes held the second core. Its points weigh ``1 / COPY_DIVISOR``,
so it splits only past 16M points.

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
COPY_DIVISOR = 64
# Ops of a body that moves data: where a position falls, and which operand's element it takes.
_MOVING = frozenset({"kernel.index", "kernel.yield", "arith.constant", "arith.select"})


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


def only_moves_data(op: Operation) -> bool:
    """Whether ``op``'s body computes nothing from its elements: each op is a position, a
    constant, a select of an element, or arithmetic on index and i1 values only (tests on
    positions; logic on booleans, which is as cheap as copying them)."""
    for inner in kernel.body_ops(op):
        if inner.op_name in _MOVING:
            continue
        values = [*inner.operands, *inner.results]
        if not inner.op_name.startswith("arith.") or not all(
                getattr(v.type, "name", None) in ("index", "i1") for v in values):
            return False
    return True


def divisor(op: Operation) -> int:
    """What ``op``'s iteration points are divided by before the threshold weighs them."""
    if only_moves_data(op):
        return COPY_DIVISOR
    return CHEAP_DIVISOR if is_cheap(op) else 1


def threshold_work(op: Operation) -> int:
    """``op``'s iteration points as the threshold weighs them."""
    return math.prod(op.domain()) // divisor(op)
