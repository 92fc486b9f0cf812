"""The elementwise ops of the ``array`` dialect: the unary, binary and compare families (one
short class per op on the family's base), ``select``, ``convert``, ``bitcast`` and ``complex``.

Elementwise ops take operands of one identical type: the tracer makes broadcasting
(``array.broadcast_in_dim``) and type promotion (``array.convert``) explicit, as a jaxpr does.
Each op's NumPy meaning is written down once, in ``NUMPY_UFUNCS``, and serves both constant
folding here and the reference semantics the code generator must match.
"""

from __future__ import annotations

import math

import numpy as np

from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import ELEMENTWISE, PURE
from jitcore.ir.dialects.array.base import ArrayOp, constant_array, fold_numpy, is_splat, splat_value
from jitcore.ir.opdef import attr, of
from jitcore.ir.types import ScalarType, i1

# Float functions named as in NumPy; each is a ``math`` op of the same name in kernel bodies.
FLOAT_FUNCTIONS = {
    name: getattr(np, name) for name in (
        "sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "floor", "ceil", "trunc", "rint",
        "exp2", "expm1", "log2", "log10", "log1p", "cbrt", "sinh", "cosh", "arcsin", "arccos",
        "arctan", "arcsinh", "arccosh", "arctanh")
}


def _math_function(name: str):
    """``math.<name>`` elementwise in the operand's dtype, with C99's values where ``math``
    raises (tgamma and lgamma at their poles): the meaning of the ops that NumPy has no ufunc
    for, which jitcore's ``math.erf(x)`` and ``np.vectorize(math.gamma)`` compute."""
    fn = getattr(math, name)

    def at(v: float) -> float:
        try:
            return fn(v)
        except ValueError:  # a pole or -inf: tgamma's +-inf at +-0, else NaN; lgamma's +inf
            if name == "lgamma":
                return math.inf
            return math.copysign(math.inf, v) if v == 0 else math.nan
        except OverflowError:
            return math.inf if name == "lgamma" else math.copysign(math.inf, v)

    def apply(x):
        x = np.asarray(x)
        return np.vectorize(at, otypes=[np.float64])(x).astype(x.dtype)

    apply.__name__ = name
    return apply


# Special functions without a NumPy ufunc (Python's ``math`` has them): ``math`` ops too.
SPECIAL_FUNCTIONS = {name: _math_function(name) for name in ("erf", "erfc", "gamma", "lgamma")}
FLOAT_FUNCTIONS.update(SPECIAL_FUNCTIONS)
# ``popcount`` is np.bitwise_count in the operand's own type; the tracer converts it to uint8.
INTEGER_UNARY = {"popcount": np.bitwise_count}
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,  # -> i1
              "signbit": np.signbit}  # the sign bit itself: -0.0 and -nan too
# Complex numbers: parts, conjugate and reciprocal (floats compute 1 / x instead), and the ops
# below that NumPy defines for complex too; ``abs``, ``real`` and ``imag`` return the part type.
COMPLEX_ONLY = {"real": np.real, "imag": np.imag, "conj": np.conjugate, "reciprocal": np.reciprocal}
UNARY = {
    "neg": np.negative, "abs": np.absolute, "sign": np.sign, "not": np.invert,
    **FLOAT_FUNCTIONS, **PREDICATES, **COMPLEX_ONLY, **INTEGER_UNARY,
}
FLOAT_BINARY = {"arctan2": np.arctan2, "hypot": np.hypot, "logaddexp": np.logaddexp,
                "logaddexp2": np.logaddexp2, "heaviside": np.heaviside}
FLOAT_ONLY = frozenset({*FLOAT_FUNCTIONS, *FLOAT_BINARY, "div"})
BITWISE = frozenset({"not", "and", "or", "xor", "shl", "shr"})  # integers and bools only, as in NumPy
INTEGER_FUNCTIONS = frozenset({"gcd", "lcm", "popcount"})  # integers only, as in NumPy


