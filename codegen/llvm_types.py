"""IR element types as LLVM types, in registers and in memory (NumPy's bool is one byte)."""

from __future__ import annotations

from llvmlite import ir as ll

from ir.types import ScalarType

PTR = ll.PointerType()
I64 = ll.IntType(64)
I8 = ll.IntType(8)
I1 = ll.IntType(1)


def value_type(t: ScalarType) -> ll.Type:
    if t.is_float:
        return {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}[t.bitwidth]
    return ll.IntType(t.bitwidth)


def memory_type(t: ScalarType) -> ll.Type:
    return I8 if t.is_bool else value_type(t)
