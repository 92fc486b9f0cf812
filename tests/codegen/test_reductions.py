"""Reductions: the documented order (``codegen/cpu/reduction.py``), its error bound on adversarial
data against ``math.fsum``, determinism, fusion of producers, and vector code.

The bound tested is the module's: ``|sum - fsum| <= (log2(n) + 2 * STEPS) * eps * fsum(|x|)``
(STEPS = 16), which for the sizes here (n >= 4096) is below ``4 * log2(n) * eps * fsum(|x|)``; a
sum in order exceeds it by orders of magnitude on these inputs (the issue's 10**7 terms of 1e-7
in float32 gave 1.0038).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen import host
from jitcore.codegen.cpu.reduction import STEPS, lanes_for
from jitcore.ir.types import f32, f64

SUM = jc.jit(lambda x: x.sum())
SUM_ROWS = jc.jit(lambda x: x.sum(axis=1))
SUM_COLUMNS = jc.jit(lambda x: x.sum(axis=0))
MEAN = jc.jit(lambda x: x.mean())
MEAN_ROWS = jc.jit(lambda x: x.mean(axis=1))


def adversarial(kind: str, n: int, dtype) -> np.ndarray:
    """Inputs on which a sum in order drifts: one constant, all positive, or alternating large
    and small magnitudes (of one sign, and of alternating signs)."""
    rng = np.random.default_rng(n)
    if kind == "constant":
        return np.full(n, 1e-7, dtype)
    if kind == "positive":
        return rng.uniform(0.0, 1.0, n).astype(dtype)
    if kind == "alternating":
        x = np.full(n, 1e-3, dtype)
        x[::2] = 1e3
        return x
    x = rng.uniform(0.5, 1.0, n).astype(dtype)
    x[::2] *= -1e4
    return x


def fsum(x: np.ndarray) -> float:
    """``math.fsum`` of every element, read through a memoryview of a float64 copy: Python floats
    come out of a memoryview without NumPy scalars, about 40% faster for these millions."""
    return math.fsum(memoryview(np.ascontiguousarray(x, np.float64).reshape(-1)))


def bound(x: np.ndarray) -> float:
    eps = np.finfo(x.dtype).eps
    return (math.log2(x.size) + 2 * STEPS) * float(eps) * fsum(np.abs(x))


def exact(x: np.ndarray) -> float:
    return fsum(x)


KINDS = ["constant", "positive", "alternating", "alternating-signs"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [4096, 100_003, 10**7])
def test_float32_sum_error_grows_like_log_n(kind, n):
    x = adversarial(kind, n, np.float32)
    want, tolerance = exact(x), bound(x)
    assert abs(float(SUM(x)) - want) <= tolerance
    rounding = abs(want / n) * 2 * float(np.finfo(np.float32).eps)  # of the division
    assert abs(float(MEAN(x)) - want / n) <= tolerance / n + rounding


@pytest.mark.parametrize("kind", KINDS)
def test_float64_sum_error_grows_like_log_n(kind):
    x = adversarial(kind, 10**6 + 7, np.float64)
    assert abs(float(SUM(x)) - exact(x)) <= bound(x)


def test_the_issue_example():
    """10**7 terms of 1e-7 in float32: NumPy's pairwise sum gives 1.0, a sum in order 1.0038."""
    x = np.full(10**7, 1e-7, np.float32)
    assert abs(float(SUM(x)) - 1.0) < 1e-6
    assert abs(float(MEAN(x)) - 1e-7) < 1e-13


@pytest.mark.parametrize("kind", KINDS)
def test_long_rows_and_their_means(kind):
    x = adversarial(kind, 3 * 1_000_003, np.float32).reshape(3, -1)
    rows, means = SUM_ROWS(x), MEAN_ROWS(x)
    for i in range(3):
        want, tolerance = exact(x[i]), bound(x[i])
        assert abs(float(rows[i]) - want) <= tolerance
        assert abs(float(means[i]) - want / x.shape[1]) <= 2 * tolerance / x.shape[1]


