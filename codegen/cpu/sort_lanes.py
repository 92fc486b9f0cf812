"""Many short lanes sorted at once: a bitonic network over vectors whose elements are lanes.

``passes/kernelize/sort.py`` marks the kernels of lanes shorter than its radix threshold with
``LANES_AXIS``; their ``scf`` merge sort pays a dependent load, compare and select per element
and merge pass, scalar. Here a group of ``G`` lanes is sorted together instead: row ``i`` of
a scratch buffer on the stack holds element ``i`` of each of the group's lanes, one vector
(512 bits of keys: 8 lanes of 64-bit keys, 16 of 32-bit, ...; generic LLVM vectors, which any
target lowers, so the result never depends on the host's vector width), and a bitonic sorting
network runs on the rows: every compare-exchange is an unsigned min and max of two rows, no
branch and no data-dependent address. The network is fixed by the padded length
``N`` (the lane length rounded up to a power of two; rows past the lane hold the largest key);
the lane length and the lane count are run-time values (a size-generic function's extents,
``Sizes``), so every lane length of one power-of-two bucket (65..128, ...) runs one code.

- Keys are unsigned integers that order as NumPy sorts: a float's bits made order-preserving
  (``sort_keys.SortKeys``: -0.0 keys as 0.0, every NaN as all ones, and a lane that held -0.0
  or NaN gets ``restore_lost``, which puts their signs and bits back in input order, as the
  stable sort leaves them), a signed int with its sign bit flipped, bool and unsigned as they
  are.
- ``argsort`` carries each element's position (i32) in a second buffer of rows and compares
  (key, position) pairs: positions are distinct, so the order is total and the network gives
  exactly the stable order (ties by input position), whatever the network.
- Lanes may lie along any axis: each of the group's lanes is read and written through its own
  address and the axis stride, by scalar loads and stores (a row is built in scratch, one key
  a lane); a short last group leaves its missing lanes at the largest key and writes nothing.
- The groups are the kernel's chunks for the runtime's threads (``runtime.emit_launch``,
  above its threshold); a group's result does not depend on which thread sorts it.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime
from jitcore.codegen.cpu.sort_keys import SortKeys, constant_like, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import Sizes, element_pointer, emit_loop, static_value
from jitcore.ir.core import Operation

I32 = ll.IntType(32)
I8 = ll.IntType(8)
LANES_AXIS = "sort_lanes_axis"  # the attribute kernelize/sort.py marks short-lane sorts with
SORT_AXIS = "sort_axis"  # and its radix kernels (codegen/cpu/sort.py), which may be short enough too
POSITIONS = "sort_positions"  # and an argsort's or argpartition's kernel (results: positions first)
ENABLED = True  # False: the kernels' own scf merge sort (a baseline for measuring)
ROW_BITS = 512  # bits of keys in a scratch row: the lanes of a group
MAX_GROUP = 16  # lanes a group at most: each is read through its own address
BLOCK = 8  # rows sorted in registers at once by argsort (16 vectors with the positions), 16 by sort
# A radix kernel's lanes, fewer than a group, at most this long go to sort_short.py's columns (one
# lane, thread CPU us, columns against radix: float64 sort 8192 48 against 53, 16384 111 against
# 107; argsort 8192 93 against 123; int64 sort 2048 8.3 against 10.4, 4096 20 against 18; int32
# sort 2048 4.4 against 12; an int argsort stays counted: int64 2048 16 against 13;
# docs/performance.md, sort37), by (float keys, argsort)
ALONE_UP_TO = {(True, False): 8192, (True, True): 8192, (False, False): 2048, (False, True): 0}
STACK_BYTES = 128 << 10  # scratch rows on the stack up to this (sort_buckets.py's too), else malloc


class _Keys:
    """Order-preserving unsigned keys of one element type (``bits`` as stored), and back; on
    scalars or on rows (vectors) of them."""

    def __init__(self, element):
        self.width = 8 if element.is_bool else element.bitwidth
        self.type = ll.IntType(self.width)
        self.floats = SortKeys(self.width) if element.is_float else None
        self.flip = element.is_integer and not element.is_unsigned  # signed: sign bit flipped

    def of(self, b: ll.IRBuilder, bits: ll.Value) -> tuple[ll.Value, ll.Value | None]:
        """The key of ``bits``, and (floats) i1: its key lost a -0.0 or a NaN's bits
        (``SortKeys.of``, on scalars or rows)."""
        if self.floats is not None:
            return self.floats.of(b, bits)
        return (b.xor(bits, constant_like(bits, 1 << (self.width - 1))) if self.flip else bits), None

    def back(self, b: ll.IRBuilder, key: ll.Value) -> ll.Value:
        """The bits of ``key`` (a NaN's key gives a NaN, a zero's +0.0), scalar or row."""
        if self.floats is not None:
            return self.floats.back(b, key)
        return b.xor(key, constant_like(key, 1 << (self.width - 1))) if self.flip else key


def supported(element) -> bool:
    """Element types whose lanes this module sorts (ints, bool and real floats of any width)."""
    if element.is_complex:
        return False
    return element.is_bool or element.bitwidth in (8, 16, 32, 64)


def group_size(width: int) -> int:
    """Lanes of a group: a row is ``ROW_BITS`` of keys, at most ``MAX_GROUP`` of them."""
    return min(ROW_BITS // width, MAX_GROUP)


def padded(n: int) -> int:
    """The network's length: ``n`` rounded up to a power of two."""
    return 1 << max(0, (n - 1).bit_length())


