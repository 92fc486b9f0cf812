"""Constants of one value (np.zeros, np.empty, np.full, np.ones and their _like forms in a
jitted function, a NumPy array made by np.empty and written) are kept once in the IR, whatever
their shape, and still read as every element by the compiled code."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.ir.attributes import DenseAttr
from jitcore.ir.types import TensorType, f64, i32


def test_one_value_is_kept_once_and_compares_by_value():
    t = TensorType((3000, 40), f64)
    splat = DenseAttr(np.float64(2.5), t)
    full = DenseAttr(np.full((3000, 40), 2.5), t)
    assert not any(splat.array.strides) and not any(full.array.strides)
    assert splat == full and hash(splat) == hash(full) and splat.is_splat
    other = np.full((3000, 40), 2.5)
    other[-1, -1] = -0.0
    dense = DenseAttr(other, t)
    assert dense != splat and not dense.is_splat and dense.array[-1, -1] == 0.0
    assert DenseAttr(np.float64(0.0), t) != DenseAttr(np.float64(-0.0), t)  # bits, not values
    small = DenseAttr(np.array([7, 7, 7], np.int32), TensorType((3,), i32))
    assert small.is_splat and small == DenseAttr(np.int32(7), TensorType((3,), i32))


@pytest.mark.parametrize("make", ["zeros", "empty", "full", "ones", "zeros_like", "full_like"])
def test_large_filled_arrays_written_and_returned(make):
    def f(x):
        n = x.shape[0]
        if make == "zeros":
            out = np.zeros((n, 300))
        elif make == "empty":
            out = np.empty((n, 300))
        elif make == "full":
            out = np.full((n, 300), -0.0)
        elif make == "ones":
            out = np.ones((n, 300), np.float32)
        elif make == "zeros_like":
            out = np.zeros_like(np.broadcast_to(x[:, None], (n, 300)))
        else:
            out = np.full_like(np.broadcast_to(x[:, None], (n, 300)), 3)
        out[:, 7] = x
        out[5] += 1
        return out, np.full((n, 20), 4.0)
    x = np.arange(400.0)
    got, want = jc.jit(f)(x), f(x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.flags.writeable
        if make != "empty":  # NumPy's empty holds whatever was there
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
    assert got[0][5, 0] == (1.0 if make in ("zeros", "empty", "zeros_like") else got[0][5, 0])
    got[1][0, 0] = 9.0  # a returned constant is the caller's own array
    assert jc.jit(f)(x)[1][0, 0] == 4.0


def test_stored_plans_keep_one_value_once():
    """The disk cache stores a constant of one value as that value and its shape."""
    from jitcore import plan_file
    for value in (np.zeros((3000, 40)), np.full((5000,), -0.0, np.float32), np.full((70, 90), 1 + 2j),
                  np.arange(6000.0)):
        blobs: list = []
        node = plan_file._encode(value, blobs)
        back = plan_file._decode(node, blobs)
        assert back.dtype == value.dtype and back.shape == value.shape and back.flags.writeable
        np.testing.assert_array_equal(back.view(np.uint8), value.view(np.uint8))
        one = value.reshape(-1)[-1] == value.reshape(-1)[0]
        assert sum(map(len, blobs)) == (value.itemsize if one else value.nbytes)
