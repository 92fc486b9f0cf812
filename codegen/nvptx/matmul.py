"""A float matrix product on the GPU: tiles of the operands in shared memory, each thread a
small block of results in registers.

Which kernels: a plain contraction (``contraction.match_contraction``) of float32 or float64
with one m, one n and one k dim (any batch dims, any strides or transposes in its maps): ``a @
b``, ``np.dot``, ``einsum("ij,kj->ik")`` and the like. Others keep the generic schedules.

The schedule, with ``SIDE`` = 16, ``REGS`` = 4 and ``DEPTH`` = 16: a block of ``SIDE * SIDE``
threads computes a tile of ``TILE = SIDE * REGS`` rows by ``TILE`` columns of the result;
thread ``(ty, tx)`` owns the ``REGS x REGS`` results at rows ``ty + i * SIDE`` and columns ``tx
+ j * SIDE`` (neighbouring threads read neighbouring shared words). For each slab of
``DEPTH`` positions along k, the block copies the ``TILE x DEPTH`` slab of ``A`` and the
``DEPTH x TILE`` slab of ``B`` into shared memory (positions outside the matrices read as 0,
from a clamped, always valid address: never an access out of bounds), waits at a barrier, and
each thread updates its results from the slabs, then waits again before the next slab. Tiles
are taken by the blocks in a grid-stride loop (batch, tile row, tile column in C order). A
result outside the matrix (the last tiles of any M or N) is computed but not stored.

The accumulation order is fixed and the same on every device and for any tile sizes: each
result is ``c = fma(A[m, k], B[k, n], c)`` for ``k = 0, 1, ..., K - 1`` in turn, from ``c =
0`` (the slab loop stops at ``K``: no padded terms). Its error against the exact product is at
most about ``K * eps * sum_k |A[m, k] * B[k, n]|``; NumPy's BLAS sums in another order, so the
two differ by rounding within that bound.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.contraction import Contraction, match_contraction
from jitcore.codegen.llvm_types import memory_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.codegen.nvptx.intrinsics import I32, barrier, shared_array, special_register
from jitcore.ir.dialects import kernel

SIDE = 16  # threads along each side of a block
REGS = 4  # results per thread along each side
DEPTH = 16  # k positions per shared-memory slab


def tile() -> int:
    return SIDE * REGS


def threads() -> int:
    return SIDE * SIDE


def matmul_of(op: kernel.GenericOp) -> Contraction | None:
    """The contraction's roles if ``op`` runs as the tiled product (see the module docstring)."""
    found = match_contraction(op)
    if found is None or not found.element.is_float or found.element.bitwidth not in (32, 64):
        return None
    if len(found.m) != 1 or len(found.n) != 1 or len(found.k) != 1:
        return None
    return found


