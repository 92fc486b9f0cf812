"""jitcore's SSA IR in the style of MLIR: types, attributes, ops, printer, parser, verifier."""

from jitcore.ir import dialects  # noqa: F401  (registers every op)
from jitcore.ir.attributes import AffineExpr, AffineMap, DenseAttr, ScalarAttr, SymbolRef
from jitcore.ir.core import Block, BlockArgument, Operation, OpResult, Region, Value
from jitcore.ir.errors import IRError, JitcoreError, ParseError, VerificationError
from jitcore.ir.parser import parse, parse_attribute, parse_module, parse_type
from jitcore.ir.printer import print_op
from jitcore.ir.types import FunctionType, ScalarType, TensorType, Type
from jitcore.ir.verifier import verify

__all__ = [
    "AffineExpr", "AffineMap", "Block", "BlockArgument", "DenseAttr", "FunctionType",
    "IRError", "JitcoreError", "OpResult", "Operation", "ParseError", "Region", "ScalarAttr",
    "ScalarType", "SymbolRef", "TensorType", "Type", "Value", "VerificationError", "parse",
    "parse_attribute", "parse_module", "parse_type", "print_op", "verify",
]
