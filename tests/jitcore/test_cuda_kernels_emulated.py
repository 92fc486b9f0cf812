"""The GPU schedules beyond the basic ones, run on the emulated device (``tests/gpu_emulator.py``)
against NumPy: the tiled matrix product (``codegen/nvptx/matmul.py``), row groups
(``rowgroup.py``), gathers that check their indices in parallel (``checks.py``). On a real GPU the same
functions run in ``test_cuda_runtime.py``'s GPU tests and ``tools/gpu_check.py``."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.nvptx import matmul
from tests.budget import examples
from tests.oracle import assert_matches

RNG = np.random.default_rng(8)


@pytest.fixture
def emulated(monkeypatch):
    from tests.gpu_emulator import emulate

    return emulate(monkeypatch)


def run_emulated(f, *args):
    out = jc.jit(f, backend="cuda")(*args)
    return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)


def assert_product_close(got, a, b):
    """Within the fixed order's bound: ``K * eps * (|a| @ |b|)`` per result (a little more for
    the reference's own rounding)."""
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    bound = (a.shape[-1] + 2) * np.finfo(a.dtype).eps * scale
    assert got.shape == exact.shape and got.dtype == a.dtype
    assert np.all(np.abs(got - exact) <= bound), np.max(np.abs(got - exact) / np.maximum(bound, 1e-300))


