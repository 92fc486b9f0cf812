"""Signed zeros and NaN through clip, maximum, minimum, fmax, fmin (session 57, user u3 W1).

NumPy's clip with two bounds that stay put along the array (Python scalars, 0-d, or size 1
against a larger array) runs a loop that keeps ``x`` on a tie of 0.0 and -0.0
(``np.clip(-0.0, 0, 1)`` is -0.0); with array bounds, or one bound, it is maximum then minimum,
which give the bound. jitcore took the second everywhere. One compile covers every float dtype,
every operand form and every pair of specials; results are compared bit for bit (sign of zero
and NaN), except fmax/fmin of float32/64 on a 0.0/-0.0 tie, whose NumPy answer depends on the
element's place in NumPy's SIMD loop (docs/numpy_support.md, the np.fmax row).
"""

from __future__ import annotations

import itertools

import numpy as np

import jitcore as jc

SPECIALS = [-0.0, 0.0, np.nan, -np.inf, np.inf, 1.0, -1.0]
PAIRS = np.array(list(itertools.product(SPECIALS, SPECIALS)))
DTYPES = (np.float16, np.float32, np.float64)
EXTREMES = (np.maximum, np.minimum, np.fmax, np.fmin)


def forms(a, b, s):
    """Each dtype's results: the ufuncs against arrays, Python and NumPy scalars, 0-d and
    size-1 arrays, both ways round; clip with every kind of bound."""
    out = []
    for fn in EXTREMES:
        out += [fn(a, b), fn(a, s), fn(s, b), fn(a, b.dtype.type(s)), fn(a, b[:1]), fn(a[0], b)]
    one = b[:1]
    out += [
        np.clip(a, 0, 1),
        np.clip(a, -0.0, 0.0),
        np.clip(a, s, 1.0),
        np.clip(a, one, one + 1),
        np.clip(a, b, 1.0),
        np.clip(a, b, b + 1),
        np.clip(a, None, s),
        np.clip(a, s, None),
        a.clip(0.0, 1.0),
        np.clip(a[0], 0.0, 1.0),
        np.clip(a[:1], one, one),
        np.clip(a, b[0], b[1]),
    ]
    return out


def everything(pairs, s):
    return [forms(pairs[:, 0].astype(dt), pairs[:, 1].astype(dt), s) for dt in DTYPES]


def _fmax_tie(fn, dtype, got, want) -> np.ndarray:
    if fn not in (np.fmax, np.fmin) or dtype == np.float16:
        return np.zeros(np.shape(want), bool)
    return np.asarray((got == 0) & (want == 0))


def test_signed_zeros_and_nan_match_numpy_bit_for_bit():
    jitted = jc.jit(everything)
    for s in (0.0, -0.0, np.nan, 1.0):
        want, got = everything(PAIRS, s), jitted(PAIRS, s)
        for dt, g_all, w_all in zip(DTYPES, got, want):
            for k, (g, w) in enumerate(zip(g_all, w_all)):
                where = f"{dt.__name__} result {k}, s={s}"
                assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype, where
                np.testing.assert_array_equal(g, w, err_msg=where)  # (NaN where NumPy's is)
                fn = EXTREMES[k // 6] if k < 6 * len(EXTREMES) else None
                tie = _fmax_tie(fn, dt, g, w)
                assert np.array_equal(np.signbit(g) | tie, np.signbit(w) | tie), where
