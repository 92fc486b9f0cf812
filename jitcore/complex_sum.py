"""A complex sum in NumPy's order (session 56).

NumPy's complex add reduce loop (``loops_utils.h.src``, ``@TYPE@_pairwise_sum``) sums a row of
``c`` complex numbers as ``2c`` interleaved floats: the float pairwise tree over ``2c``
(eight accumulators, leaves of 128, splits at a multiple of 8), each part added only into the
accumulators of its own part. That is the float pairwise sum of the row of ``2c`` in which the
other part's places hold -0.0 (which adds exactly): ``re0, -0, re1, -0, ...`` for the real
part, ``-0, im0, -0, im1, ...`` for the imaginary one. So each part is summed here as such a
row, in the float sum's own NumPy order (``codegen/cpu/reduction.PairwiseRow``), wherever
NumPy's innermost loop is a reduce along a row (the innermost axis of its iteration is
reduced); elsewhere NumPy adds elementwise, in the order the float sums follow too, and each
part is summed alone. A ``where=`` sum interleaves its mask likewise, each kept complex term
two kept floats, so that its runs are NumPy's. Measured on NumPy 2.4:
/work/lead-out/lead56/wb56/probe.py (group ``complex``).
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore import view_layout
from jitcore.ir import layout_class
from jitcore.tracer import Tracer


def _iteration_axes(x: Tracer) -> list[int]:
    """``x``'s axes, outermost first, in NumPy's iteration order (axes of extent 1 first)."""
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    model = view_layout.model(x)
    order = long_axes if model is None else layout_class.iteration_order(model.strides, long_axes)
    return [a for a in range(x.ndim) if a not in order] + order


def numpy_sum(x: Tracer, axes: tuple[int, ...], keepdims: bool, dtype, mask: Tracer | None = None) -> Tracer:
    """``x.sum(axes)`` of complex ``x`` (as complex ``dtype``) in NumPy's order; with ``mask``
    (``x``'s shape), ``x.sum(axes, where=mask)``."""
    x = prims.convert(x, np.dtype(dtype))
    parts = [prims.part("real", x), prims.part("imag", x)]
    perm = _iteration_axes(x)
    trace = x.owner_trace
    if not perm or perm[-1] not in axes:  # NumPy adds elementwise along its inner loop
        sums = []
        for p in parts:
            if mask is not None:
                p = prims.where(mask, p, prims.constant(trace, np.zeros((), p.dtype)))
                prims.summed_in_runs(p)
            sums.append(prims.reduction("sum", p, axes, keepdims))
        return prims.complex_from_parts(*sums)
    shape = tuple(x.shape[a] for a in perm) + (1,)
    pad = prims.constant(trace, np.full(shape, -0.0, parts[0].dtype))
    reduced = tuple(sorted(perm.index(a) for a in axes))
    rows = shape[:-2] + (2 * shape[-2],)  # each inner row's parts side by side: one float row

    def interleaved(first, second):
        return prims.reshape(prims.concatenate([first, second], x.ndim), rows)

    if mask is not None:
        kept = prims.reshape(prims.transpose(mask, perm), shape)
        kept = interleaved(kept, kept)
    sums = []
    for k, p in enumerate(parts):
        row = prims.reshape(prims.transpose(p, perm), shape)
        row = interleaved(row, pad) if k == 0 else interleaved(pad, row)
        if mask is not None:
            row = prims.where(kept, row, prims.constant(trace, np.zeros((), p.dtype)))
            prims.summed_in_runs(row)
        sums.append(prims.reduction("sum", row, reduced))
    out = prims.complex_from_parts(*sums)
    kept_axes = [a for a in perm if a not in axes]  # the result's axes, in ``perm``'s order
    out = prims.transpose(out, [kept_axes.index(a) for a in sorted(kept_axes)])
    if keepdims:
        out = prims.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return out


prims.COMPLEX_SUM.append(numpy_sum)