@settings(max_examples=examples(6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(2, 20), k=st.integers(2, 20), n=st.integers(2, 20),  # a 1 is a vector product
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**32 - 1))
@example(m=9, k=13, n=7, dtype=np.float32, seed=0).via("edges in m and n, four slabs")
@example(m=17, k=3, n=20, dtype=np.float64, seed=1).via("three tiles down, three across, one slab")
def test_tiled_matmul_any_shape_emulated(emulated, m, k, n, dtype, seed):
    """Any M, N, K (the tile here is 4 x 2 = 8 results a side, the slab 4 deep): within the
    fixed order's bound, as the tiled kernel."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    emulated.launches.clear()
    assert_product_close(run_emulated(lambda p, q: p @ q, a, b), a, b)
    assert [block for _, _, block in emulated.launches] == [matmul.threads()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_matmul_emulated(emulated, dtype):
    """A matrix-vector product (not tiled), transposed and batched operands (tiled)."""
    a = RNG.standard_normal((8, 8)).astype(dtype)
    b = RNG.standard_normal((8, 1)).astype(dtype)
    assert_product_close(run_emulated(lambda p, q: p @ q, a, b), a, b)
    a = RNG.standard_normal((6, 11)).astype(dtype)
    assert_product_close(run_emulated(lambda p: p.T @ p, a), a.T, a)
    a, b = RNG.standard_normal((2, 5, 6)).astype(dtype), RNG.standard_normal((2, 6, 9)).astype(dtype)
    got = run_emulated(lambda p, q: p @ q, a, b)
    for i in range(2):
        assert_product_close(got[i], a[i], b[i])
    tiled = [block == matmul.threads() for _, _, block in emulated.launches]
    assert tiled == [False, True, True], emulated.launches  # all but the matrix-vector product


@pytest.mark.parametrize("buffers", [1, 2])
@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("form", ["a@b", "a.T@b", "a@b.T", "a.T@b.T"])
def test_tiled_matmul_layouts_emulated(emulated, monkeypatch, big, form, buffers):
    """Both tile sizes, and every operand layout: a slab is copied with the operand's fastest
    axis across consecutive threads (A's k or m, B's n or k), full slabs and a last short one
    (k = 11: two of 4 and one of 3, or five of 2 and one of 1), edges in m and n. The results
    are the fixed order's, so equal to the one-thread k-order sums bit for bit. One slab
    buffer or two in shared memory."""
    monkeypatch.setattr(matmul, "BIG_MIN_TILES", 1 if big else 10**9)
    monkeypatch.setattr(matmul, "BUFFERS", buffers)
    rng = np.random.default_rng(5)
    m, k, n = 13, 11, 18
    a = rng.standard_normal((k, m) if ".T@" in form or form.startswith("a.T") else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if form.endswith("b.T") else (k, n)).astype(np.float32)
    f = {"a@b": lambda p, q: p @ q, "a.T@b": lambda p, q: p.T @ q,
         "a@b.T": lambda p, q: p @ q.T, "a.T@b.T": lambda p, q: p.T @ q.T}[form]
    emulated.launches.clear()
    got = run_emulated(f, a, b)
    left, right = (a.T if form.startswith("a.T") else a), (b.T if form.endswith("b.T") else b)
    want = np.zeros((m, n), np.float32)
    for kk in range(k):  # fma in k order: a float64 product of floats is exact, one rounding
        exact = np.outer(left[:, kk].astype(np.float64), right[kk])
        want = (want.astype(np.float64) + exact).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert [block for _, _, block in emulated.launches] == [matmul.threads()]
    tile = matmul.tiles_of(matmul.matmul_of(_product_op(f, a, b))).tile
    assert tile == matmul.SIDE * (matmul.BIG_REGS if big else matmul.REGS)


def _product_op(f, *args):
    from jitcore.ir.dialects import kernel

    ops = jc.jit(f, backend="cuda").lower(*args).optimized().walk()
    return next(op for op in ops if isinstance(op, kernel.GenericOp) and matmul.matmul_of(op))


def test_tiled_matmul_order_is_fixed(emulated):
    """Each result is ``fma(a[m, k], b[k, n], c)`` for k in order from 0: with exactly
    representable products and sums the result is exact, and a cancellation shows the order
    (from the other end, or in pairs, the sum is 0 where k order gives 1)."""
    a = np.array([[2.0**60, 1.0, -(2.0**60), 1.0]])
    b = np.ones((4, 1))
    got = run_emulated(lambda p, q: p @ q, np.repeat(a, 3, axis=0), np.repeat(b, 5, axis=1))
    # k order: 2**60 + 1 -> 2**60 (rounded), - 2**60 -> 0, + 1 -> 1
    np.testing.assert_array_equal(got, np.ones((3, 5)))


def softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x):
    m = x.mean(axis=1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + 1e-5)


@pytest.mark.parametrize("f", [softmax, layernorm])
def test_row_groups_emulated(emulated, monkeypatch, f):
    """Softmax and layernorm as one launch, one block per row, and the same bits as the
    kernels launched apart as block reductions (the same order, the same scalar code); rows
    of 200 are block reductions here (a lower threshold than the real 1024, fewer threads)."""
    from jitcore.codegen.nvptx import kernels, rowgroup

    monkeypatch.setattr(kernels, "BLOCK_REDUCE_MIN", 128)
    x = RNG.standard_normal((2, 200))
    grouped = run_emulated(f, x)
    assert [grid for _, grid, _ in emulated.launches] == [2]  # one launch, a block per row
    np.testing.assert_allclose(grouped, f(x), rtol=1e-13, atol=1e-15)
    monkeypatch.setattr(rowgroup, "ENABLED", False)
    apart = run_emulated(f, x)
    assert len(emulated.launches) > 2
    assert "block-reduce" in [s.kind for s in jc.jit(f, backend="cuda").lower(x).plan().shapes]
    np.testing.assert_array_equal(grouped, apart)
    monkeypatch.setattr(rowgroup, "ENABLED", True)
    x32 = RNG.standard_normal((2, 20)).astype(np.float32)  # rows shorter than a warp: apart
    np.testing.assert_allclose(run_emulated(f, x32), f(x32), rtol=2e-5, atol=1e-6)
    kinds = [s.kind for s in jc.jit(f, backend="cuda").lower(x32).plan().shapes]
    assert not {"row-group", "warp-row-group"} & set(kinds), kinds
    x32 = RNG.standard_normal((3, 50)).astype(np.float32)  # shorter than a block: a warp a row
    np.testing.assert_allclose(run_emulated(f, x32), f(x32), rtol=2e-5, atol=1e-6)
    assert "warp-row-group" in [s.kind for s in jc.jit(f, backend="cuda").lower(x32).plan().shapes]
    x32 = RNG.standard_normal((2, 100)).astype(np.float32)  # a float32 group
    np.testing.assert_allclose(run_emulated(f, x32), f(x32), rtol=2e-5, atol=1e-6)
    assert "row-group" in [s.kind for s in jc.jit(f, backend="cuda").lower(x32).plan().shapes]


def test_short_rows_run_a_warp_each_emulated(emulated, monkeypatch):
    """Rows shorter than a block, longer than a warp: one launch, warp ``w`` of the grid taking
    row ``w`` through every member; a row sum in the documented order (lane ``l`` folds points
    ``l, l + 32``, then lanes merge 16, 8, 4, 2, 1), bit for bit. One block (2 warps) for 5
    rows, so warps take several rows each."""
    from jitcore.codegen.nvptx import kernels

    monkeypatch.setattr(kernels, "MAX_BLOCKS", 1)
    x = RNG.standard_normal((5, 45))
    f = lambda a: a / a.sum(axis=1, keepdims=True)  # noqa: E731
    got = run_emulated(f, x)
    assert [(s.kind, s.grid) for s in jc.jit(f, backend="cuda").lower(x).plan().shapes] == \
        [("warp-row-group", 1), ("in-row-group", 0)]
    lanes = [[x[r, lane] + x[r, lane + 32] if lane + 32 < 45 else x[r, lane] for lane in range(32)]
             for r in range(5)]
    for r, partials in enumerate(lanes):
        for step in (16, 8, 4, 2, 1):
            partials = [partials[j] + partials[j + step] if j + step < 32 else partials[j] for j in range(32)]
        np.testing.assert_array_equal(got[r], x[r] / partials[0])


def test_rows_read_out_of_order_are_not_grouped(emulated):
    """A kernel reading an earlier one's results at other rows (reversed) runs after it."""
    x = RNG.standard_normal((4, 50))
    f = lambda a: a / a.sum(axis=1)[::-1, None]  # noqa: E731
    np.testing.assert_allclose(run_emulated(f, x), f(x), rtol=1e-13)
    kinds = [s.kind for s in jc.jit(f, backend="cuda").lower(x).plan().shapes]
    assert "row-group" not in kinds, kinds


