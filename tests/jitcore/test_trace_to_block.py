"""``compiler.trace_to_block``: a Python function traced into the block a builder points at.

``jit`` traces each function body with it; loop bodies and branches will trace their regions
with it. So it must work for any block, more than once per module, inside another op's region,
and say which results are NumPy scalars and which arguments were written in place.
"""

import numpy as np

from jitcore import ir
from jitcore.compiler import trace_to_block
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.types import FunctionType, ScalarType, TensorType

F32 = TensorType((4,), ScalarType("f32"))
I64 = TensorType((), ScalarType("i64"))


def body(x, y):
    return np.sin(x) * y + np.float32(2), (x + np.arange(4, dtype=np.float32)).sum()


def traced_func(module: ModuleOp, name: str, fn, arg_types) -> FuncOp:
    func = FuncOp.build(name, FunctionType((), ()))
    module.body.append(func)
    values, _ = trace_to_block(fn, arg_types, Builder(func.body), name=name)
    func.body.append(ReturnOp(values))
    func.attributes["function_type"] = FunctionType(tuple(arg_types), tuple(v.type for v in values))
    return func


def self_contained(block: Block) -> bool:
    """Every operand in ``block`` is one of its arguments or a result of an op before it."""
    defined = {id(a) for a in block.args}
    for op in block.ops:
        if any(id(v) not in defined for v in op.operands):
            return False
        defined.update(id(r) for r in op.results)
    return True


def test_one_function_traced_into_two_functions_of_one_module():
    module = ModuleOp.build()
    first = traced_func(module, "first", body, (F32, F32))
    second = traced_func(module, "second", body, (F32, F32))
    ir.verify(module)
    for func in (first, second):
        assert [a.type for a in func.body.args] == [F32, F32]
        assert func.function_type.results == (F32, TensorType((), ScalarType("f32")))
    assert [op.op_name for op in first.body.ops] == [op.op_name for op in second.body.ops]
    text = ir.print_op(module)
    assert text.count('"array.sin"') == 2 and text.count("func.func") == 2


def test_a_region_of_an_op_gets_its_own_trace():
    module = ModuleOp.build()
    outer = FuncOp.build("outer", FunctionType((), ()))
    module.body.append(outer)
    regions = [Region([Block()]), Region([Block()])]
    op = Builder(outer.body).create(Operation, regions=regions)
    for n, region in enumerate(regions):
        values, outputs = trace_to_block(body, (F32, F32), Builder(region.block), name=f"region{n}")
        assert [v.type for v in values] == [F32, TensorType((), ScalarType("f32"))]
        assert outputs.scalars == (False, True) and outputs.mutated == ()
        assert all(v.owner.parent is region.block for v in values)
    # Each region holds its own constants: nothing was added next to the op, and no region
    # uses a value of the other.
    assert outer.body.ops == [op]
    assert all(self_contained(region.block) for region in regions)
    assert [o.op_name for o in regions[0].block.ops] == [o.op_name for o in regions[1].block.ops]
    assert sum(o.op_name == "array.constant" for o in regions[1].block.ops) == 2


def test_ops_go_in_at_the_insertion_point():
    module = ModuleOp.build()
    func = FuncOp.build("f", FunctionType((), ()))
    module.body.append(func)
    ret = func.body.append(ReturnOp([]))
    values, _ = trace_to_block(lambda x: -x, (F32,), Builder.before_op(ret), name="f")
    assert func.body.ops[-1] is ret and values[0].owner is func.body.ops[-2]


def test_outputs_name_written_and_returned_arguments():
    def fn(x, i):
        x[1:] = 0
        return x, i * 2, np.int64(7)

    module = ModuleOp.build()
    func = FuncOp.build("fn", FunctionType((), ()))
    module.body.append(func)
    values, outputs = trace_to_block(fn, (F32, I64), Builder(func.body), name="fn",
                                     paths=["x", "i"], weak=[False, True])
    assert outputs.arguments == (0, -1, -1)  # the first result is argument x itself
    assert outputs.mutated == (0,)  # and x was written: its new value comes last
    assert len(values) == 4 and values[0] is values[3]
    assert values[1].type == I64  # a weak (Python int) argument stays int64
    # i * 2 of a Python int argument is a Python number (PYTHON_NUMBER), np.int64(7) a NumPy scalar
    assert outputs.scalars == (False, "python", True, False)
