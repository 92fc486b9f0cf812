"""``array.head_sort`` on the CPU: the first ``count`` keys of a 1-d lane sorted, ``count``
read when the code runs (a compacted selection's kept rows, ``jitcore/run_length.py``), so a
sort of ``x[m]`` does the work of its kept count, not of its capacity.

The routines are ``sort.py``'s with the length a run-time value: a float lane is copied into
the result with its NaNs moved past its numbers and sorted there by the vectorized quicksort
(``sort_quick.py``, AVX-512 targets; it runs on the pool itself from ``THREADED_FROM`` keys),
whose way out past its depth is the LSD radix passes (``sort._LaneSort``), which are the whole
sort of ints and of floats elsewhere. -0.0 and NaN bits come back in input order
(``restore_lost``): NumPy's ``kind='stable'``. A lane of ``RUN`` keys or fewer, or of another
width, keeps the kernel's own merge loops (``passes/kernelize/sort.py``), which read the
count too.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import sort_quick, target
from jitcore.codegen.cpu.sort import _copy_numbers_first, _LaneSort
from jitcore.codegen.cpu.sort_keys import SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import Sizes, element_pointer
from jitcore.ir.core import Operation

HEAD_SORT = "head_sort"  # the kernel's attribute (passes/kernelize/sort.py): its count operand
# The quicksort's depth limit for any count below 2^31 (``sort_quick.depth_limit``): the
# capacity may be a size-generic function's run-time extent.
DEPTH = sort_quick.depth_limit((1 << 31) - 1)


def _kind(element) -> str | None:
    if element.bitwidth not in (32, 64):
        return None
    return "f" if element.is_float else "u" if element.is_unsigned else "i" if element.is_integer else None


def emit_head_sort_kernel(
    module: ll.Module, name: str, op: Operation, strided: list[bool], sizes: Sizes | None = None
) -> ll.Function | None:
    """``op`` (an ``array.head_sort`` kernel with both key buffers) as kernel ``name``; None
    where it is not one, or its keys are not 32- or 64-bit floats or ints."""
    at = op.attributes.get(HEAD_SORT)
    if at is None or len(op.results) != 2:
        return None
    x = op.operands[0]
    kind = _kind(x.type.element)
    if kind is None or x.type.shape[0] >= 1 << 31:
        return None
    width = x.type.element.bitwidth
    sizes = (sizes or Sizes()).unbound()
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided, sizes=sizes)
    b = entry_builder(fn)
    source, held = operands[0], operands[at]
    key_a, key_b = operands[len(op.operands) :]
    elem = ll.IntType(width)
    zero = [_c(0)]
    src = element_pointer(b, source.pointer, zero, source.strides, elem)
    stride = source.strides[0]
    a = element_pointer(b, key_a.pointer, zero, key_a.strides, elem)
    scratch = element_pointer(b, key_b.pointer, zero, key_b.strides, elem)
    count = b.load(held.pointer, typ=I64)
    keys = SortKeys(width, kind)
    null = ll.Constant(PTR, None)
    lanes = sort_quick.lanes_for(width, target.kernel_isa()) if kind == "f" and sort_quick.ENABLED else None
    with b.if_then(b.icmp_signed(">", count, _c(1))):
        radix = _LaneSort(module, name, b, width, False, count, kind)
        if lanes is None:
            radix.sort(src, stride, a, scratch, null, null)
        else:
            nans, lost = _copy_numbers_first(b, keys, src, stride, a, count)
            quick = sort_quick.declare(module, width, lanes)
            failed = b.call(quick, [a, b.sub(count, nans), _c(DEPTH)])
            with b.if_else(b.icmp_unsigned("!=", failed, _c(0)), likely=False) as (gave_up, done):
                with gave_up:
                    radix.sort(src, stride, a, scratch, null, null)
                with done:
                    with b.if_then(lost, likely=False):
                        restore_lost(b, keys, src, stride, a, count)
    with b.if_then(b.icmp_signed("==", count, _c(1))):  # one key: as it is
        b.store(keys.load(b, src, stride, _c(0)), a)
    b.ret_void()
    return fn
