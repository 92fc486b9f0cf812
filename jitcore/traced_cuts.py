"""Arrays cut at a traced position whose result's length is static: the leave-one-out
``np.concatenate([x[:i], x[i + 1:]])``, ``np.delete(x, i)`` and ``np.insert(x, i, v)`` in a loop
over ``i``.

Each piece's length depends on ``i``, so each piece alone is a selection of traced length
(``masked.RangedSelection``), and such a concatenation used to ask for ``i`` as a Python int,
which unrolled the loop (0.1 s of compile a step: a jackknife over 1,000 points took two
minutes). But the pieces' lengths are forms of one loop index (``index_forms``) whose scales
cancel: ``i + (n - i - 1)`` is ``n - 1`` for every ``i``. The result is then an array of that
static length, each row gathered from the piece that holds it (the pieces' starts in the
result are traced sums of the lengths before them), and the loop stays one loop.
"""

from __future__ import annotations

import numpy as np

from jitcore import index_forms, indexing
from jitcore import primitives as prims
from jitcore.data_length import positions
from jitcore.errors import JitValueError
from jitcore.ir.dialects.kernel import INDEX_OUT_OF_BOUNDS
from jitcore.masked import MaskedSelection, RangedSelection, raise_at_run_time
from jitcore.tracer import Tracer, user_location

_I64 = np.dtype(np.int64)


