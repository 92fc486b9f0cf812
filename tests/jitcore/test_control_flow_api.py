"""The explicit control-flow API (docs/control-flow.md §2): what each function traces to, the
errors it raises, and its eager meaning outside ``jit`` (checked against plain Python).

Compiled runs are in test_control_flow_run.py; here the traced IR is read: the ``scf`` op is
there, the module verifies, and the regions hold what the user's functions did.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore import ir
from jitcore.errors import JitTypeError

X = np.arange(5, dtype=np.float32)
THIS_FILE = __file__


def traced(f, *args):
    module = jc.jit(f).lower(*args).traced
    ir.verify(module)
    return module


def ops_of(module):
    (func,) = module.functions()
    return [op for op in func.walk()]


def names(module):
    return [op.op_name for op in ops_of(module)]


def top_level(module):
    (func,) = module.functions()
    return [op.op_name for op in func.body.ops]


def the_op(module, name):
    (op,) = [op for op in ops_of(module) if op.op_name == name]
    return op


def region_names(op, k=0):
    return [inner.op_name for inner in op.regions[k].block.ops]


def line_of(text):
    """The line number in this file of the first line containing ``text``."""
    with open(THIS_FILE) as f:
        for n, line in enumerate(f, 1):
            if text in line and "line_of(" not in line:
                return n
    raise AssertionError(text)


def raises_at(error, marker, *fragments):
    """The error names this file's line holding ``marker`` and every fragment."""
    message = str(error.value)
    assert f"{THIS_FILE}:{line_of(marker)}" in message, message
    for fragment in fragments:
        assert fragment in message, message


# -- what each function traces to -----------------------------------------------------------
def test_fori_loop_is_one_scf_for_whatever_the_trip_count():
    def f(x):
        return jc.fori_loop(0, 10**6, lambda i, c: c + x[i % 5], np.float32(0))

    module = traced(f, X)
    loop = the_op(module, "scf.for")
    assert top_level(module).count("scf.for") == 1
    assert len(names(module)) < 20  # not unrolled
    assert "array.gather" in region_names(loop)
    assert [str(v.type) for v in loop.operands[:3]] == ["tensor<i64>"] * 3
    assert str(loop.induction_variable.type) == "tensor<i64>"


def test_fori_loop_bounds_may_be_traced():
    def f(x, lo, hi):
        return jc.fori_loop(lo, hi, lambda i, c: c + i, 0)

    module = traced(f, X, np.int32(1), np.int64(4))
    (func,) = module.functions()
    loop = the_op(module, "scf.for")
    lo, hi = func.body.args[1:3]
    assert loop.operands[1] is hi  # int64 as it is
    assert loop.operands[0].owner.op_name == "array.convert" and loop.operands[0].owner.operands[0] is lo


def test_fori_loop_negative_step_is_an_operand():
    def f(x):
        return jc.fori_loop(4, -1, lambda i, c: c + x[i], np.float32(0), step=-1)

    loop = the_op(traced(f, X), "scf.for")
    assert loop.step.owner.op_name == "array.constant"
    assert loop.step.owner.attributes["value"].array.item() == -1


def test_loop_index_reads_and_writes_elements_of_a_carried_array():
    def f(x):
        def body(i, out):
            out[i] = x[i] * 2
            return out
        return jc.fori_loop(0, 5, body, np.zeros(5, np.float32))

    loop = the_op(traced(f, X), "scf.for")
    inner = region_names(loop)
    assert "array.gather" in inner and "array.scatter_nd" in inner
    scatter = next(op for op in loop.body.ops if op.op_name == "array.scatter_nd")
    assert scatter.operands[0] is loop.body.args[1]  # writes the carried array, not a copy outside


def test_while_loop_is_one_scf_while():
    def f(x):
        return jc.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2), (0, x))

    module = traced(f, X)
    loop = the_op(module, "scf.while")
    assert region_names(loop, 0)[-1] == "scf.condition"
    assert region_names(loop, 1)[-1] == "scf.yield"
    assert [str(t) for t in loop.result_types] == ["tensor<i64>", "tensor<5xf32>"]


def test_cond_with_a_traced_predicate_is_an_scf_if():
    def f(x):
        return jc.cond(x.sum() > 3, lambda a: a + 1, lambda a: a * 2, x)

    op = the_op(traced(f, X), "scf.if")
    assert "array.add" in region_names(op, 0) and "array.mul" in region_names(op, 1)
    assert str(op.condition.type) == "tensor<i1>"


