"""Slice copies into regions, session 48: a region write whose value is a slice, a reshape that
adds or drops extent-1 axes between them (``cols[:, :, i, j, :, :] = x[:, :, i:i + oh, j:j + ow]``
in im2col), is one kernel reading the slice's source through the composed map, not a slice
copy and a write (``passes/fuse.py``). NumPy running the same Python is the oracle (values,
dtypes, Python types, arguments after the call)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

DTYPES = [np.float32, np.float64, np.int64, np.int32, np.bool_, np.complex128]


def im2col(x, kh, kw):
    N, C, H, W = x.shape
    oh, ow = H - kh + 1, W - kw + 1
    cols = np.empty((N, C, kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j, :, :] = x[:, :, i:i + oh, j:j + ow]
    return cols.transpose(0, 4, 5, 1, 2, 3).reshape(N * oh * ow, -1)


def fill(x):
    N, C, H, W = x.shape
    cols = np.empty((N, C, 3, 3, H - 2, W - 2), dtype=x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, i, j, :, :] = x[:, :, i:i + H - 2, j:j + W - 2]
    return cols


def scaled_columns(out, x):
    """Region writes of computed values through a unit axis, into an argument."""
    for j in range(out.shape[1]):
        out[:, j, :] = np.sin(x[:, j:j + out.shape[2]]) * 2
    return out.sum()


def two_columns(out, x):
    out[:, 0, :] = np.sin(x[:, :6]) * 2 + 1
    out[:, 2, :] = np.sin(x[:, 3:]) * 2 + 1
    return out


def kernels(f, *args, **static):
    text = jc.jit(f, static_argnames=tuple(static)).lower(*args, **static).as_text("optimized")
    return text.count('"kernel.generic"'), text


def sample(shape, dtype, rng):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_im2col_matches_numpy(dtype):
    x = sample((2, 3, 6, 5), dtype, np.random.default_rng(1))
    before = x.copy()
    same(jc.jit(im2col, static_argnames=("kh", "kw"))(x, kh=3, kw=2), im2col(x, 3, 2))
    same(x, before)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(0, 2), c=st.integers(1, 3), h=st.integers(3, 7), w=st.integers(3, 7),
       f64=st.booleans())
def test_im2col_shapes(n, c, h, w, f64):
    dtype = np.float64 if f64 else np.float32
    x = sample((n, c, h, w), dtype, np.random.default_rng(h * w))
    same(jc.jit(fill)(x), fill(x))


def test_im2col_of_a_strided_argument():
    base = sample((2, 3, 10, 12), np.float64, np.random.default_rng(2))
    x = base[:, ::-1, ::2, 1::2]  # strided and reversed: its layout is known only at run time
    same(jc.jit(fill)(x), fill(x))
    same(jc.jit(im2col, static_argnames=("kh", "kw"))(x, kh=2, kw=3), im2col(x, 2, 3))


def test_unit_kernel_and_window_of_one():
    x = sample((1, 1, 3, 3), np.float32, np.random.default_rng(3))
    same(jc.jit(fill)(x), fill(x))  # each region is 1x1
    same(jc.jit(im2col, static_argnames=("kh", "kw"))(x, kh=1, kw=1), im2col(x, 1, 1))


def test_computed_values_written_into_an_argument():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 9))
    out_jit, out_np = np.zeros((5, 4, 6)), np.zeros((5, 4, 6))
    got, want = jc.jit(scaled_columns)(out_jit, x), scaled_columns(out_np, x)
    assert type(got) is type(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(out_jit, out_np, rtol=1e-15)


def test_each_region_write_is_one_kernel():
    """9 region writes and the transpose: one kernel each, no slice copy before a write
    (before: 19, a copy kernel and a write kernel per region)."""
    x = np.zeros((4, 3, 8, 8), np.float32)
    count, text = kernels(im2col, x, kh=3, kw=3)
    assert count == 10, text
    assert '"array.reshape"(%' in text  # only the final reshape (of the transposed copy)
    assert text.count('"array.reshape"') == 1, text


def test_computed_value_fuses_through_the_added_axis():
    count, text = kernels(two_columns, np.zeros((5, 4, 6)), np.zeros((5, 9)))
    # 2 writes, each computing sin(x) * 2 + 1 in its body (3 ops: fused as read once, not as
    # cheap; the write's extent-1 dim is no repeated read)
    assert count == 2, text
    assert text.count('"math.sin"') == 2 and '"array.reshape"' not in text, text
    out_jit, out_np = np.ones((5, 4, 6)), np.ones((5, 4, 6))
    x = np.random.default_rng(5).standard_normal((5, 9))
    np.testing.assert_allclose(jc.jit(two_columns)(out_jit, x), two_columns(out_np, x), rtol=1e-12)
    np.testing.assert_allclose(out_jit, out_np, rtol=1e-12)


def last_kernel_domain(text):
    domains = [line for line in text.splitlines() if "domain = [" in line]
    return [int(n) for n in domains[-1].split("domain = [")[1].split("]")[0].split(", ")]


def test_transpose_reads_a_longer_run_than_a_short_output_run():
    """im2col's final copy writes runs of kw = 3 floats (less than a cache line) and reads
    runs of ow = 30: the loop along ow goes innermost."""
    _, text = kernels(im2col, np.zeros((4, 3, 32, 32), np.float32), kh=3, kw=3)
    assert last_kernel_domain(text)[-1] == 30, text


@pytest.mark.parametrize("shape", [(256, 4096), (30, 2000), (4096, 256)])
def test_transpose_keeps_output_order_past_a_cache_line(shape):
    a = np.zeros(shape, np.float32)
    _, text = kernels(lambda a: np.ascontiguousarray(a.T), a)
    assert last_kernel_domain(text) == [shape[1], shape[0]], text


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3, 40), (2, 40, 3), (0, 3, 40), (1, 1, 1)])
def test_transposes_match_numpy(dtype, shape):
    a = sample(shape, dtype, np.random.default_rng(6))

    def f(a):
        return np.ascontiguousarray(a.transpose(0, 2, 1)), a[:, :, ::2].T.copy()
    got, want = jc.jit(f)(a), f(a)
    assert type(got) is type(want)
    for g, w in zip(got, want):
        same(g, w)


def layernorm(x):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5)


def test_a_reductions_keepdims_keeps_its_reshape():
    """Only reshapes of kernels that fusing may take in are read through: the variance's
    ``+ 1e-5`` stays its reduction's epilogue (3 kernels), and the values are NumPy's."""
    x = np.random.default_rng(7).standard_normal((6, 40)).astype(np.float32)
    count, text = kernels(layernorm, x)
    assert count == 3, text
    np.testing.assert_allclose(jc.jit(layernorm)(x), layernorm(x), rtol=1e-5, atol=1e-5)
