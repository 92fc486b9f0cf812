"""The FileCheck matcher and the .mlir collector: checks that must hold do, and checks that must
fail do fail, with a report that names the check, its line and the output near it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.filecheck.filecheck import Check, CheckFailure, match, run_case, split_cases

REPO = Path(__file__).resolve().parents[2]
OUTPUT = """\
%0 = "kernel.generic"(%arg0) ({
^bb0(%arg1: f32):
  %1 = "math.exp"(%arg1) : (f32) -> f32
  %2 = "arith.addf"(%1, %1) : (f32, f32) -> f32
  "kernel.yield"(%2) : (f32) -> ()
})
%3 = "kernel.generic"(%0) ({
^bb0(%arg2: f32):
  %4 = "arith.negf"(%arg2) : (f32) -> f32
  "kernel.yield"(%4) : (f32) -> ()
})
"""


def checks(text: str) -> list[Check]:
    """``CHECK-x: pattern`` lines, numbered from 1."""
    out = []
    for n, line in enumerate(textwrap.dedent(text).strip().splitlines(), 1):
        kind, _, pattern = line.partition(":")
        out.append(Check(kind.strip(), pattern.strip(), n))
    return out


def fails(text: str, output: str = OUTPUT) -> str:
    with pytest.raises(CheckFailure) as e:
        match(checks(text), output, "t.mlir")
    return str(e.value)


def test_checks_that_hold():
    match(checks("""
        CHECK: [[K:%[0-9]+]] = "kernel.generic"(%arg0)
        CHECK-SAME: ({
        CHECK-NEXT: ^bb0([[X:%arg[0-9]+]]: f32):
        CHECK-NOT: "arith.negf"
        CHECK: [[E:%[0-9]+]] = "math.exp"([[X]])
        CHECK-NEXT: "arith.addf"([[E]], [[E]]) : (f32,   f32) -> f32
        CHECK: "kernel.generic"([[K]])
        CHECK: "arith.negf"({{%arg[0-9]}})
    """), OUTPUT)


def test_a_missing_pattern_fails_with_its_line_and_the_output_near_the_search_point():
    report = fails("""
        CHECK: "math.exp"
        CHECK: "math.log"
    """)
    assert report.startswith('t.mlir:2: CHECK: "math.log"\nexpected text not found')
    assert '>    4 |   %2 = "arith.addf"' not in report  # the search point is after the exp
    assert '>    3 |   %1 = "math.exp"(%arg1)' in report


def test_check_next_must_be_on_the_following_line():
    assert "not on the line after" in fails("""
        CHECK: "math.exp"
        CHECK-NEXT: "kernel.yield"
    """)
    assert "not on the line after" in fails("""
        CHECK: %1 =
        CHECK-NEXT: "math.exp"
    """)
    fails("CHECK-NEXT: %0")  # nothing before it to follow


def test_check_same_must_be_on_the_same_line():
    match(checks('CHECK: "math.exp"\nCHECK-SAME: -> f32'), OUTPUT)
    assert "not on the line of the previous match" in fails("""
        CHECK: "math.exp"
        CHECK-SAME: "arith.addf"
    """)


def test_check_not_between_matches_and_at_the_end():
    assert "excluded text found" in fails("""
        CHECK: "kernel.generic"(%arg0)
        CHECK-NOT: "arith.addf"
        CHECK: "kernel.yield"
    """)
    match(checks("""
        CHECK: "arith.addf"
        CHECK-NOT: "math.exp"
        CHECK: "kernel.yield"
    """), OUTPUT)
    assert "excluded text found" in fails("""
        CHECK: "math.exp"
        CHECK-NOT: "arith.negf"
    """)


def test_labels_confine_checks_to_their_block():
    match(checks("""
        CHECK-LABEL: "kernel.generic"(%arg0)
        CHECK: "arith.addf"
        CHECK-LABEL: "kernel.generic"(%0)
        CHECK: "arith.negf"
    """), OUTPUT)
    # negf is only in the second block: not found in the first.
    assert "expected text not found" in fails("""
        CHECK-LABEL: "kernel.generic"(%arg0)
        CHECK: "arith.negf"
        CHECK-LABEL: "kernel.generic"(%0)
    """)
    assert "label not found" in fails('CHECK-LABEL: "kernel.generic"(%9)')


def test_variables_are_local_to_a_label_block():
    report = fails("""
        CHECK-LABEL: "kernel.generic"(%arg0)
        CHECK: ^bb0([[X:%arg[0-9]+]]: f32)
        CHECK-LABEL: "kernel.generic"(%0)
        CHECK: "arith.negf"([[X]])
    """)
    assert "undefined variable [[X]]" in report
    assert "cannot define variables" in fails('CHECK-LABEL: [[K:%[0-9]+]] = "kernel.generic"')


def test_a_used_variable_must_match_its_captured_text():
    report = fails("""
        CHECK: [[E:%[0-9]+]] = "math.exp"
        CHECK: "kernel.yield"([[E]])
    """)
    assert "[[E]] = '%1'" in report
    # Defined and used on one line: a back-reference.
    match(checks('CHECK: "arith.addf"([[A:%[0-9]+]], [[A]])'), OUTPUT)
    fails('CHECK: "math.exp"([[A:%[a-z0-9]+]]) : ([[A]])')


def test_literal_text_is_not_a_regex_and_spaces_are_flexible():
    fails('CHECK: "math.exp"(.*)')  # parentheses, dot and star are literal
    match(checks('CHECK: "arith.addf"(%1,%1)'.replace(",", ", ")), OUTPUT)
    match(checks("CHECK: (f32,    f32)"), OUTPUT)
    fails("CHECK: (f32,f32)")  # a space in the output must match some space in the check


def test_line_expressions():
    match([Check("CHECK", "line [[@LINE+2]] and [[@LINE-1]]", 10)], "at line 12 and 9")
    with pytest.raises(CheckFailure):
        match([Check("CHECK", "line [[@LINE]]", 10)], "at line 11")


def test_split_cases_numbers_lines_from_the_file():
    source = textwrap.dedent("""\
        // RUN: kernelize
        // CHECK: a
        x
        // -----
        // RUN: canonicalize, cse
        // CHECK-NOT: b
        // CHECK-NEXT: c
    """)
    first, second = split_cases(source, "f.mlir")
    assert (first.line, first.pipeline) == (1, "kernelize")
    assert [(c.kind, c.line) for c in first.checks] == [("CHECK", 2)]
    assert second.line == 5 and second.pipeline == "canonicalize, cse"
    found = [(c.kind, c.pattern, c.line) for c in second.checks]
    assert found == [("CHECK-NOT", "b", 6), ("CHECK-NEXT", "c", 7)]
    assert second.text.count("\n", 0, second.text.index("// RUN")) == 4  # padded to its file line


@pytest.mark.parametrize(("source", "message"), [
    ("// CHECK: a\n", "f.mlir:1: case has no RUN line"),
    ("// RUN: kernelize\n// CHECK-NOT: a\n", "no positive CHECK line"),
    ("// RUN: kernelize\n// CHECK: a\n// RUN: cse\n", "f.mlir:3: a second RUN line"),
    ("// RUN: kernelize\n// CHECK-NXT: a\n", "f.mlir:2: unknown directive CHECK-NXT"),
    ("// RUN: kernelize\n// CHECK: a\n// -----\n// RUN: kernelize\n// CHECK-EROR: a\n",
     "f.mlir:5: unknown directive"),
])
def test_malformed_files_are_refused(source, message):
    with pytest.raises(CheckFailure, match=message):
        split_cases(source, "f.mlir")


FUNCTION = """
"func.func"() ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"} : () -> ()
"""


def test_run_case_runs_the_pipeline_on_a_bare_function():
    (case,) = split_cases('// RUN: kernelize\n// CHECK: "arith.negf"' + FUNCTION, "f.mlir")
    run_case(case)
    (case,) = split_cases('// RUN: canonicalize\n// CHECK: "arith.negf"' + FUNCTION, "f.mlir")
    with pytest.raises(CheckFailure, match="expected text not found"):
        run_case(case)


def test_check_error_needs_an_error_and_other_errors_propagate():
    (case,) = split_cases("// RUN: kernelize\n// CHECK-ERROR: anything" + FUNCTION, "f.mlir")
    with pytest.raises(CheckFailure, match="expected an error, but the pipeline succeeded"):
        run_case(case)
    broken = FUNCTION.replace('"func.return"(%0)', '"func.return"(%5)')
    (case,) = split_cases('// RUN: kernelize\n// CHECK: "arith.negf"' + broken, "f.mlir")
    with pytest.raises(Exception, match="use of undefined value %5"):
        run_case(case)
    (case,) = split_cases("// RUN: kernelize\n// CHECK-ERROR: VerificationError" + broken, "f.mlir")
    with pytest.raises(CheckFailure, match="expected text not found"):
        run_case(case)
    (case,) = split_cases("// RUN: kernelize\n// CHECK-ERROR: a\n// CHECK: b" + broken, "f.mlir")
    with pytest.raises(CheckFailure, match="cannot mix"):
        run_case(case)


def test_the_collector_reports_a_failing_case_by_name_line_and_output(tmp_path):
    (tmp_path / "demo.mlir").write_text(
        '// RUN: kernelize\n// CHECK: "arith.negf"' + FUNCTION
        + '// -----\n// RUN: kernelize\n// CHECK: "arith.subf"' + FUNCTION.replace('"f"', '"g"'))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.filecheck.conftest", "-q", "-p", "no:cacheprovider",
         str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed, 1 passed" in result.stdout
    assert "FAILED demo.mlir::g" in result.stdout
    assert 'demo.mlir:10: CHECK: "arith.subf"\nexpected text not found' in result.stdout
    assert '>    1 | "builtin.module"() ({' in result.stdout  # the output near the search point
