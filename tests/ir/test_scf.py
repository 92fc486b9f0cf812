"""The scf dialect: its ops print, parse back and verify; each verifier rule refuses what it should."""

import pytest

from jitcore import ir
from jitcore.ir.errors import VerificationError
from jitcore.ir.parser import parse
from jitcore.ir.printer import print_op

LOOPS = '''"func.func"() ({
^bb0(%x: tensor<4xf32>, %n: tensor<i64>):
  %lb = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %st = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %r = "scf.for"(%lb, %n, %st, %x) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %y = "array.add"(%acc, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "scf.yield"(%y) : (tensor<4xf32>) -> ()
  }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
  %c = "array.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %w = "scf.while"(%r) ({
  ^bb0(%a: tensor<4xf32>):
    "scf.condition"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%b: tensor<4xf32>):
    "scf.yield"(%b) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %z = "scf.if"(%c) ({
    "scf.yield"(%w) : (tensor<4xf32>) -> ()
  }, {
    "scf.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<i1>) -> tensor<4xf32>
  "func.return"(%z) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>, sym_name = "f"} : () -> ()
'''


def test_scf_ops_round_trip_and_verify():
    func = parse(LOOPS)
    ir.verify(func)
    text = print_op(func)
    assert print_op(parse(text)) == text
    assert [op.op_name for op in func.body.ops if op.op_name.startswith("scf.")] == [
        "scf.for", "scf.while", "scf.if"]


BROKEN = [
    # a yield with one value too many
    ('"scf.yield"(%y) : (tensor<4xf32>) -> ()',
     '"scf.yield"(%acc, %y) : (tensor<4xf32>, tensor<4xf32>) -> ()', "yields"),
    # an induction variable of the wrong type
    ("^bb0(%i: tensor<i64>, %acc", "^bb0(%i: tensor<i32>, %acc", "the body takes"),
    # a while whose cond region does not end in scf.condition
    ('"scf.condition"(%c) : (tensor<i1>) -> ()', '"scf.yield"(%a) : (tensor<4xf32>) -> ()',
     "cond region must end with scf.condition"),
    # an if on an integer
    ('"scf.if"(%c) ({', '"scf.if"(%n) ({', "needs one condition"),
    # a step that is not a bound
    ('"scf.for"(%lb, %n, %st, %x)', '"scf.for"(%lb, %n, %x, %x)', "bounds and step"),
]


@pytest.mark.parametrize("old, new, message", BROKEN)
def test_scf_verifier_rules(old, new, message):
    broken = LOOPS.replace(old, new, 1)
    assert broken != LOOPS
    if "%x, %x" in new:
        broken = broken.replace("(tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf32>)",
                                "(tensor<i64>, tensor<i64>, tensor<4xf32>, tensor<4xf32>)")
    if "%n)" in new:
        broken = broken.replace("}) : (tensor<i1>) -> tensor<4xf32>", "}) : (tensor<i64>) -> tensor<4xf32>")
    with pytest.raises(VerificationError, match=message):
        ir.verify(parse(broken))