def _nan_ignoring(fn):
    """``np.fmax`` / ``np.fmin`` with one answer for +0.0 against -0.0, the kernels': the second
    operand, the first for float16. NumPy's own float32/64 answer depends on where the element
    falls in its SIMD loop (the vector body returns the second, the remainder the first)."""
    def apply(x, y):
        out = np.asarray(fn(x, y))
        if out.dtype.kind == "f":
            tie = (x == y) & (np.signbit(x) != np.signbit(y))
            out = np.where(tie, x if out.dtype == np.float16 else y, out)
        return out
    return apply


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": np.floor_divide, "rem": np.remainder, "pow": np.power,
    "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "shl": np.left_shift, "shr": np.right_shift, **FLOAT_BINARY,
    "fmod": np.fmod, "fmax": _nan_ignoring(np.fmax), "fmin": _nan_ignoring(np.fmin),
    "gcd": np.gcd, "lcm": np.lcm,
}
COMPLEX_KINDS = frozenset({*COMPLEX_ONLY, "add", "sub", "mul", "div", "neg", "abs", "exp", "sqrt",
                           "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite",
                           "max", "min", "fmax", "fmin",
                           "sign", "log", "log2", "log10", "log1p", "exp2", "pow", "rint", "expm1",
                           "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
                           "arcsinh", "arccosh", "arctanh"})
COMPLEX_TO_PART = frozenset({"abs", "real", "imag"})
COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}
NUMPY_UFUNCS = {**UNARY, **BINARY, **COMPARE}


class ElementwiseOp(ArrayOp):
    """Base of the elementwise families below; ``kind`` (the name without ``array.``) is the
    key of the op's NumPy meaning in ``NUMPY_UFUNCS``."""

    __slots__ = ()
    traits = frozenset({PURE, ELEMENTWISE})
    kind = ""
    arity = (1, 1)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            cls.kind = cls.name.removeprefix("array.")

    def check(self) -> None:
        t = self.operands[0].type
        if any(v.type != t for v in self.operands):
            self.fail("needs operands of one type (broadcast and convert first)")
        if t.element.is_complex:
            if self.kind not in COMPLEX_KINDS:
                self.fail(f"is not defined for complex numbers, got {t.element}")
        elif self.kind in FLOAT_ONLY and not t.element.is_float:
            self.fail(f"needs a float element type, got {t.element}")
        elif self.kind in COMPLEX_ONLY:
            self.fail(f"needs a complex element type, got {t.element}")
        if (self.kind in BITWISE or self.kind in INTEGER_FUNCTIONS) and t.element.is_float:
            self.fail(f"needs an integer or bool element type, got {t.element}")
        expected = t.with_element(i1) if self.kind in COMPARE or self.kind in PREDICATES else t
        if t.element.is_complex and self.kind in COMPLEX_TO_PART:
            expected = t.with_element(t.element.component)
        if self.result_type != expected:
            self.fail(f"must return {expected}")

    def fold(self, constants):
        arrays = [constant_array(c) for c in constants]
        return fold_numpy(NUMPY_UFUNCS[self.kind], arrays, self.result_type)


class UnaryOp(ElementwiseOp):
    __slots__ = ()

    def fold(self, constants):
        inner = getattr(self.operands[0], "op", None)
        if self.kind == "neg" and isinstance(inner, UnaryOp) and inner.kind == "neg":
            return [inner.operands[0]]
        if self.kind in ("real", "imag") and isinstance(inner, ComplexOp):  # a part put in, read out
            return [inner.operands[0 if self.kind == "real" else 1]]
        return super().fold(constants)


