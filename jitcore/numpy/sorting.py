"""NumPy's sorting and order statistics under ``jit``: ``sort``, ``argsort``, ``searchsorted``,
``lexsort``, ``median``, ``quantile``, ``percentile`` and their NaN-skipping ``nan*`` forms,
``partition``/``argpartition``, and ``interp`` (a binary search per point).

``partition``, ``argpartition``, ``median`` and ``quantile``/``percentile`` at a constant ``q``
select the ranks they read (``array.partition``: a quickselect per lane,
``codegen/cpu/sort_select.py``) instead of sorting; the nan-forms and a traced ``q`` read ranks
known only when the function runs (each lane's count of numbers, the q's values), computed
then and selected there too (``array.partition_at``: the ranks an operand).

Sorting is the compiled ``array.sort``/``array.argsort`` (a stable merge sort per lane, see
``passes/kernelize/sort.py``): every ``kind`` gives the stable order, which is what NumPy's
``kind='stable'`` gives and one of the orders its default ``'quicksort'`` may give (NumPy
documents no tie order for it; values are the same either way). NaN sorts last.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import masked
from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, as_scalar, user_location

__all__ = ["argpartition", "argsort", "interp", "lexsort", "median", "nanmedian", "nanpercentile",
           "nanquantile", "partition", "percentile", "quantile", "searchsorted", "sort"]

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _lane_axis(a: Tracer, axis, name: str, kind, order) -> tuple[Tracer, int]:
    """``a`` (flattened for ``axis=None``) and its normalised sort axis; NumPy's errors."""
    if order is not None:
        raise UnsupportedError(f"numpy.{name} with order= (structured arrays) is not supported "
                               f"under jit (at {user_location()})")
    if kind not in _KINDS:
        raise ValueError(f"{name} kind must be one of 'quick', 'heap', or 'stable' (got {kind!r}) "
                         f"(at {user_location()})")
    if a.dtype.kind == "c" and name not in ("sort", "argsort"):
        raise UnsupportedError(f"numpy.{name} of complex numbers is not supported under jit yet "
                               f"(at {user_location()})")
    if axis is None:
        return prims.reshape(a, (-1,)), 0
    if a.ndim == 0:
        raise np.exceptions.AxisError(operator.index(axis), 0)
    (ax,) = prims.normalize_axes(operator.index(axis), a.ndim, name)
    return a, ax


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.sort``: a sorted copy; ``axis=None`` sorts the flattened array."""
    if not traced(a):
        return np.sort(a, axis=axis, kind=kind, order=order, stable=stable)
    x, ax = _lane_axis(a, axis, "sort", kind, order)
    if x.dtype.kind == "c":
        return np.take_along_axis(x, _complex_order(x, ax), axis=ax)
    return prims.sort(x, ax)


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.argsort``: int64 positions in stable order (ties keep their input order)."""
    if not traced(a):
        return np.argsort(a, axis=axis, kind=kind, order=order, stable=stable)
    x, ax = _lane_axis(_positions_of_0d(a), axis, "argsort", kind, order)
    if isinstance(a, Tracer) and a.ndim == 0:
        return _first_position(x)
    if x.dtype.kind == "c":
        return _complex_order(x, ax)
    return prims.argsort(x, ax)


def _positions_of_0d(a):
    """``a``, a 0-d array as one of one element: NumPy's argsort and argpartition of a 0-d
    array (or scalar) order it as that (``array([0])``; axis -1, 0 or None), where sort and
    partition raise AxisError."""
    return prims.reshape(a, (1,)) if isinstance(a, Tracer) and a.ndim == 0 else a


def _first_position(x: Tracer) -> Tracer:
    """The order of one element (a 0-d array's, checked as one of one element): [0]."""
    return prims.constant(x.owner_trace, np.zeros(1, np.intp))


def _complex_order(z: Tracer, axis: int) -> Tracer:
    """NumPy's order of complex numbers: those without NaN by real part, ties by imaginary part;
    then those with a NaN in four classes, R + nanj (by real part), nan + Rj (by imaginary part),
    nan + nanj. Stable argsorts from the least significant key: the imaginary parts, the real
    parts (NaN ties with NaN, so the order so far stays), then the class."""
    re, im = np.real(z), np.imag(z)
    order = prims.argsort(im, axis)
    order = np.take_along_axis(order, prims.argsort(np.take_along_axis(re, order, axis=axis), axis),
                               axis=axis)
    nan_class = np.isnan(im).astype(np.int8) + np.int8(2) * np.isnan(re).astype(np.int8)
    by_class = prims.argsort(np.take_along_axis(nan_class, order, axis=axis), axis)
    return np.take_along_axis(order, by_class, axis=axis)


