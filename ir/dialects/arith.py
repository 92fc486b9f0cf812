"""Scalar ops of kernel bodies: ``arith`` (arithmetic, comparison, casts) and, in ``math``,
transcendental functions.

Integer ops follow NumPy rather than LLVM where the two differ: they wrap on overflow, and
division or remainder by zero gives 0 (NumPy's result, without its warning). ``floordivsi`` and
``floormodsi`` round toward negative infinity like Python's ``//`` and ``%``.
"""

from __future__ import annotations

from ir.attributes import ScalarAttr
from ir.core import COMMUTATIVE, PURE, Operation
from ir.types import ScalarType, i1

FLOAT, INT, ANY = "float", "int", "any"
FLOAT_PREDICATES = frozenset("oeq one olt ole ogt oge ueq une ult ule ugt uge ord uno".split())
INT_PREDICATES = frozenset("eq ne slt sle sgt sge ult ule ugt uge".split())


class ScalarOp(Operation):
    """Base of scalar ops: ``arity`` operands of one type ``family``, result of the same type."""

    __slots__ = ()
    traits = frozenset({PURE})
    arity = 2
    family = ANY

    def verify_op(self) -> None:
        if len(self.operands) != self.arity or len(self.results) != 1:
            self.fail(f"needs {self.arity} operand(s) and one result")
        types = [v.type for v in self.operands]
        if any(not isinstance(t, ScalarType) for t in [*types, self.results[0].type]):
            self.fail("takes and returns scalars only")
        if types and any(t != types[0] for t in types):
            self.fail("needs operands of one type")
        if types and self.family == FLOAT and not types[0].is_float:
            self.fail(f"needs a float type, got {types[0]}")
        if types and self.family == INT and types[0].is_float:
            self.fail(f"needs an integer or i1 type, got {types[0]}")
        self.check_result(types)

    def check_result(self, types) -> None:
        if self.results[0].type != types[0]:
            self.fail("must return its operands' type")


def define(dialect: str, name: str, arity: int, family: str, base=ScalarOp,
           commutative: bool = False, doc: str = "") -> type:
    traits = base.traits | ({COMMUTATIVE} if commutative else set())
    cls_name = "".join(p.capitalize() for p in name.split("_")) + "Op"
    return type(cls_name, (base,), {
        "name": f"{dialect}.{name}", "arity": arity, "family": family, "traits": traits,
        "__slots__": (), "__doc__": doc})


class ConstantOp(ScalarOp):
    name = "arith.constant"
    arity = 0
    __slots__ = ()

    def check_result(self, types) -> None:
        value = self.attributes.get("value")
        if not isinstance(value, ScalarAttr) or value.type != self.results[0].type:
            self.fail("needs a scalar 'value' of the result type")


class CompareOp(ScalarOp):
    __slots__ = ()

    def check_result(self, types) -> None:
        allowed = FLOAT_PREDICATES if self.family == FLOAT else INT_PREDICATES
        if self.attributes.get("predicate") not in allowed:
            self.fail(f"needs a 'predicate' in {sorted(allowed)}")
        if self.results[0].type != i1:
            self.fail("must return i1")


class SelectOp(ScalarOp):
    name = "arith.select"
    arity = 3
    __slots__ = ()

    def verify_op(self) -> None:
        if len(self.operands) != 3 or len(self.results) != 1:
            self.fail("needs a condition, two values and one result")
        c, a, b = (v.type for v in self.operands)
        if c != i1 or a != b or self.results[0].type != a:
            self.fail("needs an i1 condition and two values of the result's type")


class CastOp(ScalarOp):
    """A conversion; ``source`` and ``target`` say which type families it connects."""

    __slots__ = ()
    arity = 1
    source = ANY
    target = ANY

    def verify_op(self) -> None:
        if len(self.operands) != 1 or len(self.results) != 1:
            self.fail("needs one operand and one result")
        src, dst = self.operands[0].type, self.results[0].type
        for t, family in ((src, self.source), (dst, self.target)):
            if family == FLOAT and not t.is_float or family == INT and t.is_float:
                self.fail(f"cannot convert {src} to {dst}")
        if self.name in ("arith.extf", "arith.extsi", "arith.extui") and dst.bitwidth <= src.bitwidth:
            self.fail(f"must widen, but {src} to {dst} does not")
        if self.name in ("arith.truncf", "arith.trunci") and dst.bitwidth >= src.bitwidth:
            self.fail(f"must narrow, but {src} to {dst} does not")
        if self.name == "arith.bitcast" and dst.bitwidth != src.bitwidth:
            self.fail(f"must keep the width, but {src} to {dst} does not")


for _name in ("addf", "mulf", "maximumf", "minimumf"):
    define("arith", _name, 2, FLOAT, commutative=True)
for _name in ("subf", "divf", "remf"):
    define("arith", _name, 2, FLOAT)
define("arith", "negf", 1, FLOAT)
for _name in ("addi", "muli", "andi", "ori", "xori", "maxsi", "maxui", "minsi", "minui"):
    define("arith", _name, 2, INT, commutative=True)
for _name in ("subi", "floordivsi", "divui", "floormodsi", "remui"):
    define("arith", _name, 2, INT)
define("arith", "cmpf", 2, FLOAT, base=CompareOp)
define("arith", "cmpi", 2, INT, base=CompareOp)

CASTS = {
    "extf": (FLOAT, FLOAT), "truncf": (FLOAT, FLOAT), "sitofp": (INT, FLOAT),
    "uitofp": (INT, FLOAT), "fptosi": (FLOAT, INT), "fptoui": (FLOAT, INT),
    "extsi": (INT, INT), "extui": (INT, INT), "trunci": (INT, INT),
    "bitcast": (INT, INT),  # same width, other signedness (i32 <-> ui32)
}
for _name, (_src, _dst) in CASTS.items():
    type(f"{_name.capitalize()}Op", (CastOp,), {
        "name": f"arith.{_name}", "source": _src, "target": _dst, "__slots__": ()})
