"""Session 56: control flow its users saw refused or unrolled (t56 u1 R1, R2, M1, M2, S1; u2 R3,
S1, M1, M2). Each jitted function is compiled once and run on several values."""

import ast
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.autograph import analysis
from jitcore.errors import StaticOnDemandWarning
from tests.budget import examples


def _first_read(source: str) -> set:
    loop = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.While))
    return analysis.read_first(loop.body)


def test_liveness_sees_through_with_try_and_loops_that_run():
    # (a name first assigned in the block and used after it is not read before the loop sets it)
    assert "r" not in _first_read("while c:\n with np.errstate(divide='ignore'):\n  r = c / k\n c = r")
    assert "r" not in _first_read("while c:\n try:\n  r = c / k\n except E:\n  r = 0.0\n c = r")
    assert "a" not in _first_read("while c:\n for s in range(2):\n  a = s\n c = a")
    assert "a" not in _first_read("while c:\n for s in (1, 2):\n  a = s\n c = a")
    # ... but it is where the block may end early or the loop may not run
    assert "r" in _first_read("while c:\n with suppress(E):\n  r = c / k\n c = r")
    assert "a" in _first_read("while c:\n for s in range(0):\n  a = s\n c = a")
    assert "a" in _first_read("while c:\n for s in range(n):\n  a = s\n c = a")
    # a handler reads what the body had before it failed: live throughout the body
    assert "r" in _first_read("while c:\n try:\n  r = f(c)\n  c = g(c)\n except E:\n  c = r\n c = r")


def _in_blocks(c, k, tol):
    it = 0
    while c.max() > tol and it < 1000:
        with np.errstate(divide="ignore"):
            r = c / k  # (first assigned here, used below in the same iteration)
        for s in range(2):
            acc = r * (0.5 if s == 0 else 1.0)
        c = c - 0.1 * np.minimum(acc, c)
        it += 1
    return c, it


_in_blocks_jit = jc.jit(_in_blocks)


@settings(max_examples=examples(6, 3), deadline=None)
@given(st.lists(st.floats(0.6, 50.0), min_size=3, max_size=3), st.floats(0.1, 3.0))
def test_a_variable_first_set_in_a_with_or_inner_for_of_a_traced_while(c, k0):
    args = (np.array(c), np.array([k0, 0.0, 2.0]), 0.5)
    with np.errstate(divide="ignore"):
        want = _in_blocks(*args)
    got = _in_blocks_jit(*args)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]


def _in_a_try(c, tol):
    it = 0
    while c > tol and it < 1000:
        try:
            r = c * 0.5
        except ArithmeticError:
            r = 0.0
        c = c - 0.1 * r
        it += 1
    return c, it


def test_a_variable_first_set_in_a_try_of_a_traced_while():
    assert jc.jit(_in_a_try)(np.float64(40.0), 1.0) == _in_a_try(np.float64(40.0), 1.0)


def _resample(w, rng):
    c = np.cumsum(w)
    c[-1] = 1.0
    return np.searchsorted(c, (rng.random() + np.arange(w.size)) / w.size)


def _particle_filter(zs, n, rng):
    parts = rng.normal(0.0, 1.0, n)
    w = np.full(n, 1.0 / n)
    est = np.zeros(zs.size)
    for k in range(zs.size):
        parts = parts + rng.normal(0.0, 0.5, n)
        w = w * np.exp(-0.5 * (zs[k] - parts) ** 2)
        w = w / np.sum(w)
        est[k] = np.sum(w * parts)
        if 1.0 / np.sum(w**2) < n / 2:  # (traced: rng passed to a helper, never assigned)
            parts = parts[_resample(w, rng)]
            w = np.full(n, 1.0 / n)
    return est


def test_a_generator_passed_to_a_helper_under_a_traced_if_in_a_long_loop():
    zs = np.sin(np.arange(60) * 0.2)
    mine, theirs = np.random.default_rng(3), np.random.default_rng(3)
    f = jc.jit(_particle_filter)
    got = f(zs, 50, mine)
    np.testing.assert_allclose(got, _particle_filter(zs, 50, theirs), rtol=1e-12, atol=1e-12)
    assert mine.random() == theirs.random()  # the generator's stream moved on as NumPy's
    assert '"scf.for"' in f.lower(zs, 50, mine).as_text("traced")  # (a loop, not 60 copies)


class _Filter:
    def __init__(self, n):
        self.x = np.zeros(n)
        self.log = []

    def update(self, z):  # (a dict's method name: a user's method, traced as any call)
        self.x = self.x + 0.5 * (z - self.x)

    def add(self, z):
        self.log.append(z)


def _filter_steps(zs):
    kf = _Filter(2)
    out = np.zeros(zs.shape[0])
    for k in range(zs.shape[0]):
        if zs[k, 0] > 0:
            kf.update(zs[k])
        out[k] = kf.x[0]
    return out, kf.x