def _span_length(span) -> tuple | None:
    """``(base, scale, offset)`` of a span's length ``stop - start``, where that form is never
    negative over its index's range (so NumPy's length is the form itself, unclamped)."""
    key = index_forms.length_key(*span)
    if key is None:
        return None
    base, scale, offset = key
    if not scale:
        return key if offset >= 0 else None
    form = next(f for f in map(index_forms.form_of, span) if f is not None and f.base is base)
    if not form.known:
        return None
    ends = [(v - form.offset) // form.scale for v in (form.lo, form.hi)]  # the index's range
    return key if min(scale * e + offset for e in ends) >= 0 else None


def _piece(a) -> tuple | None:
    """``(values, start, stop, length's form, checked)`` of one piece along axis 0: a slice of
    traced bounds along its first axis, or an array (``0``, its length); None for others.
    ``checked``: the form is the slice's own, before NumPy's clamping (a traced int that is no
    loop index), so the call must check that the length it gives is the one NumPy's is."""
    if isinstance(a, RangedSelection):
        if a.mask.ndim != 1 or not a.spans or len(a.spans) != 1 or a.position != 0:
            return None
        key = _span_length(a.spans[0])
        if key is not None:
            return a.values, *a.spans[0], key, False
        n = a.values.shape[0]
        key = _open_length(a.raw, n)
        if key is None:
            return None
        start, stop = (prims.clip(b, 0, n) if isinstance(b, Tracer) else b for b in a.spans[0])
        return a.values, start, stop, key, True  # (clamped as NumPy clamps them)
    if isinstance(a, MaskedSelection):
        return None  # a data-dependent count: a prefix (run_length)
    v = prims.array_operand(a)
    if np.ndim(v) == 0:
        return None
    return v, 0, np.shape(v)[0], (None, 0, np.shape(v)[0]), False


def _open_length(raw, n: int) -> tuple | None:
    """``(base, scale, offset)`` of ``stop - start`` for a slice's own bounds (``raw``: one
    ``(start, stop)``), static ints and traced ints of any origin (``i = np.argmax(x)``,
    ``i + 1``: one value's forms); None where the bounds are forms of two values."""
    if not raw or len(raw) != 1:
        return None
    ends = []
    for b, which in zip(raw[0], (0, 1)):
        if b is None or isinstance(b, (int, np.integer)):
            bound = slice(b, None).indices(n)[0] if which == 0 else slice(None, b).indices(n)[1]
            ends.append((None, 0, bound))
            continue
        form = index_forms._form_or_open(b)
        if form is None:
            return None
        ends.append((form.base, form.scale, form.offset))
    (a_base, a_scale, a_off), (b_base, b_scale, b_off) = ends
    if a_base is not None and b_base is not None and not index_forms.same_base(a_base, b_base):
        return None
    scale = b_scale - a_scale
    return (a_base if a_base is not None else b_base) if scale else None, scale, b_off - a_off


def static_concatenate(arrays, axis, dtype):
    """``np.concatenate`` of slices of traced bounds (and arrays) along axis 0 whose lengths
    sum to a static total: that array, each row gathered from its piece. None where the total
    is not static (or another axis, or a selection by a mask): the caller's path then."""
    if axis not in (0, None) or not isinstance(arrays, (list, tuple)) or not arrays:
        return None
    pieces = [_piece(a) for a in arrays]
    if any(p is None for p in pieces):
        return None
    rest = {tuple(np.shape(v)[1:]) for v, *_ in pieces}
    if len(rest) != 1 or (axis is None and rest != {()}):
        return None
    bases = [key[0] for *_, key, _ in pieces if key[1]]
    if any(not index_forms.same_base(b, bases[0]) for b in bases) or sum(key[1] for *_, key, _ in pieces):
        return None  # lengths of two indices, or a total that moves with the index
    total = sum(key[2] for *_, key, _ in pieces)
    if total < 0:
        return None
    trace = next(v for v, *_ in pieces if isinstance(v, Tracer)).owner_trace
    if any(checked for *_, checked in pieces):
        _check_total(pieces, total)
    kind = np.result_type(*(v.dtype for v, *_ in pieces)) if dtype is None else np.dtype(dtype)
    (row_dims,) = rest
    rows = positions(trace, (total,), 0)
    out, at = None, 0  # at: where the piece starts in the result (an int, or traced)
    for values, start, stop, _, checked in pieces:
        if not isinstance(values, Tracer):
            values = prims.constant(trace, np.asarray(values))
        values = prims.convert(values, kind)
        if values.shape[0] and total:
            src = prims.clip(prims.ufunc(np.add, rows, _op(np.subtract, start, at)), 0, values.shape[0] - 1)
            taken = indexing.take(values, src, 0)
            if out is None:
                out = taken
            else:
                here = prims.reshape(prims.ufunc(np.greater_equal, rows, at), (total,) + (1,) * len(row_dims))
                out = prims.where(here, taken, out)
        at = _op(np.add, at, _length(start, stop, checked))
    if out is None:
        out = prims.constant(trace, np.zeros((total, *row_dims), kind))
    return out


def _length(start, stop, checked: bool):
    """A piece's length: ``stop - start``, at least 0 where NumPy clamped its bounds (a stop
    below the start selects nothing)."""
    length = _op(np.subtract, stop, start)
    return prims.ufunc(np.maximum, length, 0) if checked and isinstance(length, Tracer) else length


def _check_total(pieces, total: int) -> None:
    """The call's ValueError where the pieces' lengths, clamped as NumPy clamps the bounds,
    do not sum to ``total``, the length the slices' own bounds give (``x[:i]`` and
    ``x[i + 1:]``: ``n - 1``, for every ``i`` from 0 to ``n - 1``; ``i = -1`` gives NumPy
    ``x[:-1]`` and all of ``x``)."""
    got = 0
    for _, start, stop, _, checked in pieces:
        got = _op(np.add, got, _length(start, stop, checked))
    where = user_location()

    def error(rows):
        return JitValueError(
            f"np.concatenate of slices cut at a traced int (at {where}) was compiled with "
            f"{total} rows, the length the slices' bounds give where each lies between 0 and "
            f"the array's length; this call's bounds gave {int(rows)} rows (a negative bound, "
            f"which NumPy counts from the end, or one past the end, which it clamps). Keep the "
            f"int in range (i % n, or np.clip(i, 0, n - 1)), or use np.delete(x, i), which "
            f"counts a negative i from the end as NumPy does"
        )

    raise_at_run_time(prims.ufunc(np.not_equal, got, total), error, got)


def _op(ufunc, a, b):
    """``ufunc(a, b)`` of ints and traced 0-d ints."""
    if isinstance(a, Tracer) or isinstance(b, Tracer):
        return prims.ufunc(ufunc, a, b)
    return int(ufunc(a, b))


def _checked_index(index: Tracer, n: int, last: int, axis: int) -> Tracer:
    """``index`` (a traced 0-d int) counted from the end where negative, NumPy's IndexError
    raised by the call outside ``[-n, last]``."""
    index = prims.convert(index, _I64)
    bad = prims.ufunc(np.less, index, -n) | prims.ufunc(np.greater, index, last)
    prims.raise_if(bad, INDEX_OUT_OF_BOUNDS, (index, axis, n))
    return prims.where(prims.ufunc(np.less, index, 0), prims.ufunc(np.add, index, n), index)


def delete_at(arr: Tracer, index: Tracer, axis: int) -> Tracer:
    """``np.delete(arr, i, axis)`` at a traced index ``i``: the ``n - 1`` entries that stay,
    gathered at ``j + (j >= i)``."""
    n = arr.shape[axis]
    index = _checked_index(index, n, n - 1, axis)
    if n <= 1:
        return arr[(slice(None),) * axis + (slice(0, 0),)]
    kept = positions(arr.owner_trace, (n - 1,), 0)
    src = prims.ufunc(np.add, kept, prims.convert(prims.ufunc(np.greater_equal, kept, index), _I64))
    return indexing.take(arr, src, axis)


def insert_at(arr: Tracer, index: Tracer, values: Tracer, axis: int) -> Tracer:
    """``np.insert(arr, i, values, axis)`` at a traced index ``i``, ``values`` already NumPy's
    slab (``arr``'s shape but ``k`` long along ``axis``): entry ``j`` of the result is
    ``values[j - i]`` for ``i <= j < i + k``, else ``arr[j]`` before ``i`` and ``arr[j - k]`` after."""
    n, k = arr.shape[axis], values.shape[axis]
    index = _checked_index(index, n, n, axis)
    trace = arr.owner_trace
    pos = positions(trace, (n + k,), 0)
    offset = prims.ufunc(np.subtract, pos, index)
    new = prims.ufunc(np.greater_equal, offset, 0) & prims.ufunc(np.less, offset, k)
    after = prims.convert(prims.ufunc(np.greater_equal, offset, k), _I64)
    old = prims.ufunc(np.subtract, pos, prims.ufunc(np.multiply, after, k))
    shape = [1] * arr.ndim
    shape[axis] = n + k
    new = prims.reshape(new, tuple(shape))
    if n == 0:
        return indexing.take(values, prims.clip(offset, 0, k - 1), axis)
    rows = indexing.take(arr, prims.clip(old, 0, n - 1), axis)
    if k == 0:
        return rows
    inserted = indexing.take(values, prims.clip(offset, 0, k - 1), axis)
    return prims.where(new, inserted, rows)
