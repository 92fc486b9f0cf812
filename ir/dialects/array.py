"""The ``array`` dialect: tensor-level ops, one per primitive, like a jaxpr.

Elementwise ops take operands of one identical type: the tracer makes broadcasting
(``array.broadcast_in_dim``) and type promotion (``array.convert``) explicit, as a jaxpr does.
Each op's NumPy meaning is written down once, in ``NUMPY_UFUNCS``, and serves both constant
folding here and the reference semantics the code generator must match.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr, numpy_dtype
from jitcore.ir.core import ELEMENTWISE, PURE, Operation, Value
from jitcore.ir.types import TensorType, i1

# Folding evaluates constants in NumPy; above this many elements it is not worth the compile time.
FOLD_LIMIT = 1 << 16

# Float functions named as in NumPy; each is a ``math`` op of the same name in kernel bodies.
FLOAT_FUNCTIONS = {
    name: getattr(np, name) for name in (
        "sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "floor", "ceil", "trunc", "rint",
        "exp2", "expm1", "log2", "log10", "log1p", "cbrt", "sinh", "cosh", "arcsin", "arccos",
        "arctan", "arcsinh", "arccosh", "arctanh")
}
# ``popcount`` is np.bitwise_count in the operand's own type; the tracer converts it to uint8.
INTEGER_UNARY = {"popcount": np.bitwise_count}
PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}  # -> i1
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
                           "eq", "ne", "lt", "le", "gt", "ge", *PREDICATES, "max", "min", "fmax", "fmin",
                           "sign", "log", "log2", "log10", "log1p", "exp2", "pow", "rint"})
COMPLEX_TO_PART = frozenset({"abs", "real", "imag"})
COMPARE = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
}
REDUCE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
          "and": np.logical_and, "or": np.logical_or}
# np.bitwise_and.reduce and friends, on integers and bools ("and"/"or" above are logical).
REDUCE.update({"bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor})
NUMPY_UFUNCS = {**UNARY, **BINARY, **COMPARE}


def _constant_array(attr) -> np.ndarray | None:
    if isinstance(attr, DenseAttr) and attr.array.size <= FOLD_LIMIT:
        return attr.array
    return None


def _splat_value(v: Value):
    """The single value of a splat ``array.constant`` operand, else None."""
    op = getattr(v, "op", None)
    if isinstance(op, ConstantOp) and op.value.is_splat:
        return op.value.array.reshape(-1)[0]
    return None


def _is_splat(v: Value, number: float, negative_zero: bool | None = None) -> bool:
    s = _splat_value(v)
    if s is None or s != number:
        return False
    return negative_zero is None or bool(np.signbit(s)) == negative_zero


def _fold_numpy(fn, arrays: list, result_type: TensorType):
    if any(a is None for a in arrays):
        return None
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*arrays))
    except (ValueError, ArithmeticError, TypeError):
        return None  # e.g. integers to negative powers: leave it to run time
    return [DenseAttr(out.astype(numpy_dtype(result_type.element)), result_type)]


class ArrayOp(Operation):
    """Base of the dialect's ops: tensor results, verified by ``check``."""

    __slots__ = ()

    @property
    def result_type(self) -> TensorType:
        return self.results[0].type

    def verify_op(self) -> None:
        if any(not isinstance(v.type, TensorType) for v in (*self.operands, *self.results)):
            self.fail("takes and returns tensors only")
        self.check()

    def check(self) -> None:
        """Op-specific rules."""

    def need(self, operands: int, results: int = 1) -> None:
        if len(self.operands) != operands or len(self.results) != results:
            self.fail(f"needs {operands} operand(s) and {results} result(s)")


class ElementwiseOp(ArrayOp):
    """Base of the elementwise families below; ``kind`` (the name without ``array.``) is the
    key of the op's NumPy meaning in ``NUMPY_UFUNCS``."""

    __slots__ = ()
    traits = frozenset({PURE, ELEMENTWISE})
    kind = ""
    arity = 1

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            cls.kind = cls.name.removeprefix("array.")

    def check(self) -> None:
        self.need(self.arity)
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
        arrays = [_constant_array(c) for c in constants]
        return _fold_numpy(NUMPY_UFUNCS[self.kind], arrays, self.result_type)


