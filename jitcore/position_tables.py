"""Large tables of positions as ramps, not constants (session 55).

``np.arange(n)``, ``np.indices``, ``np.cumsum(np.ones(n))``, ``np.eye(n)``, ``np.tri(n)``: NumPy
makes these tables while the function is traced, and as constants of the array's size they were
copied, hashed, scanned by the size checks, stored in the plan and the disk cache, and made the
trace differ at every size, so a new ``n`` compiled again (5e6 elements: 0.3 to 0.9 s a call).
A table of ``MIN_ELEMENTS`` or more whose values are a function of its positions that this
module recognises is traced instead as that function of ``array.iota``, which kernels compute
from their own positions and whose type's dims are the only sizes it holds:

- an *affine* table, ``c0 + sum(s[a] * i[a])`` in whole numbers, each element with the bits
  of that int64 converted to the table's dtype (so -0.0 or a fraction is refused): arange and
  its slices, broadcasts and sums, ``np.indices``'s planes, ``np.cumsum(np.ones(n))``;
- ``np.linspace(a, b, n)``'s float64 table (its bits, endpoint included): NumPy's formula on
  a ramp (``creation._traced_linspace``, the same bits);
- a *band* of a 2-d table, one value where ``j - i`` meets a test (``== k``, ``<= k`` or
  ``>= k``) and another elsewhere: ``eye``, ``identity``, ``tri`` and the masks of ``tril``/``triu``.

Smaller tables stay constants: folding reads them, and they cost little.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.ir.dialects import array
from jitcore.ir.types import TensorType
from jitcore.tracer import Trace, Tracer

# Tables of fewer elements stay constants.
MIN_ELEMENTS = 1024
_I64 = np.dtype(np.int64)


def traced_table(trace: Trace, value: np.ndarray) -> Tracer | None:
    """``value`` traced as a function of its positions, or None where it is small or not one
    that this module recognises (it then stays a constant)."""
    if (
        value.size < MIN_ELEMENTS
        or not any(value.strides)
        or value.dtype.kind not in "biuf"
        or value.dtype.itemsize not in (1, 2, 4, 8)
    ):
        return None
    form = _affine(value) if value.dtype.kind != "b" else None
    if form is not None:
        return _affine_ramp(trace, value.shape, value.dtype, *form)
    if value.ndim == 1 and value.dtype == np.float64:
        return _linspace(trace, value)
    if value.ndim == 2:
        return _band(trace, value)
    return None


def ramp(trace: Trace, shape: tuple[int, ...], dimension: int, dtype: np.dtype) -> Tracer:
    """Each element's position along ``dimension`` of ``shape``, in ``dtype``."""
    t = TensorType(tuple(shape), ir_type(np.dtype(dtype)))
    op = trace.builder.create(array.IotaOp, [], [t], {"dimension": dimension})
    return Tracer(op.result, trace)


