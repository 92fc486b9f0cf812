"""``array.gather`` as an LLVM function: a loop over the result reading ``x`` at the index
loaded from ``indices``. Negative indices count from the end; an index outside ``[-n, n)`` is
not read: it is recorded in the status words (flag, index, axis, size), which the caller turns
into NumPy's ``IndexError``."""

from __future__ import annotations

import itertools

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR, constant, memory_type
from jitcore.codegen.loops import contiguous_strides, emit_nest
from jitcore.ir.dialects.array import GatherOp

_names = itertools.count()


def emit_gather(module: ll.Module, op: GatherOp, strided: list[bool]) -> ll.Function:
    """``void gather_N(x, indices, out, status, [x strides], [indices strides])``."""
    x, indices = op.operands
    out = op.result
    ranks = [x.type.rank, indices.type.rank]
    params = [PTR] * 4 + [I64] * sum(r for r, s in zip(ranks, strided) if s)
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params), f"gather_{next(_names)}")
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    x_ptr, idx_ptr, out_ptr, status = fn.args[:4]
    rest = iter(fn.args[4:])
    strides = []
    for value, is_strided in zip((x, indices, out), [*strided, False]):
        shape = value.type.shape
        strides.append([next(rest) for _ in shape] if is_strided else
                       [ll.Constant(I64, s) for s in contiguous_strides(shape)])
    axis, n = op.axis, x.type.shape[op.axis]
    elem = memory_type(x.type.element)

    def address(base, ivs, stride_list, etype):
        offset = ll.Constant(I64, 0)
        for iv, stride in zip(ivs, stride_list):
            offset = b.add(offset, b.mul(iv, stride))
        return b.gep(base, [offset], inbounds=True, source_etype=etype)

    def check(i):
        """(out of bounds?, i wrapped into [0, n)); an index out of bounds is recorded."""
        wrapped = b.select(b.icmp_signed("<", i, ll.Constant(I64, 0)), b.add(i, ll.Constant(I64, n)), i)
        bad = b.icmp_unsigned(">=", wrapped, ll.Constant(I64, n))
        with b.if_then(bad, likely=False):
            first = b.icmp_unsigned("==", b.load(status, typ=I64), ll.Constant(I64, 0))
            with b.if_then(first):  # NumPy reports the first bad index
                words = (ll.Constant(I64, 1), i, ll.Constant(I64, axis), ll.Constant(I64, n))
                for slot, v in enumerate(words):
                    b.store(v, b.gep(status, [ll.Constant(I64, slot)], source_etype=I64))
        return bad, wrapped

    def body(ivs):
        k = indices.type.rank
        i = b.load(address(idx_ptr, ivs[axis: axis + k], strides[1], I64), typ=I64)
        bad, wrapped = check(i)
        if n == 0:
            value = constant(x.type.element, 0, memory=True)  # nothing to read: the status has the error
        else:
            safe = b.select(bad, ll.Constant(I64, 0), wrapped)
            at = [*ivs[:axis], safe, *ivs[axis + k:]]
            value = b.load(address(x_ptr, at, strides[0], elem), typ=elem)
        b.store(value, address(out_ptr, ivs, strides[2], elem))

    if out.type.size == 0 and indices.type.size:
        # No element to gather (another dim of x is 0), but NumPy checks every index all the same.
        emit_nest(b, indices.type.shape, lambda ivs: check(
            b.load(address(idx_ptr, ivs, strides[1], I64), typ=I64)))
    else:
        emit_nest(b, out.type.shape, body)
    b.ret_void()
    return fn