@pytest.mark.parametrize("kind", KINDS)
def test_a_full_sum_of_a_matrix_is_one_long_row(kind):
    x = adversarial(kind, 2000 * 1001, np.float32).reshape(2000, 1001)
    assert abs(float(SUM(x)) - exact(x)) <= bound(x)
    x3 = x.reshape(2, 1000, 1001)
    both = jc.jit(lambda a: a.sum(axis=(1, 2)))(x3)
    for i in range(2):
        assert abs(float(both[i]) - exact(x3[i])) <= bound(x3[i])
        assert both[i] == SUM(x3[i])  # the same order as the 1-D sum of that slice


@pytest.mark.parametrize("kind", KINDS)
def test_columns_of_a_tall_array(kind):
    x = adversarial(kind, 1_000_003 * 5, np.float32).reshape(-1, 5)
    # row after row, as NumPy adds them: NumPy's bits, and its error (linear in the rows)
    np.testing.assert_array_equal(SUM_COLUMNS(x).view(np.int32), x.sum(axis=0).view(np.int32))


# -- the documented order, bit for bit ------------------------------------------------------

def pairwise_sum(x: np.ndarray) -> np.ndarray:
    """NumPy's ``pairwise_sum`` along ``x``'s first axis (``reduction.PairwiseRow``)."""
    n = x.shape[0]
    if n < 8:
        acc = np.full(x.shape[1:], -0.0, x.dtype)
        for v in x:
            acc = acc + v
        return acc
    if n <= 128:
        r = [x[j].copy() for j in range(8)]
        i = 8
        while i < n - n % 8:
            r = [r[j] + x[i + j] for j in range(8)]
            i += 8
        acc = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in x[i:]:
            acc = acc + v
        return acc
    half = n // 2 - n // 2 % 8
    return pairwise_sum(x[:half]) + pairwise_sum(x[half:])


def documented_sum(x: np.ndarray, lanes: int | None = None, op=np.add, identity=0) -> np.ndarray:
    """``reduction.py``'s order along ``x``'s first axis, in NumPy arithmetic of ``x``'s dtype
    (each add rounded once): a row's with ``lanes_for`` lanes, or a column's with one lane
    (``op``: a product's too). Further axes are independent sums computed side by side, each
    in that same order (elementwise ops round each element alone): ``documented_sum(x.T)`` is
    the sum of each row of a matrix ``x``, ``documented_sum(x, lanes=1)`` of each column."""
    t = x.dtype.type
    n, batch = x.shape[0], x.shape[1:]
    if op is np.add and x.dtype.kind == "f" and x.dtype.itemsize >= 4:  # NumPy's order
        if lanes == 1:  # down columns: row after row
            acc = np.full(batch, identity, x.dtype)
            for v in x:
                acc = acc + v
            return acc
        total = np.full(batch, identity, x.dtype) + pairwise_sum(x)
        return total if batch else t(total)
    short = 2 * STEPS if lanes == 1 else None
    lanes = lanes or lanes_for(f32 if x.dtype.itemsize <= 4 else f64)
    if n < (short or 2 * lanes):  # too short to block: in order
        acc = np.full(batch, identity, x.dtype)
        for v in x:
            acc = op(acc, v)
        return acc if batch else t(acc)
    block = lanes * STEPS
    blocks = n // block
    # every block's lanes accumulate its STEPS groups in order; the blocks side by side
    steps = x[: blocks * block].reshape(blocks, STEPS, lanes, *batch)
    sums = np.full((blocks, lanes, *batch), identity, x.dtype)
    for s in range(STEPS):
        sums = op(sums, steps[:, s])
    stack = {}
    for j in range(blocks):
        acc, level = sums[j], 0
        while (j >> level) & 1:
            acc = op(stack[level], acc)
            level += 1
        stack[level] = acc
    acc = np.full((lanes, *batch), identity, x.dtype)
    start = blocks * block
    for g in range((n - start) // lanes):
        acc = op(acc, x[start + g * lanes: start + (g + 1) * lanes])
    for i in range(n // lanes * lanes, n):
        acc[0] = op(acc[0], x[i])
    level = 0
    while blocks >> level:
        if (blocks >> level) & 1:
            acc = op(stack[level], acc)
        level += 1
    parts = list(acc)
    while len(parts) > 1:
        parts = [op(a, b) for a, b in zip(parts[::2], parts[1::2])]
    total = op(t(identity), parts[0])
    return total if batch else t(total)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 15, 16, 31, 32, 33, 255, 256, 257, 1000, 4095, 4096, 4097, 33 * 256 + 7])
