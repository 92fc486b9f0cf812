"""A list of arrays of one shape and dtype written at a traced position (session 54, u3 R2):
de Boor's ``d = [c[j + k - p] for j in range(p + 1)]`` then ``d[j] = (1 - a) * d[j - 1] + a *
d[j]`` in nested loops, the ``j`` loop's bound taken from a compiled loop's counter. Each item
becomes the value where the position names it (``sequence_items.set_item_at``), so the list
keeps its length and kind; ``p`` used in ``range()`` of the comprehension is made static on
demand, as the docs promise for a loop count. Bit-exact against NumPy (the same operations);
one compile per function.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _de_boor(k, x, t, c, p):
    d = [c[j + k - p] for j in range(0, p + 1)]
    for r in range(1, p + 1):
        for j in range(p, r - 1, -1):
            alpha = (x - t[j + k - p]) / (t[j + 1 + k - r] - t[j + k - p])
            d[j] = (1.0 - alpha) * d[j - 1] + alpha * d[j]
    return d[p]


def _de_boor_many(xs, t, c, p):
    out = np.zeros((xs.shape[0], c.shape[1]))
    for m in range(xs.shape[0]):
        x = xs[m]
        k = np.searchsorted(t, x, side="right") - 1
        k = min(max(k, p), t.shape[0] - p - 2)
        out[m] = _de_boor(k, x, t, c, p)
    return out


def _cycle(x, m):
    d = [x[0], x[1], x[2]]
    for i in range(m):
        d[i % 3] = d[(i + 1) % 3] * 2.0 + d[i % 3]
    return d[0], d[1], d[2]


def _past_end(x, m):
    d = [x[0], x[1]]
    for i in range(m):
        d[i] = x[2] * i  # (Python reads nothing at i: the write raises)
    return d[0]


_KNOTS = np.array([0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1, 1, 1.0])


def test_de_boor_matches_numpy():
    many = jc.jit(_de_boor_many)
    one = jc.jit(_de_boor)
    us = np.linspace(0, 0.999, 64)
    for seed in (0, 1):
        points = np.random.default_rng(seed).standard_normal((7, 2))
        np.testing.assert_array_equal(many(us, _KNOTS, points, 3), _de_boor_many(us, _KNOTS, points, 3))
        for k, x in ((3, 0.1), (4, 0.3), (6, 0.9)):
            np.testing.assert_array_equal(one(k, x, _KNOTS, points, 3), _de_boor(k, x, _KNOTS, points, 3))


def test_list_of_arrays_written_at_traced_positions():
    x = np.random.default_rng(2).standard_normal((3, 4))
    cycle = jc.jit(_cycle)
    for m in (0, 1, 5, 7):
        for expected, got in zip(_cycle(x, m), cycle(x, m), strict=True):
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(got, expected)
    past = jc.jit(_past_end)
    np.testing.assert_array_equal(past(x, 2), _past_end(x, 2))
    with pytest.raises(IndexError, match="list assignment index out of range"):
        past(x, 3)
