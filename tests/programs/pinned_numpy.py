"""NumPy with the ±0.0 ties of maximum, minimum, fmax, fmin, max and min settled.

NumPy's answer for +0.0 against -0.0 depends on the position of the element in NumPy's SIMD loop
and on the host (tests/jitcore/test_ufuncs_extra.py::test_fmax_zero_tie_is_positional). IEEE 754
allows either zero. ``PINNED`` is ``numpy`` with those ties resolved the way jitcore resolves
them on every host: the second operand (float16: the first), and for the max/min reductions the
last zero in iteration order, C order over the reduced axes (float16: the first). Everything
else is NumPy's own answer.
"""

from __future__ import annotations

import numpy as np


def pin_tie(fn):
    """``fn(x, y)`` (maximum, fmax, ...) with its ±0.0 ties resolved as jitcore does."""
    def pinned(x, y, *args, **kwargs):
        out = fn(x, y, *args, **kwargs)
        res = np.asarray(out)
        if res.dtype.kind != "f":
            return out
        x, y = (np.broadcast_to(np.asarray(v).astype(res.dtype), res.shape) for v in (x, y))
        tie = (x == y) & (np.signbit(x) != np.signbit(y)) & kwargs.get("where", True)
        fixed = np.where(tie, x if res.dtype == np.float16 else y, res)
        if kwargs.get("out") is not None:  # written where the call wrote
            res[...] = fixed
            return out
        return fixed[()] if isinstance(out, np.generic) else fixed
    return pinned


def pin_reduction(fn):
    """``fn(x, axis, keepdims, initial, where)`` (max, min) with its ±0.0 ties resolved as jitcore
    does: among the values of each reduced slice in C order, ``initial`` first and the masked-out
    elements as ``initial`` (jitcore's ``where=``), the last zero (float16: the first)."""
    def pinned(x, axis=None, keepdims=False, initial=np._NoValue, where=True, **kwargs):
        given = {k: v for k, v in (("initial", initial), ("where", where))
                 if not (v is np._NoValue or (k == "where" and v is True))}
        out = fn(x, axis=axis, keepdims=keepdims, **given, **kwargs)
        x = np.asarray(x)
        if x.dtype.kind != "f" or x.size == 0 or x.ndim == 0:
            return out
        if where is not True:
            x = np.where(where, x, np.asarray(initial).astype(x.dtype))
        axes = tuple(range(x.ndim)) if axis is None else \
            tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
        kept = [d for d in range(x.ndim) if d not in axes]
        rows = np.transpose(x, kept + sorted(axes)).reshape([x.shape[d] for d in kept] + [-1])
        if initial is not np._NoValue:
            first = np.full(rows.shape[:-1] + (1,), initial, x.dtype)
            rows = np.concatenate([first, rows], -1)
        zeros = rows == 0
        n = rows.shape[-1]
        pick = np.argmax(zeros, -1) if x.dtype == np.float16 else n - 1 - np.argmax(zeros[..., ::-1], -1)
        chosen = np.take_along_axis(rows, pick[..., None], -1)[..., 0]
        res = np.asarray(out)
        tie = (res.reshape(chosen.shape) == 0) & zeros.any(-1)
        fixed = np.where(tie, chosen, res.reshape(chosen.shape)).reshape(res.shape)
        if kwargs.get("out") is not None:  # the out array, written
            res[...] = fixed
            return out
        return fixed[()] if isinstance(out, np.generic) else fixed
    return pinned


class PinnedUfunc:
    """A ufunc called with its ±0.0 ties pinned (``pin_tie``), keeping the ufunc's methods:
    ``np.maximum.accumulate``, ``.reduce``, ``.outer``, ``.at`` (a bare function had none, so
    every ``np.maximum.accumulate`` the generator drew raised under ``PINNED`` and was dropped).
    ``reduce`` of maximum and minimum is the pinned max and min; ``accumulate`` the pinned
    call step by step (NumPy's fmax.accumulate keeps the running value on a tie where its
    maximum.accumulate takes the element: test_pinned_ties_follow_jitcore_on_every_host)."""

    def __init__(self, ufunc, reduction=None):
        self._ufunc, self._call = ufunc, pin_tie(ufunc)
        self._reduction = reduction and pin_reduction(reduction)

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def reduce(self, x, axis=0, dtype=None, out=None, keepdims=False, **kwargs):
        if self._reduction is None or dtype is not None or out is not None:
            return self._ufunc.reduce(x, axis, dtype, out, keepdims, **kwargs)
        return self._reduction(x, axis=axis, keepdims=keepdims, **kwargs)

    def accumulate(self, x, axis=0, dtype=None, out=None):
        x = np.asarray(x)
        if dtype is not None or out is not None or x.dtype.kind != "f" or x.ndim == 0:
            return self._ufunc.accumulate(x, axis, dtype, out)
        steps = np.moveaxis(x, axis, 0)
        result = np.empty_like(steps)
        for i in range(steps.shape[0]):
            result[i] = steps[0] if i == 0 else self._call(result[i - 1], steps[i])
        return np.moveaxis(result, 0, axis)

    def outer(self, x, y, **kwargs):
        x, y = np.asarray(x), np.asarray(y)
        return self._call(x.reshape(x.shape + (1,) * y.ndim), y, **kwargs)

    def __getattr__(self, name):
        return getattr(self._ufunc, name)


class PinnedNumPy:
    """``numpy``, except for the functions whose ±0.0 ties depend on NumPy's SIMD loops."""

    maximum = PinnedUfunc(np.maximum, np.max)
    minimum = PinnedUfunc(np.minimum, np.min)
    fmax = PinnedUfunc(np.fmax)
    fmin = PinnedUfunc(np.fmin)
    max = staticmethod(pin_reduction(np.max))
    min = staticmethod(pin_reduction(np.min))

    def __getattr__(self, name):
        return getattr(np, name)


PINNED = PinnedNumPy()
