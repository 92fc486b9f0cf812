"""Loops that were unrolled or refused (session 49's new users): a ``for`` over a list of number
tuples (sprite positions) is one compiled loop over the table's columns (``autograph.tables``).
NumPy running the same Python is the oracle: values, dtypes, Python types, the loop variables
after the loop, the arguments after the call."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def check(f, *args):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    same(jc.jit(f)(*got_args), f(*want_args))
    for g, w in zip(got_args, want_args):
        if isinstance(w, np.ndarray):
            same(g, w)


def loops(f, *args) -> int:
    """How many loops the traced program holds (0: unrolled)."""
    return str(jc.make_ir(f)(*args)).count('"scf.')


def ops(f, *args) -> int:
    return str(jc.make_ir(f)(*args)).count(" = \"")


# ---------- 1. a list of number tuples iterated by a for: a loop over rows

def sprite_blit(canvas, sprite, positions):
    h, w = sprite.shape[:2]
    H, W = canvas.shape[:2]
    for (y, x) in positions:
        if y < 0 or x < 0 or y + h > H or x + w > W:
            continue
        canvas[y:y + h, x:x + w] = np.maximum(canvas[y:y + h, x:x + w], sprite)
    return canvas


@pytest.mark.parametrize("kind", [int, np.int64])
def test_sprite_blit_positions_are_one_loop(kind):
    rng = np.random.default_rng(0)
    positions = [tuple(kind(v) for v in p) for p in rng.integers(-4, 60, (100, 2))]
    args = (np.zeros((64, 64)), rng.random((8, 8)), positions)
    check(sprite_blit, *args)
    assert loops(sprite_blit, *args) >= 1
    assert ops(sprite_blit, *args) < 700  # (unrolled: ~2000)


def walk(a, positions):
    for (y, x) in positions:
        a = a + np.sin(a * y) + x
    return a, y, x


@pytest.mark.parametrize("rows", [
    [(i, 0.5 * i) for i in range(100)],  # Python numbers: weak, a float32 array stays float32
    [(np.int64(i), np.float32(0.5 * i)) for i in range(100)],  # f32 * np.int64 is f64 (NEP 50)
    [(True, -i) for i in range(70)],
])
def test_columns_keep_their_kinds_and_the_loop_variables_after(rows):
    args = (np.linspace(0, 1, 3, dtype=np.float32), rows)
    check(walk, *args)
    assert loops(walk, *args) >= 1


def enumerated(a, positions):
    for k, (y, x) in enumerate(positions, 1):
        a = a + np.sin(a * y) + x * k
    return a, k, y, x


def test_enumerate_of_a_table_is_one_loop():
    args = (np.linspace(0, 1, 3, dtype=np.float32), [(i, 0.5 * i) for i in range(100)])
    check(enumerated, *args)
    assert loops(enumerated, *args) >= 1


WEIGHTS = [0.1 * k for k in range(80)]


def global_table(a):
    s = 0.0
    for w in WEIGHTS:
        s = s + w * a.sum()
        a = a * 0.99
    return s, w, a


def test_a_global_list_of_floats_is_a_constant_table():
    check(global_table, np.ones(4))
    assert loops(global_table, np.ones(4)) >= 1


def numbers_only(rows):
    s = 0
    for (a, b) in rows:
        s = s + a * b
    return s, a


def test_a_loop_of_python_numbers_stays_python():
    rows = [(i, i + 1) for i in range(100)]
    same(jc.jit(numbers_only, static_argnums=0)(tuple(rows)), numbers_only(rows))


@pytest.mark.parametrize("rows", [
    [(1, 2), (3, 4, 5)] * 40,  # not one arity
    [(1, "a")] * 70,  # not numbers
    [(1, 2.0), (3.0, 4)] * 40,  # a column of ints and floats
])
def test_not_a_table_is_iterated_as_before(rows):
    def f(a, rows):
        for r in rows:
            a = a + len(r)
        return a, r[0]
    same(jc.jit(f, static_argnums=1)(np.zeros(2), tuple(rows)), f(np.zeros(2), tuple(rows)))


ARRAYS = [(1, np.ones(2))] * 70


def test_rows_holding_arrays_are_iterated_as_before():
    def f(a):
        for (k, v) in ARRAYS:
            a = a + k * v
        return a, k
    check(f, np.zeros(2))


def breaks(a, rows):
    k = 0
    for (y, x) in rows:
        if a.sum() > 50:
            break
        a = a + y * x
        k += 1
    return a, k, y, x


def test_a_table_loop_that_breaks():
    rows = [(i % 7, 0.25 * i) for i in range(90)]
    check(breaks, np.zeros(3), rows)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(-50, 50), st.floats(-4, 4)), min_size=0, max_size=120))
def test_tables_match_python(rows):
    def f(a, rows):
        y = x = -1
        for (y, x) in rows:
            a = a * 0.5 + y - x * a[::-1]
        return a, y, x
    check(f, np.arange(3.0), rows)


# ---------- 2. a static int passed to a recursion inside a traced while

def vcycle(u, level):
    if level == 0:
        return u * 1.5 + 1
    return vcycle(u * 0.5 + level, level - 1) * 2


def solve_while(u, levels, tol):
    while u.sum() < tol:
        u = vcycle(u, levels)
    return u, levels


def solve_guarded(u, levels, tol):
    it = 0
    while u.sum() < tol and it < 50:
        u = vcycle(u, levels)
        it += 1
    return u, it, levels


def solve_counted(u, levels, n):
    k = 0
    while k < n:
        u = vcycle(u, levels) - u.mean()
        k += 1
    return u, k


def solve_changed(u, levels, tol):
    while u.sum() < tol:
        u = vcycle(u, levels)
        levels = max(levels - 1, 0)  # (assigned: carried, as before)
    return u, levels


@pytest.mark.parametrize("f", [solve_while, solve_guarded, solve_counted])
@pytest.mark.parametrize("static", [True, False])
def test_recursion_on_a_number_the_while_only_passes_on(f, static):
    kw = {"static_argnums": 1} if static else {}
    args = (np.ones(4), 3, 5000.0 if f is not solve_counted else 7)
    want = f(*args)
    same(jc.jit(f, **kw)(*args), want)


def test_a_number_the_while_assigns_is_carried_as_before():
    def g(u, tol):
        n = 0
        while u.sum() < tol:
            u = u + n
            n = n + 1
        return u, n
    check(g, np.ones(3), 40.0)


# ---------- 3. a list attribute appended to next to a method that updates the object

class Solver:
    def __init__(self, u):
        self.u = u.copy()
        self.t = 0
        self.hist = []

    def step(self):
        self.u = 0.5 * (self.u + np.roll(self.u, 1))
        self.t += 1


def attr_list(u, nsteps):
    s = Solver(u)
    for _ in range(nsteps):
        s.step()
        if s.t % 2 == 0:
            s.hist.append(s.u.sum())
    return s.hist, s.t


@pytest.mark.parametrize("nsteps", [0, 1, 4, 9, 100])
def test_an_attribute_list_appended_under_a_traced_if(nsteps):
    u = np.arange(8.0)
    got, want = jc.jit(attr_list)(u, nsteps), attr_list(u, nsteps)
    assert got[1] == want[1] and type(got[0]) is list and len(got[0]) == len(want[0])
    for g, w in zip(*(got[0], want[0])):
        same(g, w)


class Resetting(Solver):
    def step(self):
        super().step()
        self.hist = []


def resets(u, nsteps):
    s = Resetting(u)
    for _ in range(nsteps):
        s.step()
        if s.t % 2 == 0:
            s.hist.append(s.u.sum())
    return s.hist


def test_a_method_that_sets_the_list_is_refused_saying_what_to_do():
    with pytest.raises(jc.errors.UnsupportedError, match=r"step\(\) sets \.hist anew.*local list"):
        jc.jit(resets)(np.arange(8.0), 100)


# ---------- 4. a list used as a stack in a guarded while: refused, saying what compiles

def flood_list(grid, sy, sx):
    h, w = grid.shape
    target = grid[sy, sx]
    out = grid.copy()
    stack = [(sy, sx)]
    it = 0
    while stack and it < 4 * h * w + 1:
        y, x = stack.pop()
        if 0 <= y < h and 0 <= x < w:
            if out[y, x] == target:
                out[y, x] = 2
                stack.append((y + 1, x))
                stack.append((y - 1, x))
                stack.append((y, x + 1))
                stack.append((y, x - 1))
        it += 1
    return out


def flood_arrays(grid, sy, sx):
    """The message's recipe: the stack in arrays with a counter."""
    h, w = grid.shape
    target = grid[sy, sx]
    out = grid.copy()
    cap = 4 * h * w + 1
    ys, xs = np.empty(cap, np.int64), np.empty(cap, np.int64)
    ys[0], xs[0] = sy, sx
    top, it = 1, 0
    while top > 0 and it < cap:
        top -= 1
        y, x = ys[top], xs[top]
        if 0 <= y < h and 0 <= x < w:
            if out[y, x] == target:
                out[y, x] = 2
                for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    ys[top], xs[top] = y + dy, x + dx
                    top += 1
        it += 1
    return out


