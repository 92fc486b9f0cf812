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


def _delayed(x):
    out = np.zeros_like(x)
    a, b = 0.0, 0.0
    for n in range(len(x)):
        b = a  # a Python float at the first step, NumPy's scalar from the second on
        a = x[n]
        out[n] = a
    return b, out


def test_a_carry_that_becomes_a_numpy_scalar_through_another_one_is_numpys():
    """``b = a; a = x[n]``: the loop was traced once with ``a`` a Python float, so ``b`` came
    back a Python float; NumPy's ``b`` is ``x[n - 2]``, an np.float64."""
    f = jc.jit(_delayed)
    for n in (9, 40):
        x = np.arange(1.0, n + 1.0)
        (got, _), (want, _) = f(x), _delayed(x)
        assert got == want and type(got) is type(want)


def _first_above(P, tol):
    for i, p in enumerate(P):
        if p > tol:
            return i
    return -1


def _count_sum(P):
    s = 0
    for i, _ in enumerate(P, 1):
        s += i
    return s


def test_enumerates_count_is_a_python_int_in_a_compiled_loop():
    """``for i, p in enumerate(P)``: the count came back np.int64 from a compiled loop."""
    for fn, args in [(_first_above, (np.array([0.1, 2.0]), 1.0)),
                     (_first_above, (np.linspace(0, 1, 50), 0.5)),
                     (_first_above, (np.linspace(0, 1, 50), 2.0)), (_count_sum, (np.linspace(0, 1, 50),))]:
        got, want = jc.jit(fn)(*args), fn(*args)
        assert got == want and type(got) is type(want)


def _stencil(T):
    new = T.copy()
    for (i, j) in np.ndindex(T.shape[0] - 2, T.shape[1] - 2):
        new[i + 1, j + 1] = 0.25 * (T[i, j + 1] + T[i + 2, j + 1] + T[i + 1, j] + T[i + 1, j + 2])
    return new


def _weighted(a):
    s = 0
    for idx in np.ndindex(a.shape):
        s += a[idx] * (idx[0] + 1)
    return s, [idx for idx in np.ndindex(2, 3)]


def test_a_loop_over_ndindex_is_one_compiled_loop():
    """``for i, j in np.ndindex(n, m)`` was unrolled (a 24 x 24 stencil compiled for 11-29 s):
    now a loop over n * m counts, each index tuple Python ints."""
    T = np.random.default_rng(0).random((24, 24))
    f = jc.jit(_stencil)
    np.testing.assert_array_equal(f(T), _stencil(T))
    assert '"scf.for"' in f.lower(T).as_text("optimized")
    for a in (np.arange(12.0).reshape(3, 4), np.arange(60.0).reshape(3, 4, 5)):
        (got, got_list), (want, want_list) = jc.jit(_weighted)(a), _weighted(a)
        assert got == want and got_list == want_list
