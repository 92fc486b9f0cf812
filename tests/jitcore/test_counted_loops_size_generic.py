"""While loops over a Python int counter, short loops over a shape, extents far from a size:
one compile for every size (session 35; docs/architecture.md, "Size-generic kernels").

``while i < n: ...; i += c`` (``n`` from a shape) runs as the ``for`` over the counter's values,
``i *= c`` as a traced ``while`` (``autograph/statements.py``); a ``range`` whose bounds are an
argument's extent or one step from one is a loop however short; ``Sizes`` derives ``n - 10``,
``3 * n + 1`` and ``n // 3`` from ``n`` (``codegen/loops.py``'s ``derived``). Each function is
checked against NumPy (the function run by Python) at the lengths where its loop is empty or
runs once, and its compile count asserted over three lengths.
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
from jitcore.codegen import loops
from tests.budget import examples
from tests.jitcore.test_loops_size_generic import data

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:  # the programs the benchmark times at three lengths (bench_user_loops.py --sizes)
    from bench_user_loops import (
        blend_rows,
        far_extents,
        running_sum,
        stretched,
        thirds,
        while_doubling,
        while_pairs,
        while_sum,
    )
finally:
    sys.path.pop(0)

LONG = (140, 201, 300)  # above UNROLL_LIMIT and TINY_WORK: the large size class
EDGES = (0, 1, 2, 3, 5)  # loops that never run, run once, or Python unrolls


def countdown(x):
    n = x.shape[0]
    out = np.zeros(n)
    acc = 0.0
    i = n - 1
    while i >= 0:
        acc = acc + x[i]
        out[i] = acc
        i -= 1
    return out, i  # the counter after the loop: -1, as Python leaves it


def windows(x):
    n = x.shape[0]
    out = np.zeros(n)
    i = 0
    while i <= n - 3:
        out[i] = x[i:i + 3].sum()
        i = i + 1
    return out, i


def check(jitted, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf: as NumPy's
        try:
            expected = jitted.fun(x.copy())
        except ValueError:  # a negative extent (np.empty(n - 10) at n < 10): refused as well
            with pytest.raises(ValueError):
                jitted(x.copy())
            return
        got = jitted(x.copy())
    for g, e in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, expected))):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=0, equal_nan=True)
        assert np.shape(g) == np.shape(e) and isinstance(g, np.ndarray) == isinstance(e, np.ndarray)


@pytest.mark.parametrize("f", [while_sum, while_pairs, while_doubling, countdown, windows,
                               far_extents, thirds, stretched], ids=lambda f: f.__name__)
def test_one_compile_for_every_long_length_and_numpy_at_every_length(f):
    jitted = jc.jit(f)
    for n in LONG:
        # thirds at 3k + 1 points: x[:3 * (n // 3)] is x[:n - 1] at each (all of x at n = 3k)
        check(jitted, data(3 * (n // 3) + 1 if f is thirds else n, n))
    info = jitted.cache_info()
    assert (info.traces, info.compiles) == (3, 1), info
    for n in EDGES:
        check(jc.jit(f), data(n, n))


def test_a_while_loop_is_one_loop_in_the_ir():
    for f in (while_sum, while_pairs, countdown, windows):
        text = jc.jit(f).lower(data(LONG[0], 0)).as_text("traced")
        assert text.count('"scf.for"') == 1, (f.__name__, text)
    text = jc.jit(while_doubling).lower(data(LONG[0], 0)).as_text("traced")
    assert text.count('"scf.while"') == 1, text


@pytest.mark.parametrize("f,shape", [(blend_rows, lambda n: (n, 8)), (running_sum, lambda n: (n,))],
                         ids=["rows", "vector"])
def test_a_short_loop_over_a_shape_is_a_loop_at_every_length(f, shape):
    jitted = jc.jit(f)
    for n in (10, 11, 12):  # fewer steps than UNROLL_LIMIT: unrolled, each was a compile
        check(jitted, data(shape(n), n))
    assert jitted.cache_info().compiles == 1
    assert '"scf.for"' in jitted.lower(data(shape(10), 0)).as_text("traced")
    for n in (0, 1, 2):
        check(jitted, data(shape(n), n))


def test_while_loops_that_are_not_counted_run_as_before():
    def stepped_in_a_branch(x):  # the counter's step depends on the data: Python's loop
        n = x.shape[0]
        s, i = 0.0, 0
        while i < n:
            s = s + x[i]
            if i % 3 == 0:
                i += 2
            else:
                i += 1
        return s, i

    def with_break(x):
        s, i = 0.0, 0
        while i < x.shape[0]:
            if i == 7:
                break
            s = s + x[i]
            i += 1
        return s, i

    def appends(x):  # a Python list changes: never a traced loop
        found, i = [], 0
        while i < x.shape[0]:
            found.append(i)
            i += 3
        return np.array(found, dtype=np.int64), i

    for f in (stepped_in_a_branch, with_break, appends):
        for n in (0, 2, 12):
            check(jc.jit(f), data(n, n))


def test_a_body_that_needs_the_counter_as_a_python_int_is_unrolled_and_right():
    def prefixes(x):  # x[:i] has a shape that depends on i
        n = x.shape[0]
        out = np.zeros(n)
        i = 1
        while i < n:
            out[i] = x[:i].sum()
            i *= 2
        return out, i

    for n in (0, 1, 12, 20):
        check(jc.jit(prefixes), data(n, n))


def kahan(x):  # s and c come in as 0-d arrays and leave as the scalars the body makes
    s = np.zeros((), x.dtype)
    c = np.zeros((), x.dtype)
    for i in range(x.shape[0]):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s, c


def test_a_loop_that_runs_leaves_the_scalars_its_body_made():
    jitted = jc.jit(kahan)
    for n in (0, 1, 10, 11, 100):  # unrolled, short loops over a size, a long loop
        check(jitted, data(n, n))


def test_a_short_loop_whose_body_cannot_be_a_loop_unrolls_as_before():
    def grows(x):  # a Python list that grows: no carry of one type
        out = []
        for i in range(x.shape[0]):
            out = out + [x[i]]
        return out[-1]

    def grows_by_rows(x):
        rows = []
        for r in x:
            rows = rows + [r * 2.0]
        return rows[0] + rows[-1]

    def grows_doubling(x):
        picked = []
        i = 1
        while i < x.shape[0]:
            picked = picked + [x[i]]
            i *= 2
        return picked[-1], i

    for f in (grows, grows_by_rows, grows_doubling):
        check(jc.jit(f), data(10, 1))


def test_a_far_extent_guessed_at_one_size_is_corrected_at_the_next():
    def literal(x):  # x[:70] at n = 80 is taken for x[:n - 10]; at n = 90 it is not
        return x[:70] * 2.0

    jitted = jc.jit(literal)
    for n in (80, 90):
        check(jitted, data(n, n))
    assert jitted.cache_info().compiles == 2
    minus_ten = jc.jit(lambda x: x[:x.shape[0] - 10] + 1.0)
    for n in (10, 11, 80, 81):  # empty, one element (1 is no derived extent), then one code
        check(minus_ten, data(n, n))
    assert minus_ten.cache_info().compiles == 3


@given(st.integers(0, 10 ** 6), st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=3))
@settings(max_examples=examples(200), deadline=None)
def test_every_derived_form_gives_its_extent(n, symbols):
    form = loops.derived(n, symbols)
    if form is not None:
        s, scale, divisor, offset = form
        assert s in symbols and s > 2 * loops.NEAR and 1 in (scale, divisor)
        assert s * scale // divisor + offset == n and n != s


PAIRS = jc.jit(while_pairs)  # one function across the examples: every length reuses its code


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(130, 500), st.integers(0, 2 ** 32 - 1))
def test_while_pairs_at_any_long_length_is_numpy_with_one_code(n, seed):
    check(PAIRS, data(n, seed))
    assert PAIRS.cache_info().compiles == 1
