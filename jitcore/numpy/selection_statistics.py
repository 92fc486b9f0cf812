"""Order statistics of ``x[mask]`` for a traced mask (``np.median(x[x > 0])``,
``np.percentile(d[np.isfinite(d)], 95)``): the selection's size is known only when the function
runs, but each lane's answer is an order statistic of its selected values, which the lane
machinery of ``sorting`` already finds at ranks computed at run time. So the lanes are the
values with every element left out replaced by one that sorts after all selected ones (NaN for
floats, the dtype's largest value otherwise), and the count per lane is how many were selected.
A selected NaN still sorts among the fill, so "the value at rank count - 1 is NaN" still tells a
lane that holds one, as in NumPy.

The caller (``masked.MaskedSelection``) gives the values, the mask broadcast over them, and the
axes of the values that the selection's axis stands for."""

from __future__ import annotations

import numpy as np

from jitcore import compaction, masked
from jitcore import primitives as prims
from jitcore.errors import JitTypeError
from jitcore.numpy import sorting
from jitcore.numpy.reductions import bincount_of, histogram2d, histogram_of, histogramdd
from jitcore.tracer import Tracer, as_scalar, user_location


def _selected_lanes(values: Tracer, where: Tracer, axes: tuple, name: str, skip_nan: bool):
    """The lanes (the reduced ``axes`` merged last) with the left-out elements sorting last, and
    how many each keeps (int64): the selected ones, or for ``skip_nan`` the selected non-NaN."""
    x, _ = sorting._lanes_last(values, axes, name)
    keep, _ = sorting._lanes_last(where, axes, name)
    if x.shape[-1] == 0:
        raise IndexError(f"numpy.{name} of an empty selection has no value: index -1 is out of "
                         f"bounds (at {user_location()})")
    if x.dtype.kind == "f":
        fill = np.array(np.nan, x.dtype)
        if skip_nan:
            keep = keep & ~np.isnan(x)
    else:  # the largest value sorts last (ties with a selected one are the same value)
        fill = np.array(True if x.dtype.kind == "b" else np.iinfo(x.dtype).max, x.dtype)
    return np.where(keep, x, fill), np.sum(keep, axis=-1, dtype=np.int64)


