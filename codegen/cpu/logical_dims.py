"""A reduction's merged dims where its operands cannot be read as one flat dim.

The order in which a float sum or product is rounded follows the schedule's domain: adjacent
dims of one kind merged into one (``schedule._collapsed_dims``), so that ``x.sum()`` of a
matrix is one row of ``m * n`` in the blocked, pairwise order of ``reduction.py``, and
``x.sum(axis=0)`` of a 3-d array sums the columns of ``x.reshape(m, -1)``. That order is
defined by the kernel's logical iteration space alone, whatever the memory layout of its
operands: a Fortran-ordered, strided or reversed argument, a transposed or broadcast read, a
read of a computed position (``np.arange``), a clamped one (``np.roll``) gets the same
merged domain, and so the same bits, as a C-contiguous copy of the same values would. (Were
the dims not merged there, fusing an elementwise producer into the sum of a strided argument
would round differently from the unfused sum of its contiguous temporary.)

Where the operands can be read flat (identity maps over contiguous operands), the schedule
rewrites their strides and maps to the merged dims. Elsewhere ``Unmerged`` stands between the
schedule and the kernel's body: the schedule and the reductions run over the merged domain,
and each point they ask the body for is taken apart into the kernel's own dims (a merged
index ``i`` over extents ``(e0, e1)`` is ``(i // e1, i % e1)``), where the body reads its
operands through their own maps and strides.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.kernel_body import KernelBody


class Unmerged:
    """``body`` (a ``KernelBody`` over the kernel's own dims) as the schedule sees it: points
    over the merged dims ``groups`` (each a list of the kernel's dims, with ``extents`` the
    kernel's extents as LLVM values), taken apart before the body reads or writes there."""

    def __init__(self, b: ll.IRBuilder, body: KernelBody, groups: list[list[int]], extents: list[ll.Value]):
        object.__setattr__(self, "_body", body)
        object.__setattr__(self, "_b", b)
        object.__setattr__(self, "_groups", groups)
        object.__setattr__(self, "_extents", extents)

    # The schedule swaps the body's precision between emissions, and reads its operands,
    # status words and known segments: those are the body's own.
    def __getattr__(self, name):
        return getattr(self._body, name)

    def __setattr__(self, name, value):
        setattr(self._body, name, value)

    def own_point(self, ivs: list) -> list:
        """The kernel's own induction values at the merged point ``ivs``."""
        b, own = self._b, []
        for dims, i in zip(self._groups, ivs):
            parts = []
            for d in reversed(dims[1:]):
                e = self._extents[d]
                parts.append(b.urem(i, e))
                i = b.udiv(i, e)
            own += [i, *reversed(parts)]
        return own

    def load(self, index: int, ivs, value) -> ll.Value:
        return self._body.load(index, self.own_point(ivs), value)

    def store(self, index: int, ivs, value, x: ll.Value) -> None:
        self._body.store(index, self.own_point(ivs), value, x)

    def load_results(self, ivs) -> list[ll.Value]:
        return self._body.load_results(self.own_point(ivs))

    def evaluate(self, ivs, accumulators=None) -> list[ll.Value]:
        return self._body.evaluate(self.own_point(ivs), accumulators)

    def evaluate_without(self, ivs, skipped, wanted) -> list[ll.Value]:
        return self._body.evaluate_without(self.own_point(ivs), skipped, wanted)

    def store_point(self, ivs, scan_accumulator) -> None:
        self._body.store_point(self.own_point(ivs), scan_accumulator)

    def finish_point(self, ivs) -> None:
        self._body.finish_point(self.own_point(ivs))
