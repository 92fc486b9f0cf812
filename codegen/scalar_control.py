"""Scalar ``scf`` ops of a kernel body as LLVM loops and branches.

A loop is a header block whose phis hold the induction variable and the carried scalars, a
body block (or several, when loops nest) and an exit: carried values stay in SSA registers, so
LLVM keeps them in machine registers and nothing goes through memory but the body's own reads
and writes. ``scf.for`` runs while ``iv < ub`` for a positive step, ``iv > ub`` for a negative
one; a zero step is recorded in the status words and the kernel returns (unless the step is a
constant: then it is known not to be zero). ``scf.if`` is a branch whose results are phis in
the block where both sides meet.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir as ll

from jitcore.codegen import compress
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import static_value
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel, scf

EmitOps = Callable[[list], None]


def emit(body, op: Operation, values: dict, emit_ops: EmitOps) -> None:
    """Emit the scalar ``scf`` op ``op`` at ``body.b`` (a ``KernelBody``); ``emit_ops`` emits a
    region's ops into ``values``, which gets ``op``'s results."""
    if isinstance(op, scf.ForOp):
        results = _for(body, op, values, emit_ops)
    elif isinstance(op, scf.WhileOp):
        results = _while(body.b, op, values, emit_ops)
    elif isinstance(op, scf.IfOp):
        results = _if(body.b, op, values, emit_ops)
    else:
        raise NotImplementedError(f"'{op.op_name}' has regions the code generator does not know")
    for r, v in zip(op.results, results):
        values[id(r)] = v


def _yielded(block, values: dict) -> list[ll.Value]:
    return [values[id(v)] for v in block.terminator.operands]


def _continues(b: ll.IRBuilder, iv: ll.Value, ub: ll.Value, step: ll.Value) -> ll.Value:
    """i1: the loop runs at ``iv``: below ``ub`` going up, above it going down, never for step 0."""
    if isinstance(step, ll.Constant) and isinstance(step.constant, int):
        return b.icmp_signed("<" if step.constant > 0 else ">", iv, ub)
    zero = ll.Constant(step.type, 0)
    up = b.and_(b.icmp_signed(">", step, zero), b.icmp_signed("<", iv, ub))
    down = b.and_(b.icmp_signed("<", step, zero), b.icmp_signed(">", iv, ub))
    return b.or_(up, down)


def _for(body, op: scf.ForOp, values: dict, emit_ops: EmitOps) -> list[ll.Value]:
    b = body.b
    # A constant bound that is an extent, or one step from one (``range(1, n - 1)``), is the
    # run-time value of a size-generic kernel: one code for every n (``loops.Sizes``).
    lb, ub, step = (values[id(v)] for v in op.operands[:3])
    lb, ub = (_sized_bound(body.sizes, v) for v in (lb, ub))
    if kernel.checks_step(op):
        body.record_zero_step(step)
    inits = [values[id(v)] for v in op.inits]
    if op.attributes.get("compaction"):  # whole vector groups first, where they pack
        resumed = compress.compressed_groups(body, op, lb, ub, *inits)
        if resumed is not None:
            lb, inits = resumed[0], [resumed[1]]
    entry = b.block
    header = b.append_basic_block("for.header")
    loop = b.append_basic_block("for.body")
    exit_ = b.append_basic_block("for.exit")
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(lb.type, "iv")
    iv.add_incoming(lb, entry)
    carried = []
    for v in inits:
        phi = b.phi(v.type)
        phi.add_incoming(v, entry)
        carried.append(phi)
    b.cbranch(_continues(b, iv, ub, step), loop, exit_)
    b.position_at_end(loop)
    for arg, v in zip(op.body.args, [iv, *carried]):
        values[id(arg)] = v
    emit_ops(op.body.ops[:-1])
    nexts = _yielded(op.body, values)
    following = b.add(iv, step)
    latch = b.block
    b.branch(header)
    iv.add_incoming(following, latch)
    for phi, v in zip(carried, nexts):
        phi.add_incoming(v, latch)
    b.position_at_end(exit_)
    return carried


def _sized_bound(sizes, v: ll.Value) -> ll.Value:
    known = static_value(v)
    return v if known is None or v.type != I64 else sizes.extent(known)


def _while(b: ll.IRBuilder, op: scf.WhileOp, values: dict, emit_ops: EmitOps) -> list[ll.Value]:
    entry = b.block
    header = b.append_basic_block("while.cond")
    loop = b.append_basic_block("while.body")
    exit_ = b.append_basic_block("while.exit")
    b.branch(header)
    b.position_at_end(header)
    carried = []
    for v in op.operands:
        phi = b.phi(values[id(v)].type)
        phi.add_incoming(values[id(v)], entry)
        carried.append(phi)
    for arg, v in zip(op.cond.args, carried):
        values[id(arg)] = v
    emit_ops(op.cond.ops[:-1])
    b.cbranch(values[id(op.cond.terminator.operands[0])], loop, exit_)
    b.position_at_end(loop)
    for arg, v in zip(op.body.args, carried):
        values[id(arg)] = v
    emit_ops(op.body.ops[:-1])
    nexts = _yielded(op.body, values)
    latch = b.block
    b.branch(header)
    for phi, v in zip(carried, nexts):
        phi.add_incoming(v, latch)
    b.position_at_end(exit_)
    return carried


def _if(b: ll.IRBuilder, op: scf.IfOp, values: dict, emit_ops: EmitOps) -> list[ll.Value]:
    then_bb = b.append_basic_block("if.then")
    else_bb = b.append_basic_block("if.else")
    merge = b.append_basic_block("if.end")
    b.cbranch(values[id(op.condition)], then_bb, else_bb)
    arms = []
    for block, bb in ((op.then_block, then_bb), (op.else_block, else_bb)):
        b.position_at_end(bb)
        emit_ops(block.ops[:-1])
        arms.append((_yielded(block, values), b.block))
        b.branch(merge)
    b.position_at_end(merge)
    results = []
    for k in range(len(op.results)):
        phi = b.phi(arms[0][0][k].type)
        for yielded, end in arms:
            phi.add_incoming(yielded[k], end)
        results.append(phi)
    return results
