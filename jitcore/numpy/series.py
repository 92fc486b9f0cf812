"""Functions along one axis of a series (issue 12, item 6): the scans ``cumulative_sum``,
``cumulative_prod``, ``nancumsum``, ``nancumprod``; ``gradient`` (uniform spacing) and
``unwrap``; ``digitize`` and ``isin``; the splits ``array_split``, ``hsplit``, ``vsplit``,
``dsplit`` (static sections).

Each is written with NumPy's functions on traced values (``cumsum``, slices, ``searchsorted``,
comparisons), in NumPy's order of operations where it decides the rounding.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["array_split", "cumulative_prod", "cumulative_sum", "digitize", "dsplit", "gradient",
           "hsplit", "isin", "nancumprod", "nancumsum", "unwrap", "vsplit"]


def _no_out(name: str):
    raise UnsupportedError(f"numpy.{name}: out= is not supported under jit (at {user_location()})")


def _cumulative(np_fn, scan, identity: int):
    """``cumulative_sum``/``cumulative_prod``: ``cumsum``/``cumprod`` along an axis (required
    past 1-d), with the identity first when ``include_initial``."""
    def fn(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        if not traced(x):
            return np_fn(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial)
        if out is not None:
            _no_out(np_fn.__name__)
        refuse_traced(axis, f"the axis of numpy.{np_fn.__name__}")
        if x.ndim == 0:  # NumPy 2.4 scans a 0-d array as a 1-d one
            x = np.reshape(x, (1,))
        if axis is None:
            if x.ndim > 1:
                raise ValueError("For arrays which have more than one dimension ``axis`` argument is "
                                 "required.")
            axis = 0
        (axis,) = prims.normalize_axes(axis, x.ndim, np_fn.__name__)
        result = scan(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = tuple(1 if k == axis else n for k, n in enumerate(result.shape))
            first = prims.constant(x.owner_trace, np.full(shape, identity, result.dtype))
            result = np.concatenate([first, result], axis=axis)
        return result

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"``numpy.{np_fn.__name__}``: ``{scan.__name__}`` along ``axis``, the identity first " \
                 "when ``include_initial``."
    implements(np_fn)(fn)
    return fn


cumulative_sum = _cumulative(np.cumulative_sum, np.cumsum, 0)
cumulative_prod = _cumulative(np.cumulative_prod, np.cumprod, 1)


def _nan_scan(np_fn, scan, identity: int):
    """``nancumsum``/``nancumprod``: NaN counted as the identity (only inexact dtypes hold NaN)."""
    def fn(a, axis=None, dtype=None, out=None):
        if not traced(a):
            return np_fn(a, axis, dtype, out)
        if out is not None:
            _no_out(np_fn.__name__)
        if a.dtype.kind in "fc":
            a = np.where(np.isnan(a), np.zeros((), a.dtype) + identity, a)
        return scan(a, axis=axis, dtype=dtype)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"``numpy.{np_fn.__name__}``: NaN replaced by {identity}, then ``{scan.__name__}``."
    implements(np_fn)(fn)
    return fn


nancumsum = _nan_scan(np.nancumsum, np.cumsum, 0)
nancumprod = _nan_scan(np.nancumprod, np.cumprod, 1)


def _along(axis: int, ndim: int, part) -> tuple:
    return tuple(part if k == axis else slice(None) for k in range(ndim))


def _gradient_1axis(f: Tracer, axis: int, dx, edge_order: int) -> Tracer:
    """NumPy's uniform-spacing formulas along ``axis``: central differences inside, one-sided
    ones of ``edge_order`` at the two ends, each in NumPy's order of operations."""
    def at(part):
        return f[_along(axis, f.ndim, part)]

    inside = (at(slice(2, None)) - at(slice(None, -2))) / (2. * dx)
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / dx
        last = (at(slice(-1, None)) - at(slice(-2, -1))) / dx
    else:
        a, b, c = -(3. / 2) / dx, 2. / dx, -0.5 / dx
        first = a * at(slice(0, 1)) + b * at(slice(1, 2)) + c * at(slice(2, 3))
        a, b, c = 0.5 / dx, -2. / dx, (3. / 2) / dx
        last = a * at(slice(-3, -2)) + b * at(slice(-2, -1)) + c * at(slice(-1, None))
    # NumPy writes into an array of f's dtype: a spacing of a wider dtype computes wider, then rounds.
    return np.concatenate([first, inside, last], axis=axis).astype(f.dtype, copy=False)


