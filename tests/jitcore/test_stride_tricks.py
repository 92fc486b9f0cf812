"""``np.lib.stride_tricks.sliding_window_view`` under jit against NumPy's: the same shape,
dtype and values (NumPy's view, jitcore's new array), on drawn shapes, windows and axes, and
NumPy's errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.numpy.stride_tricks import SLICED_WINDOWS
from tests.budget import examples

swv = np.lib.stride_tricks.sliding_window_view


def windows_of(window_shape, axis):
    return jc.jit(lambda x: swv(x, window_shape, axis))


def assert_same_windows(x, window_shape, axis=None):
    want = swv(x, window_shape, axis)
    got = windows_of(window_shape, axis)(x)
    assert isinstance(got, np.ndarray) and (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


@st.composite
def windowed(draw):
    """An array of 1 to 3 dims and, for each of one to three of its axes (an axis may repeat, as
    NumPy allows), a window that fits what the earlier windows left of it."""
    shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    dtype = draw(st.sampled_from([np.float64, np.int32, np.bool_]))
    x = (np.arange(np.prod(shape)) % 7).astype(dtype).reshape(shape)
    if draw(st.booleans()):
        return x, tuple(draw(st.integers(0, n)) for n in shape), None  # None: a window for every axis
    left, axes, windows = list(shape), [], []
    for _ in range(draw(st.integers(1, 3))):
        ax = draw(st.integers(-len(shape), len(shape) - 1))
        w = draw(st.integers(0 if not axes else 1, left[ax]))
        left[ax] -= w - 1
        axes.append(ax)
        windows.append(w)
    return x, tuple(windows), tuple(axes) if len(axes) > 1 or draw(st.booleans()) else axes[0]


@settings(max_examples=examples(25))
@given(case=windowed())
def test_windows_match_numpys(case):
    assert_same_windows(*case)


@pytest.mark.parametrize("window", [1, SLICED_WINDOWS, SLICED_WINDOWS + 1, 100])
def test_short_and_long_windows(window):
    """Up to SLICED_WINDOWS the windows are shifted slices; beyond, a gather: both paths."""
    assert_same_windows(np.random.default_rng(window).standard_normal((3, 120)), window, -1)


def test_moving_average_of_a_traced_value():
    fn = jc.jit(lambda x: swv(x * 2, 4).mean(axis=-1))
    x = np.linspace(0, 1, 11)
    np.testing.assert_allclose(fn(x), swv(x * 2, 4).mean(axis=-1), rtol=4 * np.finfo(float).eps)


@pytest.mark.parametrize("window_shape, axis, message", [
    (5, 0, "window shape cannot be larger than input array shape"),
    (-1, 0, "`window_shape` cannot contain negative values"),
    (2, None, "must provide window_shape for all dimensions"),
    ((2, 2), 0, "Must provide matching length window_shape and axis"),
])
def test_numpys_errors_with_the_users_line(window_shape, axis, message):
    x = np.ones((4, 3))
    with pytest.raises(ValueError, match=message):
        swv(x, window_shape, axis)
    with pytest.raises(ValueError, match=message) as info:
        windows_of(window_shape, axis)(x)
    assert "test_stride_tricks.py" in str(info.value)


def test_writeable_windows_are_refused():
    with pytest.raises(jc.UnsupportedError, match="writeable=True"):
        jc.jit(lambda x: swv(x, 2, writeable=True))(np.ones(4))


@pytest.mark.parametrize("fn", [lambda x: swv(x, 200).mean(-1), lambda x: np.convolve(x, x[:150], "same")])
def test_long_windows_hold_no_table_of_every_position(fn):
    """Long windows (sliding_window_view past SLICED_WINDOWS, convolve past SHIFTED_TAPS) are
    gathered at positions the kernel computes from two short ranges: a constant (n, w) table of
    every position made a 48000-sample STFT's compile take a minute and gigabytes."""
    x = np.random.default_rng(3).standard_normal(3000)
    np.testing.assert_allclose(jc.jit(fn)(x), fn(x), rtol=1e-12, atol=1e-12)
    text = jc.jit(fn).lower(x).as_text()
    sizes = [int(np.prod([int(d) for d in m.split("x")[:-1]] or [1]))
             for m in re.findall(r'"array.constant".*?tensor<([0-9x]*x?[a-z0-9]+)>', text)]
    assert max(sizes, default=0) <= 3200, sizes  # (session 44: none, the kernel computes them)


@pytest.mark.parametrize("fn, shape", [
    (lambda x: swv(x, 40)[::16] * 2.0, (1000,)),
    (lambda a: swv(a, 40, axis=1)[1:, ::7, 3:20:2].sum(-1), (3, 1000)),
    (lambda a: swv(a, 35, axis=0)[::5, 1, ::-3], (100, 3)),
    (lambda x: np.abs(np.fft.rfft(swv(x, 64)[::32] * np.hanning(64), axis=1)), (2048,)),
])
def test_a_slice_of_windows_gathers_only_the_windows_it_keeps(fn, shape):
    """``sliding_window_view(x, 1024)[::512]`` (an STFT's frames) gathered every window and then
    kept one in 512 (67 ms against NumPy's 1 ms at 48000 samples); the slice now moves into the
    gather and its positions (``passes/canonicalize.py``, ``_slice_pushed``)."""
    x = np.arange(float(np.prod(shape))).reshape(shape) % 97
    np.testing.assert_allclose(jc.jit(fn)(x), fn(x), rtol=1e-12, atol=1e-9)
    if shape == (1000,):
        assert "961x40" not in jc.jit(fn).lower(x).as_text()
