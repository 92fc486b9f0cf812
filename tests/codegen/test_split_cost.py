"""What the thread threshold weighs (codegen/cpu/cost.py): a kernel that only moves data counts a
64th of its points, one of arithmetic only a quarter per 32 bits of its elements, one that calls
the math library a point per call in float32 and three in float64; the weight moves where the
threshold falls, never which chunks a split kernel is cut into, so the bits do not change."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.codegen import host
from jitcore.codegen.cpu import cost, runtime
from jitcore.ir.dialects import kernel

rng = np.random.default_rng(7)


def _kernels(fn, *args):
    func = jc.jit(fn).lower(*args).optimized()
    return [op for op in func.walk() if isinstance(op, kernel.GenericOp)]


@pytest.mark.parametrize("fn, weights", [
    (lambda x: np.sqrt(np.sum(np.abs(x) ** 2, 1)), [cost.CHEAP_WEIGHT]),  # a row norm: sum, sqrt epilogue
    (lambda x: np.exp(np.max(x, 1)), [cost.CHEAP_WEIGHT]),  # the exp runs per row, not per point
    (lambda x: np.floor(x * 2 + 1), [cost.CHEAP_WEIGHT]),
    (lambda x: np.exp(-x), [1]),
    (lambda x: np.sum(np.log(x), 1), [1]),
    (lambda x: x ** 2.5, [1]),
    (lambda x: np.sum(np.log(np.exp(x)), 1), [2]),  # two calls of the math library
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_body_weighs_its_math_calls_and_its_width(fn, weights, dtype):
    x = rng.random((4, 8)).astype(dtype)
    ops = _kernels(fn, x)
    wide = np.dtype(dtype).itemsize // 4  # float64: half the lanes, and longer polynomials
    expected = [w * wide if w < 1 else w * cost.MATH_WEIGHT[32 * wide] for w in weights]
    assert [cost.weight(op) for op in ops] == expected
    assert [cost.is_cheap(op) for op in ops] == [w < 1 for w in weights]
    for op, w in zip(ops, expected):
        points = int(np.prod(op.domain()))
        assert not cost.only_moves_data(op)
        assert cost.threshold_work(op) == int(points * w)


@pytest.mark.parametrize("fn, moves", [
    (lambda x: np.roll(x, 3), True),
    (lambda x: np.concatenate([x, x[::-1]]), True),
    (lambda x: np.pad(x, 2), True),
    (lambda x: x[1:] - x[:-1], False),
    (lambda x: np.where(x > 0, x, 0), False),  # a test on the elements: arithmetic
    (lambda x: x + 1, False),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_copies_only_move_data(fn, moves, dtype):
    x = rng.standard_normal(64).astype(dtype)
    (op,) = _kernels(fn, x)
    assert cost.only_moves_data(op) == moves
    points = int(np.prod(op.domain()))
    wide = np.dtype(dtype).itemsize // 4  # a copy weighs the same at any width: memory-bound
    assert cost.weight(op) == (cost.COPY_WEIGHT if moves else cost.CHEAP_WEIGHT * wide)
    assert cost.threshold_work(op) == int(points * cost.weight(op))


def _threshold_constants(fn, x) -> list[int]:
    """The work constants the entry compares with the ``parallel_threshold`` setting's hot
    window (``runtime.emit_launch``), each passed on to the process's launcher, which compares
    it with the threshold itself."""
    text = jc.jit(fn).lower(x).as_text("llvm")
    found = [int(m) for m in re.findall(r"icmp sge i64 (\d+), %\"?[\w.]+\"?\n", text)]
    launcher = rf'call void @"{runtime.RUN_CHUNKS_SYMBOL}_of_\d+"\('
    passed = re.findall(launcher + r".*, i64 (\d+), i64 \d+, i64 \d+, i64 \d+\)\n", text)
    assert found == [int(w) for w in passed], (found, passed)
    return found


def test_the_entry_compares_the_weighed_work_with_the_threshold(monkeypatch):
    # Fixed-size code, where the weighed work is a constant (size-generic code weighs the
    # run-time extents' product: test_a_light_kernel_splits_the_same_bits_at_its_threshold).
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    x = np.ones((512, 512), np.float32)  # 2^18 points: a split kernel either way
    assert _threshold_constants(lambda x: x * 2 + 1, x) == [int((1 << 18) * cost.CHEAP_WEIGHT)]
    assert _threshold_constants(lambda x: np.exp(x), x) == [1 << 18]
    assert _threshold_constants(lambda x: np.roll(x, 3), x) == [int((1 << 18) * cost.COPY_WEIGHT)]
    heavy = (1 << 18) * 2 * cost.MATH_WEIGHT[64]  # exp and log in float64
    log_exp = jc.jit(lambda x: np.sum(np.log(np.exp(x)))).lower(x.astype(np.float64)).as_text("llvm")
    assert f"icmp sge i64 {heavy}, " in log_exp
    # while its chunks are counted in points (passed after the weighed work)
    assert f"i64 {heavy}, i64 {1 << 18}, " in log_exp


@pytest.mark.parametrize("fn, dtype", [(lambda x: np.sqrt(np.sum(x * x, 1)), np.float32),
                                       (lambda x: np.roll(x, 5, axis=1), np.float32),
                                       (lambda x: np.sum(np.log(np.exp(x)), 1), np.float64)])
def test_a_kernel_splits_the_same_bits_at_its_threshold(fn, dtype):
    f = jc.jit(fn)
    x = rng.standard_normal((64, 4096)).astype(dtype)
    (op, *_) = _kernels(fn, x)
    work = int(x.size * cost.weight(op))
    with config.using(num_threads=1, parallel_threshold=1 << 62):
        whole = f(x)
    for threshold in (work, work + 1):  # split on two threads, then whole
        with config.using(num_threads=2, parallel_threshold=threshold, chunk_size=1000):
            np.testing.assert_array_equal(f(x), whole)
    np.testing.assert_allclose(whole, fn(x.astype(np.float64)), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_sum_down_columns_is_cut_into_chunks_of_whole_row_runs(monkeypatch, dtype):
    """Chunks of a column sum split along its columns span COLUMN_CHUNK_BYTES of each row (a
    chunk of a few columns walks the whole matrix in short strided runs), and give the same
    bits however the columns are cut."""
    from jitcore.codegen.cpu.backend import COLUMN_CHUNK_BYTES

    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    x = rng.standard_normal((40, 17000)).astype(dtype)  # rows of 64 KiB or more: not cut into pieces
    f = jc.jit(lambda x: np.sum(x, axis=0))
    per_chunk = COLUMN_CHUNK_BYTES // np.dtype(dtype).itemsize
    # the launcher's extent, weighed work, points, least columns per chunk, cap per thread
    assert re.search(rf"i64 17000, i64 \d+, i64 \d+, i64 {per_chunk}, i64 0\)", f.lower(x).as_text("llvm"))
    with config.using(num_threads=1, parallel_threshold=1 << 62):
        whole = f(x)
    with config.using(num_threads=2, parallel_threshold=0, chunk_size=1):
        np.testing.assert_array_equal(f(x), whole)
    # (absolute: a column of 300 normals may sum near zero)
    np.testing.assert_allclose(whole, x.astype(np.float64).sum(axis=0), atol=300 * np.finfo(dtype).eps * 4)
