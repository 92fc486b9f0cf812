"""Session 48: compile time. A list made afresh at the top of a loop's body (``xs = [x0]``) and
appended to in it, in nested loops too, is no change to the outside world: the loop compiles
as a loop (its body once), not unrolled once per step. Differential: each jitted result
against the same function run by plain Python + NumPy (values, dtypes, Python types, the
arguments after the call, printed text)."""

import contextlib
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def check(f, *args, static=()):
    """f's jitted result against f's, the arguments unchanged alike; the jitted function."""
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = f(*fresh)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    jf = jc.jit(f, static_argnums=static, cache=False)
    same(jf(*copies), want)
    for a, c in zip(fresh, copies):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, c)
    return jf


def ir_lines(f, *args, static=()):
    return len(str(jc.make_ir(f, static_argnums=static)(*args)).splitlines())


# --- the user's rollout (new user h1, session 47): xs rebuilt each outer step ---

def rollout_list(x0, A, B, U, iters):
    for _it in range(iters):
        xs = [x0]
        x = x0
        for k in range(U.shape[0]):
            x = A @ x + B @ U[k]
            xs.append(x)
        U = U * 0.9 + 0.01 * xs[-1][0]
    return U


def mpc_list(x0, A, B, N, iters, lr):
    m = B.shape[1]
    U = np.zeros((N, m))
    for _it in range(iters):
        xs = [x0]
        x = x0
        for k in range(N):
            x = A @ x + B @ U[k]
            xs.append(x)
        lam = 2 * xs[-1]
        G = np.zeros_like(U)
        for k in range(N - 1, -1, -1):
            G[k] = 2 * 0.1 * U[k] + B.T @ lam
            lam = 2 * xs[k] + A.T @ lam
        U -= lr * G
    cost = sum(float(x @ x) for x in xs) + 0.1 * float((U * U).sum())
    return U, cost


A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.0], [0.1]])
X0 = np.array([1.0, 0.0])


@pytest.mark.parametrize("iters", [0, 1, 3, 40])
def test_rollout_list_matches_numpy(iters):
    check(rollout_list, X0, A, B, np.linspace(0, 1, 10)[:, None], iters)


def test_rollout_list_is_one_loop_whatever_the_trip_count():
    U = np.zeros((10, 1))
    short, long = (ir_lines(rollout_list, X0, A, B, U, n) for n in (10, 400))
    assert short == long < 400, (short, long)  # unrolled: 40 times as many lines


def test_rollout_list_compiles_once_for_every_trip_count():
    jf = check(rollout_list, X0, A, B, np.zeros((10, 1)), 5)
    same(jf(X0, A, B, np.ones((10, 1)), 9), rollout_list(X0, A, B, np.ones((10, 1)), 9))
    assert jf.cache_info().compiles == 1  # the trip count is traced, not made static


def test_mpc_list_matches_numpy_with_the_last_steps_list_after_the_loop():
    check(mpc_list, X0, A, B, 10, 50, 0.05)
    assert ir_lines(mpc_list, X0, A, B, 10, 50, 0.05, static=(3, 4)) < 2000  # unrolled: 11,943 ops


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 6), st.integers(1, 5), st.floats(-2, 2), st.integers(0, 2**31))
def test_rollout_list_hypothesis(iters, n, scale, seed):
    rng = np.random.default_rng(seed)
    A_ = np.eye(2) + 0.1 * rng.normal(size=(2, 2))
    check(rollout_list, scale * X0, A_, B, rng.normal(size=(n, 1)), iters)


# --- the same mechanism in other shapes ---

def empty_then_filled(x, iters):
    total = 0.0
    for it in range(iters):
        rows = []
        for k in range(x.shape[0]):
            rows.append(x[k] * (it + 1))
        total = total + np.array(rows).sum()
    return total


def read_after(x, iters):
    y = x
    for _it in range(iters):
        ys = [y]
        for k in range(3):
            ys.append(ys[-1] * 0.5 + k)
        y = ys[-1] + ys[0]
    return y, ys


