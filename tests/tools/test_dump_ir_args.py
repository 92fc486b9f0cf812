"""dump-ir on real functions: every --args form, Python scalars, --static, --call, --setup,
--timing of every stage, and the README's own power(x, n) (tools/dump-ir, jitcore/dump_args.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from jitcore import dump_args
from jitcore.compiler import DEFAULT_PIPELINE
from tests.tools.dump_ir_runner import ok, readme_block, refused, stage

EXAMPLE = '''
import numpy as np
import jitcore as jc


def scale(x, k):
    return x * k


def power(x, n):
    for _ in range(n - 1):
        x = x * x
    return x


def huber(r, delta=1.0, *, scale=1.0):
    return np.where(abs(r) <= delta, r * r, delta * abs(r)) * scale


@jc.jit(static_argnums=1)
def repeat_add(x, n):
    for _ in range(n):
        x = x + 1
    return x
'''


@pytest.fixture
def example(tmp_path: Path) -> Path:
    path = tmp_path / "example.py"
    path.write_text(EXAMPLE)
    return path


@pytest.fixture
def readme(tmp_path: Path) -> Path:
    """The README's power(x, n), as the README writes it (its definition, not its calls)."""
    path = tmp_path / "readme_power.py"
    path.write_text("import jitcore as jc\n\n" + readme_block("power").split("\n\n")[0] + "\n")
    return path


def block_args(out: str) -> str:
    return re.search(r"\^bb0\((.*)\):", out)[1]


@pytest.mark.parametrize("spec", ["f32[4,8]", "float32[4, 8]", "f32[4x8]", " f32[ 4 , 8 ] "])
def test_every_shape_form_gives_the_same_function(example, spec):
    out = ok(f"{example}:scale", "--args", f"{spec},float", "--stage", "traced")
    assert block_args(out) == "%arg0: tensor<4x8xf32>, %arg1: tensor<f64>"


def test_specs_split_at_commas_outside_brackets_and_repeat():
    assert [(a.dtype.name, a.shape) for a in dump_args.parse_specs("f32[4,8],i64[3],c128[],bool[2x2]")] == [
        ("float32", (4, 8)), ("int64", (3,)), ("complex128", ()), ("bool", (2, 2))]
    assert dump_args.parse_specs("int=3,float=2.5,int,float,bool=True") == [3, 2.5, 0, 0.0, True]
    assert [type(v) for v in dump_args.parse_specs("int=3,float=2")] == [int, float]


@pytest.mark.parametrize(("spec", "message"), [
    ("f32[4,", "bad argument spec"), ("f32[4,x]", "bad dimensions '4,x'"),
    ("f32", "bad argument spec 'f32'"), ("int[3]", "bad argument spec 'int[3]'"),
    ("int=2.5", "is not a Python int"), ("float=abc", "not a Python float"),
    ("float33[4]", "bad argument spec"),
])
def test_bad_specs_are_refused_saying_how_to_write_them(example, spec, message):
    err = refused(f"{example}:scale", "--args", spec)
    assert message in err


def test_a_python_scalar_argument_is_traced_as_a_python_scalar(example):
    out = ok(f"{example}:scale", "--args", "f32[8],int=3", "--stage", "traced")
    assert block_args(out) == "%arg0: tensor<8xf32>, %arg1: tensor<i64>"
    # NumPy's rule for a Python int times an f32 array: the product stays f32 (a weak scalar).
    assert '"array.convert"(%arg1) : (tensor<i64>) -> tensor<f32>' in out


def count_muls(out: str) -> int:
    return len(re.findall(r'"arith\.mulf"', stage(out, "optimized")))


def test_static_by_name_makes_a_plain_function_static(example):
    three = ok(f"{example}:power", "--args", "f32[16]", "--static", "n=3")
    five = ok(f"{example}:power", "--args", "f32[16]", "--static", "n=5")
    assert (count_muls(three), count_muls(five)) == (2, 4)  # the loop unrolled n - 1 times
    assert "tensor<i64>" not in three  # n is no argument of the compiled function


def test_static_by_position_and_a_jitted_functions_own_static_argnums(example):
    out = ok(f"{example}:power", "--args", "f32[16]", "--static", "1=4")
    assert count_muls(out) == 3
    out = ok(f"{example}:repeat_add", "--args", "f32[16]", "--static", "1=3")
    assert len(re.findall(r'"arith\.addf"', out)) == 3


@pytest.mark.parametrize(("static", "message"), [
    ("n", "expected name=value"), ("n=[1,", "is not a Python literal"), ("3=1", "position 3 is past"),
])
def test_bad_static_values(example, static, message):
    assert message in refused(f"{example}:power", "--args", "f32[4]", "--static", static)


