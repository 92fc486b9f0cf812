"""Reading constants out of the IR: the value an ``array.constant`` or ``arith.constant``
gives, as an attribute, or as one Python number where the value is a single element (a bound
or condition of an ``scf`` op, at either level)."""

from __future__ import annotations

from jitcore.ir.attributes import DenseAttr, ScalarAttr
from jitcore.ir.core import OpResult, Value
from jitcore.ir.dialects import arith, array

CONSTANT_OPS = (array.ConstantOp, arith.ConstantOp)


def constant_of(v: Value) -> DenseAttr | ScalarAttr | None:
    """The value of ``v`` if an ``array.constant`` or ``arith.constant`` defines it."""
    op = v.op if isinstance(v, OpResult) else None
    return op.attributes["value"] if isinstance(op, CONSTANT_OPS) else None


def scalar_constant(v: Value) -> bool | int | float | complex | None:
    """The one number ``v`` holds, if it is a constant scalar or a constant of one element."""
    attr = constant_of(v)
    if isinstance(attr, ScalarAttr):
        return attr.value
    if isinstance(attr, DenseAttr) and attr.array.size == 1:
        return attr.array.reshape(-1)[0].item()
    return None
