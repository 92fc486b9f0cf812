"""Large kernel scratch lives on the heap (codegen/cpu/heap_scratch.py): a jitted function
called from a Python thread with a small stack computes, where 1 MiB of stack frame crashed
the interpreter."""

import re
import threading

import numpy as np
import pytest
from llvmlite import ir as ll

import jitcore
from jitcore.codegen.cpu import heap_scratch
from jitcore.codegen.cpu.target import compile_module

SMALL_STACK = 256 * 1024


def _on_small_stack(fn, *args):
    results, previous = [], threading.stack_size(SMALL_STACK)
    try:
        thread = threading.Thread(target=lambda: results.append(fn(*args)))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert results, "the call on a small stack raised"
    return results[0]


def test_column_sums_run_on_a_small_stack():
    @jitcore.jit
    def work(x):
        return x.sum(0)

    rng = np.random.default_rng(5)
    x = rng.random((300, 2000))
    expected = work(x)  # compiled on the main thread
    got = _on_small_stack(work, x)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(got, x.sum(0), rtol=1e-13)
    for fn_text in re.split(r"\ndefine ", work.lower(x).as_text("llvm"))[1:]:
        assert _static_alloca_bytes(fn_text) <= heap_scratch.STACK_LIMIT, fn_text.split("(")[0]


def _static_alloca_bytes(text: str) -> int:
    sizes = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "float": 4, "double": 8}
    total = 0
    for element, count in re.findall(r"= alloca (i8|i16|i32|i64|float|double)(?:, i64 (\d+))?", text):
        total += sizes[element] * int(count or 1)
    return total


@pytest.mark.parametrize("kept", [1024, 200_000])
def test_a_function_keeps_small_allocas_and_moves_large_ones(kept):
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(ll.DoubleType(), [ll.IntType(64)]), "fill_and_sum")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    counter = b.alloca(ll.IntType(64))  # a scalar: stays an alloca (registers after mem2reg)
    buffer = b.alloca(ll.DoubleType(), size=kept)
    total = b.alloca(ll.DoubleType())
    b.store(ll.Constant(ll.IntType(64), 0), counter)
    b.store(ll.Constant(ll.DoubleType(), 0.0), total)
    loop, done = fn.append_basic_block("loop"), fn.append_basic_block("done")
    b.branch(loop)
    b.position_at_end(loop)
    i = b.load(counter, typ=ll.IntType(64))
    slot = b.gep(buffer, [i], source_etype=ll.DoubleType())
    b.store(b.sitofp(i, ll.DoubleType()), slot)
    b.store(b.fadd(b.load(total, typ=ll.DoubleType()), b.load(slot, typ=ll.DoubleType())), total)
    b.store(b.add(i, ll.Constant(ll.IntType(64), 1)), counter)
    b.cbranch(b.icmp_signed("<", b.add(i, ll.Constant(ll.IntType(64), 1)), fn.args[0]), loop, done)
    b.position_at_end(done)
    b.ret(b.load(total, typ=ll.DoubleType()))

    heap_scratch.move_large_scratch_to_heap(module)
    text = str(module)
    moved = kept * 8 > heap_scratch.STACK_LIMIT
    assert bool(re.search(r'call ptr @"?malloc', text)) == moved
    assert bool(re.search(r'call void @"?free', text)) == moved
    assert len(re.findall(r"= alloca i64\b", text)) == 1  # the counter, never moved
    assert _static_alloca_bytes(text) <= max(heap_scratch.STACK_LIMIT, 8 * kept + 16)

    import ctypes
    _, addresses = compile_module(text, ["fill_and_sum"])
    call = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64)(addresses["fill_and_sum"])
    assert _on_small_stack(call, kept) == kept * (kept - 1) / 2
