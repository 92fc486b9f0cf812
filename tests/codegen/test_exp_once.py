"""Softmax computes ``exp`` once per element (issue 10): ``fuse`` keeps ``exp(x - max)`` apart
rather than recomputing it in the row sum and in the quotient (``passes/fuse.py``,
``_shared_by_row_reduction``), and the CPU's row groups store it in the quotient's output
buffer, which the sum reads and the quotient divides in place (``codegen/cpu/rowwise.py``,
``share_outputs``). The bits are those of the recomputing pipeline
(``fuse{store-shared-math=false}``), grouped or not, on any number of threads, NaN and
infinite rows included."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen import host
from jitcore.codegen.cpu import rowwise, runtime
from jitcore.compiler import DEFAULT_PIPELINE
from tests.budget import examples

RECOMPUTING = DEFAULT_PIPELINE.replace(",fuse,", ",fuse{store-shared-math=false},")


def softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def log_softmax(x):
    m = np.max(x, axis=1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))


def centred_tanh(x):  # a user's row kernel of the same pattern: tanh, its row mean, the difference
    t = np.tanh(x * 0.5)
    return t - t.mean(axis=1, keepdims=True)


def softmax_and_exp(x):  # the exponentials are an output too: stored, never shared
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e, e / np.sum(e, axis=1, keepdims=True)


FUNCTIONS = [softmax, log_softmax, centred_tanh, softmax_and_exp]
# Jitted once per function, pipeline and grouping (the in-memory cache's key does not hold the
# split threshold): a new shape retraces and reuses the size-generic code.
JITTED = {(fn, pipeline, grouped): jc.jit(fn, pipeline=pipeline)
          for fn in FUNCTIONS for pipeline in (DEFAULT_PIPELINE, RECOMPUTING) for grouped in (False, True)}


def _kernels_with_exp(fn, x, **jit_kwargs) -> int:
    """How many kernel functions of the emitted LLVM IR evaluate ``exp``: the math library's
    ``exp`` rounds ``x / ln 2`` to an integer (``llvm.rint``), which nothing else in softmax
    does, or, where the host has AVX-512, calls its vector-variant function (mathlib.ISA_FUNCTIONS).
    Counted per kernel, not per call site, so the vector width does not matter."""
    text = jc.jit(fn, **jit_kwargs).lower(x).as_text("llvm")
    kernels = [f for f in re.split(r"\ndefine ", text) if re.match(r'internal void @"jit_\w+_k\d+"', f)]
    return sum(bool(re.search(r'llvm\.rint\.|call \w+ @"jitcore_math_\w+?_exp_f', f)) for f in kernels)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_evaluates_exp_in_one_kernel(dtype):
    x = np.zeros((8, 33), dtype)
    optimized = jc.jit(softmax).lower(x).as_text("optimized")
    assert optimized.count('"math.exp"') == 1
    assert jc.jit(softmax, pipeline=RECOMPUTING).lower(x).as_text("optimized").count('"math.exp"') == 2
    assert _kernels_with_exp(softmax, x) == 1
    assert _kernels_with_exp(softmax, x, pipeline=RECOMPUTING) == 2


def test_exp_lives_in_the_output_buffer_of_a_row_group(monkeypatch):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    plan = jc.jit(softmax).lower(np.zeros((40, 30), np.float32)).plan()
    (output, _), = plan.outputs
    exp_kernel, total, quotient = plan.launches[1:]
    assert exp_kernel.operands[-1] == output  # exp(x - max) written where the quotient goes,
    assert total.operands[0] == output  # summed from there,
    assert quotient.operands[0] == quotient.operands[-1] == output  # and divided in place
    assert sum(shape == (40, 30) for shape, _ in plan.buffers) == 1  # no other full-size buffer


def test_not_grouped_the_exp_is_a_buffer_of_its_own(monkeypatch):
    # Only fixed-size code leaves a small group out: a size-generic one is a group at any size.
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 10**12)
    plan = jc.jit(softmax).lower(np.zeros((40, 30), np.float32)).plan()
    assert sum(shape == (40, 30) for shape, _ in plan.buffers) == 2


def _rows(draw_rows, cols, dtype, seed, special):
    x = (np.random.default_rng(seed).standard_normal((draw_rows, cols)) * 8).astype(dtype)
    if special and draw_rows > 1:
        x[0, ::3] = np.nan
        x[1 % draw_rows, cols // 2] = np.inf
        x[draw_rows - 1] = -np.inf  # every element -inf: max - max is NaN
    return x


def _arrays(result) -> list:
    return list(result) if isinstance(result, tuple) else [result]


def _same_bits(a, b) -> bool:
    a, b = _arrays(a), _arrays(b)
    return len(a) == len(b) and all(u.dtype == v.dtype and u.shape == v.shape
                                    and u.tobytes() == v.tobytes() for u, v in zip(a, b))


@settings(max_examples=examples(12, ci=8), deadline=None)
@given(fn=st.sampled_from(FUNCTIONS), dtype=st.sampled_from([np.float32, np.float64]),
       rows=st.integers(1, 23), cols=st.sampled_from([1, 2, 7, 31, 64, 129]),
       seed=st.integers(0, 2**32 - 1), special=st.booleans(), grouped=st.booleans(),
       threads=st.sampled_from([1, 2]))
def test_exp_once_gives_the_recomputed_bits(fn, dtype, rows, cols, seed, special, grouped, threads):
    x = _rows(rows, cols, dtype, seed, special)
    with pytest.MonkeyPatch.context() as patch:
        if grouped:  # groups at any size, blocks of a few rows, chunks across blocks
            patch.setattr(runtime, "MIN_SPLIT_WORK", 0)
            patch.setattr(rowwise, "ROW_BLOCK_BYTES", 3 * 8 * 7)
        else:  # fixed-size code below the threshold: no group (a size-generic one groups)
            patch.setattr(host, "SIZE_GENERIC", False)
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=5):
            got = JITTED[fn, DEFAULT_PIPELINE, grouped](x)
            expected = JITTED[fn, RECOMPUTING, grouped](x)
    assert _same_bits(got, expected)
    with np.errstate(all="ignore"):
        oracle = fn(x)
    tolerance = 1e-5 if dtype == np.float32 else 1e-13
    for g, o in zip(_arrays(got), _arrays(oracle)):
        np.testing.assert_allclose(g, o, rtol=tolerance, atol=tolerance)
