"""np.quantile/percentile/nanquantile/nanpercentile work out their positions and weights in
``q``'s dtype, as NumPy does (``n * q`` with ``n`` a Python int keeps a float32 or float16
``q``'s dtype): a float32 ``q`` of 0.4 at n = 5 is position 2.0 exactly, where float64 says
2.0000000298 and the step methods took the next element. An integer ``q`` with ``linear``
takes the value at its whole position (no interpolation, so no NaN from an infinite
neighbour). Bits equal against NumPy for every method, q dtype and data dtype, a traced ``q``
and a constant one.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.numpy.sorting import _ALL_METHODS
from tests.budget import examples

Q_DTYPES = [np.dtype(t) for t in (np.float16, np.float32, np.float32, np.float64, np.int64, np.bool_)]
X_DTYPES = [np.dtype(t) for t in (np.int32, np.uint8, np.float16, np.float32, np.float64)]


def _q_grid(n: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles at every k / n and k / (n - 1) (where a position worked out in float64 lands
    past a whole one) and percentiles at 100 times those, in ``dtype``; 0 and 1 for an integer
    or bool ``q``."""
    if dtype.kind in "bi":
        return np.array([0, 1], dtype), np.array([0, 100] if dtype.kind == "i" else [0, 1], dtype)
    q = np.concatenate([np.arange(n + 1) / n, np.arange(n) / (n - 1)])
    return q.astype(dtype), (100 * q).astype(dtype)


def _distinct(data, n: int, dtype: np.dtype) -> np.ndarray:
    """``n`` distinct values in a drawn order (neighbours that differ, so that a weight off by
    an ulp shows), one of them NaN at times for a float dtype (the nan-functions' count)."""
    x = (np.array(data.draw(st.permutations(range(n)))) * 3 + 1).astype(dtype)
    if dtype.kind == "f":
        x = x * np.array(1.1, dtype)  # not whole numbers: every weight's bits matter
        if data.draw(st.booleans()):
            x[data.draw(st.integers(0, n - 1))] = np.nan
    return x


def _assert_same(got, want, context: str) -> None:
    """Bits equal, but for the sign of a zero: -0.0 and 0.0 tie, and which of them a selection
    leaves at a rank is NumPy's introselect's order, which jitcore does not copy."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, context
    if got.dtype.kind == "f":
        bits = f"u{got.itemsize}"
        got, want = (np.where(v == 0, np.zeros((), v.dtype), v).view(bits) for v in (got, want))
    np.testing.assert_array_equal(got, want, context)


FUNCTIONS = {
    "quantile": np.quantile,
    "nanquantile": np.nanquantile,
    "percentile": np.percentile,
    "nanpercentile": np.nanpercentile,
}


@settings(max_examples=examples(10, ci=5), deadline=None)
@given(
    name=st.sampled_from(sorted(FUNCTIONS)),
    method=st.sampled_from(_ALL_METHODS),
    q_dtype=st.sampled_from(Q_DTYPES),
    x_dtype=st.sampled_from(X_DTYPES),
    traced_q=st.booleans(),
    data=st.data(),
)
def test_quantile_positions_in_q_dtype(name, method, q_dtype, x_dtype, traced_q, data):
    """One call per example (a compile each: about 0.3 s)."""
    n = data.draw(st.sampled_from([5, 6, 7, 9, 10, 11]))  # not a power of 2: k / n rounds
    x = _distinct(data, n, x_dtype)
    q = _q_grid(x.size, q_dtype)[name.endswith("percentile")]
    context = f"{name}({x!r}, {q!r}, method={method}), traced q: {traced_q}"
    f = FUNCTIONS[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(x, q, method=method)
        if traced_q:
            got = jc.jit(lambda x, q: f(x, q, method=method))(x, q)
        else:
            got = jc.jit(lambda x: f(x, q, method=method))(x)
    _assert_same(got, want, context)


def test_float32_q_picks_numpys_element():
    """The report's case: int32 0..19 at float32 q, inverted_cdf (NumPy: 1 3 7 11 15, where
    float64 positions gave 2 4 8 12 16); and an integer q of 1 with ``linear`` takes an infinite
    last value (NumPy's take: inf, where a float q of 1.0 interpolates to NaN)."""

    def f(x, q, inf_last):
        return np.quantile(x, q, method="inverted_cdf"), np.quantile(inf_last, 1)

    x = np.arange(20, dtype=np.int32)
    q = np.array([0.1, 0.2, 0.4, 0.6, 0.8], np.float32)
    got = jc.jit(f)(x, q, np.array([1.0, 2.0, np.inf]))
    np.testing.assert_array_equal(got[0], [1, 3, 7, 11, 15])
    assert got[1] == np.inf
