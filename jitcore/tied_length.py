"""Lengths the data chooses, tied at run time to a length known when compiling.

``np.repeat(a, counts)`` with traced counts has ``sum(counts)`` rows, a length that no shape of
the arguments bounds. Inside the function it is a ``Repeated``: the rows of ``a`` and their
counts. Elementwise ops with scalars, with arrays that broadcast along its rows, and with
repeats by the same counts keep it deferred (a repeat of the op's result). Where it meets a
value whose length is known when compiling, NumPy requires the two lengths to agree:
elementwise with ``data`` of length nnz, ``np.bincount(rows, weights=w)``, ``np.add.at(y, rows,
v)``. There the repeat takes that length (``filled``): a kernel that gives each of the ``L``
positions the row whose run holds it, and the call checks ``sum(counts)`` against ``L``, raising
NumPy's ValueError where they differ. So the CSR idiom ``np.repeat(np.arange(n),
np.diff(indptr))`` meeting ``data`` compiles to the row of each stored element.

Nothing ties the length of one returned alone, or reduced alone: those stay refused, saying
what to write instead.
"""

from __future__ import annotations

import numpy as np

from jitcore import indexing, ufunc_operators
from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.masked import raise_at_run_time, same_mask
from jitcore.tracer import Tracer, user_location

_INTP = np.dtype(np.intp)

_UNTIED = (
    "numpy.repeat with traced per-element counts (at {where}) has sum(counts) rows, a length the "
    "data chooses that no shape of the arguments bounds, and {use} gives it no length known when "
    "compiling. It compiles where it meets an array of a known length, which the call checks "
    "sum(counts) against: elementwise with one (data * np.repeat(a, counts)), "
    "np.bincount(rows, weights=w, minlength=n), np.add.at(y, rows, v) with v as long as the rows. "
    "Else index with a known total (np.repeat(np.arange(n), np.diff(indptr)) is "
    "np.searchsorted(indptr, np.arange(len(indices)), side='right') - 1), loop over the runs "
    "(for i in range(n): for k in range(indptr[i], indptr[i + 1]): ...), which compiles to a "
    "plain loop, or pass the counts static (static_argnums) if they are fixed")


_RETURNED = (
    ". Returned, its buffer is allocated before the call, so it needs a length (or a bound, as "
    "x[mask] has x's) known when compiling: return the counts and repeat outside the jitted "
    "function (return x, counts; then np.repeat(x, counts)), or bound the rows by cap (a static "
    "argument) and return the first cap rows with the total (ends = np.cumsum(counts); rows = "
    "np.searchsorted(ends, np.arange(cap), side='right'); return x[np.minimum(rows, len(x) - 1)], "
    "ends[-1]; then out[:total] outside)")


def repeat(a, counts: Tracer, axis) -> Repeated:
    """``np.repeat(a, counts, axis)`` with traced per-element ``counts``: NumPy's checks (a safe
    cast to intp, one count per row or one for all, none negative: raised by the call)."""
    trace = counts.owner_trace
    a = a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a))
    if not np.can_cast(counts.dtype, _INTP, "safe"):
        raise JitTypeError(f"Cannot cast array data from {counts.dtype!r} to dtype('int64') "
                           "according to the rule 'safe'")
    if axis is None:
        a = prims.ravel(a)
    elif prims.normalize_axes(axis, a.ndim, "repeat") != (0,):
        raise JitTypeError(
            f"numpy.repeat with traced counts along axis {axis} (at {user_location()}): only the "
            "first axis (or None) is compiled, as the length the data chooses must lead; write "
            "np.moveaxis(np.repeat(np.moveaxis(a, axis, 0), counts, axis=0), 0, axis)")
    n = a.shape[0]
    if counts.ndim > 1 or counts.size not in (1, n):
        raise JitValueError(f"operands could not be broadcast together with shape ({n},) "
                            f"({counts.size},) (numpy.repeat at {user_location()})")
    counts = prims.broadcast_to(prims.reshape(prims.convert(counts, _INTP), (-1,)), (n,))
    raise_at_run_time(np.any(counts < 0), lambda: ValueError("repeats may not contain negative values."))
    return Repeated(a, counts)


def run_rows(counts: Tracer, length: int) -> Tracer:
    """The row whose run holds each of ``length`` positions (intp), for runs of ``counts``
    (non-negative, summing to ``length``; one run of 1 gives its row everywhere, NumPy's
    broadcast): each run's start marked, then a running sum of the marks. Two scans and a
    scatter, no search: O(rows + length)."""
    trace = counts.owner_trace
    ends = np.cumsum(counts)
    starts = np.minimum(ends - counts, length)  # (runs that start at the end mark nothing kept)
    marks = indexing.scatter(prims.constant(trace, np.zeros(length + 1, _INTP)), starts, 1, mode="add")
    rows = np.cumsum(prims.slice_(marks, [0], [1], [length])) - 1
    if length > 1:
        one = prims.reduction("sum", counts) == 1  # (1,) broadcast: its row at every position
        rows = prims.where(one, prims.slice_(rows, [0], [1], [1]), rows)
    return rows


