"""IR element types as LLVM types, in registers and in memory (NumPy's bool is one byte; a
complex number is a ``{re, im}`` struct, NumPy's layout, which LLVM splits into two float
loads and stores)."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.ir.types import ScalarType

PTR = ll.PointerType()
I64 = ll.IntType(64)
I8 = ll.IntType(8)
I1 = ll.IntType(1)


def value_type(t: ScalarType) -> ll.Type:
    if t.is_complex:
        part = value_type(t.component)
        return ll.LiteralStructType([part, part])
    if t.is_float:
        return {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}[t.bitwidth]
    return ll.IntType(t.bitwidth)


def memory_type(t: ScalarType) -> ll.Type:
    return I8 if t.is_bool else value_type(t)


def constant(t: ScalarType, value, memory: bool = False) -> ll.Constant:
    """``value`` (a Python number) as an LLVM constant of ``t``, in a register or in memory."""
    if t.is_complex:
        part = t.component
        return ll.Constant(value_type(t), [constant(part, value.real), constant(part, value.imag)])
    if t.is_bool:
        return ll.Constant(memory_type(t) if memory else I1, int(value))
    return ll.Constant(value_type(t), value)


def declare(module: ll.Module, name: str, result: ll.Type, params: list[ll.Type]) -> ll.Function:
    """The function ``name`` of ``module``: declared here unless the module has it already."""
    existing = module.globals.get(name)
    return existing if existing is not None else ll.Function(module, ll.FunctionType(result, params), name)
