"""Kernels of one function whose LLVM code comes out the same share one function
(``codegen/cpu/same_code.py``); kernels that differ in anything but their names do not."""

from __future__ import annotations

import re

import numpy as np

import jitcore as jc
from tests.oracle import assert_matches


def _defined_kernels(plan) -> list[str]:
    """The kernel functions that the plan's LLVM module defines (not the row-group wrappers,
    nor the start-shifting functions that call a kernel shared by start, shared_kernels.py)."""
    names = []
    for chunk in plan.llvm_ir.split("\ndefine")[1:]:
        name = re.match(r'[^@]*@"?([^"(]+)', chunk).group(1)
        body = chunk.split("\n}", 1)[0]
        shifts = not name.endswith("_shared") and '_shared"(' in body
        if re.search(r"_k\d+(_shared)?$", name) and not shifts:
            names.append(name)
    return names


def test_the_same_code_twice_is_one_function():
    """Two launches of one kernel text (the same step on two arrays) call one function, kept
    out of line, and each still computes its own result."""
    def twice(x, y):
        return np.sqrt(x) + 1.0, np.sqrt(y) + 1.0

    x, y = np.linspace(0, 3, 1000), np.linspace(2, 7, 1000)
    jitted = jc.jit(twice, cache=False)
    plan = jitted.lower(x, y).plan()
    assert len(plan.launches) == 2
    (shared,) = _defined_kernels(plan)
    assert re.search(rf'define[^\n]*@"?{re.escape(shared)}"?\([^\n]*noinline', plan.llvm_ir), plan.llvm_ir
    for got, want in zip(jitted(x, y), twice(x, y)):
        assert_matches(got, want, 0)


def test_kernels_that_call_other_functions_stay_apart():
    """float16 floor and ceil differ only in the intrinsic each declares (``llvm.floor.f16``,
    ``llvm.ceil.f16``): a name that says what a function is, never blanked."""
    def rounded(x, y):
        return np.floor(x), np.ceil(y)

    x = (np.linspace(-4, 4, 999) + 0.25).astype(np.float16)
    jitted = jc.jit(rounded, cache=False)
    assert len(_defined_kernels(jitted.lower(x, x).plan())) == 2
    for got, want in zip(jitted(x, x), rounded(x, x)):
        assert_matches(got, want, 0)


def test_bluestein_transforms_share_their_stages():
    """Bluestein's two transforms of the convolution's length run the same stages (their
    twiddles are operands): a prime length compiles about half the kernels it launches."""
    n = 1009
    x = np.random.default_rng(32).standard_normal(n) + 1j
    jitted = jc.jit(np.fft.fft, cache=False)
    plan = jitted.lower(x).plan()
    kernels = _defined_kernels(plan)
    assert 0 < len(kernels) < 0.7 * len(plan.launches), (len(plan.launches), kernels)
    want = np.fft.fft(x)
    assert np.linalg.norm(jitted(x) - want) <= 4 * np.finfo(float).eps * np.log2(n) * np.linalg.norm(want)