def test_a_number_predicate_is_compared_with_zero():
    def f(x):
        return jc.cond(x.sum(), lambda: x, lambda: -x)

    op = the_op(traced(f, X), "scf.if")
    assert op.condition.owner.op_name == "array.ne"


def test_a_concrete_predicate_calls_only_the_chosen_branch():
    def boom(*_):
        raise AssertionError("the branch not taken was called")

    def f(x):
        return jc.cond(True, lambda a: a + 1, boom, x), jc.switch(7, [boom, lambda a: a * 3], x)

    module = traced(f, X)
    assert "scf.if" not in names(module)
    assert {"array.add", "array.mul"} <= set(names(module))


def test_switch_clamps_a_traced_index_and_chains_ifs():
    def f(x, k):
        return jc.switch(k, [lambda a: a + 1, lambda a: a - 1, lambda a: a * 2], x)

    module = traced(f, X, np.int32(5))
    assert names(module).count("scf.if") == 2
    top = top_level(module)
    assert {"array.max", "array.min"} <= set(top)  # the clamp, before the branches
    assert top.index("array.min") < top.index("scf.if")


def test_scan_is_an_scf_for_carrying_the_stacked_ys():
    def f(xs):
        return jc.scan(lambda c, x: (c + x, c * x), np.float32(0), xs)

    module = traced(f, X)
    loop = the_op(module, "scf.for")
    assert [str(t) for t in loop.result_types] == ["tensor<f32>", "tensor<5xf32>"]
    assert {"array.gather", "array.scatter_nd"} <= set(region_names(loop))


def test_scan_without_xs_takes_length_and_gives_none():
    def f(x):
        seen = []

        def step(c, nothing):
            seen.append(nothing)
            return c + 1, c
        out = jc.scan(step, 0, length=3)
        assert seen == [None]
        return out

    module = traced(f, X)
    loop = the_op(module, "scf.for")
    assert loop.upper.owner.attributes["value"].array.item() == 3


def test_closures_over_outer_tracers_land_inside_the_body():
    def f(x, y):
        return jc.fori_loop(0, 3, lambda i, c: c + x * y, x)

    module = traced(f, X, X)
    loop = the_op(module, "scf.for")
    assert "array.mul" in region_names(loop)
    assert "array.mul" not in top_level(module)


def test_constants_made_in_a_body_do_not_leak_out_of_it():
    table = np.linspace(0, 1, 5, dtype=np.float32)

    def f(x):
        y = jc.fori_loop(0, 3, lambda i, c: c + table, x)  # the constant is first made here
        return y * table  # and used again after the loop: made again outside, or verify fails

    module = traced(f, X)
    assert top_level(module).count("array.constant") >= 2


def test_a_stale_view_read_in_a_body_is_derived_in_the_body_and_again_after_it():
    def f(x):
        v = x[1:3]
        x[0] = 5.0
        total = jc.fori_loop(0, 2, lambda i, c: c + v.sum() + v.max(), np.float32(0))
        return total, v

    module = traced(f, X.copy())  # verifies: no value from the body is used after it
    loop = the_op(module, "scf.for")
    assert region_names(loop).count("array.slice") == 1  # once per region, not per read


def test_a_carried_view_is_carried_as_its_value():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: c * 2, x[1:3])

    loop = the_op(traced(f, X), "scf.for")
    assert loop.inits[0].owner.op_name == "array.slice"


def test_weak_init_takes_the_dtype_the_body_gives():
    def f(x):
        return jc.fori_loop(0, 5, lambda i, c: c + x[i], 0)  # an int 0, x float32

    module = traced(f, X)
    loop = the_op(module, "scf.for")
    assert [str(t) for t in loop.result_types] == ["tensor<f32>"]
    assert [str(a.type) for a in loop.body.args] == ["tensor<i64>", "tensor<f32>"]
    # only the final trace's body is left: the discarded one left no use of x behind
    (func,) = module.functions()
    assert [use.op_name for use, _ in func.body.args[0].uses] == ["array.gather"]


def test_weak_branch_output_takes_the_other_branch_dtype():
    def f(x):
        return jc.cond(x[0] > 0, lambda: x[1], lambda: 0.0)

    op = the_op(traced(f, X), "scf.if")
    assert [str(t) for t in op.result_types] == ["tensor<f32>"]


def test_pytree_carries_and_nested_control_flow():
    def f(x):
        def body(i, state):
            inner = jc.cond(x[i] > 2, lambda s: s * 2, lambda s: s, state["acc"])
            count = jc.while_loop(lambda n: n < i, lambda n: n + 1, state["n"][0])
            return {"acc": inner + x[i], "n": (count,)}
        return jc.fori_loop(0, 5, body, {"acc": np.float32(0), "n": (np.int64(0),)})

    module = traced(f, X)
    loop = the_op(module, "scf.for")
    inner = region_names(loop)
    assert "scf.if" in inner and "scf.while" in inner
    assert [str(t) for t in loop.result_types] == ["tensor<f32>", "tensor<i64>"]


