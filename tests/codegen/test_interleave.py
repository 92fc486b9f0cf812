"""Interleaved math loops (codegen/cpu/cost.py ``interleave``): the innermost parallel loop of a
body that calls the math library asks LLVM to interleave ``MATH_INTERLEAVE`` iterations of its
vector loop, unless it is known to be short; arithmetic, copies and reduced rows are left to
LLVM (a reduced row of math computes its groups side by side instead, ``reduction.py``). The
hint changes the schedule only: results are the same bits with it and without."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import cost, reduction, target

HINT = re.compile(r'!"llvm\.loop\.interleave\.count", i32 (\d+)')
LONG = cost.INTERLEAVE_MIN_TRIP + 37  # not a multiple of any vector width
rng = np.random.default_rng(11)


def _hints(fn, *args) -> list[int]:
    text = jc.jit(fn).lower(*args).as_text("llvm")
    return [int(n) for n in HINT.findall(text)]


@pytest.mark.parametrize("fn, shapes, hinted", [
    (lambda x: np.exp(x), [(LONG,)], True),
    (lambda x: np.exp(x), [(LONG, 300)], True),  # one flat loop
    (lambda x, y: np.tanh(x[:, None] - y), [(3,), (LONG,)], True),
    (lambda x, y: np.exp(x[:, None] - y), [(LONG,), (300,)], True),  # a run-time row length
    (lambda x: np.exp(x[:, None] - np.arange(300, dtype=x.dtype)), [(LONG,)], False),  # rows known short
    (lambda x: x * 2 + 1, [(LONG,)], False),  # arithmetic: LLVM's own choice
    (lambda x: np.sqrt(np.abs(x)), [(LONG,)], False),  # cheap math ops are arithmetic
    (lambda x: np.roll(x, 5), [(LONG,)], False),
])
def test_only_long_math_loops_are_hinted(fn, shapes, hinted):
    args = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    assert _hints(fn, *args) == ([cost.MATH_INTERLEAVE] if hinted else [])


def test_a_reduced_row_of_math_computes_its_groups_side_by_side():
    """A sum's row of math-library calls: its parallel loop is not hinted (the row is reduced),
    but a block's groups are computed ``SIDE_BY_SIDE`` at a time (``reduction._Cascade._groups``),
    and where the body's calls would spill unrolled (float64 exp and log), the whole block in
    a loop of ``MATH_INTERLEAVE`` vectors that is not unrolled."""
    x = rng.standard_normal((2, LONG)).astype(np.float32)
    assert _hints(lambda x: np.sum(np.log(np.abs(x) + 1), -1), x) == [reduction.SIDE_BY_SIDE]
    text = jc.jit(lambda x: np.sum(np.log(np.exp(x)), -1)).lower(x.astype(np.float64)).as_text("llvm")
    assert [int(n) for n in HINT.findall(text)] == [cost.MATH_INTERLEAVE]
    assert '!"llvm.loop.unroll.disable"' in text
    # (float32's row: NumPy's pairwise order since session 46, whose node loops are not unrolled
    # either, so the float32 text is not compared)
    assert _hints(lambda x: np.sum(np.abs(x) + 1, -1), x) == []  # arithmetic: one group at a time


def test_calls_that_keep_many_values_live_run_fewer_vectors_side_by_side():
    """cost.NARROW_INTERLEAVE: float64 pow (without its AVX-512 variant), cbrt, float32
    arccos and float64 sin and cos at two, float32 pow, float64 arccos and float32 sin at
    MATH_INTERLEAVE, and a body with both the least of its calls' counts, in elementwise and
    reduced rows alike."""
    x64, x32 = np.ones(LONG), np.ones(LONG, np.float32)
    assert _hints(lambda x: x ** x, x64) == [cost.MATH_INTERLEAVE if "avx512" in target.math_isa() else 2]
    assert _hints(lambda x: x ** x, x32) == [cost.MATH_INTERLEAVE]
    assert _hints(lambda x: np.cbrt(x), x32) == [2]
    assert _hints(lambda x: np.arccos(x), x32) == [2]
    assert _hints(lambda x: np.arccos(x), x64) == [cost.MATH_INTERLEAVE]
    assert _hints(lambda x, y: np.sin(x + y), x64, x64) == _hints(lambda x: np.cos(x), x64) == [2]
    assert _hints(lambda x: np.sin(x), x32) == [cost.MATH_INTERLEAVE]
    assert _hints(lambda x: np.exp(x) + np.cbrt(x), x64) == [2]
    assert _hints(lambda x: np.sum(np.cbrt(x) * np.exp(x)), x64) == [2]  # a reduced block


def test_the_loop_id_refers_to_itself():
    text = jc.jit(lambda x: np.log(x)).lower(np.ones(LONG, np.float64)).as_text("llvm")
    (loop,) = re.findall(r"!llvm\.loop (!\d+)", text)
    node = re.search(rf"^{loop} = !{{ (.*) }}$", text, re.MULTILINE).group(1)
    first, hint, *_ = node.split(", ")  # then the remainder's follow-up (loops.REMAINDER_HINTS)
    assert first == loop and HINT.search(re.search(rf"^{hint} = (.*)$", text, re.MULTILINE).group(1))


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sin", "arcsinh", "cbrt"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interleaving_keeps_the_bits(name, dtype, monkeypatch):
    x = (rng.standard_normal(LONG) * 4).astype(dtype)
    if name == "log":
        x = np.abs(x)
    x[:5] = [0.0, -0.0, np.inf, np.nan, 1e-30]
    fn = getattr(np, name)
    hinted = jc.jit(lambda a: fn(a))(x)
    monkeypatch.setattr(cost, "MATH_INTERLEAVE", 0)
    plain = jc.jit(lambda a: fn(a))
    assert _hints(plain, x) == []
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(hinted.view(np.uint8), plain(x).view(np.uint8))