def test_a_method_named_update_under_a_traced_if_in_a_loop():
    zs = np.random.default_rng(1).normal(size=(40, 2))
    got, want = jc.jit(_filter_steps)(zs), _filter_steps(zs)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert '"scf.for"' in jc.jit(_filter_steps).lower(zs).as_text("traced")


def _appends_in_method(z):
    kf = _Filter(2)
    if z[0] > 0:
        kf.add(z[0])
    return len(kf.log)


def _dict_update(z):
    d = {"a": 1.0}
    if z[0] > 0:
        d.update(a=2.0)
    return d["a"]


def _log_steps(zs):
    kf = _Filter(1)
    for k in range(zs.shape[0]):
        kf.add(zs[k])  # (a user's method that appends: each step must run)
        kf.update(zs[k])
    return kf.x, len(kf.log)


def test_a_loop_calling_a_method_that_appends_runs_each_step():
    zs = np.arange(70.0)  # (more steps than UNROLL_LIMIT: unrolled for the appends all the same)
    got, want = jc.jit(_log_steps)(zs), _log_steps(zs)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] == 70


@pytest.mark.parametrize(
    "f, words", [(_appends_in_method, "changed the list kf.log"), (_dict_update, "calls d.update")]
)
def test_python_changes_under_a_traced_if_stay_refused(f, words):
    with pytest.raises(jc.UnsupportedError, match=words):
        jc.jit(f)(np.ones(2))


def _promoting(x, n):
    P = np.eye(2, dtype=x.dtype)
    out = np.zeros(n)
    for k in range(n):  # P is float64 after one step (np.eye's), x after two
        x = P @ x + 0.01
        P = 0.5 * (P + np.eye(2))
        out[k] = x[0]
    return x, P, out


def test_a_loop_whose_first_steps_promote_its_state_is_a_loop():
    x = np.array([1.0, 2.0], np.float32)
    args = (x, 40)
    f = jc.jit(_promoting, static_argnums=1)
    for a, b in zip(f(*args), _promoting(*args)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert '"scf.for"' in f.lower(*args).as_text("traced")


def _jury(a):
    a = a / a[0]
    row = a[::-1].copy()
    stable = True
    while row.size > 1:
        if abs(row[-1]) >= abs(row[0]):
            stable = False
            break
        k = row[-1] / row[0]
        row = (row - k * row[::-1])[:-1]
    return stable


def _ssa(x0, kb, kd, t_end, rng):
    t, x, ts = 0.0, x0, [0.0]
    while True:
        a0 = kb + kd * x
        if a0 == 0:
            break
        t = t + rng.exponential(1 / a0)
        if t > t_end:
            break
        x = x + 1
        ts.append(t)
    return np.array(ts)


def test_messages_name_the_loop():
    with pytest.raises(jc.JitTypeError, match="'row' is float64.* where it breaks.*changes shape on each"):
        jc.jit(_jury)(np.array([1.0, -1.2, 0.5]))
    with pytest.raises(jc.UnsupportedError, match="'ts' is appended to in the while .* no iteration guard"):
        jc.jit(_ssa)(5, 2.0, 0.2, 10.0, np.random.default_rng(1))


def _make(gain):
    def step(x):
        if x[0] > 0:
            x = x * gain
        return x

    return step


def test_a_renamed_function_is_converted():
    f = _make(0.5)
    f.__name__ = f.__qualname__ = "step_plant"  # (before its first compile)
    np.testing.assert_array_equal(jc.jit(f)(np.ones(2)), [0.5, 0.5])
    np.testing.assert_array_equal(jc.jit(f)(-np.ones(2)), [-1.0, -1.0])


def test_a_function_without_source_says_so_in_any_error():
    scope = {"np": np}
    exec(
        "def f(c, n):\n    out = np.empty((n, 2))\n    for i in range(n):\n"
        "        c = c * 0.5\n        out[i] = c\n    return out\n",
        scope,
    )
    with pytest.raises(jc.JitcoreError, match="could not give jitcore this function's source") as e:
        jc.jit(scope["f"])(np.ones(2), 3)
    assert str(e.value).count("source") == 1 + str(e.value).count("source lines")


@functools.lru_cache
def _schedule():
    def schedule(k, t_end):
        a, t, trace = 1.0, 0.0, []
        while t < t_end:
            a -= 0.1 * k * a
            t += 0.5
            trace.append(a)
        return np.array(trace)

    return jc.jit(schedule, cache=False)


def test_a_float_made_static_warns_at_once_with_the_reason():
    with pytest.warns(StaticOnDemandWarning, match="t_end, a float .* iteration guard"):
        _schedule()(0.2, 2.0)
