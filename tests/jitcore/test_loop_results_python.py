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


def run_length(x):
    c = 0
    for v in x:
        c = c + 1 if v > 1 else 0
    return c


def largest_int(x):
    best = 0
    for v in x:
        best = max(best, int(v))
    return best


def test_a_counter_updated_by_a_ternary_or_max_stays_a_python_int():
    # Found by a new-user program (session 42): the path not taken filled a NumPy zero, and
    # max() of Python ints gave a NumPy scalar.
    for fn in (run_length, largest_int):
        f = jc.jit(fn)
        for x in (np.array([1.0, 2, 3, 1, 2]), np.arange(40.0), np.array([1.0, 2, 3, 1, 2])):
            got, want = f(x), fn(x)
            assert type(got) is type(want) and got == want


def test_isclose_to_a_python_float_argument_is_bool():
    f = jc.jit(lambda a, b: np.isclose(a, b, equal_nan=True))
    for a in (np.array([1.0, 1.5, np.nan]), np.array([1.0, 1.5, 2.0], np.float32)):
        for b in (1.5, 1.5 + 0j, 2):
            got, want = f(a, b), np.isclose(a, b, equal_nan=True)
            assert got.dtype == want.dtype == np.bool_
            np.testing.assert_array_equal(got, want)
