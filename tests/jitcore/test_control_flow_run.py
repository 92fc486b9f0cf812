"""The control-flow API compiled and run (docs/control-flow.md §2, §5): each jitted function
against the same computation in plain Python/NumPy, on hypothesis inputs.

Every function here is traced into ``scf`` ops (``assert_has``) and compiled; nothing runs the
user's loops in Python under ``jit``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.jit_once import jit_once

FLOATS = st.floats(-100, 100, allow_nan=False, width=64)


def vectors(dtype=np.float64, min_size=0, max_size=12, elements=FLOATS):
    return hnp.arrays(dtype, st.integers(min_size, max_size), elements=elements)


def assert_has(f, args, *ops):
    text = jc.jit(f).lower(*args).as_text("traced")
    for op in ops:
        assert f'"{op}"' in text, f"{op} missing from\n{text}"


# -- fori_loop -----------------------------------------------------------------------------------
def sum_of_squares(x, n):
    return jc.fori_loop(0, n, lambda i, s: s + x[i] * x[i], 0.0)


@settings(max_examples=30)
@given(x=vectors(min_size=1), data=st.data())
def test_fori_loop_sum_of_squares(x, data):
    n = data.draw(st.integers(0, x.shape[0]))
    expected = 0.0
    for i in range(n):
        expected = expected + x[i] * x[i]
    assert_has(sum_of_squares, (x, np.int64(n)), "scf.for")
    got = jc.jit(sum_of_squares)(x, np.int64(n))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@settings(max_examples=30)
@given(x=vectors(min_size=1), lo=st.integers(-3, 14), hi=st.integers(-3, 14),
       step=st.sampled_from([-3, -2, -1, 1, 2, 5]))
def test_fori_loop_traced_bounds_any_step_and_zero_trips(x, lo, hi, step):
    def f(x, lo, hi):
        def body(i, c):
            total, count = c
            return total + x[i % x.shape[0]] * (i + 1), count + 1
        return jc.fori_loop(lo, hi, body, (0.0, 0), step=step)

    total, count = 0.0, 0
    for i in range(lo, hi, step):
        total, count = total + x[i % x.shape[0]] * (i + 1), count + 1
    got = jit_once(f)(x, np.int64(lo), np.int64(hi))
    np.testing.assert_allclose(got[0], total, rtol=1e-12, atol=1e-12)
    assert int(got[1]) == count


@settings(max_examples=20)
@given(x=vectors(min_size=1, max_size=8))
def test_fori_loop_writes_elements_of_a_carried_array(x):
    def f(x):
        def body(i, out):
            out[i] = x[x.shape[0] - 1 - i] * 2 + out[i - 1]
            return out
        return jc.fori_loop(0, x.shape[0], body, np.zeros_like(x))

    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[x.shape[0] - 1 - i] * 2 + out[i - 1]
    np.testing.assert_allclose(jit_once(f)(x), out, rtol=1e-12)


def test_a_million_iterations():
    f = jc.jit(lambda n: jc.fori_loop(0, n, lambda i, c: c + (i & 1), 0))
    assert int(f(np.int64(10**6))) == 500_000


# -- while_loop ------------------------------------------------------------------------------------
def newton_sqrt(a, tol):
    def body(state):
        x, k = state
        return 0.5 * (x + a / x), k + 1

    def not_done(state):
        x, k = state
        return (np.abs(x * x - a) > tol * a) & (k < 100)

    return jc.while_loop(not_done, body, (a, 0))


@settings(max_examples=30)
@given(a=st.floats(1e-3, 1e6))
def test_while_loop_newton_iteration_to_tolerance(a):
    args = (np.float64(a), np.float64(1e-12))
    assert_has(newton_sqrt, args, "scf.while")
    x, k = jc.jit(newton_sqrt)(*args)
    ex, ek = newton_sqrt(*args)  # the eager run: a plain Python loop
    assert int(k) == ek and x == pytest.approx(ex, rel=1e-15)
    assert x == pytest.approx(np.sqrt(a), rel=1e-10)


@settings(max_examples=30)
@given(n=st.integers(1, 10**4))
def test_while_loop_collatz_steps_and_zero_trips(n):
    def collatz(n):
        def body(s):
            m, k = s
            return jc.cond(m % 2 == 0, lambda: m // 2, lambda: 3 * m + 1), k + 1
        return jc.while_loop(lambda s: s[0] != 1, body, (n, np.int64(0)))

    m, k = n, 0
    while m != 1:
        m, k = (m // 2 if m % 2 == 0 else 3 * m + 1), k + 1
    got = jc.jit(collatz)(np.int64(n))
    assert (int(got[0]), int(got[1])) == (1, k)


# -- cond and switch -------------------------------------------------------------------------------
@settings(max_examples=30)
@given(x=vectors(min_size=1), threshold=FLOATS)
def test_cond_on_a_traced_predicate(x, threshold):
    def f(x, t):
        return jc.cond(x.sum() > t, lambda a: (a * 2, a.max()), lambda a: (a - 1, a.min()), x)

    args = (x, np.float64(threshold))
    assert_has(f, args, "scf.if")
    got = jit_once(f)(*args)
    expected = (x * 2, x.max()) if x.sum() > threshold else (x - 1, x.min())
    np.testing.assert_allclose(got[0], expected[0])
    assert got[1] == expected[1]


@settings(max_examples=30)
@given(x=vectors(min_size=1), k=st.integers(-5, 8))
def test_switch_clamps_the_index(x, k):
    branches = [lambda a: a + 1, lambda a: a * a, lambda a: -a, lambda a: np.abs(a) + 0.5]

    def f(x, k):
        return jc.switch(k, branches, x)

    got = jit_once(f)(x, np.int32(k))
    np.testing.assert_allclose(got, branches[min(max(k, 0), 3)](x))


# -- scan --------------------------------------------------------------------------------------------
@settings(max_examples=30)
@given(x=vectors())
def test_scan_cumulative_sum(x):
    def f(xs):
        return jc.scan(lambda c, v: (c + v, c + v), 0.0, xs)

    assert_has(f, (x,), "scf.for", "array.scatter_nd")
    total, ys = jit_once(f)(x)
    np.testing.assert_allclose(ys, np.cumsum(x), rtol=1e-12, atol=1e-9)
    assert total == pytest.approx(float(np.sum(x)), rel=1e-12, abs=1e-9)
    assert ys.shape == x.shape


@settings(max_examples=30)
@given(x=vectors(max_size=10, elements=st.floats(-2, 2)), a=st.floats(-1, 1), b=st.floats(-2, 2))
def test_scan_linear_recurrence_with_pytree_carry(x, a, b):
    def f(xs, a, b):
        def step(c, v):
            h = a * c["h"] + b * v
            return {"h": h, "n": c["n"] + 1}, (h, h * h)
        return jc.scan(step, {"h": 0.0, "n": 0}, xs)

    h, rows = 0.0, []
    for v in x:
        h = a * h + b * v
        rows.append((h, h * h))
    carry, (hs, sq) = jit_once(f)(x, np.float64(a), np.float64(b))
    assert carry["h"] == pytest.approx(h, abs=1e-12) and int(carry["n"]) == len(x)
    np.testing.assert_allclose(hs, [r[0] for r in rows] if rows else np.zeros(0), atol=1e-12)
    np.testing.assert_allclose(sq, [r[1] for r in rows] if rows else np.zeros(0), atol=1e-12)


def test_scan_with_length_and_no_xs():
    f = jc.jit(lambda c: jc.scan(lambda c, _: (c * 2, c), c, length=5))
    carry, ys = f(np.float32(1.5))
    assert carry == 48.0
    np.testing.assert_array_equal(ys, np.array([1.5, 3, 6, 12, 24], np.float32))


# -- nested ---------------------------------------------------------------------------------------------
@settings(max_examples=20)
@given(x=vectors(min_size=1, max_size=8, elements=st.integers(-5, 5).map(float)))
def test_nested_loops_and_branches(x):
    def f(x):
        n = x.shape[0]

        def outer(i, acc):
            def inner(j, a):
                return jc.cond(x[j] > x[i], lambda: a + 1, lambda: a)
            acc[i] = jc.fori_loop(0, n, inner, 0)
            return acc
        return jc.fori_loop(0, n, outer, np.zeros(n, np.int64))

    ranks = np.array([sum(1 for v in x if v > u) for u in x], np.int64)
    np.testing.assert_array_equal(jit_once(f)(x), ranks)


@settings(max_examples=20)
@given(x=vectors(max_size=8, elements=st.floats(0.5, 50)))
def test_a_while_inside_a_scan(x):
    def f(xs):
        def step(c, v):
            y = jc.while_loop(lambda w: w < v, lambda w: w * 2 + 1, 1.0)
            return c + y, y
        return jc.scan(step, 0.0, xs)

    ys = []
    for v in x:
        w = 1.0
        while w < v:
            w = w * 2 + 1
        ys.append(w)
    total, got = jit_once(f)(x)
    np.testing.assert_array_equal(got, np.array(ys).reshape(len(x)))
    assert total == sum(ys)


@settings(max_examples=20)
@given(x=vectors(max_size=10, elements=st.floats(-2, 2)))
def test_scan_in_reverse(x):
    def f(xs):
        return jc.scan(lambda c, v: (c * 0.5 + v, c), 0.0, xs, reverse=True)

    c, rows = 0.0, [0.0] * len(x)
    for i in reversed(range(len(x))):
        rows[i] = c
        c = c * 0.5 + x[i]
    carry, ys = jit_once(f)(x)
    assert carry == pytest.approx(c, abs=1e-12)
    np.testing.assert_allclose(ys, np.array(rows).reshape(len(x)), atol=1e-12)


# -- array work in the body: loops that run kernels ------------------------------------------------
@settings(max_examples=15)
@given(u=vectors(min_size=3, max_size=40, elements=st.floats(-1, 1)), steps=st.integers(0, 30))
def test_fori_loop_heat_equation_on_a_carried_array(u, steps):
    def heat(u, steps):
        def step(t, u):
            u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
            return u
        return jc.fori_loop(0, steps, step, u)

    expected = u.copy()
    for _ in range(steps):
        expected[1:-1] = expected[1:-1] + 0.25 * (expected[2:] - 2 * expected[1:-1] + expected[:-2])
    before = u.copy()
    got = jc.jit(heat)(u, np.int64(steps))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(u, before)  # the loop carried a copy: the argument is unchanged


@settings(max_examples=15)
@given(x=vectors(min_size=1, max_size=30, elements=st.floats(-1e3, 1e3)))
def test_while_loop_on_an_array_carry(x):
    def shrink(x):
        return jc.while_loop(lambda s: np.abs(s[0]).max() > 1, lambda s: (s[0] / 2, s[1] + 1), (x, 0))

    y, k = x.copy(), 0
    while np.abs(y).max() > 1:
        y, k = y / 2, k + 1
    got, n = jc.jit(shrink)(x)
    np.testing.assert_array_equal(got, y)
    assert int(n) == k


@settings(max_examples=15)
@given(x=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=FLOATS))
def test_scan_over_rows_of_a_matrix(x):
    def f(xs):
        return jc.scan(lambda c, row: (c + row, (c * row).sum()), np.zeros(xs.shape[1]), xs)

    c, dots = np.zeros(x.shape[1]), []
    for row in x:
        dots.append((c * row).sum())
        c = c + row
    carry, ys = jit_once(f)(x)
    np.testing.assert_allclose(carry, c, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(ys, dots, rtol=1e-12, atol=1e-9)


# -- dtypes, pytrees and zero trips ---------------------------------------------------------------------
@settings(max_examples=20)
@given(x=vectors(np.float32, min_size=1, elements=st.floats(-10, 10, width=32)), n=st.integers(0, 12))
def test_a_weak_init_takes_the_body_dtype_when_compiled(x, n):
    def f(x, n):
        return jc.fori_loop(0, n, lambda i, c: c + x[i % x.shape[0]], 0)

    expected = np.float32(0)
    for i in range(n):
        expected = expected + x[i % x.shape[0]]
    got = jit_once(f)(x, np.int64(n))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-5)


@settings(max_examples=20)
@given(x=vectors(min_size=1, max_size=8), start=st.floats(-5, 5))
def test_a_while_loop_that_runs_zero_times_returns_its_init(x, start):
    def f(x, s):
        return jc.while_loop(lambda c: c["t"] < s, lambda c: {"t": c["t"] + 1, "x": c["x"] * 2},
                             {"t": s, "x": x})

    got = jit_once(f)(x, np.float64(start))
    assert got["t"] == start
    np.testing.assert_array_equal(got["x"], x)


@settings(max_examples=20)
@given(x=vectors(min_size=1, max_size=8), k=st.integers(-2, 4), p=st.booleans())
def test_branches_on_pytrees_of_mixed_dtypes(x, k, p):
    def f(x, k, p):
        def first(ops):
            a, (b, c) = ops
            return {"sum": a.sum(), "n": b + 1, "flag": c}

        def second(ops):
            a, (b, c) = ops
            return {"sum": a.max(), "n": b * 3, "flag": np.logical_not(c)}

        ops = (x, (k, p))
        return jc.switch(k, [first, second, lambda ops: jc.cond(ops[1][1], first, second, ops)], ops)

    branch = [0, 1, 2][min(max(k, 0), 2)]
    if branch == 2:
        branch = 0 if p else 1
    expected = ({"sum": x.sum(), "n": k + 1, "flag": p} if branch == 0
                else {"sum": x.max(), "n": k * 3, "flag": not p})
    got = jit_once(f)(x, np.int32(k), np.bool_(p))
    assert got["sum"] == pytest.approx(expected["sum"], rel=1e-12, abs=1e-12)
    assert int(got["n"]) == expected["n"] and got["n"].dtype == np.int32
    assert bool(got["flag"]) == expected["flag"]


@settings(max_examples=20)
@given(x=vectors(min_size=1, max_size=10))
def test_negative_step_writes_in_reverse(x):
    def f(x):
        n = x.shape[0]

        def body(i, c):
            out, acc = c
            acc = acc + x[i]
            out[i] = acc
            return out, acc
        return jc.fori_loop(n - 1, -1, body, (np.zeros_like(x), 0.0), step=-1)

    out, acc = np.zeros_like(x), 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = acc + x[i]
        out[i] = acc
    got_out, got_acc = jit_once(f)(x)
    np.testing.assert_allclose(got_out, out, rtol=1e-12, atol=1e-12)
    assert got_acc == pytest.approx(acc, rel=1e-12, abs=1e-12)


@settings(max_examples=15)
@given(x=vectors(min_size=4, max_size=10))
def test_views_read_in_bodies_and_carried(x):
    def f(x):
        v = x[1:4]
        x[1] = 100.0  # v sees the write: it is re-derived, inside the loop's body
        total = jc.fori_loop(0, 3, lambda i, c: c + v[i] * (i + 1), 0.0)
        doubled = jc.fori_loop(0, 2, lambda i, c: c * 2, v)  # carried as its value
        return total, doubled

    expected_x = x.copy()
    expected = f(expected_x)  # eager: NumPy views, a Python loop
    got_x = x.copy()
    got = jit_once(f)(got_x)
    assert got[0] == pytest.approx(expected[0], rel=1e-12)
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got_x, expected_x)  # the write reached the caller's array
