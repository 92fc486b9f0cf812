"""``array.gather`` as an LLVM function: a loop over the result reading ``x`` at the index
loaded from ``indices``. Negative indices count from the end; an index outside ``[-n, n)`` is
not read: it is recorded in the status words (flag, index, axis, size), which the caller turns
into NumPy's ``IndexError``."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.kernel_body import kernel_function
from jitcore.codegen.llvm_types import I64, constant, memory_type
from jitcore.codegen.loops import element_pointer, emit_nest, extents
from jitcore.ir.dialects.gather import GatherOp


def emit_gather(module: ll.Module, name: str, op: GatherOp, strided: list[bool]) -> ll.Function:
    """``void name(x, indices, out, status, [x strides], [indices strides])``."""
    x, indices = op.operands
    out = op.result
    fn, operands, (status,) = kernel_function(module, name, [x, indices, out], strided,
                                              extra_pointers=1, noalias=False)
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    x_ptr, idx_ptr, out_ptr = (o.pointer for o in operands)
    strides = [o.strides for o in operands]
    axis, n = op.axis, x.type.shape[op.axis]
    elem = memory_type(x.type.element)

    def address(base, ivs, stride_list, etype):
        return element_pointer(b, base, ivs, stride_list, etype)

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
        emit_nest(b, extents(indices.type.shape), lambda ivs: check(
            b.load(address(idx_ptr, ivs, strides[1], I64), typ=I64)))
    else:
        emit_nest(b, extents(out.type.shape), body)
    b.ret_void()
    return fn
