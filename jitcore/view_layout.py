"""Where NumPy would give a traced array a view and where a copy, decided as NumPy decides it:
from the strides the array would have without jit.

jitcore's arrays are values, and a view is a tracer whose writes go back to its base
(``tracer.make_view``). NumPy's ``reshape``, ``ravel`` and ``ascontiguousarray`` are views only
where the strides allow: ``g.T.ravel()`` is a copy, so a write to it must not reach ``g``. Each
view tracer keeps how its strides follow from its base's (``Tracer.view_model``, a function of
the base's model); a tracer that is no view is C- or Fortran-ordered as NumPy lays out new
arrays, and an argument has its layout class. The model is a NumPy array with those strides
over a one-element buffer: NumPy's own stride rules answer, and no element is ever read.
A strided argument's class holds no strides: its model has strides that make nothing dense
(``_gapped``), so what NumPy copies for any such array is copied. Where the strides are not
known (a view made by the aliasing rewrites), the model is None and the array is taken for a
view, as before."""

from __future__ import annotations

import numpy as np

from jitcore.ir import layout_class


def _model(shape, dtype, strides) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), tuple(shape), tuple(strides))


def _dense(shape, itemsize: int, inner_first, flipped=frozenset()) -> list[int]:
    strides, step = [0] * len(shape), itemsize
    for axis in inner_first:
        strides[axis] = -step if axis in flipped else step
        step *= max(shape[axis], 1)
    return strides


def _gapped(shape, itemsize: int, facts: str, order: list[int]) -> list[int]:
    """Strides for a strided argument, whose class holds none, only its facts
    (``layout_class.strided_facts``) along its long axes in ``order`` (outermost first): the
    innermost one element apart where ``u``, else two; each outside it over the whole inner
    one where ``m``, else one element past that. NumPy then views or copies this model as it
    would the argument (its reshapes merge adjacent axes by these relations; ``ravel`` and
    ``ascontiguousarray`` need them all). A coincidence of the real strides the facts do not
    hold (a row of ``x[::2]`` of a 3-d ``x`` dense across a gap) can still make NumPy view
    what is copied here."""
    relations = iter(facts[1:] if facts else "")
    strides = [itemsize] * len(shape)
    step = itemsize if facts[:1] == "u" else 2 * itemsize
    for k, axis in enumerate(reversed(order)):
        if k:
            gap = 0 if next(relations, "g") == "m" else itemsize
            step = step * shape[order[len(order) - k]] + gap
        strides[axis] = step
    return strides


def _base_model(x) -> np.ndarray | None:
    layout = x.arg_layout or (layout_class.F if x.fortran else layout_class.C)
    dense = layout_class.dense_orders(layout, x.shape)
    if dense is None:
        facts, order = layout_class.strided_facts(layout), layout_class.strided_order(layout, x.shape)
        strides = _gapped(x.shape, x.dtype.itemsize, facts, order)
        for axis in layout_class.zero_axes(layout):  # a broadcast's: 0, as NumPy sees them
            strides[axis] = 0
        return _model(x.shape, x.dtype, strides)
    (order, *_), flipped = dense
    axes = range(x.ndim)
    inner_first = reversed(axes) if order == layout_class.C else axes
    return _model(x.shape, x.dtype, _dense(x.shape, x.dtype.itemsize, inner_first, flipped))


def model(x) -> np.ndarray | None:
    """A NumPy array with the strides ``x`` would have without jit, or None where not known."""
    if x.view_of is None:
        return _base_model(x)
    if x.view_model is None:
        return None
    base = model(x.view_of[0])
    if base is None:
        return None
    try:
        return x.view_model(base)
    except (ValueError, IndexError, TypeError):  # a key the model cannot take (traced)
        return None


def reshape_copies(x, shape) -> bool:
    """Does NumPy copy to reshape ``x`` to ``shape`` (its strides cannot be split or merged)?"""
    m = model(x)
    if m is None:
        return False
    try:
        np.reshape(m, shape, copy=False)
    except ValueError:
        return True
    return False


def c_contiguous(x) -> bool:
    """Is ``x`` C-contiguous as NumPy would lay it out (True where not known)?"""
    m = model(x)
    return m is None or m.flags.c_contiguous


def f_contiguous(x) -> bool:
    """Is ``x`` Fortran-contiguous as NumPy would lay it out (True where not known)?"""
    m = model(x)
    return m is None or m.flags.f_contiguous


def iteration_axes(x) -> list[int]:
    """``x``'s axes, outermost first, in the order NumPy's iterator runs a reduction of ``x``
    alone (by decreasing ``|stride|``, ``layout_class.iteration_order``; extent-1 axes first,
    C order where the layout is not known)."""
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    m = model(x)
    order = long_axes if m is None else layout_class.iteration_order(m.strides, long_axes)
    return [a for a in range(x.ndim) if a not in order] + order
