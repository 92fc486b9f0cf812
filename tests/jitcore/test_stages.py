"""Looking inside: ``make_ir`` and every stage of ``lower(...).as_text(stage)``, from the traced
IR through fusion to LLVM IR and the host's assembly."""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import ir
from jitcore.compiler import STAGES
from tests.oracle import ULP_BOUNDS, assert_close, assert_matches


def f(x, y):
    return jnp.sin(x + y)


def g(x):
    return jnp.tanh(2 * x + 1)


X1024 = np.linspace(-3, 3, 1024, dtype=np.float32)
Y1024 = np.linspace(1, 2, 1024, dtype=np.float32)


def ops_in(text: str) -> list[str]:
    """The op names of a printed module, in order."""
    return re.findall(r'"([a-z_]+\.[a-z_]+)"\(', text)


def affine_maps(text: str) -> list[str]:
    """The affine maps of a printed module, such as ``(d0, d1) -> (d0, 0)``, in order."""
    return re.findall(r"affine_map<(\([^()]*\) -> \([^()]*\))>", text)


# -- make_ir -----------------------------------------------------------------------------------

def test_make_ir_of_f_records_add_then_sin():
    module = jc.make_ir(f)(np.zeros(8, np.float32), np.zeros(8, np.float32))
    text = str(module)
    assert text == ir.print_op(module)
    ops = ops_in(text)
    assert ops == ["builtin.module", "func.func", "array.add", "array.sin", "func.return"]
    assert "tensor<8xf32>" in text
    assert 'sym_name = "f"' in text
    assert "(tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>" in text


def test_make_ir_of_g_records_mul_add_tanh_with_broadcast_constants():
    module = jc.make_ir(g)(np.zeros(8, np.float32))
    ops = ops_in(str(module))
    array_ops = [op for op in ops if op.startswith("array.")]
    assert [op for op in array_ops if op in ("array.mul", "array.add", "array.tanh")] == [
        "array.mul", "array.add", "array.tanh"]
    assert array_ops.count("array.constant") == 2  # 2 and 1, as f32 scalars
    assert array_ops.count("array.broadcast_in_dim") == 2
    text = str(module)
    assert "dense<2.0> : tensor<f32>" in text
    assert "dense<1.0> : tensor<f32>" in text
    assert "kernel." not in text  # nothing is fused before the passes run


@pytest.mark.parametrize("fn, args", [
    (f, (np.zeros(8, np.float32), np.zeros(8, np.float32))),
    (g, (np.zeros(8, np.float32),)),
    (g, (np.zeros((2, 3), np.float64),)),
], ids=["f", "g-f32", "g-f64-2d"])
def test_make_ir_round_trips_through_the_parser(fn, args):
    module = jc.make_ir(fn)(*args)
    text = ir.print_op(module)
    parsed = ir.parse(text)
    ir.verify(parsed)
    assert ir.print_op(parsed) == text


def test_make_ir_of_a_jitted_function_and_with_static_arguments():
    jitted = jc.jit(g)
    module = jc.make_ir(jitted)(np.zeros(4, np.float64))
    assert "tensor<4xf64>" in str(module)
    assert jitted.cache_info().compiles == 0  # make_ir traces, it does not compile

    def power(x, n):
        for _ in range(n - 1):
            x = x * x
        return x

    text = str(jc.make_ir(power, static_argnums=1)(np.zeros(4, np.float32), 3))
    assert ops_in(text).count("array.mul") == 2
    text = str(jc.make_ir(power, static_argnames="n")(np.zeros(4, np.float32), n=4))
    assert ops_in(text).count("array.mul") == 3


# -- lower(...).as_text ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lowered_g():
    return jc.jit(g).lower(X1024)


@pytest.fixture(scope="module")
def lowered_f():
    return jc.jit(f).lower(X1024, Y1024)


def test_traced_stage_is_make_irs_module(lowered_g):
    assert lowered_g.as_text("traced") == ir.print_op(jc.make_ir(g)(X1024))


