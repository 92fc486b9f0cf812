"""``array.dot_general``: text round trip, the verifier's messages, and constant folding."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import numpy as np
import pytest

from jitcore import ir
from jitcore.ir.attributes import DenseAttr
from jitcore.ir.builder import Builder
from jitcore.ir.dialects import array
from jitcore.ir.dialects.array import DotGeneralOp
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.types import FunctionType, TensorType, f32, i1, i8
from jitcore.passes import PassManager


def module(lhs: str, rhs: str, result: str, attrs: str) -> str:
    return (
        '"builtin.module"() ({\n'
        '  "func.func"() ({\n'
        f"  ^bb0(%arg0: {lhs}, %arg1: {rhs}):\n"
        f'    %0 = "array.dot_general"(%arg0, %arg1) {{{attrs}}} : ({lhs}, {rhs}) -> {result}\n'
        f'    "func.return"(%0) : ({result}) -> ()\n'
        f'  }}) {{function_type = ({lhs}, {rhs}) -> {result}, sym_name = "f"}} : () -> ()\n'
        "}) : () -> ()"
    )


def dims(lb=(), rb=(), lc=(), rc=()) -> str:
    show = lambda d: "[" + ", ".join(map(str, d)) + "]"  # noqa: E731
    return f"lhs_batch = {show(lb)}, lhs_contracting = {show(lc)}, rhs_batch = {show(rb)}, rhs_contracting = {show(rc)}"


@pytest.mark.parametrize("lhs, rhs, result, attrs", [
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", dims(lc=[1], rc=[0])),
    ("tensor<5x2x3xf64>", "tensor<5x3x4xf64>", "tensor<5x2x4xf64>", dims([0], [0], [2], [1])),
    ("tensor<3xi8>", "tensor<3xi8>", "tensor<i8>", dims(lc=[0], rc=[0])),
    ("tensor<3xi1>", "tensor<4xi1>", "tensor<3x4xi1>", dims()),  # outer product
    ("tensor<2x0xf32>", "tensor<0x4xf32>", "tensor<2x4xf32>", dims(lc=[1], rc=[0])),
    ("tensor<4x2x3x6xf32>", "tensor<3x7x4x2xf32>", "tensor<4x6x7xf32>", dims([0], [2], [1, 2], [3, 0])),
])
def test_roundtrip(lhs, rhs, result, attrs):
    text = module(lhs, rhs, result, attrs)
    op = ir.parse(text)
    ir.verify(op)
    assert ir.print_op(op) == text
    assert ir.print_op(ir.parse(ir.print_op(op))) == text


@pytest.mark.parametrize("lhs, rhs, result, attrs, message", [
    ("tensor<2x3xf32>", "tensor<4x5xf32>", "tensor<2x5xf32>", dims(lc=[1], rc=[0]),
     "contracting dims differ in size: lhs dim 1 is 3, rhs dim 0 is 4"),
    ("tensor<5x2x3xf32>", "tensor<6x3x4xf32>", "tensor<5x2x4xf32>", dims([0], [0], [2], [1]),
     "batch dims differ in size: lhs dim 0 is 5, rhs dim 0 is 6"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", dims(lc=[2], rc=[0]),
     "'lhs_contracting' dim 2 is out of range for the lhs of rank 2"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", dims(lc=[1], rc=[-1]),
     "'rhs_contracting' dim -1 is out of range for the rhs of rank 2"),
    ("tensor<3x3xf32>", "tensor<3x3xf32>", "tensor<3xf32>", dims([0], [0], [0], [1]),
     "repeats a lhs dim in 'lhs_batch' [0] and 'lhs_contracting' [0]"),
    ("tensor<3x3xf32>", "tensor<3x3xf32>", "tensor<f32>", dims(lc=[1, 1], rc=[0, 1]),
     "repeats a lhs dim in 'lhs_batch' [] and 'lhs_contracting' [1, 1]"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", dims(lc=[1], rc=[0, 1]),
     "needs as many 'rhs_contracting' dims as 'lhs_contracting' dims, got 2 and 1"),
    ("tensor<2x3xf32>", "tensor<3x4xf64>", "tensor<2x4xf32>", dims(lc=[1], rc=[0]),
     "needs operands of one element type (convert first), got f32 and f64"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<4x2xf32>", dims(lc=[1], rc=[0]),
     "must return tensor<2x4xf32>"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf64>", dims(lc=[1], rc=[0]),
     "must return tensor<2x4xf32>"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", "lhs_batch = [], lhs_contracting = 1, rhs_batch = [], rhs_contracting = [0]",
     "needs 'lhs_contracting': a list of dimension numbers"),
    ("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<2x4xf32>", "lhs_contracting = [1], rhs_batch = [], rhs_contracting = [0]",
     "needs 'lhs_batch': a list of dimension numbers"),
])
def test_verifier_names_what_is_wrong(lhs, rhs, result, attrs, message):
    op = ir.parse(module(lhs, rhs, result, attrs))
    with pytest.raises(ir.VerificationError) as info:
        ir.verify(op)
    assert str(info.value).startswith(f"'array.dot_general' op {message}\n")


def test_verifier_wants_two_operands():
    t = TensorType((3,), f32)
    func = FuncOp.build("f", FunctionType((t,), (TensorType((), f32),)))
    b = Builder(func.body)
    b.create(DotGeneralOp, [func.body.args[0]], [TensorType((), f32)],
             {"lhs_batch": (), "rhs_batch": (), "lhs_contracting": (0,), "rhs_contracting": (0,)})
    with pytest.raises(ir.VerificationError, match="needs 2 operand"):
        ir.verify(func.body.ops[0])


def _constant_module(lhs: np.ndarray, rhs: np.ndarray, attrs: dict, result_shape):
    m = ModuleOp.build()
    rt = TensorType(result_shape, ir.attributes.scalar_type_of(lhs.dtype))
    func = FuncOp.build("f", FunctionType((), (rt,)))
    m.body.append(func)
    b = Builder(func.body)
    consts = []
    for a in (lhs, rhs):
        t = TensorType(a.shape, ir.attributes.scalar_type_of(a.dtype))
        consts.append(b.create(array.ConstantOp, [], [t], {"value": DenseAttr(a, t)}).result)
    dot = b.create(DotGeneralOp, consts, [rt], attrs)
    b.create(ReturnOp, [dot.result])
    ir.verify(m)
    return m


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.bool_])
def test_fold_all_constant_operands(dtype):
    rng = np.random.default_rng(0)
    lhs = rng.integers(-100, 100, (2, 3, 4)).astype(dtype)
    rhs = rng.integers(-100, 100, (2, 4, 5)).astype(dtype)
    attrs = {"lhs_batch": (0,), "rhs_batch": (0,), "lhs_contracting": (2,), "rhs_contracting": (1,)}
    m = _constant_module(lhs, rhs, attrs, (2, 3, 5))
    PassManager("canonicalize,dce").run(m)
    ops = list(m.functions()[0].body.ops)
    assert [op.op_name for op in ops] == ["array.constant", "func.return"]
    expected = np.matmul(lhs, rhs)  # int8 wraps, bool is or-of-and: NumPy's own rules
    np.testing.assert_array_equal(ops[0].value.array, expected)


def test_fold_general_dimension_numbers_matches_einsum():
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal((4, 2, 3, 6))
    rhs = rng.standard_normal((3, 7, 4, 2))
    attrs = {"lhs_batch": (0,), "rhs_batch": (2,), "lhs_contracting": (1, 2), "rhs_contracting": (3, 0)}
    m = _constant_module(lhs, rhs, attrs, (4, 6, 7))
    PassManager("canonicalize,dce").run(m)
    folded = m.functions()[0].body.ops[0].value.array
    np.testing.assert_allclose(folded, np.einsum("bxyf,ygbx->bfg", lhs, rhs), rtol=1e-12)


def test_fold_skips_large_results():
    lhs, rhs = np.ones((300, 1), np.float32), np.ones((1, 300), np.float32)
    attrs = {"lhs_batch": (), "rhs_batch": (), "lhs_contracting": (1,), "rhs_contracting": (0,)}
    m = _constant_module(lhs, rhs, attrs, (300, 300))
    PassManager("canonicalize,dce").run(m)
    assert "array.dot_general" in ir.print_op(m)


def test_fold_empty_contraction_gives_zeros():
    lhs, rhs = np.ones((2, 0), np.int8), np.ones((0, 3), np.int8)
    attrs = {"lhs_batch": (), "rhs_batch": (), "lhs_contracting": (1,), "rhs_contracting": (0,)}
    m = _constant_module(lhs, rhs, attrs, (2, 3))
    PassManager("canonicalize,dce").run(m)
    folded = m.functions()[0].body.ops[0].value
    assert folded.type == TensorType((2, 3), i8) and not folded.array.any()


def test_bool_outer_product_type():
    """A product of i1 operands is i1 (or of and), not a wider integer."""
    t = TensorType((3,), i1)
    ir.verify(ir.parse(module(str(t), "tensor<2xi1>", "tensor<3x2xi1>", dims())))
    for wrong in ("tensor<3x2xi8>", "tensor<2x3xi1>"):
        with pytest.raises(ir.VerificationError) as info:
            ir.verify(ir.parse(module(str(t), "tensor<2xi1>", wrong, dims())))
        assert str(info.value).startswith("'array.dot_general' op must return tensor<3x2xi1>"), str(info.value)