@implements(np.lexsort)
def lexsort(keys, axis=-1):
    """``numpy.lexsort``: the order that sorts by the last key, ties broken by the one before
    it, and so on: a stable argsort by each key in turn, first key first, each applied to the
    order so far (NaN last within each key, as NumPy)."""
    rows = [keys[i] for i in range(keys.shape[0])] if isinstance(keys, Tracer) else list(keys)
    if not traced(*rows):
        return np.lexsort(keys, axis=axis)
    if not rows:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    trace = prims.find_trace(*rows)
    rows = [_as_traced(trace, k) for k in rows]
    if len({k.shape for k in rows}) > 1:
        raise ValueError("all keys need to be the same shape")
    if rows[0].ndim == 0:  # NumPy: the position of the one element, for axis -1 or 0
        if operator.index(axis) not in (-1, 0):
            raise np.exceptions.AxisError(operator.index(axis), 0)
        return np.int64(0)
    order = None
    for k in rows:
        if order is not None:
            k = np.take_along_axis(k, order, axis=axis)
        step = argsort(k, axis=axis, kind="stable")
        order = step if order is None else np.take_along_axis(order, step, axis=axis)
    return order


def _as_traced(trace, x) -> Tracer:
    return x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x))


@implements(np.searchsorted)
@prims.numpy_scalar  # one value searched for: a NumPy integer, as in NumPy
def searchsorted(a, v, side="left", sorter=None):
    """``numpy.searchsorted``: a compiled binary search per value (NaN sorts last), in the
    common dtype of ``a`` and ``v``; ``sorter`` reads ``a`` through those positions first."""
    if not traced(a, v, sorter):
        return np.searchsorted(a, v, side=side, sorter=sorter)
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r}) (at {user_location()})")
    if isinstance(a, masked.MaskedSelection):  # np.searchsorted(np.unique(lab), lab): over the count
        return masked.LENGTH_OPS["functions"][np.searchsorted](a, v, side, sorter)
    if isinstance(v, masked.MaskedSelection):  # each value on its own: a selection by v's mask
        return v._like(searchsorted(a, v.values, side, sorter))
    trace = prims.find_trace(a, v, sorter)
    a, v = _as_traced(trace, a), _as_traced(trace, v)
    if a.ndim != 1:
        raise ValueError(f"object too deep for desired array: searchsorted needs a 1-d array, "
                         f"got {a.ndim}-d (at {user_location()})")
    if a.dtype.kind == "c" or v.dtype.kind == "c":
        raise UnsupportedError(f"numpy.searchsorted of complex numbers is not supported under jit "
                               f"yet (at {user_location()})")
    if sorter is not None:
        a = np.take(a, _as_traced(trace, sorter))
    dtype = np.result_type(a.dtype, v.dtype)
    return prims.searchsorted(prims.convert(a, dtype), prims.convert(v, dtype), side)


def _lanes_last(a: Tracer, axis, name: str) -> tuple[Tracer, tuple[int, ...]]:
    """``a`` with the reduced axes (all for None) merged into one last axis, and the shape
    ``keepdims`` gives (those axes as 1)."""
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        sorted(prims.normalize_axes(axis, a.ndim, name)))
    kept = [d for d in range(a.ndim) if d not in axes]
    x = prims.transpose(a, (*kept, *axes)) if axes != tuple(range(a.ndim - len(axes), a.ndim)) else a
    lane = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    x = prims.reshape(x, (*(a.shape[d] for d in kept), lane))
    keep_shape = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    return x, keep_shape


def _refuse_empty(n: int, name: str) -> None:
    if n == 0:  # NumPy's IndexError, from its index -1 into the empty lane
        raise IndexError(f"numpy.{name} of an empty axis has no value: index -1 is out of bounds "
                         f"(at {user_location()})")


def _selected(x: Tracer, ranks) -> Tracer:
    """The lanes ``x`` (along its last axis, not empty) partitioned at ``ranks`` (the order
    statistics read), and at the last place for floats, which then holds NaN where the lane
    holds one (``_nan_where_any``): a selection, not a sort (``codegen/cpu/sort_select.py``)."""
    n = x.shape[-1]
    ranks = {r % n for r in ranks} | ({n - 1} if x.dtype.kind == "f" else set())
    return prims.partition(x, x.ndim - 1, tuple(sorted(ranks)))


