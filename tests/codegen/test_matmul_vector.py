"""Matrix-vector products as jitcore's own kernel (codegen/cpu/matvec.py), against NumPy: each
orientation and loop order, tails of k and of the output, size-generic reuse, NaN and inf, the
same bits on any thread count, and the operands it leaves to BLAS."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore
from jitcore import compiler, config
from jitcore.codegen.backend import backend_for
from jitcore.codegen.contraction import match_contraction
from jitcore.codegen.cpu import blas, matvec
from jitcore.codegen.plan import LowerOptions
from jitcore.dispatch import ARRAY_HEADER
from jitcore.ir import layout_class
from tests.budget import examples

# (function, whether the vector is the first argument's rows' length, loop order the kernel takes)
FORMS = {
    "A@x": (lambda a, x: a @ x, "dot"),
    "x@A.T": (lambda a, x: x @ a.T, "dot"),
    "dot(A,x)": (lambda a, x: np.dot(a, x), "dot"),
    "einsum ij,j": (lambda a, x: np.einsum("ij,j->i", a, x), "dot"),
    "A.T@x": (lambda a, x: a.T @ x, "axpy"),
    "x@A": (lambda a, x: x @ a, "axpy"),
}
JITTED = {(form, dtype): jitcore.jit(FORMS[form][0]) for form in FORMS for dtype in ("float32", "float64")}


def operands(rng, form: str, rows: int, cols: int, dtype):
    a = rng.standard_normal((rows, cols)).astype(dtype)
    length = rows if FORMS[form][1] == "axpy" else cols
    return a, rng.standard_normal(length).astype(dtype)


def check(form: str, a, x) -> None:
    got = JITTED[form, a.dtype.name](a, x)
    want = FORMS[form][0](a.astype(np.float64), x.astype(np.float64))
    assert got.dtype == a.dtype and got.shape == want.shape
    depth = x.shape[0]
    bound = depth * np.finfo(a.dtype).eps * (np.abs(a).max() * np.abs(x).max() * depth + 1e-30)
    assert np.abs(got - want).max() <= bound, (form, a.shape)


def kernel_form(fn, *args) -> str | None:
    """The loop order matvec.py takes for ``fn``'s one kernel, or None (not its kernel)."""
    module = compiler.optimize(jitcore.make_ir(fn)(*args), compiler.CompileOptions())
    (func,) = module.functions()
    (op,) = [op for op in func.body.ops if op.op_name == "kernel.generic"]
    found = matvec.match_matvec(op, match_contraction(op), [False] * 3)
    return None if found is None else found.form


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_takes_its_loop_order(form):
    a, x = operands(np.random.default_rng(0), form, 24, 40, np.float32)
    assert kernel_form(FORMS[form][0], a, x) == FORMS[form][1]


def test_the_plan_calls_no_library():
    a, x = np.ones((64, 48), np.float64), np.ones(48, np.float64)
    module = compiler.optimize(jitcore.make_ir(FORMS["A@x"][0])(a, x), compiler.CompileOptions())
    (func,) = module.functions()
    plan = backend_for("cpu").lower(func, (layout_class.C,) * 2, LowerOptions(header=ARRAY_HEADER))
    assert all(not launch.calls for launch in plan.launches)


# Every tail: k and the output below, at and past a vector of either width (16 float32 lanes
# on AVX-512, 4 float64 on SSE), a row group (4 or 8 rows) and a block (128 outputs).
EDGES = [(1, 2), (2, 1), (3, 5), (7, 17), (8, 16), (9, 33), (31, 64), (65, 3), (129, 100), (300, 257)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_edges_against_numpy(form, dtype):
    rng = np.random.default_rng(1)
    for rows, cols in EDGES:  # one jitted function per form: its size-generic kernel
        check(form, *operands(rng, form, rows, cols, dtype))


@settings(max_examples=examples(30, 10), deadline=None)
@given(form=st.sampled_from(sorted(FORMS)), rows=st.integers(1, 700), cols=st.integers(1, 700),
       dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2**16))
def test_random_shapes_against_numpy(form, rows, cols, dtype, seed):
    check(form, *operands(np.random.default_rng(seed), form, rows, cols, dtype))


@pytest.mark.parametrize("form", ["A@x", "x@A"])
def test_nan_inf_and_signed_zero_as_numpy(form):
    a = np.zeros((37, 21))
    a[3, 4], a[10, :] = np.nan, -0.0
    a[20, 7], a[21, 8] = np.inf, -np.inf
    x = np.ones(21 if form == "A@x" else 37)
    x[8] = 0.0  # inf * 0: NaN where it meets
    for dtype in (np.float32, np.float64):
        aa, xx = a.astype(dtype), x.astype(dtype)
        np.testing.assert_array_equal(JITTED[form, np.dtype(dtype).name](aa, xx), FORMS[form][0](aa, xx))


@pytest.mark.parametrize("form", ["A@x", "A.T@x"])
def test_same_bits_on_one_and_three_threads(form):
    rng = np.random.default_rng(2)
    a, x = operands(rng, form, 1100, 333, np.float32)  # several blocks of outputs
    fn = jitcore.jit(FORMS[form][0])
    results = []
    for threads in (1, 3):
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            results.append(fn(a, x))
    np.testing.assert_array_equal(results[0], results[1])
    check(form, a, x)


def test_block_cut_covers_the_output_in_whole_units():
    for out in (1, 7, 128, 129, 1000, 4096, 100003):
        for unit in (4, 8, 16):
            size, count = matvec.block_cut(out, unit)
            assert size % unit == 0 and (count - 1) * size < out <= count * size
            assert count <= matvec.split_chunks() * matvec.BLOCKS_PER_THREAD


@pytest.mark.parametrize("view", ["columns ::2", "negative rows", "fortran"])
def test_strided_and_transposed_operands(view):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((90, 140))
    a = {"columns ::2": base[:, ::2], "negative rows": base[::-1], "fortran": np.asfortranarray(base)}[view]
    x = rng.standard_normal(a.shape[1])
    got = jitcore.jit(lambda a, x: a @ x)(a, x)
    np.testing.assert_allclose(got, a @ x, rtol=1e-12, atol=1e-12)


def test_without_blas_the_kernel_still_runs(monkeypatch):
    monkeypatch.setattr(blas, "library", lambda: None)
    rng = np.random.default_rng(4)
    a, x = rng.standard_normal((77, 50)).astype(np.float32), rng.standard_normal(77).astype(np.float32)
    got = jitcore.jit(lambda a, x: x @ a, cache=False)(a, x)
    np.testing.assert_allclose(got, x @ a, rtol=1e-5, atol=1e-4)