class Repeated:
    """``np.repeat(rows, counts, axis=0)`` with traced ``counts``: a length the data chooses,
    at the first dim, until an array of a known length ties it (``filled``)."""

    __slots__ = ("rows", "counts", "where")
    __array_priority__ = 2000  # above Tracer's: ``tracer * repeated`` asks the repeat
    __hash__ = None

    def __init__(self, rows: Tracer, counts: Tracer, where: str | None = None):
        self.rows, self.counts = rows, counts
        self.where = where or user_location()  # (the np.repeat's line: a refusal at the return names it)

    @property
    def dtype(self) -> np.dtype:
        return self.rows.dtype

    @property
    def ndim(self) -> int:
        return self.rows.ndim

    def total(self) -> Tracer:
        return prims.reduction("sum", self.counts)

    def filled(self, length: int, error) -> Tracer:
        """The repeat as ``length`` rows, the call raising ``error(total, length)`` where
        ``sum(counts)`` is not ``length`` (``error`` may allow a total of 1: NumPy's broadcast)."""
        if self.rows.shape[0] == 0:
            if length == 0:
                return self.rows
            raise error(0, length)  # (a total of 0, known now)
        total = self.total()
        raise_at_run_time(error.bad(total, length), lambda t: error(t, length), total)
        return np.take(self.rows, run_rows(self.counts, length), axis=0)

    # -- elementwise: deferred, or tied to an operand's length -------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at":
            return self._at(ufunc, *inputs, **kwargs)
        if method != "__call__" or kwargs:
            raise self._refusal(f"numpy.{ufunc.__name__}.{method}" if method != "__call__"
                                else f"numpy.{ufunc.__name__} with {', '.join(kwargs)}=")
        length = self._tied_length(inputs, ufunc.__name__)
        if length is None:
            out = ufunc(*[x.rows if isinstance(x, Repeated) else x for x in inputs])
            return tuple(map(self._like, out)) if isinstance(out, tuple) else self._like(out)
        filled = self.filled(length, _Broadcast(inputs))
        return ufunc(*[filled if isinstance(x, Repeated) else x for x in inputs])

    def __jitcore_ufunc__(self, ufunc, operands):
        return self.__array_ufunc__(ufunc, "__call__", *operands)

    def __jitcore_ufunc_method__(self, ufunc, method, *inputs, **kwargs):
        return self.__array_ufunc__(ufunc, method, *inputs, **kwargs)

    def astype(self, dtype, *args, **kwargs) -> Repeated:
        return self._like(self.rows.astype(dtype, *args, **kwargs))

    def _like(self, rows: Tracer) -> Repeated:
        return Repeated(rows, self.counts, self.where)

    def carried_refusal(self, name: str, what: str, at: str) -> UnsupportedError:
        """Assigned in a traced if or loop (``autograph.statements``): said in the user's terms,
        with the repeat written at a length known when compiling."""
        return UnsupportedError(
            f"'{name}' holds np.repeat(..., counts) with counts from the data, whose length is "
            f"known only when the code runs, and is assigned in the {what} at {at}, whose "
            "condition or bounds are traced: a value that changes there must keep one shape on "
            "every path. Give it a length known when compiling: j = np.searchsorted("
            "np.cumsum(counts), np.arange(n), side='right') is np.repeat(np.arange(len(counts)), "
            "counts) in its first counts.sum() of n places and len(counts) after them; in the if, "
            "fill those with np.where(j == len(counts), extra[np.maximum(np.arange(n) - "
            "counts.sum(), 0)], j) (residual resampling: n = len(counts), extra from rng.random(n), "
            "whose first R numbers are rng.random(R)'s)")

    def _tied_length(self, inputs, name: str) -> int | None:
        """The length an operand of ``inputs`` ties this repeat to (the dim NumPy's broadcast
        pairs with its rows; 1 only where no operand has another), else None; other repeats
        must be by the same counts."""
        length = None
        for x in inputs:
            if isinstance(x, Repeated):
                if not same_mask(x.counts, self.counts) or x.ndim != self.ndim:
                    raise self._refusal(f"numpy.{name} of repeats by other counts")
            elif not isinstance(x, Tracer) and not isinstance(x, np.ndarray) and np.ndim(x):
                raise self._refusal(f"numpy.{name} with a {type(x).__name__}")
            elif np.ndim(x) >= self.ndim:
                paired = np.shape(x)[np.ndim(x) - self.ndim]
                length = paired if length in (None, 1) else length  # (a 1 only where no other)
        return length

    def _at(self, ufunc, target, indices, values=None):
        """``np.add.at(y, rows, v)``: the rows tied to the length of ``v``."""
        name = f"numpy.{ufunc.__name__}.at"
        if indices is not self or isinstance(target, Repeated) or isinstance(values, Repeated):
            raise self._refusal(f"{name} with it other than as the indices")
        paired = None
        if values is not None and np.ndim(values) >= np.ndim(target) and np.ndim(values):
            paired = np.shape(values)[np.ndim(values) - np.ndim(target)]
        if paired is None:
            raise self._refusal(f"{name} with values that do not give the rows' length")
        error = _Exact("array is not broadcastable to correct shape", broadcasts=True)
        ufunc.at(target, self.filled(paired, error), values)

    # -- NumPy functions ---------------------------------------------------------------------------
    def __array_function__(self, func, types, args, kwargs):
        return self.__jitcore_function__(func, args, kwargs)

    def __jitcore_function__(self, func, args, kwargs):
        if func is np.bincount:
            return bincount(*args, **kwargs)
        raise self._refusal(f"numpy.{getattr(func, '__name__', func)}")

    def _refusal(self, use: str) -> JitTypeError:
        if not use.startswith("returning"):
            return JitTypeError(_UNTIED.format(where=user_location(), use=use))
        # (a result's buffer is allocated before the call: the rewrites that return a bound)
        return JitTypeError(_UNTIED.format(where=self.where, use=use) + _RETURNED)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise self._refusal(f".{name}")

    def __getitem__(self, key):
        raise self._refusal("indexing it")

    def __len__(self):
        raise self._refusal("len()")

    def __iter__(self):
        raise self._refusal("iterating over it")

    def __array__(self, dtype=None, copy=None):
        raise self._refusal("np.asarray()")

    def __bool__(self):
        raise self._refusal("bool()")

    def __repr__(self) -> str:
        return f"np.repeat({self.rows!r}, counts), of a length the data chooses"


