"""NumPy dtypes and their IR element types, and NumPy's own type resolution for ufuncs.

jitcore does not re-implement NumPy's promotion rules: it asks NumPy (``ufunc.resolve_dtypes``)
which loop NumPy would run, with Python scalars passed as weak types (NEP 50), so
``x * 2`` stays float32 and ``int / int`` is float64 exactly as in NumPy.
"""

from __future__ import annotations

import numpy as np

from jitcore.errors import JitOverflowError, JitTypeError
from jitcore.ir.attributes import numpy_dtype, scalar_type_of
from jitcore.ir.types import ScalarType

SUPPORTED_DTYPES = tuple(
    np.dtype(t)
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)
)


def ir_type(dtype) -> ScalarType:
    """The IR element type for a NumPy dtype, or a ``JitTypeError`` naming the dtype."""
    dtype = np.dtype(dtype)
    refuse_text(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise JitTypeError(
            f"dtype {dtype} is not supported by jitcore; supported: "
            + ", ".join(str(d) for d in SUPPORTED_DTYPES)
        )
    return scalar_type_of(dtype)


def refuse_text(dtype: np.dtype) -> None:
    """A ``JitTypeError`` for a str or bytes dtype: compiled code computes with numbers only."""
    if dtype.kind in "US":
        raise JitTypeError(
            f"string arrays (dtype {dtype}) are not supported under jit: compiled code computes "
            "with numbers only. Compute numeric codes (a bool or int array) in the jitted "
            "function and map them to text outside it, e.g. np.array(['.', '#'])[codes]")


def np_dtype(t: ScalarType) -> np.dtype:
    return numpy_dtype(t)


def weak_type(value):
    """What ``resolve_dtypes`` takes for an operand: a dtype, or the Python type of a weak scalar."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.dtype  # NumPy scalars are strongly typed, even np.float64 (a float subclass)
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if getattr(value, "weak", False):  # a traced Python scalar argument
        return {"f": float, "c": complex}.get(value.dtype.kind, int)
    if type(value) in (int, float, complex):
        return type(value)
    if isinstance(value, (int, float, complex)):  # a subclass (an IntEnum): strong, as in NumPy
        return np.asarray(value).dtype
    dtype = getattr(value, "dtype", None)
    if dtype is None:  # a string, a static object: NumPy's dtype for it, which its ufuncs refuse
        dtype = np.asarray(value).dtype
        if dtype.kind == "O":
            raise JitTypeError(f"a {type(value).__name__} ({value!r:.40}) is no operand jitcore "
                               "can compute with: pass numbers or arrays of numbers")
    return np.dtype(dtype)


def resolve_ufunc(ufunc: np.ufunc, operands) -> tuple[list[np.dtype], np.dtype]:
    """The input dtypes and output dtype of the loop NumPy picks for ``ufunc(*operands)``."""
    kinds = [weak_type(v) for v in operands]
    if all(isinstance(k, type) for k in kinds):
        # Only weak scalars: NumPy would use Python objects; their default dtypes decide.
        kinds = [np.asarray(False if k is bool else k(0)).dtype for k in kinds]
    try:
        dtypes = ufunc.resolve_dtypes(tuple(kinds) + (None,))
    except TypeError as e:
        names = ", ".join(str(k) for k in kinds)
        raise JitTypeError(f"numpy.{ufunc.__name__} does not accept ({names}): {e}") from None
    return list(dtypes[:-1]), dtypes[-1]


def scalar_to_dtype(value, dtype: np.dtype):
    """A Python scalar as a NumPy scalar of ``dtype``, failing as NumPy does when it doesn't fit."""
    try:
        return np.asarray(value, dtype=dtype)[()]
    except OverflowError as e:
        hint = _wide_int_hint(value, dtype)
        raise JitOverflowError(f"Python scalar {value!r} does not fit in {dtype}: {e}{hint}") from None


def _wide_int_hint(value, dtype: np.dtype) -> str:
    """What to write for a 64-bit constant (an FNV offset, ``% 2**64``) that meets a traced
    Python int: compiled Python ints are int64, and uint64 arithmetic wraps modulo 2**64."""
    if type(value) is not int or dtype != np.int64 or value < 2**63:
        return ""
    if value < 2**64:
        return (f". Compiled Python ints are int64; for 64-bit unsigned arithmetic (hashes, "
                f"LCGs) write the constant as np.uint64({value}) and the values it meets as "
                "np.uint64(...): uint64 arithmetic wraps modulo 2**64")
    return (". Compiled Python ints are int64; a mask or modulus of 2**64 is what uint64 "
            "arithmetic does already: compute in np.uint64 and leave out the % 2**64 (& 2**64 - 1)")
