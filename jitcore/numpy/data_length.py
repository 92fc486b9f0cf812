"""The functions whose result's length the data chooses: ``nonzero``, ``flatnonzero``,
``argwhere``, ``where(condition)``, ``extract``, ``compress`` with a traced condition and
``unique``. Each gives ``masked.MaskedSelection``s (values and a traced mask), which reductions
and elementwise ops use as they are and which, returned, are compacted (``jitcore.data_length``).
"""

from __future__ import annotations

import numpy as np

from jitcore import indexing
from jitcore import primitives as prims
from jitcore.compaction import ROWS
from jitcore.data_length import Positions, positions
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.masked import MaskedSelection
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, user_location

__all__ = ["argwhere", "compress", "extract", "flatnonzero", "nonzero", "unique"]

_INTP = np.dtype(np.intp)


def _truth(a: Tracer) -> Tracer:
    """``a != 0`` as NumPy's nonzero reads it (a bool array as it is)."""
    return a if a.dtype == np.bool_ else np.not_equal(a, np.zeros((), a.dtype))


def _positions(trace, shape: tuple[int, ...]) -> list[Tracer]:
    """Per dim, each element's index along it, as arrays of ``shape`` (intp)."""
    return [positions(trace, shape, j) for j in range(len(shape))]


# What to write instead of a use of these results that needs their length (masked.refused).
_POSITIONS = ("Loop over every position instead, with a traced if (for i in range(a.shape[0]): "
              "for j in range(a.shape[1]): if a[i, j]: ...), reduce the positions at once "
              "(np.flatnonzero(a).max(), len(np.flatnonzero(a)) or np.count_nonzero(a) for their "
              "number), or return them")
_UNIQUE = ("For counts per value use np.bincount(x, minlength=K) (values in range(K), a "
           "length known when compiling) and np.count_nonzero(np.bincount(x, minlength=K)) for "
           "the number of distinct values; reduce the values at once (np.unique(x).max(), "
           "len(np.unique(x))), or return them")


@implements(np.nonzero)
def nonzero(a):
    """``numpy.nonzero``: per dim, the indices of the nonzero elements (C order), one selection
    each by the same mask (one count)."""
    if not traced(a):
        return np.nonzero(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar)"
                         ".nonzero() instead. If the context of this error is of the form "
                         "`arr[nonzero(cond)]`, just use `arr[cond]`.")
    mask = _truth(a)
    return tuple(Positions(p, mask, at=d).describe(f"np.nonzero(...)[{d}]", _POSITIONS)
                 for d, p in enumerate(_positions(a.owner_trace, a.shape)))


@implements(np.flatnonzero)
def flatnonzero(a):
    """``numpy.flatnonzero``: the indices of the nonzero elements of ``a`` raveled."""
    if not traced(a):
        return np.flatnonzero(a)
    flat = prims.ravel(a) if a.ndim != 1 else a
    return Positions(_positions(a.owner_trace, flat.shape)[0], _truth(flat), at=0).describe(
        "np.flatnonzero(...)", _POSITIONS)


@implements(np.argwhere)
def argwhere(a):
    """``numpy.argwhere``: the indices of the nonzero elements as rows, shape (count, ndim)."""
    if not traced(a):
        return np.argwhere(a)
    positions = _positions(a.owner_trace, a.shape)
    rows = (np.stack(positions, axis=-1) if positions
            else prims.constant(a.owner_trace, np.zeros((0,), _INTP)))
    return Positions(rows, _truth(a), at=ROWS if positions else None).describe(
        "np.argwhere(...)", _POSITIONS)


@implements(np.extract)
def extract(condition, arr):
    """``numpy.extract``: the elements of ``arr`` raveled where ``condition`` raveled is nonzero."""
    if not traced(condition, arr):
        return np.extract(condition, arr)
    trace = prims.find_trace(condition, arr)
    cond = condition if isinstance(condition, Tracer) else prims.constant(trace, np.asarray(condition))
    arr = arr if isinstance(arr, Tracer) else prims.constant(trace, np.asarray(arr))
    if cond.size != arr.size:
        raise JitValueError(f"numpy.extract at {user_location()}: a condition of {cond.size} elements "
                            f"for an array of {arr.size}; give a condition of the array's size")
    return MaskedSelection(prims.ravel(arr), prims.ravel(_truth(cond)))


