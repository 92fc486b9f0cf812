"""Reductions whose terms outside a window per output are masked run over the window alone
(session 45, ``codegen/masked_rows.py``): the full autocorrelation's triangle, a convolution's
ends. The analysis on the optimized IR; the results differential against NumPy (every dtype
family, nan and inf, lengths 1, both argument orders); the order of a window's sum is the
documented one of a row that starts at the window (bit for bit against the sum of the window
as its own array), whatever the host's vector width."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.masked_rows import _is_identity, masked_row
from jitcore.ir import parse
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel
from jitcore.numpy.manipulation import SHIFTED_TAPS

LONG = SHIFTED_TAPS + 9  # a window the gathered (long) form computes


def reductions(fn, *args) -> list[kernel.GenericOp]:
    """The optimized program's reduction kernels (nested in branches too)."""
    found = []

    def walk(op: Operation):
        if isinstance(op, kernel.GenericOp) and op.has_reduction:
            found.append(op)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    walk(inner)

    walk(parse(jc.jit(fn).lower(*args).as_text("optimized")))
    return found


def test_the_full_autocorrelation_is_one_masked_row_per_output():
    """Output ``d0`` reads the zero-padded source (299 zeros each side) at ``d0 + d1``; its
    terms are kept for ``299 - d0 <= d1 < 599 - d0``: the overlap, no branch on w's values."""
    (op,) = reductions(lambda x: np.correlate(x, x, "full"), np.zeros(300))
    row = masked_row(op)
    assert row is not None and row.kept is False
    assert row.lowers == (({0: -1}, 299),) and row.uppers == (({0: -1}, 599),)


@pytest.mark.parametrize("mode", ["same", "full"])
def test_a_long_convolution_past_its_ends_is_masked_rows(mode):
    ops = reductions(lambda x, k: np.convolve(x, k, mode), np.zeros(500), np.zeros(LONG))
    assert len(ops) == 1 and masked_row(ops[0]) is not None


def test_a_valid_convolution_has_no_mask():
    ops = reductions(lambda x, k: np.convolve(x, k, "valid"), np.zeros(500), np.zeros(LONG))
    assert len(ops) == 1 and masked_row(ops[0]) is None


def test_only_the_combines_identity_may_be_left_out():
    def named(name):
        return type("Combine", (), {"op_name": name})()

    assert _is_identity(named("arith.addf"), -0.0, 5.0)  # x + -0.0 == x for every x
    assert _is_identity(named("arith.addf"), 0.0, 0.0)  # from +0.0 a sum is never -0.0
    assert not _is_identity(named("arith.addf"), 0.0, -0.0)  # -0.0 + 0.0 is +0.0
    assert not _is_identity(named("arith.addf"), 1.0, 0.0)
    assert _is_identity(named("arith.mulf"), 1.0, 1.0)
    assert _is_identity(named("arith.maximumf"), -math.inf, -math.inf)
    assert not _is_identity(named("arith.maximumf"), math.inf, -math.inf)
    assert _is_identity(named("arith.addi"), 0, 0) and not _is_identity(named("arith.addi"), 1, 0)
    assert _is_identity(named("arith.ori"), False, False)
    assert not _is_identity(named("arith.andi"), False, True)


DTYPES = [np.float64, np.float32, np.complex128, np.complex64, np.int64, np.int32, np.uint8, np.bool_]
LENGTHS = [(1, 1), (1, LONG), (LONG, 1), (3, LONG), (LONG, LONG), (2 * LONG + 5, LONG), (LONG, 3 * LONG + 1)]


def _data(rng, n, dtype):
    x = rng.standard_normal(n) * 4
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(n) * 4
    return x.astype(dtype)


def _assert_matches(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.dtype(dtype).kind in "fc":
        rtol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11
        scale = max(1.0, float(np.nanmax(np.abs(want[np.isfinite(want)]), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale * 8, equal_nan=True)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_every_mode_and_length_matches_numpy(name, dtype):
    rng = np.random.default_rng(45)
    fn = getattr(np, name)
    for mode in ("full", "same", "valid"):
        f = jc.jit(lambda a, v, mode=mode: fn(a, v, mode))
        for n, m in LENGTHS:
            a, v = _data(rng, n, dtype), _data(rng, m, dtype)
            _assert_matches(f(a, v), fn(a, v, mode), dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_the_autocorrelation_matches_numpy(dtype):
    rng = np.random.default_rng(7)
    f = jc.jit(lambda x: np.correlate(x, x, "full"))
    for n in (1, 2, 17, LONG, 300):
        x = _data(rng, n, dtype)
        _assert_matches(f(x), np.correlate(x, x, "full"), dtype)


@pytest.mark.parametrize("where", ["a", "v"])
@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
def test_nan_and_inf_spoil_only_the_outputs_whose_overlap_reaches_them(where, special):
    """NumPy leaves the terms past a's ends out: an inf at v's end is not ``0 * inf``."""
    rng = np.random.default_rng(3)
    for mode in ("full", "same", "valid"):
        f = jc.jit(lambda a, v, mode=mode: np.convolve(a, v, mode))
        for n, m in ((2 * LONG, LONG), (LONG, 2 * LONG)):
            a, v = rng.standard_normal(n), rng.standard_normal(m)
            (a if where == "a" else v)[[0, -1]] = special
            with np.errstate(invalid="ignore"):
                _assert_matches(f(a, v), np.convolve(a, v, mode), np.float64)


def test_negative_zeros_left_out_as_numpy_leaves_them():
    a, v = np.full(LONG, -0.0), np.full(LONG, 1.0)
    got = jc.jit(lambda a, v: np.convolve(a, v, "full"))(a, v)
    want = np.convolve(a, v, "full")
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_windows_sum_is_the_documented_row_from_its_first_term(dtype):
    """Output k of the full autocorrelation adds its overlap's products in the order of a row
    that starts at the overlap. Until session 46 that was the order of a plain sum of those
    products too (the same bits); plain float sums now follow NumPy's pairwise order
    (pairwise46), a window's keeps its row's, so the two agree to a few ulps."""
    rng = np.random.default_rng(11)
    n = 300
    x = rng.standard_normal(n).astype(dtype)
    got = jc.jit(lambda x: np.correlate(x, x, "full"))(x)
    dot = jc.jit(lambda a, b: (a * b).sum())
    for k in (40, 150, 299, 310, 500, 560):
        lo, hi = max(0, n - 1 - k), min(n, 2 * n - 1 - k)
        shift = k - (n - 1)
        want = dot(x[lo + shift: hi + shift], x[lo:hi])
        eps = np.finfo(dtype).eps
        assert abs(got[k] - want) <= 8 * eps * np.abs(x[lo + shift: hi + shift] * x[lo:hi]).sum(), k
