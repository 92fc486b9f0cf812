"""Many short lanes sorted at once: a bitonic network over vectors whose elements are lanes.

``passes/kernelize/sort.py`` marks the kernels of lanes shorter than its radix threshold with
``LANES_AXIS``; their ``scf`` merge sort pays a dependent load, compare and select per element
and merge pass, scalar. Here a group of ``G`` lanes is sorted together instead: row ``i`` of
a scratch buffer on the stack holds element ``i`` of each of the group's lanes, one vector
(512 bits of keys: 8 lanes of 64-bit keys, 16 of 32-bit, ...; generic LLVM vectors, which any
target lowers, so the result never depends on the host's vector width), and a bitonic sorting
network runs on the rows: every compare-exchange is an unsigned min and max of two rows, no
branch and no data-dependent address. The network is fixed by the padded length
``N`` (the lane length rounded up to a power of two; rows past the lane hold the largest key),
so the kernel is chosen at compile time from the static lane length, as the merge sort was.

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
from jitcore.codegen.cpu.sort_keys import SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.kernel_body import kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import element_pointer, emit_loop
from jitcore.ir.core import Operation

I32 = ll.IntType(32)
I8 = ll.IntType(8)
LANES_AXIS = "sort_lanes_axis"  # the attribute kernelize/sort.py marks short-lane sorts with
ENABLED = True  # False: the kernels' own scf merge sort (a baseline for measuring)
ROW_BITS = 512  # bits of keys in a scratch row: the lanes of a group
MAX_ARGSORT_GROUP = 16  # argsort rows also hold an i32 position a lane


class _Keys:
    """Order-preserving unsigned keys of one element type (``bits`` as stored), and back."""

    def __init__(self, element):
        self.width = 8 if element.is_bool else element.bitwidth
        self.type = ll.IntType(self.width)
        self.floats = SortKeys(self.width) if element.is_float else None
        self.flip = element.is_integer and not element.is_unsigned  # signed: sign bit flipped
        self.sign = ll.Constant(self.type, 1 << (self.width - 1))

    def of(self, b: ll.IRBuilder, bits: ll.Value) -> tuple[ll.Value, ll.Value | None]:
        """The key of ``bits``, and (floats) i1: its key lost a -0.0 or a NaN's bits."""
        if self.floats is not None:
            return self.floats.of(b, bits)
        return (b.xor(bits, self.sign) if self.flip else bits), None

    def back(self, b: ll.IRBuilder, key: ll.Value) -> ll.Value:
        if self.floats is not None:
            return self.floats.back(b, key)
        return b.xor(key, self.sign) if self.flip else key


def supported(element) -> bool:
    """Element types whose lanes this module sorts (ints, bool and real floats of any width)."""
    if element.is_complex:
        return False
    return element.is_bool or element.bitwidth in (8, 16, 32, 64)


def group_size(width: int, argsort: bool) -> int:
    g = ROW_BITS // width
    return min(g, MAX_ARGSORT_GROUP) if argsort else g


def padded(n: int) -> int:
    """The network's length: ``n`` rounded up to a power of two."""
    return 1 << max(0, (n - 1).bit_length())


