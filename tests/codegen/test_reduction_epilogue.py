"""Reduction epilogues (``passes/reduction_epilogue.py``): a reduction and the elementwise kernel
that maps its result are one kernel, the second kernel's body applied per output element after
the row or column is combined. The fused kernel gives the unfused pipeline's bits
(``fuse{reduction-epilogue=false}``), and NumPy's values."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import runtime
from jitcore.compiler import DEFAULT_PIPELINE, RECOMPUTING_PIPELINE
from jitcore.ir.errors import JitcoreError
from jitcore.ir.parser import parse
from jitcore.ir.printer import print_op
from jitcore.ir.verifier import verify

UNFUSED = DEFAULT_PIPELINE.replace(",fuse,", ",fuse{reduction-epilogue=false},")
rng = np.random.default_rng(5)

CASES = {
    "pairwise distances": lambda x: np.sum((x[None, :] - x[:, None]) ** 2, -1) ** 0.5,
    "row norm": lambda x: np.sqrt(np.sum(x * x, 1)),
    "column norm (axis=0)": lambda x: np.sqrt(np.sum(x * x, axis=0)),
    "exp of max": lambda x: np.exp(x.max(-1)),
    "mean, keepdims": lambda x: x.mean(-1, keepdims=True),
    "reciprocal of a sum, keepdims": lambda x: 1.0 / x.sum(1, keepdims=True),
    "negated min (axis=0)": lambda x: -np.min(x, axis=0),
    "norm of everything": lambda x: np.sqrt(np.sum(x * x)),
}


def _special(shape, dtype):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if x.size >= 4:
        x.flat[:4] = [np.nan, np.inf, -0.0, -np.inf]
        x[-1] = -0.0  # a row (or column) of signed zeros where there is room
    return x


def _same_bits(a, b, empty_rows: bool) -> None:
    a, b = np.asarray(a), np.asarray(b)
    if empty_rows:  # 0/0 of a row LLVM knows is empty folds to +NaN, computed it may be -NaN
        a, b = np.where(np.isnan(a), np.nan, a), np.where(np.isnan(b), np.nan, b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


# Each case in float32 with lanes, in float64 with short rows, with empty rows; empty columns
# for two (few shapes: each case compiles two pipelines).
SHAPES = [(np.float32, (40, 33)), (np.float64, (9, 6)), (np.float64, (5, 0))]


@pytest.mark.parametrize("name, dtype, shape", [
    *((name, dtype, shape) for name in sorted(CASES) for dtype, shape in SHAPES),
    ("row norm", np.float32, (0, 3)), ("mean, keepdims", np.float64, (0, 3))])
def test_fused_bits_are_the_unfused_bits_and_numpys_values(name, dtype, shape):
    fn = CASES[name]
    x = _special(shape, dtype)
    if name == "pairwise distances":
        x = x[:, :3] if shape[1] else x
    with np.errstate(all="ignore"):
        try:
            want = fn(x)
        except ValueError:  # NumPy's max of an empty axis
            with pytest.raises(JitcoreError):
                jc.jit(fn)(x)
            return
    got = jc.jit(fn)(x)
    _same_bits(got, jc.jit(fn, pipeline=UNFUSED)(x), 0 in x.shape)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


def test_the_epilogue_is_the_kernels_second_region():
    x = rng.standard_normal((50, 3)).astype(np.float32)
    fn = CASES["pairwise distances"]
    text = jc.jit(fn).lower(x).as_text("optimized")
    assert text.count('"kernel.generic"') == 1
    assert '"math.sqrt"' in text.split("}, {")[1]  # after the body, in the epilogue region
    assert jc.jit(fn, pipeline=UNFUSED).lower(x).as_text("optimized").count('"kernel.generic"') == 2
    module = parse(text)
    assert print_op(module) == text.rstrip("\n")


def test_an_operand_broadcast_along_the_kept_dims_is_read_by_the_epilogue():
    fn = lambda x, b, s: np.sum(x, 1) * b + s  # noqa: E731
    x, b, s = rng.standard_normal((30, 70)), rng.standard_normal(30), np.float64(0.5)
    text = jc.jit(fn).lower(x, b, s).as_text("optimized")
    assert text.count('"kernel.generic"') == 1
    _same_bits(jc.jit(fn)(x, b, s), jc.jit(fn, pipeline=UNFUSED)(x, b, s), False)
    np.testing.assert_allclose(jc.jit(fn)(x, b, s), fn(x, b, s), rtol=1e-12)


@pytest.mark.parametrize("fn", [lambda x: x.mean(1), lambda x: np.sqrt(np.sum(x, 1)),
                                lambda x: ~np.any(x > 2, axis=0)])
def test_ints_and_bools(fn):
    """An integer sum cast to float keeps two kernels (its buffer holds the integers first);
    a mean converts first and fuses; bools fuse."""
    x = rng.integers(-9, 9, (20, 13)).astype(np.int32)
    got = jc.jit(fn)(x)
    _same_bits(got, jc.jit(fn, pipeline=UNFUSED)(x), False)
    assert got.dtype == fn(x).dtype
    np.testing.assert_allclose(got, fn(x), rtol=1e-12)


@pytest.mark.parametrize("name", ["row norm", "column norm (axis=0)", "norm of everything"])
def test_split_into_chunks(name):
    """Rows split across threads, columns of a tall matrix, a full reduction in pieces: each
    epilogue runs once per output element, after its merge."""
    fn = CASES[name]
    x = rng.standard_normal((3000,) if name == "norm of everything" else (600, 5))
    with (mock.patch.object(runtime, "MIN_SPLIT_WORK", 0),
          config.using(num_threads=3, parallel_threshold=0, chunk_size=7)):
        got = jc.jit(fn)(x)
    _same_bits(got, jc.jit(fn, pipeline=UNFUSED)(x), False)
    np.testing.assert_allclose(got, fn(x), rtol=1e-12)


def test_the_gpu_pipeline_keeps_two_kernels():
    assert "reduction-epilogue=false" in RECOMPUTING_PIPELINE


def test_the_verifier_refuses_an_epilogue_reading_a_reduced_dim():
    text = '''"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4x5xf32>):
    %0 = "kernel.generic"(%arg0) ({
    ^bb0(%a: f32, %acc: f32):
      %1 = "arith.addf"(%acc, %a) : (f32, f32) -> f32
      "kernel.yield"(%1) : (f32) -> ()
    }, {
    ^bb0(%a: f32, %acc: f32):
      %2 = "arith.addf"(%acc, %a) : (f32, f32) -> f32
      "kernel.yield"(%2) : (f32) -> ()
    }) {domain = [4, 5], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], inits = [0.0 : f32], iterator_types = ["parallel", "reduction"]} : (tensor<4x5xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) {function_type = (tensor<4x5xf32>) -> tensor<4xf32>, sym_name = "f"} : () -> ()
}) : () -> ()'''  # noqa: E501
    with pytest.raises(JitcoreError, match="epilogue reads input #0"):
        verify(parse(text))
