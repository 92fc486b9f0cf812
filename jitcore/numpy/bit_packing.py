"""``packbits`` and ``unpackbits`` of traced arrays: the result's length is the input's (in
bytes or bits), so both have static shapes. Packing pads the axis to whole bytes with zeros and
sums each byte's eight weighted bits; unpacking shifts each byte by 7..0 (or 0..7) and keeps the
low bit, then trims or pads to ``count`` as NumPy does."""

from __future__ import annotations

import operator

import numpy as np

from jitcore.errors import JitAxisError, JitTypeError, JitValueError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import refuse_traced, user_location

__all__ = ["packbits", "unpackbits"]

_BIG = np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=np.uint8)


def _order(bitorder) -> np.ndarray:
    if bitorder not in ("big", "little"):
        raise JitValueError(f"'order' must be either 'little' or 'big' (at {user_location()})")
    return _BIG if bitorder == "big" else _BIG[::-1]


def _axis(a, axis):
    """The array and axis to work along: flattened for ``axis=None``, as NumPy."""
    if axis is None:
        return np.reshape(a, (-1,)), 0
    axis = operator.index(axis)
    if not -a.ndim <= axis < a.ndim:
        raise JitAxisError(
            f"axis {axis} is out of bounds for array of dimension {a.ndim} (at {user_location()})"
        )
    return a, axis % a.ndim


@implements(np.packbits)
def packbits(a, /, axis=None, bitorder="big"):
    if not traced(a):
        return np.packbits(a, axis=axis, bitorder=bitorder)
    refuse_traced(axis, "the axis of numpy.packbits")
    if a.dtype.kind not in "biu":
        raise JitTypeError(f"Expected an input array of integer or boolean data type (at {user_location()})")
    weights = _order(bitorder)
    a, axis = _axis(a if a.ndim else np.reshape(a, (1,)), axis)
    n = a.shape[axis]
    bits = np.moveaxis((a != 0).astype(np.uint8), axis, -1)
    if n % 8:
        bits = np.concatenate([bits, np.zeros(bits.shape[:-1] + (8 - n % 8,), np.uint8)], axis=-1)
    grouped = np.reshape(bits, bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    return np.moveaxis(np.sum(grouped * weights, axis=-1, dtype=np.uint8), -1, axis)


@implements(np.unpackbits)
def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    if not traced(a):
        return np.unpackbits(a, axis=axis, count=count, bitorder=bitorder)
    for v, what in ((axis, "axis"), (count, "count")):
        refuse_traced(v, f"the {what} of numpy.unpackbits")
    if a.dtype != np.uint8:
        raise JitTypeError(f"Expected an input array of unsigned byte data type (at {user_location()})")
    shifts = np.log2(_order(bitorder)).astype(np.uint8)
    a, axis = _axis(a if a.ndim else np.reshape(a, (1,)), axis)  # NumPy reads a 0-d array as 1-d
    moved = np.moveaxis(a, axis, -1)
    bits = np.reshape((moved[..., None] >> shifts) & np.uint8(1), moved.shape[:-1] + (8 * moved.shape[-1],))
    total = bits.shape[-1]
    keep = total if count is None else operator.index(count)
    if keep < -total:
        raise JitValueError(f"-count larger than number of elements (at {user_location()})")
    keep = total + keep if keep < 0 else keep
    if keep > total:
        bits = np.concatenate([bits, np.zeros(bits.shape[:-1] + (keep - total,), np.uint8)], axis=-1)
    return np.moveaxis(bits[..., :keep], -1, axis)