def _gradient_coordinates(f: Tracer, axis: int, x, edge_order: int) -> Tracer:
    """NumPy's formulas for a 1-d array of coordinates along ``axis``: second-order central
    differences with the two neighbouring spacings inside, one-sided ones at the ends. NumPy
    takes the uniform formulas when every spacing equals the first (a choice on the data):
    both are computed and that choice made per call."""
    x = x if isinstance(x, Tracer) else prims.constant(f.owner_trace, np.asarray(x))
    if x.ndim != 1:
        raise ValueError("distances must be either scalars or 1d")
    if x.shape[0] != f.shape[axis]:
        raise ValueError("when 1d, distances must match the length of the corresponding dimension")
    if x.dtype.kind in "iub":
        x = x.astype(np.float64)
    dx = np.diff(x)
    uniform = _gradient_1axis(f, axis, dx[0], edge_order)

    def at(part):
        return f[_along(axis, f.ndim, part)]

    def along(v):  # a coefficient per position, broadcast along ``axis``
        return np.reshape(v, [-1 if d == axis else 1 for d in range(f.ndim)])

    dx1, dx2 = along(dx[:-1]), along(dx[1:])
    a = -(dx2) / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inside = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / dx[0]
        last = (at(slice(-1, None)) - at(slice(-2, -1))) / dx[-1]
    else:
        dx1, dx2 = dx[0], dx[1]
        a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = - dx1 / (dx2 * (dx1 + dx2))
        first = a * at(slice(0, 1)) + b * at(slice(1, 2)) + c * at(slice(2, 3))
        dx1, dx2 = dx[-2], dx[-1]
        a = (dx2) / (dx1 * (dx1 + dx2))
        b = - (dx2 + dx1) / (dx1 * dx2)
        c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * at(slice(-3, -2)) + b * at(slice(-2, -1)) + c * at(slice(-1, None))
    general = np.concatenate([first, inside, last], axis=axis).astype(f.dtype, copy=False)
    return np.where(np.all(dx == dx[0]), uniform, general)


@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """``numpy.gradient`` with uniform spacing (no spacing, one scalar, or one per axis, traced
    or not) or 1-d coordinate arrays (NumPy's non-uniform formulas); the result in NumPy's
    dtype (integers as float64)."""
    if not traced(f, *varargs):
        return np.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    refuse_traced(axis, "the axis of numpy.gradient")
    if not isinstance(f, Tracer):
        f = prims.constant(prims.find_trace(*varargs), np.asarray(f))
    axes = tuple(range(f.ndim)) if axis is None else prims.normalize_axes(axis, f.ndim, "gradient")
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if f.dtype.kind in "iu":
        f = f.astype(np.float64)
    out = []
    for ax, dx in zip(axes, spacing):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if f.dtype.kind == "b":
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                            "bitwise_xor, the `^` operator, or the logical_xor function instead.")
        if np.ndim(dx) == 0:
            out.append(_gradient_1axis(f, ax, dx, edge_order))
        else:
            out.append(_gradient_coordinates(f, ax, dx, edge_order))
    return out[0] if len(axes) == 1 else tuple(out)


@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """NumPy's unwrapping: differences folded into ``[-period/2, period/2)`` (the boundary
    taking the sign of the difference), corrections where ``|diff| >= discont``, summed."""
    if not traced(p):
        return np.unwrap(p, discont, axis, period=period)
    refuse_traced(axis, "the axis of numpy.unwrap")
    refuse_traced(period, "the period of numpy.unwrap")
    refuse_traced(discont, "the discont of numpy.unwrap")
    (axis,) = prims.normalize_axes(axis, p.ndim, "unwrap")
    dd = np.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = np.mod(dd - low, period) + low
    if ambiguous:
        ddmod = np.where((ddmod == low) & (dd > 0), np.asarray(high, ddmod.dtype), ddmod)
    correct = ddmod - dd
    correct = np.where(np.abs(dd) < discont, np.zeros((), correct.dtype), correct)
    up = p.astype(dtype)
    later = _along(axis, p.ndim, slice(1, None))
    rest = (p[later] + np.cumsum(correct, axis)).astype(dtype)
    return np.concatenate([up[_along(axis, p.ndim, slice(0, 1))], rest], axis=axis)


