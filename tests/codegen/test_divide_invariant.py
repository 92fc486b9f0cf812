"""Float division by a divisor the innermost loop does not change (codegen/mathlib_divide.py):
bit for bit NumPy's division, on every host.

On an AVX-512 host the float64 vector lanes multiply by the divisor's reciprocal and correct
once (Markstein); everywhere else, and for a vector with any lane outside the window, they
divide. ``loop_divide`` compiles the same code for float32 too (jitcore's kernels keep float32's
division, which measured faster), so that every float32 significand checks it.
The tests compare bytes (NaN's sign and payload included) with NumPy's ``x / d``, which is
IEEE division, on: every float32 significand of one binade against divisors of every
significand shape; quotients built next to rounding midpoints (the hard cases of any division
scheme); random float64 pairs with exponents from underflow to overflow; the edges of the
window (tiny x, quotients near underflow and overflow, divisors near their limits); zeros,
infinities and NaN; rows long enough for vectors and a remainder, and strided layouts.
"""

from __future__ import annotations

import ctypes
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llvmlite import ir

import jitcore as jc
from jitcore.codegen import mathlib, mathlib_divide
from jitcore.codegen.cpu import target
from jitcore.codegen.kernel_body import row_invariant_divisions
from jitcore.ir.dialects import kernel
from tests.budget import examples
from tests.layouts import relayout


def _rows(x, d):
    return x / d


divide_rows = jc.jit(_rows)
_loops = {}


def loop_divide(kind: str):
    """``out[i] = x[i] / d`` for a ``d`` the loop does not change, compiled with the host's
    instruction sets and ``mathlib_divide`` for both float types (jitcore's kernels use it for
    ``mathlib.DIVIDE_KINDS`` only): float32 checks the same code on every significand."""
    if kind not in _loops:
        fty = ir.FloatType() if kind == "f32" else ir.DoubleType()
        module = ir.Module()
        i64 = ir.IntType(64)
        params = [fty.as_pointer(), fty.as_pointer(), fty, i64]
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), params), "k")
        for arg in fn.args[:2]:
            arg.add_attribute("noalias")
        entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
        b = ir.IRBuilder(entry)
        x, out, d, n = fn.args
        b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
        b.position_at_end(loop)
        i = b.phi(i64)
        i.add_incoming(ir.Constant(i64, 0), entry)
        q = mathlib.emit_divide_invariant(b, b.load(b.gep(x, [i], inbounds=True)), d, target.math_isa(),
                                          kinds=frozenset({"f32", "f64"}))
        b.store(q, b.gep(out, [i], inbounds=True))
        nxt = b.add(i, ir.Constant(i64, 1))
        i.add_incoming(nxt, loop)
        b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
        b.position_at_end(done)
        b.ret_void()
        _, addrs = target.compile_module(str(module), ["k"])
        scalar = ctypes.c_float if kind == "f32" else ctypes.c_double
        cfunc = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, scalar, ctypes.c_int64)
        _loops[kind] = cfunc(addrs["k"])
    return _loops[kind]


def check_loop(x: np.ndarray, d) -> None:
    """The loop of ``loop_divide`` on ``x`` (1-d) by each of ``d``, against NumPy's bits."""
    x = np.ascontiguousarray(x)
    run = loop_divide("f32" if x.dtype == np.float32 else "f64")
    for value in np.atleast_1d(d):
        out = np.empty_like(x)
        run(x.ctypes.data, out.ctypes.data, float(value), x.size)
        with np.errstate(all="ignore"):
            assert_bits(out, x / x.dtype.type(value))