@pytest.mark.parametrize("which", ["f", "g"])
def test_optimized_stage_fuses_into_one_kernel(which, lowered_f, lowered_g):
    lowered = {"f": lowered_f, "g": lowered_g}[which]
    text = lowered.as_text("optimized")
    assert text == lowered.as_text()  # the default stage
    ops = ops_in(text)
    assert ops.count("kernel.generic") == 1, text
    assert not [op for op in ops if op.startswith("array.")], text  # all fused away
    body = {"f": ["arith.addf", "math.sin"], "g": ["arith.mulf", "arith.addf", "math.tanh"]}[which]
    assert [op for op in ops if op.startswith(("arith.add", "arith.mul", "math."))] == body
    assert 'iterator_types = ["parallel"]' in text
    # The optimized module is valid IR that round-trips too.
    parsed = ir.parse(text)
    ir.verify(parsed)
    assert ir.print_op(parsed) == text


def test_llvm_stage_defines_the_entry_point(lowered_g):
    text = lowered_g.as_text("llvm")
    assert re.search(r"^define ", text, re.MULTILINE), text[:500]
    assert llvm.parse_assembly(text) is not None  # well-formed LLVM IR


def test_llvm_opt_stage_is_vectorised(lowered_g):
    text = lowered_g.as_text("llvm-opt")
    assert "define" in text
    widths = {int(w) for w in re.findall(r"<(\d+) x float>", text)}
    # Any SIMD host has at least 4 float lanes; how many more is the host's business (the
    # mathlib tests check full-width code on fixed x86 targets).
    assert widths and max(widths) >= 4, f"no float vectors in the optimised LLVM IR: {widths}"


def test_asm_of_g_has_no_libm_tanh(lowered_g):
    asm = lowered_g.as_text("asm")
    calls = [line.strip() for line in asm.splitlines() if re.match(r"\s*(call|jmp)\w*\s", line)
             and "tanh" in line]
    assert not calls, f"calls to a libm tanh: {calls}"
    assert not re.search(r"\btanhf?\b", asm), "a tanh/tanhf symbol in the assembly"


def test_unknown_stage_lists_the_stages(lowered_g):
    with pytest.raises(ValueError) as err:
        lowered_g.as_text("bitcode")
    message = str(err.value)
    assert "'bitcode'" in message
    for stage in ("traced", "optimized", "llvm", "llvm-opt", "asm"):
        assert stage in message
    assert STAGES == ("traced", "optimized", "llvm", "llvm-opt", "asm")


def test_every_stage_is_text_and_lower_runs_nothing():
    jitted = jc.jit(g)
    lowered = jitted.lower(X1024)
    for stage in reversed(STAGES):  # any order: later stages build what they need
        text = lowered.as_text(stage)
        assert isinstance(text, str) and text.strip()
    ci = jitted.cache_info()
    assert (ci.hits, ci.misses, ci.compiles) == (0, 0, 0)
    # lower did not fill the call cache; the first call still compiles, once.
    assert_matches(jitted(X1024), np.tanh(2 * X1024 + 1), ulps=ULP_BOUNDS["tanh"])
    ci = jitted.cache_info()
    assert (ci.hits, ci.misses, ci.compiles) == (0, 1, 1)


def test_compiled_f_and_g_match_numpy():
    assert_matches(jc.jit(f)(X1024, Y1024), np.sin(X1024 + Y1024), ulps=ULP_BOUNDS["sin"])
    assert_matches(jc.jit(g)(X1024), np.tanh(2 * X1024 + 1), ulps=ULP_BOUNDS["tanh"])


# -- fusion through broadcasting, transposes and reductions ------------------------------------

def test_broadcasting_chain_is_one_kernel_with_broadcast_maps():
    def h(x, y):
        return jnp.tanh(x * 2 + y) - 1

    x = np.linspace(-1, 1, 3, dtype=np.float32)        # (3,)   -> broadcast along rows
    y = np.linspace(0, 1, 4, dtype=np.float32)[:, None]  # (4, 1) -> broadcast along columns
    text = jc.jit(h).lower(x, y).as_text("optimized")
    ops = ops_in(text)
    assert ops.count("kernel.generic") == 1, text
    assert not [op for op in ops if op.startswith("array.")], text
    maps = affine_maps(text)
    assert maps == ["(d0, d1) -> (d1)", "(d0, d1) -> (d0, 0)", "(d0, d1) -> (d0, d1)"], maps
    assert_matches(jc.jit(h)(x, y), np.tanh(x * 2 + y) - 1, ulps=ULP_BOUNDS["tanh"])