@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """``numpy.compress``. A static condition (``np.compress([False, True], a, axis=1)``) picks
    static positions: NumPy's ``take`` of its nonzero indices. A traced one keeps the rows of
    ``a`` (raveled when ``axis`` is None) where it holds, along axis 0 (a shorter condition
    keeps none past its end): a selection."""
    at = user_location()
    if not traced(condition):
        if out is not None and traced(a):
            raise UnsupportedError(f"numpy.compress with out= of a traced array, at {at}: not "
                                   "compiled; assign the result instead (out[...] = np.compress(...))")
        if not traced(a):
            return np.compress(condition, a, axis, out)
        return np.take(a, np.nonzero(np.asarray(condition))[0], axis=axis)
    if out is not None:
        raise JitTypeError(f"numpy.compress with out= and a traced condition, at {at}: the length "
                           "of its result depends on the data; return np.compress(...) instead")
    a = a if isinstance(a, Tracer) else prims.constant(condition.owner_trace, np.asarray(a))
    if axis is None:
        a = prims.ravel(a)
    elif prims.normalize_axes(axis, a.ndim, "numpy.compress") != (0,):
        raise JitTypeError(
            f"numpy.compress with a traced condition along axis {axis}, at {at}: only axis 0 (or "
            "None) is compiled, as a result of data-dependent length has its rows along the first "
            "axis; write np.moveaxis(np.compress(c, np.moveaxis(a, axis, 0), axis=0), 0, axis) "
            "outside the jitted function, or keep the shape with np.where(c, a, 0)")
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    n = a.shape[0]
    cond = _truth(condition)
    if cond.shape[0] > n:
        raise JitValueError(f"numpy.compress at {at}: a condition of {cond.shape[0]} elements for an "
                            f"axis of {n}; give one of at most the axis' length")
    if cond.shape[0] < n:
        cond = prims.pad(cond, ((0, n - cond.shape[0]),), False)
    return MaskedSelection(a, cond)


