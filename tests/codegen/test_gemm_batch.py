"""Batches of matrix products on jitcore's tiled kernel (``tiled_gemm._run_batch``), against NumPy.

As in ``test_tiled_gemm.py``, NumPy's BLAS is the oracle within ``4 * k * eps * sum(|a| |b|)``,
and the blocks are made tiny so that a few dozen elements cross several k, row and column
blocks and the chunks of the range cross from one product of the batch into the next.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import blas, gemm, tiled_gemm
from tests.budget import examples
from tests.codegen.test_tiled_gemm import check, compiled


@pytest.fixture
def tiled(monkeypatch):
    """Every batch of single-dim float products on the tiled kernel, whatever the rule says."""
    monkeypatch.setattr(gemm, "TILED_MIN_SIDE", 0)
    monkeypatch.setattr(gemm, "TILED_MIN_WORK", 0)
    monkeypatch.setattr(gemm, "TILED_MIN_BATCHED_WORK", 0)


@pytest.fixture
def small_blocks(tiled, monkeypatch):
    monkeypatch.setattr(tiled_gemm, "KC_BYTES", 40)  # 10 values of k
    monkeypatch.setattr(tiled_gemm, "MC_ROWS", 1)
    monkeypatch.setattr(tiled_gemm, "NC_COLS", 1)
    monkeypatch.setattr(tiled_gemm, "MIN_SPLIT_WORK", 0)  # each product in several blocks
    monkeypatch.setattr(tiled_gemm, "MIN_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm, "SMALL_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 8)


def _swap(x):
    return np.swapaxes(x, -1, -2)


# (product, operand shapes from the batch shapes of A and B and m, k, n)
FORMS = {
    "a@b": (lambda a, b: a @ b, lambda ba, bb, m, k, n: ((*ba, m, k), (*bb, k, n))),
    "a.T@b": (lambda a, b: _swap(a) @ b, lambda ba, bb, m, k, n: ((*ba, k, m), (*bb, k, n))),
    "a@b.T": (lambda a, b: a @ _swap(b), lambda ba, bb, m, k, n: ((*ba, m, k), (*bb, n, k))),
    "a.T@b.T": (lambda a, b: _swap(a) @ _swap(b), lambda ba, bb, m, k, n: ((*ba, k, m), (*bb, n, k))),
    "strided": (lambda a, b: a[..., ::2, 1::2] @ b[..., ::2, :],
                lambda ba, bb, m, k, n: ((*ba, 2 * m, 2 * k), (*bb, 2 * k, n))),
}

# batch shapes of A and B: the same, one operand broadcast (a missing dim or extent 1), two dims
# (a dim read by A alone next to its rows, (3, m, k) @ (k, n), makes one product of 3m rows:
# a role of two dims, not a batch)
BATCHES = [((2,), (2,)), ((2, 1), (3,)), ((), (4,)), ((2, 1), (1, 3)), ((2, 3), (2, 3)), ((1,), (3,))]


@settings(max_examples=examples(16, 5), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(2, 30), k=st.integers(2, 30), n=st.integers(2, 30),
       dtype=st.sampled_from([np.float32, np.float64]), form=st.sampled_from(sorted(FORMS)),
       batch=st.sampled_from(BATCHES), seed=st.integers(0, 2**16))
def test_any_batch_shape_dtype_and_layout_matches_numpy(small_blocks, monkeypatch, m, k, n, dtype, form,
                                                         batch, seed):
    monkeypatch.setattr(tiled_gemm, "READ_A_IN_PLACE", seed % 2 == 0)
    product, shapes = FORMS[form]
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(*batch, m, k, n))
    check(compiled(product, a, b)(a, b), a, b, product)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_chunks_that_cross_products_give_the_one_thread_bits(small_blocks, dtype):
    """A batch's range counts each product's blocks in turn; a chunk that ends inside one
    product and goes on in the next gives the bits of one thread's single chunk."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 13, 17)).astype(dtype), rng.standard_normal((3, 17, 23)).astype(dtype)
    jitted = compiled(lambda a, b: a @ b, a, b)
    results = []
    for threads in (1, 2, 3):
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            results.append(jitted(a, b))
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)
    check(results[0], a, b, lambda a, b: a @ b)
    # each product of the batch is the single product's kernel: the same bits
    single = compiled(lambda a, b: a @ b, a[1], b[1])(a[1], b[1])
    np.testing.assert_array_equal(results[0][1], single)