def test_a_while_inside_a_scan():
    def f(xs):
        def step(c, x):
            y = jc.while_loop(lambda v: v < x, lambda v: v * 2 + 1, np.float32(1))
            return c + y, y
        return jc.scan(step, np.float32(0), xs)

    loop = the_op(traced(f, X), "scf.for")
    assert "scf.while" in region_names(loop)


def test_writes_to_a_branch_operand_stay_in_the_branch():
    def f(x):
        def double_first(a):
            a[0] = a[0] * 2
            return a
        return jc.cond(x[0] > 1, double_first, lambda a: a, x), x

    module = traced(f, X)
    (func,) = module.functions()
    ret = func.body.ops[-1]
    assert ret.operands[1] is func.body.args[0]  # x itself unchanged


# -- errors -----------------------------------------------------------------------------------
def test_carry_dtype_mismatch_names_the_leaf_both_types_and_the_line():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: (c[0], {"w": c[1]["w"] * 1.5}),  # MISMATCH-1
                            (x, {"w": np.int32(1)}))

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "MISMATCH-1", "jc.fori_loop", "carry[1]['w']", "int32[]", "float64[]")


def test_carry_shape_mismatch_in_while_loop():
    def f(x):
        return jc.while_loop(lambda c: c.sum() < 10, lambda c: c[1:], x)  # MISMATCH-2

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "MISMATCH-2", "jc.while_loop", "float32[5]", "float32[4]")


def test_carry_structure_mismatch():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: (c, c), x)  # MISMATCH-3

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "MISMATCH-3", "different structure")


def test_a_weak_init_that_cannot_take_the_body_dtype_is_an_error():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: np.int32(1), 0.0)  # MISMATCH-4

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "MISMATCH-4", "float64[] (a Python scalar)", "int32[]")


def test_branch_mismatch_names_both_branches():
    def f(x):
        return jc.cond(x[0] > 0, lambda: (x, x), lambda: (x, x[:2]))  # MISMATCH-5

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "MISMATCH-5", "output[1]", "float32[5] from true_fun", "float32[2] from false_fun")


def test_switch_branch_mismatch(without_auto_static):  # (k static: one branch, no mismatch)
    def f(x, k):
        return jc.switch(k, [lambda: x, lambda: x.astype(np.float64)])  # MISMATCH-6

    with pytest.raises(JitTypeError) as e:
        traced(f, X, np.int64(0))
    raises_at(e, "MISMATCH-6", "jc.switch", "float32[5]", "float64[5]")


def test_non_scalar_predicate_is_an_error():
    def f(x):
        return jc.cond(x > 0, lambda: x, lambda: x)  # PRED-1

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "PRED-1", "scalar (0-d)", "got bool[5]")


def test_non_scalar_while_condition_is_an_error():
    def f(x):
        return jc.while_loop(lambda c: c < 3, lambda c: c + 1, x)  # PRED-2

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "PRED-2", "cond_fun", "scalar (0-d)")


@pytest.mark.parametrize("index", [np.float32(1), np.arange(2)])
def test_switch_index_must_be_an_integer_scalar(index):
    def f(x, k):
        return jc.switch(k, [lambda: x, lambda: x])  # INDEX-1

    with pytest.raises(JitTypeError) as e:
        traced(f, X, index)
    raises_at(e, "INDEX-1", "integer")


def test_fori_loop_bounds_must_be_integers():
    def f(x):
        return jc.fori_loop(0, x[0], lambda i, c: c, x)  # BOUND-1

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "BOUND-1", "upper must be a scalar (0-d), an integer; got float32[]")


def test_a_write_to_an_outer_array_in_a_body_says_to_carry_it():
    def f(x):
        def body(i, c):
            x[i] = c  # WRITE-1
            return c
        return jc.fori_loop(0, 3, body, np.float32(0))

    with pytest.raises(JitTypeError) as e:
        traced(f, X.copy())
    raises_at(e, "WRITE-1", "Carry the array")


def test_a_write_through_an_outer_view_in_a_branch_is_refused():
    def f(x):
        v = x[1:]

        def branch():
            v[0] = 1.0  # WRITE-2
            return x.sum()
        return jc.cond(x[0] > 0, branch, lambda: x.sum())

    with pytest.raises(JitTypeError) as e:
        traced(f, X.copy())
    raises_at(e, "WRITE-2", "Carry the array")


