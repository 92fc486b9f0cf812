"""``func.func``, ``func.return`` and ``func.call``."""

from __future__ import annotations

from jitcore.ir.attributes import SymbolRef
from jitcore.ir.core import ISOLATED, TERMINATOR, Block, Operation, Region
from jitcore.ir.opdef import attr, of
from jitcore.ir.types import FunctionType


class FuncOp(Operation):
    name = "func.func"
    traits = frozenset({ISOLATED})
    __slots__ = ()
    arity = (0, 0)
    sym_name = attr(of(str, ": a string"))
    function_type = attr(of(FunctionType, ": a function type"))

    @staticmethod
    def build(sym_name: str, function_type: FunctionType) -> FuncOp:
        body = Block(function_type.inputs)
        return FuncOp(
            attributes={"sym_name": sym_name, "function_type": function_type},
            regions=[Region([body])],
        )

    @property
    def body(self) -> Block:
        return self.regions[0].block

    def verify_op(self) -> None:
        ftype = self.function_type
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            self.fail("must have exactly one region with one block")
        arg_types = tuple(a.type for a in self.body.args)
        if arg_types != ftype.inputs:
            self.fail(f"block arguments {arg_types} do not match function_type inputs {ftype.inputs}")
        ret = self.body.terminator
        if ret is not None and ret.op_name == "func.return":
            got = tuple(v.type for v in ret.operands)
            if got != ftype.results:
                expected = [str(t) for t in ftype.results]
                ret.fail(f"returns {[str(t) for t in got]} but the function type says {expected}")


class ReturnOp(Operation):
    name = "func.return"
    traits = frozenset({TERMINATOR})
    __slots__ = ()

    def verify_op(self) -> None:
        if self.results:
            self.fail("has no results")
        if self.parent_op is None or self.parent_op.op_name != "func.func":
            self.fail("must be inside a func.func")


class CallOp(Operation):
    name = "func.call"
    __slots__ = ()
    callee = attr(of(SymbolRef, ": a symbol"))