def while_rebuilt(x, n):
    i = 0
    while i < n:
        parts = [x]
        parts.append(x * 2)
        x = parts[0] + parts[1] * 0.25
        i += 1
    return x


@pytest.mark.parametrize("iters", [1, 2, 7])
def test_list_made_empty_each_step(iters):
    check(empty_then_filled, np.arange(6.0), iters)


@pytest.mark.parametrize("iters", [1, 4])
def test_the_last_steps_list_read_after_the_loop(iters):
    check(read_after, np.array([1.0, -2.0]), iters)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while_loop_rebuilding_its_list(n):
    check(while_rebuilt, np.array([1.0, 3.0]), n)


# --- lists that are not the step's own: still run as Python runs them ---

def escapes(x, iters):
    hist = []
    for it in range(iters):
        xs = [x]
        xs.append(x + it)
        hist.append(xs)
    return [len(h) for h in hist], hist[-1][-1]


def rebound_to_outer(x, iters):
    keep = [x]
    for it in range(iters):
        xs = [x]
        if it >= 0:
            xs = keep  # (bound twice: not the step's own list)
        xs.append(x * it)
    return len(keep), keep[-1]


def appended_before_made(x, iters):
    xs = [x]
    for it in range(iters):
        xs.append(x + it)
        xs = [x]
    return xs[-1]


def printed(x, iters):
    for it in range(iters):
        xs = [x]
        xs.append(x * 2)
        print("step", it, len(xs))
    return xs[-1]


@pytest.mark.parametrize("f", [escapes, rebound_to_outer, appended_before_made])
@pytest.mark.parametrize("static", [(1,), ()])
def test_lists_seen_outside_the_step_match_python(f, static):
    check(f, np.array([1.0, 2.0]), 4, static=static)


def test_printing_loop_prints_as_python():
    out, want = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(want):
        expected = printed(np.array([1.0]), 3)
    with contextlib.redirect_stdout(out):
        got = jc.jit(printed, cache=False)(np.array([1.0]), 3)
    same(got, expected)
    assert out.getvalue() == want.getvalue()


# --- the compile-time warning, given while a long loop unrolls (before its compile) ---

def prepend(x, n):
    out = []
    for i in range(n):
        y = np.sin(x * i) + np.cos(x) * 2 - x / (i + 1)
        out.insert(0, y.sum())
    return out


def test_unrolling_loop_warns_while_tracing_naming_its_line(monkeypatch):
    from jitcore import compile_time
    from jitcore.errors import CompileTimeWarning

    monkeypatch.setattr(compile_time, "UNROLL_WARN_OPS", 60)
    x = np.array([0.5, -1.0, 2.0])
    line = prepend.__code__.co_firstlineno + 2
    with pytest.warns(CompileTimeWarning) as caught:
        jc.make_ir(prepend, static_argnums=(1,))(x, 40)  # traced only: no compile yet
    text = [str(w.message) for w in caught if issubclass(w.category, CompileTimeWarning)]
    assert len(text) == 1, text  # once a trace, not once a step
    assert f"test_compile_time_48.py:{line} is being unrolled" in text[0]
    assert "out.insert" in text[0] and "out[k] = v" in text[0]
    with pytest.warns(CompileTimeWarning):
        got = jc.jit(prepend, static_argnums=(1,), cache=False)(x, 40)
    same(got, prepend(x, 40))


def test_a_loop_kept_a_loop_gives_no_unrolling_warning(monkeypatch, recwarn):
    from jitcore import compile_time
    from jitcore.errors import CompileTimeWarning

    monkeypatch.setattr(compile_time, "UNROLL_WARN_OPS", 60)
    jc.make_ir(rollout_list)(X0, A, B, np.zeros((10, 1)), 30)
    assert not [w for w in recwarn if issubclass(w.category, CompileTimeWarning)]
