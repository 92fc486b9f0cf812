"""Early returns from traced ifs and loops (session 54, u3 R1), against plain Python: returns
at any depth of for/while/if/elif, in an else, from an inner loop, of ints, NumPy scalars,
tuples and arrays, with state a Python step sets in another branch (``if sgn == 0: sgn = s
elif s != sgn: return False``, where the branch traced first leaves the result unset on the
path Python took: ``statements._FirstLeftUnset``). One compile per function covers every input.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.oracle import assert_same_tree


def is_convex(P):  # u3 R1: state set in one branch, return under the elif
    n = P.shape[0]
    sgn = 0
    for i in range(n):
        a = P[i]
        b = P[(i + 1) % n]
        c = P[(i + 2) % n]
        z = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if z != 0:
            s = 1 if z > 0 else -1
            if sgn == 0:
                sgn = s
            elif s != sgn:
                return False
    return True


def first_above(x, m, t):  # traced trip count, return of an int index, -1 after the loop
    for i in range(m):
        if x[i] > t:
            return i
    return -1


def while_find(x, t):  # while loop, return a float and an int (a tuple)
    i = 0
    acc = 0.0
    while i < x.shape[0]:
        acc += x[i]
        if acc > t:
            if x[i] < 0:
                return acc, -i
            return acc, i
        i += 1
    return acc, x.shape[0]


def elif_kinds(x, m):  # returns from three branches of an elif chain, an array result
    for i in range(m):
        v = x[i]
        if v > 2:
            return x * 2
        elif v < -2:
            return x - 1
        elif v == 0:
            continue
    return x + 0.5


def in_else(x, m):  # the return in the else; the then branch sets state the next step reads
    best = x[0]
    for i in range(m):
        if x[i] >= best:
            best = x[i]
        else:
            return best, np.float64(i)
    return best, np.float64(-1.0)


def nested_loops(x, m):  # a return from an inner loop ends both loops
    total = 0
    for i in range(m):
        for j in range(m):
            total += 1
            if x[i] + x[j] > 3:
                return total
    return total


def int8_result(x, m):  # the result's NumPy scalar type comes from the other returns
    for i in range(m):
        if x[i] > 1:
            return np.int8(i)
    return np.int8(-1)


def bool_from_flag(x, m):  # a return under a state flag set in an earlier step
    seen = False
    for i in range(m):
        if seen:
            if x[i] < 0:
                return True
        elif x[i] > 1:
            seen = True
    return False


def flag_unrolled(x):  # bool_from_flag over the shape: `seen` is a Python bool at first
    seen = False
    for i in range(x.shape[0]):
        if seen:
            if x[i] < 0:
                return True
        elif x[i] > 1:
            seen = True
    return False


def never_from_here(x):  # an inner return Python never takes (i > 100): neither branch sets it
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            if i > 100:
                return -7
            k += 1
    return k


def count_then_array(x):  # a state count reaches 2 in Python steps; the array returned early
    c = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            if c < 2:
                c = c + 1
            else:
                return x[: i + 1].sum() * np.ones(2)
    return np.zeros(2)


def while_state(x):  # the same in a while loop over the shape
    i, sgn = 0, 0
    while i < x.shape[0]:
        if x[i] != 0:
            if sgn == 0:
                sgn = 1 if x[i] > 0 else -1
            elif (x[i] > 0) != (sgn > 0):
                return i, sgn
        i += 1
    return -1, sgn


def _same(expected, got):
    assert_same_tree(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


_RNG = np.random.default_rng(54)
_XS = [_RNG.normal(0, 2, 6) for _ in range(5)] + [np.zeros(6), np.array([0.0, 0, 5, -5, 1, 1])]
_POLYGONS = [
    np.array([[0.0, 0], [1, 0], [1, 1], [0, 1]]),
    np.array([[0.0, 0], [2, 0], [1, 0.2], [1, 1]]),
    np.array([[0.0, 0], [1, 0], [2, 0], [1, 1]]),
]
_CASES = {
    is_convex: [(p,) for p in _POLYGONS],
    first_above: [(x, m, 1.0) for x in _XS for m in (0, 3, 6)],
    while_find: [(x, t) for x in _XS for t in (-1.0, 2.0, 100.0)],
    elif_kinds: [(x, m) for x in _XS for m in (0, 2, 6)],
    in_else: [(x, m) for x in _XS for m in (0, 1, 6)],
    nested_loops: [(x, m) for x in _XS for m in (0, 2, 6)],
    int8_result: [(x, m) for x in _XS for m in (0, 6)],
    bool_from_flag: [(x, m) for x in _XS for m in (0, 6)],
    flag_unrolled: [(x,) for x in _XS],
    never_from_here: [(x,) for x in _XS],
    count_then_array: [(x,) for x in _XS],
    while_state: [(x,) for x in _XS],
}


@pytest.mark.parametrize("fn", list(_CASES), ids=lambda f: f.__name__)
def test_early_returns_match_python(fn):
    jitted = jc.jit(fn)
    for args in _CASES[fn]:
        _same(fn(*args), jitted(*args))