def test_parallel_gathers_report_the_first_bad_index_emulated(emulated, monkeypatch):
    """A gather runs on every thread; with several bad indices the error is NumPy's (the
    first), whichever thread met one first, and names the user's line. One block of 64
    threads: thread 0 meets point 64 before thread 1 meets point 1, so the record is replaced."""
    from jitcore.codegen.nvptx import kernels

    monkeypatch.setattr(kernels, "MAX_BLOCKS", 1)
    x = RNG.standard_normal((3, 50)).astype(np.float32)
    idx = RNG.integers(-50, 50, 100)
    f = lambda a, k: a[:, k]  # noqa: E731
    np.testing.assert_array_equal(run_emulated(f, x, idx), x[:, idx])
    assert [s.kind for s in jc.jit(f, backend="cuda").lower(x, idx).plan().shapes] == ["elementwise"]
    idx[[90, 64, 1]] = [1000, 77, -51]
    with pytest.raises(IndexError) as expected:
        f(x, idx)
    with pytest.raises(IndexError) as got:
        run_emulated(f, x, idx)
    assert isinstance(got.value, jc.JitcoreError)
    assert str(got.value).startswith(str(expected.value)), (got.value, expected.value)
    assert f"test_cuda_kernels_emulated.py:{f.__code__.co_firstlineno}" in str(got.value)
    idx[1] = 3  # the next one; and again in a second launch of the plan (a fresh status)
    with pytest.raises(IndexError, match="index 77 is out of bounds for axis 1 with size 50"):
        run_emulated(f, x, idx)


def scatter_set(a, k, w):
    y = a.copy()
    y[k] = w
    return y


def kinds_of(f, *args):
    return [s.kind for s in jc.jit(f, backend="cuda").lower(*args).plan().shapes]


@pytest.fixture
def one_block(emulated, monkeypatch):
    """One block of 64 threads: thread 0 runs point 64 before thread 1 runs point 1, so a write
    that trusted the threads' timing would leave point 1's value where NumPy leaves point 64's."""
    from jitcore.codegen.nvptx import kernels

    monkeypatch.setattr(kernels, "MAX_BLOCKS", 1)
    return emulated


