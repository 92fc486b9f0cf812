"""Folders of the scalar ``arith`` ops: NumPy's results under the dialect's rules, or no fold."""

import math

import numpy as np
import pytest

from jitcore import ir
from jitcore.ir.attributes import ScalarAttr
from jitcore.ir.core import OP_REGISTRY
from jitcore.ir.types import ScalarType

NAN, INF = float("nan"), float("inf")


def fold(name: str, types: str, *values, result: str | None = None, **attributes):
    """Fold ``name`` on constant operands of ``types`` (one per operand, or one for all)."""
    operand_types = [ScalarType(t) for t in types.split(",")] * (1 if "," in types else len(values))
    block = ir.Block(operand_types)
    result_type = ScalarType(result) if result else operand_types[0]
    op = OP_REGISTRY[name](block.args, [result_type], attributes)
    constants = [None if v is None else ScalarAttr(v, t) for v, t in zip(values, operand_types, strict=True)]
    out = op.fold(constants)
    if out is None:
        return None
    (value,) = out
    if isinstance(value, ir.Value):
        return block.args.index(value)  # which operand it forwarded
    assert value.type == result_type
    return value


def same(attr: ScalarAttr, expected) -> bool:
    """Bit-equal, except that any NaN matches a NaN (the sign of a new NaN is the CPU's)."""
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(attr.value)
    return attr == ScalarAttr(expected, attr.type)


@pytest.mark.parametrize("name, t, x, y, expected", [
    ("arith.addi", "i8", 127, 1, -128),
    ("arith.subi", "ui8", 0, 1, 255),
    ("arith.muli", "i32", 65536, 65536, 0),
    ("arith.floordivsi", "i32", -7, 2, -4),
    ("arith.floordivsi", "i32", 7, 0, 0),
    ("arith.floordivsi", "i32", -(2**31), -1, -(2**31)),
    ("arith.floormodsi", "i32", -7, 2, 1),
    ("arith.floormodsi", "i32", 7, -2, -1),
    ("arith.floormodsi", "i32", 7, 0, 0),
    ("arith.floormodsi", "i64", -(2**63), -1, 0),
    ("arith.divui", "ui32", 7, 0, 0),
    ("arith.divui", "i8", -1, 2, 127),  # -1 read as 255
    ("arith.remui", "ui8", 200, 7, 4),
    ("arith.remui", "ui8", 200, 0, 0),
    ("arith.maxsi", "ui8", 255, 1, 1),  # 255 read as -1
    ("arith.maxui", "i8", -1, 1, -1),  # -1 read as 255
    ("arith.minsi", "i64", -5, 3, -5),
    ("arith.minui", "ui64", 2**64 - 1, 3, 3),
    ("arith.xori", "i1", True, True, False),
    ("arith.andi", "i16", 0x0FF0, 0x00FF, 0x00F0),
    ("arith.ori", "index", 8, 1, 9),
    ("arith.addf", "f32", 0.1, 0.2, float(np.float32(0.1) + np.float32(0.2))),
    ("arith.addf", "f16", 65504.0, 65504.0, INF),
    ("arith.addf", "f64", INF, -INF, NAN),
    ("arith.addf", "f32", -0.0, 0.0, 0.0),
    ("arith.subf", "f64", -0.0, -0.0, 0.0),
    ("arith.subf", "f64", -0.0, 1.0, -1.0),
    ("arith.mulf", "f32", -0.0, 5.0, -0.0),
    ("arith.divf", "f64", 1.0, -0.0, -INF),
    ("arith.divf", "f32", 0.0, 0.0, NAN),
    ("arith.remf", "f64", -7.0, 2.0, -1.0),  # fmod: the sign of the dividend
    ("arith.remf", "f64", 1.0, 0.0, NAN),
    ("arith.maximumf", "f32", NAN, 1.0, NAN),
    ("arith.minimumf", "f32", 1.0, NAN, NAN),
    ("arith.maximumf", "f64", -1.0, 2.0, 2.0),
])
def test_binary_folds(name, t, x, y, expected):
    assert same(fold(name, t, x, y), expected)


@pytest.mark.parametrize("name, t, x, y", [
    ("arith.addi", "i1", True, True),  # NumPy says or, LLVM says xor
    ("arith.subi", "i1", True, True),
    ("arith.maxsi", "i1", True, False),
    ("arith.maximumf", "f32", 0.0, -0.0),  # NumPy's answer depends on its code path
    ("arith.minimumf", "f64", -0.0, 0.0),
    ("arith.addi", "i32", 1, None),
])
def test_binary_folds_declined(name, t, x, y):
    assert fold(name, t, x, y) is None


@pytest.mark.parametrize("name, t, y, forwarded", [
    ("arith.addf", "f32", -0.0, 0),
    ("arith.subf", "f32", 0.0, 0),
    ("arith.mulf", "f64", 1.0, 0),
    ("arith.divf", "f16", 1.0, 0),
    ("arith.addi", "i32", 0, 0),
    ("arith.subi", "ui8", 0, 0),
    ("arith.muli", "i64", 1, 0),
    ("arith.floordivsi", "i32", 1, 0),
    ("arith.ori", "i1", False, 0),
    ("arith.muli", "i16", 0, 1),  # x * 0 is the zero
    ("arith.andi", "ui32", 0, 1),
    ("arith.addf", "f32", 0.0, None),  # -0.0 + 0.0 is +0.0
    ("arith.subf", "f32", -0.0, None),  # -0.0 - -0.0 is +0.0
    ("arith.mulf", "f32", 0.0, None),  # inf * 0 is NaN
    ("arith.mulf", "f32", -1.0, None),
])
def test_identities_with_a_constant_right_operand(name, t, y, forwarded):
    assert fold(name, t, None, y) == forwarded