class UnaryOp(ElementwiseOp):
    __slots__ = ()

    def fold(self, constants):
        inner = getattr(self.operands[0], "op", None)
        if self.kind == "neg" and isinstance(inner, UnaryOp) and inner.kind == "neg":
            return [inner.operands[0]]
        return super().fold(constants)


class BinaryOp(ElementwiseOp):
    __slots__ = ()
    arity = 2

    def fold(self, constants):
        x, y = self.operands
        if x.type.element.is_complex:
            return super().fold(constants)  # x * 1 and x + 0 are not exact (inf * 0 in a part)
        is_float = x.type.element.is_float
        if self.kind in ("add", "or", "xor") or (self.kind == "sub" and not is_float):
            # x + 0 → x for integers; for floats only x + (-0.0) is exact (x = -0.0).
            if _is_splat(y, 0, negative_zero=True if is_float and self.kind == "add" else None):
                return [x]
        if self.kind == "sub" and is_float and _is_splat(y, 0, negative_zero=False):
            return [x]  # x - (+0.0) is x for every x, -0.0 and NaN included
        if self.kind in ("mul", "div") and _is_splat(y, 1):
            return [x]
        if self.kind == "mul" and not is_float and _is_splat(y, 0):
            return [y]
        if self.kind in ("max", "min", "and", "or") and x is y:
            return [x]
        return super().fold(constants)


class CompareOp(ElementwiseOp):
    __slots__ = ()
    arity = 2


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
class IsnanOp(UnaryOp):
    name = "array.isnan"
    __slots__ = ()
class IsinfOp(UnaryOp):
    name = "array.isinf"
    __slots__ = ()
class IsfiniteOp(UnaryOp):
    name = "array.isfinite"
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
    name = "array.pow"
    __slots__ = ()
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

    def check(self) -> None:
        self.need(3)
        c, a, b = self.operands
        if c.type.element != i1 or c.type.shape != a.type.shape:
            self.fail("needs an i1 condition of the same shape as the values")
        if a.type != b.type or self.result_type != a.type:
            self.fail("needs both values and the result of one type")

    def fold(self, constants):
        c, a, b = self.operands
        if a is b:
            return [a]
        if _splat_value(c) is not None:
            return [a if _splat_value(c) else b]
        return _fold_numpy(np.where, [_constant_array(x) for x in constants], self.result_type)


class ConvertOp(ArrayOp):
    """Element type conversion with NumPy's ``astype`` semantics (wrapping for integers)."""

    name = "array.convert"
    traits = frozenset({PURE, ELEMENTWISE})
    __slots__ = ()

    def check(self) -> None:
        self.need(1)
        if self.result_type.shape != self.operands[0].type.shape:
            self.fail("cannot change the shape")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = _constant_array(constants[0])
        if arr is None or (arr.dtype.kind == "f" and self.result_type.element.is_integer):
            return None  # float→int of NaN/inf differs by platform: let codegen define it
        return _fold_numpy(lambda a: a.astype(numpy_dtype(self.result_type.element)), [arr], self.result_type)


class BroadcastInDimOp(ArrayOp):
    """Operand dim ``i`` becomes result dim ``broadcast_dimensions[i]``; size-1 dims stretch."""

    name = "array.broadcast_in_dim"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def broadcast_dimensions(self) -> tuple[int, ...]:
        return self.attributes["broadcast_dimensions"]

    def check(self) -> None:
        self.need(1)
        src, out = self.operands[0].type, self.result_type
        dims = self.attributes.get("broadcast_dimensions")
        if not isinstance(dims, tuple) or len(dims) != src.rank:
            self.fail("needs 'broadcast_dimensions' with one entry per operand dim")
        if src.element != out.element:
            self.fail("cannot change the element type")
        if list(dims) != sorted(set(dims)) or any(not 0 <= d < out.rank for d in dims):
            self.fail("needs strictly increasing broadcast_dimensions within the result rank")
        for i, d in enumerate(dims):
            if src.shape[i] not in (1, out.shape[d]):
                self.fail(f"operand dim {i} of size {src.shape[i]} cannot broadcast to {out.shape[d]}")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = _constant_array(constants[0])
        if arr is None or self.result_type.size > FOLD_LIMIT:
            return None
        expanded = [1] * self.result_type.rank
        for i, d in enumerate(self.broadcast_dimensions):
            expanded[d] = arr.shape[i]
        out = np.broadcast_to(arr.reshape(expanded), self.result_type.shape)
        return [DenseAttr(out, self.result_type)]


