"""Windows in loops cost their window (session 49): a loop that reads and writes a small window
of a large carried array (``img[0, x + 1] += img[0, x] * 0.5``, a pixel's RGB row) writes it in
the carried buffer (``codegen/host.py``, ``_points_own_elements``), not a copy of the whole
array per step. NumPy running the same Python is the oracle: values, dtypes, Python types, the
arguments after the call and the errors raised."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.plan import Copy, ForLoop, Run
from tests.jit_once import jit_once


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def outcome(f, *args):
    """``(result, error type, error text, arguments after the call)`` of ``f(*args)``."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), None, None, args
    except (IndexError, ValueError) as e:
        return None, type(e), str(e), args


def check(f, *args, text=True):
    want, want_err, want_text, want_args = outcome(f, *args)
    got, got_err, got_text, got_args = outcome(jit_once(f), *args)
    assert got_err is want_err, (got_err, want_err, got_text, want_text)
    if text:
        assert got_text == want_text, (got_text, want_text)
    if want_err is None:
        same(got, want)
        for a, b in zip(got_args, want_args):
            if isinstance(b, np.ndarray):
                same(a, b)


def _plan_loop(f, *args):
    plan = jc.jit(f).lower(*args).plan()
    loops = [s for s in plan.program if isinstance(s, ForLoop)]
    assert len(loops) == 1, [type(s).__name__ for s in plan.program]
    (loop,) = loops
    carried = {s.target for s in plan.program[:plan.program.index(loop)] if isinstance(s, Copy)}
    launches = [plan.launches[s.launch] for s in loop.body if isinstance(s, Run)]
    return loop, carried, launches


def _writes_in_place(f, *args) -> bool:
    """Whether some kernel of ``f``'s loop writes its result in the carried buffer it reads
    (the window written in place), and no step copies a whole array."""
    loop, carried, launches = _plan_loop(f, *args)
    results = [[s for s in la.operands if s.kind != "status"][-la.results:] for la in launches]
    return (any(la.operands[0] in carried and la.operands[0] in r for la, r in zip(launches, results))
            and not any(isinstance(s, Copy) for s in loop.body) and not loop.swaps)


# -- 2. a row of a carried array written in a loop ---------------------------------------------

def row_carry(img, n):
    for x in range(n):
        img[0, x + 1] += img[0, x] * 0.5
    return img


def row_carry_set(img, n, r):
    for x in range(n):
        img[r, x + 1] = img[r, x] * 2 + img[r, x + 1]
    return img


def row_carry_copy(img, n):
    img = img.copy()
    for x in range(n):
        img[0, x + 1] += img[0, x] * 0.5
    return img


def test_a_row_window_in_a_loop_is_written_in_the_carried_buffer():
    img = np.random.default_rng(0).random((20, 31, 3))
    check(row_carry, img, 30)
    check(row_carry_copy, img, 30)
    assert _writes_in_place(row_carry, img, 30)
    assert _writes_in_place(row_carry_copy, img, 30)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.complex128]),
       st.integers(0, 12), st.integers(-4, 4), st.sampled_from([(3, 9, 3), (2, 12), (4, 5, 2, 2)]))
def test_row_windows_of_every_dtype_and_out_of_range_steps(dtype, n, r, shape):
    img = (np.arange(np.prod(shape)) % 7).reshape(shape).astype(dtype)
    check(row_carry_set, img, n, r)  # n past the row's end, r < -rows: NumPy's IndexError


def reversed_row(a, n):
    for k in range(n):
        a[k % a.shape[0]] = a[k % a.shape[0]][::-1] + 1  # point c reads what point -c-1 writes
    return a


def shifted_row(a, n):
    for k in range(n):
        a[k, 1:] = a[k, :-1] * 2  # the row read one place over: no in-place write
    return a


def test_windows_that_read_other_points_keep_their_copy():
    a = np.arange(40.0).reshape(4, 10)
    check(reversed_row, a, 6)
    check(shifted_row, a, 4)


def bool_rows(m, n):
    for x in range(n):
        m[x + 1] ^= m[x]
    return m


def test_bool_rows():
    m = np.random.default_rng(1).random((9, 5, 3)) > 0.5
    check(bool_rows, m, 8)
    assert _writes_in_place(bool_rows, m, 8)


