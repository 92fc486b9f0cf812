"""Column sums of tall, narrow matrices in pieces of rows (codegen/cpu/column_pieces.py): the
bits of the unsplit kernel on any number of threads, for any chunking, and the documented
order's error bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config
from jitcore.codegen import host
from jitcore.codegen.cpu import column_pieces, runtime
from jitcore.codegen.cpu.reduction import STEPS

rng = np.random.default_rng(21)
THREADS = (1, 2, 3, 7)


def _run(f, args, threads, threshold=0, chunk_size=1):
    with config.using(num_threads=threads, parallel_threshold=threshold, chunk_size=chunk_size):
        return np.asarray(f(*args))


def _unsplit(fn, args, monkeypatch):
    """``fn`` compiled unsplit: one call sums every column down all the rows."""
    with monkeypatch.context() as m:
        m.setattr(runtime, "MIN_SPLIT_WORK", 1 << 62)
        m.setattr(host, "SIZE_GENERIC", False)  # size-generic code is split at every size
        f = jc.jit(fn)
        assert runtime.RUN_CHUNKS_SYMBOL not in f.lower(*args).plan().llvm_ir
        return np.asarray(f(*args))


def test_pieces_are_a_function_of_the_shape():
    assert column_pieces.piece_rows(100_000, 16, 4) % STEPS == 0
    for rows, columns, itemsize in [(100_000, 16, 4), (10_000, 256, 8), (1_000_000, 4, 4), (5000, 3, 8)]:
        size = column_pieces.piece_rows(rows, columns, itemsize)
        blocks = size // STEPS
        assert blocks & (blocks - 1) == 0  # a power of two of blocks: whole cascade subtrees
        assert rows // size <= column_pieces.MAX_PIECES
        assert math.ceil(rows / size) * columns * itemsize <= column_pieces.MAX_PARTIALS_BYTES
    assert column_pieces.narrow(8192, 4) and not column_pieces.narrow(16384, 4)


CASES = {
    "sum": (lambda x, y: x.sum(axis=0), np.float32, (5000, 7)),
    "mean-f64": (lambda x, y: x.mean(axis=0), np.float64, (3001, 5)),
    "fused-producer": (lambda x, y: (x * y - 1).sum(axis=0), np.float32, (4099, 3)),
    "keepdims-f64": (lambda x, y: jnp.sum(x, axis=0, keepdims=True), np.float64, (2500, 33)),
    "prod": (lambda x, y: (1 + x / 1000).prod(axis=0), np.float64, (2100, 9)),
    # rows of 8-64 KiB: cut into pieces since colsum33 (they were split in column chunks)
    "wide-rows": (lambda x, y: x.sum(axis=0), np.float32, (1000, 2100)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pieces_give_the_unsplit_bits_on_any_threads(name, monkeypatch):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    fn, dtype, shape = CASES[name]
    x, y = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    x[:, 0] = -0.0  # a column of negative zeros, one with inf and NaN, one of large and tiny terms
    x[7, 1], x[900, 1] = np.inf, np.nan
    x[::3, 2] = dtype(1e-3)
    x[1::3, 2] = dtype(1e4)
    f = jc.jit(fn)
    assert runtime.RUN_CHUNKS_SYMBOL in f.lower(x, y).plan().llvm_ir, "not split"
    want = _unsplit(fn, [x, y], monkeypatch)
    np.testing.assert_array_equal(_run(f, [x, y], 1, threshold=1 << 62), want)
    for threads in THREADS:
        for chunk_size in (1, 7000):
            np.testing.assert_array_equal(_run(f, [x, y], threads, chunk_size=chunk_size), want,
                                          err_msg=f"{threads} threads, chunks of {chunk_size}")
    with np.errstate(invalid="ignore", over="ignore"):
        expected = np.asarray(fn(x.astype(np.float64), y.astype(np.float64)))
    np.testing.assert_allclose(want, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-3)
    assert f.cache_info().compiles == 1


def test_same_sign_terms_add_in_order_as_numpys(monkeypatch):
    # The premise changed: a float32/float64 column sum adds the rows one after another, as
    # NumPy's reduce does (reduction.numpy_pairwise), not in pieces of a cascade, so its
    # error is NumPy's: 2**17 + 5 rows of 1e-7 in float32 drift by ~1%, beyond the cascade's
    # (log2(n) + 2 * STEPS) * eps. What holds: NumPy's bits on any number of threads.
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    n = (1 << 17) + 5
    x = np.full((n, 4), 1e-7, np.float32)
    x[:, 1] = np.linspace(1, 2, n, dtype=np.float32)
    f = jc.jit(lambda x: x.sum(axis=0))
    want = x.sum(axis=0)
    for threads in THREADS:
        got = _run(f, [x], threads, chunk_size=1 << 14)
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32), err_msg=f"{threads} threads")
    eps = float(np.finfo(np.float32).eps)
    exact = math.fsum(x[:, 0].astype(np.float64))
    assert abs(float(want[0]) - exact) > (math.log2(n) + 2 * STEPS) * eps * exact  # NumPy's drift