@pytest.mark.parametrize("predicate, x, y, expected", [
    ("oeq", 1.0, 1.0, True), ("oeq", NAN, NAN, False), ("une", NAN, NAN, True), ("ueq", NAN, 1.0, True),
    ("one", 1.0, 2.0, True), ("one", NAN, 2.0, False), ("olt", -0.0, 0.0, False), ("ole", -0.0, 0.0, True),
    ("ult", NAN, 0.0, True), ("uge", 1.0, 2.0, False), ("ugt", 3.0, 2.0, True), ("ule", NAN, 0.0, True),
    ("ord", 1.0, INF, True), ("ord", NAN, 1.0, False), ("uno", 1.0, NAN, True), ("ogt", INF, 1.0, True),
])
def test_cmpf(predicate, x, y, expected):
    assert same(fold("arith.cmpf", "f32", x, y, result="i1", predicate=predicate), expected)


@pytest.mark.parametrize("predicate, t, x, y, expected", [
    ("eq", "i8", -1, -1, True), ("ne", "i1", True, False, True),
    ("slt", "i8", -1, 0, True), ("ult", "i8", -1, 0, False),
    ("sgt", "ui8", 255, 0, False), ("ugt", "ui8", 255, 0, True),
    ("sle", "i64", -(2**63), 0, True), ("uge", "ui64", 2**64 - 1, 0, True),
    ("slt", "i1", True, False, True),  # i1 true is -1 when read signed
])
def test_cmpi(predicate, t, x, y, expected):
    assert same(fold("arith.cmpi", t, x, y, result="i1", predicate=predicate), expected)


@pytest.mark.parametrize("name, src, dst, x, expected", [
    ("arith.extf", "f16", "f32", 0.5, 0.5),
    ("arith.truncf", "f64", "f16", 1e10, INF),
    ("arith.truncf", "f64", "f32", 1 + 2**-24, 1.0),  # ties to even
    ("arith.sitofp", "i8", "f32", -128, -128.0),
    ("arith.sitofp", "ui8", "f32", 255, -1.0),  # 255 read as -1
    ("arith.uitofp", "i8", "f64", -1, 255.0),
    ("arith.uitofp", "i1", "f32", True, 1.0),
    ("arith.sitofp", "i1", "f32", True, -1.0),
    ("arith.sitofp", "i64", "f32", 2**62 + 1, float(2**62)),
    ("arith.extsi", "i8", "i32", -2, -2),
    ("arith.extsi", "ui8", "ui16", 255, 65535),
    ("arith.extui", "i8", "i32", -2, 254),
    ("arith.extui", "i1", "i8", True, 1),
    ("arith.trunci", "i32", "i8", 300, 44),
    ("arith.trunci", "i32", "i1", 2, False),  # keeps the low bit
    ("arith.trunci", "i32", "i1", 3, True),
    ("arith.bitcast", "i32", "ui32", -1, 2**32 - 1),
    ("arith.fptosi", "f32", "i32", -2.9, -2),
    ("arith.fptosi", "f64", "i8", -128.5, -128),
    ("arith.fptoui", "f32", "ui8", 255.9, 255),
    ("arith.fptoui", "f64", "ui64", 2.0**63, 2**63),
])
def test_casts(name, src, dst, x, expected):
    assert same(fold(name, src, x, result=dst), expected)


@pytest.mark.parametrize("name, src, dst, x", [
    ("arith.fptosi", "f32", "i32", NAN),
    ("arith.fptosi", "f32", "i32", INF),
    ("arith.fptosi", "f64", "i8", 128.0),
    ("arith.fptoui", "f32", "ui8", -1.0),
    ("arith.fptoui", "f64", "ui64", 2.0**64),
    ("arith.fptosi", "f32", "i1", 0.0),
])
def test_float_to_int_out_of_range_is_not_folded(name, src, dst, x):
    assert fold(name, src, x, result=dst) is None


def test_select():
    assert fold("arith.select", "i1,f32,f32", True, None, None) == 1
    assert fold("arith.select", "i1,f32,f32", False, None, None) == 2
    assert fold("arith.select", "i1,f32,f32", None, None, None) is None
    block = ir.Block([ScalarType("i1"), ScalarType("f32")])
    op = OP_REGISTRY["arith.select"]([block.args[0], block.args[1], block.args[1]], [ScalarType("f32")])
    assert op.fold([None, None, None]) == [block.args[1]]


def test_negf_and_unfolded_ops():
    assert same(fold("arith.negf", "f32", 0.0), -0.0)
    assert math.isnan(fold("arith.negf", "f64", NAN).value)
    assert fold("math.sin", "f32", 1.0) is None
    assert fold("arith.constant", "f32", result="f32", value=ScalarAttr(1.0, ScalarType("f32"))) is None