def window_then_old_value(img, n):
    total = 0.0
    for x in range(n):
        before = img * 1.0
        img[0, x + 1] += img[0, x]
        total = total + before.sum()
    return img, total


def test_an_old_value_read_later_keeps_the_copy():
    img = np.random.default_rng(2).random((3, 8, 2))
    want = window_then_old_value(img.copy(), 7)
    got = jc.jit(window_then_old_value)(img.copy(), 7)
    same(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_single_steps(n):
    img = np.ones((2, 4, 3))
    check(row_carry, img, n)


# -- 1. rows of CSR data: slices whose bounds come from the data, reduced -----------------------

def _windowed_reductions(f, *args):
    """The reduction kernels of ``f``'s optimized program that run over a window of their
    dim (``codegen/masked_rows.py``), and all its reduction kernels."""
    from jitcore.codegen.masked_rows import masked_row
    from jitcore.ir.dialects import kernel

    module = jc.jit(f).lower(*args).optimized()
    reductions = [op for op in module.walk() if isinstance(op, kernel.GenericOp) and op.has_reduction]
    return [op for op in reductions if masked_row(op) is not None], reductions


def row_sums(indptr, data, out):
    for i in range(len(indptr) - 1):
        out[i] = data[indptr[i]:indptr[i + 1]].sum()
    return out


def row_maxes(indptr, data, out):
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        if b > a:
            out[i] = data[a:b].max()
    return out


def row_dots(indptr, v, w):
    total = 0.0
    for i in range(len(indptr) - 1):
        total += np.dot(v[indptr[i]:indptr[i + 1]], w[indptr[i]:indptr[i + 1]])
    return total


def _csr(draw_counts, dtype):
    indptr = np.concatenate([[0], np.cumsum(draw_counts)]).astype(dtype)
    return indptr


def test_a_csr_row_sum_runs_over_its_row_only():
    rng = np.random.default_rng(3)
    indptr = _csr(rng.integers(0, 6, 40), np.int64)
    data = rng.random(int(indptr[-1]))
    check(row_sums, indptr, data, np.zeros(40))
    windowed, reductions = _windowed_reductions(row_sums, indptr, data, np.zeros(40))
    assert windowed and len(windowed) == len(reductions)


bounds = st.lists(st.integers(-12, 30), min_size=2, max_size=9)


@settings(max_examples=40, deadline=None)
@given(bounds, st.sampled_from([np.int64, np.int32]),
       st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.complex128, np.bool_]))
def test_row_sums_with_any_bounds(ends, index_dtype, dtype):
    """Bounds out of order, negative (from the end), past the end: NumPy's clamping."""
    indptr = np.array(ends, index_dtype)
    data = (np.arange(17) % 5 - 1).astype(dtype)
    out = np.zeros(len(ends) - 1, np.result_type(dtype, np.int64) if dtype != np.bool_ else np.int64)
    if dtype == np.float32:
        out = out.astype(np.float32)
    want = row_sums(indptr, data, out.copy())
    got = jc.jit(row_sums)(indptr, data, out.copy())
    if dtype in (np.float32,):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        same(got, want)


@settings(max_examples=30, deadline=None)
@given(bounds, st.sampled_from([np.float64, np.int64, np.int32]))
def test_row_maxes_and_dots_with_any_bounds(ends, dtype):
    indptr = np.array(ends, np.int64)
    data = (np.arange(17) * 7 % 11 - 3).astype(dtype)
    check(row_maxes, indptr, data, np.zeros(len(ends) - 1, dtype))
    v, w = data.astype(np.float64), np.arange(17.0)
    np.testing.assert_allclose(jit_once(row_dots)(indptr, v, w), row_dots(indptr, v, w), rtol=1e-12)


# -- 4. a row mask's reduction skips the rows whose mask is false ------------------------------

def masked_row_sums(A, m):
    return A[m].sum(axis=0)


def masked_row_anys(A, m):
    return A[m].any(axis=0), A[m].max(axis=0, initial=-5)


def test_a_masked_row_reduction_guards_its_rows():
    from jitcore.codegen.masked_rows import row_guard
    from jitcore.ir.dialects import kernel

    A = np.random.default_rng(4).random((30, 7)) < 0.3
    m = np.zeros(30, bool)
    m[[2, 17]] = True
    check(masked_row_sums, A, m)
    module = jc.jit(masked_row_sums).lower(A, m).optimized()
    guards = [row_guard(op) for op in module.walk() if isinstance(op, kernel.GenericOp) and op.has_reduction]
    assert guards and all(g is not None and g.depth == 1 for g in guards)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40),
       st.sampled_from([np.bool_, np.int32, np.int64, np.float64, np.float32, np.complex128]),
       st.integers(1, 9))