def test_scan_errors():
    with pytest.raises(JitTypeError) as e:
        traced(lambda xs: jc.scan(lambda c, x: c + x, 0.0, xs), X)  # SCAN-1
    raises_at(e, "SCAN-1", "pair (carry, y)")
    with pytest.raises(JitTypeError) as e:
        traced(lambda xs: jc.scan(lambda c, x: (c, x), 0.0, (xs, xs[:2])), X)  # SCAN-2
    raises_at(e, "SCAN-2", "leading axes", "[2, 5]")
    with pytest.raises(JitTypeError) as e:
        traced(lambda xs: jc.scan(lambda c, x: (c, x), 0.0), X)  # SCAN-3
    raises_at(e, "SCAN-3", "length must be given")
    with pytest.raises(JitTypeError) as e:
        traced(lambda xs: jc.scan(lambda c, x: (c, x), 0.0, xs, length=4), X)  # SCAN-4
    raises_at(e, "SCAN-4", "[4, 5]")


def test_a_bad_carry_leaf_type_is_an_error():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: c, (x, "text"))  # LEAF-1

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "LEAF-1", "carry[1] is a str")


def test_errors_are_raised_eagerly_too():
    with pytest.raises(JitTypeError, match=r"carry is int32\[\] going into body_fun but float64\[\]"):
        jc.fori_loop(0, 3, lambda i, c: c * 1.5, np.int32(1))
    with pytest.raises(JitTypeError, match="scalar"):
        jc.cond(np.array([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(JitTypeError, match="integer"):
        jc.switch(1.0, [lambda: 1])
    with pytest.raises(JitTypeError, match="step is 0"):
        jc.fori_loop(0, 3, lambda i, c: c, 0, step=0)


def test_the_api_is_exported():
    for name in ("cond", "switch", "while_loop", "fori_loop", "scan"):
        assert name in jc.__all__ and callable(getattr(jc, name))


# -- eager: the same meaning in Python ----------------------------------------------------------
def test_eager_cond_and_switch():
    assert jc.cond(np.float64(0.0), lambda: "t", lambda: "f") == "f"
    assert jc.cond(np.nan, lambda: "t", lambda: "f") == "t"  # nonzero, as NaN != 0
    branches = [lambda a: a + 1, lambda a: a * 10, lambda a: -a]
    for k, expected in [(-3, 3), (0, 3), (1, 20), (2, -2), (9, -2)]:
        assert jc.switch(np.int32(k), branches, 2) == expected


def test_eager_branches_leave_the_callers_arrays_alone():
    x = np.zeros(3)

    def write(a):
        a[0] = 7.0
        return a

    np.testing.assert_array_equal(jc.cond(True, write, write, x), [7, 0, 0])
    np.testing.assert_array_equal(jc.switch(0, [write], x), [7, 0, 0])
    np.testing.assert_array_equal(x, 0)


def test_eager_loops_leave_the_callers_arrays_alone():
    out = np.zeros(4)

    def body(i, o):
        o[i] = i * i
        return o

    result = jc.fori_loop(0, 4, body, out)
    np.testing.assert_array_equal(result, [0, 1, 4, 9])
    np.testing.assert_array_equal(out, 0)


@settings(max_examples=30)
@given(lo=st.integers(-5, 8), hi=st.integers(-5, 8), step=st.sampled_from([-3, -1, 1, 2]))
def test_eager_fori_loop_is_a_python_range(lo, hi, step):
    seen = []

    def body(i, c):
        seen.append(i)
        return c + i * i
    total = jc.fori_loop(lo, hi, body, 0, step=step)
    assert seen == list(range(lo, hi, step))
    assert all(type(i) is np.int64 for i in seen)
    assert total == sum(i * i for i in range(lo, hi, step))


@settings(max_examples=25)
@given(xs=hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(-10, 10)))
def test_eager_scan_is_a_python_loop(xs):
    carry, ys = jc.scan(lambda c, x: (c + x, c * x), 0.0, xs)
    c, rows = 0.0, []
    for x in xs:
        rows.append(c * x)
        c = c + x
    assert carry == pytest.approx(c)
    np.testing.assert_allclose(ys, np.array(rows).reshape(len(xs)))


@settings(max_examples=25)
@given(a=st.floats(0.5, 1e6))
def test_eager_while_loop_newton_sqrt(a):
    def body(state):
        x, k = state
        return 0.5 * (x + a / x), k + 1

    x, k = jc.while_loop(lambda s: (abs(s[0] * s[0] - a) > 1e-9 * a) & (s[1] < 100), body, (a, 0))
    assert x == pytest.approx(np.sqrt(a), rel=1e-8) and k < 100


def test_eager_scan_of_zero_length_gives_empty_ys():
    carry, ys = jc.scan(lambda c, x: (c + x.sum(), x * 2), 1.0, np.zeros((0, 3), np.float32))
    assert carry == 1.0 and ys.shape == (0, 3) and ys.dtype == np.float32


def test_eager_errors_name_the_line():
    with pytest.raises(JitTypeError) as e:
        jc.while_loop(lambda c: c < 3, lambda c: np.ones(2), 0)  # EAGER-1
    raises_at(e, "EAGER-1", "carry is int64[] (a Python scalar) going into body_fun but float64[2]")


def test_the_tracer_leaves_no_region_state_behind():
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: c + x, x)

    jc.jit(f).lower(X)
    # After tracing, calls outside jit are eager again (no trace left running).
    assert jc.fori_loop(0, 3, lambda i, c: c + 1, 0) == 3
    assert not re.search("Traced", repr(jc.cond(True, lambda: X, lambda: X)))


def test_scan_in_reverse_reads_and_writes_row_n_minus_1_minus_i():
    def f(xs):
        return jc.scan(lambda c, x: (c + x, c), np.float32(0), xs, reverse=True)

    loop = the_op(traced(f, X), "scf.for")
    sub = next(op for op in loop.body.ops if op.op_name == "array.sub")
    assert sub.operands[1] is loop.induction_variable
    gather = next(op for op in loop.body.ops if op.op_name == "array.gather")
    assert gather.operands[1] is sub.results[0]


@settings(max_examples=25)
@given(xs=hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(-10, 10)))
def test_eager_scan_in_reverse(xs):
    carry, ys = jc.scan(lambda c, x: (c * 0.5 + x, c), 0.0, xs, reverse=True)
    c, rows = 0.0, [0.0] * len(xs)
    for i in reversed(range(len(xs))):
        rows[i] = c
        c = c * 0.5 + xs[i]
    assert carry == pytest.approx(c)
    np.testing.assert_allclose(ys, np.array(rows).reshape(len(xs)))


