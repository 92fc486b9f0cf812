"""Transposing kernels walked in tiles where the transposed read's row stride is a multiple of
1 KiB (``codegen/cpu/transpose_tiles.py``): NumPy's values on the tiled path (whole tiles,
leftover rows and columns, thread ranges, strided and reversed inputs, several dtypes), the
untiled path at other strides, and the choice made in the code when it runs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import transpose_tiles


def _copy_t(a):
    return np.ascontiguousarray(a.T)


def _t_minus(a, b):
    return a.T - b


def _swap_last(x):
    return np.ascontiguousarray(x.transpose(0, 2, 1)) * 2


copy_t = jc.jit(_copy_t)
t_minus = jc.jit(_t_minus)
swap_last = jc.jit(_swap_last)

# columns whose row is a multiple of 1 KiB (tiled) and beside it (untiled), per dtype
ALIASED = {np.float32: 256, np.float64: 128, np.int8: 1024, np.int16: 512, np.complex128: 64,
           np.bool_: 1024}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.c_contiguous == want.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", list(ALIASED))
@pytest.mark.parametrize("rows", [37, 16, 300])
def test_transposed_copy_matches_numpy(dtype, rows):
    columns = ALIASED[dtype]
    for c in (columns, columns + 3):  # tiled, then a stride beside it
        a = _data((rows, c), dtype)
        _same(copy_t(a), _copy_t(a))


@given(rows=st.integers(0, 70), cut=st.integers(0, 40), reverse=st.booleans(), seed=st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_strided_and_reversed_rows(rows, cut, reverse, seed):
    """A view of a 256-column float32 array keeps its 1 KiB row stride whatever columns it
    keeps, so leftover rows of the output (the kept columns past a whole band) are tiled too."""
    base = _data((rows, 256), np.float32, seed)
    a = base[::-1, : 256 - cut] if reverse else base[:, cut:]
    _same(copy_t(a), _copy_t(a))


def test_two_operands_and_threads():
    """Large enough to run on the pool's ranges (each range tiles its own rows)."""
    a = _data((512, 256), np.float64)
    b = _data((128, 512), np.float64)
    with jc.config.using(num_threads=2, parallel_threshold=0, chunk_size=1 << 10):
        _same(t_minus(a[:, :128], b), _t_minus(a[:, :128], b))
        _same(copy_t(a), _copy_t(a))


def test_batched_transpose():
    x = _data((3, 40, 256), np.float32)
    _same(swap_last(x), _swap_last(x))
    y = _data((2, 70, 250), np.float32)  # untiled stride
    _same(swap_last(y), _swap_last(y))


def test_the_tiles_are_chosen_when_the_code_runs():
    """One code for every size: the stride test (a mask of the stride's bytes) is in the
    kernel, not a compile-time choice, and a plain copy has none."""
    text = jc.jit(_copy_t).lower(_data((64, 250), np.float32)).plan().llvm_ir
    assert "and i64 %" in text and f", {transpose_tiles.ALIASED_BYTES - 1}" in text
    plain = jc.jit(lambda a: a + 1).lower(_data((64, 250), np.float32)).plan().llvm_ir
    assert f", {transpose_tiles.ALIASED_BYTES - 1}" not in plain
