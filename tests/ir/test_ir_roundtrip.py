"""print → parse → print is the identity, for text written by hand and IR built in Python."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import numpy as np
import pytest

from jitcore import ir
from jitcore.ir.attributes import AffineExpr, AffineMap, DenseAttr, ScalarAttr
from jitcore.ir.builder import Builder
from jitcore.ir.core import OP_REGISTRY
from jitcore.ir.dialects import arith, array, kernel
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.errors import VerificationError
from jitcore.ir.types import FunctionType, TensorType, f32, i1, i32


def roundtrip(text: str, verify: bool = True) -> None:
    op = ir.parse(text)
    if verify:
        ir.verify(op)
    assert ir.print_op(op) == text
    again = ir.parse(ir.print_op(op))
    assert ir.print_op(again) == text


def module(*funcs: str) -> str:
    return '"builtin.module"() ({\n' + "\n".join(funcs) + "\n}) : () -> ()"


def func(name: str, inputs: list[str], results: list[str], body: list[str]) -> str:
    ftype = str(FunctionType(tuple(map(ir.parse_type, inputs)), tuple(map(ir.parse_type, results))))
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(inputs))
    lines = ['  "func.func"() ({'] + ([f"  ^bb0({args}):"] if inputs else [])
    lines += ["    " + line for line in body]
    lines.append(f'  }}) {{function_type = {ftype}, sym_name = "{name}"}} : () -> ()')
    return "\n".join(lines)


def elementwise_body(kinds, operands: int, t: str, result: str) -> list[str]:
    sig = "(" + ", ".join([t] * operands) + ")"
    args = ", ".join(f"%arg{i}" for i in range(operands))
    return [f'%{n} = "array.{k}"({args}) : {sig} -> {result}' for n, k in enumerate(kinds)]


@pytest.mark.parametrize("kinds, operands, t, result", [
    (sorted(set(array.UNARY) - array.BITWISE - array.INTEGER_FUNCTIONS - set(array.PREDICATES)
            - set(array.COMPLEX_ONLY)), 1,
     "tensor<4xf32>", "tensor<4xf32>"),
    (sorted(array.PREDICATES), 1, "tensor<4xf32>", "tensor<4xi1>"),
    (sorted(set(array.BINARY) - array.BITWISE - array.INTEGER_FUNCTIONS), 2, "tensor<4xf32>", "tensor<4xf32>"),
    (sorted(array.BITWISE & set(array.BINARY)), 2, "tensor<2x3xi8>", "tensor<2x3xi8>"),
    (sorted(array.INTEGER_FUNCTIONS & set(array.BINARY)), 2, "tensor<2x3xi32>", "tensor<2x3xi32>"),
    (sorted(array.INTEGER_FUNCTIONS & set(array.UNARY)), 1, "tensor<ui16>", "tensor<ui16>"),
    (["not"], 1, "tensor<i1>", "tensor<i1>"),
    (sorted(array.COMPARE), 2, "tensor<4xf16>", "tensor<4xi1>"),
    (sorted(array.COMPLEX_KINDS - array.COMPLEX_TO_PART - set(array.COMPARE) - set(array.PREDICATES)
            - set(array.BINARY)), 1, "tensor<2xcomplex<f64>>", "tensor<2xcomplex<f64>>"),
    (sorted(array.COMPLEX_TO_PART), 1, "tensor<3xcomplex<f32>>", "tensor<3xf32>"),
    (sorted(array.COMPLEX_KINDS & set(array.BINARY)), 2, "tensor<complex<f32>>", "tensor<complex<f32>>"),
    (sorted(array.COMPLEX_KINDS & {*array.COMPARE}), 2, "tensor<5xcomplex<f64>>", "tensor<5xi1>"),
])
def test_elementwise_ops(kinds, operands, t, result):
    body = elementwise_body(kinds, operands, t, result)
    body.append(f'"func.return"(%0) : ({result}) -> ()')
    roundtrip(module(func("f", [t] * operands, [result], body)))


def test_complex_elementwise_ops_refuse_what_numpy_does_not_define():
    with pytest.raises(VerificationError, match="not defined for complex"):
        roundtrip(module(func("f", ["tensor<2xcomplex<f32>>"], ["tensor<2xcomplex<f32>>"], [
            '%0 = "array.floor"(%arg0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>',
            '"func.return"(%0) : (tensor<2xcomplex<f32>>) -> ()'])))
    with pytest.raises(VerificationError, match="needs a complex element type"):
        roundtrip(module(func("f", ["tensor<2xf32>"], ["tensor<2xf32>"], [
            '%0 = "array.conj"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>',
            '"func.return"(%0) : (tensor<2xf32>) -> ()'])))


def test_complex_constants_round_trip_with_special_parts():
    roundtrip(module(func("f", [], ["tensor<2xcomplex<f32>>"], [
        '%0 = "array.constant"() {value = dense<[(1.5, -0.0), (0x7FC00000, 0xFF800000)]> : '
        'tensor<2xcomplex<f32>>} : () -> tensor<2xcomplex<f32>>',
        '"func.return"(%0) : (tensor<2xcomplex<f32>>) -> ()'])))


def test_structural_array_ops():
    roundtrip(module(func("f", ["tensor<2x3xf32>", "tensor<3xi32>", "tensor<2x3xi1>"], ["tensor<3x2xf32>"], [
        '%0 = "array.broadcast_in_dim"(%arg1) {broadcast_dimensions = [1]} : (tensor<3xi32>) -> tensor<2x3xi32>',
        '%1 = "array.convert"(%0) : (tensor<2x3xi32>) -> tensor<2x3xf32>',
        '%2 = "array.select"(%arg2, %arg0, %1) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        '%3 = "array.transpose"(%2) {permutation = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>',
        '%4 = "array.reshape"(%3) : (tensor<3x2xf32>) -> tensor<6xf32>',
        '%5 = "array.reduce"(%4) {axes = [0], kind = "max"} : (tensor<6xf32>) -> tensor<f32>',
        '%6 = "array.broadcast_in_dim"(%5) {broadcast_dimensions = []} : (tensor<f32>) -> tensor<3x2xf32>',
        '%7 = "array.constant"() {value = dense<[[1.5, -2.0], [0.0, -0.0], [0x7F800000, 0xFFC00000]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>',
        '%8 = "array.mul"(%6, %7) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>',
        '%9 = "array.not"(%arg2) : (tensor<2x3xi1>) -> tensor<2x3xi1>',
        '"func.return"(%8) : (tensor<3x2xf32>) -> ()',
    ])))


def test_kernels_with_affine_maps_reductions_and_several_results():
    roundtrip(module(func("k", ["tensor<4x10xf32>", "tensor<10xf32>", "tensor<10x4xf32>", "tensor<1x10xf32>"], ["tensor<4x10xf32>", "tensor<4xf32>", "tensor<4xi32>"], [
        '%0 = "kernel.generic"(%arg0, %arg1, %arg2) ({',
        '^bb0(%arg4: f32, %arg5: f32, %arg6: f32):',
        '  %1 = "arith.mulf"(%arg4, %arg5) : (f32, f32) -> f32',
        '  %2 = "math.tanh"(%1) : (f32) -> f32',
        '  %3 = "arith.cmpf"(%2, %arg6) {predicate = "olt"} : (f32, f32) -> i1',
        '  %4 = "arith.select"(%3, %2, %arg6) : (i1, f32, f32) -> f32',
        '  "kernel.yield"(%4) : (f32) -> ()',
        '}) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1 * -1 + 9)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<4x10xf32>, tensor<10xf32>, tensor<10x4xf32>) -> tensor<4x10xf32>',
        '%5, %6 = "kernel.generic"(%0, %arg3) ({',
        '^bb0(%arg7: f32, %arg8: f32, %arg9: f32, %arg10: i32):',
        '  %7 = "arith.addf"(%arg7, %arg8) : (f32, f32) -> f32',
        '  %8 = "arith.maximumf"(%arg9, %7) : (f32, f32) -> f32',
        '  %9 = "arith.fptosi"(%7) : (f32) -> i32',
        '  %10 = "arith.addi"(%arg10, %9) : (i32, i32) -> i32',
        '  "kernel.yield"(%8, %10) : (f32, i32) -> ()',
        '}) {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], inits = [0xFF800000 : f32, 0 : i32], iterator_types = ["parallel", "reduction"]} : (tensor<4x10xf32>, tensor<1x10xf32>) -> (tensor<4xf32>, tensor<4xi32>)',
        '"func.return"(%0, %5, %6) : (tensor<4x10xf32>, tensor<4xf32>, tensor<4xi32>) -> ()',
    ])))


def test_kernels_with_indexed_reads_and_writes():
    """A gather (kernel.check_index, kernel.extract of an indexed input) and a scatter-add (a
    result written only by kernel.insert, starting as a copy of x)."""
    roundtrip(module(func("k", ["tensor<5x4xf64>", "tensor<3xi64>", "tensor<3x4xf64>"], ["tensor<3x4xf64>", "tensor<5x4xf64>"], [
        '%0 = "kernel.generic"(%arg0, %arg1) ({',
        '^bb0(%arg3: tensor<5x4xf64>, %arg4: i64):',
        '  %1 = "kernel.check_index"(%arg4) {axis = 0, size = 5} : (i64) -> index',
        '  %2 = "kernel.index"() {dim = 1} : () -> index',
        '  %3 = "kernel.extract"(%arg3, %1, %2) : (tensor<5x4xf64>, index, index) -> f64',
        '  "kernel.yield"(%3) : (f64) -> ()',
        '}) {domain = [3, 4], indexed = [0], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3xi64>) -> tensor<3x4xf64>',
        '%4 = "kernel.generic"(%arg0, %arg2, %arg1) ({',
        '^bb0(%arg5: tensor<5x4xf64>, %arg6: f64, %arg7: i64):',
        '  %5 = "kernel.check_index"(%arg7) {axis = 0, size = 5} : (i64) -> index',
        '  %6 = "kernel.index"() {dim = 1} : () -> index',
        '  "kernel.insert"(%arg6, %5, %6) {mode = "add", result = 0} : (f64, index, index) -> ()',
        '  "kernel.yield"() : () -> ()',
        '}) {copy_inputs = [0], domain = [3, 4], indexed = [0, 3], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3x4xf64>, tensor<3xi64>) -> tensor<5x4xf64>',
        '"func.return"(%0, %4) : (tensor<3x4xf64>, tensor<5x4xf64>) -> ()',
    ])))


def test_several_functions_calls_and_empty_module():
    roundtrip(module(
        func("f", ["tensor<2xf32>"], ["tensor<2xf32>"], [
            '%0 = "func.call"(%arg0) {callee = @g} : (tensor<2xf32>) -> tensor<2xf32>',
            '"func.return"(%0) : (tensor<2xf32>) -> ()',
        ]),
        func("g", ["tensor<2xf32>"], ["tensor<2xf32>"], ['"func.return"(%arg0) : (tensor<2xf32>) -> ()']),
        func("h", [], [], ['"func.return"() : () -> ()']),
    ))
    roundtrip('"builtin.module"() ({\n}) : () -> ()')


def test_nested_regions_and_blocks_of_unregistered_ops():
    roundtrip("""\
