"""The pass manager: pipeline parsing, verification after each pass, IR dumps and timing."""
# ruff: noqa: E501  (IR text is one op per line, as the printer writes it)

import dataclasses
import re

import pytest

from jitcore import ir
from jitcore.passes import (
    PASSES,
    Pass,
    PassFailure,
    PassManager,
    PipelineError,
    format_pipeline,
    manager,
    parse_pass,
    parse_pipeline,
    register_pass,
)

MODULE = """\
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "array.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "array.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "array.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%1) : (tensor<4xf32>) -> ()
  }) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"} : () -> ()
}) : () -> ()"""

CLEAN = """\
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "array.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%arg0) : (tensor<4xf32>) -> ()
  }) {function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"} : () -> ()
}) : () -> ()"""

CLEANEST = CLEAN.replace('    %0 = "array.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n', "")


class BreakReturn(Pass):
    """Test-only: makes func.return return a value of the wrong type."""

    name = "break-return"

    def run(self, module):
        func = module.regions[0].block.ops[0]
        ret = func.regions[0].block.ops[-1]
        exp = func.regions[0].block.ops[-2]
        cast = ir.Operation.create("array.convert", [exp.result], [ir.parse_type("tensor<4xf64>")])
        func.regions[0].block.insert_before(ret, cast)
        ret.set_operand(0, cast.result)
        return True


class Nothing(Pass):
    name = "nothing"

    def run(self, module):
        return False


def test_parse_pipeline_tolerates_whitespace():
    pipeline = parse_pipeline(" canonicalize ,cse,\tdce ")
    assert [type(p) for p in pipeline] == [PASSES["canonicalize"], PASSES["cse"], PASSES["dce"]]
    assert parse_pipeline("") == []


def test_unknown_pass_lists_known_passes():
    with pytest.raises(PipelineError, match=r"unknown pass 'cse2'.*known passes: .*canonicalize, cse, dce"):
        parse_pipeline("canonicalize,cse2")
    assert issubclass(PipelineError, ir.JitcoreError)


def test_run_returns_the_rewritten_module():
    module = ir.parse(MODULE)
    assert PassManager("canonicalize").run(module) is module
    assert ir.print_op(module) == CLEAN
    assert ir.print_op(PassManager("dce").run(module)) == CLEANEST


def test_print_after_all():
    dumps = []
    PassManager("canonicalize,cse", print_after_all=True, printer=dumps.append).run(ir.parse(MODULE))
    assert dumps == [
        "// -----// IR Dump After canonicalize //----- //\n" + CLEAN,
        "// -----// IR Dump After cse //----- //\n" + CLEAN,
    ]


def test_print_after_change_skips_passes_that_changed_nothing():
    dumps = []
    PassManager([PASSES["canonicalize"](), Nothing(), PASSES["dce"]()], print_after_change=True,
                printer=dumps.append).run(ir.parse(MODULE))
    assert [d.splitlines()[0] for d in dumps] == [
        "// -----// IR Dump After canonicalize //----- //",
        "// -----// IR Dump After dce //----- //",
    ]
    assert dumps[1].endswith(CLEANEST)


def test_default_printer_is_stderr(capsys):
    PassManager("dce", print_after_all=True).run(ir.parse(MODULE))
    assert capsys.readouterr().err.startswith("// -----// IR Dump After dce //----- //\n")


def test_timing_table():
    pm = PassManager("canonicalize,cse,dce", timing=True)
    pm.run(ir.parse(MODULE))
    assert [name for name, _ in pm.timings] == ["canonicalize", "cse", "dce"]
    assert all(seconds >= 0 for _, seconds in pm.timings)
    table = pm.format_timing()
    assert "Execution time report" in table
    assert re.search(r"Total Execution Time: \d+\.\d{4} seconds", table)
    assert "----Wall Time----  ----Name----" in table
    for name in ("canonicalize", "cse", "dce", "Total"):
        assert re.search(rf"^  +\d+\.\d{{4}} \( *\d+\.\d%\)  {name}$", table, re.M), name
    assert re.search(r"\(100\.0%\)  Total$", table)


def test_no_timing_unless_asked():
    pm = PassManager("cse")
    pm.run(ir.parse(MODULE))
    assert pm.timings == []


def test_broken_pass_is_named():
    with pytest.raises(PassFailure, match=r"(?s)pass 'break-return' produced invalid IR.*'func.return' op returns"):
        PassManager([Nothing(), BreakReturn()]).run(ir.parse(MODULE))
    assert issubclass(PassFailure, ir.JitcoreError)


def test_broken_pass_goes_unnoticed_without_verify_each():
    module = PassManager([BreakReturn()], verify_each=False).run(ir.parse(MODULE))
    with pytest.raises(ir.VerificationError):
        ir.verify(module)


def test_invalid_input_is_not_blamed_on_a_pass():
    module = PassManager([BreakReturn()], verify_each=False).run(ir.parse(MODULE))
    with pytest.raises(ir.VerificationError):
        PassManager([Nothing()]).run(module)


