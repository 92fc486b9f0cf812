"""The run-time cut of a full reduction (``full_reduction.emit_cut``) against ``piece_size``.

A size-generic kernel counts its pieces from the row's length when it runs; the merge gives
the unsplit bits for any power-of-two piece, so a wrong piece size would not show in the
results, only in a count past the scratch the entry allocates (``MAX_PIECES`` + 1). So the
emitted formula is compared with the Python one directly, across its doublings.
"""

import ctypes

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen.cpu import full_reduction, target
from jitcore.codegen.cpu.full_reduction import MAX_PIECES, emit_cut, piece_size
from jitcore.codegen.llvm_types import I64


def compiled_cut(lanes: int):
    """``void cut(i64 n, i64* out)``: out = size, whole, rest, count, log2 of the blocks."""
    module = ll.Module(name=f"cut{lanes}")
    signature = ll.FunctionType(ll.VoidType(), [I64, I64.as_pointer()])
    fn = ll.Function(module, signature, f"jitcore_test_cut{lanes}")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    for k, value in enumerate(emit_cut(b, fn.args[0], lanes)):
        b.store(value, b.gep(fn.args[1], [ll.Constant(I64, k)]))
    b.ret_void()
    code = target.compile_ir(str(module))[1]
    address = target.load_object(code, [fn.name])[fn.name]
    return ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))(address)


def test_run_time_cut_is_piece_size_at_every_length():
    for lanes in (8, 16):
        cut = compiled_cut(lanes)
        block = lanes * full_reduction.STEPS
        edges = [block * full_reduction.MIN_PIECE_BLOCKS * MAX_PIECES * 2**k for k in range(6)]
        lengths = {2, 3, 1000, 4095, 4096, 4097, 123457, 10**7, 2**40 + 3}
        lengths |= {e + d for e in edges for d in (-block, -1, 0, 1, block)}
        out = (ctypes.c_int64 * 5)()
        for n in sorted(lengths):
            cut(n, out)
            size = piece_size(n, lanes)
            whole, rest = divmod(n, size)
            assert list(out) == [size, whole, rest, whole + (rest > 0), int(np.log2(size // block))], n
            assert out[3] <= MAX_PIECES + 1