def tiles(c: Contraction) -> int:
    """The tiles of the result: the work items of the launch."""
    rows, cols = c.extent(c.m), c.extent(c.n)
    return c.extent(c.batch) * -(-rows // tile()) * -(-cols // tile())


def emit(kern) -> None:
    """The tiled product as ``kern``'s code (``kern``: kernels._Kernel, its builder at the entry)."""
    _Matmul(kern).emit()


class _Matmul:
    def __init__(self, kern):
        self.kern, self.b, self.body = kern, kern.b, kern.body
        self.c = matmul_of(kern.op)
        (self.m,), (self.n,), (self.k,) = self.c.m, self.c.n, self.c.k
        self.elem = memory_type(self.c.element)
        assert (tile() * DEPTH) % threads() == 0, "each thread copies whole shares of a slab"

    def emit(self) -> None:
        b, c = self.b, self.c
        name = self.kern.function.name
        self.a_slab = shared_array(b.module, f"{name}_a", self.elem, tile() * DEPTH)
        self.b_slab = shared_array(b.module, f"{name}_b", self.elem, DEPTH * tile())
        tid = special_register(b, "tid.x")
        self.tid = tid
        self.tx, self.ty = b.urem(tid, extent(SIDE)), b.udiv(tid, extent(SIDE))
        self.kern._grid_stride(special_register(b, "ctaid.x"), special_register(b, "nctaid.x"),
                               tiles(c), self._tile)

    def _tile(self, index: ll.Value) -> None:
        b, c = self.b, self.c
        rows, cols = c.extent(c.m), c.extent(c.n)
        across, down = -(-cols // tile()), -(-rows // tile())
        col0 = b.mul(b.urem(index, extent(across)), extent(tile()))
        index = b.udiv(index, extent(across))
        row0 = b.mul(b.urem(index, extent(down)), extent(tile()))
        batch = self.kern._position(b.udiv(index, extent(down)), list(c.batch))
        self.point = {**batch}
        zero = ll.Constant(self.elem, 0.0)
        acc = []
        for _ in range(REGS * REGS):
            with b.goto_entry_block():
                slot = b.alloca(self.elem)
            b.store(zero, slot)
            acc.append(slot)
        depth = c.domain[self.k]
        slabs = -(-depth // DEPTH)
        emit_loop(b, extent(slabs), lambda s: self._slab(s, row0, col0, acc))
        for i in range(REGS):
            row = b.add(row0, b.add(self.ty, extent(i * SIDE)))
            for j in range(REGS):
                col = b.add(col0, b.add(self.tx, extent(j * SIDE)))
                inside = b.and_(b.icmp_unsigned("<", row, extent(rows)),
                                b.icmp_unsigned("<", col, extent(cols)))
                with b.if_then(inside):
                    ivs = self._ivs({self.m: row, self.n: col})
                    b.store(b.load(acc[i * REGS + j], typ=self.elem), self._address(2, ivs))

    def _slab(self, s: ll.Value, row0: ll.Value, col0: ll.Value, acc: list) -> None:
        b, c = self.b, self.c
        k0 = b.mul(s, extent(DEPTH))
        rows, cols, depth = c.extent(c.m), c.extent(c.n), c.domain[self.k]
        per_thread = tile() * DEPTH // threads()
        for e in range(per_thread):
            flat = b.add(self.tid, extent(e * threads()))
            # A's slab, TILE rows by DEPTH: flat = row * DEPTH + kk
            row, kk = b.udiv(flat, extent(DEPTH)), b.urem(flat, extent(DEPTH))
            self._copy(0, self.a_slab, flat,
                       {self.m: (b.add(row0, row), rows), self.k: (b.add(k0, kk), depth)})
            # B's slab, DEPTH rows by TILE: flat = kk * TILE + col
            kk, col = b.udiv(flat, extent(tile())), b.urem(flat, extent(tile()))
            self._copy(1, self.b_slab, flat,
                       {self.k: (b.add(k0, kk), depth), self.n: (b.add(col0, col), cols)})
        barrier(b)
        left = b.sub(extent(depth), k0)
        count = b.select(b.icmp_unsigned("<", left, extent(DEPTH)), left, extent(DEPTH))
        emit_loop(b, count, lambda kk: self._update(kk, acc))
        barrier(b)  # the slabs are read by every thread before the next copy overwrites them

    def _copy(self, operand: int, slab, flat: ll.Value, at: dict) -> None:
        """One element of a slab: the operand at ``at`` (dim -> (position, extent)), or 0 where
        a position is past its extent, read from a clamped address (always inside the array)."""
        b = self.b
        inside, clamped = None, {}
        for dim, (position, size) in at.items():
            ok = b.icmp_unsigned("<", position, extent(size))
            inside = ok if inside is None else b.and_(inside, ok)
            clamped[dim] = b.select(ok, position, extent(max(size - 1, 0)))
        value = b.load(self._address(operand, self._ivs(clamped)), typ=self.elem)
        value = b.select(inside, value, ll.Constant(self.elem, 0.0))
        b.store(value, b.gep(slab, [ll.Constant(I32, 0), b.trunc(flat, I32)]))

    def _update(self, kk: ll.Value, acc: list) -> None:
        b = self.b
        fma = b.module.declare_intrinsic("llvm.fma", [self.elem], ll.FunctionType(self.elem, [self.elem] * 3))
        rows = [b.add(self.ty, extent(i * SIDE)) for i in range(REGS)]  # in the A slab
        cols = [b.add(self.tx, extent(j * SIDE)) for j in range(REGS)]  # in the B slab
        a_row = [b.load(self._shared(self.a_slab, b.add(b.mul(r, extent(DEPTH)), kk)), typ=self.elem)
                 for r in rows]
        b_col = [b.load(self._shared(self.b_slab, b.add(b.mul(kk, extent(tile())), c)), typ=self.elem)
                 for c in cols]
        for i in range(REGS):
            for j in range(REGS):
                slot = acc[i * REGS + j]
                b.store(b.call(fma, [a_row[i], b_col[j], b.load(slot, typ=self.elem)]), slot)

    def _shared(self, slab, index: ll.Value) -> ll.Value:
        return self.b.gep(slab, [ll.Constant(I32, 0), self.b.trunc(index, I32)])

    def _ivs(self, dims: dict) -> list[ll.Value]:
        """A full point of the domain: ``dims`` and the batch position, every other dim 0."""
        point = {**self.point, **dims}
        return [point.get(d, extent(0)) for d in range(len(self.c.domain))]

    def _address(self, operand: int, ivs: list[ll.Value]) -> ll.Value:
        return self.body.element_pointer(operand, ivs, self.elem)


def launch_blocks(c: Contraction, max_blocks: int) -> int:
    return max(1, min(max_blocks, tiles(c)))

