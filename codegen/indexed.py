"""What the kernels of indexed ops (``array.gather``, ``gather_nd``, ``scatter_nd``) share:
their ABI (the arrays, then the status words, then the strides of strided arrays), element
addresses, and the bounds check of an index.

An index outside ``[-n, n)`` is recorded in the status words (flag, index, axis, size) unless
an earlier error already is, and the caller turns the first one into NumPy's ``IndexError``.
Negative indices count from the end.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.kernel_body import kernel_function
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import element_pointer
from jitcore.ir.core import Operation


class IndexedEmitter:
    """The function ``name`` of an indexed op, its builder at the entry block."""

    def __init__(self, module: ll.Module, name: str, op: Operation, strided: list[bool]):
        shaped = [*op.operands, op.result]
        self.fn, operands, (self.status,) = kernel_function(module, name, shaped, strided,
                                                            extra_pointers=1, noalias=False)
        self.b = ll.IRBuilder(self.fn.append_basic_block("entry"))
        self.pointers = [o.pointer for o in operands]
        self.strides = [o.strides for o in operands]
        self.shapes = [v.type.shape for v in shaped]

    def address(self, k: int, ivs, etype):
        return element_pointer(self.b, self.pointers[k], ivs, self.strides[k], etype)

    def status_word(self, slot: int):
        return self.b.gep(self.status, [ll.Constant(I64, slot)], source_etype=I64)

    def wrap(self, i, n: int):
        """A negative index counts from the end."""
        b = self.b
        return b.select(b.icmp_signed("<", i, ll.Constant(I64, 0)), b.add(i, ll.Constant(I64, n)), i)

    def check_index(self, i, axis: int, n: int):
        """(out of bounds?, ``i`` wrapped into ``[0, n)``); an index out of bounds is recorded
        unless an earlier one is (NumPy reports the first)."""
        b = self.b
        wrapped = self.wrap(i, n)
        bad = b.icmp_unsigned(">=", wrapped, ll.Constant(I64, n))
        with b.if_then(bad, likely=False):
            first = b.icmp_unsigned("==", b.load(self.status_word(0), typ=I64), ll.Constant(I64, 0))
            with b.if_then(first):
                words = (ll.Constant(I64, 1), i, ll.Constant(I64, axis), ll.Constant(I64, n))
                for slot, v in enumerate(words):
                    b.store(v, self.status_word(slot))
        return bad, wrapped

    def when_clear(self, emit) -> None:
        """``emit()`` under a branch taken while no error is recorded."""
        b = self.b
        clear = b.icmp_signed("==", b.load(self.status_word(0), typ=I64), ll.Constant(I64, 0))
        with b.if_then(clear, likely=True):
            emit()