def _nan_where_any(sorted_lanes: Tracer, value: Tracer) -> Tracer:
    """``value`` where the lane holds no NaN (NaN sorts last), else the lane's last value, the
    NaN from the data with its sign and payload: NumPy's ``_median_nancheck`` and
    ``_quantile`` copy ``part[..., -1]`` there, not a fresh NaN."""
    if sorted_lanes.dtype.kind != "f":
        return value
    last = sorted_lanes[..., -1]
    return np.where(np.isnan(last), prims.convert(last, value.dtype), value)


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
# NumPy's continuous Hyndman & Fan methods: (alpha, beta) of the virtual index
# n q + alpha + q (1 - alpha - beta) - 1.
_ALPHA_BETA = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_ALL_METHODS = (*_METHODS, "inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                *_ALPHA_BETA)


def _index_dtype(q) -> np.dtype:
    """The dtype NumPy works out a quantile's position and weight in: ``q``'s own for a float
    ``q`` (``n * q`` with ``n`` a Python int keeps a float32 or float16 ``q``'s dtype), float64
    otherwise (an integer or bool ``q`` holds only 0 and 1, exact in float64)."""
    dtype = np.asarray(q).dtype if not isinstance(q, Tracer) else q.dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _takes_integer_index(q, method: str) -> bool:
    """NumPy's ``linear`` at an integer (or bool) ``q`` gets whole positions, ``(n - 1) * q``,
    and takes the value there without interpolating (an infinite neighbour gives no NaN)."""
    return method == "linear" and _q_kind(q) in "biu"


def _q_kind(q) -> str:
    return (q.dtype if isinstance(q, Tracer) else np.asarray(q).dtype).kind


def _index_qs(q, method: str):
    """``q`` (constant or traced) in the dtype its positions are worked out in."""
    return q if _takes_integer_index(q, method) else q.astype(_index_dtype(q))


def _positions(n: int, q, method: str) -> tuple[int, int, float | None]:
    """NumPy's neighbours and interpolation weight (None: take, no interpolation) for quantile
    ``q`` (a NumPy scalar of ``_index_dtype``) of ``n`` sorted values, as its
    ``_QuantileMethods``, ``_get_indexes`` and ``_get_gamma`` compute them, in ``q``'s dtype
    (``n`` a Python int, as NumPy's): past the last position both neighbours are the last
    value and the weight is counted from -1 (an infinite last value interpolates to NaN
    there, as in NumPy); before the first, both are the first."""
    if _takes_integer_index(q, method):
        i = (n - 1) * int(q)
        return i, i, None
    if method in ("lower", "higher", "nearest"):
        i = int({"lower": np.floor, "higher": np.ceil, "nearest": np.around}[method]((n - 1) * q))
        return i, i, None
    if method in ("inverted_cdf", "closest_observation"):  # a discrete step, clipped at 0
        index = n * q - 1
        if method == "closest_observation":
            index = index - 0.5
        below = np.floor(index)
        at_below = index - below == 0
        if method == "closest_observation":
            at_below = at_below and below % 2 == 1
        i = max(int(below if at_below else below + 1), 0)
        return i, i, None
    virtual = _virtual_index(n, n - 1, q, method)
    if virtual >= n - 1:
        below, above = -1, -1
    elif virtual < 0:
        below, above = 0, 0
    else:
        below = int(np.floor(virtual))
        above = below + 1
    gamma = float(virtual - below)  # in q's dtype, as NumPy's ``_get_gamma``
    if method == "midpoint":
        gamma = 0.0 if virtual % 1 == 0 else 0.5
    elif method == "averaged_inverted_cdf":
        gamma = 0.5 if gamma == 0 else 1.0
    return below % n, above % n, gamma


def _virtual_index(n, n_less_1, q, method: str):
    """NumPy's virtual index of quantile ``q`` among ``n`` sorted values for the methods that
    interpolate, in ``q``'s dtype: ``n`` and ``n_less_1`` (``n - 1``, rounded once) are Python
    ints (``_positions``) or traced per lane and already in that dtype (``_lane_positions``)."""
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "midpoint":
        return 0.5 * (np.floor(n_less_1 * q) + np.ceil(n_less_1 * q))
    return n_less_1 * q


def _lerp(a: Tracer, b: Tracer, t: float, dtype: np.dtype) -> Tracer:
    """NumPy's ``_lerp``: ``a + (b - a) t`` below t = 0.5, ``b - (b - a)(1 - t)`` from it."""
    diff = prims.convert(b - a, dtype)
    a, b = prims.convert(a, dtype), prims.convert(b, dtype)
    w = prims.constant(a.owner_trace, t, dtype)
    if t >= 0.5:
        return b - diff * prims.constant(a.owner_trace, 1 - t, dtype)
    return a + diff * w


def _quantile(a, q: np.ndarray, axis, method: str, keepdims: bool, name: str, user_q):
    _check_method(method, name)
    dtype = _result_dtype(a, user_q, method, name)
    x, keep_shape = _lanes_last(a, axis, name)
    n = x.shape[-1]
    _refuse_empty(n, name)
    at = [_positions(n, qv, method) for qv in _index_qs(q, method).reshape(-1)]
    s = _selected(x, {r for lo, hi, _ in at for r in (lo, hi)})
    out = []
    for lo, hi, t in at:
        value = prims.convert(s[..., lo], dtype) if t is None else _lerp(s[..., lo], s[..., hi], t, dtype)
        value = _nan_where_any(s, value)
        out.append(prims.reshape(value, keep_shape) if keepdims else value)
    if q.ndim:
        return np.reshape(np.stack(out), q.shape + out[0].shape)
    return out[0] if keepdims else as_scalar(out[0])  # NumPy's scalar for one value


def _check_q(q, name: str) -> None:
    """NumPy's ValueError for a q outside [0, 1] (NaN too): now for a constant q, when the
    function runs for a traced one (a callback on the branch taken only then)."""
    what = "Percentiles must be in the range [0, 100]" if name == "percentile" else (
        "Quantiles must be in the range [0, 1]")
    if not isinstance(q, Tracer):
        if q.size and not (np.all(q >= 0) and np.all(q <= 1)):
            raise ValueError(f"{what} (at {user_location()})")
        return
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    where = user_location()

    def fail(_):
        raise JitValueError(f"{what} (at {where})")

    bad = np.any((q < 0) | (q > 1) | np.isnan(q))  # no ~: a Python float q's comparisons are bools
    cond(bad, lambda: debug_callback(fail, bad), lambda: None)


def _gathered(q):
    """``q`` as one traced array where it is a list or tuple holding traced values."""
    return prims.nested_array(q, None) if isinstance(q, (list, tuple)) and prims.holds_tracer(q) else q


def _q_stand_in(user_q):
    """A value of ``user_q``'s kind for NumPy to find the result's dtype from: a Python scalar
    for a weak (Python scalar) argument, an array of its dtype otherwise."""
    if isinstance(user_q, Tracer):
        if user_q.weak:
            return {"b": False, "i": 0, "u": 0, "f": 0.5, "c": 0.5j}[user_q.dtype.kind]
        return np.zeros(user_q.shape, user_q.dtype)
    return user_q


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
             *, weights=None, interpolation=None):
    """``numpy.quantile``: a compiled selection (a sort for a traced ``q``), then NumPy's
    neighbours and interpolation (every method of NumPy's, ``nanquantile`` too); a lane
    holding NaN gives NaN. A traced ``q`` is checked when the function runs, as NumPy checks
    it."""
    if not traced(a, q):
        return np.quantile(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                           method=method, keepdims=keepdims, weights=weights)
    _unsupported_extras("quantile", out, weights, interpolation)
    q = _gathered(q)
    qs = q if isinstance(q, Tracer) else np.asanyarray(q)
    _check_q(qs, "quantile")
    if isinstance(q, Tracer):
        return _traced_q_quantile(a, q, axis, method, keepdims, "quantile", q)
    return _quantile(a, qs, axis, method, keepdims, "quantile", q)