def test_the_order_is_the_documented_one(dtype, n):
    x = np.random.default_rng(n).standard_normal(n).astype(dtype) * np.float32(1e3)
    x[::3] = np.float32(1e-3)
    got = SUM(x)
    assert got == documented_sum(x), (got, documented_sum(x))
    assert SUM(x) == got  # and the same from call to call
    if n % 2 == 0:
        assert (SUM_ROWS(x.reshape(2, -1)) == [documented_sum(x[: n // 2]), documented_sum(x[n // 2:])]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_follow_the_documented_order(dtype):
    """A product's lanes merge as a sum's (whole lanes at once, ``_Cascade.whole``): same order."""
    prod_rows = jc.jit(lambda x: x.prod(axis=1))
    n = 33 * 256 + 7
    x = (1 + np.random.default_rng(n).standard_normal((2, n)) * 1e-3).astype(dtype)
    assert (prod_rows(x) == documented_sum(x.T, op=np.multiply, identity=1)).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(31, 3), (32, 3), (33, 40), (1000, 7), (16 * 37 + 5, 300), (300, 5000)])
def test_columns_follow_the_documented_order(dtype, shape):
    """Each column alone, in blocks of STEPS rows and the cascade; tiles make no difference."""
    x = np.random.default_rng(shape[0]).standard_normal(shape).astype(dtype) * np.float32(1e3)
    x[::3] = np.float32(1e-3)
    got = SUM_COLUMNS(x)
    assert (got == documented_sum(x, lanes=1)).all()
    assert (SUM_COLUMNS(x) == got).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fixed_size_code_follows_the_documented_order(dtype, monkeypatch):
    """Fixed-size code knows its row counts (``host.SIZE_GENERIC`` off; size-generic code,
    the default, takes them at run time): rows and columns in the same order."""
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    sums, columns = jc.jit(lambda x: x.sum(axis=1)), jc.jit(lambda x: x.sum(axis=0))
    for shape in ((31, 3), (16 * 37 + 5, 30), (3, 4097)):
        x = np.random.default_rng(shape[0]).standard_normal(shape).astype(dtype) * np.float32(1e3)
        x[::3] = np.float32(1e-3)
        assert (columns(x) == documented_sum(x, lanes=1)).all()
        assert (sums(x) == documented_sum(x.T)).all()


# -- fusion and vector code -----------------------------------------------------------------

def test_a_producer_is_fused_into_the_sum():
    """sum(x*y) reads x and y once: one kernel, no buffer for x*y."""
    f = jc.jit(lambda x, y: (x * y).sum())
    x = np.random.default_rng(0).standard_normal(10_001).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(10_001).astype(np.float32)
    assert f.lower(x, y).as_text("optimized").count("kernel.generic") == 1
    assert abs(float(f(x, y)) - exact(x.astype(np.float64) * y)) <= bound(np.abs(x * y))


def vector_ops(text: str, op: str, element: str) -> list[int]:
    """The widths of ``op``s on vectors of ``element`` in optimised LLVM IR."""
    return [int(w) for w in re.findall(rf"= {op}(?: \w+)* <(\d+) x {element}>", text)]


@pytest.mark.parametrize("fn, shape, dtype, op, element", [
    (lambda x: x.sum(axis=1), (64, 1024), np.float32, "fadd", "float"),
    (lambda x: x.sum(), (64, 1024), np.float32, "fadd", "float"),
    (lambda x: x.sum(axis=0), (4096, 64), np.float32, "fadd", "float"),
    (lambda x: np.sqrt(np.sum(np.abs(x) ** 2, 1)), (100, 1000), np.float64, "fadd", "double"),
    (lambda x: np.exp(x).sum(axis=1), (100, 1000), np.float64, "fadd", "double"),
    (lambda x: x.max(axis=1), (64, 1024), np.float32, "fcmp", "float"),
    (lambda x: x.min(), (64, 1024), np.float64, "fcmp", "double"),
], ids=["rows", "full", "columns", "row-norms", "exp-rows", "max-rows", "min-full"])
def test_reductions_are_vector_code(fn, shape, dtype, op, element):
    """Host-independent: some vector add of at least 2 lanes, whatever width the host picks."""
    text = jc.jit(fn).lower(np.ones(shape, dtype)).as_text("llvm-opt")
    assert any(w >= 2 for w in vector_ops(text, op, element)), "the reduction did not vectorize"


def test_complex_sums_and_float_products():
    rng = np.random.default_rng(3)
    z = (rng.standard_normal(5000) + 1j * rng.standard_normal(5000)).astype(np.complex64)
    got = SUM(z)
    assert abs(got.real - math.fsum(z.real.astype(np.float64))) <= bound(z.real)
    assert abs(got.imag - math.fsum(z.imag.astype(np.float64))) <= bound(z.imag)
    p = rng.uniform(0.999, 1.001, 5000)
    np.testing.assert_allclose(jc.jit(lambda x: x.prod(axis=0))(p), np.prod(p), rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_max_and_min_in_lanes_match_numpy_on_zeros_nan_and_inf(dtype):
    """Lanes change only which zero a tie of 0.0 and -0.0 gives; NumPy's vectorized loops agree."""
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf], dtype)
    for shape in [(700,), (3, 257), (64, 40)]:
        for p_nan in (0.0, 0.002):
            p = np.array([0.3, 0.3, 0.1, 0.1, p_nan, 0.1, 0.1])
            x = rng.choice(special, shape, p=p / p.sum()).astype(dtype)
            for name in ("max", "min"):
                for axis in (None, -1, 0):
                    got = jc.jit(lambda a, name=name, axis=axis: getattr(a, name)(axis=axis))(x)
                    expected = getattr(np, name)(x, axis=axis)
                    np.testing.assert_array_equal(got, expected)
                    assert (np.signbit(got) == np.signbit(expected)).all(), (name, axis, shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_and_min_in_lanes_find_a_single_nan_at_every_position(dtype):
    """The lanes' fast fold passes over NaN elements and keeps a witness instead: a row whose
    only NaN is at any position (each lane, chain and chunk, the tail) is still NaN, with
    infinities and no zeros around it (no zero sends the lanes to the documented order)."""
    n = 300  # 2 chunks of 4 chains of 16 or 8 lanes, and a tail
    rng = np.random.default_rng(5)
    x = rng.uniform(1.0, 2.0, (n + 2, n)).astype(dtype) * rng.choice([-1.0, 1.0], (n + 2, n)).astype(dtype)
    x[np.arange(n), np.arange(n)] = np.nan
    x[:, 7], x[:, 100] = np.inf, -np.inf  # the last two rows: no NaN, both infinities
    x[n + 1, 7] = 3.0
    got_max, got_min = jc.jit(lambda a: (a.max(axis=1), a.min(axis=1)))(x)
    np.testing.assert_array_equal(got_max, x.max(axis=1))
    np.testing.assert_array_equal(got_min, x.min(axis=1))


def test_max_min_argmax_argmin_of_a_strided_argument_copy_its_chunks():
    """Rows of an argument strided at run time (``big[::2, ::2]``) are folded from copies of
    their chunks, not gathers: the values and positions are NumPy's, NaNs and zeros included."""
    rng = np.random.default_rng(9)
    big = np.zeros((12, 602), np.float32)
    big[::2, ::2] = rng.standard_normal((6, 301))
    big[0, 2 * 77], big[1, 2 * 5], big[2, 2 * 300], big[4, 2 * 200] = np.nan, np.nan, np.nan, 0.0
    v = big[::2, ::2]
    got = jc.jit(lambda a: (a.max(axis=1), a.min(axis=1), a.argmax(axis=1), a.argmin(axis=1)))(v)
    for g, want in zip(got, (v.max(axis=1), v.min(axis=1), v.argmax(axis=1), v.argmin(axis=1))):
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint64, np.float16, np.float32, np.float64,
                                   np.complex64])
