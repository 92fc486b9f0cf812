"""What a traced loop leaves that is known while tracing (session 37; docs/control-flow.md,
"After a traced loop"): the target of a ``for`` over a static range, a number the body sets or
steps by constants, a counter whose steps and exit test only constants, are Python values
after the loop, as after Python's loop, so ``x[:i]``, ``np.zeros(i)`` and ``a[i, :j]`` after it
compile; a counter that the data stops has its bounds, so ``x[:i].sum()`` is a masked sum.

Each program of ``tools/loop_exit_programs.py`` is checked against the same function run by
Python at two lengths (its loop stays a loop).
"""

from __future__ import annotations

import ast
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.autograph import analysis, loop_exit
from jitcore.errors import ConcretizationError
from tests.budget import examples
from tools.loop_exit_programs import (
    PROGRAMS,
    counter_in_for,
    for_index_slice,
    inner_index_after,
    while_data_break_sum,
)

FOR, WHILE = '"scf.for"', '"scf.while"'


def _leaves(v):
    return list(v) if isinstance(v, tuple) else [v]


def check(jitted, fn, args):
    """``jitted(*args)`` equals ``fn(*args)`` (run by Python), leaf by leaf: shapes and integer
    values exactly, floats to rounding (a sum's order differs from Python's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's mean of an empty slice, in both)
        want = _leaves(fn(*[a.copy() for a in args]))
        got = _leaves(jitted(*[a.copy() for a in args]))
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert np.shape(g) == np.shape(w)
        if np.asarray(w).dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_loop_exit_programs_match_python(name):
    fn, make = PROGRAMS[name]
    f = jc.jit(fn)
    for n in (100, 137):
        check(f, fn, make(n))
    text = f.lower(*make(137)).as_text("traced")
    assert text.count(FOR) + text.count(WHILE) >= 1  # a loop, not unrolled


def test_counters_after_loops_are_python_values():
    def f(x):
        s = 0.0
        k = 0
        for i in range(x.shape[0]):
            s = s + x[i]
            k += 2
        return s, i, k  # noqa: F821 (as Python leaves them)

    _, i, k = jc.jit(f)(np.ones(50))
    assert (i, k) == (49, 100) and type(i) is int and type(k) is int


def test_one_compile_over_lengths():
    """A static value from a size is one of the forms the size-generic code computes
    (``x[:n - 1]``): a new length reuses the code, as before."""
    for fn in (for_index_slice, counter_in_for):
        f = jc.jit(fn)
        for n in (100, 137, 300):
            check(f, fn, (np.random.default_rng(n).standard_normal(n),))
        assert f.cache_info().compiles == 1, fn.__name__


def _stop_at(n, where):
    x = np.abs(np.random.default_rng(n).standard_normal(n)) + 0.1
    x[where] = -1.0
    return x


def test_data_dependent_counter_is_bounded():
    """A counter that the data stops is not known while tracing: it stays traced, within its
    bounds, so reductions and writes of x[:i] and x[i:] compile (one code for every exit)."""
    def zero_tail(x):
        n = x.shape[0]
        i = 0
        while i < n:
            if x[i] < 0:
                break
            i += 1
        x[i:] = 0.0
        return x, x[:i].mean()

    f, g = jc.jit(while_data_break_sum), jc.jit(zero_tail)
    for n, where in ((100, 0), (100, 40), (100, 99), (137, 5)):
        check(f, while_data_break_sum, (_stop_at(n, where),))
        check(g, zero_tail, (_stop_at(n, where),))
    x = np.abs(np.random.default_rng(1).standard_normal(120)) + 0.1  # no break: i = n
    check(g, zero_tail, (x,))


def test_data_dependent_counter_refused_where_a_shape_needs_it():
    def slice_out(x):
        for i in range(x.shape[0]):
            if x[i] < 0:
                break
        return x[:i]

    def shape_from(x):
        n = x.shape[0]
        i = 0
        while i < n:
            if x[i] < 0:
                break
            i += 1
        return np.zeros(i)

    # returned, x[:i] is a result of data-dependent length: compacted and trimmed (dynlen46)
    for x in (_stop_at(50, 10), _stop_at(50, 0), np.ones(7)):
        np.testing.assert_array_equal(jc.jit(slice_out)(x), slice_out(x))
    with pytest.raises(ConcretizationError, match="the while loop at .*stopped by the data"):
        jc.jit(shape_from)(_stop_at(50, 10))


def test_long_loops_past_the_budget(monkeypatch):
    """A counter that needs more folds than the budget stays traced (its bounds still make
    x[:i].sum() a masked sum); a for loop's counter stepped by a constant needs none."""
    def stepped(x):
        n = x.shape[0]
        i = 0
        while i < n:
            if i % 2 == 0:
                i += 1
            else:
                i += 3
        return x[:i - 2].sum(), i

    monkeypatch.setattr(loop_exit, "BUDGET", 8)
    x = np.random.default_rng(3).standard_normal(200)
    check(jc.jit(stepped), stepped, (x,))  # (x[:i - 2]: a masked sum)
    check(jc.jit(counter_in_for), counter_in_for, (x,))  # (its static k at once)