@settings(max_examples=examples(8), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(idx=st.lists(st.integers(-12, 11), min_size=100, max_size=100), seed=st.integers(0, 2**32 - 1))
@example(idx=[1] * 100, seed=0).via("every point writes one element: the last (99) wins")
def test_parallel_set_scatter_last_write_wins_emulated(one_block, idx, seed):
    """``y[idx] = w`` on every thread: each element gets the value of the last point writing it
    (NumPy's and the CPU's C order) through the claims, however the threads are timed."""
    x = np.random.default_rng(seed).standard_normal(12).astype(np.float32)
    w = np.arange(100, dtype=np.float32)
    k = np.array(idx)
    np.testing.assert_array_equal(run_emulated(scatter_set, x, k, w), scatter_set(x, k, w))
    assert [s.kind for s in jc.jit(scatter_set, backend="cuda").lower(x, k, w).plan().shapes] == \
        ["scatter", "scatter-write"]


def test_parallel_scatters_emulated(one_block):
    """2-D set scatters, booleans and complex numbers, integer accumulation by atomics, strided
    slice writes, a scatter in a loop (the claims reset), and the first bad index's error;
    a float accumulation stays in order (serial)."""
    x = RNG.standard_normal((4, 30))
    k = np.array([3, 29, -1, 3, 0, 7] * 20)
    w = RNG.standard_normal((4, k.size))

    def set_columns(a, k, w):
        y = a.copy()
        y[:, k] = w
        return y

    np.testing.assert_array_equal(run_emulated(set_columns, x, k, w), set_columns(x, k, w))
    b, c = x[0] > 0, x[0] + 1j * x[1]
    np.testing.assert_array_equal(run_emulated(scatter_set, b, k, w[0] > 0), scatter_set(b, k, w[0] > 0))
    np.testing.assert_array_equal(run_emulated(scatter_set, c, k, w[0] - 2j), scatter_set(c, k, w[0] - 2j))
    i = RNG.integers(-1000, 1000, 30)
    v = RNG.integers(-1000, 1000, k.size)
    for method, ufunc in (("add", np.add), ("max", np.maximum), ("min", np.minimum)):
        f = lambda a, k, w, method=method: getattr(a.at[k], method)(w)  # noqa: E731
        expected = i.copy()
        ufunc.at(expected, k, v)
        np.testing.assert_array_equal(run_emulated(f, i, k, v), expected)
        assert kinds_of(f, i, k, v) == ["scatter", "scatter-write"]
    expected = x[0].copy()
    np.add.at(expected, k, w[0])
    np.testing.assert_array_equal(run_emulated(lambda a, k, w: a.at[k].add(w), x[0], k, w[0]), expected)
    assert kinds_of(lambda a, k, w: a.at[k].add(w), x[0], k, w[0]) == ["serial"]  # float: in order

    def set_slice(a, w):
        y = a.copy()
        y[1:4, 28:1:-3] = w
        return y

    np.testing.assert_array_equal(run_emulated(set_slice, x, w[:3, :9]), set_slice(x, w[:3, :9]))
    assert kinds_of(set_slice, x, w[:3, :9]) == ["scatter", "scatter-write"]

    def in_loop(a, k, w, n):
        return jc.fori_loop(0, n, lambda j, y: scatter_set(y, k, w * j), a)

    np.testing.assert_array_equal(run_emulated(in_loop, x[0], k, w[0], 3), scatter_set(x[0], k, w[0] * 2))
    k[[90, 70, 2]] = [30, -31, 77]
    with pytest.raises(IndexError) as expected_error:
        scatter_set(x[0], k, w[0])
    with pytest.raises(IndexError) as got:
        run_emulated(scatter_set, x[0], k, w[0])
    assert str(got.value).startswith(str(expected_error.value)), (got.value, expected_error.value)


def test_integer_and_matrix_vector_products_emulated(emulated):
    """Products the tiled kernel does not take run as reductions: an integer matrix product and
    a matrix-vector product, one thread per result (short k) or a block per result (long k)."""
    i, j = RNG.integers(-9, 9, (6, 7)), RNG.integers(-9, 9, (7, 5))
    a, v = RNG.standard_normal((5, 3000)), RNG.standard_normal(3000)
    got = run_emulated(lambda p, q, m, u: (p @ q, m[:, :40] @ u[:40], m @ u, p.T @ p[:, 0]), i, j, a, v)
    assert_matches(got[0], i @ j)
    np.testing.assert_allclose(got[1], a[:, :40] @ v[:40], rtol=1e-12)
    np.testing.assert_allclose(got[2], a @ v, rtol=1e-11)
    assert_matches(got[3], i.T @ i[:, 0])
    assert kinds_of(lambda p, q: p @ q, i, j) == ["thread-reduce"]
    assert kinds_of(lambda m, u: m[:, :40] @ u[:40], a, v) == ["thread-reduce"]
    assert kinds_of(lambda m, u: m @ u, a, v) == ["block-reduce"]


def test_fmod_and_shifts_as_numpy_emulated(emulated):
    """What an H200 got wrong on the first real run: ``np.fmod`` (LLVM's NVPTX ``frem`` is
    ``x - trunc(x/y)*y``: large quotients off, +0.0 for -0.0, fmod(inf, inf) = inf) and 64-bit
    shifts by counts beyond the width (NVPTX dropped the guard after cutting the count to 32
    bits). The emulated device runs the same LLVM IR, so the exact fmod is checked by value and
    the shift by its optimised IR: the count the shift gets is clamped below 64."""
    x = np.array([-6.0, 6.0, -0.0, np.inf, 1e300, -1e300, 5e-324, 3.0, 7.5, np.nan], np.float64)
    y = np.array([3.0, -3.0, 2.0, np.inf, 3.0, 7e-300, 3e-324, np.inf, 0.0, 1.0], np.float64)
    for t in (np.float16, np.float32, np.float64):
        with np.errstate(all="ignore"):
            a, b = x.astype(t), y.astype(t)
            assert_matches(run_emulated(np.fmod, a, b), np.fmod(a, b), 0, f"fmod {t.__name__}")
    v = np.array([1, 2, -3, 7, 5, 1], np.int64)
    n = np.array([1, 63, 64, 2**32 + 1, -1, 2**63 - 1], np.int64)
    assert_matches(run_emulated(np.left_shift, v, n), np.where((n >= 0) & (n < 64), v << (n % 64), 0), 0)
    optimised = jc.jit(np.left_shift, backend="cuda").lower(v, n).plan().optimized_llvm_ir
    clamped = set(re.findall(r"(%[\w.]+) = tail call i64 @llvm\.umin\.i64\(i64 %[\w.]+, i64 63\)", optimised))
    counts = re.findall(r"= shl i64 %[\w.]+, (%[\w.]+)$", optimised, re.M)
    assert counts and set(counts) <= clamped, (counts, clamped)


def test_callbacks_and_data_errors_emulated(emulated, capsys):
    """Callback steps run on the host between launches: ``debug_print`` prints the device
    values, and NumPy's errors for data it refuses (``raise_at_first``: a negative integer
    power, a histogram of NaN, a flat index out of range) are raised by the call that met them."""
    def show(x):
        jc.debug_print("x={}", x)
        return x + 1

    np.testing.assert_array_equal(run_emulated(show, np.arange(3.0)), np.arange(1.0, 4.0))
    assert capsys.readouterr().out == "x=[0. 1. 2.]\n"
    power = jc.jit(lambda x, n: x ** n, backend="cuda")
    assert_matches(np.asarray(power(np.arange(4), np.int64(3))), np.arange(4) ** 3)
    with pytest.raises(jc.JitcoreError, match="negative integer powers"):
        power(np.arange(4), np.int64(-1))
    counts = jc.jit(lambda x: np.histogram(x, bins=4)[0], backend="cuda")
    assert_matches(np.asarray(counts(np.arange(8.0))), np.histogram(np.arange(8.0), bins=4)[0])
    with pytest.raises(ValueError, match="not finite"):
        counts(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="index 20 is out of bounds"):
        run_emulated(lambda i: np.unravel_index(i, (3, 4)), np.array([1, 20]))


def test_float_sums_fold_in_a_cascade_emulated(emulated):
    """A thread's run of a float sum (thread-, block- and grid-reduce) is folded in runs of
    ``kernels.RUN`` (a cascade), not in one long line: same-sign terms stay within a few eps of
    the exact sum (a line of 1000 terms was 80 eps off, rows of 100,000 were 18)."""
    eps = np.finfo(np.float32).eps
    whole = jc.jit(lambda x: x.sum(), backend="cuda")
    rows = jc.jit(lambda x: (x.sum(axis=1), (x * 1j).sum(axis=1)), backend="cuda")
    for n in (1000, 200_000):  # one thread alone; a grid of blocks
        x = np.full(n, 0.1, np.float32)
        exact = n * float(np.float32(0.1))
        assert abs(float(np.asarray(whole(x))) - exact) <= 8 * eps * exact, n
    x = np.full((3, 100_000), 0.1, np.float32)
    exact = 100_000 * float(np.float32(0.1))
    real, imag = (np.asarray(v) for v in rows(x))
    assert np.all(np.abs(real - exact) <= 8 * eps * exact), real
    assert np.all(np.abs(imag.imag - exact) <= 8 * eps * exact) and np.all(imag.real == 0), imag
