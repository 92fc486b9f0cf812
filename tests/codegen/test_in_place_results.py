"""A kernel whose result starts as a copy of an input that dies there writes in the input's
buffer (``codegen/host.py``, ``_Planner.taken_over``): ``out[i] = v`` in a loop then writes one
element of the carried buffer instead of copying all of it every step (quadratic time). The
cases where the old value is still read afterwards must keep their copy: NumPy, running the
same Python, is the oracle for each."""

from __future__ import annotations

import numpy as np

import jitcore as jc
from jitcore.codegen.plan import Branch, Copy, ForLoop, Run
from tools.bench_loop_shapes import breadth_first, nested_rows


def window_sums(x):
    out = np.zeros(x.shape[0] - 2)
    for i in range(x.shape[0] - 2):
        out[i] = x[i:i + 3].sum()  # array work in the body: the loop launches kernels
    return out


def test_a_loops_element_writes_take_over_the_carried_buffer():
    x = np.random.default_rng(0).standard_normal(90)
    f = jc.jit(window_sums)
    np.testing.assert_allclose(f(x), window_sums(x), rtol=1e-15)
    plan = f.lower(x).plan()
    (loop,) = [s for s in plan.program if isinstance(s, ForLoop)]
    launches = [plan.launches[s.launch] for s in loop.body if isinstance(s, Run)]
    carried = _carried(plan, loop)
    # the write's result is the carried buffer itself, which it reads as the copy's source
    assert any(launch.operands[0] in carried and launch.operands[0] in _results(launch)
               for launch in launches)
    assert not any(isinstance(s, Copy) for s in loop.body)
    assert not loop.swaps


def _results(launch):
    return [s for s in launch.operands if s.kind != "status"][-launch.results:]


def _carried(plan, loop):
    """The loop's carried buffers: where the copies before it put the inits."""
    return {s.target for s in plan.program[:plan.program.index(loop)] if isinstance(s, Copy)}


def old_value_read_after(x):
    out = np.zeros_like(x)
    total = np.zeros(())
    for i in range(x.shape[0]):
        before = out * 1.0  # the old value, read after the write below
        out[i] = x[i:i + 1].sum() + 1.0
        total = total + before.sum()
    return out, total


def shifted_self_update(x):
    for _ in range(70):
        x[1:-1] = x[:-2] + x[2:]  # the kernel reads the array it starts as a copy of
    return x


def test_values_still_read_keep_their_copy():
    x = np.random.default_rng(1).standard_normal(70)
    for got, want in zip(jc.jit(old_value_read_after)(x), old_value_read_after(x)):
        np.testing.assert_array_equal(got, want)
    assert '"scf.for"' in jc.jit(old_value_read_after).lower(x).as_text("optimized")
    y = np.random.default_rng(2).standard_normal(12)
    np.testing.assert_array_equal(jc.jit(shifted_self_update)(y.copy()), shifted_self_update(y.copy()))


def test_an_argument_is_never_written():
    def f(x):
        y = x.copy()
        y[0] = 5.0
        return y

    x = np.arange(4.0)
    np.testing.assert_array_equal(jc.jit(f)(x), [5.0, 1, 2, 3])
    np.testing.assert_array_equal(x, np.arange(4.0))


def snapshots(u, every):
    u = u.copy()
    snaps = np.zeros((40, u.size))
    for t in range(40 * every):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
        if t % every == 0:
            snaps[t // every] = u  # a row written under a traced if
    return u, snaps


def early_exit(x0, n):
    x, hist = x0, np.zeros(n)
    for i in range(n):
        x = 3.7 * x * (1 - x)
        hist[i] = x
        if x > 2.0:  # never taken: the result so far stays where it is on the other path
            return hist, i
    return hist, n


def snapshot_then_old_read(u, every):
    snaps = np.zeros((40, u.size))
    total = np.zeros(())
    for t in range(40 * every):
        old = snaps
        if t % every == 0:
            snaps = snaps.copy()
            snaps[t // every] = u * t
        total = total + old.sum()  # the old value, read after the if
    return snaps, total


def _copies_in_loops(steps, taken=True, depth=0):
    """The bytes of each copy in a loop; ``taken=False`` leaves out the branches' ``then`` arms
    (an early return's, which runs once)."""
    found = []
    for s in steps:
        if isinstance(s, Copy) and depth:
            found.append(s.nbytes)
        arms = (getattr(s, "body", ()), getattr(s, "then", ()) if taken else (), getattr(s, "otherwise", ()))
        for inner in arms:
            found += _copies_in_loops(inner, taken, depth + isinstance(s, (ForLoop, Branch)))
    return found


def test_writes_under_a_traced_if_in_a_loop_take_over_the_carried_buffer():
    """``if t % k == 0: snaps[t // k] = u`` and an early ``return hist, i`` in a loop copied the
    whole array at every step (the if's result had a buffer of its own; the write a copy of its
    input): quadratic time. Now the row is written where the array lies, and the path that
    passes a dying value on leaves it there."""
    u = np.random.default_rng(3).random(30)
    for fn, args, taken in [(snapshots, (u, 5), True), (early_exit, (0.3, 500), False)]:
        f = jc.jit(fn)
        for got, want in zip(f(*args), fn(*args)):
            np.testing.assert_array_equal(got, want)
        plan = f.lower(*args).plan()
        assert all(n < 1000 for n in _copies_in_loops(plan.program, taken)), fn.__name__
    for got, want in zip(jc.jit(snapshot_then_old_read)(u, 3), snapshot_then_old_read(u, 3)):
        np.testing.assert_array_equal(got, want)


def _big_new_results_in_loops(plan) -> list[int]:
    """The bytes of each result of a launch in a loop that is not written where one of the
    launch's inputs lies (a kernel that copies its whole input at each step), if 1000 or more."""
    found = []

    def walk(steps, depth):
        for s in steps:
            if isinstance(s, Run) and depth:
                launch = plan.launches[s.launch]
                results = _results(launch)
                inputs = [o for o in launch.operands if o.kind != "status"][:-launch.results]
                for r in results:
                    shape, dtype = plan.buffers[r.index] if r.kind == "buffer" else ((), np.dtype(np.int8))
                    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
                    if r not in inputs and nbytes >= 1000:
                        found.append(nbytes)
            for inner in (getattr(s, "body", ()), getattr(s, "then", ()), getattr(s, "otherwise", ())):
                walk(inner, depth + 1 if inner is getattr(s, "body", None) else depth)

    walk(plan.program, 0)
    return found


def test_writes_in_nested_ifs_and_scalar_kernels_that_read_first_stay_in_place():
    x = np.random.default_rng(5).standard_normal((60, 8))
    f = jc.jit(nested_rows)
    np.testing.assert_array_equal(f(x), nested_rows(x))
    assert all(n < 1000 for n in _copies_in_loops(f.lower(x).plan().program)), "a copy of out per step"
    walls = (np.random.default_rng(0).random((12, 12)) < 0.2).astype(np.int64)
    walls[:2, :2] = 0
    g = jc.jit(breadth_first)
    for got, want in zip(g(walls), breadth_first(walls)):
        np.testing.assert_array_equal(got, want)
    assert not _big_new_results_in_loops(g.lower(walls).plan()), "seen copied per step"