class BinaryOp(ElementwiseOp):
    __slots__ = ()
    arity = (2, 1)

    def fold(self, constants):
        x, y = self.operands
        if x.type.element.is_complex:
            return super().fold(constants)  # x * 1 and x + 0 are not exact (inf * 0 in a part)
        is_float = x.type.element.is_float
        if self.kind in ("add", "or", "xor") or (self.kind == "sub" and not is_float):
            # x + 0 → x for integers; for floats only x + (-0.0) is exact (x = -0.0).
            if is_splat(y, 0, negative_zero=True if is_float and self.kind == "add" else None):
                return [x]
        if self.kind == "sub" and is_float and is_splat(y, 0, negative_zero=False):
            return [x]  # x - (+0.0) is x for every x, -0.0 and NaN included
        if self.kind in ("mul", "div") and is_splat(y, 1):
            return [x]
        if self.kind in ("mul", "and") and not is_float and is_splat(y, 0):
            return [y]  # x * 0 and x & 0 (False) are 0 for integers and booleans
        if self.kind in ("max", "min", "and", "or") and x is y:
            return [x]
        return super().fold(constants)


class CompareOp(ElementwiseOp):
    __slots__ = ()
    arity = (2, 1)


# One class per op, grouped by family; each family's ops, keyed by kind, are in UNARY_OPS,
# BINARY_OPS and COMPARE_OPS (tests/ir check these cover UNARY, BINARY and COMPARE).
class NegOp(UnaryOp):
    name = "array.neg"
    __slots__ = ()
class AbsOp(UnaryOp):
    name = "array.abs"
    __slots__ = ()
class SignOp(UnaryOp):
    name = "array.sign"
    __slots__ = ()
class NotOp(UnaryOp):
    name = "array.not"
    __slots__ = ()
class SinOp(UnaryOp):
    name = "array.sin"
    __slots__ = ()
class CosOp(UnaryOp):
    name = "array.cos"
    __slots__ = ()
class TanOp(UnaryOp):
    name = "array.tan"
    __slots__ = ()
class TanhOp(UnaryOp):
    name = "array.tanh"
    __slots__ = ()
class ExpOp(UnaryOp):
    name = "array.exp"
    __slots__ = ()
class LogOp(UnaryOp):
    name = "array.log"
    __slots__ = ()
class SqrtOp(UnaryOp):
    name = "array.sqrt"
    __slots__ = ()
class FloorOp(UnaryOp):
    name = "array.floor"
    __slots__ = ()
class CeilOp(UnaryOp):
    name = "array.ceil"
    __slots__ = ()
class TruncOp(UnaryOp):
    name = "array.trunc"
    __slots__ = ()
class RintOp(UnaryOp):
    name = "array.rint"
    __slots__ = ()
class Exp2Op(UnaryOp):
    name = "array.exp2"
    __slots__ = ()
class Expm1Op(UnaryOp):
    name = "array.expm1"
    __slots__ = ()
class Log2Op(UnaryOp):
    name = "array.log2"
    __slots__ = ()
class Log10Op(UnaryOp):
    name = "array.log10"
    __slots__ = ()
class Log1pOp(UnaryOp):
    name = "array.log1p"
    __slots__ = ()
class CbrtOp(UnaryOp):
    name = "array.cbrt"
    __slots__ = ()
class SinhOp(UnaryOp):
    name = "array.sinh"
    __slots__ = ()
class CoshOp(UnaryOp):
    name = "array.cosh"
    __slots__ = ()
class ArcsinOp(UnaryOp):
    name = "array.arcsin"
    __slots__ = ()
class ArccosOp(UnaryOp):
    name = "array.arccos"
    __slots__ = ()
class ArctanOp(UnaryOp):
    name = "array.arctan"
    __slots__ = ()
class ArcsinhOp(UnaryOp):
    name = "array.arcsinh"
    __slots__ = ()
class ArccoshOp(UnaryOp):
    name = "array.arccosh"
    __slots__ = ()
class ArctanhOp(UnaryOp):
    name = "array.arctanh"
    __slots__ = ()
class ErfOp(UnaryOp):
    name = "array.erf"
    __slots__ = ()
class ErfcOp(UnaryOp):
    name = "array.erfc"
    __slots__ = ()
class GammaOp(UnaryOp):
    name = "array.gamma"
    __slots__ = ()
class LgammaOp(UnaryOp):
    name = "array.lgamma"
    __slots__ = ()
class IsnanOp(UnaryOp):
    name = "array.isnan"
    __slots__ = ()
