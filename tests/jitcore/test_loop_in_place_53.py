"""Elementwise kernels in a loop's body written over an input that dies there (session 53,
``codegen/host.py``'s ``elementwise_in_place``), against NumPy: the inverse Gray code's
``while np.any(s): inv ^= s; s >>= 1``, and bodies where the old value is still read after
the new one is made (which must keep a buffer of its own), swaps and a value read by two
kernels. Sizes 0, 1 and 1000; one compiled function per size covers every trip count.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _gray_inverse(n):
    g = n ^ (n >> 1)
    inv = g.copy()
    s = g >> 1
    while np.any(s):
        inv ^= s
        s >>= 1
    return g, inv


def _loops(x, steps):
    s, inv, out = x.copy(), x * 0, x * 0
    a, b = x.copy(), x + 1
    y, z = x.copy(), x * 3
    w, acc = x * 5, x * 0
    for i in range(steps):
        if i % 2 == 0:  # a traced if whose arms pass on w, an array from outside the loop
            v = w
        else:
            v = w.reshape(w.shape)
        acc = v * 2 + acc  # (v's buffer is w's: never written over)
        t = s >> 1  # s read after t is made: t needs a buffer of its own
        inv ^= s
        out = out + (s - t)
        s = t
        a, b = b, a + b  # a swap: b's old value carried on as a
        y = y * 2
        z = z + y  # the new y read after it is made
    return s, inv, out, a, b, y, z, acc, w


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_loop_bodies_in_place_match_numpy(n):
    x = np.random.default_rng(n).integers(0, 2**31, n).astype(np.uint32)
    gray, loops = jc.jit(_gray_inverse), jc.jit(_loops)
    for expected, got in zip(_gray_inverse(x), gray(x), strict=True):
        np.testing.assert_array_equal(got, expected)
    for steps in (0, 1, 5):
        for expected, got in zip(_loops(x, steps), loops(x, steps), strict=True):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)


def _aliased_inits(x, steps):
    y = x * 1.0
    z = y  # the for loop's first y is z's buffer too: never written over
    a = x * 1.0
    b = a  # the same for the while loop's a
    for _ in range(steps):
        y = y * 2 + 1
    k = 0
    while k < steps:
        a = np.sqrt(a + 1.0)
        k += 1
    return y, z, a, b, b * 2


def test_a_loop_never_writes_over_its_first_value_named_outside():
    x = np.random.default_rng(7).random(1000)
    jitted = jc.jit(_aliased_inits)
    for steps in (0, 1, 5):
        for expected, got in zip(_aliased_inits(x, steps), jitted(x, steps), strict=True):
            np.testing.assert_array_equal(got, expected)