@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
               *, weights=None, interpolation=None):
    """``numpy.percentile``: ``quantile`` at ``q / 100``."""
    if not traced(a, q):
        return np.percentile(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                             method=method, keepdims=keepdims, weights=weights)
    _unsupported_extras("percentile", out, weights, interpolation)
    q = _gathered(q)
    qs = np.true_divide(q if isinstance(q, Tracer) else np.asanyarray(q), 100)
    _check_q(qs, "percentile")
    if isinstance(q, Tracer):
        return _traced_q_quantile(a, qs, axis, method, keepdims, "percentile", q)
    return _quantile(a, qs, axis, method, keepdims, "percentile", q)


def _unsupported_extras(name: str, out, weights, interpolation) -> None:
    for what, given in (("out=", out), ("weights=", weights), ("interpolation=", interpolation)):
        if given is not None:
            raise UnsupportedError(f"numpy.{name} with {what} is not supported under jit "
                                   f"(at {user_location()})")


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.median``: the middle of the lane's order (selected), or the mean of the two middle values
    (added in NumPy's mean accumulator: float32 for float16, float64 for integers); NaN if the
    lane holds one."""
    if not traced(a):
        return np.median(a, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims)
    _unsupported_extras("median", out, None, None)
    if a.dtype == np.bool_:  # NumPy's mean of the middle bools: as 0 and 1, into float64
        a = prims.convert(a, np.uint8)
    if a.dtype.kind == "c":
        raise UnsupportedError(f"numpy.median of {a.dtype} is not supported under jit "
                               f"(at {user_location()})")
    dtype = np.median(np.zeros(2, a.dtype)).dtype
    x, keep_shape = _lanes_last(a, axis, "median")
    n = x.shape[-1]
    if n == 0:
        return _empty_lanes(x, dtype, keep_shape if keepdims else None)
    s = _selected(x, {n // 2, n // 2 - 1} if n % 2 == 0 else {n // 2})
    acc = np.dtype(np.float32) if dtype == np.float16 else dtype
    mid = prims.convert(s[..., n // 2], acc)
    if n % 2 == 0:
        mid = (prims.convert(s[..., n // 2 - 1], acc) + mid) / np.array(2, acc)
    # NumPy takes the mean of the middle value(s), a sum from +0.0: -0.0 comes out +0.0
    value = _nan_where_any(s, prims.convert(mid, dtype)) + np.zeros((), dtype)
    return prims.reshape(value, keep_shape) if keepdims else as_scalar(value)


def _empty_lanes(x: Tracer, dtype, keep_shape: tuple[int, ...] | None):
    """The median of lanes ``x`` that hold no value: NaN (NumPy's answer, with a RuntimeWarning
    that compiled code does not give), one per lane, or of ``keep_shape`` (keepdims); a NumPy
    scalar where the shape is ()."""
    shape = x.shape[:-1] if keep_shape is None else keep_shape
    # + 0: a new array, writable as NumPy's result (not a read-only broadcast view)
    value = np.broadcast_to(prims.constant(x.owner_trace, np.nan, dtype), shape) + np.zeros((), dtype)
    return value if shape else as_scalar(value)


def _nan_lanes(a: Tracer, axis, name: str):
    """``_lanes_last``'s lanes of ``a`` (not empty), how many non-NaN values each holds
    (int64), and the ``keepdims`` shape: NumPy's nan order statistics are the plain ones of
    each lane without its NaNs, which selection puts last. (Callers answer empty arrays
    first.)"""
    x, keep_shape = _lanes_last(a, axis, name)
    _refuse_empty(x.shape[-1], name)
    count = np.sum(~np.isnan(x), axis=-1, dtype=np.int64)
    return x, count, keep_shape


def _take_lanes(s: Tracer, i: Tracer) -> Tracer:
    """``s[..., i[..., k]]`` per lane for each k, ``i`` clipped into the lane."""
    i = np.clip(i, 0, s.shape[-1] - 1)
    return np.take_along_axis(s, np.broadcast_to(i, s.shape[:-1] + i.shape[-1:]), axis=-1)


def _at(s: Tracer, i: Tracer) -> Tracer:
    """``s[..., i]`` per lane, ``i`` clipped into the lane (an empty lane's result is NaN)."""
    i = np.clip(i, 0, s.shape[-1] - 1)
    return np.take_along_axis(s, i[..., None], axis=-1)[..., 0]


def _lane_positions(count: Tracer, q, method: str):
    """``_positions`` for a traced per-lane length ``count`` (int64): NumPy's neighbours (int64,
    the last non-NaN value for its -1) and interpolation weight (in ``q``'s dtype, which
    ``_index_qs`` chose; None: take, no interpolation) for quantiles ``q`` (broadcast against
    ``count``) of each lane's first ``count`` sorted values."""
    last = count - 1
    if _takes_integer_index(q, method):
        i = last * q.astype(np.int64)
        return i, i, None
    dtype = q.dtype
    n, n_less_1 = prims.convert(count, dtype), prims.convert(last, dtype)
    if method in ("lower", "higher", "nearest"):
        rounded = {"lower": np.floor, "higher": np.ceil, "nearest": np.around}[method](n_less_1 * q)
        i = rounded.astype(np.int64)
        return i, i, None
    if method in ("inverted_cdf", "closest_observation"):  # a discrete step, clipped at 0
        index = n * q - 1  # then - 0.5: NumPy's two roundings
        if method == "closest_observation":
            index = index - 0.5
        below = np.floor(index)
        at_below = index - below == 0
        if method == "closest_observation":
            at_below = at_below & (np.mod(below, 2) == 1)
        i = np.maximum(np.where(at_below, below, below + 1), 0).astype(np.int64)
        return i, i, None
    virtual = _virtual_index(n, n_less_1, q, method)
    above_end, before_start = virtual >= n_less_1, virtual < 0
    below = np.where(above_end, -1.0, np.where(before_start, 0.0, np.floor(virtual)))
    gamma = virtual - below
    if method == "midpoint":
        gamma = np.where(np.mod(virtual, 1) == 0, 0.0, 0.5).astype(dtype)
    elif method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, 1.0).astype(dtype)
    lo = np.where(above_end, last, below.astype(np.int64))
    hi = np.where(above_end | before_start, lo, lo + 1)
    return lo, hi, gamma


def _check_method(method: str, name: str) -> None:
    if method not in _ALL_METHODS:
        raise UnsupportedError(f"numpy.{name} with method={method!r} is not supported under jit; "
                               f"the methods are {', '.join(_ALL_METHODS)} (at {user_location()})")


def _result_dtype(a: Tracer, user_q, method: str, name: str) -> np.dtype:
    """NumPy's result dtype (a Python float q is weak) and its errors (bool, complex), from the
    same call on two values."""
    try:
        return getattr(np, name)(np.zeros(2, a.dtype), _q_stand_in(user_q), method=method).dtype
    except TypeError as e:
        raise JitTypeError(f"{e} (at {user_location()})") from None


def _lane_quantiles(x: Tracer, count: Tracer, keep_shape, q, method: str, dtype: np.dtype,
                    keepdims: bool, skip_nan: bool, whole_lanes: bool = False):
    """Quantiles ``q`` (constant or traced, any shape) of each lane of ``x`` (its last axis,
    not empty): ``skip_nan``, of its ``count`` non-NaN values (int64 per lane), NaN where it
    has none; else of its whole length ``count`` (one for all), NaN where it holds NaN:
    the lanes partitioned at every q's neighbours, ranks found when the function runs
    (``array.partition_at``), then one gather per neighbour, whatever the number of q. NumPy's
    shape: q's first. ``whole_lanes``: ``count`` is the lanes' length (a constant the code
    takes as a run-time extent, so one code serves every length), not a selection's count."""
    lanes = count[..., None]
    lo_i, hi_i, gamma = _lane_positions(lanes, np.reshape(_index_qs(q, method), (-1,)), method)
    plain = not skip_nan  # a NaN sorts last: the last place tells a lane holding one
    wanted = [lo_i, hi_i] if gamma is not None else [lo_i]
    if plain and x.dtype.kind == "f":  # the last place a lane uses, where NaN would sort
        wanted.append(count - 1 if whole_lanes else np.reshape(count - 1, (*np.shape(count), 1)))
    s = _selected_at(x, wanted)
    if gamma is None:
        value = prims.convert(_take_lanes(s, lo_i), dtype)
    else:  # NumPy's _lerp with a weight per lane
        lo, hi = _take_lanes(s, lo_i), _take_lanes(s, hi_i)
        diff = prims.convert(hi - lo, dtype)
        lo, hi, t = (prims.convert(v, dtype) for v in (lo, hi, gamma))
        one = np.ones((), dtype)
        value = np.where(t >= 0.5, hi - diff * (one - t), lo + diff * t)
    # the value at rank count - 1 (the lane's last unless ``count`` is a selection's): NaN sorts last
    if plain and x.dtype.kind == "f" and not whole_lanes:
        last = np.broadcast_to(count - 1, s.shape[:-1])
        no_value = np.isnan(_at(s, last))
    else:
        no_value = (np.isnan(s[..., -1]) if x.dtype.kind == "f" else None) if plain else count == 0
    if no_value is not None:
        value = np.where(no_value[..., None], np.array(np.nan, dtype), value)
    value = np.moveaxis(value, -1, 0)  # the q first, as NumPy puts them
    if keepdims:
        value = prims.reshape(value, (value.shape[0], *keep_shape))
    value = prims.reshape(value, q.shape + value.shape[1:])
    return value if q.ndim or keepdims else as_scalar(value)


def _selected_at(x: Tracer, ranks: list) -> Tracer:
    """The lanes ``x`` (last axis) partitioned at the int64 ``ranks`` (each per lane, or one
    for all; along their last axis), which the function finds when it runs."""
    parts = [np.reshape(r, r.shape if r.ndim else (1,)) for r in ranks]
    parts = [np.broadcast_to(r, (*x.shape[:-1], r.shape[-1])) for r in parts]
    return prims.partition_at(x, x.ndim - 1, np.concatenate(parts, axis=-1))


def _traced_q_quantile(a, q: Tracer, axis, method: str, keepdims: bool, name: str, user_q):
    """``quantile``/``percentile`` at a traced ``q`` (already over 100 for percentile): the
    positions are computed when the function runs, as ``nanquantile``'s are per lane."""
    _check_method(method, name)
    dtype = _result_dtype(a, user_q, method, name)
    x, keep_shape = _lanes_last(a, axis, name)
    _refuse_empty(x.shape[-1], name)
    count = prims.constant(x.owner_trace, np.int64(x.shape[-1]), np.dtype(np.int64))
    return _lane_quantiles(x, count, keep_shape, q, method, dtype, keepdims, skip_nan=False, whole_lanes=True)


def _nan_quantile(a, q, axis, method: str, keepdims: bool, name: str, user_q):
    plain = name[3:]
    if a.size == 0:  # NumPy's answer for an empty array, whatever q: its nanmean
        return np.nanmean(a, axis=axis, keepdims=keepdims)
    if a.dtype.kind != "f":  # nothing to skip
        if isinstance(q, Tracer):
            return _traced_q_quantile(a, q, axis, method, keepdims, plain, user_q)
        return _quantile(a, q, axis, method, keepdims, plain, user_q)
    _check_method(method, name)
    dtype = _result_dtype(a, user_q, method, name)
    x, count, keep_shape = _nan_lanes(a, axis, name)
    return _lane_quantiles(x, count, keep_shape, q, method, dtype, keepdims, skip_nan=True)


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
                *, weights=None, interpolation=None):
    """``numpy.nanquantile``: ``quantile`` of each lane's non-NaN values (the first ``count``
    of the sorted lane, NaN sorting last), NaN for a lane of NaNs only."""
    if not traced(a, q):
        return np.nanquantile(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                              method=method, keepdims=keepdims, weights=weights)
    _unsupported_extras("nanquantile", out, weights, interpolation)
    q = _gathered(q)
    qs = q if isinstance(q, Tracer) else np.asanyarray(q)
    _check_q(qs, "quantile")
    return _nan_quantile(a, qs, axis, method, keepdims, "nanquantile", q)


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """``numpy.nanpercentile``: ``nanquantile`` at ``q / 100``."""
    if not traced(a, q):
        return np.nanpercentile(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                                method=method, keepdims=keepdims, weights=weights)
    _unsupported_extras("nanpercentile", out, weights, interpolation)
    q = _gathered(q)
    qs = np.true_divide(q if isinstance(q, Tracer) else np.asanyarray(q), 100)
    _check_q(qs, "percentile")
    return _nan_quantile(a, qs, axis, method, keepdims, "nanpercentile", q)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.nanmedian``: the median of each lane's non-NaN values, the two middle ones
    averaged in the input's dtype as NumPy's masked median does; NaN for a lane of NaNs only."""
    if not traced(a):
        return np.nanmedian(a, axis=axis, out=out, overwrite_input=overwrite_input,
                            keepdims=keepdims)
    if a.dtype.kind != "f":
        return median(a, axis=axis, out=out, keepdims=keepdims)
    _unsupported_extras("nanmedian", out, None, None)
    if a.size == 0:  # NumPy's answer for an empty array: its nanmean
        return np.nanmean(a, axis=axis, keepdims=keepdims)
    x, count, keep_shape = _nan_lanes(a, axis, "nanmedian")
    h = count // 2
    s = _selected_at(x, [np.stack([h - 1, h], axis=-1)])
    high = _at(s, h)
    low = _at(s, h - 1)
    two = np.array(2, a.dtype)
    value = np.where(count % 2 == 1, high, (low + high) / two)
    # NaN for a lane of NaNs only; + 0.0 as NumPy's mean of the middle values: -0.0 is +0.0
    value = np.where(count == 0, np.array(np.nan, a.dtype), value) + np.zeros((), a.dtype)
    return prims.reshape(value, keep_shape) if keepdims else as_scalar(value)


@implements(np.interp)
@prims.numpy_scalar  # at one x: a NumPy float, as in NumPy
def interp(x, xp, fp, left=None, right=None, period=None):
    """``numpy.interp`` in float64, as NumPy's compiled loop computes it: the interval by a
    compiled search (``searchsorted``: from the last answer along x), the slope ``(fp[j+1] -
    fp[j]) / (xp[j+1] - xp[j])`` (complex fp: times the reciprocal, part by part), ``fp[j]``
    exactly at a knot, ``left``/``right`` (default ``fp[0]``/``fp[-1]``) outside, NaN
    for NaN; with ``period``, the knots sorted and wrapped around once."""
    if not traced(x, xp, fp, left, right, period):
        return np.interp(x, xp, fp, left=left, right=right, period=period)
    if any(isinstance(v, masked.MaskedSelection) for v in (x, xp, fp, left, right, period)):
        return masked.SELECTION_STATISTICS["interp"](x, xp, fp, left, right, period)
    trace = prims.find_trace(x, xp, fp, left, right, period)
    f64 = np.dtype(np.float64)
    x, xp, fp = (_as_traced(trace, v) for v in (x, xp, fp))
    for v in (x, xp):
        if not np.can_cast(v.dtype, f64):
            raise JitTypeError(f"Cannot cast array data from {v.dtype!r} to {f64!r} according to "
                               f"the rule 'safe' (at {user_location()})")
    if fp.dtype.kind == "c":  # as NumPy: each part on its own, a NaN x gives nan+0j
        re, im = (_interp_real(trace, x, xp, part(fp), None if v is None else part(v),
                               None if w is None else part(w), period, True)
                  for part, v, w in ((np.real, left, right), (np.imag, left, right)))
        if period is not None or xp.shape != (1,):  # (one knot: fp[0] for NaN too, as the real part)
            im = np.where(np.isnan(prims.convert(x, f64)), 0.0, im)
        return prims.complex_from_parts(*np.broadcast_arrays(re, im))
    return _interp_real(trace, x, xp, fp, left, right, period, False)


def _interp_real(trace, x, xp, fp, left, right, period, reciprocal: bool):
    """``interp`` of real ``fp``; ``reciprocal``: the slope as NumPy's complex loop takes it,
    ``(fp[j+1] - fp[j]) * (1 / (xp[j+1] - xp[j]))`` (its bits differ from the quotient's)."""
    f64 = np.dtype(np.float64)
    x, xp, fp = (prims.convert(v, f64) for v in (x, xp, fp))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"object too deep for desired array: interp needs 1-d xp and fp "
                         f"(at {user_location()})")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(f"fp and xp are not of the same length. (at {user_location()})")
    if xp.shape[0] == 0:
        raise ValueError(f"array of sample points is empty (at {user_location()})")
    if period is not None:
        if not isinstance(period, Tracer) and period == 0:
            raise ValueError(f"period must be a non-zero value (at {user_location()})")
        period = np.abs(period)
        left = right = None
        x, xp = np.remainder(x, period), np.remainder(xp, period)
        order = prims.argsort(xp, 0)
        xp, fp = np.take(xp, order), np.take(fp, order)
        xp = np.concatenate([xp[-1:] - period, xp, xp[0:1] + period])
        fp = np.concatenate([fp[-1:], fp, fp[0:1]])
    n = xp.shape[0]
    lval = fp[0] if left is None else prims.convert(_as_traced(trace, left), f64)
    rval = fp[-1] if right is None else prims.convert(_as_traced(trace, right), f64)
    if n == 1:  # NumPy's loop for one knot: fp[0] unless x is beside it (NaN is not)
        return np.where(x < xp[0], lval, np.where(x > xp[0], rval, np.broadcast_to(fp[0], x.shape)))
    j = np.clip(prims.searchsorted(xp, x, "right") - 1, 0, n - 2)
    x0, x1, y0, y1 = np.take(xp, j), np.take(xp, j + 1), np.take(fp, j), np.take(fp, j + 1)
    slope = (y1 - y0) * (1.0 / (x1 - x0)) if reciprocal else (y1 - y0) / (x1 - x0)
    inside = slope * (x - x0) + y0
    again = slope * (x - x1) + y1  # NumPy's second try where the first is NaN (inf slopes)
    inside = np.where(np.isnan(inside), np.where(np.isnan(again) & (y0 == y1), y0, again), inside)
    inside = np.where(x == x0, y0, inside)
    inside = np.where(x == xp[-1], fp[-1], inside)
    out = np.where(x < xp[0], lval, np.where(x > xp[-1], rval, inside))
    return np.where(np.isnan(x), x, out)