ufunc_operators.install(Repeated)


class _Broadcast:
    """NumPy's broadcast of the operands ``inputs``, a repeat among them: its total of 1
    broadcasts; another is NumPy's ValueError, naming each operand's shape in order."""

    def __init__(self, inputs):
        self.inputs, self.where = inputs, user_location()

    @staticmethod
    def bad(total, length):
        return (total != length) & (total != 1)

    def __call__(self, total, length) -> Exception:
        if length == 1:
            return _against_one(total, self.where)

        def shape(x):
            dims = (int(total), *x.rows.shape[1:]) if isinstance(x, Repeated) else np.shape(x)
            return "(" + ",".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        return ValueError("operands could not be broadcast together with shapes "
                          + "".join(f"{shape(x)} " for x in self.inputs))


def _against_one(total, where: str) -> UnsupportedError:
    return UnsupportedError(
        f"np.repeat(a, counts) of {int(total)} rows met an array of length 1 that NumPy broadcasts "
        f"along them, at {where}: jitcore tied the repeat to that length when compiling (as for "
        "data of one stored element), so it cannot give NumPy's result of another length. "
        "Broadcast the one element instead (v[0] * np.repeat(a, counts))")


class _Exact:
    """A length that must be equal, with NumPy's fixed message where it is not; where
    ``broadcasts`` (np.add.at's values) a length of 1 is NumPy's broadcast instead."""

    def __init__(self, message: str, broadcasts: bool = False):
        self.message, self.broadcasts, self.where = message, broadcasts, user_location()

    @staticmethod
    def bad(total, length):
        return total != length

    def __call__(self, total, length) -> Exception:
        if self.broadcasts and length == 1:
            return _against_one(total, self.where)
        return ValueError(self.message)


def bincount(x, weights=None, minlength=0):
    """``np.bincount`` with a repeat among its operands: tied to the other's length."""
    same = _Exact("The weights and list don't have the same length.")
    if isinstance(weights, Repeated) and np.size(x) == 0:  # NumPy reads no weights for no values
        return np.bincount(x, minlength=minlength)
    if isinstance(x, Repeated) and isinstance(weights, (Tracer, np.ndarray)) and np.ndim(weights) == 1:
        x = x.filled(np.shape(weights)[0], same)
    elif isinstance(weights, Repeated) and isinstance(x, (Tracer, np.ndarray)) and np.ndim(x) == 1:
        weights = weights.filled(np.shape(x)[0], same)
    else:
        repeated = x if isinstance(x, Repeated) else weights
        raise repeated._refusal("np.bincount with no operand of a known length")
    return np.bincount(x, weights=weights, minlength=minlength)


__all__ = ["Repeated", "bincount", "repeat", "run_rows"]
