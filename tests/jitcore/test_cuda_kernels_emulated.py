"""The GPU schedules beyond the basic ones, run on the emulated device (``tests/gpu_emulator.py``)
against NumPy: the tiled matrix product (``codegen/nvptx/matmul.py``). On a real GPU the same
functions run in ``test_cuda_runtime.py``'s GPU tests and ``tools/gpu_check.py``."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.nvptx import matmul

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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_matmul_emulated(emulated, dtype):
    """Sizes that are not multiples of the tile (4 x 2 = 8) or the slab depth (4), one row or
    column, a product deeper than one slab, transposed and batched operands."""
    for m, k, n in [(9, 13, 7), (17, 3, 20), (1, 9, 8), (8, 8, 1), (8, 4, 8)]:
        a = RNG.standard_normal((m, k)).astype(dtype)
        b = RNG.standard_normal((k, n)).astype(dtype)
        assert_product_close(run_emulated(lambda p, q: p @ q, a, b), a, b)
    a = RNG.standard_normal((6, 11)).astype(dtype)
    assert_product_close(run_emulated(lambda p: p.T @ p, a), a.T, a)
    a, b = RNG.standard_normal((2, 5, 6)).astype(dtype), RNG.standard_normal((2, 6, 9)).astype(dtype)
    got = run_emulated(lambda p, q: p @ q, a, b)
    for i in range(2):
        assert_product_close(got[i], a[i], b[i])
    tiled = [block == matmul.threads() for _, _, block in emulated.launches]
    assert sum(tiled) == 5, emulated.launches  # all but the vector products (m or n = 1)


def test_tiled_matmul_order_is_fixed(emulated):
    """Each result is ``fma(a[m, k], b[k, n], c)`` for k in order from 0: with exactly
    representable products and sums the result is exact, and a cancellation shows the order
    (from the other end, or in pairs, the sum is 0 where k order gives 1)."""
    a = np.array([[2.0**60, 1.0, -(2.0**60), 1.0]])
    b = np.ones((4, 1))
    got = run_emulated(lambda p, q: p @ q, np.repeat(a, 3, axis=0), np.repeat(b, 5, axis=1))
    # k order: 2**60 + 1 -> 2**60 (rounded), - 2**60 -> 0, + 1 -> 1
    np.testing.assert_array_equal(got, np.ones((3, 5)))