def pairs(rows: int, j: int, mask: int) -> list[tuple[int, int]]:
    """The rows that meet in stage (``j``, ``mask``) among ``rows``: ``a`` (bit ``j`` clear)
    and ``a ^ mask``, the smaller key going to ``a``."""
    return [(a, a ^ mask) for a in range(rows) if not a & j]


def network_stages(padded_n: int) -> list[tuple[int, int]]:
    """Every stage of the network as (j, mask), whether it runs in memory or in a block."""
    stages, k = [], 2
    while k <= padded_n:
        stages += [(k // 2, k - 1)] + [(1 << e, 1 << e) for e in reversed(range((k // 4).bit_length()))]
        k *= 2
    return stages


def merge_stages(k: int, least: int) -> list[tuple[int, int]]:
    """The stages (j, mask) of the bitonic merge of sorted runs of k/2 into runs of k, of rows
    ``least`` or more apart: the mirror (k/2, k - 1), then halves (j, j) down to ``least``."""
    stages = [(k // 2, k - 1)]
    j = k // 4
    while j >= least:
        stages.append((j, j))
        j //= 2
    return stages


def network(padded_n: int, block: int) -> list[tuple]:
    """The bitonic network over ``padded_n`` rows as steps: ("rows", stages), up to
    log2(``block``) stages (j, mask) in one pass over the buffer (``group_rows``: each group
    of rows that only meet each other in them loaded, met stage by stage in registers, and
    stored), or ("block", pairs), each block of ``block`` rows loaded, sorted by ``pairs`` in
    registers and stored. Each merge of sorted runs of k/2 first meets mirrored rows (mask
    ``k - 1``: the second run read backwards, so that no direction is needed), then halves
    (mask ``j``) down to neighbours; the merges of runs within a block, and each merge's last
    stages (rows less than a block apart), are blocks; its stages of rows a block or more
    apart are as few passes of groups as hold them."""
    block = min(block, padded_n)
    within = []
    k = 2
    while k <= block:
        for j, mask in merge_stages(k, 1):
            within += pairs(block, j, mask)
        k *= 2
    steps = [("block", within)] if block > 1 else []
    last = cleaners(block)
    most = max(1, block.bit_length() - 1)  # stages a pass: 2^most rows in registers
    while k <= padded_n:
        apart = merge_stages(k, block)
        passes = -(-len(apart) // most)
        for p in range(passes):  # as even as they go, the longer first
            steps.append(("rows", apart[p * len(apart) // passes:(p + 1) * len(apart) // passes]))
        steps += last
        k *= 2
    return steps


def cleaners(block: int) -> list[tuple]:
    """The steps (``network``'s form) of a merge's stages (j, j), j = ``block`` / 2 .. 1: one
    block in registers (``sort_short.py``'s merges, whose earlier stages are its own)."""
    meets = []
    j = block // 2
    while j >= 1:
        meets += pairs(block, j, j)
        j //= 2
    return [("block", meets)]


def group_rows(stages: list[tuple[int, int]]) -> tuple[list[int], list[tuple[int, int]], int]:
    """The groups of one ("rows", ``stages``) step: stages whose ``j`` are bits ``low ..
    low + t - 1`` of the row number (consecutive, the highest first, as ``network`` makes
    them). A row meets in them only rows that differ from it by a XOR of their masks, so the
    rows fall into groups of 2^t: the group of row ``r`` whose bits ``low ..`` are clear (its
    smallest: every other row of it sets one of those bits, and changes only bits below it) is
    ``r ^ offsets[e]``. Returns the offsets, the meetings of the group's rows (indices into
    offsets, the smaller key to the first) in order, and ``low``."""
    offsets = [0]
    for _, mask in stages:
        offsets += [o ^ mask for o in offsets]
    meets = []
    for j, mask in stages:
        meets += [(e, offsets.index(o ^ mask)) for e, o in enumerate(offsets) if not o & j]
    return offsets, meets, stages[-1][0].bit_length() - 1


def group_first(i: int, low: int, t: int) -> int:
    """The first (smallest) row of group ``i`` of a ("rows", stages) step: ``i`` with ``t``
    zero bits put in at bit ``low``."""
    return ((i >> low) << (low + t)) | (i & ((1 << low) - 1))


def _is_argsort(op: Operation) -> bool:
    return POSITIONS in op.attributes


def takes(op: Operation) -> bool:
    """Whether ``emit_lane_sort_kernel`` emits ``op`` (a kernel marked with ``LANES_AXIS``)."""
    axis = op.attributes.get(LANES_AXIS)
    if axis is None or not ENABLED:
        return False
    x = op.operands[0]
    shape, element = x.type.shape, x.type.element
    lanes = 1
    for d in range(len(shape)):
        lanes *= shape[d] if d != axis else 1
    if not supported(element) or shape[axis] < 2 or lanes == 0:
        return False
    # fewer lanes than a group of a radix length: sort_short.py's columns up to ALONE_UP_TO, past it
    # the radix routines
    return (SORT_AXIS not in op.attributes or lanes >= group_size(8 if element.is_bool else element.bitwidth)
            or shape[axis] <= ALONE_UP_TO[element.is_float, _is_argsort(op)])


def untouched_results(op: Operation) -> tuple[int, ...]:
    """The results of ``op`` that its network code never reads or writes (all but result 0,
    the sorted values or positions: the merge sort's second buffers, its keys under argsort, a
    radix kernel's counters), so the host may give them no memory of their size (allocating,
    then freeing, a second lane-sized buffer a call made glibc return the heap's top to the
    OS and fault every page of the result in again: 10x the time of rows of 100 int64)."""
    return tuple(range(1, len(op.results))) if takes(op) else ()


def emit_lane_sort_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                          sizes: Sizes | None = None) -> ll.Function | None:
    """``op`` (a sort or argsort kernel marked with ``LANES_AXIS``) as kernel ``name``, its
    lanes sorted by groups in a bitonic network; None where this module does not take it.
    With ``sizes`` (a size-generic function's), the lane length and count are run-time values:
    only the padded length is a constant of the code."""
    if not takes(op):
        return None
    axis = op.attributes[LANES_AXIS]
    argsort = _is_argsort(op)
    x = op.operands[0]
    shape = x.type.shape
    outer = [d for d in range(len(shape)) if d != axis]
    sizes = (sizes or Sizes()).unbound()
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided,
                                         sizes=sizes)
    sorter = _LaneGroups(module, name, x.type.element, argsort, shape[axis], axis, outer)
    b = entry_builder(fn)
    source, result = operands[0], operands[len(op.operands)]  # result 0: the sorted
    chunk = sorter.chunk_kernel(len(shape))
    outer_extents = [source.shape[d] for d in outer]
    lane_count = sizes.multiply(b, outer_extents)
    # in the threshold's points (about 0.3 ns each): a compare-exchange of two rows about 1 ns
    per_group = sorter.padded // 2 * len(network_stages(sorter.padded)) * 3
    if static_value(lane_count) is not None:
        groups = -(-static_value(lane_count) // sorter.g)
        split = runtime.Split(groups, groups * per_group)
    else:
        groups = b.udiv(b.add(lane_count, _c(sorter.g - 1)), _c(sorter.g))
        split = runtime.Split(groups, b.mul(groups, _c(per_group)))
    runtime.emit_launch(b, chunk, [source.pointer, result.pointer, *source.strides, *result.strides,
                                   source.shape[axis], *outer_extents], split)
    b.ret_void()
    return fn


class _LaneGroups:
    """The emitters of one short-lane sort: a chunk kernel sorting groups ``[lo, hi)`` of
    ``g`` lanes each, the group's load, network and store, and the network's steps. The lane
    length ``n`` (at most ``padded``) and the outer extents are the functions' arguments
    (``self.n``, ``self.outer_extents``, ``self.lanes``: the values of the function being
    emitted)."""

    def __init__(self, module, name, element, argsort, n, axis, outer_dims):
        self.module, self.name, self.argsort, self.axis = module, name, argsort, axis
        self.outer_dims = outer_dims
        self.n = self.lanes = None
        self.outer_extents = []
        self.keys = _Keys(element)
        self.elem = self.keys.type  # elements moved as their bits (bool: its byte)
        self.g = group_size(self.keys.width)
        self.padded = padded(n)
        self.run_time_rows = False  # True: the rows functions' ``n`` is all rows, a power of two
        self.block = BLOCK if argsort else 2 * BLOCK  # vectors in registers: 16 either way
        self.row = ll.VectorType(self.keys.type, self.g)
        self.pos_row = ll.VectorType(I32, self.g)
        self.shape_params = [I64] * (1 + len(outer_dims))  # n, the outer extents

    def function(self, name: str, params: list, pointers: int = 2) -> ll.Function:
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), params), f"{self.name}_{name}")
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        for a in fn.args[:pointers]:
            a.add_attribute("noalias")
        return fn

    def chunk_kernel(self, rank: int) -> ll.Function:
        """``void (src, out, src strides..., out strides..., n, outer extents..., lo, hi)``:
        groups ``[lo, hi)``.
        Their scratch rows are on the stack of the thread running them up to ``STACK_BYTES``
        (a pool thread's stack may be small), else from ``malloc`` (the stack if it fails)."""
        params = [PTR, PTR] + [I64] * (2 * rank) + self.shape_params + [I64, I64]
        groups = self.groups_function(rank, params)
        on_stack = self.function("groups_on_stack", params)
        b = ll.IRBuilder(on_stack.append_basic_block("entry"))
        key_bytes, pos_bytes = self.scratch_bytes()
        scratch = [self.aligned_alloca(b, key_bytes),
                   self.aligned_alloca(b, pos_bytes) if self.argsort else ll.Constant(PTR, None)]
        b.call(groups, [*scratch, *on_stack.args])
        b.ret_void()
        if key_bytes + pos_bytes * self.argsort <= STACK_BYTES:
            return on_stack
        fn = self.function("groups_on_heap", params)
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        malloc = self.declared("malloc", PTR, [I64])
        free = self.declared("free", ll.VoidType(), [PTR])
        # 64 bytes more, and the rows from the first 64-byte boundary: aligned vectors
        raw = b.call(malloc, [_c(key_bytes + pos_bytes * self.argsort + 64)])
        with b.if_else(b.icmp_unsigned("==", raw, ll.Constant(PTR, None)), likely=False) as (failed, got):
            with failed:
                b.call(on_stack, list(fn.args))
            with got:
                at = b.and_(b.add(b.ptrtoint(raw, I64), _c(63)), _c(-64))
                keys = b.inttoptr(at, PTR)
                pos = b.inttoptr(b.add(at, _c(key_bytes)), PTR) if self.argsort else ll.Constant(PTR, None)
                b.call(groups, [keys, pos, *fn.args])
                b.call(free, [raw])
        b.ret_void()
        return fn

    def scratch_bytes(self) -> tuple[int, int]:
        """Bytes of scratch keys and (argsort) positions: ``padded`` rows of each."""
        return self.padded * self.g * self.keys.width // 8, self.padded * self.g * 4

    def groups_function(self, rank: int, params: list) -> ll.Function:
        """``void (keys, positions, src, out, strides..., n, outer extents..., lo, hi)``:
        groups ``[lo, hi)`` with the scratch rows given."""
        fn = self.function("groups", [PTR, PTR, *params], pointers=4)
        lo, hi = fn.args[-2], fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        one = self.group_function(rank)

        def group(k):
            b.call(one, [*fn.args[:-2], b.mul(b.add(lo, k), _c(self.g))])

        emit_loop(b, b.sub(hi, lo), group, unroll=False)
        b.ret_void()
        return fn

    @staticmethod
    def aligned_alloca(b, size: int) -> ll.Value:
        at = b.alloca(I8, size=size)
        at.align = 64
        return at

    def group_function(self, rank: int) -> ll.Function:
        """``void (keys, positions, src, out, strides..., n, outer extents..., first)``: the
        group of lanes from ``first``: read into the rows, sorted, written back."""
        fn = self.function("group", [PTR] * 4 + [I64] * (2 * rank) + self.shape_params + [I64], pointers=4)
        keys, pos, src, out = fn.args[:4]
        src_strides, out_strides = list(fn.args[4:4 + rank]), list(fn.args[4 + rank:4 + 2 * rank])
        self.n, *self.outer_extents = fn.args[4 + 2 * rank:-1]
        first = fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        self.lanes = _c(1)
        for e in self.outer_extents:
            self.lanes = b.mul(self.lanes, e)
        lost = self.load_rows(b, keys, pos, src, src_strides, first)
        b.call(self.network_function(), [keys, pos if self.argsort else ll.Constant(PTR, None), self.n])
        self.store_rows(b, keys, pos, lost, src, src_strides, out, out_strides, first)
        b.ret_void()
        return fn

    def group_lanes(self, b, base, strides, first, elem=None) -> tuple[list, ll.Value]:
        """The addresses of the group's lanes (a lane past the last is the last again), and
        i1: they are adjacent elements (lanes along a contiguous dim: a row is one vector)."""
        last = b.sub(self.lanes, _c(1))
        lanes = []
        for g in range(self.g):
            lane = b.add(first, _c(g))
            lane = b.select(b.icmp_unsigned("<", lane, last), lane, last)
            lanes.append(self.lane_pointer(b, base, strides, lane, elem))
        size = (elem or self.elem).width // 8
        at0 = b.ptrtoint(lanes[0], I64)
        adjacent = ll.Constant(ll.IntType(1), 1)
        for g, lane in enumerate(lanes[1:], 1):
            apart = b.sub(b.ptrtoint(lane, I64), at0)
            adjacent = b.and_(adjacent, b.icmp_unsigned("==", apart, _c(g * size)))
        return lanes, adjacent

    def row_at(self, b, lane, i, step, row):
        """The address of ``row`` (a vector type) at element ``i * step`` of ``lane``."""
        at = b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=row.element)
        return at

    def transpose(self, b, vectors: list) -> list:
        """The ``g`` x ``g`` transpose of ``vectors`` (element ``e`` of vector ``r`` becomes
        element ``r`` of vector ``e``): ``log2 g`` rounds, round ``h`` exchanging bit ``h`` of
        the vector's number with bit ``h`` of the element's."""
        g, h = len(vectors), 1
        while h < g:
            lo = ll.Constant(ll.VectorType(I32, g), [e if not e & h else g + (e ^ h) for e in range(g)])
            hi = ll.Constant(ll.VectorType(I32, g), [(e ^ h) if not e & h else g + e for e in range(g)])
            out = list(vectors)
            for a in range(g):
                if not a & h:
                    out[a] = b.shuffle_vector(vectors[a], vectors[a | h], lo)
                    out[a | h] = b.shuffle_vector(vectors[a], vectors[a | h], hi)
            vectors, h = out, h * 2
        return vectors

    def lane_pointer(self, b, base, strides, lane, elem=None) -> ll.Value:
        """The address of element 0 of lane ``lane`` (its outer dims in C order) of an array of
        ``elem`` (by default the sorted elements). The outermost dim takes what is left (a lane
        is below the lane count): a 2-d array's lane divides nothing."""
        positions = [_c(0)] * len(strides)
        rest = lane
        inner = list(zip(self.outer_dims, self.outer_extents))
        for d, extent in reversed(inner[1:]):
            positions[d] = b.urem(rest, extent)
            rest = b.udiv(rest, extent)
        if inner:
            positions[inner[0][0]] = rest
        return element_pointer(b, base, positions, strides, elem or self.elem)

    def load_rows(self, b, keys, pos, src, strides, first) -> ll.Value | None:
        """Rows ``0 .. n`` from the group's lanes (a lane past the last reads the last again,
        and is not written back): one vector a row where the lanes are adjacent, blocks of
        ``g`` rows transposed where each lane is contiguous, else ``g`` scalars a row. The
        padding rows get the largest key, and (argsort) row ``i`` the positions ``i``, which
        past the lane exceed every real one. Floats: the address of a row of i1, 1 where the
        lane held -0.0 or NaN (None where nothing is restored)."""
        lanes, adjacent = self.group_lanes(b, src, strides, first)
        step = strides[self.axis]
        lost_row = ll.VectorType(ll.IntType(1), self.g)
        with b.goto_entry_block():
            lost = b.alloca(lost_row)
        b.store(ll.Constant(lost_row, [ll.Constant(ll.IntType(1), 0)] * self.g), lost)

        def put(i, bits):
            key, special = self.keys.of(b, bits)
            b.store(key, b.gep(keys, [i], inbounds=True, source_etype=self.row))
            if special is not None:
                b.store(b.or_(b.load(lost, typ=lost_row), special), lost)

        def by_scalars(start):
            def row(i):
                i = b.add(i, start)
                bits = ll.Constant(self.row, ll.Undefined)
                for g, lane in enumerate(lanes):
                    at = b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=self.elem)
                    bits = b.insert_element(bits, b.load(at, typ=self.elem), _c(g))
                put(i, bits)
            emit_loop(b, b.sub(self.n, start), row)

        def by_blocks(k):
            i0 = b.mul(k, _c(self.g))
            loaded = [self.load_vector(b, b.gep(lane, [i0], inbounds=True, source_etype=self.elem), self.row)
                      for lane in lanes]
            for r, bits in enumerate(self.transpose(b, loaded)):
                put(b.add(i0, _c(r)), bits)

        blocks = b.lshr(self.n, _c(self.g.bit_length() - 1))
        with b.if_else(adjacent) as (rows, other):
            with rows:
                emit_loop(b, self.n, lambda i: put(i, self.load_vector(
                    b, self.row_at(b, lanes[0], i, step, self.row), self.row)))
            with other:
                with b.if_else(b.icmp_unsigned("==", step, _c(1))) as (contiguous, strided):
                    with contiguous:
                        emit_loop(b, blocks, by_blocks)
                        by_scalars(b.mul(blocks, _c(self.g)))
                    with strided:
                        by_scalars(_c(0))
        ones = ll.Constant(self.row, [ll.Constant(self.keys.type, (1 << self.keys.width) - 1)] * self.g)
        emit_loop(b, b.sub(_c(self.padded), self.n), lambda i: b.store(
            ones, b.gep(keys, [b.add(i, self.n)], inbounds=True, source_etype=self.row)))
        if self.argsort:
            def positions(i):
                p = b.insert_element(ll.Constant(self.pos_row, ll.Undefined), b.trunc(i, I32), _c(0))
                splat = b.shuffle_vector(p, ll.Constant(self.pos_row, ll.Undefined),
                                         ll.Constant(ll.VectorType(I32, self.g), [0] * self.g))
                b.store(splat, b.gep(pos, [i], inbounds=True, source_etype=self.pos_row))

            emit_loop(b, _c(self.padded), positions)
        return lost if self.keys.floats is not None and not self.argsort else None

    def load_vector(self, b, at, row):
        v = b.load(at, typ=row)
        v.align = row.element.width // 8  # lanes are only element-aligned
        return v

    def sorted_row(self, b, keys, pos, i) -> ll.Value:
        """Row ``i`` of the result: the keys' values, or (argsort) the positions as int64."""
        if self.argsort:
            return b.zext(b.load(b.gep(pos, [i], inbounds=True, source_etype=self.pos_row), typ=self.pos_row),
                          ll.VectorType(I64, self.g))
        return self.keys.back(b, b.load(b.gep(keys, [i], inbounds=True, source_etype=self.row), typ=self.row))

    def store_rows(self, b, keys, pos, lost, src, src_strides, out, strides, first) -> None:
        """The sorted rows into the group's lanes of the result, by the same three ways as
        ``load_rows`` (a short last group lane by lane), and a float lane that held -0.0 or
        NaN its zeros' signs and NaNs' bits back."""
        elem = I64 if self.argsort else self.elem
        out_row = ll.VectorType(elem, self.g)
        lanes, adjacent = self.group_lanes(b, out, strides, first, elem)
        step = strides[self.axis]
        left = b.sub(self.lanes, first)
        valid = b.select(b.icmp_signed("<", left, _c(self.g)), left, _c(self.g))
        whole = b.icmp_signed("==", valid, _c(self.g))

        def store(value, at):
            b.store(value, at).align = elem.width // 8

        def by_scalars(start):
            def lane(g):
                at = self.lane_pointer(b, out, strides, b.add(first, g), elem)

                def one(i):
                    i = b.add(i, start)
                    row = self.sorted_row(b, keys, pos, i)
                    to = b.gep(at, [b.mul(i, step)], inbounds=True, source_etype=elem)
                    b.store(b.extract_element(row, g), to)
                emit_loop(b, b.sub(self.n, start), one)
            emit_loop(b, valid, lane, vectorize=False)

        def by_blocks(k):
            i0 = b.mul(k, _c(self.g))
            rows = [self.sorted_row(b, keys, pos, b.add(i0, _c(r))) for r in range(self.g)]
            for lane, values in zip(lanes, self.transpose(b, rows)):
                store(values, b.gep(lane, [i0], inbounds=True, source_etype=elem))

        blocks = b.lshr(self.n, _c(self.g.bit_length() - 1))
        with b.if_else(b.and_(whole, adjacent)) as (rows, other):
            with rows:
                emit_loop(b, self.n, lambda i: store(self.sorted_row(b, keys, pos, i),
                                                         self.row_at(b, lanes[0], i, step, out_row)))
            with other:
                with b.if_else(b.and_(whole, b.icmp_unsigned("==", step, _c(1)))) as (contiguous, strided):
                    with contiguous:
                        emit_loop(b, blocks, by_blocks)
                        by_scalars(b.mul(blocks, _c(self.g)))
                    with strided:
                        by_scalars(_c(0))
        if lost is None:
            return
        flags = b.load(lost, typ=ll.VectorType(ll.IntType(1), self.g))

        def restore(g):
            with b.if_then(b.extract_element(flags, g), likely=False):
                source = self.lane_pointer(b, src, src_strides, b.add(first, g))
                lane = self.lane_pointer(b, out, strides, b.add(first, g))
                restore_lost(b, self.keys.floats, source, src_strides[self.axis], lane, self.n, step)

        emit_loop(b, valid, restore, vectorize=False)

    def network_function(self) -> ll.Function:
        """``void (keys, positions, n)``: the bitonic network over the ``padded`` rows, of which
        the first ``n`` hold the lanes."""
        fn = self.function("network", [PTR, PTR, I64])
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        self.run_steps(b, list(fn.args), network(self.padded, self.block), {})
        b.ret_void()
        return fn

    def run_steps(self, b, fn_args: list, steps: list[tuple], made: dict) -> None:
        """Calls of the functions of ``steps`` (``network``'s form) on ``fn_args`` (keys,
        positions, n), each function made once into ``made``, by its form."""
        for kind, meets in steps:
            args = list(fn_args)
            if kind == "block":
                key = (kind, tuple(meets))
            else:  # passes of as many stages, a mirror first or not: one function
                key = (kind, len(meets), meets[0][0] != meets[0][1])
                args += [_c(group_rows(meets)[2])] + [_c(mask) for _, mask in meets]
            if key not in made:
                emit = self.block_function if kind == "block" else self.rows_function
                made[key] = emit(f"{kind}{len(made)}", meets)
            b.call(made[key], args)

    def meet(self, b, ka, kb, pa=None, pb=None) -> tuple:
        """The compare-exchange of rows ``a`` and ``b``: (smaller, larger) keys, and with
        positions (argsort) the pairs ordered by (key, position)."""
        if pa is None:
            return self.intrinsic(b, "umin", ka, kb), self.intrinsic(b, "umax", ka, kb), None, None
        tie_after = b.and_(b.icmp_unsigned("==", ka, kb), b.icmp_unsigned(">", pa, pb))
        after = b.or_(b.icmp_unsigned(">", ka, kb), tie_after)
        return (b.select(after, kb, ka), b.select(after, ka, kb), b.select(after, pb, pa),
                b.select(after, pa, pb))

    def rows_at(self, b, keys, pos, i) -> tuple:
        at = b.gep(keys, [i], inbounds=True, source_etype=self.row)
        at_pos = b.gep(pos, [i], inbounds=True, source_etype=self.pos_row) if self.argsort else None
        return at, at_pos

    def load_row(self, b, at, at_pos) -> tuple:
        return b.load(at, typ=self.row), (b.load(at_pos, typ=self.pos_row) if at_pos is not None else None)

    def store_row(self, b, at, at_pos, key, p) -> None:
        b.store(key, at)
        if at_pos is not None:
            b.store(p, at_pos)

    def rows_function(self, name: str, stages: list[tuple[int, int]]) -> ll.Function:
        """``void (keys, positions, n, low, masks...)``: the stages of a ("rows", stages) step
        like ``stages`` (as many, the first a mirror or not: their meetings are the same,
        ``group_rows``), their masks and lowest bit given, each group of rows whose first row
        is one of the first ``n`` loaded, met stage by stage in registers, and stored (a group
        of padding rows only stays as it is: their largest keys meet nothing but each other).
        One function serves every step of that form: a long network compiles a few."""
        t = len(stages)
        fn = self.function(name, [PTR, PTR, I64, I64] + [I64] * t)
        keys, pos, n, low, *masks = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        _, meets, _ = group_rows(stages)
        offsets = [_c(0)]
        for mask in masks:  # group_rows's offsets, of the masks given
            offsets += [b.xor(o, mask) for o in offsets]
        below = b.sub(b.shl(_c(1), low), _c(1))

        def group(i):
            first = b.or_(b.shl(b.lshr(i, low), b.add(low, _c(t))), b.and_(i, below))
            with b.if_then(b.icmp_unsigned("<", first, n)):
                self.meet_rows(b, [self.rows_at(b, keys, pos, b.xor(first, o)) for o in offsets], meets)

        emit_loop(b, b.lshr(n, _c(t)) if self.run_time_rows else _c(self.padded >> t), group)
        b.ret_void()
        return fn

    def meet_rows(self, b, at: list, meets: list[tuple[int, int]]) -> None:
        """Load the rows at ``at``, meet them in the order of ``meets`` in registers, store them."""
        rows = [list(self.load_row(b, *a)) for a in at]
        for x, y in meets:
            rows[x][0], rows[y][0], rows[x][1], rows[y][1] = self.meet(b, rows[x][0], rows[y][0],
                                                                       rows[x][1], rows[y][1])
        for a, (key, p) in zip(at, rows):
            self.store_row(b, *a, key, p)

    def block_function(self, name: str, meets: list[tuple[int, int]]) -> ll.Function:
        """``void (keys, positions, n)``: each block of ``BLOCK`` rows (or all rows, if fewer)
        that holds some of the first ``n`` loaded, its rows met in the order of ``meets``, in
        registers, and stored."""
        fn = self.function(name, [PTR, PTR, I64])
        keys, pos, n = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        size = self.block if self.run_time_rows else min(self.block, self.padded)

        def block(k):
            self.meet_rows(b, [self.rows_at(b, keys, pos, b.add(b.mul(k, _c(size)), _c(r)))
                               for r in range(size)], meets)

        shift = _c(size.bit_length() - 1)  # blocks of padding only stay as they are
        emit_loop(b, b.lshr(b.add(n, _c(size - 1)), shift), block)
        b.ret_void()
        return fn

    def declared(self, symbol: str, result: ll.Type, params: list) -> ll.Function:
        existing = self.module.globals.get(symbol)
        if existing is not None:
            return existing
        return ll.Function(self.module, ll.FunctionType(result, params), symbol)

    def intrinsic(self, b: ll.IRBuilder, op: str, x, y) -> ll.Value:
        name = f"llvm.{op}.v{self.g}i{self.keys.width}"
        return b.call(self.declared(name, self.row, [self.row, self.row]), [x, y])
