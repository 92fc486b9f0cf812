"""The order NumPy adds the kept terms of a whole ``x.sum(where=m)`` in, where ``x`` and ``m``
are laid out differently or in Fortran order (session 55).

NumPy sums each run of consecutive kept elements pairwise and adds the runs in turn
(``codegen/masked_rows``), in its iterator's order: both operands Fortran-ordered, their
memory order (Fortran), one run; one C-ordered and one Fortran-ordered, C order, read through
the iterator's buffer, which cuts runs where a buffer ends (its buffers as for a whole sum of a
view: ``buffered_sum._buffers``, each axis a run of its own). Here ``x`` and ``m`` are
flattened in that order, with a dropped element between buffers, so that the runs summed are
NumPy's. Measured on NumPy 2.x: /work/lead-out/lead55/wb55/where_mixed.py.
"""

from __future__ import annotations

import math

import numpy as np

from jitcore import primitives as prims
from jitcore import view_layout
from jitcore.buffered_sum import _buffers
from jitcore.tracer import Tracer


def _dense_order(x) -> str | None:
    """``"C"`` or ``"F"``: the one dense order NumPy would lay ``x`` out in; None otherwise."""
    if not isinstance(x, Tracer):
        return None
    m = view_layout.model(x)
    if m is None:
        return None
    c, f = m.flags.c_contiguous, m.flags.f_contiguous
    return "C" if c and not f else "F" if f and not c else None


def numpy_order(x: Tracer, where) -> str | None:
    """``"F"`` (one run in Fortran order) or ``"buffered"`` (C order through NumPy's buffer)
    where NumPy's order for ``x.sum(where=where)`` is not the C order the code generator
    follows; None where it is, or where it is not known (a broadcast mask, strided operands)."""
    if x.ndim < 2 or x.size == 0 or x.dtype.kind not in "fc" or sum(n > 1 for n in x.shape) < 2:
        return None
    if not isinstance(where, Tracer) or where.shape != x.shape:
        return None
    orders = {_dense_order(x), _dense_order(where)}
    if None in orders or orders == {"C"}:
        return None
    return "F" if orders == {"F"} else "buffered"


def in_order(x: Tracer, mask: Tracer, order: str) -> tuple[Tracer, Tracer]:
    """``x`` and ``mask`` flattened to 1-d in NumPy's ``order`` (``numpy_order``)."""
    if order == "F":
        axes = list(reversed(range(x.ndim)))
        return tuple(prims.reshape(prims.transpose(t, axes), (x.size,)) for t in (x, mask))
    outer, m, core, per = _buffers([n for n in x.shape if n > 1])
    per = min(per, m)
    count = -(-m // per)  # buffers per outer block
    if outer * count == 1:  # one buffer: C order, one run of the terms
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
