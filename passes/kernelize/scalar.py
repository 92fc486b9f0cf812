"""The scalar meaning of each elementwise ``array`` op on real numbers, as ``arith``/``math`` ops.

Used by ``kernelize`` to build kernel bodies. Where NumPy's semantics need more than one scalar
op (float ``//`` and ``%``, ``sign``, conversions to bool) the sequence is written here, once,
so every backend inherits NumPy's results. Complex numbers are ``complex.py``'s, on top of this.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import ScalarAttr, numpy_dtype
from jitcore.ir.builder import Builder
from jitcore.ir.core import OP_REGISTRY, Value
from jitcore.ir.dialects import arith, math  # noqa: F401  (registers the ops used below)
from jitcore.ir.types import ScalarType, f16, f32, i1

FLOAT_CMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
SIGNED_CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
BITWISE_REDUCE = {"bitand": "arith.andi", "bitor": "arith.ori", "bitxor": "arith.xori"}
UNSIGNED_CMP = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


class ScalarEmitter:
    """Appends scalar ops to a kernel body through ``builder``."""

    def __init__(self, builder: Builder):
        self.b = builder

    def op(self, name: str, *operands: Value, result: ScalarType | None = None, **attrs) -> Value:
        result = result or operands[0].type
        return self.b.create(OP_REGISTRY[name], list(operands), [result], attrs or None).result

    def const(self, value, t: ScalarType) -> Value:
        return self.op("arith.constant", result=t, value=ScalarAttr(value, t))

    def cmp(self, pred: str, x: Value, y: Value) -> Value:
        t = x.type
        if t.is_float:
            return self.op("arith.cmpf", x, y, result=i1, predicate=FLOAT_CMP.get(pred, pred))
        table = UNSIGNED_CMP if t.is_unsigned or t.is_bool else SIGNED_CMP
        return self.op("arith.cmpi", x, y, result=i1, predicate=table.get(pred, pred))

    def select(self, c: Value, a: Value, b: Value) -> Value:
        return self.op("arith.select", c, a, b, result=a.type)

    def isnan(self, x: Value) -> Value:
        return self.op("arith.cmpf", x, x, result=i1, predicate="uno")

    def isinf(self, x: Value) -> Value:
        """i1: the float ``x`` is +-inf."""
        return self.cmp("eq", self.op("math.absf", x), self.const(float("inf"), x.type))

    def isfinite(self, x: Value) -> Value:
        """i1: the float ``x`` is neither inf nor NaN."""
        return self.cmp("lt", self.op("math.absf", x), self.const(float("inf"), x.type))

    @staticmethod
    def family(t: ScalarType) -> str:
        """The kind of arithmetic ``t`` takes: f(loat), b(ool), u(nsigned) or s(igned)."""
        return "f" if t.is_float else "b" if t.is_bool else "u" if t.is_unsigned else "s"

    # -- elementwise array ops -----------------------------------------------------------
    def elementwise(self, kind: str, args: list[Value]) -> Value:
        family = self.family(args[0].type)
        method = getattr(self, f"_{kind}", None)
        if method is not None:
            return method(family, *args)
        if kind in FLOAT_CMP:
            return self.cmp(kind, *args)
        return self.op(f"math.{kind}", *args)  # sin, cos, ..., float only (checked by verifier)

    def _neg(self, fam, x):
        return self.op("arith.negf", x) if fam == "f" else self.op("arith.subi", self.const(0, x.type), x)

    def _abs(self, fam, x):
        if fam in "ub":
            return x
        return self.op("math.absf" if fam == "f" else "math.absi", x)

    def _sign(self, fam, x):
        t = x.type
        zero, one = self.const(0, t), self.const(1, t)
        if fam in "ub":
            return self.select(self.cmp("gt", x, zero), one, zero)
        out = self.select(self.cmp("lt", x, zero), self.const(-1, t), zero)
        out = self.select(self.cmp("gt", x, zero), one, out)
        return self.select(self.isnan(x), x, out) if fam == "f" else out

    def _not(self, fam, x):
        return self.op("arith.xori", x, self.const(True if fam == "b" else -1, x.type))

    def _add(self, fam, x, y):
        return self.op({"f": "arith.addf", "b": "arith.ori"}.get(fam, "arith.addi"), x, y)

    def _sub(self, fam, x, y):
        return self.op("arith.subf" if fam == "f" else "arith.subi", x, y)

    def _mul(self, fam, x, y):
        return self.op({"f": "arith.mulf", "b": "arith.andi"}.get(fam, "arith.muli"), x, y)

    def _div(self, fam, x, y):
        return self.op("arith.divf", x, y)

    def _floordiv(self, fam, x, y):
        if fam == "f":
            return self._float_divmod(x, y)[0]
        return self.op("arith.floordivsi" if fam == "s" else "arith.divui", x, y)

    def _rem(self, fam, x, y):
        if fam == "f":
            return self._float_divmod(x, y)[1]
        return self.op("arith.floormodsi" if fam == "s" else "arith.remui", x, y)

    def _float_divmod(self, a, b):
        """NumPy's float floor_divide and remainder (npy_divmod), NaN and -0.0 included."""
        t = a.type
        if t == f16:  # NumPy's half loops compute in float32 and round each result once
            q, m = self._float_divmod(self.convert(a, f32), self.convert(b, f32))
            return self.convert(q, t), self.convert(m, t)
        zero = self.const(0.0, t)
        mod = self.op("arith.remf", a, b)
        div = self.op("arith.divf", self.op("arith.subf", a, mod), b)
        fix = self.op("arith.andi", self.cmp("ne", mod, zero),
                      self.op("arith.xori", self.cmp("lt", b, zero), self.cmp("lt", mod, zero)))
        mod = self.select(fix, self.op("arith.addf", mod, b), self.select(
            self.cmp("ne", mod, zero), mod, self.op("math.copysign", zero, b)))
        div = self.select(fix, self.op("arith.subf", div, self.const(1.0, t)), div)
        floor = self.op("math.floor", div)
        rounded = self.select(self.cmp("gt", self.op("arith.subf", div, floor), self.const(0.5, t)),
                              self.op("arith.addf", floor, self.const(1.0, t)), floor)
        quotient = self.op("arith.divf", a, b)
        floordiv = self.select(self.cmp("ne", div, zero), rounded, self.op("math.copysign", zero, quotient))
        floordiv = self.select(self.cmp("eq", b, zero), quotient, floordiv)
        return floordiv, mod

    def _pow(self, fam, x, y):
        return self.op("math.powf" if fam == "f" else "math.ipowi", x, y)

    def _max(self, fam, x, y):
        return self._minmax("max", fam, x, y)

    def _min(self, fam, x, y):
        return self._minmax("min", fam, x, y)

    def _minmax(self, which, fam, x, y):
        if fam == "f":
            return self.op(f"arith.{which}imumf", x, y)
        if fam == "b":
            return self.op("arith.ori" if which == "max" else "arith.andi", x, y)
        return self.op(f"arith.{which}{'si' if fam == 's' else 'ui'}", x, y)

    def _and(self, fam, x, y):
        return self.op("arith.andi", x, y)

    def _or(self, fam, x, y):
        return self.op("arith.ori", x, y)

    def _xor(self, fam, x, y):
        return self.op("arith.xori", x, y)

    def _shl(self, fam, x, y):
        return self.op("arith.shli", x, y)

    def _shr(self, fam, x, y):
        return self.op("arith.shrsi" if fam == "s" else "arith.shrui", x, y)

    def _isnan(self, fam, x):
        return self.isnan(x) if fam == "f" else self.const(False, i1)

    def _isinf(self, fam, x):
        return self.isinf(x) if fam == "f" else self.const(False, i1)

    def _isfinite(self, fam, x):
        return self.isfinite(x) if fam == "f" else self.const(True, i1)

    def _signbit(self, fam, x):
        """The sign bit, read from the bits (so -0.0 and -nan count, as in NumPy)."""
        if fam == "f":
            bits = self.op("arith.bitcast", x, result=ScalarType(f"i{x.type.bitwidth}"))
            return self.cmp("lt", bits, self.const(0, bits.type))
        if fam == "s":
            return self.cmp("lt", x, self.const(0, x.type))
        return self.const(False, i1)

    def _select(self, fam, c, a, b):
        return self.select(c, a, b)

    # -- ufuncs built from the ops above ---------------------------------------------------
    def _fmod(self, fam, x, y):
        """C's fmod: the remainder takes the dividend's sign; an integer x fmod 0 is 0 (NumPy's,
        which warns), and INT_MIN fmod -1 is 0."""
        if fam == "f":
            return self.op("arith.remf", x, y)
        if fam != "s":
            return self.op("arith.remui", x, y)
        r = self.op("arith.floormodsi", x, y)  # the divisor's sign; never overflows
        zero = self.const(0, x.type)
        flip = self.op("arith.andi", self.cmp("ne", r, zero),
                       self.cmp("lt", self.op("arith.xori", r, x), zero))
        return self.select(flip, self.op("arith.subi", r, y), r)

    def _fmax(self, fam, x, y):
        return self._nan_ignoring("max", fam, x, y)

    def _fmin(self, fam, x, y):
        return self._nan_ignoring("min", fam, x, y)

    def _nan_ignoring(self, which, fam, x, y):
        """np.fmax / np.fmin: a NaN loses to a number. A tie of 0.0 and -0.0 gives the second
        operand (NumPy's float32/64 SIMD loops; its other paths differ), the first for float16
        (NumPy's float16 loop, always)."""
        if fam != "f":
            return self._minmax(which, fam, x, y)
        pred = ("g" if which == "max" else "l") + ("e" if x.type.bitwidth == 16 else "t")
        return self.select(self.op("arith.ori", self.cmp(pred, x, y), self.isnan(y)), x, y)

    def _heaviside(self, fam, x, h0):
        """NumPy's: NaN for a NaN x, h0 where x == 0, else 0 (x < 0) or 1 (x > 0)."""
        t = x.type
        zero = self.const(0.0, t)
        out = self.select(self.cmp("lt", x, zero), zero, self.const(1.0, t))
        out = self.select(self.cmp("eq", x, zero), h0, out)
        return self.select(self.isnan(x), self.const(float("nan"), t), out)

    def _magnitudes(self, fam, x, y):
        """|x| and |y| as unsigned bits (|INT_MIN| is INT_MIN's bits, 2**(n-1)), as NumPy's
        signed gcd and lcm take them."""
        if fam != "s":
            return x, y
        return self.op("math.absi", x), self.op("math.absi", y)

    def _gcd(self, fam, x, y):
        return self.op("math.gcdui", *self._magnitudes(fam, x, y))

    def _lcm(self, fam, x, y):
        """NumPy's |x| / gcd * |y| in unsigned arithmetic (wrapping); 0 when both are 0."""
        a, b = self._magnitudes(fam, x, y)
        return self.op("arith.muli", self.op("arith.divui", a, self.op("math.gcdui", a, b)), b)

    def _popcount(self, fam, x):
        """np.bitwise_count: the set bits of |x| (|INT_MIN| has one)."""
        return self.op("math.ctpop", self.op("math.absi", x) if fam == "s" else x)

    # -- conversions ---------------------------------------------------------------------
    def convert(self, x: Value, dst: ScalarType) -> Value:
        """NumPy ``astype`` between real types: wrapping integer casts, truth tests for bool,
        x86 float→int."""
        src = x.type
        if src == dst:
            return x
        if dst.is_bool:
            return self.cmp("ne", x, self.const(0, src))
        if src.is_bool:
            return self.op("arith.uitofp" if dst.is_float else "arith.extui", x, result=dst)
        if src.is_float and dst.is_float:
            return self.op("arith.extf" if dst.bitwidth > src.bitwidth else "arith.truncf", x, result=dst)
        if dst.is_float:
            return self.op("arith.uitofp" if src.is_unsigned else "arith.sitofp", x, result=dst)
        if src.is_float:
            return self.op("arith.fptoui" if dst.is_unsigned else "arith.fptosi", x, result=dst)
        if dst.bitwidth > src.bitwidth:
            return self.op("arith.extui" if src.is_unsigned else "arith.extsi", x, result=dst)
        if dst.bitwidth < src.bitwidth:
            return self.op("arith.trunci", x, result=dst)
        return self.op("arith.bitcast", x, result=dst)

    # -- reductions ----------------------------------------------------------------------
    def combine(self, kind: str, acc: Value, x: Value) -> Value:
        family = self.family(x.type)
        if kind == "sum":
            return self._add(family, acc, x)
        if kind == "prod":
            return self._mul(family, acc, x)
        if kind in ("max", "min"):
            # NumPy reduces with its elementwise rule, accumulator first: ties of 0.0 and -0.0
            # resolve as in np.maximum(acc, x), and a NaN on either side stays NaN.
            return self._minmax(kind, family, acc, x)
        if kind in BITWISE_REDUCE:
            return self.op(BITWISE_REDUCE[kind], acc, x)
        return self.op("arith.andi" if kind == "and" else "arith.ori", acc, x)


def reduction_init(kind: str, t: ScalarType) -> ScalarAttr:
    """The identity of a reduction: where an empty reduction starts."""
    if kind == "bitand":
        return ScalarAttr(True if t.is_bool else -1, t)  # all bits set
    if kind in BITWISE_REDUCE:
        return ScalarAttr(0, t)
    if kind in ("sum", "or"):
        return ScalarAttr(0, t)
    if kind in ("prod", "and"):
        return ScalarAttr(1, t)
    if t.is_float:
        return ScalarAttr(float("-inf") if kind == "max" else float("inf"), t)
    if t.is_complex:  # below (above) every number in NumPy's lexicographic order
        inf = float("-inf") if kind == "max" else float("inf")
        return ScalarAttr(complex(inf, inf), t)
    if t.is_bool:
        return ScalarAttr(kind == "min", t)
    info = np.iinfo(numpy_dtype(t))
    return ScalarAttr(info.min if kind == "max" else info.max, t)