class ReshapeOp(ArrayOp):
    name = "array.reshape"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        self.need(1)
        src = self.operands[0].type
        if src.size != self.result_type.size or src.element != self.result_type.element:
            self.fail(f"cannot reshape {src} to {self.result_type}")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = _constant_array(constants[0])
        return None if arr is None else [DenseAttr(arr.reshape(self.result_type.shape), self.result_type)]


class TransposeOp(ArrayOp):
    """Result dim ``i`` is operand dim ``permutation[i]``."""

    name = "array.transpose"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def permutation(self) -> tuple[int, ...]:
        return self.attributes["permutation"]

    def check(self) -> None:
        self.need(1)
        src = self.operands[0].type
        perm = self.attributes.get("permutation")
        if not isinstance(perm, tuple) or sorted(perm) != list(range(src.rank)):
            self.fail(f"needs a 'permutation' of 0..{src.rank - 1}")
        if self.result_type != src.with_shape(src.shape[p] for p in perm):
            self.fail("result type does not match the permuted operand")

    def fold(self, constants):
        if self.permutation == tuple(range(len(self.permutation))):
            return [self.operands[0]]
        arr = _constant_array(constants[0])
        return None if arr is None else [DenseAttr(arr.transpose(self.permutation), self.result_type)]


class ReduceOp(ArrayOp):
    """Reduce ``axes`` away with ``kind`` (sum, prod, max, min, and, or); NaN propagates."""

    name = "array.reduce"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def kind(self) -> str:
        return self.attributes["kind"]

    @property
    def axes(self) -> tuple[int, ...]:
        return self.attributes["axes"]

    def check(self) -> None:
        self.need(1)
        src = self.operands[0].type
        if self.attributes.get("kind") not in REDUCE:
            self.fail(f"needs 'kind' in {sorted(REDUCE)}")
        axes = self.attributes.get("axes")
        if not isinstance(axes, tuple) or list(axes) != sorted(set(axes)) or any(
            not 0 <= a < src.rank for a in axes
        ):
            self.fail("needs strictly increasing 'axes' within the operand rank")
        kept = tuple(d for i, d in enumerate(src.shape) if i not in axes)
        if self.result_type != TensorType(kept, src.element):
            self.fail(f"must return {TensorType(kept, src.element)}")
        if self.kind in ("max", "min") and any(src.shape[a] == 0 for a in axes):
            self.fail("cannot reduce an empty axis with max or min (no identity)")

    def fold(self, constants):
        element = self.operands[0].type.element
        # No axes: NumPy still combines each element with the identity, which changes -0.0 + 0.0
        # (float sums) and inf * (1 + 0j) (complex products); elsewhere the element is the result.
        changes = (self.kind == "sum" and (element.is_float or element.is_complex)
                   or self.kind == "prod" and element.is_complex)
        if not self.axes and not changes:
            return [self.operands[0]]
        arr = _constant_array(constants[0])
        if arr is None:
            return None
        out = REDUCE[self.kind].reduce(arr, axis=self.axes)
        return [DenseAttr(np.asarray(out).astype(arr.dtype), self.result_type)]


class ConstantOp(ArrayOp):
    name = "array.constant"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def value(self) -> DenseAttr:
        return self.attributes["value"]

    def check(self) -> None:
        self.need(0)
        value = self.attributes.get("value")
        if not isinstance(value, DenseAttr) or value.type != self.result_type:
            self.fail("needs a dense 'value' of the result type")

    def fold(self, constants):
        return None


class _StridedRegionOp(ArrayOp):
    """Base of ops addressing the region ``start[k] + i * stride[k]`` of an array."""

    __slots__ = ()

    @property
    def start(self) -> tuple[int, ...]:
        return self.attributes["start"]

    @property
    def stride(self) -> tuple[int, ...]:
        return self.attributes["stride"]

    def check_region(self, array_type: TensorType, region_type: TensorType) -> None:
        start, stride = self.attributes.get("start"), self.attributes.get("stride")
        if not (isinstance(start, tuple) and isinstance(stride, tuple)
                and len(start) == len(stride) == array_type.rank == region_type.rank):
            self.fail("needs 'start' and 'stride' with one entry per dim")
        if region_type.element != array_type.element or 0 in stride:
            self.fail("cannot change the element type, and strides must be non-zero")
        for k, (n, s, d) in enumerate(zip(region_type.shape, stride, array_type.shape)):
            last = start[k] + s * (n - 1)
            if n and not (0 <= start[k] < d and 0 <= last < d):
                self.fail(f"dim {k}: elements {start[k]} to {last} are outside 0..{d - 1}")

    def region_index(self, shape) -> tuple[slice, ...]:
        """The region as a NumPy index, for folding."""
        return tuple(
            slice(b, (b + s * n) if b + s * n >= 0 else None, s) if n else slice(0, 0)
            for b, s, n in zip(self.start, self.stride, shape)
        )