def assert_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Byte-equal, with the first differing pair named."""
    if np.array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8)):
        return
    bad = np.flatnonzero(np.ascontiguousarray(got).view(f"u{got.itemsize}") !=
                         np.ascontiguousarray(want).view(f"u{want.itemsize}"))
    raise AssertionError(f"{bad.size} of {got.size} differ; first at {bad[0]}: got {got.flat[bad[0]]!r}, "
                         f"want {want.flat[bad[0]]!r}")


def check(x: np.ndarray, d: np.ndarray) -> None:
    with np.errstate(all="ignore"):
        want = x / d
    assert_bits(divide_rows(x, d), want)


def significands(dtype, count: int | None = None, seed: int = 0) -> np.ndarray:
    """Floats in [1, 2): every one (float32, ``count`` None) or ``count`` random ones."""
    bits = 23 if dtype == np.float32 else 52
    utype = np.uint32 if dtype == np.float32 else np.uint64
    one = np.array(1.0, dtype).view(utype)
    if count is None:
        frac = np.arange(1 << bits, dtype=utype)
    else:
        frac = np.random.default_rng(seed).integers(0, 1 << bits, count, dtype=utype)
    return (frac | one).view(dtype)


def divisor_shapes(dtype) -> np.ndarray:
    """Divisors of every significand shape: 1, one ulp above, near sqrt2 (where the quotient's
    error bound is tightest), near 2, all ones, and a few random ones, with both signs."""
    eps = np.finfo(dtype).eps
    base = [1.0, 1.0 + eps, 1.5, math.sqrt(2), math.sqrt(2) * (1 + 4 * eps), 2.0 - eps, 2.0 - 2 * eps,
            1.0 + 1 / 3, 1.7, 1.999]
    rng = np.random.default_rng(7)
    base += list(rng.uniform(1, 2, 6))
    d = np.array(base, dtype)
    return np.concatenate([d, -d[::3], d[::4] * dtype(2.0 ** 40), d[1::4] * dtype(2.0 ** -30)])


def test_every_float32_significand_for_divisors_of_every_shape():
    x = significands(np.float32)  # 2**23 values, a vector body and a remainder
    check_loop(x, divisor_shapes(np.float32))
    check_loop(x[:4099], divisor_shapes(np.float64)[:8])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quotients_next_to_midpoints(dtype):
    """x = RN(d * M) for M halfway between two floats: x / d is within a few ulps of 2**-p of
    M's position, where a quotient off by the reciprocal's error would round the other way."""
    rng = np.random.default_rng(3)
    n = 3000
    ds = significands(dtype, n, seed=1) * (1 - 2 * (rng.random(n) < 0.5))
    qs = significands(dtype, n, seed=2) * dtype(2.0) ** rng.integers(-20, 20, n)
    bits = np.finfo(dtype).nmant + 1
    xs = []
    for d, q in zip(ds.tolist(), qs.tolist()):
        m, e = math.frexp(q)  # q = m 2**e, m in [1/2, 1)
        half_ulp = Fraction(2) ** (e - bits - 1)
        xs.append(float(Fraction(d) * (Fraction(q) + half_ulp)))
    x = np.array(xs, dtype).reshape(n, 1)
    check(np.repeat(x, 9, axis=1), ds.reshape(n, 1).astype(dtype))
    for k in range(0, n, 300):  # each divisor with every x, in the loop of both types
        check_loop(x[:, 0], ds[k])


def test_float64_pairs_from_underflow_to_overflow():
    """Random significands, exponents over the whole range: inside the window, next to its
    edges (the quotient near 2**-1020 or 2**1022, x near 2**-968) and outside it."""
    rng = np.random.default_rng(11)
    rows, n = 64, 4099
    d = (significands(np.float64, rows, seed=5) * 2.0 ** rng.integers(-1030, 1030, rows)
         * np.where(rng.random(rows) < 0.3, -1, 1)).reshape(rows, 1)
    d[:8, 0] = [2.0 ** -1020, 2.0 ** 1020, 2.0 ** -1021, 2.0 ** 1021, -(2.0 ** -1020) * 1.5, 1.0, 3.0, 1e-310]
    x = significands(np.float64, rows * n, seed=6).reshape(rows, n)
    x *= np.where(rng.random((rows, n)) < 0.5, -1.0, 1.0)
    near = rng.integers(-60, 60, (rows, n))
    kind = rng.integers(0, 4, (rows, n))
    with np.errstate(all="ignore"):
        e_q = np.where(kind == 0, rng.integers(-1074, 1024, (rows, n)),  # anywhere
                       np.where(kind == 1, -1020 + near, np.where(kind == 2, 1022 + near, 0)))
        scale = np.ldexp(1.0, np.clip(e_q, -1074, 1023)) * np.where(kind == 2, 1.0, 1.0)
        x = np.where(kind == 3, x * np.ldexp(1.0, -968 + near), x * scale * np.abs(d))
    check(x, d)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_specials_every_pair(dtype):
    """Zeros of both signs, infinities, NaN (of both signs), subnormals, the extremes and the
    window's edges, as dividends and divisors, every pair (rows of 67: vectors and a
    remainder)."""
    info = np.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    kind = "f32" if dtype == np.float32 else "f64"
    d_min, d_max, lo_scale, lo_floor, hi_scale = mathlib_divide.window(kind)
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, tiny, -tiny, 3 * tiny,
              float(info.tiny), float(info.max), -float(info.max), 1.0, -1.0, 3.0, 0.1,
              d_min, d_max, d_min / 2, d_max * 2, lo_floor, lo_floor / 2, lo_floor * 3, lo_scale, hi_scale,
              hi_scale * 2, lo_scale * 1.5, float(info.max) / 3]
    v = np.array(values, dtype)
    x = np.resize(v, 67)[None, :] * np.ones((v.size, 1), dtype)
    with np.errstate(all="ignore"):
        x[:, ::5] *= dtype(1.25)  # other significands too
    check(x, v.reshape(-1, 1))
    check(np.repeat(v[None, :], v.size, axis=0), v.reshape(-1, 1))  # each divisor with each value
    check_loop(np.resize(v, 67 * 3), v)


@pytest.mark.parametrize("layout", ["strided", "reversed", "F", "unaligned"])
def test_layouts_and_scalars(layout):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((33, 101))
    d = rng.standard_normal((33, 1))
    check(relayout(x, layout), d)
    check(relayout(x.astype(np.float32), layout), relayout(d.astype(np.float32), layout))
    scalar = jc.jit(lambda x: x / 3.7)
    with np.errstate(all="ignore"):
        assert_bits(scalar(relayout(x, layout)), relayout(x, layout) / 3.7)


@settings(max_examples=examples(200, ci=25), deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.data())
def test_hypothesis_rows(dtype, data):
    """Softmax-like rows: values spread over many exponents, a divisor per row."""
    rows = data.draw(st.integers(1, 5))
    n = data.draw(st.integers(0, 40))
    finite = st.floats(allow_nan=True, allow_infinity=True, width=32 if dtype == np.float32 else 64)
    x = np.array(data.draw(st.lists(finite, min_size=rows * n, max_size=rows * n)), dtype).reshape(rows, n)
    d = np.array(data.draw(st.lists(finite, min_size=rows, max_size=rows)), dtype).reshape(rows, 1)
    check(x, d)


def _exps(x):
    return np.exp(x - x.max(1, keepdims=True))


def _sums(e):
    return e.sum(1, keepdims=True)


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def mathlib_dtypes():
    return [np.dtype(np.float32 if kind == "f32" else np.float64) for kind in sorted(mathlib.DIVIDE_KINDS)]


def test_softmax_rows_are_their_steps_divided():
    """Softmax, its division in the row group: NumPy's division of jitcore's own exps by
    jitcore's own row sums, bit for bit (rows whose exps underflow, -inf rows, NaN)."""
    rng = np.random.default_rng(2)
    exps, sums, softmax = jc.jit(_exps), jc.jit(_sums), jc.jit(_softmax)
    for dtype in mathlib_dtypes():
        x = (rng.standard_normal((40, 257)) * 30).astype(dtype)
        x[3] = -np.inf
        x[4, :100] = -1e30  # exps that underflow to zeros and subnormals
        x[5, 7] = np.nan
        e = exps(x)
        with np.errstate(all="ignore"):
            assert_bits(softmax(x), e / sums(e))


@pytest.mark.parametrize("src, shapes, count", [
    (lambda e, s: e / s, [(4, 8), (4, 1)], 1),  # one value a row
    (lambda e, s: e / np.sqrt(s + 1e-5), [(4, 8), (4, 1)], 1),  # computed from a row's value
    (lambda x: x / 3.7, [(4, 8)], 1),
    (lambda x, y: x / y, [(4, 8), (4, 8)], 0),  # changes along the row
    (lambda x, s: x / s, [(4, 8), (1, 8)], 0),  # one value a column: changes along the row
])
def test_which_divisions_are_row_invariant(src, shapes, count):
    """On any host: the analysis picks divisors that do not change along the last dim."""
    module = jc.jit(src).lower(*[np.zeros(s) for s in shapes]).optimized()
    ops = [op for op in module.walk() if isinstance(op, kernel.GenericOp)]
    assert ops
    found = sum(len(row_invariant_divisions(op, list(op.indexing_maps))) for op in ops)
    assert found == count