def test_transpose_and_broadcast_fuse_into_one_kernel():
    def h(x, y, w):
        # w, C-ordered, makes the result C-ordered as in NumPy (x.T alone would make it
        # Fortran-ordered, computed transposed, and the two transposes cancel)
        return jnp.tanh(x.T * 2 + y) + w

    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    y = np.linspace(0, 1, 4, dtype=np.float32).reshape(4, 1)
    w = np.zeros((4, 3), np.float32)
    text = jc.jit(h).lower(x, y, w).as_text("optimized")
    assert ops_in(text).count("kernel.generic") == 1, text
    maps = affine_maps(text)
    assert "(d0, d1) -> (d1, d0)" in maps  # the transpose, as a permuted map
    assert "(d0, d1) -> (d0, 0)" in maps  # the broadcast of y
    assert_matches(jc.jit(h)(x, y, w), np.tanh(x.T * 2 + y) + w, ulps=ULP_BOUNDS["tanh"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduction_fuses_the_multiply(dtype):
    def r(x):
        return (x * 2).sum(axis=1)

    x = np.linspace(-1, 1, 32, dtype=dtype).reshape(4, 8)
    text = jc.jit(r).lower(x).as_text("optimized")
    ops = ops_in(text)
    assert ops.count("kernel.generic") == 1, text
    assert not [op for op in ops if op.startswith("array.")], text
    assert 'iterator_types = ["parallel", "reduction"]' in text
    assert "arith.mulf" in ops and "arith.addf" in ops
    maps = affine_maps(text)
    assert maps == ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"], maps
    assert_close(jc.jit(r)(x), (x * 2).sum(axis=1), rtol=1e-6)


def test_full_reduction_is_one_kernel_of_reduction_iterators():
    text = jc.jit(lambda x: (x * 2).sum()).lower(np.ones((4, 8))).as_text("optimized")
    assert ops_in(text).count("kernel.generic") == 1, text
    assert 'iterator_types = ["reduction", "reduction"]' in text
    assert "affine_map<(d0, d1) -> ()>" in text


@pytest.mark.parametrize("fn, args", [
    (lambda x: jnp.max(x, axis=0) + x.min(), (np.ones((4, 8), np.float32),)),
    (lambda x: (x * 2).prod(axis=1), (np.ones((4, 8), np.int8),)),
    (lambda x: x.mean(axis=1) + np.float32(np.nan), (np.ones((4, 8), np.float16),)),
    (lambda x: jnp.where(x > 0, x, -np.inf), (np.ones((4, 8), np.float64),)),
    (lambda x: x.astype(np.uint8) // 3, (np.ones((4, 8), np.float64),)),
], ids=["max-min", "prod-int8", "mean-f16-nan", "where-inf", "convert-floordiv"])
def test_traced_and_optimized_stages_round_trip(fn, args):
    lowered = jc.jit(fn).lower(*args)
    for stage in ("traced", "optimized"):
        text = lowered.as_text(stage)
        parsed = ir.parse(text)
        ir.verify(parsed)
        assert ir.print_op(parsed) == text, stage


def test_fastmath_marks_float_arithmetic_and_is_off_by_default():
    x = np.linspace(-1, 1, 1000, dtype=np.float32)

    def chain(v):
        return (v * 3.0 + 1.0).sum()

    plain = jc.jit(chain).lower(x).as_text("llvm")
    fast = jc.jit(chain, fastmath=True).lower(x).as_text("llvm")
    assert "reassoc" not in plain and "contract" not in plain
    assert "fmul reassoc contract" in fast and "fadd reassoc contract" in fast
    expected = np.float32(chain(x.astype(np.float64)))
    assert abs(jc.jit(chain, fastmath=True)(x) - expected) <= 1e-5 * np.abs(x * 3 + 1).sum()


def test_fastmath_uses_the_cheaper_float32_math_within_its_bounds():
    from tests.oracle import ulp_distance

    x = np.linspace(-20, 20, 4001, dtype=np.float32)
    plain = jc.jit(lambda v: np.exp(v)).lower(x).as_text("llvm")
    fast = jc.jit(lambda v: np.exp(v), fastmath=True).lower(x).as_text("llvm")
    assert plain != fast  # a different (shorter) polynomial
    got = jc.jit(lambda v: np.exp(v), fastmath=True)(x)
    exact = np.exp(x.astype(np.float64)).astype(np.float32)
    assert ulp_distance(got, exact).max() <= 5  # mathlib's documented bound for fast exp f32
