"""``Generator.shuffle`` and ``RandomState.shuffle`` (``np.random.shuffle``) of traced arrays, and
of NumPy arrays the function made, in place: NumPy's numbers (its Fisher-Yates swaps are those
of ``permutation(n)``) and the generator's state after them, on every call."""

import numpy as np
import pytest

import jitcore as jc


def _shuffles(rng, x, m):
    a = x.copy()
    rng.shuffle(a)
    rng.shuffle(m[1:])  # a view of an argument: the caller's array is shuffled
    idx = np.arange(m.shape[0])  # a NumPy array made in the function
    rng.shuffle(idx)
    e = m[:, :0].copy()
    rng.shuffle(e)  # empty: no draw, as NumPy
    return a, idx, m[idx], e, rng.permutation(3)


def _axis1(rng, m):
    b = m * 2
    rng.shuffle(b, axis=1)
    return b


def _in_loops(rng, x, k):
    idx, total = np.arange(x.shape[0]), 0.0
    for _ in range(3):  # a loop with a static count: drawn before the call
        rng.shuffle(idx)
        total += x[idx][0]
    for _ in range(k):  # a traced count: drawn as the code runs
        rng.shuffle(idx)
        total += x[idx][1]
    if x[0] > 0:
        rng.shuffle(idx)
    return total, idx


def _next(rng):
    return rng.random() if isinstance(rng, np.random.Generator) else rng.random_sample()


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
def test_shuffle_draws_numpys_numbers_in_place(make):
    x, m = np.arange(7.0) - 2, np.arange(20).reshape(5, 4)
    cases = [(_shuffles, (x, m)), (_in_loops, (x, 2))]
    if make is np.random.default_rng:
        cases.append((_axis1, (m,)))
    for f, args in cases:
        jitted = jc.jit(f)
        for seed in (1, 2):
            want_args, got_args = ([np.copy(a) if np.ndim(a) else a for a in args] for _ in range(2))
            want_rng, got_rng = make(seed), make(seed)
            want, got = f(want_rng, *want_args), jitted(got_rng, *got_args)
            for w, g in zip(
                np.atleast_1d(*want) if isinstance(want, tuple) else [want],
                np.atleast_1d(*got) if isinstance(got, tuple) else [got],
                strict=True,
            ):
                assert w.dtype == g.dtype and w.shape == g.shape
                np.testing.assert_array_equal(g, w)
            for w, g in zip(want_args, got_args, strict=True):
                np.testing.assert_array_equal(g, w)
            assert _next(got_rng) == _next(want_rng)


def test_shuffle_of_a_0d_array_or_a_list_is_refused_naming_the_way():
    with pytest.raises(jc.JitTypeError, match="0-d array"):
        jc.jit(lambda rng, x: rng.shuffle(x.sum()))(np.random.default_rng(0), np.ones(3))
    with pytest.raises(jc.UnsupportedError, match=r"rng.permutation\(a\).*list"):
        jc.jit(lambda rng, x: rng.shuffle([x[0], x[1]]))(np.random.default_rng(0), np.ones(3))
