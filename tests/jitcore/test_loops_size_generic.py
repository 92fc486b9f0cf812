"""Loops whose bounds come from an argument's shape: one compile for every size.

``for i in range(n - 2)`` with ``n = x.shape[0]`` traces at each size as a loop of constant
bounds; its code takes the bounds, the sizes of ``np.empty(n - 2)`` and the index checks'
extents from the arguments' run-time extents (``codegen/loops.py``'s ``Sizes``, derived ones
``n + d``, ``2 * n``, ``n // 2`` included), so a new length re-traces but reuses the code. A
slice NumPy clamps or wraps at the first or last steps (``x[i - 1:i + 2]``) runs those steps in
Python and keeps the middle a loop (``autograph/statements.py``, ``PEEL``). Every size is
checked against NumPy, the empty ranges (n = 0, 1, 2) too; the compile count is asserted over
lengths above ``UNROLL_LIMIT``, where the loop is a loop at every size.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.autograph import statements
from tests.budget import examples
from tests.strategies import specials

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:  # the loops the benchmark times at three lengths (bench_user_loops.py --sizes)
    from bench_user_loops import centred_windows as windows
    from bench_user_loops import inner_sums
    from bench_user_loops import pair_differences as pairs
finally:
    sys.path.pop(0)

# Above UNROLL_LIMIT (64 steps: a loop in the IR, not Python's copies) and with every array
# above TINY_WORK (64 points: tiny functions have code of their own) at each length.
LONG = (140, 201, 300)
SHORT = (0, 1, 2, 3, 5)  # empty ranges, and loops Python unrolls


def smooth(x):
    n = x.shape[0]
    out = np.empty(n - 2)
    for i in range(n - 2):
        out[i] = x[i:i + 3].mean()
    return out


def like(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 2.0 - 1.0
    return out


def backwards(x):
    n = x.shape[0]
    out = np.zeros(n + 1)
    s = 0.0
    for i in range(n - 1, -1, -1):
        s = s + x[i]
        out[i] = s
    return out


def rows(a):
    out = np.zeros((a.shape[0] - 1, a.shape[1]))
    for i in range(a.shape[0] - 1):
        out[i] = a[i + 1] - a[i]
    return out


def data(shape, seed):
    """Ordinary values with the float specials spread through (NaN, inf, -0.0, subnormals)."""
    x = np.random.default_rng(seed).standard_normal(shape)
    flat = x.reshape(-1)
    s = specials(np.float64)
    flat[:: 7][: len(s)] = s[: len(flat[:: 7])]
    return x


def check(f, x):
    jitted = f if isinstance(f, jc.JitFunction) else jc.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf, NaN means: as NumPy's
        try:
            expected = jitted.fun(x.copy())
        except ValueError:  # np.empty(n - 2) at n = 0: jitcore refuses it too
            with pytest.raises(ValueError):
                jitted(x.copy())
            return
        got = jitted(x.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True)
    assert got.shape == expected.shape


@pytest.mark.parametrize("f", [smooth, inner_sums, like, pairs, backwards, windows],
                         ids=lambda f: f.__name__)
def test_one_compile_for_every_long_length_and_numpy_at_every_length(f):
    jitted = jc.jit(f)
    for n in LONG:
        check(jitted, data(n, n))
    info = jitted.cache_info()
    assert (info.traces, info.compiles) == (3, 1), info
    for n in SHORT:
        check(f, data(n, n))


SMOOTH = jc.jit(smooth)  # one function across the examples: every length reuses its code


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(67, 500), st.integers(0, 2 ** 32 - 1))
def test_smooth_at_any_long_length_is_numpy_with_one_code(n, seed):
    check(SMOOTH, data(n, seed))
    assert SMOOTH.cache_info().compiles == 1


def test_rows_of_a_matrix_one_compile_per_column_count():
    jitted = jc.jit(rows)
    for n in LONG:
        check(jitted, data((n, 4), n))
    assert jitted.cache_info().compiles == 1
    for n in (0, 1, 2):
        check(rows, data((n, 4), n))


def test_windows_peel_the_clamped_steps_and_keep_the_middle_a_loop():
    text = jc.jit(windows).lower(data(LONG[0], 0)).as_text("traced")
    assert text.count('"scf.for"') == 1, text  # not 70 copies of the body
    assert statements.PEEL >= 1


def test_a_loop_that_clamps_beyond_the_peel_stays_one_loop_and_right(monkeypatch):
    # Session 57 (loops57): a window whose bounds wrap or clamp is clamped as the code runs,
    # the way NumPy clamps it, so the loop no longer unrolls (it did up to session 56).
    def far(x):  # x[i - 3:i + 4] wraps or clamps on three steps at each end: more than PEEL
        n = x.shape[0]
        out = np.empty(n)
        for i in range(n):
            out[i] = x[i - 3:i + 4].sum()
        return out

    monkeypatch.setattr(statements, "UNROLL_LIMIT", 8)  # a long loop at 12 steps: cheap copies
    assert statements.PEEL < 3
    x = data(12, 3)
    assert '"scf.for"' in jc.jit(far).lower(x).as_text("traced")
    check(far, x)
