"""The ``kernelize`` pass: each array op becomes its own kernel, and nothing is fused.

It is the unfused baseline of tests/programs (fused and unfused pipelines must agree bit for bit),
so it must keep one kernel per op: if it fused, that comparison would test nothing. ``fuse``
only fuses kernels, so it needs ``kernelize`` before it.
"""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import numpy as np
import pytest

import jitcore
from jitcore import ir
from jitcore.compiler import DEFAULT_PIPELINE
from jitcore.passes import PassManager, PipelineError

# sin(x) * 2 + sum(y, axis=0): six array ops besides the constant (sin, broadcast, mul, reduce,
# broadcast, add), as the tracer writes them.
MODULE = """\
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<2x3xf64>, %arg1: tensor<4x3xf64>):
    %0 = "array.sin"(%arg0) : (tensor<2x3xf64>) -> tensor<2x3xf64>
    %1 = "array.constant"() {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>
    %2 = "array.broadcast_in_dim"(%1) {broadcast_dimensions = []} : (tensor<f64>) -> tensor<2x3xf64>
    %3 = "array.mul"(%0, %2) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    %4 = "array.reduce"(%arg1) {axes = [0], kind = "sum"} : (tensor<4x3xf64>) -> tensor<3xf64>
    %5 = "array.broadcast_in_dim"(%4) {broadcast_dimensions = [1]} : (tensor<3xf64>) -> tensor<2x3xf64>
    %6 = "array.add"(%3, %5) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
    "func.return"(%6) : (tensor<2x3xf64>) -> ()
  }) {function_type = (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>, sym_name = "f"} : () -> ()
}) : () -> ()"""


def _ops(module):
    (func,) = module.functions()
    return list(func.body.ops)


def _names(module):
    return [op.name for op in _ops(module)]


def test_each_array_op_becomes_one_kernel():
    module = PassManager("kernelize").run(ir.parse(MODULE))
    assert _names(module) == ["kernel.generic", "array.constant"] + ["kernel.generic"] * 5 + ["func.return"]
    bodies = [[op.name for op in k.body.ops] for k in _ops(module) if k.name == "kernel.generic"]
    # Each body holds its own op's scalar op only (broadcasts are maps: the splat constant's
    # broadcast yields the constant): no producer was inlined into its consumer.
    assert bodies == [
        ["math.sin", "kernel.yield"], ["arith.constant", "kernel.yield"], ["arith.mulf", "kernel.yield"],
        ["arith.addf", "kernel.yield"], ["kernel.yield"], ["arith.addf", "kernel.yield"],
    ]


def test_fuse_still_fuses_the_same_module():
    module = PassManager("kernelize,fuse,dce").run(ir.parse(MODULE))
    assert _names(module).count("kernel.generic") == 2  # the reduction is materialised, then one loop


def test_unfused_pipeline_runs_and_matches_the_fused_one():
    def f(x, y):
        return np.sin(x) * 2 + y.sum(axis=0)

    x = np.linspace(-3, 3, 6).reshape(2, 3)
    y = np.linspace(0.1, 1.3, 12).reshape(4, 3)
    unfused = jitcore.jit(f, pipeline="canonicalize,cse,dce,kernelize,canonicalize,cse,dce")
    fused = jitcore.jit(f)
    np.testing.assert_array_equal(unfused(x, y), fused(x, y))
    text = unfused.lower(x, y).as_text("optimized")
    assert text.count('"kernel.generic"') == 5  # the constant's broadcast folds into the mul


def test_the_default_pipeline_kernelizes_then_fuses():
    names = DEFAULT_PIPELINE.split(",")
    assert names.index("kernelize") < names.index("fuse")


def test_fuse_without_kernelize_is_a_pipeline_error():
    with pytest.raises(PipelineError, match=r"pass 'fuse' fuses kernels, but 'array.sin' is not one yet: "
                                            r"run 'kernelize' before 'fuse' \(e.g. 'kernelize,fuse'\)"):
        PassManager("fuse").run(ir.parse(MODULE))


def test_fuse_alone_fuses_kernels_already_made():
    kernels = ir.print_op(PassManager("kernelize").run(ir.parse(MODULE)))
    module = PassManager("fuse,dce").run(ir.parse(kernels))
    assert _names(module).count("kernel.generic") == 2


def test_a_jitted_pipeline_with_fuse_but_no_kernelize_fails_clearly():
    f = jitcore.jit(lambda x: np.sin(x) * 2, pipeline="canonicalize,fuse")
    with pytest.raises(PipelineError, match="run 'kernelize' before 'fuse'"):
        f(np.ones(3))
