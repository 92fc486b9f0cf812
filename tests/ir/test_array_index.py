"""``array.argreduce``, ``array.scan`` and the ``scan`` iterator of ``kernel.generic``: text round
trip, the verifier's messages, constant folding, and the kernels kernelize makes of them."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import numpy as np
import pytest

from jitcore import ir
from jitcore.ir.attributes import DenseAttr, scalar_type_of
from jitcore.ir.builder import Builder
from jitcore.ir.dialects import array
from jitcore.ir.dialects.array import ArgReduceOp, ScanOp
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.types import FunctionType, TensorType
from jitcore.passes import PassManager


def module(operand: str, result: str, body: list[str]) -> str:
    lines = "".join(f"    {line}\n" for line in body)
    return (
        '"builtin.module"() ({\n'
        '  "func.func"() ({\n'
        f"  ^bb0(%arg0: {operand}):\n"
        f"{lines}"
        f'    "func.return"(%0) : ({result}) -> ()\n'
        f'  }}) {{function_type = ({operand}) -> {result}, sym_name = "f"}} : () -> ()\n'
        "}) : () -> ()"
    )


def one_op(name: str, operand: str, result: str, attrs: str) -> str:
    return module(operand, result, [f'%0 = "{name}"(%arg0) {{{attrs}}} : ({operand}) -> {result}'])


def roundtrip(text: str) -> None:
    op = ir.parse(text)
    ir.verify(op)
    assert ir.print_op(op) == text
    assert ir.print_op(ir.parse(ir.print_op(op))) == text


@pytest.mark.parametrize("operand, result, attrs", [
    ("tensor<2x3xf32>", "tensor<3xi64>", 'axis = 0, kind = "max"'),
    ("tensor<2x3xf32>", "tensor<2xi64>", 'axis = 1, kind = "min"'),
    ("tensor<5xi1>", "tensor<i64>", 'axis = 0, kind = "max"'),
    ("tensor<0x4x2xui16>", "tensor<0x2xi64>", 'axis = 1, kind = "min"'),
])
def test_argreduce_roundtrip(operand, result, attrs):
    roundtrip(one_op("array.argreduce", operand, result, attrs))


@pytest.mark.parametrize("operand, attrs", [
    ("tensor<2x3xf16>", 'axis = 0, kind = "sum"'),
    ("tensor<2x3xi64>", 'axis = 1, kind = "prod"'),
    ("tensor<7xi1>", 'axis = 0, kind = "sum"'),
    ("tensor<3x0xui8>", 'axis = 0, kind = "prod"'),
])
def test_scan_roundtrip(operand, attrs):
    roundtrip(one_op("array.scan", operand, operand, attrs))


def scan_kernel(iters: str = '["scan", "parallel"]', out_map: str = "affine_map<(d0, d1) -> (d0, d1)>",
                inits: str = "inits = [-0.0 : f32], ", result: str = "tensor<3x4xf32>") -> str:
    """A cumulative sum kernel over a 3x4 iteration space, with the parts a test changes."""
    return module("tensor<3x4xf32>", result, [
        '%0 = "kernel.generic"(%arg0) ({',
        '^bb0(%arg1: f32, %arg2: f32):',
        '  %1 = "arith.addf"(%arg2, %arg1) : (f32, f32) -> f32',
        '  "kernel.yield"(%1) : (f32) -> ()',
        f'}}) {{domain = [3, 4], indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, {out_map}], {inits}'
        f'iterator_types = {iters}}} : (tensor<3x4xf32>) -> {result}',
    ])


@pytest.mark.parametrize("iters", ['["scan", "parallel"]', '["parallel", "scan"]'])
def test_scan_iterator_roundtrip(iters):
    roundtrip(scan_kernel(iters))


def verify_error(text: str) -> str:
    with pytest.raises(ir.VerificationError) as info:
        ir.verify(ir.parse(text))
    return str(info.value)


@pytest.mark.parametrize("name, operand, result, attrs, message", [
    ("array.argreduce", "tensor<2x3xf32>", "tensor<3xi64>", 'axis = 0, kind = "sum"', "needs 'kind' in ['max', 'min']"),
    ("array.argreduce", "tensor<2x3xf32>", "tensor<3xi64>", 'axis = 2, kind = "max"', "needs an 'axis' in 0..1 (the operand has rank 2)"),
    ("array.argreduce", "tensor<2x3xf32>", "tensor<3xi64>", 'axis = -1, kind = "max"', "needs an 'axis' in 0..1 (the operand has rank 2)"),
    ("array.argreduce", "tensor<2x3xf32>", "tensor<3xi64>", 'kind = "max"', "needs 'axis': an int"),
    ("array.argreduce", "tensor<f32>", "tensor<i64>", 'axis = 0, kind = "max"', "needs an 'axis' in 0..-1 (the operand has rank 0)"),
    ("array.argreduce", "tensor<2x3xf32>", "tensor<3xi32>", 'axis = 0, kind = "max"', "must return tensor<3xi64>"),
    ("array.argreduce", "tensor<2x3xf32>", "tensor<2xi64>", 'axis = 0, kind = "min"', "must return tensor<3xi64>"),
    ("array.argreduce", "tensor<2x0xf32>", "tensor<2xi64>", 'axis = 1, kind = "max"', "cannot take the argmax of an empty axis 1"),
    ("array.scan", "tensor<2x3xf32>", "tensor<2x3xf32>", 'axis = 0, kind = "and"',
     "needs 'kind' in ['bitand', 'bitor', 'bitxor', 'max', 'min', 'prod', 'sum']"),
    ("array.scan", "tensor<2x3xf32>", "tensor<2x3xf32>", 'axis = 3, kind = "sum"', "needs an 'axis' in 0..1 (the operand has rank 2)"),
    ("array.scan", "tensor<2x3xi8>", "tensor<2x3xi64>", 'axis = 0, kind = "sum"', "must return tensor<2x3xi8>"),
])
def test_op_verifier_messages(name, operand, result, attrs, message):
    error = verify_error(one_op(name, operand, result, attrs))
    assert error.startswith(f"'{name}' op {message}\n  ")
    assert name in error.split("\n", 1)[1]  # the op is printed after the message


@pytest.mark.parametrize("text, message", [
    (scan_kernel('["scan", "scan"]'), "may have at most one 'scan' iterator, and then no 'reduction' iterator"),
    (scan_kernel('["scan", "reduction"]', "affine_map<(d0, d1) -> (d0)>", result="tensor<3xf32>"),
     "may have at most one 'scan' iterator, and then no 'reduction' iterator"),
    (scan_kernel('["sweep", "parallel"]'), "needs 'iterator_types', each 'parallel', 'reduction' or 'scan'"),
    (scan_kernel('["scan", "parallel"]', "affine_map<(d0, d1) -> (d0 * -1 + 2, d1)>"),
     "result map affine_map<(d0, d1) -> (d0 * -1 + 2, d1)> must use the scan dim d0 once, plainly"),
    (scan_kernel('["parallel", "scan"]', "affine_map<(d0, d1) -> (d0, d1, d1)>", result="tensor<3x4x4xf32>"),
     "result map affine_map<(d0, d1) -> (d0, d1, d1)> must use the scan dim d1 once, plainly"),
    (scan_kernel('["parallel", "scan"]', "affine_map<(d0, d1) -> (d0)>", result="tensor<3xf32>"),
     "result map affine_map<(d0, d1) -> (d0)> must use the scan dim d1 once, plainly"),
    (scan_kernel(inits=""), "a reduction or scan needs 'inits': one scalar of each result's element type"),
], ids=["two-scans", "scan-and-reduction", "unknown-iterator", "reversed-scan-map", "scan-dim-twice",
        "scan-dim-missing", "no-inits"])
def test_scan_iterator_verifier_messages(text, message):
    assert verify_error(text).startswith(f"'kernel.generic' op {message}\n")


def test_parallel_kernel_takes_no_inits():
    text = scan_kernel('["parallel", "parallel"]')
    assert verify_error(text).startswith("'kernel.generic' op only reductions and scans take 'inits'\n")


def constant_module(op_cls, value: np.ndarray, result_type: TensorType, attrs: dict) -> ModuleOp:
    m = ModuleOp.build()
    func = FuncOp.build("f", FunctionType((), (result_type,)))
    m.body.append(func)
    b = Builder(func.body)
    t = TensorType(value.shape, scalar_type_of(value.dtype))
    const = b.create(array.ConstantOp, [], [t], {"value": DenseAttr(value, t)}).result
    b.create(ReturnOp, [b.create(op_cls, [const], [result_type], attrs).result])
    ir.verify(m)
    return m


def folded(m: ModuleOp) -> np.ndarray:
    PassManager("canonicalize,dce").run(m)
    ops = list(m.functions()[0].body.ops)
    assert [op.op_name for op in ops] == ["array.constant", "func.return"]
    return ops[0].value.array


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("axis", [0, 1])
def test_argreduce_folds_like_numpy(kind, axis):
    x = np.array([[3.0, np.nan, 1.0], [3.0, 2.0, np.nan], [-np.inf, 2.0, 0.0]])
    shape = tuple(d for k, d in enumerate(x.shape) if k != axis)
    out = folded(constant_module(ArgReduceOp, x, TensorType(shape, scalar_type_of(np.dtype(np.int64))),
                                 {"kind": kind, "axis": axis}))
    expected = (np.argmax if kind == "max" else np.argmin)(x, axis=axis)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.float16])
@pytest.mark.parametrize("kind", ["sum", "prod"])
def test_scan_folds_in_the_operand_type(dtype, kind):
    x = np.array([[100, -3, 0, 7], [-0.0, 5, 9, 1]]).astype(dtype)
    t = TensorType(x.shape, scalar_type_of(np.dtype(dtype)))
    out = folded(constant_module(ScanOp, x, t, {"kind": kind, "axis": 1}))
    with np.errstate(all="ignore"):
        expected = (np.add if kind == "sum" else np.multiply).accumulate(x, axis=1, dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_scan_of_one_element_is_its_operand():
    text = one_op("array.scan", "tensor<1x4xf32>", "tensor<1x4xf32>", 'axis = 0, kind = "sum"')
    m = ir.parse(text)
    PassManager("canonicalize,dce").run(m)
    assert "array.scan" not in ir.print_op(m)
    assert '"func.return"(%arg0)' in ir.print_op(m)


def test_argreduce_along_one_element_is_zero():
    m = ir.parse(one_op("array.argreduce", "tensor<3x1xf32>", "tensor<3xi64>", 'axis = 1, kind = "min"'))
    np.testing.assert_array_equal(folded(m), np.zeros(3, np.int64))


def test_fuse_makes_an_argreduce_kernel_with_value_and_index_results():
    m = ir.parse(one_op("array.argreduce", "tensor<2x3xf32>", "tensor<2xi64>", 'axis = 1, kind = "max"'))
    PassManager("kernelize,fuse").run(m)
    text = ir.print_op(m)
    assert '%0, %1 = "kernel.generic"(%arg0)' in text
    assert 'iterator_types = ["parallel", "reduction"]' in text
    assert "inits = [0 : i64, 0xFF800000 : f32]" in text
    assert '"kernel.index"() {dim = 1}' in text
    assert '"func.return"(%0) : (tensor<2xi64>) -> ()' in text


def test_fuse_makes_a_scan_kernel_and_inlines_elementwise_producers():
    m = ir.parse(module("tensor<3x4xi32>", "tensor<3x4xi32>", [
        '%1 = "array.neg"(%arg0) : (tensor<3x4xi32>) -> tensor<3x4xi32>',
        '%0 = "array.scan"(%1) {axis = 0, kind = "prod"} : (tensor<3x4xi32>) -> tensor<3x4xi32>',
    ]))
    PassManager("kernelize,fuse").run(m)
    text = ir.print_op(m)
    assert text.count('"kernel.generic"') == 1
    assert 'iterator_types = ["scan", "parallel"]' in text
    assert "inits = [1 : i32]" in text
    assert '"arith.subi"' in text and '"arith.muli"' in text


def test_fuse_never_inlines_a_scan_into_its_consumer():
    m = ir.parse(module("tensor<3x4xf32>", "tensor<3x4xf32>", [
        '%1 = "array.scan"(%arg0) {axis = 1, kind = "sum"} : (tensor<3x4xf32>) -> tensor<3x4xf32>',
        '%0 = "array.neg"(%1) : (tensor<3x4xf32>) -> tensor<3x4xf32>',
    ]))
    PassManager("kernelize,fuse").run(m)
    text = ir.print_op(m)
    assert text.count('"kernel.generic"') == 2
    assert 'iterator_types = ["parallel", "scan"]' in text