class IsinfOp(UnaryOp):
    name = "array.isinf"
    __slots__ = ()
class IsfiniteOp(UnaryOp):
    name = "array.isfinite"
    __slots__ = ()
class SignbitOp(UnaryOp):
    name = "array.signbit"
    __slots__ = ()
class RealOp(UnaryOp):
    name = "array.real"
    __slots__ = ()
class ImagOp(UnaryOp):
    name = "array.imag"
    __slots__ = ()
class ConjOp(UnaryOp):
    name = "array.conj"
    __slots__ = ()
class ReciprocalOp(UnaryOp):
    name = "array.reciprocal"
    __slots__ = ()
class PopcountOp(UnaryOp):
    name = "array.popcount"
    __slots__ = ()


class AddOp(BinaryOp, commutative=True):
    name = "array.add"
    __slots__ = ()
class SubOp(BinaryOp):
    name = "array.sub"
    __slots__ = ()
class MulOp(BinaryOp, commutative=True):
    name = "array.mul"
    __slots__ = ()
class DivOp(BinaryOp):
    name = "array.div"
    __slots__ = ()
class FloordivOp(BinaryOp):
    name = "array.floordiv"
    __slots__ = ()
class RemOp(BinaryOp):
    name = "array.rem"
    __slots__ = ()
class PowOp(BinaryOp):
    """``x ** y``; ``libm`` (floats, 0-d): as NumPy's scalar math (``np.float64(x) ** 2``) and
    Python's float power compute it, by the C library's ``pow``, not NumPy's array loop
    (``math.powf``'s ``libm``)."""
    name = "array.pow"
    __slots__ = ()
    libm = attr(of(bool), optional=True, default=False)

    def fold(self, constants):
        if not self.libm:
            return super().fold(constants)
        arrays = [constant_array(c) for c in constants]  # NumPy's scalars: their power is pow's
        return fold_numpy(lambda x, y: x[()] ** y[()], arrays, self.result_type)
# max/min are not commutative: which of -0.0 and 0.0 a float maximum returns depends on the
# operands' order.
class MaxOp(BinaryOp):
    name = "array.max"
    __slots__ = ()
class MinOp(BinaryOp):
    name = "array.min"
    __slots__ = ()
class AndOp(BinaryOp, commutative=True):
    name = "array.and"
    __slots__ = ()
class OrOp(BinaryOp, commutative=True):
    name = "array.or"
    __slots__ = ()
class XorOp(BinaryOp, commutative=True):
    name = "array.xor"
    __slots__ = ()
class ShlOp(BinaryOp):
    name = "array.shl"
    __slots__ = ()
class ShrOp(BinaryOp):
    name = "array.shr"
    __slots__ = ()
class Arctan2Op(BinaryOp):
    name = "array.arctan2"
    __slots__ = ()
class HypotOp(BinaryOp):
    name = "array.hypot"
    __slots__ = ()
class LogaddexpOp(BinaryOp):
    name = "array.logaddexp"
    __slots__ = ()
class Logaddexp2Op(BinaryOp):
    name = "array.logaddexp2"
    __slots__ = ()
class HeavisideOp(BinaryOp):
    name = "array.heaviside"
    __slots__ = ()
class FmodOp(BinaryOp):
    name = "array.fmod"
    __slots__ = ()
class FmaxOp(BinaryOp):
    name = "array.fmax"
    __slots__ = ()
class FminOp(BinaryOp):
    name = "array.fmin"
    __slots__ = ()
class GcdOp(BinaryOp):
    name = "array.gcd"
    __slots__ = ()
class LcmOp(BinaryOp):
    name = "array.lcm"
    __slots__ = ()


class EqOp(CompareOp, commutative=True):
    name = "array.eq"
    __slots__ = ()
class NeOp(CompareOp, commutative=True):
    name = "array.ne"
    __slots__ = ()
class LtOp(CompareOp):
    name = "array.lt"
    __slots__ = ()
class LeOp(CompareOp):
    name = "array.le"
    __slots__ = ()
