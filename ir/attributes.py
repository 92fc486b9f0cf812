"""Attribute values that are not plain Python values.

Plain attributes are Python ``bool``, ``int``, ``float``, ``str``, tuples of attributes, and
types. The classes here add what the text form needs: typed scalars (``1.0 : f32``), dense
tensor constants, affine indexing maps and symbol references. All are immutable and hashable so
that CSE can compare ops by their attributes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
    """A tensor constant, ``dense<...> : tensor<...>``; ``array`` is a read-only NumPy array.

    A constant made from one value (``np.zeros``, ``np.full``, ``np.empty`` of any shape) keeps
    that value once: ``array`` is a broadcast view of it (strides 0), so a constant of a large
    shape costs nothing to build, hash or compare. Equality and the hash are by value (a splat
    equals a full array of the same bits) and computed once."""

    array: np.ndarray
    type: TensorType
    _key: object = field(default=None, init=False, repr=False)

    def __post_init__(self):
        dtype, src = numpy_dtype(self.type.element), self.array
        if isinstance(src, np.ndarray) and src.size > 1 and not any(src.strides) and src.dtype == dtype:
            # a broadcast value (np.zeros under jit), or one resized to a new size: its value
            src = src.reshape(-1)[:1].reshape(())
        arr = np.array(src, dtype=dtype, order="C")
        if arr.shape != self.type.shape:
            if arr.size > 1 and arr.ndim == len(self.type.shape) and all_same_bits(arr.reshape(-1)):
                arr = arr.reshape(-1)[:1].reshape(())  # one value at another size (new_size.py)
            if arr.size == 1 and math.prod(self.type.shape) > SPLAT_SCAN:  # one value, large:
                arr = np.broadcast_to(arr.reshape(()), self.type.shape)  # a view of it everywhere
            else:
                arr = np.broadcast_to(arr, self.type.shape).copy()
        elif arr.size > SPLAT_SCAN and any(arr.strides) and all_same_bits(arr.reshape(-1)):
            arr = np.broadcast_to(arr.reshape(-1)[:1].reshape(()), self.type.shape)  # one copy
        arr.setflags(write=False)
        object.__setattr__(self, "array", arr)

    @property
    def is_splat(self) -> bool:
        return self.array.size > 0 and self.key()[1] == "splat"

    def key(self) -> tuple:
        """``(type, "splat", one element's bytes)`` where every element has the same bits,
        else ``(type, "dense", all the bytes)``: what equality compares."""
        if self._key is None:
            flat = self.array
            if flat.size and (not any(flat.strides) or all_same_bits(flat.reshape(-1))):
                key = (self.type, "splat", flat.reshape(-1)[:1].tobytes())
            else:
                key = (self.type, "dense", flat.tobytes())
            object.__setattr__(self, "_key", key)
        return self._key

    def __eq__(self, other):
        return isinstance(other, DenseAttr) and (self is other or self.key() == other.key())

    def __hash__(self):
        return hash(self.key())


# A constant of more elements is scanned once when made: one that holds one value (a NumPy
# array made by np.empty or np.zeros in the function) keeps it once.
SPLAT_SCAN = 4096


def all_same_bits(flat: np.ndarray) -> bool:
    """Whether every element of the contiguous 1-d ``flat`` has the first one's bits, compared
    as unsigned words of the element's size (bytes for odd sizes), in blocks, stopping early."""
    size = flat.dtype.itemsize
    word = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}.get(size)
    words = flat.view(word) if word else flat.view(np.uint8).reshape(flat.size, size)
    for start in range(0, len(words), 1 << 16):
        block = words[start:start + (1 << 16)]
        if not (block == words[0]).all():
            return False
    return True


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
