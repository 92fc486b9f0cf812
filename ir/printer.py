"""MLIR generic-form printer.

``print_op`` writes text that ``ir.parser.parse`` reads back to the same IR, so that
print → parse → print is the identity. SSA names are given here only: ``%N`` for op results and
``%argN`` for block arguments, numbered afresh inside each op that is isolated from above.
"""

from __future__ import annotations

import json
import math

import numpy as np

from jitcore.ir.attributes import AffineMap, DenseAttr, ScalarAttr, SymbolRef, numpy_dtype
from jitcore.ir.core import ISOLATED, Block, Operation, Value
from jitcore.ir.types import FunctionType, ScalarType, Type


def print_op(op: Operation, *, debug_locations: bool = False, elide_larger_than: int | None = None) -> str:
    """The text of ``op`` and everything nested in it.

    ``debug_locations``: each op's source location after its type, ``loc("f.py":3:5)``
    (mlir-opt's ``--mlir-print-debuginfo``; an unknown one is left out, as it reads back).
    ``elide_larger_than``: a dense constant of more elements prints as
    ``dense_resource<__elided__>`` (mlir-opt's ``--mlir-elide-elementsattrs-if-larger``),
    which the parser refuses. The defaults print
    everything the parser needs and nothing else, as the disk cache's key wants."""
    printer = _Printer(debug_locations, elide_larger_than)
    printer.op(op, 0)
    return "\n".join(printer.lines)


ELIDED = "dense_resource<__elided__>"


def format_attribute(attr, elide_larger_than: int | None = None) -> str:
    if isinstance(attr, bool):
        return "true" if attr else "false"
    if isinstance(attr, int):
        return str(attr)
    if isinstance(attr, float):
        if not math.isfinite(attr):
            raise TypeError("non-finite floats must be ScalarAttr, which prints their bits")
        return repr(attr)
    if isinstance(attr, str):
        return json.dumps(attr)
    if isinstance(attr, tuple):
        return "[" + ", ".join(format_attribute(a, elide_larger_than) for a in attr) + "]"
    if isinstance(attr, ScalarAttr):
        return f"{_scalar_text(attr.value, attr.type)} : {attr.type}"
    if isinstance(attr, DenseAttr):
        if elide_larger_than is not None and attr.array.size > elide_larger_than and not attr.is_splat:
            return f"{ELIDED} : {attr.type}"
        return f"dense<{_dense_body(attr)}> : {attr.type}"
    if isinstance(attr, (Type, AffineMap, SymbolRef)):
        return str(attr)
    raise TypeError(f"cannot print attribute {attr!r} of type {type(attr).__name__}")


def _scalar_text(value, t: ScalarType) -> str:
    if t.is_complex:
        value = np.asarray(value, dtype=numpy_dtype(t))
        return f"({_float_text(value.real[()], t.component)}, {_float_text(value.imag[()], t.component)})"
    if t.is_bool:
        return "true" if value else "false"
    if t.is_float:
        return _float_text(value, t)
    return str(int(value))


def _float_text(value, t: ScalarType) -> str:
    """``value`` is a Python float or a NumPy scalar of type ``t``; the latter keeps the bits
    of an f32 signalling NaN, which a round trip through a Python float would quieten."""
    if math.isfinite(value):
        return repr(float(value))
    # NaN and inf print as their bit pattern, as MLIR does, so payloads survive.
    bits = np.array(value, dtype=_float_dtype(t)).view(f"u{t.bitwidth // 8}").item()
    return f"0x{bits:0{t.bitwidth // 4}X}"


def _float_dtype(t: ScalarType):
    return {16: np.float16, 32: np.float32, 64: np.float64}[t.bitwidth]


def _dense_body(attr: DenseAttr) -> str:
    arr, elem = attr.array, attr.type.element
    if attr.is_splat:
        return _scalar_text(arr.reshape(-1)[0], elem)
    if arr.size > 16:
        return '"0x' + arr.tobytes().hex().upper() + '"'

    def nested(a):
        if a.ndim == 0:
            return _scalar_text(a[()], elem)
        return "[" + ", ".join(nested(x) for x in a) + "]"

    return nested(arr)


class _Printer:
    def __init__(self, debug_locations: bool = False, elide_larger_than: int | None = None):
        self.debug_locations = debug_locations
        self.elide_larger_than = elide_larger_than
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.counters = [[0, 0]]  # [next result number, next argument number] per isolated scope

    def name(self, v: Value) -> str:
        return self.names.get(id(v), "%<<UNKNOWN>>")

    def define_result(self, v: Value) -> str:
        counter = self.counters[-1]
        self.names[id(v)] = f"%{counter[0]}"
        counter[0] += 1
        return self.names[id(v)]

    def define_arg(self, v: Value) -> str:
        counter = self.counters[-1]
        self.names[id(v)] = f"%arg{counter[1]}"
        counter[1] += 1
        return self.names[id(v)]

    def op(self, op: Operation, depth: int) -> None:
        pad = "  " * depth
        results = ", ".join(self.define_result(r) for r in op.results)
        head = f"{results} = " if results else ""
        operands = ", ".join(self.name(v) for v in op.operands)
        text = f'{pad}{head}"{op.op_name}"({operands})'
        isolated = op.has_trait(ISOLATED)
        if isolated:
            self.counters.append([0, 0])
        if op.regions:
            self.lines.append(text + " ({")
            for i, region in enumerate(op.regions):
                if i:
                    self.lines.append(pad + "}, {")
                for j, block in enumerate(region.blocks):
                    label = len(region.blocks) > 1 or bool(block.args)
                    self.block(block, depth, label=label, number=j)
            text = pad + "})"
        if isolated:
            self.counters.pop()
        if op.attributes:
            elide = self.elide_larger_than
            items = ", ".join(f"{k} = {format_attribute(v, elide)}" for k, v in sorted(op.attributes.items()))
            text += f" {{{items}}}"
        signature = FunctionType(tuple(v.type for v in op.operands), tuple(op.result_types))
        where = f" {op.loc.text()}" if self.debug_locations and op.loc.known else ""
        self.lines.append(f"{text} : {signature}{where}")

    def block(self, block: Block, depth: int, label: bool, number: int) -> None:
        if label:
            args = ", ".join(f"{self.define_arg(a)}: {a.type}" for a in block.args)
            self.lines.append("  " * depth + f"^bb{number}" + (f"({args})" if args else "") + ":")
        for op in block.ops:
            self.op(op, depth + 1)
