"""Row-wise and shifted kernels against NumPy (issue 10, item 3): shifts (``np.roll``,
``np.diff``, ``x[1:] - x[:-1]``, concatenates of slices) read their input in place through
shifted maps, one kernel and no intermediate buffer; kernels over transposed or F-order operands;
softmax and layernorm over rows. Each case is differential: jitcore's result against NumPy's on
the same arrays, including empty and one-element axes."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _kernels(fn, *args) -> int:
    """How many kernels the optimized module of ``fn(*args)`` has."""
    return jc.jit(fn).lower(*args).as_text("optimized").count('"kernel.generic"')


def _same(fn, *args, **kwargs):
    expected = fn(*args)
    got = jc.jit(fn, **kwargs)(*args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


# -- shifts ------------------------------------------------------------------------------------

SHIFTS = [0, 1, 3, -1, -4, 9, 10, 11, 23, -23, 1000]


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("n", [0, 1, 10])
def test_roll_1d(shift, n):
    _same(lambda x: np.roll(x, shift), _rand(n))


@pytest.mark.parametrize("shift, axis", [(2, None), (-7, None), (1, 0), (-1, 1), (5, -1),
                                         ((1, 2), (0, 1)), ((3, -2), (1, 1)), ((1, 1), (0, 0))])
def test_roll_axes(shift, axis):
    _same(lambda x: np.roll(x, shift, axis), _rand((4, 5)))


@pytest.mark.parametrize("shift", [3, -3, 9_999_997])
def test_roll_is_one_kernel_reading_in_place(shift):
    assert _kernels(lambda x: np.roll(x, shift), _rand(1000)) == 1


@pytest.mark.parametrize("fn", [lambda x: np.concatenate([x[3:], x[:3]]),
                                lambda x: np.concatenate([x[:2], x[5:], x[2:5]]),
                                lambda x: np.concatenate([x[::-1], x[1::2]]),
                                lambda x: np.concatenate([x[1:] * 2, x[:1]])])
def test_concatenate_of_slices_is_one_kernel(fn):
    x = _rand(12)
    _same(fn, x)
    assert _kernels(fn, x) == 1


def test_concatenate_of_slices_2d_axis1():
    fn = lambda x: np.concatenate([x[:, 2:], x[:, :2]], axis=1)  # noqa: E731
    x = _rand((3, 6))
    _same(fn, x)
    assert _kernels(fn, x) == 1


def test_slice_difference_is_one_kernel():
    fn = lambda x: x[1:] - x[:-1]  # noqa: E731
    x = _rand(50)
    _same(fn, x)
    assert _kernels(fn, x) == 1


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("axis", [-1, 0])
def test_diff(n, axis):
    _same(lambda x: np.diff(x, n, axis), _rand((6, 5)))


@pytest.mark.parametrize("size", [0, 1, 2])
def test_diff_short_axes(size):
    _same(lambda x: np.diff(x), _rand(size))
    _same(lambda x: np.diff(x, 2), _rand(size))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float64])
def test_diff_dtypes(dtype):
    x = (np.arange(10) * 7 % 5).astype(dtype)
    _same(np.diff, x)


def test_diff_prepend_append():
    x = _rand((3, 4))
    _same(lambda x: np.diff(x, prepend=0), x)
    _same(lambda x: np.diff(x, axis=0, append=x[:1]), x)
    _same(lambda x: np.diff(x, n=2, prepend=x[:, :1], append=1.5), x)


def test_diff_errors():
    with pytest.raises(ValueError, match="order must be non-negative"):
        jc.jit(lambda x: np.diff(x, -1))(_rand(4))
    with pytest.raises(ValueError, match="at least one dimensional"):
        jc.jit(np.diff)(np.float32(1.0))


@pytest.mark.parametrize("n", [1, 2])
def test_diff_is_one_kernel(n):
    assert _kernels(lambda x: np.diff(x, n), _rand(100)) == 1


# -- loop order: transposed and F-order operands -----------------------------------------------

TRANSPOSED = [lambda a, b: a.T + b.T,
              lambda a, b: np.exp(a.T) * b.T,
              lambda a, b: a.T + a,
              lambda a, b: a.T * 2 - b,
              lambda a, b: np.concatenate([a.T, b.T], axis=1),
              lambda a, b: np.where(a.T > 0, a.T, b.T[::-1])]


@pytest.mark.parametrize("fn", TRANSPOSED)
@pytest.mark.parametrize("shape", [(5, 5), (1, 1), (0, 4), (6, 1), (33, 33)])
def test_transposed_operands(fn, shape):
    n = max(shape)
    a, b = _rand((n, n))[: shape[0], : shape[1]].copy(), _rand((n, n), seed=1)[: shape[0], : shape[1]].copy()
    if shape[0] != shape[1] and fn in TRANSPOSED[2:4]:
        return  # a.T and a (or b) only broadcast when square
    np.testing.assert_allclose(jc.jit(fn)(a, b), fn(a, b), rtol=1e-6)


def test_transposed_3d_and_index():
    x = _rand((4, 3, 5))
    fn = lambda x: np.transpose(x, (2, 0, 1)) + np.arange(3) + np.transpose(x, (2, 0, 1)) ** 2  # noqa: E731
    np.testing.assert_allclose(jc.jit(fn)(x), fn(x), rtol=1e-6)


def test_transposed_operands_set_the_innermost_loop():
    a = _rand((4, 3))
    # .copy() asks for C order (a.T + b.T alone is Fortran-ordered in NumPy, and computed as
    # the transpose of a + b: see test_fortran_result_is_computed_transposed)
    text = jc.jit(lambda a, b: (a.T + b.T).copy()).lower(a, a).as_text("optimized")
    assert "affine_map<(d0, d1) -> (d1, d0)>], iterator_types" in text  # the result is transposed


def test_fortran_result_is_computed_transposed():
    a = _rand((4, 3))
    f = jc.jit(lambda a, b: a.T + b.T)
    assert "(d1, d0)" not in f.lower(a, a).as_text("optimized")  # a + b, in order
    out = f(a, a)
    assert out.flags.f_contiguous and not out.flags.c_contiguous  # as NumPy's a.T + b.T
    np.testing.assert_array_equal(out, a.T + a.T)


@pytest.mark.parametrize("fn", [lambda a, b: a + b * 2, lambda a, b: a.T + b, lambda a, b: np.exp(a) - b.T])
def test_f_order_operands(fn):
    a, b = np.asfortranarray(_rand((6, 6))), np.asfortranarray(_rand((6, 6), seed=2))
    np.testing.assert_allclose(jc.jit(fn)(a, b), fn(a, b), rtol=1e-6)


# -- softmax and layernorm over rows -----------------------------------------------------------

def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def layernorm(x):
    mean = np.mean(x, axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + 1e-5)


@pytest.mark.parametrize("fn", [softmax, layernorm])
@pytest.mark.parametrize("dtype, rtol", [(np.float32, 2e-6), (np.float64, 1e-14)])
@pytest.mark.parametrize("shape", [(4, 7), (1, 1), (3, 1), (1, 64), (0, 5), (17, 1000)])
def test_rowwise(fn, dtype, rtol, shape):
    x = _rand(shape, dtype) * 4
    np.testing.assert_allclose(jc.jit(fn)(x), fn(x), rtol=rtol, atol=rtol)


def test_softmax_exp_is_computed_once():
    """exp(x - max) is computed by one kernel and read by the row sum and the final divide,
    not recomputed by both (four kernels: max, exp, sum, divide; issue 10, "exp once": the
    CPU's row groups keep the exponentials in the output buffer, tests/codegen/test_exp_once.py)."""
    x = _rand((8, 16))
    text = jc.jit(softmax).lower(x).as_text("optimized")
    assert text.count('"kernel.generic"') == 4
    assert text.count('"math.exp"') == 1
