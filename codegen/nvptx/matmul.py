"""A float matrix product on the GPU: tiles of the operands in shared memory, each thread a
block of results in registers.

Which kernels: a plain contraction (``contraction.match_contraction``) of float32 or float64
with one m, one n and one k dim (any batch dims, any strides or transposes in its maps): ``a @
b``, ``np.dot``, ``einsum("ij,kj->ik")`` and the like. Others keep the generic schedules.

The schedule (``Tiles``): a block of ``SIDE * SIDE`` threads computes a tile of ``SIDE *
regs`` rows by as many columns of the result, each thread ``regs x regs`` results in registers.
Thread ``(ty, tx)`` owns rows ``g * SIDE * vec + ty * vec + v`` (``v < vec``, one group ``g``
per ``vec`` of its ``regs``) and the columns the same way from ``tx``; ``vec`` is as many
elements as fill 16 bytes, so a thread reads its ``vec`` values of a slab row in one vector load
from shared memory, the threads of a warp reading one run of words (no bank conflicts) or one
word (a broadcast). Large float32 products (``BIG_MIN_TILES`` tiles or more at the big size) take
``BIG_REGS`` = 8 results a side, a tile of 128 x 128 (fewer loads per multiply-add); others
``REGS`` = 4, a tile of 64 x 64 (more tiles for the GPU's many multiprocessors).

For each slab of ``depth`` positions along k, the block's threads copy the ``tile x depth``
slab of ``A`` (stored transposed, ``[k][row]``) and the ``depth x tile`` slab of ``B`` into
shared memory; consecutive threads take consecutive elements of the operand's fastest axis
(its last map axis), so a warp's global reads are contiguous. The next slab is read from global
memory into registers while the threads compute on the current one (its loads in flight during
the multiply-adds); positions outside the matrices read as 0, from a clamped, always valid
address (never an access out of bounds). A slab's multiply-adds are unrolled: ``depth`` steps,
and the last slab's ``K % depth`` (known at compile time). Tiles are taken by the blocks in a
grid-stride loop (batch, tile row, tile column in C order). A result outside the matrix (the
last tiles of any M or N) is computed but not stored.

The accumulation order is fixed and the same on every device and for any tile sizes: each
result is ``c = fma(A[m, k], B[k, n], c)`` for ``k = 0, 1, ..., K - 1`` in turn, from ``c =
0`` (the last slab stops at ``K``: no padded terms). Its error against the exact product is at
most about ``K * eps * sum_k |A[m, k] * B[k, n]|``; NumPy's BLAS sums in another order, so the
two differ by rounding within that bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.contraction import Contraction, match_contraction
from jitcore.codegen.llvm_types import memory_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.codegen.nvptx.intrinsics import I32, barrier, shared_array, special_register
from jitcore.ir.dialects import kernel

SIDE = 16  # threads along each side of a block
REGS = 4  # results per thread along each side (the 64 x 64 tile)
DEPTH = 16  # k positions per shared-memory slab (the 64 x 64 tile)
BIG_REGS = 8  # results per thread along each side of the big float32 tile (128 x 128)
BIG_DEPTH = 8  # k positions per slab of the big tile
BIG_MIN_TILES = 128  # a float32 product of at least this many big tiles takes them
VECTOR_BYTES = 16  # the widest load from shared memory (ld.shared.v4.f32, .v2.f64)
# slabs in shared memory at once: 2 stores the next slab into the other buffer while the
# current one is read (one barrier a slab), 1 waits for every thread before overwriting (two)
BUFFERS = 2
BIG_ELEMENT_BYTES = (4,)  # the element sizes that take the big tile (float32)
# the big tile's register limit by element size (.maxnreg; 0: ptxas's choice, 167 at sm_90 for
# float32, where 128 let two blocks share a multiprocessor: 3.75 against 5.39 ms at 4096^2)
BIG_MAX_REGISTERS = {4: 128, 8: 0}


@dataclass(frozen=True)
class Tiles:
    """One product's tile sizes: ``regs`` results a side per thread, slabs ``depth`` deep."""

    regs: int
    depth: int
    element_bytes: int

    @property
    def tile(self) -> int:
        return SIDE * self.regs

    @property
    def vec(self) -> int:
        """Results of a thread side by side (one vector load of a slab row): a power of two
        dividing ``regs``, at most ``VECTOR_BYTES``."""
        v = 1
        while self.regs % (2 * v) == 0 and 2 * v * self.element_bytes <= VECTOR_BYTES:
            v *= 2
        return v

    @property
    def stride(self) -> int:
        """A slab row's length in shared memory: the tile and one vector more, so that
        consecutive k rows start on other banks (a transposed copy's stores) and every row is
        aligned for the vector loads."""
        return self.tile + self.vec


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


