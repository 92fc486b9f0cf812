"""``func.func``, ``func.return`` and ``func.call``."""

from __future__ import annotations

from jitcore.ir.attributes import SymbolRef
from jitcore.ir.core import ISOLATED, TERMINATOR, Block, Operation, Region
from jitcore.ir.types import FunctionType


class FuncOp(Operation):
    name = "func.func"
    traits = frozenset({ISOLATED})
    __slots__ = ()

    @staticmethod
    def build(sym_name: str, function_type: FunctionType) -> FuncOp:
        body = Block(function_type.inputs)
        return FuncOp(
            attributes={"sym_name": sym_name, "function_type": function_type},
            regions=[Region([body])],
        )

    @property
    def sym_name(self) -> str:
        return self.attributes["sym_name"]

    @property
    def function_type(self) -> FunctionType:
        return self.attributes["function_type"]

    @property
    def body(self) -> Block:
        return self.regions[0].block

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), str):
            self.fail("needs a string attribute 'sym_name'")
        ftype = self.attributes.get("function_type")
        if not isinstance(ftype, FunctionType):
            self.fail("needs a function type attribute 'function_type'")
        if self.operands or self.results or len(self.regions) != 1:
            self.fail("must have no operands or results and exactly one region")
        if len(self.regions[0].blocks) != 1:
            self.fail("must have exactly one block")
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

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("callee"), SymbolRef):
            self.fail("needs a symbol attribute 'callee'")
