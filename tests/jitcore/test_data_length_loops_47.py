"""Results of data-dependent length built in a compiled loop (session 47), against plain
Python + NumPy: values, dtypes, Python types, the arguments after the call.

``out[:k]`` returned with ``k`` a count the loop carried (``out[k] = v; k += 1``) is the prefix
mask ``arange(n) < k`` (NumPy's stop for every ``k``), compacted and trimmed by the host as
``x[:i]`` is (``indexing._counted_prefix``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore.autograph.statements import UNROLL_LIMIT
from tests.budget import examples

# trip counts below and above the unroll limit (a loop run in Python, and a compiled loop)
SIZES = (0, 1, 7, UNROLL_LIMIT - 1, UNROLL_LIMIT + 1, 3 * UNROLL_LIMIT)


def _same(got, want):
    """The same pytree of results: types, dtypes, shapes and values."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
    elif isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            _same(got[key], want[key])
    elif isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)


def _check(fn, *args):
    given_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = jc.jit(fn)(*given_args)
    _same(got, want)
    for a, b in zip(given_args, args):  # the arguments after the call: untouched, as NumPy's
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)


def _data(n, seed=0, dtype=np.float64):
    return np.random.default_rng(seed + n).standard_normal(n).astype(dtype)


# -- out[:k] with k carried by the loop --------------------------------------------------------------
def kept_prefix(x):
    out = np.empty_like(x)
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return out[:k]


def kept_rows_and_count(x):
    out = np.zeros((x.shape[0] + 1, 2))
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k, 0] = x[i]
            out[k, 1] = i
            k += 1
    first = out[0:k].copy()
    as32 = np.asarray(out[:k], dtype=np.float32)
    out[0, 0] = 99.0  # (after the copies: they keep the values they had)
    return first, k, {"rows": np.array(out[:k])}, [out[:k], as32]


def counted_from_the_end(x, m):
    k = (x > m).sum() - 5  # negative where fewer than 5 are above m: NumPy counts from the end
    return x[:k], x[2:k]


def while_prefix(x):
    i = 0
    while i < x.shape[0] and x[i] > 0:
        i += 1
    return x[:i], i


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("fn", [kept_prefix, kept_rows_and_count, while_prefix])
def test_prefix_at_a_carried_count(fn, n):
    _check(fn, _data(n))
    _check(fn, np.abs(_data(n)) + 0.5)  # every element kept
    _check(fn, -np.abs(_data(n)) - 0.5)  # none kept


@pytest.mark.parametrize("m", [-10.0, 0.0, 0.5, 10.0])
def test_prefix_counted_from_the_end(m):
    for n in (0, 3, 12):
        _check(counted_from_the_end, _data(n), m)


@settings(max_examples=examples(40, 15), deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 3 * UNROLL_LIMIT),
                  elements=st.floats(-10, 10, allow_nan=False)))
def test_prefix_at_a_carried_count_any_data(x):
    _check(kept_prefix, x)
    _check(kept_rows_and_count, x)