def _affine(value: np.ndarray) -> tuple[int, tuple[int, ...]] | None:
    """``(c0, steps)`` where each element of ``value`` has the bits of ``c0 + sum(steps[a] *
    i[a])`` computed in int64 and converted to its dtype (as the ramp will be), else None.
    Checked in blocks along the first axis, so the test allocates no table of its size."""
    origin = (0,) * value.ndim
    corners = [value[origin].item()]
    for a, n in enumerate(value.shape):
        corners.append(value[origin[:a] + (1,) + origin[a + 1 :]].item() if n > 1 else corners[0])
    if not all(np.isfinite(c) and float(c).is_integer() and abs(c) < 1 << 62 for c in corners):
        return None
    c0 = int(corners[0])
    steps = tuple(int(c) - c0 for c in corners[1:])
    last = tuple(n - 1 for n in value.shape)
    want = _expected(value.dtype, c0, steps, [np.array([i]) for i in last])
    if want.reshape(-1).view(_uint(value))[0] != np.asarray(value[last]).reshape(1).view(_uint(value))[0]:
        return None  # (a cheap test first: the last element)
    per_row = max(1, value.size // value.shape[0])
    rows = max(1, _BLOCK // per_row)
    rest = [np.arange(n) for n in value.shape[1:]]
    for r in range(0, value.shape[0], rows):
        block = value[r : r + rows]
        want = _expected(value.dtype, c0, steps, [np.arange(r, r + block.shape[0]), *rest])
        if not np.array_equal(want.view(_uint(value)), np.ascontiguousarray(block).view(_uint(value))):
            return None
    return c0, steps


def _uint(value: np.ndarray) -> np.dtype:
    return np.dtype(f"u{value.dtype.itemsize}")


# Elements compared at a time.
_BLOCK = 1 << 16


def _expected(dtype: np.dtype, c0: int, steps: tuple[int, ...], positions: list[np.ndarray]) -> np.ndarray:
    """``c0 + sum(steps[a] * positions[a])`` over the grid of ``positions``, in int64, as ``dtype``."""
    out = np.full([p.size for p in positions], c0, np.int64)
    for a, (s, p) in enumerate(zip(steps, positions)):
        if s:
            shape = [1] * len(positions)
            shape[a] = p.size
            out += s * p.reshape(shape).astype(np.int64)
    return out.astype(dtype)


def _affine_ramp(trace: Trace, shape, dtype: np.dtype, c0: int, steps: tuple[int, ...]) -> Tracer | None:
    """``c0 + sum(steps[a] * i[a])`` over ``shape``, in int64 and then ``dtype``."""
    span = abs(c0) + sum(abs(s) * (n - 1) for s, n in zip(steps, shape))
    if span >= 1 << 62:
        return None
    terms = [a for a, s in enumerate(steps) if s]
    if c0 == 0 and len(terms) == 1 and steps[terms[0]] == 1:
        return ramp(trace, shape, terms[0], dtype)  # (np.arange(n), np.indices: one op)
    out = None
    for a in terms:
        term = ramp(trace, shape, a, _I64)
        if steps[a] == -1 and out is None:  # (np.arange(n)[::-1]: c0 - i)
            out = prims.ufunc(np.subtract, np.int64(c0), term)
            c0 = 0
            continue
        if steps[a] != 1:
            term = prims.ufunc(np.multiply, term, np.int64(steps[a]))
        out = term if out is None else prims.ufunc(np.add, out, term)
    if out is None:
        return None  # (one value everywhere: a splat constant already costs nothing)
    if c0:
        out = prims.ufunc(np.add, out, np.int64(c0))
    return prims.convert(out, dtype)


def _band(trace: Trace, value: np.ndarray) -> Tracer | None:
    """A 2-d table of two values split by a test of ``j - i``, traced as a ``where``. Values
    are compared by their bits (-0.0 is not 0.0, a NaN is itself)."""
    rows, cols = value.shape
    bits = np.ascontiguousarray(value).view(_uint(value))
    # the bits at each diagonal d = j - i, from the first column (d <= 0) and the first row
    by_diagonal = np.concatenate([bits[::-1, 0], bits[0, 1:]])  # d = -(rows - 1) .. cols - 1
    words = np.unique(by_diagonal)
    if words.size != 2:
        return None
    test = _band_test(by_diagonal == words[1], rows)
    if test is None:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(by_diagonal, cols)  # row i: windows[rows - 1 - i]
    step = max(1, _BLOCK // cols)
    for r in range(0, rows, step):
        if not np.array_equal(bits[r : r + step], windows[rows - 1 - np.arange(r, min(r + step, rows))]):
            return None
    predicate, k, inside = test
    d = prims.ufunc(np.subtract, ramp(trace, value.shape, 1, _I64), ramp(trace, value.shape, 0, _I64))
    cond = prims.ufunc(predicate, d, np.int64(k))
    hit, miss = words.view(value.dtype)[::-1] if inside else words.view(value.dtype)
    return prims.convert(
        prims.where(cond, np.asarray(hit, value.dtype), np.asarray(miss, value.dtype)), value.dtype
    )


def _band_test(marked: np.ndarray, rows: int):
    """``(predicate, k, inside)``: the diagonals ``d`` (``marked``, from ``-(rows - 1)``) where
    the second value lies are those with ``predicate(d, k)`` (``inside``) or the others."""
    where = np.flatnonzero(marked) - (rows - 1)
    first, last, count = int(where[0]), int(where[-1]), where.size
    if count == 1:
        return np.equal, first, True
    if count == marked.size - 1:
        missing = int(np.flatnonzero(~marked)[0]) - (rows - 1)
        return np.equal, missing, False
    if last - first + 1 != count:
        return None
    low, high = -(rows - 1), marked.size - rows
    if first == low:
        return np.less_equal, last, True
    if last == high:
        return np.greater_equal, first, True
    return None


def _linspace(trace: Trace, value: np.ndarray) -> Tracer | None:
    """``np.linspace(value[0], value[-1], n)`` where ``value`` has its bits, else None. NumPy's
    formula where the step is not 0, ``i * step + start`` and the last point ``stop``, checked
    in blocks (the middle element first)."""
    from jitcore.numpy.creation import _traced_linspace  # (here: creation makes constants)

    start, stop, n = float(value[0]), float(value[-1]), value.shape[0]
    step = (stop - start) / (n - 1) if np.isfinite(start) and np.isfinite(stop) else 0.0
    if step == 0:
        return None
    middle = n // 2
    if (np.float64(middle) * step + start).view(np.uint64) != value[middle : middle + 1].view(np.uint64)[0]:
        return None
    for r in range(0, n - 1, _BLOCK):
        want = np.arange(r, min(r + _BLOCK, n - 1), dtype=np.float64) * step + start
        if not np.array_equal(want.view(np.uint64), value[r : r + want.size].view(np.uint64)):
            return None
    endpoints = [prims.constant(trace, np.float64(v)) for v in (start, stop)]
    return _traced_linspace(*endpoints, n, True, False, None, 0)


prims.table_ramps = traced_table  # (primitives.constant asks it; it cannot import this module)
