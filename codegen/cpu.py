"""Lower an optimised module (kernels, constants, reshapes) to one native entry point.

The entry function ``void @jit_<name>_<n>(i64* desc)`` receives one descriptor array from the
caller: one slot per argument, then one per buffer the caller allocated (one per kernel result),
then one per constant. With an ``ArrayHeader`` a slot holds the address of the array's header,
from which the code reads the data pointer and byte strides itself (the caller then needs no
per-array work beyond ``id()``); without one, a slot holds the data pointer, and a strided
argument's element strides follow it.

Each ``kernel.generic`` becomes an internal function with ``noalias`` pointer parameters, so
LLVM's vectorizer needs no run-time alias checks. Contiguous operands get compile-time strides,
so inner loops have unit stride; a strided argument's strides are parameters.
``CompiledFunction`` says how to lay out the descriptor and which results to return.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.gather import emit_gather
from jitcore.codegen.gather_nd import emit_gather_nd, emit_scatter_nd
from jitcore.codegen.llvm_types import I1, I64, PTR, constant, memory_type, value_type
from jitcore.codegen.loops import contiguous_strides, emit_loop, emit_nest
from jitcore.codegen.target import assembly, compile_module
from jitcore.ir.attributes import AffineMap, numpy_dtype
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.dialects.array import GatherNdOp, GatherOp, ScatterNdOp
from jitcore.ir.errors import JitcoreError

_symbols = itertools.count()
_INDEXED = (GatherOp, GatherNdOp, ScatterNdOp)  # ops with index operands: they need the status words


class CodegenError(JitcoreError):
    """The module holds something the code generator cannot lower."""


@dataclass(frozen=True, slots=True)
class Storage:
    """Where a tensor lives: an argument, a caller-allocated buffer, or a constant."""

    kind: str  # "input", "buffer", "constant"
    index: int


@dataclass(frozen=True, slots=True)
class ArrayHeader:
    """Where an array header keeps its data pointer and its pointer to byte strides."""

    data_offset: int
    strides_offset: int


@dataclass
class CompiledFunction:
    """A compiled entry point and the calling convention of its descriptor array."""

    symbol: str
    llvm_ir: str
    arg_strided: tuple[bool, ...]  # argument passes its strides (else: C-contiguous)
    arg_needs_contiguous: tuple[bool, ...]  # the caller must pass a C-contiguous array
    header: ArrayHeader | None = None  # slots hold header addresses (else data pointers)
    has_status: bool = False  # one more buffer slot: error status words (see codegen/gather.py)
    buffers: list[tuple[tuple[int, ...], np.dtype]] = field(default_factory=list)
    constants: list[np.ndarray] = field(default_factory=list)
    outputs: list[tuple[Storage, tuple[int, ...]]] = field(default_factory=list)
    address: int = 0
    module: object = None  # the optimised llvmlite ModuleRef, once compiled

    def compile(self) -> CompiledFunction:
        if not self.address:
            self.module, addresses = compile_module(self.llvm_ir, [self.symbol])
            self.address = addresses[self.symbol]
        return self

    @property
    def optimized_llvm_ir(self) -> str:
        return str(self.compile().module)

    @property
    def assembly(self) -> str:
        return assembly(self.compile().module)


def lower_function(func: Operation, arg_contiguous: tuple[bool, ...],
                   header: ArrayHeader | None = None, fastmath: bool = False) -> CompiledFunction:
    """LLVM IR for ``func`` (not yet compiled) and its calling convention."""
    args = func.body.args
    reshaped = {id(op.operands[0]) for op in func.body.ops if isinstance(op, array.ReshapeOp)}
    needs_contiguous = tuple(id(a) in reshaped for a in args)
    strided = tuple(not (c or n) for c, n in zip(arg_contiguous, needs_contiguous))
    symbol = f"jit_{func.sym_name}_{next(_symbols)}"
    plan = CompiledFunction(symbol, "", strided, needs_contiguous, header)
    lowering = _Lowering(plan, symbol, fastmath)
    lowering.run(func)
    plan.llvm_ir = str(lowering.module)
    return plan


class _Lowering:
    def __init__(self, plan: CompiledFunction, symbol: str, fastmath: bool = False):
        self.plan = plan
        self.fastmath = fastmath
        self.module = ll.Module(name=symbol)
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR]), symbol)
        fn.args[0].name = "desc"
        self.entry = fn
        self.b = ll.IRBuilder(fn.append_basic_block("entry"))
        self.storage: dict[int, Storage] = {}
        self.pointers: dict[Storage, ll.Value] = {}
        self.strides: dict[int, list[ll.Value] | None] = {}  # id(value) -> dynamic strides
        self.slot = 0

    def load_slot(self) -> ll.Value:
        ptr = self.b.gep(self.entry.args[0], [ll.Constant(I64, self.slot)], source_etype=I64)
        self.slot += 1
        return self.b.load(ptr, typ=I64)

    def _field(self, obj: ll.Value, offset: int, typ: ll.Type) -> ll.Value:
        return self.b.load(self.b.gep(obj, [ll.Constant(I64, offset)], source_etype=ll.IntType(8)), typ=typ)

    def load_array(self, value: Value, strided: bool) -> tuple[ll.Value, list[ll.Value] | None]:
        """The next slot's data pointer, and its element strides if ``strided``."""
        header = self.plan.header
        slot = self.b.inttoptr(self.load_slot(), PTR)
        if header is None:
            strides = [self.load_slot() for _ in range(value.type.rank)] if strided else None
            return slot, strides
        data = self._field(slot, header.data_offset, PTR)
        if not strided:
            return data, None
        byte_strides = self._field(slot, header.strides_offset, PTR)
        itemsize = ll.Constant(I64, numpy_dtype(value.type.element).itemsize)
        strides = []
        for k in range(value.type.rank):
            at = self.b.gep(byte_strides, [ll.Constant(I64, k)], source_etype=I64)
            strides.append(self.b.sdiv(self.b.load(at, typ=I64), itemsize))
        return data, strides

    def run(self, func: Operation) -> None:
        for i, arg in enumerate(func.body.args):
            self.storage[id(arg)] = Storage("input", i)
            pointer, strides = self.load_array(arg, self.plan.arg_strided[i])
            self.pointers[Storage("input", i)] = pointer
            self.strides[id(arg)] = strides
        body = list(func.body.ops)
        # Descriptor order: arguments, then every buffer, then every constant.
        for op in body:
            if isinstance(op, (kernel.GenericOp, *_INDEXED)):
                for r in op.results:
                    self._new_storage(r, "buffer", len(self.plan.buffers))
                    self.plan.buffers.append((r.type.shape, numpy_dtype(r.type.element)))
        if any(isinstance(op, _INDEXED) for op in body):
            self.plan.has_status = True  # one more caller-allocated buffer, after the others
            self.status = self.b.inttoptr(self.load_slot(), PTR)
            if self.plan.header is not None:
                self.status = self._field(self.status, self.plan.header.data_offset, PTR)
        for op in body:
            if isinstance(op, array.ConstantOp):
                self._new_storage(op.result, "constant", len(self.plan.constants))
                self.plan.constants.append(op.value.array)
        for op in body:
            if isinstance(op, kernel.GenericOp):
                self._call_kernel(op)
            elif isinstance(op, GatherOp):
                self._call_gather(op)
            elif isinstance(op, (GatherNdOp, ScatterNdOp)):
                self._call_indexed(op)
            elif isinstance(op, array.ReshapeOp):
                self.storage[id(op.result)] = self.storage[id(op.operands[0])]
                self.strides[id(op.result)] = None
            elif op.op_name == "func.return":
                self.plan.outputs = [(self.storage[id(v)], v.type.shape) for v in op.operands]
            elif not isinstance(op, array.ConstantOp):
                raise CodegenError(
                    f"'{op.op_name}' cannot be compiled directly: run the 'fuse' pass first, "
                    "which turns array ops into kernels"
                )
        self.b.ret_void()

    def _new_storage(self, value: Value, kind: str, index: int) -> None:
        s = Storage(kind, index)
        self.storage[id(value)] = s
        self.pointers[s], self.strides[id(value)] = self.load_array(value, strided=False)

    def _call_gather(self, op: GatherOp) -> None:
        dynamic = [self.strides[id(v)] for v in op.operands]
        fn = emit_gather(self.module, op, [d is not None for d in dynamic])
        args = [self.pointers[self.storage[id(v)]] for v in (*op.operands, op.result)] + [self.status]
        self.b.call(fn, args + [s for d in dynamic if d is not None for s in d])

    def _call_indexed(self, op: GatherNdOp | ScatterNdOp) -> None:
        dynamic = [self.strides[id(v)] for v in op.operands]
        emit = emit_gather_nd if isinstance(op, GatherNdOp) else emit_scatter_nd
        fn = emit(self.module, op, [d is not None for d in dynamic])
        args = [self.pointers[self.storage[id(v)]] for v in (*op.operands, op.result)] + [self.status]
        self.b.call(fn, args + [s for d in dynamic if d is not None for s in d])

    def _call_kernel(self, op: kernel.GenericOp) -> None:
        shaped = [*op.operands, *op.results]
        dynamic = [self.strides[id(v)] for v in shaped]
        fn = _KernelEmitter(self.module, op, [d is not None for d in dynamic], self.fastmath).function
        args = [self.pointers[self.storage[id(v)]] for v in shaped]
        args += [s for d in dynamic if d is not None for s in d]
        self.b.call(fn, args)


