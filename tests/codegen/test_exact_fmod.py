"""``codegen/exact_fmod.py`` (the NVPTX target's ``frem``) compiled for the host and compared
bit for bit with NumPy's ``fmod`` (the C library's, exact) on random bit patterns (every
exponent gap, subnormals, NaN and infinities) and on a grid of special values."""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import numpy as np
import pytest
from llvmlite import ir as ll

from jitcore.codegen import exact_fmod

I64 = ll.IntType(64)
UINT = {4: np.uint32, 8: np.uint64}


def compiled(t: ll.Type):
    """``void run(t* x, t* y, t* out, i64 n)``: ``out[i] = exact_fmod(x[i], y[i])``."""
    module = ll.Module()
    ptr = ll.PointerType()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ptr, ptr, ptr, I64]), name="run")
    xs, ys, outs, n = fn.args
    entry, head, body, end = (fn.append_basic_block(s) for s in ("entry", "head", "body", "end"))
    b = ll.IRBuilder(entry)
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(ll.Constant(I64, 0), entry)
    b.cbranch(b.icmp_unsigned("<", i, n), body, end)
    b.position_at_end(body)
    x = b.load(b.gep(xs, [i], source_etype=t), typ=t)
    y = b.load(b.gep(ys, [i], source_etype=t), typ=t)
    b.store(exact_fmod.emit(b, x, y), b.gep(outs, [i], source_etype=t))
    i.add_incoming(b.add(i, ll.Constant(I64, 1)), body)
    b.branch(head)
    b.position_at_end(end)
    b.ret_void()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
    engine = llvm.create_mcjit_compiler(parsed, machine)
    engine.finalize_object()
    run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        engine.get_function_address("run"))
    return engine, run


@pytest.mark.parametrize("dtype, t", [(np.float32, ll.FloatType()), (np.float64, ll.DoubleType())])
def test_exact_fmod_is_the_c_librarys(dtype, t):
    rng = np.random.default_rng(7)
    info = np.finfo(dtype)
    bits = rng.integers(0, np.iinfo(UINT[info.bits // 8]).max, (2, 60000), dtype=UINT[info.bits // 8],
                        endpoint=True)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, -3.0, 0.5, 6.0, -6.0, 7.0,
                        info.tiny, -info.tiny, info.max, -info.max, info.smallest_subnormal,
                        -info.smallest_subnormal, 3 * info.smallest_subnormal], dtype)
    gx, gy = np.meshgrid(special, special)
    near = rng.standard_normal(4000).astype(dtype)  # small quotients: x - trunc(x/y)*y's territory
    powers = 2.0 ** np.arange(-8, 40, dtype=dtype)
    x = np.concatenate([bits[0].view(dtype), gx.ravel(), near * 1e3, near * 7, powers])
    y = np.concatenate([bits[1].view(dtype), gy.ravel(), near[::-1], near, np.full(48, 3, dtype)])
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    out = np.full_like(x, 12345)
    engine, run = compiled(t)
    run(x.ctypes.data, y.ctypes.data, out.ctypes.data, x.size)
    with np.errstate(all="ignore"):
        want = np.fmod(x, y)
    same = (out.view(UINT[out.itemsize]) == want.view(UINT[out.itemsize])) | (np.isnan(out) & np.isnan(want))
    assert same.all(), (f"{(~same).sum()} of {x.size} differ: fmod({x[~same][:4]}, {y[~same][:4]}) = "
                        f"{out[~same][:4]}, C library {want[~same][:4]}")
