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


# i64 constants by value, one object each (``i64``): a constant has no parent and llvmlite
# caches its text, so every function and module can share it; a tenth of the objects a kernel's
# emission made were such constants, each formatted again when printed. Bounded: indices and
# extents of the sizes compiled.
_I64_CONSTANTS: dict[int, ll.Constant] = {}
_I64_CONSTANTS_KEPT = 4096


def i64(n: int) -> ll.Constant:
    """``ll.Constant(I64, n)``, the same object for every ``n`` of type int (a NumPy integer, a
    bool gets a constant of its own: its ``constant`` is what ``ll.Constant`` was given)."""
    known = _I64_CONSTANTS.get(n) if type(n) is int else None
    if known is None:
        known = ll.Constant(I64, n)
        if type(n) is int and len(_I64_CONSTANTS) < _I64_CONSTANTS_KEPT:
            _I64_CONSTANTS[n] = known
    return known


def value_type(t: ScalarType) -> ll.Type:
    known = _VALUE_TYPES.get(t)
    if known is None:
        known = _VALUE_TYPES[t] = _value_type(t)
    return known


# one llvmlite type per scalar type (``value_type`` is asked for every value a kernel loads,
# stores or converts; a type's text is then formatted once)
_VALUE_TYPES: dict[ScalarType, ll.Type] = {}


def _value_type(t: ScalarType) -> ll.Type:
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
