"""A float sum of a whole array that NumPy reads through its iterator's buffer.

NumPy's ``v.sum()`` of a view it cannot take as one run (``a[::-1]``, ``a[:, ::-1]``,
``a[::2, 1::3]`` of a 2-d ``a``, made in the function or passed in) iterates its axes largest
stride outermost (a negative stride is not turned around), merges adjacent axes where the outer
steps over the whole inner one, and, left with two, copies whole inner rows into a buffer of
8192 elements (``np.getbufsize()``; as many rows as fit, or one longer row) and adds each
buffer's ``pairwise_sum`` to the total, buffer after buffer, from 0.0 (measured on NumPy 2.4:
/work/lead-out/lead53/wb/numpy_model.py holds the model checked against it). ``planned``
says whether an array is such a view and how its elements run; ``total`` sums it that way: the
view in NumPy's order as rows of ``k`` buffers' elements (each row a pairwise sum, as the code
generator sums a contiguous row), then those sums one after another (a running sum).
"""

from __future__ import annotations

import math

import numpy as np

from jitcore import primitives as prims
from jitcore import view_layout
from jitcore.ir import layout_class
from jitcore.tracer import Tracer

BUFFER = 8192  # NumPy's default buffer size, in elements


def planned(x: Tracer) -> tuple[list[int], int, int] | None:
    """(axes outermost first, rows, row length) of ``x`` as NumPy's iterator runs it where it
    is left with two merged axes, or with one long axis beside axes of extent 1 or one run of
    axes not in their own order (rows 1: one run, which the code generator would otherwise sum
    as rows of one element, or in C order); None where it is one run of axes in their own
    order (the code generator merges them), not known (a view the aliasing rewrites made), or
    more than 2 axes."""
    if x.ndim < 2 or x.size == 0 or x.dtype not in (np.float32, np.float64):
        return None
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    model = view_layout.model(x)
    if model is None:
        return None
    order = layout_class.iteration_order(model.strides, long_axes)
    groups = [[order[0]]] if order else []
    for a in order[1:]:
        if model.strides[groups[-1][-1]] == x.shape[a] * model.strides[a]:
            groups[-1].append(a)
        else:
            groups.append([a])
    rest = [a for a in range(x.ndim) if a not in order]
    if len(long_axes) == 1 or (len(groups) == 1 and order != long_axes):
        return [*order, *rest], 1, x.size  # one run (NumPy's order, not C's): one pairwise sum
    if len(groups) != 2:
        return None
    rows, length = (math.prod(x.shape[a] for a in g) for g in groups)
    return [*order, *rest], rows, length


def total(x: Tracer, plan) -> Tracer:
    """``x``'s sum (0-d) in NumPy's buffered order (``plan`` from ``planned``)."""
    from jitcore.numpy.reductions import cumsum

    axes, rows, length = plan
    if rows == 1:  # one run, as NumPy iterates it: one pairwise sum
        return prims.reduction("sum", prims.reshape(prims.transpose(x, axes), (length,)))
    flat = prims.reshape(prims.transpose(x, axes), (rows, length))
    per = max(1, BUFFER // length)  # rows a buffer holds
    whole, rest = divmod(rows, per)
    trace = x.owner_trace
    parts = [prims.constant(trace, np.zeros(1, x.dtype))]
    if whole:
        buffers = prims.slice_(flat, (0, 0), (1, 1), (whole * per, length))
        parts.append(prims.reduction("sum", prims.reshape(buffers, (whole, per * length)), 1))
    if rest:
        tail = prims.slice_(flat, (whole * per, 0), (1, 1), (rest, length))
        parts.append(prims.reshape(prims.reduction("sum", prims.reshape(tail, (rest * length,))), (1,)))
    running = cumsum(prims.concatenate(parts, 0))
    return prims.reshape(prims.slice_(running, (running.shape[0] - 1,), (1,), (1,)), ())


def _in_numpy_order(x: Tracer) -> Tracer | None:
    plan = planned(x)
    return None if plan is None else total(x, plan)


prims.FULL_SUM_ORDERS.append(_in_numpy_order)