@implements(np.digitize)
@prims.numpy_scalar  # the bin of one x: a NumPy integer, as in NumPy
def digitize(x, bins, right=False):
    """The bin of each ``x``: ``searchsorted`` on monotonic ``bins``, increasing or decreasing
    as NumPy decides: increasing when the first two neighbours that differ (NaN differs from
    everything) increase, or none differ, else decreasing; a comparison with NaN never breaks
    monotonicity, so sorted bins with NaN last increase.
    Static bins: the direction and NumPy's ValueError at trace time; traced ones choose the
    direction at run time, and bins that are not monotonic are not detected."""
    if not traced(x, bins):
        return np.digitize(x, bins, right)
    trace = prims.find_trace(x, bins)
    if np.iscomplexobj(x):
        raise TypeError("x may not be complex")
    if np.ndim(bins) != 1:
        raise ValueError("object too deep for desired array" if np.ndim(bins) > 1 else
                         "object of too small depth for desired array")
    x = x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x))

    # each value searched alone over the whole table (lanes of one): a search from the last
    # answer (kernelize/sort.py) answers the same only on sorted bins, and bins with NaN reversed
    # are not sorted in the search's order
    alone = np.reshape(x, (*np.shape(x), 1))

    def increasing(b):
        return np.searchsorted(b, alone, side="left" if right else "right")[..., 0]

    def decreasing(b):  # the same side as increasing, on the reversed bins (NumPy's)
        return b.shape[0] - np.searchsorted(b[::-1], alone, side="left" if right else "right")[..., 0]

    if not isinstance(bins, Tracer):
        bins = np.asarray(bins)
        differ = bins[1:] != bins[:-1]
        if not differ.any():
            return increasing(prims.constant(trace, bins))
        k = int(np.argmax(differ))
        rest_up, rest_down = bins[k + 1:-1] < bins[k + 2:], bins[k + 1:-1] > bins[k + 2:]
        if bins[k] < bins[k + 1]:
            if not rest_down.any():
                return increasing(prims.constant(trace, bins))
        elif not rest_up.any():  # NumPy: any other first pair (NaN in it too) decreases
            return decreasing(prims.constant(trace, bins))
        raise ValueError("bins must be monotonically increasing or decreasing")
    if bins.shape[0] < 2:
        return increasing(bins)
    differ = bins[1:] != bins[:-1]
    k = np.argmax(differ)
    up = np.logical_or(~differ[k], bins[:-1][k] < bins[1:][k])  # all equal: increasing
    return np.where(up, increasing(bins), decreasing(bins))


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element equals one of ``test_elements`` (any shape, static size): one
    comparison with each, O(size x tests)."""
    if not traced(element, test_elements):
        return np.isin(element, test_elements, assume_unique, invert, kind=kind)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    trace = prims.find_trace(element, test_elements)
    element = element if isinstance(element, Tracer) else prims.constant(trace, np.asarray(element))
    tests = np.ravel(test_elements)
    found = np.any(element[..., None] == tests, axis=-1) if tests.shape[0] else \
        np.zeros(element.shape, bool)
    return np.logical_not(found) if invert else found


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    """``split`` into ``n`` static sections, the first ``len % n`` one longer (NumPy's sizes)."""
    if not traced(ary):
        return np.array_split(ary, indices_or_sections, axis)
    refuse_traced(indices_or_sections, "the sections of numpy.array_split")
    (axis,) = prims.normalize_axes(axis, ary.ndim, "array_split")
    if np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(ary.shape[axis], sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.cumsum([0, *sizes]).tolist()
    else:
        bounds = [0, *[int(i) for i in indices_or_sections], ary.shape[axis]]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        parts.append(ary[_along(axis, ary.ndim, slice(lo, hi))])
    return parts


def _split_along(np_fn, axis_of, min_ndim: int, message: str):
    def fn(ary, indices_or_sections):
        if not traced(ary):
            return np_fn(ary, indices_or_sections)
        if ary.ndim < min_ndim:
            raise ValueError(message)
        return np.split(ary, indices_or_sections, axis_of(ary.ndim))

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"``numpy.{np_fn.__name__}``: ``split`` along its axis (static sections)."
    implements(np_fn)(fn)
    return fn


hsplit = _split_along(np.hsplit, lambda n: 1 if n > 1 else 0, 1,
                      "hsplit only works on arrays of 1 or more dimensions")
vsplit = _split_along(np.vsplit, lambda n: 0, 2, "vsplit only works on arrays of 2 or more dimensions")
dsplit = _split_along(np.dsplit, lambda n: 2, 3, "dsplit only works on arrays of 3 or more dimensions")