class _KernelEmitter:
    """One ``kernel.generic`` as an internal LLVM function: a loop nest around its body."""

    _names = itertools.count()

    def __init__(self, module: ll.Module, op: kernel.GenericOp, strided: list[bool], fastmath: bool = False):
        self.op = op
        self.fastmath = fastmath
        shaped = [*op.operands, *op.results]
        params = [PTR] * len(shaped) + [I64] * sum(v.type.rank for v, s in zip(shaped, strided) if s)
        fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params), f"kernel_{next(self._names)}")
        fn.linkage = "internal"
        for a in fn.args[: len(shaped)]:
            a.add_attribute("noalias")
        self.function = fn
        self.b = ll.IRBuilder(fn.append_basic_block("entry"))
        rest = iter(fn.args[len(shaped):])
        self.strides = []
        for v, s in zip(shaped, strided):
            if s:
                self.strides.append([next(rest) for _ in range(v.type.rank)])
            else:
                self.strides.append([ll.Constant(I64, x) for x in contiguous_strides(v.type.shape)])
        self.pointers = list(fn.args[: len(shaped)])
        self.maps = list(op.indexing_maps)
        self.domain = list(op.domain())
        self.shapes = [v.type.shape for v in shaped]
        positional = any(isinstance(inner, kernel.IndexOp) for inner in op.body.ops)
        same_shape = all(s == tuple(self.domain) for s in self.shapes)
        if not (op.has_reduction or positional or any(strided) or op.clamped) and same_shape and all(
            m.is_identity for m in self.maps
        ):
            self._flatten()
        self.precision = scalar.Precision(fastmath=fastmath)
        self.scan_start = False  # emitting position 0 of the scan dim (see _loop_nest)
        if any(scalar.needs_exact_fallback(inner) for inner in op.body.ops):
            self._emit_with_exact_fallback()
        else:
            self._emit_nest()
        self.b.ret_void()

    def _emit_nest(self) -> None:
        self._emit_copies()
        if self.op.has_reduction and self.op.scan_dim is None:
            self._emit_inits()  # a scan starts from its inits at position 0 instead
        self._loop_nest(0, [])

    def _emit_copies(self) -> None:
        """Results that start as a copy of an input get that copy before the nest runs."""
        n_in = len(self.op.operands)
        for k, source in enumerate(self.op.copy_inputs):
            if source < 0:
                continue
            shape = self.op.results[k].type.shape
            elem = memory_type(self.op.results[k].type.element)

            def copy_at(ivs, k=k, source=source, elem=elem):
                def address(index):
                    offset: ll.Value = ll.Constant(I64, 0)
                    for iv, stride in zip(ivs, self.strides[index]):
                        offset = self.b.add(offset, self.b.mul(iv, stride))
                    return self.b.gep(self.pointers[index], [offset], inbounds=True, source_etype=elem)

                self.b.store(self.b.load(address(source), typ=elem), address(n_in + k))

            emit_nest(self.b, shape, copy_at)

    def _emit_with_exact_fallback(self) -> None:
        """Run the vectorizable nest, noting any element the fast math cannot compute
        accurately; if there was one, run the whole nest again with exact (libm) math. Kernels
        write only their own results, so the second run simply overwrites the first."""
        flag = self.b.alloca(I1)
        self.b.store(ll.Constant(I1, 0), flag)

        def report(cond):
            self.b.store(self.b.or_(self.b.load(flag, typ=I1), cond), flag)

        self.precision = scalar.Precision(report=report, fastmath=self.fastmath)
        self._emit_nest()
        with self.b.if_then(self.b.load(flag, typ=I1), likely=False):
            self.precision = scalar.Precision(exact=True, fastmath=self.fastmath)
            self._emit_nest()

    def _flatten(self) -> None:
        """An all-identity, all-contiguous kernel is one flat loop: best for the vectorizer."""
        size = int(np.prod(self.domain)) if self.domain else 1
        self.domain = [size]
        self.maps = [AffineMap.identity(1) for _ in self.maps]
        self.strides = [[ll.Constant(I64, 1)] for _ in self.strides]

    def _element_pointer(self, index: int, ivs: list[ll.Value], elem: ll.Type) -> ll.Value:
        offset: ll.Value = ll.Constant(I64, 0)
        clamped = index in self.op.clamped
        for axis, (e, stride) in enumerate(zip(self.maps[index].exprs, self.strides[index])):
            position: ll.Value = ll.Constant(I64, e.offset)
            if e.dim is not None:
                scaled = ivs[e.dim] if e.scale == 1 else self.b.mul(ivs[e.dim], ll.Constant(I64, e.scale))
                position = scaled if e.offset == 0 else self.b.add(scaled, position)
            if clamped:
                last = ll.Constant(I64, self.shapes[index][axis] - 1)
                position = self.b.select(self.b.icmp_signed(">", position, last), last, position)
                zero = ll.Constant(I64, 0)
                position = self.b.select(self.b.icmp_signed("<", position, zero), zero, position)
            offset = self.b.add(offset, self.b.mul(position, stride))
        return self.b.gep(self.pointers[index], [offset], inbounds=True, source_etype=elem)

    def _load(self, index: int, ivs, value: Value) -> ll.Value:
        t = value.type.element
        if index in self.op.clamped and 0 in value.type.shape:
            return constant(t, 0)  # nothing to read; the body selects elsewhere
        loaded = self.b.load(self._element_pointer(index, ivs, memory_type(t)), typ=memory_type(t))
        if t.is_bool:
            return self.b.icmp_unsigned("!=", loaded, ll.Constant(loaded.type, 0))
        return loaded

    def _store(self, index: int, ivs, value: Value, x: ll.Value) -> None:
        t = value.type.element
        if t.is_bool:
            x = self.b.zext(x, memory_type(t))
        self.b.store(x, self._element_pointer(index, ivs, memory_type(t)))

    def _loop(self, extent: int, body) -> None:
        emit_loop(self.b, extent, body)

    def _emit_inits(self) -> None:
        n_in = len(self.op.operands)
        for k, (r, init) in enumerate(zip(self.op.results, self.op.attributes["inits"])):
            size = r.type.size
            t = r.type.element
            value = constant(t, init.value, memory=True)

            def store(iv, k=k, t=t, value=value):
                ptr = self.b.gep(self.pointers[n_in + k], [iv], inbounds=True, source_etype=memory_type(t))
                self.b.store(value, ptr)

            self._loop(size, store)

    def _scan_accumulator(self, k: int, ivs: list, r: Value) -> ll.Value:
        """Result ``k`` at the previous position along the scan dim, or its init at position 0.

        ``_loop_nest`` runs position 0 of the scan dim apart from the others, so this is a
        constant there and an affine read elsewhere: LLVM then keeps a scan along the inner loop
        in a register, and vectorizes a scan along an outer one.
        """
        t = r.type.element
        if self.scan_start:
            init = self.op.attributes["inits"][k].value
            return constant(t, init)
        scan = self.op.scan_dim
        previous = self.b.sub(ivs[scan], ll.Constant(I64, 1))
        return self._load(len(self.op.operands) + k, [*ivs[:scan], previous, *ivs[scan + 1:]], r)

    def _loop_nest(self, depth: int, ivs: list) -> None:
        if depth == len(self.domain):
            self._body(ivs)
            return
        extent = self.domain[depth]
        if depth == len(self.domain) - 1 and self._lane_combiners() and extent >= 2 * self._lanes():
            self._blocked_reduction(extent, ivs)
            return
        if depth == self.op.scan_dim and extent:
            # Position 0 from the inits, then positions 1.. in order, each reading the one
            # before it (stored earlier: the other dims run wholly inside or outside this one).
            self.scan_start = True
            self._loop_nest(depth + 1, ivs + [ll.Constant(I64, 0)])
            self.scan_start = False
            one = ll.Constant(I64, 1)
            self._loop(extent - 1, lambda iv: self._loop_nest(depth + 1, ivs + [self.b.add(iv, one)]))
            return
        self._loop(extent, lambda iv: self._loop_nest(depth + 1, ivs + [iv]))

    def _lanes(self) -> int:
        """Partial accumulators per result in a blocked reduction: two vectors' worth."""
        return 16 if self.op.results[0].type.element.bitwidth <= 32 else 8

    def _lane_combiners(self) -> list[str] | None:
        """For a float sum or product over the innermost dim, each result's combining op.

        Such a loop carries one add from each iteration to the next, which LLVM may not reorder
        (IEEE), so it would run one element at a time. Only these two ops are reordered here:
        several partial accumulators, added pairwise at the end, as NumPy's pairwise sum does.
        """
        op = self.op
        if (self.fastmath or op.scan_dim is not None or not op.has_reduction
                or op.iterator_types[-1] != "reduction"):
            return None
        n_in = len(op.operands)
        names = []
        for k, y in enumerate(op.body.terminator.operands):
            acc = op.body.args[n_in + k]
            combine = getattr(y, "op", None)
            if _is_complex_sum(combine, acc):
                names.append("complex.add")
                continue
            if (combine is None or combine.op_name not in ("arith.addf", "arith.mulf")
                    or acc not in combine.operands or len(acc.uses) != 1):
                return None
            names.append(combine.op_name)
        return names

    def _blocked_reduction(self, extent: int, ivs: list) -> None:
        """The innermost (reduction) loop with ``_lanes()`` partial accumulators per result:
        blocks of lanes, then the remaining elements into lane 0, then a pairwise sum of the
        lanes into the result."""
        op, n_in, lanes = self.op, len(self.op.operands), self._lanes()
        combiners = self._lane_combiners()
        slots = []
        with self.b.goto_entry_block():
            for r in op.results:
                slots.append([self.b.alloca(value_type(r.type.element)) for _ in range(lanes)])
        for k, r in enumerate(op.results):
            init = op.attributes["inits"][k].value
            for slot in slots[k]:
                self.b.store(constant(r.type.element, init), slot)

        types = [value_type(r.type.element) for r in op.results]

        def step(position, lane):
            accs = [self.b.load(slots[k][lane], typ=t) for k, t in enumerate(types)]
            for slot, y in zip((s[lane] for s in slots), self._body([*ivs, position], accs)):
                self.b.store(y, slot)

        width = ll.Constant(I64, lanes)

        def block(iv):
            base = self.b.mul(iv, width)
            for lane in range(lanes):
                step(self.b.add(base, ll.Constant(I64, lane)), lane)

        self._loop(extent // lanes, block)
        start = ll.Constant(I64, extent // lanes * lanes)
        self._loop(extent % lanes, lambda iv: step(self.b.add(start, iv), 0))
        for k, (r, name) in enumerate(zip(op.results, combiners)):
            t = value_type(r.type.element)
            parts = [self.b.load(slot, typ=t) for slot in slots[k]]
            while len(parts) > 1:
                parts = [self._combine(name, a, b) for a, b in zip(parts[::2], parts[1::2])]
            total = self._combine(name, self._load(n_in + k, [*ivs, ll.Constant(I64, 0)], r), parts[0])
            self._store(n_in + k, [*ivs, ll.Constant(I64, 0)], r, total)

    def _combine(self, name: str, a: ll.Value, b: ll.Value) -> ll.Value:
        if name == "complex.add":
            for k in (0, 1):
                part = self.b.fadd(self.b.extract_value(a, k), self.b.extract_value(b, k))
                a = self.b.insert_value(a, part, k)
            return a
        return self.b.fadd(a, b) if name == "arith.addf" else self.b.fmul(a, b)

    def _body(self, ivs: list, accumulators: list | None = None) -> list | None:
        """The body at ``ivs``: loads, scalar ops, stores. With ``accumulators`` (a blocked
        reduction) those are the running values, and the yielded values are returned instead
        of stored."""
        op = self.op
        n_in = len(op.operands)
        values: dict[int, ll.Value] = {}
        args = op.body.args
        for i, v in enumerate(op.operands):
            values[id(args[i])] = self._load(i, ivs, v)
        if accumulators is not None:
            for k, acc in enumerate(accumulators):
                values[id(args[n_in + k])] = acc
        elif op.has_reduction:
            for k, r in enumerate(op.results):
                values[id(args[n_in + k])] = (self._load(n_in + k, ivs, r) if op.scan_dim is None
                                              else self._scan_accumulator(k, ivs, r))
        for inner in op.body.ops[:-1]:
            if isinstance(inner, kernel.IndexOp):
                values[id(inner.result)] = ivs[inner.dim]
                continue
            operands = [values[id(v)] for v in inner.operands]
            values[id(inner.results[0])] = scalar.emit(self.b, inner, operands, self.precision)
        yielded = [values[id(y)] for y in op.body.terminator.operands]
        if accumulators is not None:
            return yielded
        for k, (r, y) in enumerate(zip(op.results, yielded)):
            self._store(n_in + k, ivs, r, y)
        return None


def _is_complex_sum(combine: Operation | None, acc: Value) -> bool:
    """``complex.create(re(acc) + re(x), im(acc) + im(x))``: a complex sum, whose two float
    sums may be reordered like a float sum's."""
    if combine is None or combine.op_name != "complex.create" or len(acc.uses) != 2:
        return False
    for part, name in zip(combine.operands, ("complex.re", "complex.im")):
        add = getattr(part, "op", None)
        if add is None or add.op_name != "arith.addf":
            return False
        if not any(getattr(v, "op", None) is not None and v.op.op_name == name and v.op.operands[0] is acc
                   for v in add.operands):
            return False
    return True