def test_a_list_stack_is_refused_with_a_recipe_that_compiles():
    grid = (np.random.default_rng(0).random((6, 6)) > 0.3).astype(np.int64)
    with pytest.raises(jc.errors.UnsupportedError, match="used as a stack.*np.empty") as info:
        jc.jit(flood_list)(grid, 0, 0)
    assert "iteration guard (it = 0" not in str(info.value)
    check(flood_arrays, grid, 0, 0)
    check(flood_arrays, grid, 3, 2)


def push(vals, n):
    out = []
    it = 0
    while it < n:
        if vals[it] > 0.5:
            out.append(vals[it])
        it += 1
    return len(out), out, it


@pytest.mark.parametrize("n", [0, 1, 3, 10])
@pytest.mark.parametrize("static", [True, False])
def test_a_while_whose_test_is_its_guard_appends_under_a_traced_if(n, static):
    v = np.random.default_rng(n).random(10)
    kw = {"static_argnums": 1} if static else {}
    got, want = jc.jit(push, **kw)(v, n), push(v, n)
    assert got[0] == want[0] and got[2] == want[2] and type(got[1]) is list
    for g, w in zip(got[1], want[1]):
        same(g, w)


def scalars_in_a_list(a):
    vals = [a[k] for k in range(70)]  # NumPy scalars, traced
    zero_d = [a[k:k + 1].sum(keepdims=True).reshape(()) for k in range(70)]  # 0-d arrays
    s = np.zeros(2)
    for v in vals:
        s = s + v
    for w in zero_d:
        s = s * 0.5 + w
    return s, v, w


def test_a_list_of_traced_numbers_keeps_scalars_and_0d_arrays_apart():
    check(scalars_in_a_list, np.arange(80.0))
    assert loops(scalars_in_a_list, np.arange(80.0)) >= 2


def push_counting(vals, n, cnt):
    out = []
    it = 0
    while it < n:
        cnt[0] += 1  # (an in-place write before the append: the first step runs once)
        if vals[it] > 0.5:
            out.append(vals[it])
        it += 1
    return len(out), it


@pytest.mark.parametrize("n", [0, 2, 10])
def test_a_guarded_append_after_an_in_place_write_runs_each_step_once(n):
    check(push_counting, np.random.default_rng(1).random(10), n, np.zeros(2))