def stages(padded_n: int) -> list[tuple[int, int]]:
    """The bitonic network's stages as (j, mask): row ``a`` (bit ``j`` clear) meets row
    ``a ^ mask``, the smaller key going to ``a``. Each merge of sorted runs of k/2 first meets
    mirrored rows (mask ``k - 1``: the second run read backwards, so no direction is needed),
    then halves (mask ``j``) down to neighbours."""
    out = []
    k = 2
    while k <= padded_n:
        out.append((k // 2, k - 1))
        j = k // 4
        while j >= 1:
            out.append((j, j))
            j //= 2
        k *= 2
    return out


def emit_lane_sort_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool]) -> ll.Function | None:
    """``op`` (a sort or argsort kernel marked with ``LANES_AXIS``) as kernel ``name``, its
    lanes sorted by groups in a bitonic network; None where this module does not take it."""
    axis = op.attributes.get(LANES_AXIS)
    if axis is None or not ENABLED:
        return None
    argsort = len(op.operands) == 2  # the zero positions, then the values (kernelize/sort.py)
    x = op.operands[-1]
    t = x.type.element
    shape = x.type.shape
    n = shape[axis]
    outer = [d for d in range(len(shape)) if d != axis]
    lanes = 1
    for d in outer:
        lanes *= shape[d]
    if not supported(t) or n < 2 or lanes == 0:
        return None
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided)
    sorter = _LaneGroups(module, name, t, argsort, n, axis, [shape[d] for d in outer], outer)
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    source, result = operands[len(op.operands) - 1], operands[len(op.operands)]
    groups = -(-lanes // sorter.g)
    chunk = sorter.group_kernel(source, result)
    args = [source.pointer, result.pointer, *source.strides, *result.strides]
    work = lanes * n * len(stages(sorter.padded))
    runtime.emit_launch(b, chunk, args, runtime.Split(groups, work))
    b.ret_void()
    return fn


class _LaneGroups:
    """The emitters of one short-lane sort: a chunk kernel sorting groups ``[lo, hi)`` of
    ``g`` lanes each, and the network it calls."""

    def __init__(self, module, name, element, argsort, n, axis, outer_shape, outer_dims):
        self.module, self.name, self.argsort, self.n, self.axis = module, name, argsort, n, axis
        self.outer_shape, self.outer_dims = outer_shape, outer_dims
        self.keys = _Keys(element)
        self.elem = self.keys.type  # elements moved as their bits (bool: its byte)
        self.g = group_size(self.keys.width, argsort)
        self.padded = padded(n)
        self.row = ll.VectorType(self.keys.type, self.g)
        self.pos_row = ll.VectorType(I32, self.g)
        self.lanes = 1
        for e in outer_shape:
            self.lanes *= e

    def group_kernel(self, source, result) -> ll.Function:
        """``void (src, out, src strides..., out strides..., lo, hi)``: groups ``[lo, hi)``,
        with the scratch rows on the stack of the thread running them."""
        rank = len(source.strides)
        params = [PTR, PTR] + [I64] * (2 * rank) + [I64, I64]
        fn = self.function(f"{self.name}_groups", params)
        lo, hi = fn.args[-2], fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        scratch = [self.scratch(b, self.keys.width), self.scratch(b, 32) if self.argsort else ll.Constant(PTR, None),
                   b.alloca(I8, size=self.g)]
        one = self.group_function(rank)
        emit_loop(b, b.sub(hi, lo), lambda k: b.call(one, [*scratch, *fn.args[:-2], b.mul(b.add(lo, k), _c(self.g))]),
                  unroll=False)
        b.ret_void()
        return fn

    def function(self, name: str, params: list, pointers: int = 2) -> ll.Function:
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), params), name)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        for a in fn.args[:pointers]:
            a.add_attribute("noalias")
        return fn

    def group_function(self, rank: int) -> ll.Function:
        """``void (keys, positions, lost, src, out, strides..., first)``: the group of lanes
        from ``first``: loaded into the rows, sorted, written back."""
        fn = self.function(f"{self.name}_group", [PTR] * 5 + [I64] * (2 * rank + 1), pointers=5)
        keys, pos, lost, src, out = fn.args[:5]
        src_strides, out_strides = list(fn.args[5:5 + rank]), list(fn.args[5 + rank:5 + 2 * rank])
        first = fn.args[-1]
        pos = pos if self.argsort else None
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        left = b.sub(_c(self.lanes), first)
        valid = b.select(b.icmp_signed("<", left, _c(self.g)), left, _c(self.g))
        self.fill(b, keys, pos)
        emit_loop(b, valid, lambda g: self.load_lane(b, keys, lost, src, src_strides, first, g),
                  vectorize=False)
        b.call(self.network_function(), [keys, pos if pos is not None else ll.Constant(PTR, None)])
        emit_loop(b, valid, lambda g: self.store_lane(b, keys, pos, lost, src, src_strides, out,
                                                      out_strides, first, g), vectorize=False)
        b.ret_void()
        return fn

    def scratch(self, b, width: int) -> ll.Value:
        """``padded`` rows of ``g`` elements of ``width`` bits, on the stack, as a plain pointer."""
        at = b.alloca(I8, size=self.padded * self.g * width // 8)
        at.align = 64
        return at

    def lane_pointer(self, b, base, strides, lane, elem=None) -> ll.Value:
        """The address of element 0 of lane ``lane`` (its outer dims in C order) of an array of
        ``elem`` (by default the sorted elements)."""
        positions = [_c(0)] * len(strides)
        rest = lane
        for d, extent in zip(reversed(self.outer_dims), reversed(self.outer_shape)):
            positions[d] = b.urem(rest, _c(extent))
            rest = b.udiv(rest, _c(extent))
        return element_pointer(b, base, positions, strides, elem or self.elem)

    def fill(self, b, keys, pos) -> None:
        """Every row the largest key (a missing lane's and the padding's), and (argsort) row
        ``i``'s positions ``i``: past the lane they exceed every real one."""
        ones = ll.Constant(self.row, [ll.Constant(self.keys.type, (1 << self.keys.width) - 1)] * self.g)

        def row(i):
            b.store(ones, b.gep(keys, [i], inbounds=True, source_etype=self.row))
            if pos is not None:
                p = b.trunc(i, I32)
                splat = b.shuffle_vector(b.insert_element(ll.Constant(self.pos_row, ll.Undefined), p, _c(0)),
                                         ll.Constant(self.pos_row, ll.Undefined),
                                         ll.Constant(ll.VectorType(I32, self.g), [0] * self.g))
                b.store(splat, b.gep(pos, [i], inbounds=True, source_etype=self.pos_row))

        emit_loop(b, _c(self.padded), row)

    def slot(self, b, base, etype, i, g) -> ll.Value:
        """Element ``g`` of row ``i`` of a scratch buffer, as a scalar address."""
        return b.gep(base, [b.add(b.mul(i, _c(self.g)), g)], inbounds=True, source_etype=etype)

    def load_lane(self, b, keys, lost, src, strides, first, g) -> None:
        lane = self.lane_pointer(b, src, strides, b.add(first, g))
        step = strides[self.axis]
        with b.goto_entry_block():
            flag = b.alloca(ll.IntType(1))
        b.store(ll.Constant(ll.IntType(1), 0), flag)

        def one(i):
            bits = b.load(b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=self.elem), typ=self.elem)
            key, special = self.keys.of(b, bits)
            b.store(key, self.slot(b, keys, self.keys.type, i, g))
            if special is not None:
                b.store(b.or_(b.load(flag, typ=ll.IntType(1)), special), flag)

        emit_loop(b, _c(self.n), one)
        b.store(b.zext(b.load(flag, typ=ll.IntType(1)), I8), b.gep(lost, [g], source_etype=I8))

    def store_lane(self, b, keys, pos, lost, src, src_strides, out, strides, first, g) -> None:
        lane = self.lane_pointer(b, out, strides, b.add(first, g), I64 if self.argsort else None)
        step = strides[self.axis]

        def one(i):
            if self.argsort:
                p = b.load(self.slot(b, pos, I32, i, g), typ=I32)
                b.store(b.zext(p, I64), b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=I64))
            else:
                key = b.load(self.slot(b, keys, self.keys.type, i, g), typ=self.keys.type)
                value = self.keys.back(b, key)
                b.store(value, b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=self.elem))

        emit_loop(b, _c(self.n), one)
        if self.keys.floats is not None and not self.argsort:
            was_lost = b.trunc(b.load(b.gep(lost, [g], source_etype=I8), typ=I8), ll.IntType(1))
            with b.if_then(was_lost, likely=False):
                source = self.lane_pointer(b, src, src_strides, b.add(first, g))
                restore_lost(b, self.keys.floats, source, src_strides[self.axis], lane, self.n, step)

    def network_function(self) -> ll.Function:
        """``void (keys, positions)``: the bitonic network over the ``padded`` rows."""
        fn = self.function(f"{self.name}_network", [PTR, PTR])
        stage = self.stage_function()
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        for j, mask in stages(self.padded):
            b.call(stage, [fn.args[0], fn.args[1], _c(j), _c(mask)])
        b.ret_void()
        return fn

    def stage_function(self) -> ll.Function:
        """``void (keys, positions, j, mask)``: each row ``a`` whose bit ``j`` is clear meets
        row ``a ^ mask``; the smaller (key, position) stays in ``a``."""
        fn = self.function(f"{self.name}_stage", [PTR, PTR, I64, I64])
        keys, pos, j, mask = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        low = b.sub(j, _c(1))

        def meet(i):
            a = b.or_(b.shl(b.and_(i, b.not_(low)), _c(1)), b.and_(i, low))
            other = b.xor(a, mask)
            at_a = b.gep(keys, [a], inbounds=True, source_etype=self.row)
            at_o = b.gep(keys, [other], inbounds=True, source_etype=self.row)
            ka, ko = b.load(at_a, typ=self.row), b.load(at_o, typ=self.row)
            if not self.argsort:
                b.store(self.intrinsic(b, "umin", ka, ko), at_a)
                b.store(self.intrinsic(b, "umax", ka, ko), at_o)
                return
            pa_at = b.gep(pos, [a], inbounds=True, source_etype=self.pos_row)
            po_at = b.gep(pos, [other], inbounds=True, source_etype=self.pos_row)
            pa, po = b.load(pa_at, typ=self.pos_row), b.load(po_at, typ=self.pos_row)
            after = b.or_(b.icmp_unsigned(">", ka, ko),
                          b.and_(b.icmp_unsigned("==", ka, ko), b.icmp_unsigned(">", pa, po)))
            b.store(b.select(after, ko, ka), at_a)
            b.store(b.select(after, ka, ko), at_o)
            b.store(b.select(after, po, pa), pa_at)
            b.store(b.select(after, pa, po), po_at)

        emit_loop(b, _c(self.padded // 2), meet)
        b.ret_void()
        return fn

    def intrinsic(self, b: ll.IRBuilder, op: str, x, y) -> ll.Value:
        name = f"llvm.{op}.v{self.g}i{self.keys.width}"
        try:
            fn = self.module.get_global(name)
        except KeyError:
            fn = ll.Function(self.module, ll.FunctionType(self.row, [self.row, self.row]), name)
        return b.call(fn, [x, y])
