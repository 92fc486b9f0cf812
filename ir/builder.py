"""A builder that appends new ops at an insertion point, as MLIR's OpBuilder does."""

from __future__ import annotations

from jitcore.ir.core import Block, Operation


class Builder:
    """Creates ops and inserts them into ``block`` before ``before`` (or at its end)."""

    __slots__ = ("block", "before")

    def __init__(self, block: Block, before: Operation | None = None):
        self.block = block
        self.before = before

    @staticmethod
    def before_op(op: Operation) -> Builder:
        return Builder(op.parent, op)

    def insert(self, op: Operation) -> Operation:
        if self.before is None:
            return self.block.append(op)
        return self.block.insert_before(self.before, op)

    def create(self, op_cls: type[Operation], operands=(), result_types=(), attributes=None,
               regions=()) -> Operation:
        return self.insert(op_cls(operands, result_types, attributes, regions))