@pytest.mark.parametrize("init, body_dtype, carried", [
    (0, np.float32, np.float32), (0, np.uint8, np.uint8), (0.0, np.float16, np.float16),
    (0.0, np.complex64, np.complex64), (0, np.bool_, None), (0.0, np.int32, None),
    (0j, np.float32, None), (np.int64(0), np.int32, None), (0, np.int64, np.int64),
])
def test_a_weak_init_takes_the_body_dtype_where_numpy_promotion_allows(init, body_dtype, carried):
    def f(x):
        return jc.fori_loop(0, 3, lambda i, c: x[0].astype(body_dtype), init)

    if carried is None:
        with pytest.raises(JitTypeError, match="going into body_fun but"):
            traced(f, X)
        with pytest.raises(JitTypeError, match="going into body_fun but"):
            jc.fori_loop(0, 3, lambda i, c: np.asarray(1, body_dtype)[()], init)
    else:
        loop = the_op(traced(f, X), "scf.for")
        assert loop.result_types[0].element == jc.dtypes.ir_type(carried)
        # eager: the same rule
        assert jc.fori_loop(0, 3, lambda i, c: np.asarray(1, body_dtype)[()], init).dtype == carried


def test_a_value_from_inside_a_body_used_after_it_is_an_error():
    def f(x):
        stash = []

        def body(i, c):
            stash.append(c * 2)
            return c + 1
        out = jc.fori_loop(0, 3, body, x)
        return out + stash[0]  # ESCAPE-1

    with pytest.raises(JitTypeError) as e:
        traced(f, X)
    raises_at(e, "ESCAPE-1", "inside a loop body or branch", "f32[5]", "used after it")


def test_a_body_that_raises_leaves_no_uses_behind():
    from jitcore.ir.builder import Builder
    from jitcore.ir.core import Block
    from jitcore.tracer import Trace, Tracer

    outer = Block([ir.types.TensorType((3,), jc.dtypes.ir_type(np.float32))])
    trace = Trace(Builder(outer), "f")
    x = Tracer(outer.args[0], trace)
    body = Block()
    with pytest.raises(ZeroDivisionError), trace.region(body):
        y = x * 2
        y = y / 0 if y.shape == (2,) else 1 // 0
    assert not outer.args[0].uses and trace.depth == 0 and trace.builder.block is outer
