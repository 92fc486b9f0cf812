"""``fuse`` inside ``scf`` regions (docs/control-flow.md §4): it fuses within each block of a loop
body or branch, as it does in a function's body, and never into a loop from outside: a
producer outside a loop stays outside (inlined into the body it would be recomputed at every
iteration), and nothing moves from one branch into another; a producer before a branch may
fuse into it by the usual rules (the branch runs at most once)."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

from jitcore import ir
from jitcore.ir.dialects import kernel
from jitcore.ir.parser import parse
from jitcore.passes import PassManager

HEADER = '"builtin.module"() ({\n'
FOOTER = '}) : () -> ()\n'

# exp(x) is computed before the loop; the body computes tanh(acc * e + 1) - acc, four ops
# that fuse into one kernel, which reads exp(x) from its buffer.
LOOP = '''"func.func"() ({
^bb0(%x: tensor<8xf32>, %n: tensor<i64>):
  %e = "array.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<8xf32>):
    %one = "array.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>
    %m = "array.mul"(%acc, %e) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %a = "array.add"(%m, %one) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %t = "array.tanh"(%a) : (tensor<8xf32>) -> tensor<8xf32>
    %y = "array.sub"(%t, %acc) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    "scf.yield"(%y) : (tensor<8xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<8xf32>) -> tensor<8xf32>
  %out = "array.neg"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%out) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<i64>) -> tensor<8xf32>, sym_name = "loop"} : () -> ()
'''

# Each branch has a two-op chain on the same outer value; each fuses within its own branch.
BRANCHES = '''"func.func"() ({
^bb0(%x: tensor<8xf32>, %c: tensor<i1>):
  %s = "array.sin"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %z = "scf.if"(%c) ({
    %a = "array.exp"(%s) : (tensor<8xf32>) -> tensor<8xf32>
    %b = "array.neg"(%a) : (tensor<8xf32>) -> tensor<8xf32>
    "scf.yield"(%b) : (tensor<8xf32>) -> ()
  }, {
    %p = "array.cos"(%s) : (tensor<8xf32>) -> tensor<8xf32>
    %q = "array.abs"(%p) : (tensor<8xf32>) -> tensor<8xf32>
    "scf.yield"(%q) : (tensor<8xf32>) -> ()
  }) : (tensor<i1>) -> tensor<8xf32>
  "func.return"(%z) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<i1>) -> tensor<8xf32>, sym_name = "branches"} : () -> ()
'''


def _run(func_text: str, pipeline: str = "kernelize,fuse"):
    module = parse(HEADER + func_text + FOOTER)
    PassManager(pipeline).run(module)  # verifies after each pass
    (func,) = module.functions()
    return func


def _body_ops(kernel_op) -> list[str]:
    return [op.op_name for op in kernel_op.body.ops]


def _kernels(block) -> list:
    return [op for op in block.ops if isinstance(op, kernel.GenericOp)]


def test_a_loop_body_fuses_into_one_kernel_and_the_producer_before_the_loop_stays_outside():
    func = _run(LOOP)
    loop = next(op for op in func.body.ops if op.op_name == "scf.for")
    outside = _kernels(func.body)
    assert [_body_ops(k) for k in outside] == [["math.exp", "kernel.yield"], ["arith.negf", "kernel.yield"]]
    body = loop.regions[0].block
    (inside,) = _kernels(body)
    assert _body_ops(inside) == ["arith.mulf", "arith.constant", "arith.addf", "math.tanh", "arith.subf", "kernel.yield"]
    # exp(x) is read from its buffer: the kernel before the loop is an operand, not recomputed
    assert outside[0].result in inside.operands
    assert "math.exp" not in _body_ops(inside)
    assert body.terminator.operands == (inside.result,)


def test_the_same_pipeline_without_fuse_leaves_one_kernel_per_op_in_the_body():
    func = _run(LOOP, "kernelize")
    loop = next(op for op in func.body.ops if op.op_name == "scf.for")
    assert len(_kernels(loop.regions[0].block)) == 4


def test_each_branch_fuses_on_its_own_and_takes_in_a_producer_from_before_the_branch():
    func = _run(BRANCHES)
    assert not _kernels(func.body)
    branch = next(op for op in func.body.ops if op.op_name == "scf.if")
    then_block, else_block = (r.block for r in branch.regions)
    (then_kernel,) = _kernels(then_block)
    (else_kernel,) = _kernels(else_block)
    # sin(x), before the branch, costs one op: rule (b) recomputes it in each reader, and a
    # branch runs at most once where the block around it runs once (perf49: _within_branches)
    assert _body_ops(then_kernel) == ["math.sin", "math.exp", "arith.negf", "kernel.yield"]
    assert _body_ops(else_kernel) == ["math.sin", "math.cos", "math.absf", "kernel.yield"]
    assert then_kernel.operands == (func.body.args[0],) and else_kernel.operands == (func.body.args[0],)


def test_a_costly_producer_read_by_both_branches_stays_before_them():
    text = BRANCHES.replace('%s = "array.sin"(%x)', '%s0 = "array.sin"(%x) : (tensor<8xf32>) -> tensor<8xf32>\n'
                            '  %s1 = "array.exp"(%s0) : (tensor<8xf32>) -> tensor<8xf32>\n'
                            '  %s = "array.tanh"(%s1)')
    func = _run(text)
    (outside,) = _kernels(func.body)
    assert _body_ops(outside) == ["math.sin", "math.exp", "math.tanh", "kernel.yield"]
    branch = next(op for op in func.body.ops if op.op_name == "scf.if")
    for region in branch.regions:
        (inside,) = _kernels(region.block)
        assert inside.operands == (outside.result,)


def test_a_cheap_producer_outside_a_loop_is_not_recomputed_inside_it():
    # neg(x) costs one op, which rule (b) would recompute in a consumer of the same block
    text = LOOP.replace('"array.exp"(%x)', '"array.neg"(%x)')
    func = _run(text)
    loop = next(op for op in func.body.ops if op.op_name == "scf.for")
    (inside,) = _kernels(loop.regions[0].block)
    assert "arith.negf" not in _body_ops(inside)
    assert _kernels(func.body)[0].result in inside.operands


def test_splat_constants_from_outside_a_loop_become_body_constants():
    # a constant hoisted out of the loop still costs no memory read inside it
    text = LOOP.replace(
        '    %one = "array.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>\n', ""
    ).replace('  %lb = "array.constant"', '  %one = "array.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<8xf32>\n  %lb = "array.constant"')
    func = _run(text)
    ir.verify(func)
    loop = next(op for op in func.body.ops if op.op_name == "scf.for")
    (inside,) = _kernels(loop.regions[0].block)
    assert "arith.constant" in _body_ops(inside)
    assert all(getattr(v, "op", None) is None or isinstance(v.op, kernel.GenericOp) for v in inside.operands)


# A loop in a loop: the inner body's chain fuses in the inner block, the outer body's own chain
# in the outer block, and the inner loop reads the outer body's kernel without inlining it.
NESTED = '''"func.func"() ({
^bb0(%x: tensor<8xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<8xf32>):
    %s = "array.sin"(%acc) : (tensor<8xf32>) -> tensor<8xf32>
    %c = "array.cos"(%s) : (tensor<8xf32>) -> tensor<8xf32>
    %inner = "scf.for"(%lb, %n, %st, %c) ({
    ^bb0(%j: tensor<i64>, %v: tensor<8xf32>):
      %e = "array.exp"(%v) : (tensor<8xf32>) -> tensor<8xf32>
      %m = "array.mul"(%e, %c) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      "scf.yield"(%m) : (tensor<8xf32>) -> ()
    }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<8xf32>) -> tensor<8xf32>
    %y = "array.neg"(%inner) : (tensor<8xf32>) -> tensor<8xf32>
    "scf.yield"(%y) : (tensor<8xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%r) : (tensor<8xf32>) -> ()
}) {function_type = (tensor<8xf32>, tensor<i64>) -> tensor<8xf32>, sym_name = "nested"} : () -> ()
'''


def test_loops_in_loops_fuse_block_by_block():
    func = _run(NESTED)
    outer = next(op for op in func.body.ops if op.op_name == "scf.for")
    outer_body = outer.regions[0].block
    sin_cos, neg = _kernels(outer_body)
    assert _body_ops(sin_cos) == ["math.sin", "math.cos", "kernel.yield"]
    assert _body_ops(neg) == ["arith.negf", "kernel.yield"]
    inner = next(op for op in outer_body.ops if op.op_name == "scf.for")
    (exp_mul,) = _kernels(inner.regions[0].block)
    assert _body_ops(exp_mul) == ["math.exp", "arith.mulf", "kernel.yield"]
    assert sin_cos.result in exp_mul.operands  # read from the outer body, not recomputed