%0, %1 = "test.two"() ({
  %2 = "test.inner"() ({
  ^bb0(%arg0: i32):
    "test.use"(%arg0) : (i32) -> ()
  }, {
  ^bb0:
    "test.jump"() : () -> ()
  ^bb1(%arg1: f16, %arg2: index):
    "test.use"(%arg1, %arg2) : (f16, index) -> ()
  }) {name = "x\\"y", flag = true, list = [1, -2.5, "s", [f32, tensor<2x0xui8>]]} : () -> i1
}) : () -> (i32, f64)""".replace('{name = "x\\"y", flag = true, list = [1, -2.5, "s", [f32, tensor<2x0xui8>]]}',
                                   '{flag = true, list = [1, -2.5, "s", [f32, tensor<2x0xui8>]], name = "x\\"y"}'),
              verify=False)


def test_comments_and_whitespace_are_skipped():
    text = """
    // a function
    "builtin.module"() ({ "func.func"() ({   // no arguments
        %x = "array.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
        "func.return"(%x) : (tensor<i32>) -> ()
    }) {sym_name = "f", function_type = () -> tensor<i32>} : () -> () }) : () -> ()
    """
    assert ir.print_op(ir.parse(text)) == module(func("f", [], ["tensor<i32>"], [
        '%0 = "array.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>',
        '"func.return"(%0) : (tensor<i32>) -> ()',
    ]))


DENSE = [
    "dense<1.5> : tensor<4x4xf32>",
    "dense<-0.0> : tensor<3xf16>",
    "dense<0x7FF8000000000001> : tensor<2xf64>",
    "dense<[1.0, -0.0, 0x7C00, 0xFC00, 0x7E00, 65504.0]> : tensor<6xf16>",
    "dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1.401298464324817e-45, 3.4028234663852886e+38]> : tensor<6xf32>",
    "dense<[[0x7FF0000000000000, 0xFFF0000000000000], [0x7FF8000000000000, 5e-324]]> : tensor<2x2xf64>",
    "dense<[true, false, true]> : tensor<3xi1>",
    "dense<true> : tensor<2x2xi1>",
    "dense<[0, 18446744073709551615]> : tensor<2xui64>",
    "dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>",
    "dense<[-128, 127]> : tensor<2xi8>",
    "dense<[0, 65535]> : tensor<2xui16>",
    "dense<[-1, 2]> : tensor<2xindex>",
    "dense<7> : tensor<i32>",
    "dense<[]> : tensor<0x3xf32>",
    "dense<[[], []]> : tensor<2x0xf32>",
    'dense<"0x000102030405060708090A0B0C0D0E0F10"> : tensor<17xui8>',
    'dense<"0x0000803F000000C000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000C07F0000807F"> : tensor<3x3x2xf32>',
]


@pytest.mark.parametrize("text", DENSE)
def test_dense_attributes(text):
    attr = ir.parse_attribute(text)
    assert ir.printer.format_attribute(attr) == text
    assert ir.parse_attribute(text) == attr


def test_dense_attribute_values():
    assert ir.parse_attribute(DENSE[8]).array.tolist() == [0, 2**64 - 1]
    big = ir.parse_attribute(DENSE[-1]).array
    assert big.shape == (3, 3, 2) and big.reshape(-1)[:4].tolist() == [1.0, -2.0, 0.0, -0.0]
    assert np.signbit(big.reshape(-1)[3]) and np.isnan(big[2, 2, 0]) and big[2, 2, 1] == np.inf
    assert ir.printer.format_attribute(DenseAttr(np.arange(17, dtype=np.uint8), TensorType((17,), ir.parse_type("ui8")))) == DENSE[-2]


SCALARS = [
    "1.0 : f32", "-0.0 : f64", "0x7C00 : f16", "0xFFC00000 : f32", "0x7FF0000000000000 : f64",
    "true : i1", "false : i1", "-7 : i8", "18446744073709551615 : ui64", "-9223372036854775808 : i64",
    "3 : index", "1.0e-07 : f64", "6.1035156e-05 : f32",
]


@pytest.mark.parametrize("text", SCALARS)
def test_scalar_attributes(text):
    attr = ir.parse_attribute(text)
    assert isinstance(attr, ScalarAttr)
    again = ir.parse_attribute(ir.printer.format_attribute(attr))
    assert again == attr and again.bits() == attr.bits()


def test_ir_built_in_python_prints_and_parses_back():
    m = ModuleOp.build()
    t = TensorType((8,), f32)
    f = FuncOp.build("axpy", FunctionType((t, t), (t,)))
    m.body.append(f)
    b = Builder(f.body)
    x, y = f.body.args
    two = b.create(array.ConstantOp, [], [t], {"value": DenseAttr(np.full(8, 2.0), t)}).result
    ax = b.create(array.BINARY_OPS["mul"], [two, x], [t]).result
    identity = AffineMap.identity(1)
    body = ir.Block([f32, f32])
    gen = b.create(kernel.GenericOp, [ax, y], [t], {
        "indexing_maps": (identity, AffineMap(1, (AffineExpr(0, -1, 7),)), identity),
        "iterator_types": ("parallel",),
    }, [ir.Region([body])])
    kb = Builder(body)
    s = kb.create(OP_REGISTRY["arith.addf"], body.args, [f32]).result
    c = kb.create(arith.ConstantOp, [], [i32], {"value": ScalarAttr(3, i32)}).result
    conv = kb.create(OP_REGISTRY["arith.sitofp"], [c], [f32]).result
    out = kb.create(OP_REGISTRY["math.powf"], [s, conv], [f32]).result
    kb.create(OP_REGISTRY["arith.cmpf"], [out, out], [i1], {"predicate": "uno"})
    kb.create(kernel.YieldOp, [out])
    b.create(ReturnOp, [gen.result])
    ir.verify(m)
    text = ir.print_op(m)
    assert text == module(func("axpy", ["tensor<8xf32>"] * 2, ["tensor<8xf32>"], [
        '%0 = "array.constant"() {value = dense<2.0> : tensor<8xf32>} : () -> tensor<8xf32>',
        '%1 = "array.mul"(%0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>',
        '%2 = "kernel.generic"(%1, %arg1) ({',
        '^bb0(%arg2: f32, %arg3: f32):',
        '  %3 = "arith.addf"(%arg2, %arg3) : (f32, f32) -> f32',
        '  %4 = "arith.constant"() {value = 3 : i32} : () -> i32',
        '  %5 = "arith.sitofp"(%4) : (i32) -> f32',
        '  %6 = "math.powf"(%3, %5) : (f32, f32) -> f32',
        '  %7 = "arith.cmpf"(%6, %6) {predicate = "uno"} : (f32, f32) -> i1',
        '  "kernel.yield"(%6) : (f32) -> ()',
        '}) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 * -1 + 7)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>',
        '"func.return"(%2) : (tensor<8xf32>) -> ()',
    ]))
    roundtrip(text)


def test_every_elementwise_kind_has_its_op_class():
    """The op classes are written out one by one; none of the NumPy meanings may lack one."""
    assert set(array.UNARY_OPS) == set(array.UNARY)
    assert set(array.BINARY_OPS) == set(array.BINARY)
    assert set(array.COMPARE_OPS) == set(array.COMPARE)
    for family in (array.UNARY_OPS, array.BINARY_OPS, array.COMPARE_OPS):
        assert all(cls.name == f"array.{kind}" for kind, cls in family.items())
