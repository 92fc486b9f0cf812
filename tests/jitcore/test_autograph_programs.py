"""Programs written as users write them, with their own loops and branches, compiled through the
conversion (jitcore/autograph) and run, against the same functions run as plain Python on
hypothesis inputs (docs/control-flow.md §3, issue 11 item 6).

Each program's traced IR is checked for its ``scf`` ops where the loop must be one
(``assert_has``), so nothing here runs the user's loops in Python under ``jit``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:  # the loop programs the benchmark times (tools/bench_loops.py), one copy of each
    from bench_loops import floyd_warshall, gauss_seidel, histogram
finally:
    sys.path.pop(0)

FLOATS = st.floats(-10, 10, allow_nan=False, width=64)
# Each new shape compiles anew: a few examples per program keep this file to about a minute.


def assert_has(f, args, *ops):
    text = jc.jit(f).lower(*args).as_text("traced")
    for op in ops:
        assert f'"{op}"' in text, f"{op} missing from\n{text}"


def run_both(f, *args):
    """``jit(f)`` and plain ``f`` on copies of the same arguments: results and arguments after."""
    mine = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    theirs = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    return (jc.jit(f)(*mine), mine), (f(*theirs), theirs)


def assert_same(f, *args, rtol=1e-12, atol=1e-12):
    (got, got_args), (want, want_args) = run_both(f, *args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
    for a, b in zip(got_args, want_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


# -- the programs --------------------------------------------------------------------------------
def mandelbrot(cr, ci, maxit):
    out = np.zeros((ci.shape[0], cr.shape[0]), np.int64)
    for i in range(ci.shape[0]):
        for j in range(cr.shape[0]):
            x = 0.0
            y = 0.0
            k = 0
            while x * x + y * y < 4.0 and k < maxit:
                x, y = x * x - y * y + cr[j], 2.0 * x * y + ci[i]
                k += 1
            out[i, j] = k
    return out


def heat(u, c, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def running_max(x):
    out = np.empty_like(x)
    m = x[0]
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
        out[i] = m
    return out


def newton_sqrt(a, tol):
    x = a
    steps = 0
    while abs(x * x - a) > tol * a and steps < 100:
        x = x - (x * x - a) / (2 * x)
        steps += 1
    return x, steps


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_pair_over(x, y, t):
    count = 0
    found_i = -1
    found_j = -1
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            count += 1
            if x[i] + y[j] > t:
                found_i = i
                found_j = j
                break
        if found_i >= 0:
            break
    return found_i, found_j, count


def first_index_above(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


# -- the tests -------------------------------------------------------------------------------------
# Two code shapes: loops over the pixels unrolled (w * h <= UNROLL_LIMIT, a small case keeps
# the compile short) and scf.for loops; under ci the first draw, the smallest, is a third.
@settings(max_examples=examples(4, ci=1), deadline=None)
@example(3, 2, 30)
@example(44, 61, 30)
@given(st.integers(1, 80), st.integers(1, 70), st.integers(0, 30))
def test_mandelbrot(w, h, maxit):
    cr, ci = np.linspace(-2.0, 1.0, w), np.linspace(-1.2, 1.2, h)
    assert_has(mandelbrot, (cr, ci, np.int64(maxit)), "scf.while")
    assert_same(mandelbrot, cr, ci, np.int64(maxit))


@settings(max_examples=6, deadline=None)
@given(hnp.arrays(np.float64, st.integers(3, 40), elements=FLOATS), st.integers(0, 300))
def test_heat_equation(u, steps):
    assert_has(heat, (u, 0.25, np.int64(steps)), "scf.for")
    assert_same(heat, u, 0.25, np.int64(steps), rtol=1e-9, atol=1e-9)


@settings(max_examples=6, deadline=None)
@given(hnp.arrays(np.float64, st.integers(2, 100), elements=FLOATS), st.integers(0, 20))
def test_gauss_seidel(u, sweeps):
    assert_has(gauss_seidel, (u, np.int64(sweeps)), "scf.for")
    assert_same(gauss_seidel, u, np.int64(sweeps))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 9)))
def test_histogram(x):
    x = x.astype(np.float64)
    assert_same(histogram, x, np.zeros(10))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 200), elements=FLOATS))
def test_running_max(x):
    assert_same(running_max, x)


@settings(max_examples=20, deadline=None)
@given(st.floats(1e-3, 1e6), st.sampled_from([1e-3, 1e-9, 1e-14]))
def test_newton_to_tolerance(a, tol):
    assert_has(newton_sqrt, (np.float64(a), np.float64(tol)), "scf.while")
    assert_same(newton_sqrt, np.float64(a), np.float64(tol), rtol=1e-15, atol=0)


# As test_mandelbrot: the triple loop unrolled (n = 2) and as loops (n = 21), then the draws.
@settings(max_examples=examples(4, ci=1), deadline=None)
@example(np.random.default_rng(2).uniform(0, 100, (2, 2)))
@example(np.random.default_rng(21).uniform(0, 100, (21, 21)))
@given(st.integers(1, 70).flatmap(
    lambda n: hnp.arrays(np.float64, (n, n), elements=st.floats(0, 100, width=64))))
def test_floyd_warshall(d):
    assert_same(floyd_warshall, d)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 10**6))
def test_collatz(n):
    assert_has(collatz, (np.int64(n),), "scf.while", "scf.if")
    assert_same(collatz, np.int64(n))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 90), elements=FLOATS),
       hnp.arrays(np.float64, st.integers(1, 90), elements=FLOATS), FLOATS)
def test_nested_loops_with_break(x, y, t):
    assert_same(first_pair_over, x, y, np.float64(t))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 200), elements=FLOATS), FLOATS)
def test_return_from_inside_a_loop(x, t):
    assert_same(first_index_above, x, np.float64(t))


def find_with_while(x, t):
    i = 0
    while i < x.shape[0]:
        if x[i] > t:
            return i
        i += 1
    return -1


def capped_collatz(n):
    steps = 0
    while n != 1:
        if steps > 50:
            return -1
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def skip_negatives(x, n):
    s = 0.0
    for i in range(n):
        if x[i] < 0:
            continue
        s = s + x[i]
    return s


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 100), elements=FLOATS), FLOATS, st.integers(1, 10**4))
def test_return_and_continue_in_traced_loops(x, t, n):
    assert_same(find_with_while, x, np.float64(t))
    assert_same(capped_collatz, np.int64(n))
    assert_same(skip_negatives, x, np.int64(x.shape[0]))


def weighted_sum(x, w):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, w)):
        s = s + i * a * b
    return s


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 150).flatmap(lambda n: st.tuples(
    hnp.arrays(np.float64, n, elements=FLOATS), hnp.arrays(np.float64, n, elements=FLOATS))))
def test_enumerate_zip(xw):
    assert_same(weighted_sum, *xw, rtol=1e-9, atol=1e-9)
