"""Invalid IR: the parser says where (line, column), the verifier says which op and what is wrong."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import re

import pytest

from jitcore import ir
from jitcore.ir.builder import Builder
from jitcore.ir.dialects import array
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.types import FunctionType, TensorType, f32


def func(body: str, inputs: str = "tensor<4xf32>", results: str = "tensor<4xf32>") -> str:
    ins = [t.strip() for t in inputs.split(",") if t.strip()]
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(ins))
    label = f"  ^bb0({args}):\n" if args else ""
    return ('"builtin.module"() ({\n  "func.func"() ({\n' + label + body
            + f'\n  }}) {{function_type = ({", ".join(ins)}) -> {results}, sym_name = "f"}} : () -> ()\n}}) : () -> ()')


RET = '    "func.return"(%0) : (tensor<4xf32>) -> ()'


@pytest.mark.parametrize("text, line, column, message", [
    (func('    %0 = "array.neg"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET), 4, 28, "use of undefined value %arg1"),
    (func('    %0 = "array.neg"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n    %1 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET),
     4, 25, "use of undefined value %1"),
    (func('    %0 = "array.neg"(%arg0) : (tensor<4xf33>) -> tensor<4xf32>\n' + RET), 4, 45, "unknown element type 'f33'"),
    (func('    %0 = "array.neg"(%arg0) : (tensor<4xf64>) -> tensor<4xf32>\n' + RET), 4, 9,
     "operand type mismatch in array.neg: value has tensor<4xf32>, signature says tensor<4xf64>"),
    (func('    %0, %1 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET), 4, 13, "array.neg names 2 results but its type has 1"),
    (func('    %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n    %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET),
     5, 63, "redefinition of value %0"),
    (func('    %0 = array.neg(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET), 4, 10, "expected an op name in quotes"),
    (func('    %0 = "array.constant"() {value = dense<[1.0, 2.0]> : tensor<4xf32>} : () -> tensor<4xf32>\n' + RET), 4, 71,
     "dense literal has shape (2,), type says (4,)"),
    (func('    %0 = "array.transpose"(%arg0) {permutation = [0], permutation = [0]} : (tensor<4xf32>) -> tensor<4xf32>\n' + RET), 4, 68,
     "attribute permutation given twice"),
    (func(RET.replace("%0", "%arg0")) + "\n}", 7, 1, "expected end of input"),
    ('"builtin.module"() ({\n  "func.func"() ({\n', 3, 1, "unbalanced parentheses in regions"),
])
def test_parse_errors_give_line_and_column(text, line, column, message):
    with pytest.raises(ir.ParseError) as info:
        ir.parse(text)
    assert str(info.value).startswith(f"line {line}, column {column}: {message}")


def verify_error(text: str) -> str:
    module = ir.parse(text)
    with pytest.raises(ir.VerificationError) as info:
        ir.verify(module)
    return str(info.value)


@pytest.mark.parametrize("body, inputs, result, message", [
    ('%0 = "array.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>', "tensor<4xf32>, tensor<4xf64>", "tensor<4xf32>",
     "'array.add' op needs operands of one type (broadcast and convert first)"),
    ('%0 = "array.exp"(%arg0) : (tensor<4xi32>) -> tensor<4xi32>', "tensor<4xi32>", "tensor<4xi32>",
     "'array.exp' op needs a float element type, got i32"),
    ('%0 = "array.xor"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>', "tensor<4xf32>", "tensor<4xf32>",
     "'array.xor' op needs an integer or bool element type, got f32"),
    ('%0 = "array.lt"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>', "tensor<4xf32>", "tensor<4xf32>",
     "'array.lt' op must return tensor<4xi1>"),
    ('%0 = "array.broadcast_in_dim"(%arg0) {broadcast_dimensions = [1]} : (tensor<3xf32>) -> tensor<2x4xf32>', "tensor<3xf32>", "tensor<2x4xf32>",
     "'array.broadcast_in_dim' op operand dim 0 of size 3 cannot broadcast to 4"),
    ('%0 = "array.transpose"(%arg0) {permutation = [0, 0]} : (tensor<2x3xf32>) -> tensor<2x2xf32>', "tensor<2x3xf32>", "tensor<2x2xf32>",
     "'array.transpose' op needs a 'permutation' of 0..1"),
    ('%0 = "array.transpose"(%arg0) {permutation = [1, 0]} : (tensor<2x3xf32>) -> tensor<2x3xf32>', "tensor<2x3xf32>", "tensor<2x3xf32>",
     "'array.transpose' op result type does not match the permuted operand"),
    ('%0 = "array.reduce"(%arg0) {axes = [1, 0], kind = "sum"} : (tensor<2x2xf32>) -> tensor<f32>', "tensor<2x2xf32>", "tensor<f32>",
     "'array.reduce' op needs strictly increasing 'axes' within the operand rank"),
    ('%0 = "array.reduce"(%arg0) {axes = [2], kind = "sum"} : (tensor<2x2xf32>) -> tensor<2x2xf32>', "tensor<2x2xf32>", "tensor<2x2xf32>",
     "'array.reduce' op needs strictly increasing 'axes' within the operand rank"),
    ('%0 = "array.reduce"(%arg0) {axes = [0], kind = "sum"} : (tensor<2x3xf32>) -> tensor<2xf32>', "tensor<2x3xf32>", "tensor<2xf32>",
     "'array.reduce' op must return tensor<3xf32>"),
    ('%0 = "array.bitcast"(%arg0) : (tensor<4xf32>) -> tensor<4xi64>', "tensor<4xf32>", "tensor<4xi64>",
     "'array.bitcast' op needs element types of one width"),
    ('%0 = "array.bitcast"(%arg0) : (tensor<4xi1>) -> tensor<4xi1>', "tensor<4xi1>", "tensor<4xi1>",
     "'array.bitcast' op cannot reinterpret the bits of i1"),
    ('%0 = "array.complex"(%arg0, %arg0) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xcomplex<f64>>', "tensor<4xi32>",
     "tensor<4xcomplex<f64>>", "'array.complex' op needs two float parts of one type, got tensor<4xi32> and tensor<4xi32>"),
    ('%0 = "array.complex"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f64>>', "tensor<4xf32>",
     "tensor<4xcomplex<f64>>", "'array.complex' op must return tensor<4xcomplex<f32>>"),
    ('%0 = "array.reduce"(%arg0) {axes = [0], kind = "mean"} : (tensor<4xf32>) -> tensor<f32>', "tensor<4xf32>", "tensor<f32>",
     "'array.reduce' op needs 'kind' in ['and', 'bitand', 'bitor', 'bitxor', 'max', 'min', 'or', 'prod', 'sum']"),
])
def test_array_op_errors(body, inputs, result, message):
    text = func(f"    {body}\n    \"func.return\"(%0) : ({result}) -> ()", inputs, result)
    error = verify_error(text)
    assert error.startswith(message + "\n  ")
    assert body.split("(")[0] in error  # the op is printed after the message


def generic(maps: str, args: str, yielded: str = "%arg1", yield_type: str = "f32") -> str:
    return func(
        '    %0 = "kernel.generic"(%arg0) ({\n'
        f"    ^bb0({args}):\n"
        f'      "kernel.yield"({yielded}) : ({yield_type}) -> ()\n'
        f'    }}) {{indexing_maps = [{maps}], iterator_types = ["parallel"]}} : (tensor<4xf32>) -> tensor<4xf32>\n' + RET)


IDENTITY = "affine_map<(d0) -> (d0)>"


@pytest.mark.parametrize("text, message", [
    (generic(IDENTITY, "%arg1: f32"), "'kernel.generic' op needs one indexing map per operand and per result"),
    (generic(f"{IDENTITY}, {IDENTITY}", "%arg1: f64", yield_type="f64"), "'kernel.generic' op body arguments must be ['f32'], got ['f64']"),
    (generic(f"{IDENTITY}, {IDENTITY}", "%arg1: f32, %arg2: f32"), "'kernel.generic' op body arguments must be ['f32'], got ['f32', 'f32']"),
    (generic(f"{IDENTITY}, affine_map<(d0) -> (d0 + 1)>", "%arg1: f32"), "'kernel.generic' op map affine_map<(d0) -> (d0 + 1)> reads outside dim 0 of tensor<4xf32>"),
    (generic(f"{IDENTITY}, affine_map<(d0, d1) -> (d0)>", "%arg1: f32"),
     "'kernel.generic' op map affine_map<(d0, d1) -> (d0)> does not fit tensor<4xf32> over 1 iteration dims"),
    (generic(f"{IDENTITY}, {IDENTITY}", "%arg1: f32", yielded="%arg1, %arg1", yield_type="f32, f32"),
     "'kernel.yield' op must yield one scalar of each result's element type"),
])
def test_kernel_errors(text, message):
    assert verify_error(text).startswith(message + "\n")


def indexed(body: list[str], attrs: str = 'indexed = [0]', maps: str = "affine_map<(d0) -> ()>",
            arg: str = "%arg1: tensor<4xf32>", yielded: str = "%1", out_map: str = "affine_map<(d0) -> (d0)>") -> str:
    """A kernel over 2 points reading (or writing) the whole of %arg0: tensor<4xf32>."""
    lines = ['    %0 = "kernel.generic"(%arg0) ({', f"    ^bb0({arg}):"]
    lines += [f"      {line}" for line in body]
    lines.append(f'      "kernel.yield"({yielded}) : ({"f32" if yielded else ""}) -> ()')
    lines.append(f'    }}) {{domain = [2], {attrs}, indexing_maps = [{maps}, {out_map}], '
                 'iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<2xf32>')
    return func("\n".join(lines) + '\n    "func.return"(%0) : (tensor<2xf32>) -> ()', results="tensor<2xf32>")


POSITION = '%2 = "kernel.index"() {dim = 0} : () -> index'


@pytest.mark.parametrize("text, message", [
    (indexed([POSITION, '%1 = "kernel.extract"(%arg1, %2) : (tensor<4xf32>, index) -> f32'], maps=IDENTITY),
     "'kernel.generic' op map affine_map<(d0) -> (d0)> does not fit tensor<4xf32> over 1 iteration dims"),
    (indexed([POSITION, '%1 = "kernel.extract"(%arg1, %2) : (tensor<4xf32>, index) -> f32'], attrs="clamped = []"),
     "'kernel.generic' op map affine_map<(d0) -> ()> does not fit tensor<4xf32> over 1 iteration dims"),
    (indexed([POSITION, '%1 = "kernel.extract"(%arg1, %2, %2) : (tensor<4xf32>, index, index) -> f32']),
     "'kernel.extract' op needs 1 index positions, one per dim of the tensor it addresses"),
    (indexed(['%3 = "arith.constant"() {value = 1 : i64} : () -> i64',
              '%2 = "kernel.check_index"(%3) {axis = 0} : (i64) -> index',
              '%1 = "kernel.extract"(%arg1, %2) : (tensor<4xf32>, index) -> f32']),
     "'kernel.check_index' op needs 'size': an int"),
    (indexed([POSITION, '%1 = "arith.constant"() {value = 1.0 : f32} : () -> f32',
              '"kernel.insert"(%1, %2) {mode = "add", result = 0} : (f32, index) -> ()']),
     "'kernel.insert' op needs a 'result': one of its kernel's indexed results"),
    (indexed([POSITION, '%1 = "arith.constant"() {value = 1.0 : f32} : () -> f32',
              '"kernel.insert"(%1, %2) {mode = "set", result = 0} : (f32, index) -> ()'],
             attrs="indexed = [0, 1]", out_map="affine_map<(d0) -> ()>", yielded=""),
     "'kernel.generic' op an indexed result must start as a copy of an input, in a kernel without reduction or scan iterators"),
])
def test_indexed_kernel_errors(text, message):
    assert verify_error(text).startswith(message + "\n")


def test_check_index_and_insert_are_not_pure():
    """They record a bad index and write in order: CSE must not merge them nor DCE drop them."""
    from jitcore.ir.core import PURE
    from jitcore.ir.dialects import kernel
    assert not kernel.CheckIndexOp.traits & {PURE} and not kernel.InsertOp.traits & {PURE}
    assert PURE in kernel.ExtractOp.traits


def test_kernel_body_may_not_use_outside_values():
    text = func(
        '    %0 = "arith.constant"() {value = 1.0 : f32} : () -> f32\n'
        '    %1 = "kernel.generic"(%arg0) ({\n'
        "    ^bb0(%arg1: f32):\n"
        '      "kernel.yield"(%0) : (f32) -> ()\n'
        f'    }}) {{indexing_maps = [{IDENTITY}, {IDENTITY}], iterator_types = ["parallel"]}} : (tensor<4xf32>) -> tensor<4xf32>\n'
        '    "func.return"(%1) : (tensor<4xf32>) -> ()')
    assert verify_error(text).startswith("'kernel.yield' op uses a value from outside its kernel.generic\n")


def test_structural_errors():
    neg = '    %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n'
    assert verify_error(func(neg + RET + "\n" + neg.replace("%0", "%1"))).startswith(
        "'func.return' op is a terminator but is not the last op of its block\n")
    assert verify_error(func(neg.rstrip())).startswith(
        "'func.func' op has a block that does not end with a terminator\n")
    assert verify_error(func(neg + RET, results="tensor<4xf64>")).startswith(
        "'func.return' op returns ['tensor<4xf32>'] but the function type says ['tensor<4xf64>']\n")
    assert verify_error(func('    %0 = "test.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n' + RET)).startswith(
        "'test.neg' op is not registered by any dialect\n")
    assert verify_error(func('    "kernel.yield"(%arg0) : (tensor<4xf32>) -> ()')).startswith(
        "'kernel.yield' op must be inside a kernel.generic\n")


def build() -> tuple[ModuleOp, FuncOp, Builder]:
    t = TensorType((4,), f32)
    module = ModuleOp.build()
    f = FuncOp.build("f", FunctionType((t,), (t,)))
    module.body.append(f)
    return module, f, Builder(f.body)


def test_value_used_before_its_definition():
    module, f, b = build()
    x = f.body.args[0]
    first = b.create(array.UNARY_OPS["neg"], [x], [x.type])
    second = b.create(array.UNARY_OPS["exp"], [x], [x.type])
    first.set_operand(0, second.result)
    b.create(ReturnOp, [first.result])
    with pytest.raises(ir.VerificationError, match=re.escape("'array.neg' op operand #0 does not dominate this use")):
        ir.verify(module)


def test_value_from_another_function_is_undefined():
    module, f, b = build()
    _, g, gb = build()
    g.attributes["sym_name"] = "g"
    g.parent.ops.remove(g)
    g.parent = None
    module.body.append(g)
    stranger = gb.create(array.UNARY_OPS["neg"], [g.body.args[0]], [g.body.args[0].type])
    gb.create(ReturnOp, [stranger.result])
    b.create(ReturnOp, [stranger.result])
    with pytest.raises(ir.VerificationError) as info:
        ir.verify(module)
    assert str(info.value).startswith("'func.return' op operand #0 does not dominate this use")
    assert '"func.return"(%<<UNKNOWN>>)' in str(info.value)
