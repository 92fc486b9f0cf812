"""Arguments read in a compiled loop keep what they are after it (session 54, u2 R1): a Python
int argument (or a NumPy scalar) that a loop only reads, ``rng.integers(0, q, s.shape)``, is
held by the loop as it is rather than carried (``statements._unchanged``), so after the loop
it is still the caller's ``q``, and ``np.bincount(s.ravel(), minlength=q)`` or ``np.zeros(q)``
make it static on demand. Against NumPy with the same Generator seed; one compile per value.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _potts(s, q, beta, rng, sweeps):
    for _ in range(sweeps):
        new = rng.integers(0, q, s.shape)
        acc = rng.random(s.shape) < np.exp(-beta * (new - s) ** 2)
        s = np.where(acc, new, s)
    return s, np.bincount(s.ravel(), minlength=q)


def _while_q(s, q, rng, sweeps):
    k = 0
    while k < sweeps:
        s = np.maximum(s, rng.integers(0, q, s.shape))
        k += 1
    return np.zeros(q), np.bincount(s.ravel(), minlength=q + 1)


@pytest.mark.parametrize("q", [3, np.int64(5)], ids=["int", "int64"])
def test_int_read_in_loop_stays_static(q):
    s = np.random.default_rng(1).integers(0, 3, (6, 6))
    potts, while_q = jc.jit(_potts), jc.jit(_while_q)
    for sweeps in (0, 2):
        for fn, jitted, args in ((_potts, potts, (1.0,)), (_while_q, while_q, ())):
            expected = fn(s, q, *args, np.random.default_rng(0), sweeps)
            got = jitted(s, q, *args, np.random.default_rng(0), sweeps)
            for a, b in zip(expected, got, strict=True):
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(b, a)


def _mask(width):
    return np.uint64((1 << width) - 1)


def test_wide_mask_of_traced_width_says_make_it_static():
    """u2 R3: Python's (1 << 64) - 1 fits uint64 but not int64, in which a traced width computes
    it: the error says to make the width static, which then gives NumPy's exact mask."""
    traced = jc.jit(_mask)
    assert traced(32) == _mask(32) and type(traced(32)) is np.uint64
    with pytest.raises(OverflowError, match=r"static_argnames=\('width',\)"):
        traced(64)
    static = jc.jit(_mask, static_argnames=("width",))
    assert static(64) == _mask(64) == np.uint64(2**64 - 1) and type(static(64)) is np.uint64