def test_the_readme_power_dumps_every_stage_with_timing(readme):
    out = ok(f"{readme}:power", "--args", "f32[64,32]", "--static", "n=3", "--stage", "all", "--timing")
    assert re.findall(r"^// ===== stage: (\S+) =====$", out, re.M) == ["traced", "optimized", "llvm",
                                                                     "llvm-opt", "asm"]
    assert count_muls(out) == 2 and stage(out, "optimized").count('"kernel.generic"(') == 1


def stage_rows(out: str) -> list[str]:
    table = out.split("// ===== compile stages", 1)[1]
    return re.findall(r"^  (\S.*?)\s+\d+\.\d\d\s+\d+\.\d%$", table, re.M)


def test_timing_lists_every_stage_of_the_compile(example):
    out = ok(f"{example}:scale", "--args", "f32[8],float", "--timing", "--stage", "traced")
    rows = stage_rows(out)
    passes = list(dict.fromkeys(f"pass '{p}'" for p in DEFAULT_PIPELINE.split(",")))
    assert rows[0] == "tracing" and rows[-1] == "total"
    assert [r for r in rows if r.startswith("pass ")] == passes
    for expected in ("verifier", "optimizing", "LLVM IR emission", "LLVM optimisation", "machine code"):
        assert expected in rows
    assert rows.index("LLVM IR emission") < rows.index("LLVM optimisation") < rows.index("machine code")
    # The passes' own table (mlir-opt's) is still printed first.
    assert out.index("Execution time report") < out.index("// ===== compile stages")


def test_call_evaluates_an_expression_in_a_module(example, tmp_path, monkeypatch):
    (tmp_path / "mydata.py").write_text("import numpy as np\nx = np.ones((3, 5), np.float32)\n")
    out = ok(f"{example}:scale", "--call", f"{tmp_path / 'mydata.py'}:(x, 2.0)", "--stage", "traced")
    assert block_args(out) == "%arg0: tensor<3x5xf32>, %arg1: tensor<f64>"
    monkeypatch.chdir(tmp_path)  # a module name is found from the working directory
    out = ok(f"{example}:power", "--call", "mydata:((x,), {'n': 3})", "--static", "n=3")
    assert count_muls(out) == 2


def test_setup_file_defines_args_and_kwargs(readme, tmp_path):
    setup = tmp_path / "setup_args.py"
    setup.write_text("import numpy as np\nargs = (np.zeros((2, 3), np.float64),)\nkwargs = {'n': 4}\n")
    out = ok(f"{readme}:power", "--setup", str(setup), "--stage", "traced")
    assert block_args(out) == "%arg0: tensor<2x3xf64>"
    assert out.count('"array.mul"') == 3


@pytest.mark.parametrize(("argv", "message"), [
    (["--call", "nosuchmodule_xyz:(1,)"], "ModuleNotFoundError"),
    (["--call", "justtext"], "expected module:expression"),
    (["--setup", "{tmp}/nothing.py"], "must define args"),
    (["--setup", "{tmp}/missing.py"], "no such file"),
    (["--args", "f32[4]", "--setup", "{tmp}/nothing.py"], "give the arguments one way"),
    (["--args", "f32[4],f32[4],f32[4]"], "do not fit"),
    ([], "the function takes (x, k): give one spec per argument"),  # no --args at all
])
def test_bad_call_and_setup(example, tmp_path, argv, message):
    (tmp_path / "nothing.py").write_text("y = 1\n")
    err = refused(f"{example}:scale", *(a.format(tmp=tmp_path) for a in argv))
    assert message in err


def test_a_misfit_names_defaults_and_keyword_only_parameters(example):
    """A keyword-only parameter is given with --static, which the signature shown says (audit25)."""
    err = refused(f"{example}:huber", "--args", "f64[4],float=0.5,float=2")
    assert "the function takes (r, delta=1.0, *, scale=1.0)" in err
    out = ok(f"{example}:huber", "--args", "f64[4]", "--static", "scale=2.0", "--stage", "traced")
    assert "dense<2.0>" in out


def test_real_arguments_give_what_the_zeros_give(example, tmp_path):
    """Only shapes and dtypes reach the trace: --call with data and --args with zeros agree."""
    (tmp_path / "data.py").write_text("import numpy as np\nx = np.arange(12, dtype=np.float32)\n")
    called = ok(f"{example}:scale", "--call", f"{tmp_path / 'data.py'}:(x, 3)")
    specced = ok(f"{example}:scale", "--args", "f32[12],int=7")
    assert called == specced and np.float32  # the optimized IR, identical
