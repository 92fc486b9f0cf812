"""A row reduction's blocks side by side in cache, one at a time from memory
(``codegen/cpu/block_order.py``): the size test is emitted and decides the code, and the two
orders give the same bits. The IR and the values, not the speed: nothing here depends on the
host. Float sums take NumPy's pairwise order instead (``reduction.PairwiseRow``, its own leaves),
so the reductions here are the cascade's: products."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import block_order, reduction

LARGE = block_order.IN_CACHE_BYTES // 4 + 4099  # float32 elements just past the size test


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch):
    """Each compile here runs the code generator: the disk cache's key is the traced program,
    which the monkeypatched choices below do not change."""
    monkeypatch.setattr(jc.config, "disk_cache", False)


def llvm(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("llvm")


def choosing(monkeypatch, choice):
    """Every row reduction compiled meanwhile takes ``choice`` (True: one block at a time)."""
    monkeypatch.setattr(reduction, "reads_from_memory", lambda b, body, dim: choice)


PROD = lambda x: x.prod()  # noqa: E731  (a float sum: NumPy's pairwise order, no blocks)
DOT = lambda x, y: (x * y).prod()  # noqa: E731
ROWS = lambda a: a.prod(axis=1)  # noqa: E731


def test_size_generic_code_tests_the_size_at_run_time():
    """Size-generic code (the default) compares its inputs' bytes with ``IN_CACHE_BYTES``,
    for a whole product and for the rows of a matrix."""
    test = rf"icmp ugt i64 %[^,]+, {block_order.IN_CACHE_BYTES}\b"
    assert re.search(test, llvm(PROD, np.ones(LARGE, np.float32)))
    assert re.search(test, llvm(ROWS, np.ones((64, 3000), np.float32)))


def test_fixed_size_code_takes_the_order_its_size_says(monkeypatch):
    """Fixed-size code (``host.SIZE_GENERIC`` off) decides when it compiles: a large array's
    code is the one-at-a-time code, a small one's the side-by-side code."""
    from jitcore.codegen import host  # here: imported first, b88cf5f's host -> cpu -> host cycle fails

    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    large, small = np.ones(LARGE, np.float32), np.ones(4096, np.float32)
    chosen = llvm(PROD, large), llvm(PROD, small)
    assert str(block_order.IN_CACHE_BYTES) not in chosen[0] + chosen[1]
    choosing(monkeypatch, True)
    in_order = llvm(PROD, large), llvm(PROD, small)
    choosing(monkeypatch, False)
    side_by_side = llvm(PROD, large), llvm(PROD, small)
    assert in_order[0] != side_by_side[0], "the choice changed nothing"
    assert chosen == (in_order[0], side_by_side[1])


def test_only_contiguous_inputs_count(monkeypatch):
    """Of a row product of ``a * v``, ``v`` broadcast along the rows (step 0) is not counted."""
    counted, plain = [], block_order.contiguous_inputs

    def spy(body, dim):
        counted.append([body.op.operands[i].type.shape for i in plain(body, dim)])
        return plain(body, dim)

    monkeypatch.setattr(block_order, "contiguous_inputs", spy)
    llvm(lambda a, v: (a * v).prod(axis=1), np.ones((64, 3000), np.float32), np.ones((64, 1), np.float32))
    assert counted and all(shapes == [(64, 3000)] for shapes in counted)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_orders_give_the_same_bits(dtype, monkeypatch):
    """Products, products of products and rows (runs of four, a pair, a single block, a tail)
    in both orders: bit for bit, on factors near 1 whose rounding shows any change of order."""
    rng = np.random.default_rng(7)
    n = 16 * 16 * 39 + 37  # 39 blocks of either dtype's lanes and a tail
    x = (1 + rng.standard_normal(n) * 1e-3).astype(dtype)
    y = (1 + rng.standard_normal(n) * 1e-3).astype(dtype)
    a = x[:n - n % 1001].reshape(-1, 1001)
    fns, args = [PROD, DOT, ROWS], [(x,), (x, y), (a,)]
    results = {}
    for choice in (True, False):
        choosing(monkeypatch, choice)
        results[choice] = [np.asarray(jc.jit(f)(*xs)).tobytes() for f, xs in zip(fns, args)]
    assert results[True] == results[False]
