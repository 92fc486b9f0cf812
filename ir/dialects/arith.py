"""Scalar ops of kernel bodies: ``arith`` (arithmetic, comparison, casts) and, in ``math``,
transcendental functions.

Integer ops follow NumPy rather than LLVM where the two differ: they wrap on overflow, and
division or remainder by zero gives 0 (NumPy's result, without its warning). ``floordivsi`` and
``floormodsi`` round toward negative infinity like Python's ``//`` and ``%``.

Ops are signless in their bits, as in MLIR: an ``si`` op reads its operands as signed and a
``ui`` op as unsigned, whatever the signedness of their type (so i1 ``true`` is -1 to ``si``).
``remf`` is C's ``fmod`` (LLVM's ``frem``). Folders evaluate exactly these rules with NumPy;
where a result is not pinned down (float→int out of range, ``maximumf`` of +0.0 and -0.0,
arithmetic on i1), they do not fold.
"""

from __future__ import annotations

import math

import numpy as np

from jitcore.ir.attributes import ScalarAttr, numpy_dtype
from jitcore.ir.core import PURE, Operation
from jitcore.ir.opdef import attr, of, one_of
from jitcore.ir.types import ScalarType, i1

FLOAT, INT, ANY = "float", "int", "any"


def _reinterpret(a: np.ndarray, signed: bool) -> np.ndarray:
    """Integer bits read as a signed or an unsigned number of the same width."""
    if a.dtype == np.bool_:
        return -a.astype(np.int8) if signed else a.astype(np.uint8)
    return a.view(f"{'i' if signed else 'u'}{a.itemsize}")


def _signed(fn):
    return lambda x, y: fn(_reinterpret(x, True), _reinterpret(y, True))


def _unsigned(fn):
    return lambda x, y: fn(_reinterpret(x, False), _reinterpret(y, False))


def _unordered(ordered):
    """The ``u`` predicate: true where the ordered opposite is false (so also for NaN)."""
    return lambda x, y: ~ordered(x, y)


def _ieee_minmax(fn):
    """NumPy's maximum/minimum, but no answer for +0.0 against -0.0: IEEE orders them by sign,
    NumPy's loops by operand position, and not the same way in each of its code paths."""
    return lambda x, y: None if x == 0 and y == 0 and np.signbit(x) != np.signbit(y) else fn(x, y)


