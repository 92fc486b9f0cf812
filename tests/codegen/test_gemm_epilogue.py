"""GEMM epilogues (passes/gemm_epilogue.py, codegen/gemm_epilogue.py, codegen/cpu/tiled_gemm.py).

``tanh(x @ w + b)`` is one kernel: the tiled product applies the bias and the tanh to each
finished panel of its result. The oracle is the same function compiled with
``fuse{gemm-epilogue=false}`` (the product, then an elementwise kernel): the sums keep their
order and the epilogue its ops, so the two must agree bit for bit, on any thread count; and
both are checked against NumPy within the product's rounding. The kernel's blocks are made
tiny in the randomized test (``small_blocks``), so that products of a few dozen elements cross
several k, row and column blocks and thread chunks. Nothing here depends on the host's vector
width: the tile comes from the host, and every case compares two compilations on it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import gemm, tiled_gemm
from jitcore.codegen.gemm_epilogue import match_fused_product
from jitcore.compiler import DEFAULT_PIPELINE, RECOMPUTING_PIPELINE
from jitcore.passes import gemm_epilogue
from tests.budget import examples

UNFUSED = DEFAULT_PIPELINE.replace(",fuse,", ",fuse{gemm-epilogue=false},")


@pytest.fixture(autouse=True)
def narrow_products_fuse(monkeypatch):
    """Products of a few dozen columns fuse too (by default only from 64 columns, a cost rule:
    test_the_least_columns_are_a_cost_rule), so that small shapes reach the fused code."""
    monkeypatch.setattr(gemm_epilogue, "EPILOGUE_MIN_COLUMNS", 8)


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(tiled_gemm, "KC_BYTES", 40)  # 10 values of k (kc_values)
    monkeypatch.setattr(tiled_gemm, "MC_ROWS", 1)  # one panel of rows
    monkeypatch.setattr(tiled_gemm, "NC_COLS", 1)  # one panel of columns
    monkeypatch.setattr(tiled_gemm, "MIN_SPLIT_WORK", 0)  # always in chunks
    monkeypatch.setattr(tiled_gemm, "MIN_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm, "SMALL_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 8)  # SPLIT_CHUNKS chunks on any host


def kernels(fn, *args, pipeline=DEFAULT_PIPELINE) -> list:
    body = jc.jit(fn, pipeline=pipeline, cache=False).lower(*args).optimized()
    return [op for op in body.functions()[0].body.ops if op.op_name == "kernel.generic"]


def fused_and_unfused(fn, *args):
    """``fn`` compiled both ways; the fused one checked to hold one fused product that the
    tiled kernel runs (not a scalar loop per element, not BLAS)."""
    fused = jc.jit(fn, cache=False)
    lowered = fused.lower(*args)
    ops = [op for op in lowered.optimized().functions()[0].body.ops if op.op_name == "kernel.generic"]
    assert len(ops) == 1 and match_fused_product(ops[0]) is not None
    text = lowered.plan().llvm_ir
    assert "jitcore_gemm_micro" in text and "cblas" not in text
    return fused, jc.jit(fn, pipeline=UNFUSED, cache=False)


def near_numpy(got, want, x, w):
    scale = np.abs(x).astype(np.float64) @ np.abs(w).astype(np.float64)
    bound = 8 * x.shape[-1] * np.finfo(x.dtype).eps * (scale + 1)
    assert np.all(np.abs(got.astype(np.float64) - want) <= bound)


def test_the_ir_shows_one_kernel_and_the_option_keeps_two():
    x, w, b = np.ones((20, 12), np.float32), np.ones((12, 16), np.float32), np.ones(16, np.float32)
    f = lambda x, w, b: np.tanh(x @ w + b)  # noqa: E731
    (op,) = kernels(f, x, w, b)
    text = str(op)
    assert "scf.for" in text and "kernel.extract" in text and "math.tanh" in text
    assert len(kernels(f, x, w, b, pipeline=UNFUSED)) == 2
    assert len(kernels(f, x, w, b, pipeline=RECOMPUTING_PIPELINE)) == 2  # the GPU's pipeline


@pytest.mark.parametrize("case", ["shared", "thin", "cast", "sin", "reads-transposed"])
def test_what_is_not_fused_stays_two_kernels_and_correct(case):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((20, 12)), rng.standard_normal((12, 16))
    fns = {
        "shared": lambda x, w: (x @ w, np.tanh(x @ w)),  # the product has another reader
        "thin": lambda x, w: np.tanh(x @ w[:, :4]),  # BLAS's product: a separate epilogue
        "cast": lambda x, w: (x @ w).astype(np.float32),
        "sin": lambda x, w: np.sin(x @ w),
        # (one kernel since session 48, copies48: the whole expression, its column of w read
        # through the reshape that adds a unit dim, is one elementwise kernel over the product's
        # small contraction, not the tiled product and an epilogue; only its answer is checked)
        "reads-transposed": lambda x, w: np.tanh((x @ w).T + w[0][:, None]),
    }
    fn = fns[case]
    if case != "reads-transposed":
        assert len(kernels(fn, x, w)) >= 2
    got, want = jc.jit(fn, cache=False)(x, w), fn(x, w)
    for g, v in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-12)


def test_the_least_side_is_the_tiled_kernels():
    assert gemm_epilogue.EPILOGUE_MIN_SIDE == gemm.TILED_MIN_SIDE


def test_the_least_columns_are_a_cost_rule(monkeypatch):
    monkeypatch.setattr(gemm_epilogue, "EPILOGUE_MIN_COLUMNS", 64)
    x, b = np.ones((20, 12), np.float32), np.ones(64, np.float32)
    f = lambda x, w, b: np.tanh(x @ w + b[: w.shape[1]])  # noqa: E731
    assert len(kernels(f, x, np.ones((12, 63), np.float32), b)) == 2
    assert len(kernels(f, x, np.ones((12, 64), np.float32), b)) == 1


# x is given as (m, k), or as (k, m) where the function reads it as ``x.T``
EPILOGUES = {
    "tanh(x@w+b)": (lambda x, w, b, c: np.tanh(x @ w + b), False),
    "relu(x@w+c)": (lambda x, w, b, c: np.maximum(x @ w + c, 0), False),  # bias down the columns
    "exp(x@w/8)-b": (lambda x, w, b, c: np.exp(2 * (x @ w) * 0.0625) - b, False),
    "x.T@w, scalar": (lambda x, w, b, c: np.tanh(x.T @ w + 0.5) * c, True),
    "einsum ->ji": (lambda x, w, b, c: np.tanh(np.einsum("ik,kj->ji", x, w) + b[:, None]), False),
}
@settings(max_examples=examples(16, 8), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(8, 40), k=st.integers(2, 40), n=st.integers(8, 40),
       dtype=st.sampled_from([np.float32, np.float64]), form=st.sampled_from(sorted(EPILOGUES)),
       transposed_x=st.booleans(), seed=st.integers(0, 2**16))
def test_fused_equals_unfused_bit_for_bit_on_1_and_3_threads(small_blocks, m, k, n, dtype, form,
                                                             transposed_x, seed):
    rng = np.random.default_rng(seed)
    fn, x_as_transpose = EPILOGUES[form]
    x = rng.standard_normal((k, m) if x_as_transpose else (m, k)).astype(dtype)
    if transposed_x:  # stored transposed: read through its strides
        x = np.asfortranarray(x)
    w = rng.standard_normal((k, n)).astype(dtype)
    b, c = rng.standard_normal(n).astype(dtype), rng.standard_normal((m, 1)).astype(dtype)
    fused, unfused = fused_and_unfused(fn, x, w, b, c)
    results = []
    for threads in (1, 3):
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            results += [fused(x, w, b, c), unfused(x, w, b, c)]
    for got in results[1:]:
        np.testing.assert_array_equal(results[0], got)
    assert results[0].dtype == dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_blocks_several_k_blocks_and_numpy(dtype):
    rng = np.random.default_rng(5)
    m, k, n = 50, 700, 70  # k crosses a block of 512 float32 or 256 float64 values
    x, w = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    fn = lambda x, w, b: np.maximum(x @ w + b, 0)  # noqa: E731
    fused, unfused = fused_and_unfused(fn, x, w, b)
    got = fused(x, w, b)
    np.testing.assert_array_equal(got, unfused(x, w, b))
    want = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + b, 0)
    near_numpy(got, want, x, w)


def test_without_memory_for_the_panels_the_plain_loops_apply_it_too(monkeypatch):
    monkeypatch.setattr(tiled_gemm, "ALIGN", 1 << 60)  # malloc of more than 2^60 bytes fails
    rng = np.random.default_rng(11)
    x, w, b = rng.standard_normal((9, 300)), rng.standard_normal((300, 11)), rng.standard_normal(11)
    fn = lambda x, w, b: np.tanh(x @ w + b)  # noqa: E731
    fused, unfused = fused_and_unfused(fn, x, w, b)
    np.testing.assert_array_equal(fused(x, w, b), unfused(x, w, b))
    near_numpy(fused(x, w, b), np.tanh(x @ w + b), x, w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_product_the_rule_sends_to_blas_runs_the_call_then_the_epilogue(monkeypatch, dtype):
    monkeypatch.setattr(gemm, "TILED_MIN_WORK", 1 << 62)  # every product on BLAS
    rng = np.random.default_rng(9)
    x = np.asfortranarray(rng.standard_normal((40, 30)).astype(dtype))  # transposed for BLAS
    w, c = rng.standard_normal((30, 20)).astype(dtype), rng.standard_normal((40, 1)).astype(dtype)
    fn = lambda x, w, c: np.maximum(x @ w + c, 0)  # noqa: E731
    fused = jc.jit(fn, cache=False)
    (op,) = [o for o in fused.lower(x, w, c).optimized().functions()[0].body.ops
             if o.op_name == "kernel.generic"]
    assert match_fused_product(op) is not None
    text = fused.lower(x, w, c).plan().llvm_ir
    assert "cblas" in text and "jitcore_gemm_micro" not in text
    np.testing.assert_array_equal(fused(x, w, c), fn(x, w, c))  # NumPy's BLAS: its bits
    np.testing.assert_array_equal(fused(x, w, c), jc.jit(fn, pipeline=UNFUSED, cache=False)(x, w, c))
