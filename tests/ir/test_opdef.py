"""Declared attributes and arity (ir/opdef.py): the accessor, and the verifier's messages for a
missing or ill-typed attribute and a wrong operand or result count, before the op's own rule."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import pytest

from jitcore import ir
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import array
from jitcore.ir.opdef import attr, of, one_of, tuple_of
from jitcore.ir.types import f32
from tests.ir.test_ir_errors import func, verify_error


class _Toy(Operation):  # unregistered: no name, so it stays out of OP_REGISTRY
    __slots__ = ()
    arity = (1, 0)
    count = attr(of(int))
    names = attr(tuple_of(str))
    mode = attr(one_of(("fast", "exact")))
    scale = attr(of(float), optional=True, default=1.0)


class _Toy2(_Toy):
    __slots__ = ()
    mode = attr(one_of(("slow",)))  # redeclared: replaces the base's, not added twice


def _fail_message(op) -> str:
    with pytest.raises(ir.VerificationError) as info:
        op.verify_declared()
    return str(info.value).split("\n")[0]


def _toy(cls=_Toy, operands=1, **attributes):
    return cls([Value(f32) for _ in range(operands)], [], attributes)


def test_accessors_read_the_attributes_and_optional_ones_default():
    op = _toy(count=3, names=("a",), mode="fast")
    assert (op.count, op.names, op.mode, op.scale) == (3, ("a",), "fast", 1.0)
    assert _Toy.count.name == "count"
    op.verify_declared()


def test_declarations_collect_in_order_and_a_subclass_replaces_a_name():
    assert [a.name for a in _Toy.declared_attributes] == ["count", "names", "mode", "scale"]
    assert [a.name for a in _Toy2.declared_attributes] == ["count", "names", "scale", "mode"]
    assert _Toy2.mode.kind is not _Toy.mode.kind


@pytest.mark.parametrize("attributes, message", [
    ({"names": (), "mode": "fast"}, "needs 'count': an int"),
    ({"count": True, "names": (), "mode": "fast"}, "needs 'count': an int"),  # a bool is not an int
    ({"count": 1, "names": ("a", 2), "mode": "fast"}, "needs 'names': a list of strs"),
    ({"count": 1, "names": (), "mode": "quick"}, "needs 'mode' in ['exact', 'fast']"),
    ({"count": 1, "names": (), "mode": "fast", "scale": 2}, "needs 'scale': a float"),
])
def test_a_missing_or_ill_typed_attribute_is_named(attributes, message):
    assert _fail_message(_toy(**attributes)) == f"'' op {message}"


def test_arity_counts_operands_and_results():
    assert _fail_message(_toy(operands=2, count=1, names=(), mode="fast")) == "'' op needs 1 operand(s) and 0 result(s)"


@pytest.mark.parametrize("body, message", [
    ('%0 = "array.transpose"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>', "'array.transpose' op needs 'permutation': a list of ints"),
    ('%0 = "array.transpose"(%arg0) {permutation = 0} : (tensor<4xf32>) -> tensor<4xf32>', "'array.transpose' op needs 'permutation': a list of ints"),
    ('%0 = "array.neg"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>', "'array.neg' op needs 1 operand(s) and 1 result(s)"),
    ('%0 = "array.reduce"(%arg0) {axes = []} : (tensor<4xf32>) -> tensor<4xf32>', "'array.reduce' op needs 'kind' in ['and', 'bitand', 'bitor', 'bitxor', 'max', 'min', 'or', 'prod', 'sum']"),
    ('%0 = "array.constant"() {value = 1} : () -> tensor<4xf32>', "'array.constant' op needs 'value': a dense value of the result type"),
])
def test_array_ops_report_declared_attributes_and_arity(body, message):
    text = func(f"    {body}\n" + '    "func.return"(%0) : (tensor<4xf32>) -> ()')
    assert verify_error(text).startswith(message + "\n  ")


def test_dialect_accessors_are_declared_attributes():
    assert isinstance(array.TransposeOp.permutation, attr)
    assert isinstance(array.ConstantOp.value, attr)