@pytest.mark.parametrize("shapes", [((0, 5, 6), (0, 6, 7)), ((1, 5, 6), (1, 6, 7)), ((2, 5, 0), (2, 0, 7)),
                                    ((2, 1, 6), (2, 6, 7)), ((2, 5, 6), (2, 6, 1))])
def test_empty_and_unit_batches_and_extents(tiled, shapes):
    rng = np.random.default_rng(2)
    for dtype in (np.float32, np.float64):
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
        got = jc.jit(lambda a, b: a @ b, cache=False)(a, b)
        if got.size:
            check(got, a, b, lambda a, b: a @ b)
        else:
            assert got.shape == (a @ b).shape and got.dtype == dtype


@pytest.mark.skipif(blas.library() is None, reason="no BLAS in this process: nothing to choose between")
def test_the_rule_puts_batches_and_nested_roles_of_large_products_on_the_tile_and_small_ones_on_blas():
    side = round(gemm.TILED_MIN_BATCHED_WORK ** (1 / 3))
    rng = np.random.default_rng(0)
    for n, tiled_kernel in ((side, True), (side // 2, False)):
        a = rng.standard_normal((2, n, n)).astype(np.float32)
        text = jc.jit(lambda a, b: a @ b, cache=False).lower(a, a).plan().llvm_ir
        assert ("jitcore_gemm_micro" in text) == tiled_kernel
        assert ("cblas" in text) == (not tiled_kernel)
    # a tensordot over two axes likewise: compiled per size, so only where it is large
    for n, tiled_kernel in ((side, True), (side // 2, False)):
        a = rng.standard_normal((n, 8, n // 8)).astype(np.float32)
        b = rng.standard_normal((8, n // 8, n)).astype(np.float32)
        text = jc.jit(lambda a, b: np.tensordot(a, b, 2), cache=False).lower(a, b).plan().llvm_ir
        assert ("jitcore_gemm_micro" in text) == tiled_kernel


@pytest.mark.parametrize("shapes", [((2, 3, 11, 9), (2, 3, 9, 14)), ((2, 1, 11, 9), (1, 3, 9, 14))])
def test_two_batch_dims_each_product_at_its_own_offsets(small_blocks, shapes):
    """Two batch dims of different extents (the range's product index taken apart, last dim
    fastest), read by both operands or each broadcast by one."""
    rng = np.random.default_rng(9)
    a, b = (rng.standard_normal(s) for s in shapes)
    check(compiled(lambda a, b: a @ b, a, b)(a, b), a, b, lambda a, b: a @ b)


# Roles of several dims (``contraction.single_dim_roles``): nested in every operand that reads
# them, they run on the tiled kernel as one dim; not nested (a permuted pair), on BLAS as before.
ROLES = [
    ("tensordot 2 axes", lambda a, b: np.tensordot(a, b, 2), [(40, 6, 7), (6, 7, 50)], True),
    ("stacked rows", lambda a, b: a @ b, [(3, 20, 30), (30, 25)], True),
    ("two column dims", lambda a, b: np.einsum("ijk,klm->ijlm", a, b), [(4, 10, 12), (12, 5, 9)], True),
    ("a batch and two k dims", lambda a, b: np.einsum("bmpq,bpqn->bmn", a, b),
     [(2, 9, 3, 5), (2, 3, 5, 11)], True),
    ("permuted k", lambda a, b: np.tensordot(a, b, axes=([1, 2], [1, 0])), [(40, 6, 7), (7, 6, 50)], False),
    ("transposed stacked rows", lambda a, b: np.swapaxes(a, 1, 2) @ b, [(3, 30, 20), (30, 25)], False),
]


@pytest.mark.parametrize("label, product, shapes, nested", ROLES, ids=[r[0] for r in ROLES])
def test_roles_of_nested_dims_run_tiled_as_one_dim(tiled, label, product, shapes, nested):
    rng = np.random.default_rng(len(label))
    for dtype in (np.float32, np.float64):
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
        jitted = jc.jit(product, cache=False)
        text = jitted.lower(a, b).plan().llvm_ir
        assert ("jitcore_gemm_micro" in text) == nested
        got = jitted(a, b)
        want = product(a.astype(np.float64), b.astype(np.float64))
        scale = product(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
        k = np.prod(shapes[0]) // np.prod(want.shape[:1])  # at least the contracted length
        assert got.dtype == dtype and got.shape == want.shape
        assert np.all(np.abs(got - want) <= 4 * k * np.finfo(dtype).eps * scale + np.finfo(dtype).tiny)
