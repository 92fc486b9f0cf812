"""Memory layouts for test inputs: the same values (or a broadcast of them) seen through
non-contiguous, negative-stride, Fortran-order, stride-0 and unaligned views.

Compiled code reads arrays through their strides, so every array strategy should also hand
jitcore views like these, not only fresh C-contiguous arrays. ``relayout(a, kind)`` returns a
view of the values of ``a`` (the same values, except ``broadcast``, which repeats ``a``'s first
element along its last axis) with the layout ``kind``.
"""

from __future__ import annotations

import numpy as np

# "C" is a fresh contiguous array; the others are views of a larger or shifted buffer.
LAYOUTS = ("C", "F", "reversed", "strided", "broadcast", "unaligned")
# Layouts whose values equal the input's (broadcast changes them) and that can be written to.
WRITABLE_LAYOUTS = ("C", "F", "reversed", "strided", "unaligned")


def relayout(a: np.ndarray, kind: str) -> np.ndarray:
    a = np.asarray(a)
    if kind in ("C", "F"):
        return np.array(a, order=kind, copy=True)
    if kind == "reversed":  # negative strides on every axis
        if a.ndim == 0:
            return a.copy()  # a[()] would be a NumPy scalar, not an array
        flipped = np.array(a[(slice(None, None, -1),) * a.ndim], order="C")
        return flipped[(slice(None, None, -1),) * a.ndim]
    if kind == "strided":  # every other element of a buffer twice as long on every axis
        if a.ndim == 0:
            return a.copy()
        big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        view = big[(slice(None, None, 2),) * a.ndim]
        view[...] = a
        return view
    if kind == "broadcast":  # stride 0 along the last axis (read-only)
        if a.ndim == 0 or a.size == 0:
            return np.broadcast_to(a, a.shape)
        return np.broadcast_to(a[..., :1], a.shape)
    if kind == "unaligned":  # a buffer offset by one byte (unaligned for itemsize > 1)
        raw = np.zeros(a.nbytes + 1, np.uint8)
        view = raw[1:].view(a.dtype).reshape(a.shape) if a.size else np.empty(a.shape, a.dtype)
        view[...] = a
        return view
    raise ValueError(f"unknown layout {kind!r}; one of {LAYOUTS}")


def layouts():
    """A hypothesis strategy of layout names (C-contiguous most often)."""
    from hypothesis import strategies as st

    return st.sampled_from(("C", "C") + LAYOUTS[1:])