BITWISE = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor}
FOLDERS = {
    **BITWISE,
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.true_divide, "arith.remf": np.fmod, "arith.negf": np.negative,
    "arith.maximumf": _ieee_minmax(np.maximum), "arith.minimumf": _ieee_minmax(np.minimum),
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.maxsi": _signed(np.maximum), "arith.minsi": _signed(np.minimum),
    "arith.maxui": _unsigned(np.maximum), "arith.minui": _unsigned(np.minimum),
    "arith.floordivsi": _signed(np.floor_divide), "arith.floormodsi": _signed(np.remainder),
    "arith.divui": _unsigned(np.floor_divide), "arith.remui": _unsigned(np.remainder),
}
_ONE_SIDED = {"olt": np.less, "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal}
CMPF = {
    **_ONE_SIDED,
    "oeq": np.equal, "one": lambda x, y: (x < y) | (x > y),
    "ord": lambda x, y: ~(np.isnan(x) | np.isnan(y)), "uno": lambda x, y: np.isnan(x) | np.isnan(y),
    "ueq": _unordered(lambda x, y: (x < y) | (x > y)), "une": np.not_equal,
    "ult": _unordered(np.greater_equal), "ule": _unordered(np.greater),
    "ugt": _unordered(np.less_equal), "uge": _unordered(np.less),
}
CMPI = {
    "eq": np.equal, "ne": np.not_equal,
    **{f"s{p[1:]}": _signed(fn) for p, fn in _ONE_SIDED.items()},
    **{f"u{p[1:]}": _unsigned(fn) for p, fn in _ONE_SIDED.items()},
}
FLOAT_PREDICATES, INT_PREDICATES = frozenset(CMPF), frozenset(CMPI)
# Constant right operands that give back the left operand, compared bit-exactly (x + 0.0 turns
# -0.0 into +0.0, so only x + -0.0 is x), and those that give back themselves (integers only:
# x * 0.0 is NaN for x = inf or NaN).
RIGHT_IDENTITY = {
    "arith.addi": 0, "arith.subi": 0, "arith.ori": 0, "arith.xori": 0, "arith.muli": 1,
    "arith.floordivsi": 1, "arith.divui": 1,
    "arith.addf": -0.0, "arith.subf": 0.0, "arith.mulf": 1.0, "arith.divf": 1.0,
}
RIGHT_ABSORBING = {"arith.muli": 0, "arith.andi": 0}


def _evaluate(fn, constants: list, result: ScalarType) -> list | None:
    """``fn`` applied to the constants as 0-d arrays, or None if any operand is not constant."""
    if any(c is None for c in constants):
        return None
    args = [np.array(c.value, dtype=numpy_dtype(c.type)) for c in constants]
    with np.errstate(all="ignore"):
        out = fn(*args)
        return None if out is None else [ScalarAttr(out, result)]


def _float_to_int(x: np.ndarray, dst: ScalarType, signed: bool):
    """Truncation toward zero; None where it is out of range (NaN, inf, too large)."""
    v = float(np.trunc(x))
    if dst.is_bool or not math.isfinite(v):
        return None
    info = np.iinfo(f"{'i' if signed else 'u'}{dst.bitwidth // 8}")
    return int(v) if info.min <= v <= info.max else None


class ScalarOp(Operation):
    """Base of scalar ops: operands of one type ``family``, result of the same type."""

    __slots__ = ()
    traits = frozenset({PURE})
    arity = (2, 1)
    family = ANY

    def verify_op(self) -> None:
        # (loops, not generators: this runs for every scalar op after each pass that changed
        # the module, the most of the verifier's time)
        types = [v.type for v in self._operands]
        for t in types:
            if not isinstance(t, ScalarType):
                self.fail("takes and returns scalars only")
        if not isinstance(self.results[0].type, ScalarType):
            self.fail("takes and returns scalars only")
        if types:
            first = types[0]
            for t in types:
                if t is not first and t != first:
                    self.fail("needs operands of one type")
            family = self.family
            if family == FLOAT and not first.is_float:
                self.fail(f"needs a float type, got {first}")
            if family == INT and (first.is_float or first.is_complex):
                self.fail(f"needs an integer or i1 type, got {first}")
        self.check_result(types)

    def check_result(self, types) -> None:
        result = self.results[0].type
        if result is not types[0] and result != types[0]:
            self.fail("must return its operands' type")

    def fold(self, constants):
        if self.arity == (2, 1) and constants[1] is not None:
            rhs = constants[1]
            if self.name in RIGHT_IDENTITY and rhs == ScalarAttr(RIGHT_IDENTITY[self.name], rhs.type):
                return [self.operands[0]]
            if self.name in RIGHT_ABSORBING and rhs == ScalarAttr(RIGHT_ABSORBING[self.name], rhs.type):
                return [self.operands[1]]
        fn = FOLDERS.get(self.name)
        if fn is None or self.operands[0].type.is_bool and self.name not in BITWISE:
            return None  # i1 arithmetic: NumPy's bool add is `or`, LLVM's is `xor`
        return _evaluate(fn, constants, self.results[0].type)


class FloatOp(ScalarOp):
    """Base of binary float ops (and, with ``arity`` set, of other float ops)."""

    __slots__ = ()
    family = FLOAT


class FloatUnaryOp(FloatOp):
    __slots__ = ()
    arity = (1, 1)


class IntOp(ScalarOp):
    """Base of binary integer ops (and, with ``arity`` set, of other integer ops)."""

    __slots__ = ()
    family = INT


class IntUnaryOp(IntOp):
    __slots__ = ()
    arity = (1, 1)


class ConstantOp(ScalarOp):
    name = "arith.constant"
    arity = (0, 1)
    __slots__ = ()
    value = attr(of(ScalarAttr, ": a scalar of the result type"))

    def check_result(self, types) -> None:
        if self.value.type != self.results[0].type:
            self.fail("needs a scalar 'value' of the result type")


class CompareOp(ScalarOp):
    __slots__ = ()

    def check_result(self, types) -> None:
        if self.results[0].type != i1:
            self.fail("must return i1")

    def fold(self, constants):
        table = CMPF if self.family == FLOAT else CMPI
        return _evaluate(table[self.predicate], constants, i1)


class SelectOp(ScalarOp):
    name = "arith.select"
    arity = (3, 1)
    __slots__ = ()

    def verify_op(self) -> None:
        c, a, b = (v.type for v in self.operands)
        if c != i1 or a != b or self.results[0].type != a:
            self.fail("needs an i1 condition and two values of the result's type")

    def fold(self, constants):
        _, a, b = self.operands
        if a is b:
            return [a]
        if constants[0] is not None:
            return [a if constants[0].value else b]
        return None


class CastOp(ScalarOp):
    """A conversion; ``source`` and ``target`` say which type families it connects."""

    __slots__ = ()
    arity = (1, 1)
    source = ANY
    target = ANY

    def verify_op(self) -> None:
        src, dst = self.operands[0].type, self.results[0].type
        for t, family in ((src, self.source), (dst, self.target)):
            if family == FLOAT and not t.is_float or family == INT and not (t.is_integer or t.is_bool):
                self.fail(f"cannot convert {src} to {dst}")
        if self.name in ("arith.extf", "arith.extsi", "arith.extui") and dst.bitwidth <= src.bitwidth:
            self.fail(f"must widen, but {src} to {dst} does not")
        if self.name in ("arith.truncf", "arith.trunci") and dst.bitwidth >= src.bitwidth:
            self.fail(f"must narrow, but {src} to {dst} does not")
        if self.name == "arith.bitcast" and dst.bitwidth != src.bitwidth:
            self.fail(f"must keep the width, but {src} to {dst} does not")

    def fold(self, constants):
        dst = self.results[0].type

        def convert(x):
            # ScalarAttr converts the value to ``dst``: rounding to nearest for floats,
            # wrapping for integers, so only the source's reading needs choosing here.
            if self.name in ("arith.fptosi", "arith.fptoui"):
                return _float_to_int(x, dst, signed=self.name == "arith.fptosi")
            if self.name in ("arith.sitofp", "arith.extsi"):
                return _reinterpret(x, True)
            if self.name in ("arith.uitofp", "arith.extui"):
                return _reinterpret(x, False)
            if dst.is_bool:
                return _reinterpret(x, False) & 1  # trunci to i1 keeps the low bit
            return x

        return _evaluate(convert, constants, dst)


class AddfOp(FloatOp, commutative=True):
    name = "arith.addf"
    __slots__ = ()
class MulfOp(FloatOp, commutative=True):
    name = "arith.mulf"
    __slots__ = ()
class SubfOp(FloatOp):
    name = "arith.subf"
    __slots__ = ()
class DivfOp(FloatOp):
    name = "arith.divf"
    __slots__ = ()
class RemfOp(FloatOp):
    name = "arith.remf"
    __slots__ = ()
# maximumf/minimumf are not commutative: which of +0.0 and -0.0 they return depends on the order.
class MaximumfOp(FloatOp):
    name = "arith.maximumf"
    __slots__ = ()
class MinimumfOp(FloatOp):
    name = "arith.minimumf"
    __slots__ = ()
class NegfOp(FloatUnaryOp):
    name = "arith.negf"
    __slots__ = ()
class AddiOp(IntOp, commutative=True):
    name = "arith.addi"
    __slots__ = ()
class MuliOp(IntOp, commutative=True):
    name = "arith.muli"
    __slots__ = ()
class AndiOp(IntOp, commutative=True):
    name = "arith.andi"
    __slots__ = ()
class OriOp(IntOp, commutative=True):
    name = "arith.ori"
    __slots__ = ()
class XoriOp(IntOp, commutative=True):
    name = "arith.xori"
    __slots__ = ()
class MaxsiOp(IntOp, commutative=True):
    name = "arith.maxsi"
    __slots__ = ()
class MaxuiOp(IntOp, commutative=True):
    name = "arith.maxui"
    __slots__ = ()
class MinsiOp(IntOp, commutative=True):
    name = "arith.minsi"
    __slots__ = ()
class MinuiOp(IntOp, commutative=True):
    name = "arith.minui"
    __slots__ = ()
class SubiOp(IntOp):
    name = "arith.subi"
    __slots__ = ()
class FloordivsiOp(IntOp):
    name = "arith.floordivsi"
    __slots__ = ()
class DivuiOp(IntOp):
    name = "arith.divui"
    __slots__ = ()
class FloormodsiOp(IntOp):
    name = "arith.floormodsi"
    __slots__ = ()
class RemuiOp(IntOp):
    name = "arith.remui"
    __slots__ = ()
# Shift counts outside [0, width) give NumPy's results: 0, or -1 for a negative x >> n.
class ShliOp(IntOp):
    name = "arith.shli"
    __slots__ = ()
class ShrsiOp(IntOp):
    name = "arith.shrsi"
    __slots__ = ()
class ShruiOp(IntOp):
    name = "arith.shrui"
    __slots__ = ()


class CmpfOp(CompareOp):
    name = "arith.cmpf"
    family = FLOAT
    __slots__ = ()
    predicate = attr(one_of(FLOAT_PREDICATES))
class CmpiOp(CompareOp):
    name = "arith.cmpi"
    family = INT
    __slots__ = ()
    predicate = attr(one_of(INT_PREDICATES))


class ExtfOp(CastOp):
    name = "arith.extf"
    source = target = FLOAT
    __slots__ = ()
class TruncfOp(CastOp):
    name = "arith.truncf"
    source = target = FLOAT
    __slots__ = ()
class SitofpOp(CastOp):
    name = "arith.sitofp"
    source, target = INT, FLOAT
    __slots__ = ()
class UitofpOp(CastOp):
    name = "arith.uitofp"
    source, target = INT, FLOAT
    __slots__ = ()
class FptosiOp(CastOp):
    name = "arith.fptosi"
    source, target = FLOAT, INT
    __slots__ = ()
class FptouiOp(CastOp):
    name = "arith.fptoui"
    source, target = FLOAT, INT
    __slots__ = ()
class ExtsiOp(CastOp):
    name = "arith.extsi"
    source = target = INT
    __slots__ = ()
class ExtuiOp(CastOp):
    name = "arith.extui"
    source = target = INT
    __slots__ = ()
class TrunciOp(CastOp):
    name = "arith.trunci"
    source = target = INT
    __slots__ = ()
class BitcastOp(CastOp):
    """The same bits as another type of the same width: integers of either signedness, or a
    float's bits as an integer and back (the radix sort's keys)."""

    name = "arith.bitcast"
    __slots__ = ()

    def fold(self, constants):
        if self.operands[0].type.is_float != self.results[0].type.is_float:
            return None  # folding converts values, not bits
        return super().fold(constants)
