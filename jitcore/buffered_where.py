"""The order NumPy adds the kept terms of a whole ``x.sum(where=m)`` in, where its iterator
does not take ``x`` and ``m`` as one run in C order (sessions 55, 56).

NumPy sums each run of consecutive kept elements pairwise and adds the runs in turn
(``codegen/masked_rows``), in its iterator's order for the two operands together
(``npyiter_find_best_axis_ordering``; a reduction never turns a backwards axis around): the
axes by decreasing ``|stride|``, an operand of stride 0 along one of two axes having no say,
and where operands disagree, C order; adjacent axes then merge where every operand steps over
the whole inner one. One run left: one unbroken sequence of runs in that order (Fortran order
for two Fortran-ordered operands). Two or more: NumPy reads them through its buffer, which
ends runs where a buffer ends (its buffers as for a whole sum of a view,
``buffered_sum._buffers``: a C and a Fortran operand, a strided one, a broadcast mask). Here
``x`` and ``m`` are put in that order and flattened, with a dropped element between buffers,
so that the runs summed are NumPy's. Measured on NumPy 2.4: /work/lead-out/lead56/wb56/
where_model56.py (and lead55/wb55/where_mixed.py).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from jitcore import primitives as prims
from jitcore import view_layout
from jitcore.buffered_sum import _buffers
from jitcore.tracer import Tracer


class Plan(NamedTuple):
    axes: tuple[int, ...]  # every axis, NumPy's outermost first (extent-1 axes last)
    runs: tuple[int, ...]  # the extents of the merged runs of axes, outermost first


def _strides(x, where) -> list[tuple[int, ...]] | None:
    """The byte strides NumPy would see for ``x`` and the mask, broadcast to ``x``'s shape;
    None where a layout is not known."""
    out = []
    for a in (x, where):
        m = view_layout.model(a) if isinstance(a, Tracer) else np.asarray(a)
        if m is None:
            return None
        out.append(np.broadcast_to(m, x.shape).strides)
    return out


def _order(strides: list[tuple[int, ...]], long_axes: list[int]) -> list[int]:
    """``long_axes`` outermost first as NumPy's iterator orders them for all the operands: an
    insertion sort from the innermost axis by decreasing ``|stride|``, an operand whose stride
    along either axis is 0 not voting, C order where the voters disagree."""
    inner_first = list(reversed(long_axes))
    for i in range(1, len(inner_first)):
        axis, at = inner_first[i], i
        for j in range(i - 1, -1, -1):
            other = inner_first[j]
            votes = [abs(s[other]) > abs(s[axis]) for s in strides if s[axis] and s[other]]
            if not votes:
                continue  # no operand says: look further in
            if not all(votes):
                break
            at = j
        inner_first.insert(at, inner_first.pop(i))
    return inner_first[::-1]


def inner_axis(x: Tracer, where) -> int | None:
    """The axis NumPy's iterator runs innermost for ``x`` and the mask together (None where
    none is longer than 1); where a layout is not known, the last such axis."""
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    strides = _strides(x, where)
    order = long_axes if strides is None else _order(strides, long_axes)
    return order[-1] if order else None


def numpy_order(x: Tracer, where) -> Plan | None:
    """How NumPy's iterator runs ``x.sum(where=where)`` where that is not one run in C order
    (the order the code generator follows); None where it is, or where it is not known."""
    if x.size == 0 or x.dtype.kind not in "fc" or where is True:
        return None
    strides = _strides(x, where)
    if strides is None:
        return None
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    order = _order(strides, long_axes)
    groups = [[order[0]]] if order else []
    for a in order[1:]:
        outer = groups[-1][-1]
        if all(s[outer] == x.shape[a] * s[a] for s in strides):
            groups[-1].append(a)
        else:
            groups.append([a])
    if len(groups) <= 1 and order == long_axes:
        return None
    rest = [a for a in range(x.ndim) if a not in order]
    return Plan((*order, *rest), tuple(math.prod(x.shape[a] for a in g) for g in groups))


def in_order(x: Tracer, mask: Tracer, plan: Plan) -> tuple[Tracer, Tracer]:
    """``x`` and ``mask`` (both of ``x``'s shape) flattened to 1-d in NumPy's order
    (``numpy_order``), a dropped element after each of its buffers."""
    x, mask = (prims.transpose(t, list(plan.axes)) for t in (x, mask))
    if len(plan.runs) == 1:  # one run: no buffer cuts it
        return prims.reshape(x, (x.size,)), prims.reshape(mask, (x.size,))
    outer, m, core, per = _buffers(list(plan.runs))
    per = min(per, m)
    count = -(-m // per)  # buffers per outer block
    if outer * count == 1:  # one buffer: one sequence of runs
        return prims.reshape(x, (x.size,)), prims.reshape(mask, (x.size,))
    out = []
    for t, empty in ((x, 0), (mask, False)):
        blocks = prims.reshape(t, (outer, m, core))
        if count * per != m:
            blocks = prims.pad(blocks, ((0, 0), (0, count * per - m), (0, 0)), empty)
        rows = prims.reshape(blocks, (outer * count, per * core))
        gap = prims.constant(t.owner_trace, np.full((outer * count, 1), empty, t.dtype))
        joined = prims.concatenate([rows, gap], 1)  # a dropped element ends each buffer's runs
        out.append(prims.reshape(joined, (math.prod(joined.shape),)))
    return out[0], out[1]
