"""A reduction of an array that a loop's body updates and carries (IPF's ``m = m * f[:, None];
e = np.abs(m.sum(axis=1) - rows).max()``), session 57: ``fuse`` lets the sum read the new ``m``
rather than recompute it from the old one (``passes/fuse.py``, ``_stored_and_reduced``), so the
update writes ``m`` in place (no second buffer traded at each step), and the CPU's row groups,
now formed inside loop bodies too (``codegen/plan.py``, ``launch_runs(nested=True)``), sum each
block of the new rows while they are in cache. Values are NumPy's within rounding."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import runtime
from jitcore.codegen.plan import ForLoop, WhileLoop
from tests.oracle import assert_close


def loop_err(m, rows, cols, nit):
    e = 0.0
    for _ in range(nit):
        m = m * (rows / m.sum(axis=1))[:, None]
        m = m * (cols / m.sum(axis=0))[None, :]
        e = np.abs(m.sum(axis=1) - rows).max()
    return m, e


def ipf(seed, rows, cols, tol, maxit):
    m = seed.astype(np.float64).copy()
    it = 0
    err = 1.0
    while err > tol and it < maxit:
        m *= (rows / m.sum(axis=1))[:, None]
        m *= (cols / m.sum(axis=0))[None, :]
        err = np.abs(m.sum(axis=1) - rows).max()
        it += 1
    return m, it, err


def step(m, rows, cols):  # not in a loop: the returned m is stored, its sum reads it
    m = m * (rows / m.sum(axis=1))[:, None] * (cols / m.sum(axis=0))[None, :]
    return m, m.sum(axis=1) - rows


def _problem(shape, seed=0, order="C"):
    rng = np.random.default_rng(seed)
    m = np.asarray(rng.uniform(1, 10, shape), order=order)
    rows = rng.uniform(50, 100, shape[0])
    cols = rng.uniform(50, 100, shape[1])
    return m, rows, cols * (rows.sum() / cols.sum()) * 1.01  # inconsistent: every step runs


def _loop(plan):
    (loop,) = [s for s in plan.program if isinstance(s, (ForLoop, WhileLoop))]
    return loop


@pytest.mark.parametrize("fn, extra", [(loop_err, (6,)), (ipf, (1e-10, 6))])
def test_update_in_place_and_summed_in_its_row_group(monkeypatch, fn, extra):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)  # a group at this small size
    m, rows, cols = _problem((24, 40))
    jitted = jc.jit(fn)
    plan = jitted.lower(m, rows, cols, *extra).plan()
    loop = _loop(plan)
    assert not [c for c in loop.swaps if c.shape == m.shape]  # m is not traded for a second buffer
    body = [s.launch for s in loop.body if hasattr(s, "launch")]
    assert any(plan.launches[i].runs_with >= 0 for i in body)  # a row group inside the loop
    for shape, order in [((24, 40), "C"), ((37, 5), "F")]:
        m, rows, cols = _problem(shape, order=order)
        want, got = fn(m, rows, cols, *extra), jitted(m, rows, cols, *extra)
        for w, g in zip(want, got):
            assert_close(g, w, rtol=1e-12, atol=1e-12 * float(np.max(rows)))


def test_step_outside_a_loop():
    m, rows, cols = _problem((30, 20))
    optimized = jc.jit(step).lower(m, rows, cols).as_text("optimized")
    # the update's two multiplies once: the row sum reads its result (recomputed there: four)
    assert optimized.count('"arith.mulf"') == 2
    for w, g in zip(step(m, rows, cols), jc.jit(step)(m, rows, cols)):
        assert_close(g, w, rtol=1e-12, atol=1e-9)
