"""tools/dump-ir, run as a user would: a subprocess on a small file of jitted functions."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jitcore.compiler import DEFAULT_PIPELINE

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = '''
import jitcore as jc
import jitcore.numpy as jnp


@jc.jit
def f(x, y):
    z = x + y
    w = jnp.sin(z)
    return w


def g(x):
    a = x * 2
    b = a + 1
    c = jnp.tanh(b)
    return c


def branchy(x):
    return (x, -x)[x.sum() > 0]  # Python picks by data (an if on data compiles, autograph)
'''
DEFAULT_PASSES = DEFAULT_PIPELINE.split(",")  # each pass of the default pipeline, in order


@pytest.fixture
def example(tmp_path: Path) -> Path:
    path = tmp_path / "example.py"
    path.write_text(EXAMPLE)
    return path


def dump_ir(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO), env.get("PYTHONPATH", "")] if p)
    return subprocess.run([sys.executable, str(REPO / "tools" / "dump-ir"), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def ok(*args: str) -> str:
    result = dump_ir(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def header(stage: str) -> str:
    return f"// ===== stage: {stage} =====\n"


def test_traced_stage_shows_the_array_ops(example):
    out = ok(f"{example}:g", "--args", "f32[1024]", "--stage", "traced")
    assert out.startswith(header("traced"))
    assert '"array.tanh"' in out and '"array.mul"' in out
    assert "kernel.generic" not in out


def test_optimized_is_the_default_stage_and_g_is_one_fused_kernel(example):
    out = ok(f"{example}:g", "--args", "f32[1024]")
    assert out.startswith(header("optimized"))
    assert out.count('"kernel.generic"(') == 1
    assert '"math.tanh"' in out and "array.tanh" not in out
    assert "tensor<1024xf32>" in out


def test_a_jitted_function_with_two_arguments(example):
    out = ok(f"{example}:f", "--args", "f32[4x8],f32[4x8]", "--stage", "optimized")
    assert out.count('"kernel.generic"(') == 1
    assert '"math.sin"' in out and "tensor<4x8xf32>" in out


def test_llvm_stages_and_assembly(example):
    stages = ["--stage", "llvm", "--stage", "llvm-opt", "--stage", "asm"]
    out = ok(f"{example}:g", "--args", "f32[1024]", *stages)
    llvm, rest = out.split(header("llvm-opt"))
    llvm_opt, asm = rest.split(header("asm"))
    assert llvm.startswith(header("llvm")) and re.search(r"^define ", llvm, re.M)
    assert re.search(r"^define ", llvm_opt, re.M)
    assert re.search(r"<\d+ x float>", llvm_opt), "the O3 pipeline should vectorise g's loop"
    assert re.search(r"^\s+ret", asm, re.M), "the assembly should hold instructions"


def test_all_prints_every_stage_in_order(example):
    out = ok(f"{example}:g", "--args", "f32[16]", "--stage", "all")
    stages = re.findall(r"^// ===== stage: (\S+) =====$", out, re.M)
    assert stages == ["traced", "optimized", "llvm", "llvm-opt", "asm"]


def test_print_ir_after_all_dumps_after_each_pass(example):
    out = ok(f"{example}:g", "--args", "f32[8]", "--print-ir-after-all")
    assert re.findall(r"IR Dump After (\S+) ", out) == DEFAULT_PASSES
    dumps = out.split("IR Dump After")[1:]
    assert all('"builtin.module"' in d for d in dumps)
    kernelize = DEFAULT_PASSES.index("kernelize")
    assert "array.tanh" in dumps[kernelize - 1] and "kernel.generic" in dumps[kernelize]
    assert out.rstrip().endswith("}) : () -> ()") and header("optimized") in out


def test_pipeline_option_replaces_the_pipeline(example):
    out = ok(f"{example}:g", "--args", "f32[8]", "--pipeline", "canonicalize,kernelize,fuse",
             "--print-ir-after-all")
    assert re.findall(r"IR Dump After (\S+) ", out) == ["canonicalize", "kernelize", "fuse"]
    unfused = ok(f"{example}:g", "--args", "f32[8]", "--pipeline", "canonicalize")
    assert "kernel.generic" not in unfused and "array.tanh" in unfused


def test_timing_prints_the_table(example):
    out = ok(f"{example}:g", "--args", "f32[8]", "--timing", "--stage", "traced")
    assert "Execution time report" in out and "Total Execution Time" in out
    rows = re.findall(r"^\s+\d+\.\d+ \(\s*\d+\.\d%\)\s+(\S+)$", out, re.M)
    assert rows == [*DEFAULT_PASSES, "Total"]
    assert "IR Dump After" not in out


def test_zero_d_and_integer_specs(example):
    out = ok(f"{example}:f", "--args", "f64[]", "--args", "f64[]", "--stage", "traced")
    assert "^bb0(%arg0: tensor<f64>, %arg1: tensor<f64>)" in out
    out = ok(f"{example}:g", "--args", "i64[4x8]", "--stage", "traced")
    assert "^bb0(%arg0: tensor<4x8xi64>)" in out


@pytest.mark.parametrize(
    ("target", "spec", "message"),
    [
        ("g", "f33[4]", "bad argument spec 'f33[4]'"),
        ("g", "f32[4,", "bad argument spec"),
        ("g", "f32[4x]", "bad dimensions '4x'"),
        ("g", "f32(4)", "bad argument spec 'f32(4)'"),
        ("g", "f32[4],f32[4]", "do not fit"),
        ("nope", "f32[4]", "has no attribute 'nope'"),
        ("branchy", "f32[4]", "ConcretizationError"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(example, target, spec, message):
    result = dump_ir(f"{example}:{target}", "--args", spec)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("dump-ir: error: ")
    assert message in result.stderr
    assert result.stdout == ""


def test_missing_file_and_bad_pipeline(tmp_path, example):
    missing = dump_ir(f"{tmp_path / 'missing.py'}:g", "--args", "f32[4]")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = dump_ir(f"{example}:g", "--args", "f32[4]", "--pipeline", "canonicalize,frobnicate")
    assert bad.returncode == 2 and "unknown pass 'frobnicate'" in bad.stderr
    assert "Traceback" not in missing.stderr + bad.stderr


# -- IR in (--ir FILE.mlir), as mlir-opt ---------------------------------------------------------
FUNC = """\
"func.func"() ({{
^bb0(%arg0: tensor<8xf32>):
  %0 = "array.neg"(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "array.exp"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  "func.return"(%1) : (tensor<8xf32>) -> ()
}}) {{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "{name}"}} : () -> ()
"""


@pytest.fixture
def mlir(tmp_path: Path) -> Path:
    path = tmp_path / "two.mlir"
    path.write_text("// first\n" + FUNC.format(name="f") + "// -----\n" + FUNC.format(name="g"))
    return path


def test_ir_in_runs_the_pipeline_and_prints(mlir):
    out = ok("--ir", str(mlir), "--split-input-file", "--pipeline", "canonicalize,kernelize,fuse")
    first, second = out.split("// -----\n")
    for part, name in ((first, "f"), (second, "g")):
        assert part.startswith(header("optimized") + '"builtin.module"() ({')
        assert part.count('"kernel.generic"(') == 1 and "array." not in part
        assert '"arith.negf"' in part and '"math.exp"' in part and f'sym_name = "{name}"' in part


def test_ir_in_without_a_pipeline_prints_the_input_back(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(FUNC.format(name="f"))
    out = ok("--ir", str(path))
    assert out == header("optimized") + '"builtin.module"() ({\n' + "".join(
        f"  {line}\n" for line in FUNC.format(name="f").splitlines()) + "}) : () -> ()\n"


def test_ir_in_llvm_stages_and_instrumentation(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(FUNC.format(name="f"))
    out = ok("--ir", str(path), "--pipeline", "kernelize,fuse,dce", "--stage", "all", "--print-ir-after-all",
             "--timing")
    stages = re.findall(r"^// ===== stage: (\S+) =====$", out, re.M)
    assert stages == ["traced", "optimized", "llvm", "llvm-opt", "asm"]
    assert re.findall(r"IR Dump After (\S+) ", out) == ["kernelize", "fuse", "dce"]
    timed = re.findall(r"^\s+\d+\.\d+ \(\s*\d+\.\d%\)\s+(\S+)$", out, re.M)
    assert timed == ["kernelize", "fuse", "dce", "Total"]
    traced = out.split(header("traced"))[1]
    assert '"array.neg"' in traced.split("// =====")[0]
    assert re.search(r'^define void @"?jit_f_', out, re.M)


@pytest.mark.parametrize(("args", "message"), [
    (["--pipeline", "kernelize,fuse"], "give either path/to/file.py:function or --ir FILE.mlir"),
    (["--ir", "{mlir}", "--args", "f32[8]"], "--args is for a Python function"),
    (["--ir", "{mlir}", "--stage", "llvm", "--pipeline", "kernelize,fuse"],
     "the LLVM stages need one function, this IR has 2"),
    (["--ir", "{mlir}", "--pipeline", "kernelize,fuse,nope"], "unknown pass 'nope'"),
    (["--ir", "{missing}"], "no such file"),
    (["--ir", "{bad}"], "bad.mlir: line 5, column 23: use of undefined value %7"),
    (["--ir", "{invalid}"], "VerificationError: 'array.sin' op"),
    (["{example}:g", "--args", "f32[4]", "--split-input-file"], "--split-input-file goes with --ir"),
])
def test_ir_in_bad_input_is_one_line_and_exit_2(tmp_path, example, mlir, args, message):
    bad = tmp_path / "bad.mlir"
    bad.write_text("\n" + FUNC.format(name="f").replace('"array.exp"(%0)', '"array.exp"(%7)'))
    invalid = tmp_path / "invalid.mlir"
    invalid.write_text(FUNC.format(name="f").replace("f32", "i32").replace('"array.neg"', '"array.sin"'))
    paths = {"mlir": mlir, "missing": tmp_path / "missing.mlir", "bad": bad, "invalid": invalid,
             "example": example}
    result = dump_ir(*(a.format(**paths) for a in args))
    assert result.returncode == 2, result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("dump-ir: error: ")
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
