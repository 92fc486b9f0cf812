"""cse and dce: text in, text out."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import textwrap

from jitcore import ir
from jitcore.passes import PassManager


def func(signature: str, body: str) -> str:
    """A module holding one function ``f`` of type ``signature`` whose body is ``body``."""
    ftype = ir.parse_type(signature)
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(ftype.inputs))
    label = f"  ^bb0({args}):\n" if args else ""
    lines = "".join(f"    {line}\n" for line in textwrap.dedent(body).strip().splitlines())
    return ('"builtin.module"() ({\n  "func.func"() ({\n' + label + lines
            + f'  }}) {{function_type = {ftype}, sym_name = "f"}} : () -> ()\n}}) : () -> ()')


def check(pipeline: str, signature: str, before: str, after: str) -> None:
    module = PassManager(pipeline).run(ir.parse(func(signature, before)))
    assert ir.print_op(module) == func(signature, after)


T = "tensor<4xf32>"
BINARY = f"({T}, {T}) -> ({T}, {T})"


def test_cse_merges_duplicates_and_their_users():
    check("cse", BINARY, f"""
        %0 = "array.add"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %1 = "array.add"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %2 = "array.exp"(%0) : ({T}) -> {T}
        %3 = "array.exp"(%1) : ({T}) -> {T}
        "func.return"(%2, %3) : ({T}, {T}) -> ()
    """, f"""
        %0 = "array.add"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %1 = "array.exp"(%0) : ({T}) -> {T}
        "func.return"(%1, %1) : ({T}, {T}) -> ()
    """)


def test_cse_ignores_operand_order_of_commutative_ops_only():
    check("cse", BINARY, f"""
        %0 = "array.mul"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %1 = "array.mul"(%arg1, %arg0) : ({T}, {T}) -> {T}
        %2 = "array.sub"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %3 = "array.sub"(%arg1, %arg0) : ({T}, {T}) -> {T}
        %4 = "array.add"(%1, %2) : ({T}, {T}) -> {T}
        %5 = "array.add"(%0, %3) : ({T}, {T}) -> {T}
        "func.return"(%4, %5) : ({T}, {T}) -> ()
    """, f"""
        %0 = "array.mul"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %1 = "array.sub"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %2 = "array.sub"(%arg1, %arg0) : ({T}, {T}) -> {T}
        %3 = "array.add"(%0, %1) : ({T}, {T}) -> {T}
        %4 = "array.add"(%0, %2) : ({T}, {T}) -> {T}
        "func.return"(%3, %4) : ({T}, {T}) -> ()
    """)


def test_cse_keeps_ops_with_different_attributes():
    body = """
        %0 = "array.reduce"(%arg0) {axes = [0], kind = "sum"} : (tensor<2x3xf32>) -> tensor<3xf32>
        %1 = "array.reduce"(%arg0) {axes = [0], kind = "max"} : (tensor<2x3xf32>) -> tensor<3xf32>
        %2 = "array.reduce"(%arg0) {axes = [0], kind = "sum"} : (tensor<2x3xf32>) -> tensor<3xf32>
        %3 = "array.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
        %4 = "array.constant"() {value = dense<-0.0> : tensor<3xf32>} : () -> tensor<3xf32>
        %5 = "array.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
        "func.return"(%0, %1, %2, %3, %4, %5) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
    """
    check("cse", "(tensor<2x3xf32>) -> (" + ", ".join(["tensor<3xf32>"] * 6) + ")", body, """
        %0 = "array.reduce"(%arg0) {axes = [0], kind = "sum"} : (tensor<2x3xf32>) -> tensor<3xf32>
        %1 = "array.reduce"(%arg0) {axes = [0], kind = "max"} : (tensor<2x3xf32>) -> tensor<3xf32>
        %2 = "array.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
        %3 = "array.constant"() {value = dense<-0.0> : tensor<3xf32>} : () -> tensor<3xf32>
        "func.return"(%0, %1, %0, %2, %3, %2) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
    """)


def test_cse_keeps_ops_with_different_result_types():
    check("cse", "(tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf64>, tensor<4xf32>)", """
        %0 = "array.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf32>
        %1 = "array.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf64>
        %2 = "array.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf32>
        "func.return"(%0, %1, %2) : (tensor<4xf32>, tensor<4xf64>, tensor<4xf32>) -> ()
    """, """
        %0 = "array.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf32>
        %1 = "array.convert"(%arg0) : (tensor<4xi32>) -> tensor<4xf64>
        "func.return"(%0, %1, %0) : (tensor<4xf32>, tensor<4xf64>, tensor<4xf32>) -> ()
    """)


GENERIC = """
    %{n} = "kernel.generic"(%arg0) ({{
    ^bb0(%arg{a}: f32):
      %{c} = "arith.constant"() {{value = {value} : f32}} : () -> f32
      %{m} = "arith.mulf"(%arg{a}, %{c}) : (f32, f32) -> f32
      "kernel.yield"(%{m}) : (f32) -> ()
    }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}"""


def generic(n: int, arg: int, value: str) -> str:
    return textwrap.dedent(GENERIC.format(n=n, a=arg, c=n + 1, m=n + 2, value=value, T=T))


def test_cse_inside_and_of_kernels():
    # Constants are not shared across the isolated body; identical kernels are merged.
    before = generic(0, 1, "2.0") + generic(3, 2, "2.0") + generic(6, 3, "3.0") + textwrap.dedent(f"""
        %9 = "arith.constant"() {{value = 2.0 : f32}} : () -> f32
        "func.return"(%0, %3, %6, %9) : ({T}, {T}, {T}, f32) -> ()
    """)
    after = generic(0, 1, "2.0") + generic(3, 2, "3.0") + textwrap.dedent(f"""
        %6 = "arith.constant"() {{value = 2.0 : f32}} : () -> f32
        "func.return"(%0, %0, %3, %6) : ({T}, {T}, {T}, f32) -> ()
    """)
    check("cse", f"({T}) -> ({T}, {T}, {T}, f32)", before, after)


def test_cse_within_a_kernel_body():
    check("cse", f"({T}) -> {T}", f"""
        %0 = "kernel.generic"(%arg0) ({{
        ^bb0(%arg1: f32):
          %1 = "math.exp"(%arg1) : (f32) -> f32
          %2 = "math.exp"(%arg1) : (f32) -> f32
          %3 = "arith.addf"(%1, %2) : (f32, f32) -> f32
          "kernel.yield"(%3) : (f32) -> ()
        }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """, f"""
        %0 = "kernel.generic"(%arg0) ({{
        ^bb0(%arg1: f32):
          %1 = "math.exp"(%arg1) : (f32) -> f32
          %2 = "arith.addf"(%1, %1) : (f32, f32) -> f32
          "kernel.yield"(%2) : (f32) -> ()
        }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """)


def test_cse_does_not_merge_across_functions():
    text = f"""\
"builtin.module"() ({{
  "func.func"() ({{
    %0 = "array.constant"() {{value = dense<1.0> : {T}}} : () -> {T}
    "func.return"(%0) : ({T}) -> ()
  }}) {{function_type = () -> {T}, sym_name = "f"}} : () -> ()
  "func.func"() ({{
    %0 = "array.constant"() {{value = dense<1.0> : {T}}} : () -> {T}
    "func.return"(%0) : ({T}) -> ()
  }}) {{function_type = () -> {T}, sym_name = "g"}} : () -> ()
}}) : () -> ()"""
    assert ir.print_op(PassManager("cse").run(ir.parse(text))) == text


def test_dce_removes_unused_pure_ops_but_not_the_return():
    check("dce", f"({T}) -> {T}", f"""
        %0 = "array.exp"(%arg0) : ({T}) -> {T}
        %1 = "array.log"(%0) : ({T}) -> {T}
        %2 = "array.neg"(%arg0) : ({T}) -> {T}
        %3 = "array.constant"() {{value = dense<1.0> : {T}}} : () -> {T}
        "func.return"(%2) : ({T}) -> ()
    """, f"""
        %0 = "array.neg"(%arg0) : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """)


def test_dce_keeps_side_effects_and_cleans_kernel_bodies():
    check("dce", f"({T}) -> {T}", f"""
        %0 = "kernel.generic"(%arg0) ({{
        ^bb0(%arg1: f32):
          %1 = "math.exp"(%arg1) : (f32) -> f32
          %2 = "math.sin"(%1) : (f32) -> f32
          "kernel.yield"(%arg1) : (f32) -> ()
        }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}
        %3 = "kernel.generic"(%arg0) ({{
        ^bb0(%arg2: f32):
          "kernel.yield"(%arg2) : (f32) -> ()
        }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}
        %4 = "func.call"(%arg0) {{callee = @g}} : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """, f"""
        %0 = "kernel.generic"(%arg0) ({{
        ^bb0(%arg1: f32):
          "kernel.yield"(%arg1) : (f32) -> ()
        }}) {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} : ({T}) -> {T}
        %1 = "func.call"(%arg0) {{callee = @g}} : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """)


def test_dce_reports_no_change_when_nothing_is_dead():
    dumps = []
    module = ir.parse(func(f"({T}) -> {T}", f"""
        %0 = "array.exp"(%arg0) : ({T}) -> {T}
        "func.return"(%0) : ({T}) -> ()
    """))
    PassManager("cse,dce", print_after_change=True, printer=dumps.append).run(module)
    assert dumps == []


def test_full_pipeline():
    check("canonicalize,cse,dce", BINARY, f"""
        %0 = "array.constant"() {{value = dense<1.0> : {T}}} : () -> {T}
        %1 = "array.constant"() {{value = dense<2.0> : {T}}} : () -> {T}
        %2 = "array.mul"(%0, %arg0) : ({T}, {T}) -> {T}
        %3 = "array.add"(%2, %arg1) : ({T}, {T}) -> {T}
        %4 = "array.add"(%arg1, %arg0) : ({T}, {T}) -> {T}
        %5 = "array.mul"(%4, %1) : ({T}, {T}) -> {T}
        %6 = "array.mul"(%1, %3) : ({T}, {T}) -> {T}
        %7 = "array.exp"(%6) : ({T}) -> {T}
        "func.return"(%5, %6) : ({T}, {T}) -> ()
    """, f"""
        %0 = "array.constant"() {{value = dense<2.0> : {T}}} : () -> {T}
        %1 = "array.add"(%arg0, %arg1) : ({T}, {T}) -> {T}
        %2 = "array.mul"(%1, %0) : ({T}, {T}) -> {T}
        "func.return"(%2, %2) : ({T}, {T}) -> ()
    """)


def test_index_checks_and_inserts_survive_cse_and_dce():
    """kernel.check_index records a bad index and kernel.insert writes: neither is pure, so CSE
    merges no two of them and DCE drops none, though a check's result is unused; the pure
    kernel.extract is merged and dropped like any scalar op."""
    X = "tensor<5xf32>"
    body = f"""
        %0 = "kernel.generic"(%arg0, %arg1, %arg2) ({{
        ^bb0(%arg3: {X}, %arg4: f32, %arg5: i64):
          %1 = "kernel.check_index"(%arg5) {{axis = 0, size = 5}} : (i64) -> index
          %2 = "kernel.check_index"(%arg5) {{axis = 0, size = 5}} : (i64) -> index
          %3 = "kernel.check_index"(%arg5) {{axis = 0, size = 5}} : (i64) -> index
          %4 = "kernel.index"() {{dim = 0}} : () -> index
          %5 = "kernel.extract"(%arg3, %4) : ({X}, index) -> f32
          %6 = "kernel.extract"(%arg3, %4) : ({X}, index) -> f32
          %7 = "arith.addf"(%5, %6) : (f32, f32) -> f32
          %8 = "kernel.extract"(%arg3, %2) : ({X}, index) -> f32
          "kernel.insert"(%7, %1) {{mode = "add", result = 0}} : (f32, index) -> ()
          "kernel.insert"(%7, %1) {{mode = "add", result = 0}} : (f32, index) -> ()
          "kernel.yield"() : () -> ()
        }}) {{copy_inputs = [0], domain = [2], indexed = [0, 3], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["parallel"]}} : ({X}, tensor<2xf32>, tensor<2xi64>) -> {X}
        "func.return"(%0) : ({X}) -> ()
    """
    module = PassManager("cse,dce").run(ir.parse(func(f"({X}, tensor<2xf32>, tensor<2xi64>) -> {X}", body)))
    (kernel_op,) = [op for op in module.functions()[0].body.ops if op.op_name == "kernel.generic"]
    names = [op.op_name for op in kernel_op.body.ops]
    assert names.count("kernel.check_index") == 3 and names.count("kernel.insert") == 2
    assert names.count("kernel.extract") == 1


def test_dce_keeps_an_unused_gather_whose_indices_may_be_out_of_range():
    """NumPy raises IndexError for ``y = x[idx]`` even when ``y`` is never read: a gather of
    indices known only at run time stays (its check is an effect, passes/effects.py), at the
    array level and as a kernel; one of constant indices in range goes."""
    IDX = "tensor<2xi64>"
    check("dce", f"({T}, {IDX}) -> {T}", f"""
        %0 = "array.gather"(%arg0, %arg1) {{axis = 0}} : ({T}, {IDX}) -> tensor<2xf32>
        %1 = "array.constant"() {{value = dense<[0, -4]> : {IDX}}} : () -> {IDX}
        %2 = "array.gather"(%arg0, %1) {{axis = 0}} : ({T}, {IDX}) -> tensor<2xf32>
        %3 = "array.constant"() {{value = dense<[0, 4]> : {IDX}}} : () -> {IDX}
        %4 = "array.gather"(%arg0, %3) {{axis = 0}} : ({T}, {IDX}) -> tensor<2xf32>
        "func.return"(%arg0) : ({T}) -> ()
    """, f"""
        %0 = "array.gather"(%arg0, %arg1) {{axis = 0}} : ({T}, {IDX}) -> tensor<2xf32>
        %1 = "array.constant"() {{value = dense<[0, 4]> : {IDX}}} : () -> {IDX}
        %2 = "array.gather"(%arg0, %1) {{axis = 0}} : ({T}, {IDX}) -> tensor<2xf32>
        "func.return"(%arg0) : ({T}) -> ()
    """)
