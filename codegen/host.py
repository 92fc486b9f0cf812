"""The host side of a compiled function: where each tensor lives, the ordered kernel launches,
and the LLVM entry point that runs them.

``plan_function`` is target-neutral: it walks an optimised function (kernels, constants,
reshapes), gives every tensor a ``Storage`` and lists one ``Launch`` per kernel, in
program order. ``emit_entry`` is the entry point of a target whose kernels are functions in the
same LLVM module (the CPU): ``void @entry(i64* desc)`` reads the descriptor array laid out as
``codegen/plan.py`` describes and calls each launch's kernel with its operands' data pointers
(and the element strides of strided arguments), reading nothing but the plan.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.errors import CodegenError
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.plan import ArrayHeader, CompiledFunction, Launch, Storage
from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import Operation
from jitcore.ir.dialects import array, kernel

STATUS = Storage("status", 0)  # the status words, for kernels that check indices


def plan_function(func: Operation, target: str, symbol: str, arg_contiguous: tuple[bool, ...],
                  header: ArrayHeader | None) -> tuple[CompiledFunction, list[Operation]]:
    """The calling convention and launches of ``func`` (its code still empty), and the op each
    launch runs, in launch order. Launch ``i`` runs kernel ``<symbol>_k<i>``."""
    args = func.body.args
    body = list(func.body.ops)
    reshaped = {id(op.operands[0]) for op in body if isinstance(op, array.ReshapeOp)}
    needs_contiguous = tuple(id(a) in reshaped for a in args)
    strided = tuple(not (c or n) for c, n in zip(arg_contiguous, needs_contiguous))
    plan = CompiledFunction(target, symbol, strided, needs_contiguous, header)
    storage: dict[int, Storage] = {id(a): Storage("input", i) for i, a in enumerate(args)}
    # Descriptor order: arguments, then every buffer, then the status words, then every constant.
    for op in body:
        if isinstance(op, kernel.GenericOp):
            for r in op.results:
                storage[id(r)] = Storage("buffer", len(plan.buffers))
                plan.buffers.append((r.type.shape, numpy_dtype(r.type.element)))
    plan.has_status = any(isinstance(op, kernel.GenericOp) and kernel.checks_indices(op) for op in body)
    for op in body:
        if isinstance(op, array.ConstantOp):
            storage[id(op.result)] = Storage("constant", len(plan.constants))
            plan.constants.append(op.value.array)
    kernels = []
    for op in body:
        if isinstance(op, kernel.GenericOp):
            operands = tuple(storage[id(v)] for v in (*op.operands, *op.results))
            if kernel.checks_indices(op):
                operands += (STATUS,)
            plan.launches.append(Launch(f"{symbol}_k{len(kernels)}", operands, _parallel_extent(op)))
            kernels.append(op)
        elif isinstance(op, array.ReshapeOp):
            storage[id(op.result)] = storage[id(op.operands[0])]
        elif op.op_name == "func.return":
            plan.outputs = [(storage[id(v)], v.type.shape) for v in op.operands]
        elif not isinstance(op, array.ConstantOp):
            raise CodegenError(
                f"'{op.op_name}' cannot be compiled directly: run the 'fuse' pass first, "
                "which turns array ops into kernels"
            )
    return plan, kernels


def _parallel_extent(op: kernel.GenericOp) -> tuple[int, ...]:
    """The extents of a kernel's parallel dims; none for a kernel that must run in order (it
    reports the first bad index in C order, or a scatter applies its updates in order)."""
    if kernel.runs_in_order(op):
        return ()
    return tuple(d for d, it in zip(op.domain(), op.iterator_types) if it == kernel.PARALLEL)


def strided_operands(plan: CompiledFunction, launch: Launch) -> list[bool]:
    """Per array operand of ``launch``: whether its kernel takes its strides as parameters (a
    strided argument) rather than knowing them (C-contiguous storage)."""
    return [s.kind == "input" and plan.arg_strided[s.index] for s in launch.operands if s != STATUS]


def declare_entry(module: ll.Module, symbol: str) -> ll.Function:
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR]), symbol)
    fn.args[0].name = "desc"
    return fn


def emit_entry(fn: ll.Function, plan: CompiledFunction, arg_types: list[tuple[int, int]],
               kernels: list[ll.Function]) -> None:
    """The body of the entry point ``fn``: load every slot, then call ``kernels`` (one per
    launch) in order. ``arg_types`` holds each argument's (rank, itemsize)."""
    _Entry(fn, plan, arg_types).run(kernels)


class _Entry:
    def __init__(self, fn: ll.Function, plan: CompiledFunction, arg_types: list[tuple[int, int]]):
        self.plan = plan
        self.arg_types = arg_types
        self.fn = fn
        self.b = ll.IRBuilder(self.fn.append_basic_block("entry"))
        self.slot = 0
        self.pointers: dict[Storage, ll.Value] = {}
        self.strides: dict[Storage, list[ll.Value]] = {}  # strided arguments only

    def run(self, kernels: list[ll.Function]) -> None:
        plan = self.plan
        for i, (rank, itemsize) in enumerate(self.arg_types):
            self.load_array(Storage("input", i), rank if plan.arg_strided[i] else None, itemsize)
        for i in range(len(plan.buffers)):
            self.load_array(Storage("buffer", i))
        if plan.has_status:
            self.load_array(STATUS)
        for i in range(len(plan.constants)):
            self.load_array(Storage("constant", i))
        for launch, fn in zip(plan.launches, kernels):
            args = [self.pointers[s] for s in launch.operands]
            args += [x for s in launch.operands for x in self.strides.get(s, ())]
            self.b.call(fn, args)
        self.b.ret_void()

    def load_slot(self) -> ll.Value:
        ptr = self.b.gep(self.fn.args[0], [ll.Constant(I64, self.slot)], source_etype=I64)
        self.slot += 1
        return self.b.load(ptr, typ=I64)

    def _field(self, obj: ll.Value, offset: int, typ: ll.Type) -> ll.Value:
        return self.b.load(self.b.gep(obj, [ll.Constant(I64, offset)], source_etype=ll.IntType(8)), typ=typ)

    def load_array(self, storage: Storage, strided_rank: int | None = None, itemsize: int = 0) -> None:
        """The next slot's data pointer, and its element strides if ``strided_rank`` is given."""
        header = self.plan.header
        slot = self.b.inttoptr(self.load_slot(), PTR)
        if header is None:
            self.pointers[storage] = slot
            if strided_rank is not None:
                self.strides[storage] = [self.load_slot() for _ in range(strided_rank)]
            return
        self.pointers[storage] = self._field(slot, header.data_offset, PTR)
        if strided_rank is None:
            return
        byte_strides = self._field(slot, header.strides_offset, PTR)
        itemsize = ll.Constant(I64, itemsize)
        strides = []
        for k in range(strided_rank):
            at = self.b.gep(byte_strides, [ll.Constant(I64, k)], source_etype=I64)
            strides.append(self.b.sdiv(self.b.load(at, typ=I64), itemsize))
        self.strides[storage] = strides


def arg_types(func: Operation) -> list[tuple[int, int]]:
    """Each argument's (rank, itemsize), as ``emit_entry`` needs them."""
    return [(a.type.rank, numpy_dtype(a.type.element).itemsize) for a in func.body.args]

