"""The ``interchange`` pass: which kernels it reorders, that it is idempotent, and that the
reordered kernel computes what the original did (the loop order changes no value)."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import numpy as np
import pytest

import jitcore as jc
from jitcore import ir
from jitcore.compiler import DEFAULT_PIPELINE
from jitcore.ir.dialects import kernel
from jitcore.passes import PassManager
from jitcore.passes.interchange import Interchange

TRANSPOSED_SUM = """\
"builtin.module"() ({
"func.func"() ({
^bb0(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>):
  %0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "array.transpose"(%arg1) {permutation = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2 = "array.add"(%0, %1) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  "func.return"(%2) : (tensor<4x3xf32>) -> ()
}) {function_type = (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x3xf32>, sym_name = "f"} : () -> ()
}) : () -> ()"""


def _kernels(module):
    (func,) = module.functions()
    return [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]


def test_reorders_once_then_is_a_fixed_point():
    module = PassManager("kernelize,fuse,dce").run(ir.parse(TRANSPOSED_SUM))
    assert Interchange().run(module) is True
    (k,) = _kernels(module)
    assert k.domain() == (3, 4) and all(m.is_identity for m in k.input_maps)
    assert Interchange().run(module) is False  # the innermost dim already wins


def test_runs_in_the_default_pipeline_after_fuse():
    passes = DEFAULT_PIPELINE.split(",")
    assert passes.index("interchange") == passes.index("fuse") + 1


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 6, 2)])
def test_reordered_3d_kernel_matches_numpy(shape):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    fn = lambda x, y: np.transpose(x, (1, 2, 0)) * 2 + np.transpose(y, (1, 2, 0)) ** 2  # noqa: E731
    (k,) = _kernels(jc.jit(fn).lower(x, y).optimized())
    assert not k.output_maps[0].is_identity  # the result is written through a permuted map
    assert all(m.exprs[-1].dim == 2 for m in k.input_maps)  # both read along their rows
    np.testing.assert_allclose(jc.jit(fn)(x, y), fn(x, y), rtol=1e-6)