def test_argmax_and_argmin_in_lanes_take_the_first_occurrence(dtype):
    """Lanes merge by the body's own test, the smaller index winning a tie: NumPy's first
    occurrence of the best value (the first NaN, for floats), in rows long enough for lanes."""
    rng = np.random.default_rng(11)
    for shape in [(1000,), (5, 300), (3, 4097)]:
        for values in ([0, 1, 2], [0.0, -0.0, np.inf, -np.inf, 3.0], [-np.inf], [1.0, np.nan]):
            if not np.issubdtype(dtype, np.inexact) and not all(np.isfinite(values)):
                continue
            x = rng.choice(np.array(values, dtype), shape)
            for name in ("argmax", "argmin"):
                got = jc.jit(lambda a, name=name: getattr(a, name)(axis=-1))(x)
                np.testing.assert_array_equal(got, getattr(np, name)(x, axis=-1), err_msg=f"{name} {values}")


@pytest.mark.parametrize("axis", [0, 1, 2, (0, 1), (1, 2), (0, 2), None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_adjacent_dims_of_one_kind_merge(axis, keepdims):
    """Every axis combination of a 3-d array (adjacent reduced or kept dims merge), against
    fsum per output element, within the bound."""
    x = adversarial("positive", 40 * 30 * 50, np.float32).reshape(40, 30, 50)
    got = jc.jit(lambda a: a.sum(axis=axis, keepdims=keepdims))(x)
    expected = x.astype(np.float64).sum(axis=axis, keepdims=keepdims)
    assert got.shape == expected.shape and got.dtype == np.float32
    n = x.size // expected.size
    eps = float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(got, expected, rtol=(math.log2(n) + 2 * STEPS) * eps, atol=0)


@pytest.mark.parametrize("kind", KINDS)
def test_columns_of_a_tall_3d_array(kind):
    x = adversarial(kind, 200_003 * 2 * 3, np.float32).reshape(-1, 2, 3)
    np.testing.assert_array_equal(SUM_COLUMNS(x).view(np.int32), x.sum(axis=0).view(np.int32))


# -- costly bodies and short rows -----------------------------------------------------------

SIN = jc.jit(lambda x: np.sin(x))
SIN_SUM = jc.jit(lambda x: np.sin(x).sum())
SIN_SUM_ROWS = jc.jit(lambda x: np.sin(x).sum(axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_costly_body_keeps_the_documented_order(dtype):
    """A sum of math-library calls computes several groups' elements side by side
    (``_Cascade._groups``), then adds them in the documented order: the bits of the documented
    sum of the same values, whole, by rows, and in pieces on threads; NaN and inf included.
    (Sines: terms of both signs, so a lane's rounding shows in the total.)"""
    rng = np.random.default_rng(5)
    for n in (31, 257, 4097, 33 * 256 + 7):
        x = rng.standard_normal(n).astype(dtype) * dtype(10)
        assert SIN_SUM(x) == documented_sum(SIN(x)), n
    x = rng.standard_normal((3, 1000)).astype(dtype) * dtype(10)
    x[1, 7], x[2, 500] = np.nan, np.inf
    np.testing.assert_array_equal(SIN_SUM_ROWS(x), documented_sum(SIN(x).T))
    x = rng.standard_normal(70_001).astype(dtype) * dtype(10)
    with jc.config.using(num_threads=2, parallel_threshold=0, chunk_size=4096):
        assert SIN_SUM(x) == documented_sum(SIN(x))


SHORT_SUM = jc.jit(lambda x: np.sqrt(np.sum(x * x, axis=-1, keepdims=True)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_rows_under_a_long_free_axis(dtype):
    """Rows of 1, 2, 3, 5 and 17 under 300 of them (the pairwise distances' shape: a short
    reduced axis, a long free one; ``schedule.TINY_ROW``), keepdims, a sqrt epilogue, NaN and
    inf: each row in the documented order, then its sqrt."""
    rng = np.random.default_rng(6)
    for length in (1, 2, 3, 5, 17):
        x = rng.standard_normal((300, length)).astype(dtype)
        x[0, 0], x[1, -1], x[2, 0] = np.nan, np.inf, -np.inf
        got = SHORT_SUM(x)
        assert got.shape == (300, 1) and got.dtype == dtype
        expected = np.sqrt(documented_sum((x * x).T))[:, None]
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("shape", [(7, 5), (3, 40, 2)])
def test_a_sum_that_reads_a_broadcast_value_merges_its_dims(shape):
    """``((x - m) ** 2).sum()`` reads the 0-d ``m`` through a constant map: the dims still merge,
    so the fused sum (``np.var``, ``np.std``) is rounded in the order of the sum of the
    materialised squares, as the unfused pipeline computes it: the same bits."""
    from tests.programs.differential import UNFUSED

    x = np.random.default_rng(7).standard_normal(shape)
    for fn in (lambda a: np.var(a), lambda a: np.std(a, ddof=1), lambda a: ((a - a.mean()) * 3.0).sum()):
        fused, unfused = jc.jit(fn)(x), jc.jit(fn, pipeline=UNFUSED)(x)
        assert fused.tobytes() == unfused.tobytes(), (fused, unfused)


# -- memory order (passes/interchange.py): a view is reduced in its operand's memory order ---

def _reductions(v):
    """Several reductions of ``v`` in one program (one compile per layout and shape)."""
    return (v.sum(), v.sum(axis=0), v.mean(axis=1), v.max(), v.min(axis=1), v.argmax(axis=0))


VIEWS = {"transposed": lambda a: a.T, "reversed": lambda a: a[::-1, ::-1],
         "transposed, reversed rows": lambda a: a.T[::-1], "strided": lambda a: a[::2, ::-3]}


@pytest.mark.parametrize("view, shape", [(view, (37, 21)) for view in VIEWS]
                         + [("transposed", (0, 3)), ("reversed", (1, 1))])
def test_reductions_of_views_match_numpy(view, shape):
    """Sums, means, max, min, argmax and argmin of transposed, reversed and strided views of a
    C argument (the views fused into the reductions), along each axis and whole, with NaNs."""
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    if a.size > 4:
        a[3, 5] = a[30, 2] = np.nan  # the first NaN wins max and argmax, in C order of the view
    v = VIEWS[view](a)
    if v.size == 0:  # NumPy raises on empty max and argmax: the sums and means only
        f = lambda a: (lambda v: (v.sum(), v.sum(axis=1), v.mean(axis=0)))(VIEWS[view](a))  # noqa: E731
    else:
        f = lambda a: _reductions(VIEWS[view](a))  # noqa: E731
    with np.errstate(all="ignore"):
        expected = f(a)
    for got, want in zip(jc.jit(f)(a), expected):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("layout", ["F", "reversed"])
def test_reductions_of_non_contiguous_arguments_match_numpy(layout):
    from tests.layouts import relayout

    a = np.random.default_rng(2).standard_normal((33, 20)).astype(np.float32)
    a[4, 7] = np.nan
    arg = relayout(a, layout)
    for got, want in zip(jc.jit(_reductions)(arg), _reductions(a)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5, equal_nan=True)


def _full_sum(view):
    return jc.jit(lambda a: view(a).sum())


def test_a_view_is_summed_in_memory_order_bit_for_bit():
    """The rule (docs/numpy_support.md): a sum reads its operand in memory order of its dims,
    a reversed axis backwards, so the sums of a transposed view of ``a`` are ``a``'s own sums,
    a reversed view's NumPy's, bit for bit (the documented
    order of ``a``'s elements as they lie: one long row for a full sum, ``a``'s rows for
    ``a.T.sum(axis=0)``, its columns for ``a.T.sum(axis=1)``)."""
    a = np.random.default_rng(3).standard_normal((300, 70)).astype(np.float32) * np.float32(1e3)
    a[::3] = np.float32(1e-3)
    flat = documented_sum(a.ravel())
    for view in (lambda a: a.T, lambda a: a.T * 1):
        assert _full_sum(view)(a) == flat
    # a negative stride is read backwards, as NumPy's reductions read it (never turned around),
    # the reversed axes merged into one row where they lie contiguously (NumPy coalesces them)
    backwards = documented_sum(a[::-1, ::-1].ravel())
    for view in (lambda a: a[::-1, ::-1], lambda a: a.T[::-1, ::-1]):
        assert _full_sum(view)(a) == backwards == view(a).sum()
    rows, columns = jc.jit(lambda a: a.sum(axis=1))(a), jc.jit(lambda a: a.sum(axis=0))(a)
    assert (jc.jit(lambda a: a.T.sum(axis=0))(a) == rows).all()
    assert (jc.jit(lambda a: a.T.sum(axis=1))(a) == columns).all()
    flipped_rows = jc.jit(lambda a: a[:, ::-1].sum(axis=1))(a)  # each row read backwards
    assert (flipped_rows == documented_sum(a[:, ::-1].T)).all()
    assert (flipped_rows == a[:, ::-1].sum(axis=1)).all()
    assert (rows == documented_sum(a.T)).all()


def test_a_non_contiguous_argument_is_summed_in_memory_order_bit_for_bit():
    """The same rule for arguments whose strides are known only at run time: a Fortran-ordered
    or reversed argument dense in memory is summed as the C-contiguous array it lies as
    (``schedule._dense_twins``); a stepped one (not dense) in C order of its values."""
    from tests.layouts import relayout

    a = np.random.default_rng(4).standard_normal((300, 70)).astype(np.float32) * np.float32(1e3)
    a[::3] = np.float32(1e-3)
    f = relayout(a, "F")
    lying = np.ascontiguousarray(f.T)  # f's memory as a C array
    assert SUM(f) == SUM(lying) == documented_sum(lying.ravel())
    assert (SUM_ROWS(f) == SUM_COLUMNS(lying)).all()
    assert (SUM_COLUMNS(f) == SUM_ROWS(lying)).all()
    r = relayout(a, "reversed")  # read backwards, in its own index order, as NumPy reads it
    assert SUM(r) == documented_sum(np.ascontiguousarray(r).ravel()) == r.sum()
    assert (SUM_ROWS(r) == SUM_ROWS(np.ascontiguousarray(r))).all()
    assert (SUM_ROWS(r) == r.sum(axis=1)).all()
    s = relayout(a, "strided")
    np.testing.assert_allclose(SUM(s), a.sum(dtype=np.float64), rtol=1e-5)


def test_a_stepped_argument_is_summed_in_the_documented_order_bit_for_bit():
    """An argument stepped along its rows (``a[::2, ::2]``, strides known only at run time)
    is read block by block through a contiguous copy (``RowReduction._copied``): the same
    elements in the same order, so each row's sum is the documented one, the whole sum
    NumPy's (its buffer of 8192 holds all 9 rows: one pairwise sum, ``buffered_sum.py``), a
    long 1-d one (in pieces) and a math body's sum the contiguous array's, and a stepped bool
    mask reads as it lies."""
    from tests.layouts import relayout

    a = np.random.default_rng(5).standard_normal((9, 600)).astype(np.float32) * np.float32(1e3)
    a[:, ::3] = np.float32(1e-3)  # 600: 2 blocks, 5 groups and 8 elements of tail a row
    s = relayout(a, "strided")
    rows = documented_sum(a.T)
    assert (SUM_ROWS(s) == rows).all()
    assert SUM(s) == s.sum() == documented_sum(a.ravel())
    flat = relayout(a.ravel(), "strided")
    assert SUM(flat) == SUM(a.ravel()) == documented_sum(a.ravel())
    exp_rows = jc.jit(lambda x: np.exp(x * 1e-3).sum(axis=1))
    assert (exp_rows(s) == exp_rows(a)).all()
    masked = jc.jit(lambda x, m: np.where(m, x, 0).sum(axis=1))
    m = a > 0
    assert (masked(s, relayout(m, "strided")) == masked(a, m)).all()


def _ending_at_a_guard_page(shape: tuple, dtype) -> np.ndarray:
    """A zeroed C array whose last byte is the last before a page that may not be read, so
    that a load of one element past its end faults."""
    import ctypes
    import mmap

    page = mmap.PAGESIZE
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    pages = -(-nbytes // page)
    region = mmap.mmap(-1, (pages + 1) * page)
    start = ctypes.addressof(ctypes.c_char.from_buffer(region))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.mprotect(start + pages * page, page, 0) == 0, ctypes.get_errno()  # PROT_NONE
    x = np.frombuffer(region, dtype, count=int(np.prod(shape)), offset=pages * page - nbytes)
    return x.reshape(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_and_columns_of_stride_two_and_three_are_the_contiguous_sums_bit_for_bit(dtype):
    """A run-time stride of 2 along a row is copied by masked vector loads and shuffles, any
    other stride by scalar loads (``strided_copy.py``), for row sums and for the tiles of
    column sums: each gives the contiguous array's bits (rows: the documented order). The
    view's last element is its buffer's last, before a page that faults when read: the
    masked lane past it is never read."""
    rng = np.random.default_rng(21)
    rows, columns = 6, 600  # a row: 2 blocks and a tail; columns: tiles of 300, 18 groups and 12
    sums = jc.jit(lambda a: (a.sum(axis=1), a.sum(axis=0)))
    for step in (2, 3):
        big = _ending_at_a_guard_page((rows * step - step + 1, columns * step - step + 1), dtype)
        view = big[::step, ::step]
        assert view.shape == (rows, columns)
        view[...] = rng.standard_normal((rows, columns)) * 1e3
        view[:, ::3] = dtype(1e-3)
        dense = np.ascontiguousarray(view)
        got_rows, got_columns = sums(view)
        want_rows, want_columns = sums(dense)
        assert (got_rows == documented_sum(dense.T)).all() and (got_rows == want_rows).all()
        assert (got_columns == want_columns).all()


def test_float64_slices_of_a_constant_step_are_read_through_copies_bit_for_bit():
    """A float64 slice taken inside the function (``a[:, ::2]``: a map ``d1 * 2``, a constant
    step) is copied run by run as a run-time stride is (``strided_copy.py``; read in place,
    LLVM made gathers of it): max, min and argmax are NumPy's, row and column sums the
    contiguous slice's bits, the whole sum NumPy's (its buffered order, ``buffered_sum.py``).
    The buffer ends before a page that faults."""
    rng = np.random.default_rng(33)
    a = _ending_at_a_guard_page((40, 601), np.float64)  # rows of 301 and 201: blocks and tails
    a[...] = rng.standard_normal(a.shape) * 1e3
    a[3, 10], a[5, :] = -0.0, 0.0
    stepped = jc.jit(lambda a: (a[:, ::2].max(), a[::-1, ::2].min(axis=1), a[::2, ::2].argmax(),
                                a[:, ::3].sum(axis=1), a[:, ::2].sum(axis=0), a[:, ::2].sum()))
    dense = jc.jit(lambda s2, r2, s3: (s3.sum(axis=1), s2.sum(axis=0)))
    top, row_min, best, row_sums, column_sums, total = stepped(a)
    assert top == a[:, ::2].max() and best == a[::2, ::2].argmax()
    assert np.array_equal(np.signbit(row_min), np.signbit(a[::-1, ::2].min(axis=1)))
    assert (row_min == a[::-1, ::2].min(axis=1)).all()
    copies = [np.ascontiguousarray(v) for v in (a[:, ::2], a[::-1, ::2], a[:, ::3])]
    for got, want in zip((row_sums, column_sums), dense(*copies)):
        assert np.array_equal(np.asarray(got), np.asarray(want))
    assert total == a[:, ::2].sum()


@pytest.mark.parametrize("layout", ["strided", "reversed"])
def test_a_long_1d_strided_argument_summed_in_pieces_compiles(layout):
    """Found by fuzzing (session 30): a whole 1-d sum long enough to run in pieces (its partials
    in a scratch buffer) over an argument of run-time strides had no twin, and the layout
    dispatch around its general kernel asserted that no scratch pointer followed lo and hi."""
    from tests.layouts import relayout

    a = np.arange(1000, dtype=np.float64) % 7 - 3
    x = relayout(a, layout)
    assert jc.jit(lambda x: x.sum())(x) == a.sum()
    assert jc.jit(lambda x: np.exp(x * 0.5).sum())(x) == pytest.approx(np.exp(a * 0.5).sum(), rel=1e-12)


def _reversed_sums(x):
    return x[::-1].sum(), np.cumsum(x[::-1])[::-1].sum(), x[::-1].mean()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reversed_views_sum_as_numpys_bit_for_bit(dtype):
    """NumPy's reductions read a negative stride backwards (they never turn it around), so
    ``x[::-1].sum()`` is in general not ``x.sum()``: a life table's reversed cumulative total
    differed from NumPy's in the last bit (session 52, u3 W2). Axis sums of reversed views too."""
    rng = np.random.default_rng(11)
    f, g = jc.jit(_reversed_sums), jc.jit(lambda a: (a[::-1, ::-1].sum(), a[::-1].sum(axis=0),
                                                     a[:, ::-1].sum(axis=1)))
    for n in (333, 4097):
        x = rng.random(n).astype(dtype)
        for got, want in zip(f(x), _reversed_sums(x)):
            assert got == want
    a = rng.random((37, 301)).astype(dtype)
    for got, want in zip(g(a), (a[::-1, ::-1].sum(), a[::-1].sum(axis=0), a[:, ::-1].sum(axis=1))):
        assert np.array_equal(got, want)
