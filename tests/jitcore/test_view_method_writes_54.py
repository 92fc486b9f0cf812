"""Writes through a view method's result at traced indices (session 54, u2 R2): ``g.ravel()[k]
= True`` in a loop (Eden growth) writes ``g`` as NumPy does where the method gives a view (a
C-ordered local array; ``reshape(-1)``, ``transpose()``; ``+=`` with repeated indices), and
only a copy where NumPy's method copies (``ravel`` of a Fortran-ordered array, local or the
caller's: its traced copy and a loop's carry keep that layout). ``transform._VIEW_METHODS``,
``expressions.view_setitem``. One compile per function covers every trip count and layout.
"""

from __future__ import annotations

import numpy as np

import jitcore as jc


def _local_c(ks, n):
    g = np.zeros((3, 4), bool)
    for i in range(n):
        g.ravel()[ks[i]] = True
    return g


def _local_f(ks, n):  # ravel copies: the writes are lost, as in NumPy
    g = np.zeros((3, 4), order="F")
    g.ravel()[ks[0]] = 2.0  # (the traced copy made here keeps the layout)
    g[ks[1] % 3, 1] = 3.0
    for i in range(n):
        g.ravel()[ks[i]] = 1.0
    return g


def _methods(ks, n):
    c = np.zeros((3, 4), np.int64)
    t = np.zeros((3, 4))
    for i in range(n):
        c.reshape(-1)[ks[i]] += 1
        t.transpose()[ks[i] % 4, ks[i] // 4] = ks[i] * 0.5
    return c, t


def _argument(g, ks, n):
    for i in range(n):
        g.ravel()[ks[i]] = -1.0
    return g.sum()


def _eden(L, n, rng):
    g = np.zeros((L, L), bool)
    g[L // 2, L // 2] = True
    for _ in range(n):
        nb = np.roll(g, 1, 0) | np.roll(g, -1, 0) | np.roll(g, 1, 1) | np.roll(g, -1, 1)
        idx = np.flatnonzero(nb & ~g)
        g.ravel()[idx[rng.integers(idx.size)]] = True
    return g


def _check(expected, got):
    for a, b in zip(
        expected if isinstance(expected, tuple) else (expected,),
        got if isinstance(got, tuple) else (got,),
        strict=True,
    ):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(b, a)


def test_local_view_writes_match_numpy():
    ks = np.array([1, 5, 11, 5, 0, 7])
    for fn in (_local_c, _local_f, _methods):
        jitted = jc.jit(fn)
        for n in (0, 3, 6):
            _check(fn(ks, n), jitted(ks, n))
    eden = jc.jit(_eden)
    for seed, steps in ((7, 5), (3, 12)):
        _check(_eden(7, steps, np.random.default_rng(seed)), eden(7, steps, np.random.default_rng(seed)))


def test_argument_view_writes_match_numpy():
    ks = np.array([1, 5, 11, 5, 0, 7])
    base = np.arange(24.0).reshape(4, 6)
    jitted = jc.jit(_argument)
    for make in (lambda: base[:3, :4].copy(), lambda: np.asfortranarray(base[:3, :4]), lambda: base[:3, :4]):
        for n in (0, 4):
            g1, g2 = make(), make()
            if g1.base is base:  # a strided view: each run on a copy of base of its own
                g1, g2 = base.copy()[:3, :4], base.copy()[:3, :4]
            expected, got = _argument(g1, ks, n), jitted(g2, ks, n)
            assert type(got) is type(expected) and got == expected
            np.testing.assert_array_equal(g2, g1)
