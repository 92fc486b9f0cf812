"""Attribute values that are not plain Python values.

Plain attributes are Python ``bool``, ``int``, ``float``, ``str``, tuples of attributes, and
types. The classes here add what the text form needs: typed scalars (``1.0 : f32``), dense
tensor constants, affine indexing maps and symbol references. All are immutable and hashable so
that CSE can compare ops by their attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitcore.ir.types import ScalarType, TensorType

# NumPy dtype for each IR element type; ``index`` is a 64-bit signed integer.
NUMPY_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
    "complex<f32>": np.complex64, "complex<f64>": np.complex128,
}


def numpy_dtype(t: ScalarType) -> np.dtype:
    return np.dtype(NUMPY_DTYPES[t.name])


def scalar_type_of(dtype) -> ScalarType:
    """The IR element type of a NumPy dtype; raises ``KeyError`` for unsupported dtypes."""
    dtype = np.dtype(dtype)
    for name, np_type in NUMPY_DTYPES.items():
        if name != "index" and np.dtype(np_type) == dtype:
            return ScalarType(name)
    raise KeyError(dtype)


@dataclass(frozen=True, slots=True)
class ScalarAttr:
    """A scalar with its element type, e.g. ``2.0 : f32``; ``value`` is a Python number."""

    value: bool | int | float | complex
    type: ScalarType

    def __post_init__(self):
        # Normalise the value to what the type can hold, so equal constants compare equal. An
        # int the integer type holds is kept as it is: an int-like extent of a new size's
        # emission (codegen/extent_guards.py) stays one, rather than answer with its value.
        dtype = numpy_dtype(self.type)
        v = self.value
        if dtype.kind in "iu" and isinstance(v, int) and not isinstance(v, bool) \
                and np.iinfo(dtype).min <= v <= np.iinfo(dtype).max:
            return
        v = np.array(self.value).astype(dtype).item()
        object.__setattr__(self, "value", v)

    def __eq__(self, other):
        # Compare bit patterns so that -0.0 != 0.0 and NaN == NaN (as MLIR attributes do).
        return (
            isinstance(other, ScalarAttr)
            and self.type == other.type
            and self.bits() == other.bits()
        )

    def __hash__(self):
        return hash((self.type, self.bits()))

    def bits(self) -> bytes:
        return np.array(self.value, dtype=numpy_dtype(self.type)).tobytes()

    def as_numpy(self):
        return np.array(self.value, dtype=numpy_dtype(self.type))[()]


@dataclass(frozen=True, slots=True, eq=False)
class DenseAttr:
    """A tensor constant, ``dense<...> : tensor<...>``; ``array`` is a read-only NumPy array."""

    array: np.ndarray
    type: TensorType

    def __post_init__(self):
        arr = np.array(self.array, dtype=numpy_dtype(self.type.element), order="C")
        if arr.shape != self.type.shape:
            arr = np.broadcast_to(arr, self.type.shape).copy()
        arr.setflags(write=False)
        object.__setattr__(self, "array", arr)

    @property
    def is_splat(self) -> bool:
        flat = self.array.reshape(-1)
        return flat.size > 0 and _all_same_bits(flat)

    def __eq__(self, other):
        return (
            isinstance(other, DenseAttr)
            and self.type == other.type
            and self.array.tobytes() == other.array.tobytes()
        )

    def __hash__(self):
        return hash((self.type, self.array.tobytes()))


def _all_same_bits(flat: np.ndarray) -> bool:
    as_bytes = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((as_bytes == as_bytes[0]).all())


@dataclass(frozen=True, slots=True)
class AffineExpr:
    """One result of an affine map: ``scale * d<dim> + offset``, or the constant ``offset``
    when ``dim`` is None. Enough for broadcasts, transposes and strided slices."""

    dim: int | None
    scale: int = 1
    offset: int = 0

    def __str__(self) -> str:
        if self.dim is None:
            return str(self.offset)
        text = f"d{self.dim}"
        if self.scale != 1:
            text += f" * {self.scale}"
        if self.offset:
            text += f" + {self.offset}"
        return text


@dataclass(frozen=True, slots=True)
class AffineMap:
    """``affine_map<(d0, d1) -> (d1, 0)>``: from the iteration space to one operand's indices."""

    num_dims: int
    exprs: tuple[AffineExpr, ...]

    @staticmethod
    def identity(n: int) -> AffineMap:
        return AffineMap(n, tuple(AffineExpr(i) for i in range(n)))

    @staticmethod
    def from_dims(num_dims: int, dims) -> AffineMap:
        """A map whose results are plain dims (or constant 0 where ``None``)."""
        return AffineMap(
            num_dims,
            tuple(AffineExpr(None) if d is None else AffineExpr(d) for d in dims),
        )

    @property
    def is_identity(self) -> bool:
        return len(self.exprs) == self.num_dims and all(
            e == AffineExpr(i) for i, e in enumerate(self.exprs)
        )

    def compose(self, inner: AffineMap) -> AffineMap:
        """``self ∘ inner``: first ``inner`` (iteration → intermediate), then ``self``."""
        out = []
        for e in self.exprs:
            if e.dim is None:
                out.append(e)
                continue
            sub = inner.exprs[e.dim]
            if sub.dim is None:
                out.append(AffineExpr(None, 1, e.scale * sub.offset + e.offset))
            else:
                out.append(AffineExpr(sub.dim, e.scale * sub.scale, e.scale * sub.offset + e.offset))
        return AffineMap(inner.num_dims, tuple(out))

    def __str__(self) -> str:
        dims = ", ".join(f"d{i}" for i in range(self.num_dims))
        return f"affine_map<({dims}) -> ({', '.join(map(str, self.exprs))})>"


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """``@name``: a reference to a symbol such as a function."""

    name: str

    def __str__(self) -> str:
        return f"@{self.name}"
