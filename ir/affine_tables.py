"""Integer tables that are an affine function of their position (``arange``-like index tables):
what ``passes/index_tables.py`` computes in a kernel's body instead of reading, and what
``codegen/masked_rows.py`` reads as a position. Here, beside the IR, so both layers use it."""

from __future__ import annotations

import numpy as np

# A table this large or larger is not looked at (the test costs a pass over its elements).
MAX_TABLE_ELEMENTS = 1 << 26


def affine_form(table: np.ndarray) -> tuple[int, tuple[int, ...]] | None:
    """``(c0, steps)`` with ``table[i] == c0 + sum(steps[a] * i[a])`` for every position ``i``
    of the integer array ``table``, or None when it is not such a function (or is empty)."""
    if table.dtype.kind not in "iu" or table.size == 0 or table.size >= MAX_TABLE_ELEMENTS:
        return None
    t = table.astype(np.int64, copy=False)
    origin = (0,) * t.ndim
    c0 = int(t[origin])
    steps = []
    for a, n in enumerate(t.shape):
        steps.append(int(t[origin[:a] + (1,) + origin[a + 1:]]) - c0 if n > 1 else 0)
    expected = np.full(t.shape, c0, np.int64)
    for a, s in enumerate(steps):
        if s:
            shape = [1] * t.ndim
            shape[a] = t.shape[a]
            expected = expected + s * np.arange(t.shape[a], dtype=np.int64).reshape(shape)
    return (c0, tuple(steps)) if np.array_equal(expected, t) else None