def tiles_of(c: Contraction) -> Tiles:
    """The tile sizes ``c`` runs with (see the module docstring)."""
    size = c.element.bitwidth // 8
    if size in BIG_ELEMENT_BYTES and _count(c, SIDE * BIG_REGS) >= BIG_MIN_TILES:
        return Tiles(BIG_REGS, BIG_DEPTH, size)
    return Tiles(REGS, DEPTH, size)


def _count(c: Contraction, tile: int) -> int:
    rows, cols = c.extent(c.m), c.extent(c.n)
    return c.extent(c.batch) * -(-rows // tile) * -(-cols // tile)


def tiles(c: Contraction) -> int:
    """The tiles of the result: the work items of the launch."""
    return _count(c, tiles_of(c).tile)


def emit(kern) -> None:
    """The tiled product as ``kern``'s code (``kern``: kernels._Kernel, its builder at the entry)."""
    _Matmul(kern).emit()


class _Matmul:
    def __init__(self, kern):
        self.kern, self.b, self.body = kern, kern.b, kern.body
        self.c = matmul_of(kern.op)
        (self.m,), (self.n,), (self.k,) = self.c.m, self.c.n, self.c.k
        self.elem = memory_type(self.c.element)
        self.t = tiles_of(self.c)
        assert (self.t.tile * self.t.depth) % threads() == 0, "each thread copies whole shares of a slab"
        self.per_thread = self.t.tile * self.t.depth // threads()
        # the operands' fastest dims: A's k (else m), B's n (else k)
        self.a_k_fastest = self.body.maps[0].exprs[-1].dim == self.k
        self.b_n_fastest = self.body.maps[1].exprs[-1].dim == self.n

    def emit(self) -> None:
        b, t = self.b, self.t
        name = self.kern.function.name
        self.a_slab = shared_array(b.module, f"{name}_a", self.elem, BUFFERS * t.depth * t.stride)
        self.b_slab = shared_array(b.module, f"{name}_b", self.elem, BUFFERS * t.depth * t.stride)
        self.a_slab.align = self.b_slab.align = VECTOR_BYTES
        registers = BIG_MAX_REGISTERS.get(t.element_bytes, 0) if t.regs == BIG_REGS else 0
        if registers:
            limit = [ll.MetaDataString(b.module, "maxnreg"), ll.Constant(I32, registers)]
            b.module.add_named_metadata("nvvm.annotations", [self.kern.function, *limit])
        tid = special_register(b, "tid.x")
        self.tx, self.ty = b.urem(tid, extent(SIDE)), b.udiv(tid, extent(SIDE))
        # each thread's share of a slab: (tile position, k position) per element, for A and B
        self.a_share, self.b_share = [], []
        for e in range(self.per_thread):
            flat = b.add(tid, extent(e * threads()))
            self.a_share.append(self._split(flat, self.a_k_fastest))
            self.b_share.append(self._split(flat, not self.b_n_fastest))
        self.kern._grid_stride(special_register(b, "ctaid.x"), special_register(b, "nctaid.x"),
                               tiles(self.c), self._tile)

    def _split(self, flat: ll.Value, k_fastest: bool) -> tuple[ll.Value, ll.Value]:
        """``flat`` as (position in the tile, k position): k varying fastest, or the tile's."""
        b, t = self.b, self.t
        if k_fastest:
            return b.udiv(flat, extent(t.depth)), b.urem(flat, extent(t.depth))
        return b.urem(flat, extent(t.tile)), b.udiv(flat, extent(t.tile))

    def _tile(self, index: ll.Value) -> None:
        b, c, t = self.b, self.c, self.t
        rows, cols = c.extent(c.m), c.extent(c.n)
        across, down = -(-cols // t.tile), -(-rows // t.tile)
        col0 = b.mul(b.urem(index, extent(across)), extent(t.tile))
        index = b.udiv(index, extent(across))
        row0 = b.mul(b.urem(index, extent(down)), extent(t.tile))
        batch = self.kern._position(b.udiv(index, extent(down)), list(c.batch))
        self.point = {**batch}
        zero = ll.Constant(self.elem, 0.0)
        acc, staged = [], []
        for _ in range(t.regs * t.regs + 2 * self.per_thread):
            with b.goto_entry_block():
                slot = b.alloca(self.elem)
            b.store(zero, slot)
            (acc if len(acc) < t.regs * t.regs else staged).append(slot)
        depth = c.domain[self.k]
        slabs, full, tail = -(-depth // t.depth), depth // t.depth, depth % t.depth
        if slabs:
            self._fetch(extent(0), row0, col0, staged)
            if BUFFERS == 2:  # slab 0 in buffer 0 before the loop; each step stores the next
                self._store(extent(0), staged)
                barrier(b)
            if full:
                emit_loop(b, extent(full), lambda s: self._step(s, t.depth, slabs, row0, col0, acc, staged),
                          unroll=False, vectorize=False)
            if tail:
                self._step(extent(full), tail, slabs, row0, col0, acc, staged)
        for i in range(t.regs):
            row = b.add(row0, self._lane(self.ty, i))
            for j in range(t.regs):
                col = b.add(col0, self._lane(self.tx, j))
                inside = b.and_(b.icmp_unsigned("<", row, extent(rows)),
                                b.icmp_unsigned("<", col, extent(cols)))
                with b.if_then(inside):
                    ivs = self._ivs({self.m: row, self.n: col})
                    b.store(b.load(acc[i * t.regs + j], typ=self.elem), self._address(2, ivs))

    def _lane(self, thread: ll.Value, i: int) -> ll.Value:
        """The tile position of a thread's ``i``-th result along a side (the module docstring)."""
        t = self.t
        group, v = divmod(i, t.vec)
        return self.b.add(self.b.mul(thread, extent(t.vec)), extent(group * SIDE * t.vec + v))

    def _step(self, s: ll.Value, count: int, slabs: int, row0, col0, acc: list, staged: list) -> None:
        """Slab ``s``: ``count`` k positions of multiply-adds, the next slab's global reads
        begun before them. With one buffer, slab ``s`` is stored first and every thread waits
        before and after; with two, slab ``s`` is already in buffer ``s % 2`` and the next
        goes into the other after the multiply-adds, then one wait."""
        b, t = self.b, self.t
        following = b.add(s, extent(1))
        if BUFFERS == 1:
            self._store(s, staged)
            barrier(b)
        if count == t.depth:
            with b.if_then(b.icmp_unsigned("<", following, extent(slabs))):
                self._fetch(following, row0, col0, staged)
        self._update(s, count, acc)
        if BUFFERS == 2 and count == t.depth:
            with b.if_then(b.icmp_unsigned("<", following, extent(slabs))):
                self._store(following, staged)
        # one buffer: every thread has read the slab before the next store overwrites it;
        # two: the next slab is stored before any thread reads it (and this one read before
        # the step after next overwrites it)
        barrier(b)

    def _store(self, s: ll.Value, staged: list) -> None:
        """The staged share of slab ``s`` into its buffer."""
        b = self.b
        for e, (pos, kk) in enumerate(self.a_share):
            self._put(self.a_slab, s, kk, pos, b.load(staged[e], typ=self.elem))
        for e, (pos, kk) in enumerate(self.b_share):
            self._put(self.b_slab, s, kk, pos, b.load(staged[self.per_thread + e], typ=self.elem))

    def _buffer(self, s: ll.Value) -> ll.Value:
        """Where slab ``s``'s buffer starts in its shared array (elements)."""
        if BUFFERS == 1:
            return extent(0)
        return self.b.mul(self.b.and_(s, extent(1)), extent(self.t.depth * self.t.stride))

    def _fetch(self, s: ll.Value, row0, col0, staged: list) -> None:
        """This thread's share of slab ``s`` of A and B, read from global memory into ``staged``."""
        b, c, t = self.b, self.c, self.t
        k0 = b.mul(s, extent(t.depth))
        rows, cols, depth = c.extent(c.m), c.extent(c.n), c.domain[self.k]
        for e, (pos, kk) in enumerate(self.a_share):
            value = self._read(0, {self.m: (b.add(row0, pos), rows), self.k: (b.add(k0, kk), depth)})
            b.store(value, staged[e])
        for e, (pos, kk) in enumerate(self.b_share):
            value = self._read(1, {self.k: (b.add(k0, kk), depth), self.n: (b.add(col0, pos), cols)})
            b.store(value, staged[self.per_thread + e])

    def _read(self, operand: int, at: dict) -> ll.Value:
        """The operand at ``at`` (dim -> (position, extent)), or 0 where a position is past its
        extent, read from a clamped address (always inside the array)."""
        b = self.b
        inside, clamped = None, {}
        for dim, (position, size) in at.items():
            ok = b.icmp_unsigned("<", position, extent(size))
            inside = ok if inside is None else b.and_(inside, ok)
            clamped[dim] = b.select(ok, position, extent(max(size - 1, 0)))
        value = b.load(self._address(operand, self._ivs(clamped)), typ=self.elem)
        return b.select(inside, value, ll.Constant(self.elem, 0.0))

    def _put(self, slab, s: ll.Value, kk: ll.Value, pos: ll.Value, value: ll.Value) -> None:
        b = self.b
        index = b.add(self._buffer(s), b.add(b.mul(kk, extent(self.t.stride)), pos))
        b.store(value, b.gep(slab, [ll.Constant(I32, 0), b.trunc(index, I32)]))

    def _update(self, s: ll.Value, count: int, acc: list) -> None:
        """``count`` k positions of slab ``s``, unrolled: each result's fma chain in k order."""
        b, t = self.b, self.t
        fma = b.module.declare_intrinsic("llvm.fma", [self.elem], ll.FunctionType(self.elem, [self.elem] * 3))
        vector = ll.VectorType(self.elem, t.vec)
        sums = [b.load(slot, typ=self.elem) for slot in acc]
        base = self._buffer(s)
        a_start = b.add(base, b.mul(self.ty, extent(t.vec)))
        b_start = b.add(base, b.mul(self.tx, extent(t.vec)))
        for kk in range(count):
            a_row = self._row(self.a_slab, kk, a_start, vector)
            b_row = self._row(self.b_slab, kk, b_start, vector)
            for i in range(t.regs):
                for j in range(t.regs):
                    sums[i * t.regs + j] = b.call(fma, [a_row[i], b_row[j], sums[i * t.regs + j]])
        for value, slot in zip(sums, acc):
            b.store(value, slot)

    def _row(self, slab, kk: int, start: ll.Value, vector: ll.VectorType) -> list[ll.Value]:
        """A thread's ``regs`` values of slab row ``kk``: one vector load per group."""
        b, t = self.b, self.t
        values = []
        for group in range(t.regs // t.vec):
            index = b.add(start, extent(kk * t.stride + group * SIDE * t.vec))
            pointer = b.gep(slab, [ll.Constant(I32, 0), b.trunc(index, I32)])
            loaded = b.load(pointer, typ=vector, align=t.vec * t.element_bytes)
            values += [b.extract_element(loaded, ll.Constant(I32, v)) for v in range(t.vec)]
        return values

    def _ivs(self, dims: dict) -> list[ll.Value]:
        """A full point of the domain: ``dims`` and the batch position, every other dim 0."""
        point = {**self.point, **dims}
        return [point.get(d, extent(0)) for d in range(len(self.c.domain))]

    def _address(self, operand: int, ivs: list[ll.Value]) -> ll.Value:
        return self.body.element_pointer(operand, ivs, self.elem)


def launch_blocks(c: Contraction, max_blocks: int) -> int:
    return max(1, min(max_blocks, tiles(c)))