def test_passes_keep_no_state():
    pm = PassManager("canonicalize,cse,dce")
    first, second = ir.parse(MODULE), ir.parse(MODULE)
    pm.run(first)
    pm.run(second)
    assert ir.print_op(first) == ir.print_op(second) == CLEANEST


def test_register_pass(monkeypatch):
    monkeypatch.setattr(manager, "PASSES", dict(PASSES))
    assert register_pass(Nothing) is Nothing
    assert [type(p) for p in parse_pipeline("nothing,dce")] == [Nothing, PASSES["dce"]]
    with pytest.raises(PipelineError, match="two passes are named 'dce'"):
        register_pass(type("OtherDCE", (Nothing,), {"name": "dce"}))


class Knobs(Pass):
    """Test-only: one option of each type a pipeline can spell."""

    name = "knobs"
    count: int = 1
    scale: float = 0.5
    strict: bool = False
    mode: str = "fast"

    def run(self, module):
        return False


@pytest.fixture
def knobs(monkeypatch):
    monkeypatch.setattr(manager, "PASSES", dict(PASSES))
    register_pass(Knobs)


def test_options_are_typed_by_their_fields(knobs):
    assert parse_pass("knobs") == Knobs()
    assert parse_pass("knobs{}") == Knobs()
    assert parse_pass("knobs{count=-3, scale=1e-2,strict=true , mode=slow}") == Knobs(-3, 0.01, True, "slow")
    got = parse_pass("knobs{strict=false,count=7}")
    assert (type(got.count), got.count, got.strict) == (int, 7, False)


def test_options_in_a_pipeline_keep_their_commas(knobs):
    pipeline = parse_pipeline("cse, knobs{count=2,mode=x} ,fuse{max-recompute=3},knobs")
    assert pipeline == [PASSES["cse"](), Knobs(count=2, mode="x"), PASSES["fuse"](max_recompute=3), Knobs()]


def test_fuse_recompute_budget_defaults_to_two():
    assert parse_pass("fuse").max_recompute == 2
    assert parse_pass("fuse{max-recompute=0}").max_recompute == 0


def test_passes_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        parse_pass("fuse").max_recompute = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        Nothing().anything = 1  # a pass without options is frozen too


@pytest.mark.parametrize("text, message", [
    ("fuse{max=1}", r"unknown option 'max' of pass 'fuse' in pipeline 'fuse\{max=1\}'; its options: max-recompute, store-shared-math, gemm-epilogue, reduction-epilogue$"),
    ("fuse{max_recompute=1}", r"unknown option 'max_recompute' .*its options: max-recompute, store-shared-math, gemm-epilogue, reduction-epilogue$"),
    ("cse{max-recompute=1}", r"unknown option 'max-recompute' of pass 'cse' .*its options: none$"),
    ("knobs{speed=1}", r"its options: count, scale, strict, mode$"),
    ("fuse{max-recompute=two}", r"option 'max-recompute' of pass 'fuse' in pipeline .*: expected int, got 'two'"),
    ("fuse{max-recompute=2.5}", r"expected int, got '2.5'"),
    ("fuse{max-recompute=}", r"expected int, got ''"),
    ("knobs{scale=half}", r"option 'scale' .*expected float, got 'half'"),
    ("knobs{strict=1}", r"option 'strict' .*expected true or false, got '1'"),
    ("fuse{max-recompute=-1}", r"'max-recompute' of pass 'fuse' must be >= 0, got -1"),
    ("fuse{max-recompute}", r"option 'max-recompute' of pass 'fuse' has no value"),
    ("fuse{max-recompute=1,max-recompute=2}", r"option 'max-recompute' of pass 'fuse' given twice"),
    ("cse,fuse{max-recompute=1", r"unbalanced braces in pipeline 'cse,fuse\{max-recompute=1'"),
    ("fuse}", r"unbalanced braces"),
    ("fuse{a={b=1}}", r"unbalanced braces"),
    ("fuse{max-recompute=1}x", r"cannot parse 'fuse\{max-recompute=1\}x'"),
    ("fuze{max-recompute=1}", r"unknown pass 'fuze' .*known passes: "),
])
def test_bad_options_are_pipeline_errors(knobs, text, message):
    with pytest.raises(PipelineError, match=message):
        parse_pipeline(text)


def test_a_pass_prints_its_non_default_options(knobs):
    assert str(Knobs()) == "knobs"
    assert str(Knobs(count=1, strict=True, scale=2.0)) == "knobs{scale=2.0,strict=true}"
    assert str(PASSES["fuse"](max_recompute=3)) == "fuse{max-recompute=3}"
    text = "cse,knobs{count=4,strict=true,mode=slow},fuse{max-recompute=0},dce"
    assert format_pipeline(parse_pipeline(text)) == text
    assert parse_pipeline(format_pipeline([Knobs(scale=0.1)])) == [Knobs(scale=0.1)]
    assert format_pipeline(parse_pipeline("fuse{max-recompute=2}")) == "fuse"