def _raise_if_empty(count: Tracer, name: str) -> None:
    """NumPy's IndexError from its index -1 into an empty lane, raised by the call where a lane
    selected nothing (a callback on the branch taken only then)."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    where = user_location()

    def fail(_):
        raise IndexError(f"numpy.{name} of a selection that holds no element: index -1 is out of "
                         f"bounds for axis 0 with size 0 (at {where})")

    none = np.any(count == 0)
    cond(none, lambda: debug_callback(fail, none), lambda: None)


def quantile(values: Tracer, where: Tracer, axes: tuple, kept, q, method: str, name: str):
    """``np.quantile``/``percentile`` (``name``; and their nan- forms) of the selection, q in
    the user's units: NumPy's methods, dtypes and q checks. ``kept``: the keepdims shape of the
    lanes, or None."""
    skip_nan = name.startswith("nan")
    plain = name[3:] if skip_nan else name
    sorting._check_method(method, name)
    if values.dtype.kind == "c":
        raise JitTypeError(f"numpy.{name} of complex numbers is not supported (a TypeError in "
                           f"NumPy), at {user_location()}")
    user_q = sorting._gathered(q)
    qs = user_q if isinstance(user_q, Tracer) else np.asanyarray(user_q)
    if plain == "percentile":
        qs = np.true_divide(qs, 100)
    sorting._check_q(qs, plain)
    dtype = sorting._result_dtype(values, user_q, method, plain)
    x, count = _selected_lanes(values, where, axes, name, skip_nan)
    if skip_nan and x.dtype.kind == "f":  # NumPy's nanquantile of a lane of NaNs only: NaN
        return sorting._lane_quantiles(x, count, kept or (), qs, method, dtype, kept is not None,
                                       skip_nan=True)
    _raise_if_empty(count, name)
    # not skip_nan: the ranks' lanes run over ``count`` values; a selected NaN makes it NaN
    return sorting._lane_quantiles(x, count, kept or (), qs, method, dtype, kept is not None,
                                   skip_nan=False)


def median(values: Tracer, where: Tracer, axes: tuple, kept, name: str):
    """``np.median``/``np.nanmedian`` of the selection: its middle value or the mean of its two
    middle ones (as float64 for integers and booleans, in float32 for float16, as NumPy's mean);
    NaN where a lane selects nothing (NumPy warns), or holds a NaN (median only)."""
    if values.dtype.kind == "c":
        raise JitTypeError(f"numpy.{name} of complex numbers is not supported under jit "
                           f"(at {user_location()})")
    if values.dtype.kind != "f":
        values = prims.convert(values, np.dtype(np.float64))
    x, count = _selected_lanes(values, where, axes, name, name == "nanmedian")
    h = count // 2
    ranks = [np.stack([h - 1, h], axis=-1)]
    if name == "median":  # the last selected value: NaN where the lane holds a NaN
        ranks.append(np.reshape(count - 1, count.shape + (1,)))
    s = sorting._selected_at(x, ranks)
    low, high = sorting._at(s, h - 1), sorting._at(s, h)
    wide = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype  # NumPy's mean's sum
    two = np.array(2, wide)
    mean = prims.convert((prims.convert(low, wide) + prims.convert(high, wide)) / two, x.dtype)
    value = np.where(count % 2 == 1, high, mean)
    value = np.where(count == 0, np.array(np.nan, x.dtype), value)
    if name == "median":  # NumPy copies its partition's last value, a selected NaN, over it
        lanes, _ = sorting._lanes_last(values, axes, name)
        kept_lanes, _ = sorting._lanes_last(where, axes, name)
        nan = kept_lanes & np.isnan(lanes)  # (the left-out fill is a NaN of its own bits)
        first = np.take_along_axis(lanes, np.argmax(nan, axis=-1)[..., None], axis=-1)[..., 0]
        value = np.where(np.any(nan, axis=-1), first, value)
    # + 0.0 as NumPy's mean of the middle values: -0.0 is +0.0
    value = value + np.zeros((), x.dtype)
    return prims.reshape(value, kept) if kept is not None else as_scalar(value)


def head_median(head: Tracer, length: Tracer, kept):
    """``np.median`` of the first ``length`` values (0-d int64) of the 1-d ``head`` (a window
    ``x[i - w + 1:i + 1]`` of traced bounds rebased to its start, or a compacted selection),
    at a cost of ``length``, not of ``len(head)`` (session 54: a 31-value median in a loop over
    20,000 points cost 100 us, each step filling, counting and selecting all 20,000): the head
    sorted (``array.head_sort``), its middle value or the mean of its two middle ones, the
    first NaN of the window where it holds one (NumPy's), NaN where it is empty. None where
    the dtype has no head sort (the caller's full-capacity median then)."""
    if head.ndim != 1 or head.shape[0] == 0 or head.dtype.kind not in "fiu" \
            or head.dtype.itemsize not in (4, 8):
        return None
    if head.dtype.kind != "f":
        head = prims.convert(head, np.dtype(np.float64))
    n, dtype = head.shape[0], head.dtype
    s = prims.head_sort(head, length)
    h = length // 2

    def at(i):
        return s[prims.clip(i, 0, n - 1)]

    high = at(h)
    mean = (at(h - 1) + high) / np.array(2, dtype)  # (NumPy's mean of the two: their sum over 2)
    value = np.where(length % 2 == 1, high, mean)
    nans = compaction.head_sum(prims.convert(np.isnan(head), dtype), length)
    nans = prims.convert(nans, np.dtype(np.int64))
    value = np.where(nans > 0, at(length - nans), value)  # (a stable sort: the NaNs last, in order)
    value = np.where(length == 0, np.array(np.nan, dtype), value)
    value = value + np.zeros((), dtype)  # (NumPy's mean from +0.0: -0.0 is +0.0)
    return prims.reshape(value, kept) if kept is not None else as_scalar(value)


@prims.numpy_scalar  # at one x: a NumPy float, as in NumPy
def interp(x, xp, fp, left=None, right=None, period=None):
    """``np.interp`` with selections among its arrays (``np.interp(t, t[good], x[good])``, gap
    filling): the result has ``x``'s shape whatever the count. Knots ``xp``/``fp`` selected are
    compacted (``run_length.as_prefix``) and searched over their count (the rows past it +inf,
    after any x the search can place), read at ``count - 1`` for the last knot; NumPy's
    one-knot loop where the count is 1, its ValueErrors from the call where it is 0 or the two
    counts differ. An ``x`` selected is interpolated row by row, a selection by its mask."""
    if isinstance(x, masked.MaskedSelection):
        return x._like(interp(x.values, xp, fp, left, right, period))
    sel = next(v for v in (xp, fp, left, right, period) if isinstance(v, masked.MaskedSelection))
    if not (isinstance(xp, masked.MaskedSelection) and isinstance(fp, masked.MaskedSelection)) \
            or any(isinstance(v, masked.MaskedSelection) for v in (left, right, period)):
        raise sel._refusal("numpy.interp with one of xp, fp selected and not the other: select "
                           "both by one mask, np.interp(t, t[good], x[good])")
    if period is not None:
        raise sel._refusal("numpy.interp with period= over selected knots")
    as_prefix = masked.LENGTH_OPS["as_prefix"]
    xp, fp = as_prefix(xp), as_prefix(fp)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"object too deep for desired array: interp needs 1-d xp and fp "
                         f"(at {user_location()})")
    f64 = np.dtype(np.float64)
    trace = xp.values.owner_trace
    x = sorting._as_traced(trace, x)
    for v in (x, xp.values):
        if not np.can_cast(v.dtype, f64):
            raise JitTypeError(f"Cannot cast array data from {v.dtype!r} to {f64!r} according to "
                               f"the rule 'safe' (at {user_location()})")
    if fp.dtype.kind == "c":
        raise sel._refusal("numpy.interp of complex values at selected knots")
    cap = xp.values.shape[0]
    if cap == 0:
        raise ValueError(f"array of sample points is empty (at {user_location()})")
    count = xp.length
    _raise_interp_counts(count, fp.length)
    x, xs, ys = (prims.convert(v, f64) for v in (x, xp.values, fp.values))
    xs = np.where(xp.mask, xs, np.inf)  # (the rows past the count sort after every x but +inf)
    last = np.maximum(count - 1, 0)
    x_first, x_last = xs[0], np.take(xs, last, mode="clip")
    y_first, y_last = ys[0], np.take(ys, last, mode="clip")
    lval = y_first if left is None else prims.convert(sorting._as_traced(trace, left), f64)
    rval = y_last if right is None else prims.convert(sorting._as_traced(trace, right), f64)
    one = np.where(x < x_first, lval, np.where(x > x_first, rval, np.broadcast_to(y_first, x.shape)))
    j = np.clip(prims.searchsorted(xs, x, "right") - 1, 0, np.maximum(count - 2, 0))
    x0, x1 = np.take(xs, j, mode="clip"), np.take(xs, j + 1, mode="clip")
    y0, y1 = np.take(ys, j, mode="clip"), np.take(ys, j + 1, mode="clip")
    slope = (y1 - y0) / (x1 - x0)
    inside = slope * (x - x0) + y0
    again = slope * (x - x1) + y1  # NumPy's second try where the first is NaN (inf slopes)
    inside = np.where(np.isnan(inside), np.where(np.isnan(again) & (y0 == y1), y0, again), inside)
    inside = np.where(x == x0, y0, inside)
    inside = np.where(x == x_last, y_last, inside)
    out = np.where(x < x_first, lval, np.where(x > x_last, rval, inside))
    return np.where(count == 1, one, np.where(np.isnan(x), x, out))


def _raise_interp_counts(count: Tracer, other: Tracer) -> None:
    """NumPy's ValueErrors for knots that select nothing, or xp and fp of different counts,
    raised by the call (a callback on the branch taken only then)."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback

    where = user_location()

    def fail(code):
        raise ValueError(("array of sample points is empty" if code == 1 else
                          "fp and xp are not of the same length.") + f" (at {where})")

    code = np.where(count == 0, 1, np.where(count != other, 2, 0))
    cond(code != 0, lambda: debug_callback(fail, code), lambda: None)


masked.SELECTION_STATISTICS.update(quantile=quantile, median=median, histogram_of=histogram_of,
                                   bincount_of=bincount_of, head_median=head_median,
                                   bounded=compaction.bounded, interp=interp,
                                   histogram2d=histogram2d, histogramdd=histogramdd)