def test_masked_row_reductions_of_every_dtype(mask, dtype, cols):
    m = np.array(mask)
    A = (np.arange(len(mask) * cols).reshape(len(mask), cols) % 5 - 2).astype(dtype)
    check(masked_row_sums, A, m)
    if dtype not in (np.complex128,):
        check(masked_row_anys, A, m)


def masked_blocks(A, m):
    # the mask reads the first of two output dims: no row may be skipped before its init
    return np.where(m[:, None, None], A, 0).sum(axis=2), np.where(m[:, None], A[:, :, 0], 0).sum(axis=0)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=12), st.sampled_from([np.int64, np.float64]))
def test_masks_of_output_rows_keep_their_inits(mask, dtype):
    m = np.array(mask)
    A = (np.arange(len(mask) * 12).reshape(len(mask), 3, 4) % 7).astype(dtype)
    check(masked_blocks, A, m)


_ROW_KERNEL = '''"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4x3xf64>, %arg1: tensor<i64>):
    %0 = "kernel.generic"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<4x3xf64>, %arg3: i64):
      %1 = "arith.bitcast"(%arg3) : (i64) -> index
      %2 = "kernel.index"() {dim = 0} : () -> index
      %3 = "arith.bitcast"(%2) : (index) -> i64
      %4 = "arith.constant"() {value = 2 : i64} : () -> i64
      %5 = "arith.subi"(%4, %3) : (i64, i64) -> i64
      %6 = "kernel.check_index"(%5) {axis = 1, size = 3} : (i64) -> index
      %7 = "kernel.extract"(%arg2, %1, %2) : (tensor<4x3xf64>, index, index) -> f64
      %8 = "kernel.extract"(%arg2, %1, READ) : (tensor<4x3xf64>, index, index) -> f64
      %9 = "arith.addf"(%7, %8) : (f64, f64) -> f64
      "kernel.insert"(%9, %1, %2) {mode = "set", result = 0} : (f64, index, index) -> ()
      "kernel.yield"() : () -> ()
    }) {copy_inputs = [0], domain = [3], indexed = [0, 2], indexing_maps = [affine_map<(d0) -> ()>, \
affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["parallel"]} : \
(tensor<4x3xf64>, tensor<i64>) -> tensor<4x3xf64>
    "func.return"(%0) : (tensor<4x3xf64>) -> ()
  }) {function_type = (tensor<4x3xf64>, tensor<i64>) -> tensor<4x3xf64>, sym_name = "f"} : () -> ()
}) : () -> ()'''


@pytest.mark.parametrize("read, own", [("%2", True), ("%6", False)])
def test_only_a_kernel_whose_points_read_their_own_elements_is_written_in_place(read, own):
    """``a[r] = a[r] + a[r]`` (point c reads position c) may be written in place; ``a[r] = a[r] +
    a[r, ::-1]`` fused into one kernel (point c reads position 2 - c, which point 2 - c writes)
    may not.
    (Today's fusion materializes such a mirrored read first; the check does not rely on it.)"""
    from jitcore.codegen.host import _reads_before_writes
    from jitcore.ir.dialects import kernel
    from jitcore.ir.parser import parse_module

    module = parse_module(_ROW_KERNEL.replace("READ", read))
    (op,) = [op for op in module.walk() if isinstance(op, kernel.GenericOp)]
    assert _reads_before_writes(op, 0, 0) is own


def test_a_long_csr_row_sum_runs_over_its_row_only():
    """Past some length the select's zeros are an array made by a kernel, not a folded
    constant: still the identity (``masked_rows._constant_of``)."""
    rng = np.random.default_rng(5)
    indptr = np.array([0, 3, 3, 199_990, 200_000, 250_000])
    data = rng.random(200_000)
    out = np.zeros(5)
    got, want = jc.jit(row_sums)(indptr, data, out.copy()), row_sums(indptr, data, out.copy())
    np.testing.assert_array_equal(got, want)
    windowed, reductions = _windowed_reductions(row_sums, indptr, data, out)
    assert windowed and len(windowed) == len(reductions)