def test_dumps_and_timings_name_non_default_options():
    dumps = []
    pm = PassManager("kernelize,fuse{max-recompute=3},fuse", timing=True, print_after_all=True,
                     printer=dumps.append)
    pm.run(ir.parse(MODULE))
    assert [d.splitlines()[0] for d in dumps] == [
        "// -----// IR Dump After kernelize //----- //",
        "// -----// IR Dump After fuse{max-recompute=3} //----- //",
        "// -----// IR Dump After fuse //----- //",
    ]
    assert [name for name, _ in pm.timings] == ["kernelize", "fuse{max-recompute=3}", "fuse"]


def test_a_pass_that_changed_nothing_is_not_verified_again():
    # False is the pass's word that the module is as it was, verified already; anything else
    # (True, or a pass that returns nothing) is verified.
    class BreakSilently(BreakReturn):
        name = "break-silently"

        def run(self, module):
            super().run(module)
            return False

    class BreakReturningNone(BreakReturn):
        name = "break-returning-none"

        def run(self, module):
            super().run(module)

    with pytest.raises(ir.VerificationError):
        ir.verify(PassManager([BreakSilently()]).run(ir.parse(MODULE)))
    with pytest.raises(PassFailure, match="break-returning-none"):
        PassManager([BreakReturningNone()]).run(ir.parse(MODULE))


def _programs():
    """Traced functions that give each pass of the default pipeline work to do and none: chains,
    broadcasts, reductions, scans, contractions with epilogues, views, selections, sorts,
    in-place updates, loops and branches on traced values."""
    import numpy as np

    import jitcore as jc

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((5, 7)), rng.standard_normal(7).astype(np.float32)
    m, i = rng.standard_normal((7, 4)), np.arange(12, dtype=np.int32).reshape(3, 4)

    def softmax(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def loop(x):
        s = x[0] * 0
        for k in range(x.shape[0]):
            if s.sum() > 1:
                s = s - x[k]
            else:
                s = s + x[k] * 2
        return s

    def inplace(x):
        x[1:, ::2] += 1
        x[x < 0] = 0
        return x

    cases = [
        (lambda x, y: np.sqrt(np.abs(x * 2 + y)) - (x * 2 + y), (x, y)),
        (lambda x, y: (x + 0.0) * 1 - y.astype(np.float64).T @ y.astype(np.float64), (x, y)),
        (softmax, (x,)),
        (lambda x, m: np.maximum(x @ m + 1, 0), (x, m)),
        (lambda x: (np.cumsum(x, axis=0), np.argmax(x, axis=1), x.T.sum(axis=0)), (x,)),
        (lambda x: (np.sort(x, axis=1), np.median(x), np.flip(x, 0)[::2, 1:].mean()), (x,)),
        (lambda i: (i // 3, i % -2, np.where(i > 4, i, -i), i[:, [0, 2]], i.reshape(4, 3)), (i,)),
        (lambda x, i: (np.einsum("ij,jk->ik", x[:4, :3], i.astype(x.dtype)), x[i[0] % 5]), (x, i)),
        (lambda x, m: np.moveaxis(np.tensordot(m[:2, :3], x.reshape(5, 1, 7)[:, :, :3], ([1], [2])), 0, 1),
         (x, m)),
        (loop, (x,)),
        (inplace, (x.copy(),)),
        (lambda x: jc.fori_loop(0, 3, lambda k, s: s * 2 + x, x), (x,)),
    ]
    for fn, args in cases:
        yield jc.jit(fn, cache=False).lower(*args).traced


def test_every_pass_that_says_it_changed_nothing_changed_nothing():
    # The pass manager verifies only after a pass that changed the module: a pass returning
    # False after a rewrite would hide an invalid module from the verifier (and from
    # print_after_change), so each pass of both default pipelines is held to its False here.
    from jitcore import compiler

    runs = {}
    for traced in _programs():
        for pipeline in (compiler.DEFAULT_PIPELINE, compiler.RECOMPUTING_PIPELINE):
            module = traced.clone({})
            # Twice: the second time over kernels, where kernelize and fuse find nothing to do.
            for p in parse_pipeline(pipeline) * 2:
                before = ir.print_op(module)
                changed = p.run(module)
                assert changed is True or changed is False, f"{p} returned {changed!r}"
                if not changed:
                    assert ir.print_op(module) == before, f"{p} changed the module and returned False"
                runs[p.name, changed] = runs.get((p.name, changed), 0) + 1
            ir.verify(module)
    # The corpus reaches both answers of every pass of the pipeline (else a pass's False is
    # never held to anything).
    assert {name for name, changed in runs if changed} == set(PASSES)
    assert {name for name, changed in runs if not changed} == set(PASSES)
