"""A float sum of a whole array that NumPy reads through its iterator's buffer.

NumPy's ``v.sum()`` of a view it cannot take as one run (``a[::-1]``, ``a[:, ::-1]``,
``a[::2, 1::3]`` of a 2-d ``a``, made in the function or passed in) iterates its axes largest
stride outermost (a negative stride is not turned around), merges adjacent axes where the outer
steps over the whole inner one, and, left with two, copies whole inner rows into a buffer of
8192 elements (``np.getbufsize()``; as many rows as fit, or one longer row) and adds each
buffer's ``pairwise_sum`` to the total, buffer after buffer, from 0.0 (left with three or more,
the buffer holds whole cores of the innermost runs: ``_buffers``, session 55) (measured on NumPy 2.4:
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


def planned(x: Tracer) -> tuple[list[int], tuple[int, int, int, int] | None] | None:
    """(axes outermost first, buffers) of ``x`` as NumPy's iterator runs it where its axes
    merge into two or more runs, or into one long axis beside axes of extent 1 or one run of
    axes not in their own order (buffers None: one run, which the code generator would
    otherwise sum as rows of one element, or in C order); None where it is one run of axes in
    their own order (the code generator merges them) or not known (a view the aliasing
    rewrites made). ``buffers``: ``(outer, m, core, per)``, the elements in that order as
    ``outer`` blocks of ``m`` cores of ``core`` elements, each block cut into buffers of
    ``per`` cores (``_buffers``)."""
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
        return [*order, *rest], None  # one run (NumPy's order, not C's): one pairwise sum
    if len(groups) < 2:
        return None
    return [*order, *rest], _buffers([math.prod(x.shape[a] for a in g) for g in groups])


def _buffers(extents: list[int]) -> tuple[int, int, int, int]:
    """How NumPy's buffer cuts runs of ``extents`` (outermost first): the innermost runs whose
    extents multiply to at most ``BUFFER`` make the core (at least the innermost run, however
    long); the buffer holds as many cores as fit along the next run out, never crossing into
    the next index of the runs outside it (session 55, checked against NumPy 2.x on 3-d and
    4-d views: /work/lead-out/lead55/wb55/model_nd.py)."""
    core, k = extents[-1], len(extents) - 1
    while k > 0 and core * extents[k - 1] <= BUFFER:
        core *= extents[k - 1]
        k -= 1
    if k == 0:  # one buffer holds it all
        return 1, 1, core, 1
    m = extents[k - 1]
    return math.prod(extents[:k - 1]), m, core, max(1, BUFFER // core)


def total(x: Tracer, plan) -> Tracer:
    """``x``'s sum (0-d) in NumPy's buffered order (``plan`` from ``planned``): each buffer a
    pairwise sum (as the code generator sums a contiguous row), added one after another
    from 0.0."""
    axes, buffers = plan
    if buffers is None:  # one run, as NumPy iterates it: one pairwise sum
        return prims.reduction("sum", prims.reshape(prims.transpose(x, axes), (x.size,)))
    outer, m, core, per = buffers
    per = min(per, m)
    blocks = prims.reshape(prims.transpose(x, axes), (outer, m, core))
    whole, rest = divmod(m, per)
    trace = x.owner_trace
    parts = []
    if whole:
        full = prims.slice_(blocks, (0, 0, 0), (1, 1, 1), (outer, whole * per, core))
        parts.append(prims.reduction("sum", prims.reshape(full, (outer, whole, per * core)), 2))
    if rest:
        tail = prims.slice_(blocks, (0, whole * per, 0), (1, 1, 1), (outer, rest, core))
        parts.append(prims.reduction("sum", prims.reshape(tail, (outer, 1, rest * core)), 2))
    sums = parts[0] if len(parts) == 1 else prims.concatenate(parts, 1)
    flat = prims.reshape(sums, (sums.size,))
    running = np.cumsum(prims.concatenate([prims.constant(trace, np.zeros(1, x.dtype)), flat], 0))
    return prims.reshape(prims.slice_(running, (running.shape[0] - 1,), (1,), (1,)), ())


def _in_numpy_order(x: Tracer) -> Tracer | None:
    plan = planned(x)
    return None if plan is None else total(x, plan)


prims.FULL_SUM_ORDERS.append(_in_numpy_order)
