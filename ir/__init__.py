"""jitcore's SSA IR in the style of MLIR: types, attributes, ops, printer, parser, verifier."""

from ir import dialects  # noqa: F401  (registers every op)
from ir.attributes import AffineExpr, AffineMap, DenseAttr, ScalarAttr, SymbolRef
from ir.core import Block, BlockArgument, Operation, OpResult, Region, Value
from ir.errors import IRError, JitcoreError, ParseError, VerificationError
from ir.parser import parse, parse_attribute, parse_type
from ir.printer import print_op
from ir.types import FunctionType, ScalarType, TensorType, Type
from ir.verifier import verify

__all__ = [
    "AffineExpr", "AffineMap", "Block", "BlockArgument", "DenseAttr", "FunctionType",
    "IRError", "JitcoreError", "OpResult", "Operation", "ParseError", "Region", "ScalarAttr",
    "ScalarType", "SymbolRef", "TensorType", "Type", "Value", "VerificationError", "parse",
    "parse_attribute", "parse_type", "print_op", "verify",
]
