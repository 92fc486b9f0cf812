"""IR types: scalar element types, ranked tensors, and function types.

Types are immutable, hashable and interned by value, so ``==`` and ``is`` agree in practice and
they can be used freely as dict keys and attribute values.
"""

from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base of every IR type."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    """An element type: ``f16 f32 f64``, ``i1``, signed ``i8..i64``, unsigned ``ui8..ui64``,
    ``index``, and ``complex<f32>`` / ``complex<f64>`` (a pair of floats, as MLIR spells it)."""

    name: str

    def __post_init__(self):
        if self.name not in _SCALAR_NAMES:
            raise ValueError(f"unknown scalar type {self.name!r}")

    @property
    def is_float(self) -> bool:
        return self.name[0] == "f"

    @property
    def is_bool(self) -> bool:
        return self.name == "i1"

    @property
    def is_complex(self) -> bool:
        return self.name[0] == "c"

    @property
    def is_integer(self) -> bool:
        """Signed or unsigned integers and index; not i1 (booleans are their own family)."""
        return not (self.is_float or self.is_bool or self.is_complex)

    @property
    def component(self) -> ScalarType:
        """The float type of a complex type's real and imaginary parts."""
        if not self.is_complex:
            raise ValueError(f"{self} is not a complex type")
        return ScalarType(self.name[8:-1])

    @property
    def is_unsigned(self) -> bool:
        return self.name.startswith("ui")

    @property
    def bitwidth(self) -> int:
        if self.name == "index":
            return 64
        if self.is_complex:
            return 2 * self.component.bitwidth
        return int(self.name.lstrip("uif"))

    def __str__(self) -> str:
        return self.name


_SCALAR_NAMES = frozenset(
    "f16 f32 f64 i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 index complex<f32> complex<f64>".split()
)

f16, f32, f64 = ScalarType("f16"), ScalarType("f32"), ScalarType("f64")
i1, i8, i16, i32, i64 = (ScalarType(n) for n in ("i1", "i8", "i16", "i32", "i64"))
ui8, ui16, ui32, ui64 = (ScalarType(n) for n in ("ui8", "ui16", "ui32", "ui64"))
index = ScalarType("index")
complex64, complex128 = ScalarType("complex<f32>"), ScalarType("complex<f64>")


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """A ranked tensor with a static shape: ``tensor<4x8xf32>``, ``tensor<f32>`` for 0-d."""

    shape: tuple[int, ...]
    element: ScalarType

    def __post_init__(self):
        if not all(isinstance(d, int) and d >= 0 for d in self.shape):
            raise ValueError(f"tensor dimensions must be non-negative ints, got {self.shape}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_shape(self, shape) -> TensorType:
        return TensorType(tuple(shape), self.element)

    def with_element(self, element: ScalarType) -> TensorType:
        return TensorType(self.shape, element)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.element}>"


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    """``(inputs) -> results``; a single result prints without parentheses."""

    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def __str__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        if len(self.results) == 1 and not isinstance(self.results[0], FunctionType):
            return f"({ins}) -> {self.results[0]}"
        return f"({ins}) -> ({', '.join(map(str, self.results))})"


def element_type(t: Type) -> ScalarType:
    """The element type of a tensor, or the scalar type itself."""
    return t.element if isinstance(t, TensorType) else t