class SliceOp(_StridedRegionOp):
    """Strided slice: result element ``i`` along dim ``k`` is operand element
    ``start[k] + i * stride[k]`` (a negative stride walks backwards)."""

    name = "array.slice"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        self.need(1)
        self.check_region(self.operands[0].type, self.result_type)

    def fold(self, constants):
        if self.operands[0].type == self.result_type and all(s == 1 for s in self.stride):
            return [self.operands[0]]
        arr = _constant_array(constants[0])
        if arr is None:
            return None
        return [DenseAttr(arr[self.region_index(self.result_type.shape)], self.result_type)]


class PadOp(ArrayOp):
    """``pad(x, value)``: ``low[k]`` copies of the 0-d ``value`` before dim ``k``, ``high[k]`` after."""

    name = "array.pad"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        self.need(2)
        (x, value), out = (v.type for v in self.operands), self.result_type
        low, high = self.attributes.get("low"), self.attributes.get("high")
        if not (isinstance(low, tuple) and isinstance(high, tuple) and len(low) == len(high) == x.rank):
            self.fail("needs 'low' and 'high' with one entry per dim")
        if value.shape != () or value.element != x.element or out.element != x.element:
            self.fail("needs a 0-d padding value of the operand's element type")
        if any(v < 0 for v in (*low, *high)):
            self.fail("pads must be non-negative")
        if out.shape != tuple(lo + d + hi for lo, d, hi in zip(low, x.shape, high)):
            self.fail("result shape must be low + size + high in each dim")

    def fold(self, constants):
        arr, value = (_constant_array(c) for c in constants)
        if arr is None or value is None or self.result_type.size > FOLD_LIMIT:
            return None
        widths = list(zip(self.attributes["low"], self.attributes["high"]))
        return [DenseAttr(np.pad(arr, widths, constant_values=value[()]), self.result_type)]


class ConcatenateOp(ArrayOp):
    """The operands, one after another along ``axis``."""

    name = "array.concatenate"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def axis(self) -> int:
        return self.attributes["axis"]

    def check(self) -> None:
        if not self.operands or len(self.results) != 1:
            self.fail("needs at least one operand and one result")
        axis, out = self.attributes.get("axis"), self.result_type
        if not isinstance(axis, int) or not 0 <= axis < out.rank:
            self.fail("needs an 'axis' within the result rank")
        total = 0
        for v in self.operands:
            t = v.type
            if t.element != out.element or t.rank != out.rank or any(
                d != o for k, (d, o) in enumerate(zip(t.shape, out.shape)) if k != axis
            ):
                self.fail(f"operand {t} does not fit {out} along axis {axis}")
            total += t.shape[axis]
        if total != out.shape[axis]:
            self.fail(f"operands add up to {total} along axis {axis}, the result has {out.shape[axis]}")

    def fold(self, constants):
        if len(self.operands) == 1:
            return [self.operands[0]]
        arrays = [_constant_array(c) for c in constants]
        if any(a is None for a in arrays) or self.result_type.size > FOLD_LIMIT:
            return None
        return [DenseAttr(np.concatenate(arrays, axis=self.axis), self.result_type)]


class UpdateSliceOp(_StridedRegionOp):
    """``x`` with the strided slice ``start[k] + i * stride[k]`` replaced by ``update``
    (which has the slice's shape): NumPy's ``x[a:b:s] = update`` as a value."""

    name = "array.update_slice"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        self.need(2)
        x, update = (v.type for v in self.operands)
        if self.result_type != x:
            self.fail("must return the type of the array it updates")
        self.check_region(x, update)

    def fold(self, constants):
        arr, update = (_constant_array(c) for c in constants)
        if arr is None or update is None:
            return None
        out = arr.copy()
        out[self.region_index(update.shape)] = update
        return [DenseAttr(out, self.result_type)]