def test_final_values_evaluates_only_the_counter():
    def f(x):
        n = x.shape[0]
        i = 0
        s = 0.0
        while i < n:
            if i % 3 == 0:
                s = s + x[i]
                i += 1
            else:
                i += 2
        return s, i

    module = jc.make_ir(f)(np.ones(40))
    loop = next(op for op in module.walk() if op.op_name == "scf.while")
    counter = loop_exit.final_values(loop, [0])
    assert counter is not None and int(counter[0]) == f(np.ones(40))[1]
    assert loop_exit.final_values(loop, [1]) is None  # (the sum reads x)


def _steps_once(src: str) -> bool:
    loop = next(n for n in ast.walk(ast.parse(textwrap.dedent(src))) if isinstance(n, ast.While))
    return analysis.steps_once(loop.body, "i")


def test_steps_once():
    assert _steps_once("""
        while i < n:
            if x[i] > 0:
                i += 1
            else:
                i += 2
        """)
    assert not _steps_once("""
        while i < n:
            for j in range(3):
                i += 1
        """)


def test_number_the_body_sets_past_the_budget():
    """An inner loop's index is a number the outer body sets: after the outer loop it is that
    number, however long the loop (no evaluation: the body is traced once)."""
    a = np.random.default_rng(5).standard_normal((6000, 3))
    check(jc.jit(inner_index_after), inner_index_after, (a,))


def strided_tail(x):
    acc = np.zeros(())  # (array state from the start: the loop is traced at once)
    for i in range(3, x.shape[0] - 2, 3):
        acc = acc + x[i]
    return acc, x[i:].sum(), x[:i - 1] * 2.0


def until_negative(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if x[i] < 0:
            break
        s = s + x[i]
        i += 1
    return s, x[i:].sum(), np.mean(x[:i]) if n else 0.0, i


STRIDED_TAIL, UNTIL_NEGATIVE = jc.jit(strided_tail), jc.jit(until_negative)


@settings(max_examples=examples(12, ci=4), deadline=None)
@given(st.integers(12, 400), st.integers(0, 2 ** 32 - 1), st.integers(-1, 399),
       st.sampled_from([1.0, np.nan, np.inf, -0.0]))
def test_exits_at_any_length_and_break(n, seed, stop, special):
    """The static last index of a strided range at any length, and a counter the data stops
    anywhere (or nowhere; a NaN, inf or -0.0 on the way does not stop it), against Python."""
    x = np.abs(np.random.default_rng(seed).standard_normal(n)) + 0.5
    x[seed % n] = special
    if 0 <= stop < n:
        x[stop] = -1.0
    check(STRIDED_TAIL, strided_tail, (x,))
    check(UNTIL_NEGATIVE, until_negative, (x,))
