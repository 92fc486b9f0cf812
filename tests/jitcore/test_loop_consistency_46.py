"""The same program compiles at every trip count, below and above the unroll limit
(``statements.UNROLL_LIMIT``; nested or long bodies unroll fewer steps), and gives what plain
Python + NumPy gives: results, dtypes, Python types, the arguments after the call.

- a helper writing in place a NumPy array made inside the jitted function, called in an
  assignment (``a = find(parent, x)``) or a return (``return smooth(u, 5)``): the caller's
  names passed to it are read again after the statement, as after a call statement;
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.jit_once import jit_once


def same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    else:
        assert a == b


def check(f, *args, **kw):
    """``f`` under jit and in Python on copies of ``args``: the same result and arguments after."""
    py_args, jit_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = f(*py_args)
    got = jit_once(f, **kw)(*jit_args)
    same(got, expected)
    for a, b in zip(jit_args, py_args):
        same(a, b)
    return got


# --- a helper writing a locally made array, its result assigned (h4 R1, h3 3.5) -------------

def find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


def union_find(n, eu, ev):
    parent = np.arange(n)
    for i in range(eu.shape[0]):
        a = find(parent, eu[i])
        parent[ev[i]] = a
    return parent


def union_find_both(n, eu, ev):
    parent = np.arange(n)
    for i in range(eu.shape[0]):
        a = find(parent, eu[i])
        b = find(parent, ev[i])
        if a != b:
            parent[b] = a
    return parent


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([1, 2, 8, 9, 40, 70]), st.integers(0, 2**16))
def test_helper_writing_local_array_in_assignment_every_trip_count(m, seed):
    rng = np.random.default_rng(seed)
    eu, ev = rng.integers(0, 10, m), rng.integers(0, 10, m)
    check(union_find, 10, eu, ev)


def test_helper_writing_local_array_twice_in_one_line():
    for m in (3, 70):
        rng = np.random.default_rng(m)
        check(union_find_both, 12, rng.integers(0, 12, m), rng.integers(0, 12, m))


def smooth(u, k):
    for _ in range(k):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    return u


def multigrid(u, levels):
    u = smooth(u, 2)
    if levels == 1:
        return smooth(u, 5)
    ec = multigrid(np.zeros(len(u) // 2), levels - 1)
    u[: len(ec)] += ec
    return u


def test_recursive_helper_given_local_array_and_returning_a_writing_call():
    check(multigrid, np.ones(9), 2, static_argnames=("levels",))
    check(multigrid, np.linspace(0.0, 1.0, 17), 3, static_argnames=("levels",))


def test_helper_result_in_expression_reads_the_written_array():
    def bump(z, k):
        z[k] = z[k] + 1.5
        return z[k] * 2.0

    def f(x):
        z = np.zeros(4)
        s = 0.0
        for i in range(x.shape[0]):
            s = s + bump(z, int(x[i]) % 4)
        return z, s

    for n in (3, 100):
        check(f, np.arange(n, dtype=np.int64))


# --- a Python number that the body makes an array, next to another carry (h3 3.1) ----------

def pendulum(th, n):
    om = 0.0
    for _ in range(n):
        om = om - 0.01 * th
        th = th + 1.0
    return om, th


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([0, 1, 5, 50, 65, 100, 300]), st.sampled_from([np.float64, np.float32]))
def test_number_becoming_array_next_to_another_carry_every_trip_count(n, dtype):
    check(pendulum, np.ones(3, dtype=dtype), n)



# --- written in place on one path of a traced if, rebound on the other (h3 3.4) -------------

def sorted_then_replace_or_shrink(fs, fr, n):
    for _ in range(n):
        fs = fs[np.argsort(fs)]  # a fresh array: nothing else holds it
        if fr < fs[0]:
            fs[-1] = fr
        else:
            fs = fs * 0.5
        fr = fr * 0.9
    return fs


def replace_or_shrink_argument(fs, fr, n):
    for _ in range(n):
        if fr < fs[0]:
            fs[-1] = fr  # the caller's array, until the other path rebinds fs
        else:
            fs = fs * 0.5
    return fs


def replace_or_shrink_seen_by_another_name(fs, fr):
    fs = fs * 1.0
    g = fs
    if fr < fs[0]:
        fs[-1] = fr  # g sees this write
    else:
        fs = fs * 0.5
    return fs + g


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([1, 3, 70, 120]), st.floats(-3.0, 3.0))
def test_fresh_array_written_or_rebound_under_traced_if_every_trip_count(n, fr):
    check(sorted_then_replace_or_shrink, np.array([2.0, -1.0, 0.5]), fr, n)


def test_fresh_array_written_or_rebound_outside_a_loop():
    def f(x, t):
        y = x + 1.0
        if t < y[0]:
            y[-1] = t
        else:
            y = y * 0.5
        return y

    for t in (0.0, 5.0):
        check(f, np.array([1.0, 2.0, 3.0]), t)


def test_array_others_hold_written_or_rebound_is_refused_naming_the_cause():
    for f, args in ((replace_or_shrink_argument, (np.array([1.0, 2.0]), 0.25, 100)),
                    (replace_or_shrink_seen_by_another_name, (np.array([1.0, 2.0]), 0.5))):
        with pytest.raises(UnsupportedError, match="also held elsewhere"):
            jc.jit(f)(*args)


def test_the_advised_copy_before_the_if_compiles():
    def f(fs, fr, n):
        for _ in range(n):
            fs = fs.copy()
            if fr < fs[0]:
                fs[-1] = fr
            else:
                fs = fs * 0.5
            fr = fr * 1.5
        return fs

    for n in (3, 100):
        check(f, np.array([1.0, 2.0]), 0.25, n)


def test_nested_if_on_an_array_another_name_holds_is_right_or_refused():
    def f(x, a, b):
        fs = x * 1.0
        g = fs
        if a > 0:
            if b > 0:
                fs[-1] = 7.0  # g sees this write in Python
            else:
                fs = fs * 0.5
        return fs + g

    for a, b in ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0)):
        try:
            got = jc.jit(f)(np.array([1.0, 2.0]), a, b)
        except UnsupportedError as e:
            assert "also held elsewhere" in str(e)
        else:
            same(got, f(np.array([1.0, 2.0]), a, b))
