"""``builtin.module``: the top-level container of functions."""

from __future__ import annotations

from jitcore.ir.core import ISOLATED, NO_TERMINATOR, Block, Operation, Region


class ModuleOp(Operation):
    name = "builtin.module"
    traits = frozenset({ISOLATED, NO_TERMINATOR})
    __slots__ = ()

    @staticmethod
    def build() -> ModuleOp:
        return ModuleOp(regions=[Region([Block()])])

    @property
    def body(self) -> Block:
        return self.regions[0].block

    def functions(self) -> list:
        return [op for op in self.body.ops if op.op_name == "func.func"]

    def lookup(self, name: str):
        for f in self.functions():
            if f.sym_name == name:
                return f
        return None

    def verify_op(self) -> None:
        if self.operands or self.results or len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            self.fail("must have no operands or results and one region with one block")