class GtOp(CompareOp):
    name = "array.gt"
    __slots__ = ()
class GeOp(CompareOp):
    name = "array.ge"
    __slots__ = ()


UNARY_OPS = {cls.kind: cls for cls in UnaryOp.__subclasses__()}
BINARY_OPS = {cls.kind: cls for cls in BinaryOp.__subclasses__()}
COMPARE_OPS = {cls.kind: cls for cls in CompareOp.__subclasses__()}


class SelectOp(ArrayOp):
    """``select(cond, a, b)``: ``a`` where ``cond`` is true, else ``b``; all one shape."""

    name = "array.select"
    traits = frozenset({PURE, ELEMENTWISE})
    __slots__ = ()
    arity = (3, 1)

    def check(self) -> None:
        c, a, b = self.operands
        if c.type.element != i1 or c.type.shape != a.type.shape:
            self.fail("needs an i1 condition of the same shape as the values")
        if a.type != b.type or self.result_type != a.type:
            self.fail("needs both values and the result of one type")

    def fold(self, constants):
        c, a, b = self.operands
        if a is b:
            return [a]
        if splat_value(c) is not None:
            return [a if splat_value(c) else b]
        return fold_numpy(np.where, [constant_array(x) for x in constants], self.result_type)


class ConvertOp(ArrayOp):
    """Element type conversion with NumPy's ``astype`` semantics (wrapping for integers)."""

    name = "array.convert"
    traits = frozenset({PURE, ELEMENTWISE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        if self.result_type.shape != self.operands[0].type.shape:
            self.fail("cannot change the shape")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = constant_array(constants[0])
        if arr is None or (arr.dtype.kind == "f" and self.result_type.element.is_integer):
            return None  # float→int of NaN/inf differs by platform: let codegen define it
        return fold_numpy(lambda a: a.astype(numpy_dtype(self.result_type.element)), [arr], self.result_type)


class BitcastOp(ArrayOp):
    """Each element's bits read as another type of the same width (``x.view(dtype)``)."""

    name = "array.bitcast"
    traits = frozenset({PURE, ELEMENTWISE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        src, dst = self.operands[0].type, self.result_type
        if dst.shape != src.shape:
            self.fail("cannot change the shape")
        for t in (src.element, dst.element):
            if t.is_bool or t.is_complex or t.name == "index":
                self.fail(f"cannot reinterpret the bits of {t}")
        if dst.element.bitwidth != src.element.bitwidth:
            self.fail("needs element types of one width")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = constant_array(constants[0])
        if arr is None:
            return None
        dtype = numpy_dtype(self.result_type.element)
        return fold_numpy(lambda a: a.copy().view(dtype), [arr], self.result_type)


class ComplexOp(ArrayOp):
    """``complex(re, im)``: the complex array with parts ``re`` and ``im`` (two float arrays of
    one type), exactly: no arithmetic touches the parts, so ``inf``, NaN and -0.0 stay where
    they are (``re + 1j * im`` is a product in NumPy: ``1j * inf`` has a NaN real part). With
    ``array.real``/``array.imag`` it lets complex code work on the float parts."""

    name = "array.complex"
    traits = frozenset({PURE, ELEMENTWISE})
    __slots__ = ()
    arity = (2, 1)

    def check(self) -> None:
        re, im = (v.type for v in self.operands)
        if re != im or not re.element.is_float:
            self.fail(f"needs two float parts of one type, got {re} and {im}")
        if self.result_type != re.with_element(ir_complex(re.element)):
            self.fail(f"must return {re.with_element(ir_complex(re.element))}")

    def fold(self, constants):
        dtype = numpy_dtype(self.result_type.element)
        return fold_numpy(lambda re, im: _from_parts(re, im, dtype), [constant_array(c) for c in constants],
                          self.result_type)


def ir_complex(part):
    """The complex scalar type with float parts of type ``part``."""
    return ScalarType(f"complex<{part}>")


def _from_parts(re: np.ndarray, im: np.ndarray, dtype) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), dtype)
    out.real, out.imag = re, im
    return out