def _partition_axis(a: Tracer, kth, axis, kind, order, name: str) -> tuple[Tracer, int, tuple[int, ...]]:
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r}) (at {user_location()})")
    if isinstance(kth, Tracer):  # the ranks are the kernel's constants: say which argument to make static
        kth._concretize(f"numpy.{name}'s kth")
    x, ax = _lane_axis(a, axis, name, None, order)
    n = x.shape[ax]
    ranks = set()
    for k in np.atleast_1d(np.asarray(kth)).tolist():
        if not isinstance(k, int) or isinstance(k, bool):
            raise JitTypeError(f"Partition index must be integer (at {user_location()})")
        if n and not -n <= k < n:  # (NumPy checks no kth against an empty axis)
            raise ValueError(f"kth(={k if k >= 0 else k + n}) out of bounds ({n}) "
                             f"(at {user_location()})")
        if n:
            ranks.add(k % n)
    return x, ax, tuple(sorted(ranks))


@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.partition`` by selection (``codegen/cpu/sort_select.py``): every ``kth`` element
    is where sorting puts it, smaller or equal ones before it and larger or equal ones after
    (NaN last), which is all NumPy promises; the others' arrangement is the algorithm's, as
    NumPy's is introselect's, and the two differ."""
    if not traced(a, kth):
        return np.partition(a, kth, axis=axis, kind=kind, order=order)
    x, ax, ranks = _partition_axis(a, kth, axis, kind, order, "partition")
    return prims.partition(x, ax, ranks)


@implements(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.argpartition``: the positions that ``partition``'s selection moves (see there)."""
    if not traced(a, kth):
        return np.argpartition(a, kth, axis=axis, kind=kind, order=order)
    x, ax, ranks = _partition_axis(_positions_of_0d(a), kth, axis, kind, order, "argpartition")
    if isinstance(a, Tracer) and a.ndim == 0:
        return _first_position(x)
    return prims.argpartition(x, ax, ranks)