def first_occurrences(s: Tracer, equal_nan: bool) -> Tracer:
    """Where each value of the sorted 1-d ``s`` first occurs (NaNs one value where
    ``equal_nan``): np.unique's mask."""
    if s.shape[0] == 0:
        return prims.constant(s.owner_trace, np.zeros(0, np.bool_))
    differs = np.not_equal(s[1:], s[:-1])
    if equal_nan and s.dtype.kind in "fc":
        differs = differs & ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
    return prims.concatenate([prims.constant(s.owner_trace, np.ones(1, np.bool_)), differs])


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  (NumPy's name)
    """``numpy.unique`` with ``axis=None``: the sorted array's first occurrences (NaNs one value
    where ``equal_nan``, at the end), with the first indices (a stable sort's), the inverse (of
    ``ar``'s shape) and the counts as NumPy 2 gives them."""
    if not traced(ar):
        return np.unique(ar, return_index, return_inverse, return_counts, axis,
                         equal_nan=equal_nan, sorted=sorted)
    if axis is not None and ar.ndim == 2 and type(axis) is int and axis in (0, -2) and ar.shape[1] \
            and ar.dtype.kind in "biu":
        return _unique_rows(ar, return_index, return_inverse, return_counts)
    if axis is not None:
        raise JitTypeError(f"numpy.unique with axis={axis!r} on a traced array, at {user_location()}: "
                           "only axis=None (the unique elements of the flattened array), and axis=0 "
                           "of a 2-d array of integers or bools (its unique rows), are compiled. "
                           "For unique rows of integers, make each row one key (for columns below "
                           "m: key = x[:, 0] * m + x[:, 1]), take np.unique(key), and split the keys "
                           "back (key // m, key % m); or call np.unique(x, axis=0) outside the "
                           "jitted function")
    flat = prims.ravel(ar)
    n = flat.shape[0]
    trace = ar.owner_trace
    perm = None
    if return_index or return_inverse:  # the stable order: each value's first index first
        perm = np.argsort(flat, kind="stable")
        s = np.take(flat, perm)
    else:  # the values alone: any sort gives them (of -0.0 and 0.0 one, as NumPy's quicksort)
        s = np.sort(flat)
    first = first_occurrences(s, equal_nan)
    # Without first indices each value is kept at its run's last row, where a forward scan of
    # the run starts has its count; with them, at its first row (a scan from the end).
    keep = first if return_index else run_ends(first)
    results = [MaskedSelection(s, keep).describe("np.unique(...)", _UNIQUE)]
    if return_index:
        results.append(MaskedSelection(perm, first).describe("np.unique(...)'s first indices", _UNIQUE))
    if return_inverse:
        group = np.cumsum(prims.convert(first, _INTP)) - 1  # each sorted element's value's number
        inverse = prims.reshape(indexing.scatter(prims.constant(trace, np.zeros(n, _INTP)), perm, group),
                                ar.shape)
        trace.grouped[id(inverse.value)] = (inverse.value, results[0])
        results.append(inverse)
    if return_counts:
        counts = run_lengths(first) if return_index else lengths_so_far(first)
        results.append(MaskedSelection(counts, keep).describe("np.unique(...)'s counts", _UNIQUE))
    return results[0] if len(results) == 1 else tuple(results)


def _unique_rows(ar, return_index, return_inverse, return_counts):
    """``numpy.unique(ar, axis=0)`` of a 2-d array of integers or bools: its distinct rows in
    lexicographic order (NumPy's order of the rows as records of their columns; for ints and
    bools the numbers' own), the first row of each run of equal rows in a stable order (so each
    first index is the smallest, as NumPy's mergesort gives them), the inverse of ``(n,)``
    and the counts. Floats are left refused: NumPy's order of records with NaN fields is its
    record sort's, not a per-column one."""
    n, m = ar.shape
    order = np.lexsort(ar.T[::-1])  # (the first column leads)
    rows = np.take(ar, order, axis=0)
    if n == 0:
        first = prims.constant(ar.owner_trace, np.zeros(0, np.bool_))
    else:
        differs = np.any(np.not_equal(rows[1:], rows[:-1]), axis=1)
        first = prims.concatenate([prims.constant(ar.owner_trace, np.ones(1, np.bool_)), differs])
    results = [MaskedSelection(rows, first).describe("np.unique(..., axis=0)", _UNIQUE)]
    if return_index:
        results.append(MaskedSelection(order, first).describe("np.unique(..., axis=0)'s first indices",
                                                              _UNIQUE))
    if return_inverse:
        group = np.cumsum(prims.convert(first, _INTP)) - 1  # each sorted row's number
        results.append(indexing.scatter(prims.constant(ar.owner_trace, np.zeros(n, _INTP)), order, group))
    if return_counts:
        results.append(MaskedSelection(run_lengths(first), first).describe("np.unique(..., axis=0)'s counts",
                                                                             _UNIQUE))
    return results[0] if len(results) == 1 else tuple(results)


def run_ends(first: Tracer) -> Tracer:
    """Where each run of the 1-d ``first`` (its starts) ends: the row before the next start,
    and the last row."""
    if first.shape[0] == 0:
        return first
    last_row = prims.constant(first.owner_trace, np.ones(1, np.bool_))
    return prims.concatenate([first[1:], last_row])


def lengths_so_far(first: Tracer) -> Tracer:
    """At each row, the rows of its run up to it (its start's ``first``): the run's length at
    its last row, by one forward scan of the starts."""
    n = first.shape[0]
    if n == 0:
        return prims.constant(first.owner_trace, np.zeros(0, _INTP))
    rows = positions(first.owner_trace, (n,), 0)
    start = np.maximum.accumulate(np.where(first, rows, np.zeros((), _INTP)))
    return rows - start + 1


def run_lengths(first: Tracer) -> Tracer:
    """At each row where a run of the 1-d ``first`` starts, the run's length: the next start
    (the end where none) less the row, by one scan from the end."""
    n = first.shape[0]
    if n == 0:
        return prims.constant(first.owner_trace, np.zeros(0, _INTP))
    rows = positions(first.owner_trace, (n,), 0)
    end = np.full((), n, _INTP)
    next_start = np.minimum.accumulate(np.where(first, rows, end)[::-1])[::-1]  # first at or after
    after = prims.concatenate([next_start[1:], prims.constant(first.owner_trace, np.full(1, n, _INTP))])
    return after - rows
