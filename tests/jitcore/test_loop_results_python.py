"""A loop's results as Python gives them: a returned tuple of constants from inside a traced
while (the path that did not return fills zeros of each leaf), and a Python bool flag set under
a traced condition stays a Python bool (it came back as np.True_). Found by new-user programs
(session 42: Newton's square root with an iteration cap, an escape-time test)."""

import numpy as np

import jitcore as jc


def halvings(a, cap):
    x, k = a, 0
    while x > 1.0:
        x = x / 2
        k += 1
        if k > cap:
            return -1.0, k
    return x, k


def escapes(x, n):
    escaped = False
    for _ in range(n):
        x = x * 1.5
        if x > 10:
            escaped = True
            break
    return escaped


def flags(x):
    flag = False
    if x.sum() > 0:
        flag = True
    return flag, x.sum() > 0


def test_an_early_return_of_a_tuple_of_constants_from_a_traced_while():
    f = jc.jit(halvings)
    for a, cap in [(5.0, 100), (5.0, 100), (1000.0, 3), (0.5, 2)]:
        assert f(a, cap) == halvings(a, cap)
        assert [type(v) for v in f(a, cap)] == [type(v) for v in halvings(a, cap)]


def test_a_python_bool_set_under_a_traced_condition_stays_a_python_bool():
    f, g = jc.jit(escapes), jc.jit(flags)
    for x, n in [(1.0, 20), (1.0, 2), (1.0, 20)]:
        got = f(x, n)
        assert got is escapes(x, n)
    for x in (np.ones(2), -np.ones(2), np.ones(2)):
        got, want = g(x), flags(x)
        assert got[0] is want[0] and type(got[1]) is type(want[1]) and got[1] == want[1]
