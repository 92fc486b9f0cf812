"""Wrong answers, crashes and refusals new users found (session 50), each against plain
Python + NumPy.

- ``math.hypot(a, b, c)`` was NumPy's two-argument ``hypot`` of ``a, b`` (``c`` taken as
  ``out=``), and 1 or 4+ arguments a plain TypeError. It is now CPython's n-dimensional
  ``vector_norm`` (``autograph/vector_norm.py``), bit for bit, as is ``math.dist`` of traced
  arrays (which was refused).
- ``a and b`` / ``a or b`` of Python numbers gave ``np.float64``/``np.int64``; they now give the
  operand Python's short circuit picks, as a Python number of its own type.
- ``np.linalg.lstsq`` of a rank-deficient tall ``a`` gave residuals of length k (about 1e-30);
  NumPy's are empty unless ``a`` has full column rank. They are now a masked selection of the
  sums, its length set by the rank at run time; ``x[mask][i]`` (an int) is the i-th kept value
  with NumPy's IndexError past the end (it was refused), so ``res[0]`` works as in NumPy.
- ``np.tensordot(a, b, axes=(1, q))`` with ``q`` of an inner ``for q in range(3)`` in a compiled
  loop raised a raw ``TypeError: iteration over a 0-d array``: a traced axis is now refused
  first (nested ones too), which unrolls the inner loop as ``sum(axis=q)``'s refusal does.
- A Python int passed to a helper inside a traced ``if`` (``n`` only passed) came out traced,
  so ``reshape((2,) * n)`` after it was refused: a Python number both branches leave the same
  stays that number.
- ``Generator.multinomial(n, pvals)`` of a traced ``pvals`` of 6+ categories was refused:
  jitcore's stand-ins (each element 0.5, 1, ... 0.1) were invalid probabilities, and the
  user's were blamed. Stand-ins spread over an array's elements (c / size) come last.
- ``np.fill_diagonal(A, v)`` on ``A = np.zeros((3, 3))`` made in the function was refused with
  a message that said such an array was fine: it (and put, putmask, place, put_along_axis) now
  writes the traced copy every holder of ``A`` reads, as ``A[i, i] = v`` does.
- ``np.bincount(inv, minlength=len(u))`` of ``u = np.unique(ids)``: the generic "__index__
  needs a concrete value" now says minlength sets the result's length and what to write.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import signatures
from tests.jit_once import jit_once

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def same(a, b) -> bool:
    """Python's equality of results, with their types and float bits (NaN equal to NaN, -0.0
    told from 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes() or (math.isnan(a) and math.isnan(b))
    if isinstance(a, np.ndarray):
        return (a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001  (the error is what is compared)
        return "raised", type(e)


def check(fn, *args, jitted=None):
    want, got = outcome(fn, *args), outcome(jitted or jit_once(fn), *args)
    if want[0] == "raised":
        assert got[0] == "raised" and issubclass(got[1], want[1]), (want, got)
    else:
        assert got[0] == "ok" and same(want[1], got[1]), (args, want, got)


# -- 1. math.hypot of any arity, math.dist ----------------------------------------------------

FLOAT_COORD = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e-300, max_value=1e-300),           # subnormal and tiny
    st.floats(min_value=1e300, max_value=1.7e308),            # huge: the sum overflows
    st.sampled_from([0.0, -0.0, 1.0, 3.0, 4.0, 12.0, 5e-324, 2.0 ** -1023, 1.7976931348623157e308]),
)
INT_COORD = st.integers(-10 ** 6, 10 ** 6)
COORD = st.one_of(FLOAT_COORD, INT_COORD)

HYPOTS = {
    1: lambda a: math.hypot(a),
    2: lambda a, b: math.hypot(a, b),
    3: lambda a, b, c: math.hypot(a, b, c),
    4: lambda a, b, c, d: math.hypot(a, b, c, d),
    6: lambda a, b, c, d, e, f: math.hypot(a, b, c, d, e, f),
}
JIT_HYPOTS = {n: jc.jit(f) for n, f in HYPOTS.items()}


def test_hypot_three_arguments_reported():
    f = HYPOTS[3]
    assert jc.jit(f)(3.0, 4.0, 12.0) == 13.0
    assert jc.jit(f)(1.0, 2.0, 2.0) == 3.0


@pytest.mark.parametrize("n", sorted(HYPOTS))
@SETTINGS
@given(data=st.data())
def test_hypot_any_arity_bits(n, data):
    # Which coordinates are ints is what compiles (the values are traced): under the ci profile
    # (tests/budget.py ``signatures``) all floats, all ints, an int first or last, or every other
    # one; the 60 examples draw the values over those five instead of up to 60 new signatures.
    table = list(dict.fromkeys([(False,) * n, (True,) * n, (True,) + (False,) * (n - 1),
                                (False,) * (n - 1) + (True,), tuple(i % 2 == 1 for i in range(n))]))
    an_int = st.integers(0, 4).map(lambda v: v == 4)  # as often as COORD draws one
    ints = data.draw(signatures(st.tuples(*[an_int] * n), table))
    args = tuple(data.draw(INT_COORD if i else FLOAT_COORD) for i in ints)
    check(HYPOTS[n], *args, jitted=JIT_HYPOTS[n])


def test_hypot_no_arguments_and_star():
    check(lambda a: math.hypot() + a, 1.0)
    check(lambda x: math.hypot(*x), np.array([1.0, 2.0, 2.0]))
    check(lambda x: math.hypot(*x), np.array([3.0, np.nan, np.inf]))
    check(lambda x: math.hypot(*x[:5]), np.arange(10.0))


def test_hypot_errors_as_python():
    check(lambda a: math.hypot(a, 1j), 1.0)
    with pytest.raises(TypeError):
        jc.jit(lambda x: math.hypot(x, 1.0))(np.ones(3))


_DIST = jc.jit(lambda p, q: math.dist(p, q))


@SETTINGS
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.lists(COORD, min_size=n, max_size=n),
                                                     st.lists(COORD, min_size=n, max_size=n))))
def test_dist_of_arrays_bits(pq):
    p, q = (np.array(v, dtype=np.float64) for v in pq)
    with np.errstate(all="ignore"):
        check(lambda p, q: math.dist(p, q), p, q, jitted=_DIST)


def test_dist_of_tuples_and_mismatch():
    check(lambda a, b: math.dist((a, b, 2.0), (b, a, -1)), 1.0, 4.0)
    check(lambda p, q: math.dist(p, q), np.ones(3), np.ones(2))


def test_vectorized_hypot_is_pythons():
    x = np.array([3.0, np.inf, -0.0, 1e308, 5e-324, 1.0])
    y = np.array([4.0, np.nan, -0.0, 1e308, 5e-324, 1e-20])
    check(lambda x, y: np.vectorize(math.hypot)(x, y), x, y)
    check(lambda x, y: np.vectorize(math.hypot)(x, 2.0), x, y)


# -- the other math functions: arity, signatures, errors -------------------------------------

@pytest.mark.parametrize("fn, args", [
    (lambda a, b: math.atan2(a, b, 1.0), (1.0, 2.0)),   # a third argument was NumPy's out=
    (lambda a: math.sqrt(a, 2.0), (1.0,)),
    (lambda a: math.copysign(a), (1.0,)),
    (lambda a: math.log(a, 2.0, 3.0), (1.0,)),
    (lambda a, n: math.ldexp(a, n), (1.5, 3.0)),
])
def test_math_wrong_arity_is_pythons_type_error(fn, args):
    check(fn, *args)


FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, -0.0, 1.0, 2.0, 10.0, 0.5, 1e308, 5e-324]))
_LOG2 = jc.jit(lambda x, b: math.log(x, b))
_LOG10 = jc.jit(lambda x: math.log(x, 10))


@SETTINGS
@given(FLOATS, FLOATS)
def test_log_with_base(x, b):
    check(lambda x, b: math.log(x, b), x, b, jitted=_LOG2)   # base 1: ZeroDivisionError, 0: ValueError
    check(lambda x: math.log(x, 10), x, jitted=_LOG10)


def test_log_base_one_known_now():
    check(lambda x: math.log(x, 1), 8.0)


_LDEXP = jc.jit(lambda x, i: math.ldexp(x, i))


@SETTINGS
@given(FLOATS, st.one_of(st.integers(-1200, 1200), st.sampled_from([-10 ** 6, 10 ** 6, 2 ** 40])))
def test_ldexp_traced_exponent(x, i):
    check(lambda x, i: math.ldexp(x, i), x, i, jitted=_LDEXP)


_POW = jc.jit(lambda x, y: math.pow(x, y))
_DEGREES = jc.jit(lambda x: math.degrees(x))
_RADIANS = jc.jit(lambda x: math.radians(x))


@SETTINGS
@given(FLOATS, FLOATS)
def test_pow_pole_and_overflow(x, y):
    check(lambda x, y: math.pow(x, y), x, y, jitted=_POW)   # pow(0, -1): ValueError


@SETTINGS
@given(FLOATS)
def test_degrees_radians_never_raise(x):
    check(lambda x: math.degrees(x), x, jitted=_DEGREES)   # degrees(1e308) is inf
    check(lambda x: math.radians(x), x, jitted=_RADIANS)


def test_degrees_reported():
    assert jc.jit(lambda a: math.degrees(a))(1e308) == math.inf


@pytest.mark.parametrize("nd", [324, 400, -309, -400, 0, 5, -5, 22, -22])
def test_round_past_cpythons_limits(nd):
    xs = [1.5, -2.5e-300, 7.3e250, -0.0, math.inf, math.nan, 1234.5678]
    f = jc.jit(lambda x: round(x, nd))
    for x in xs:
        check(lambda x: round(x, nd), x, jitted=f)


@pytest.mark.parametrize("nd", [23, 100, -23, -308])
def test_round_past_exact_digits_refused(nd):
    with pytest.raises(jc.UnsupportedError, match="22 decimal places"):
        jc.jit(lambda x: round(x, nd))(6.281874682105646e-18)


# -- 2. a and b / a or b keep Python's numbers ------------------------------------------------

NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 1.5]),
                    st.integers(-3, 3), st.booleans())
SHORT_CIRCUITS = [
    lambda a, b, c: a and b,
    lambda a, b, c: a or b,
    lambda a, b, c: a and b and c,
    lambda a, b, c: a or b or c,
    lambda a, b, c: (a and b) or c,
    lambda a, b, c: [a or c, b and a],
]
_JIT_SHORT = [jc.jit(f) for f in SHORT_CIRCUITS]


def test_and_or_reported():
    for args, want in [((1.5, 2.0), 2.0), ((0, 2), 0)]:
        got = jc.jit(lambda a, b: a and b)(*args)
        assert type(got) is type(want) and got == want
    got = jc.jit(lambda a, b: a or b)(2, 0)
    assert type(got) is int and got == 2


@pytest.mark.parametrize("k", range(len(SHORT_CIRCUITS)))
@SETTINGS
@given(NUMBERS, NUMBERS, NUMBERS)
def test_and_or_of_python_numbers(k, a, b, c):
    check(SHORT_CIRCUITS[k], a, b, c, jitted=_JIT_SHORT[k])


def test_and_or_printed(capsys):
    def f(a, b):
        print(a and b, a or b, repr(b or a))
        return a or b
    for args in [(1.5, 2.0), (0, 2), (0.0, -0.0), (3, 1.5)]:
        check(f, *args)
    out = capsys.readouterr().out.splitlines()
    assert out[0::2] == out[1::2]


def test_and_with_numpy_scalar_stays_numpy():
    check(lambda a, x: a and x[0], 1.5, np.array([2.0, 3.0]))
    check(lambda a, x: x[0] or a, 1.5, np.array([0.0, 3.0]))


# -- 3. lstsq's residuals: empty unless a has full column rank --------------------------------

def _lstsq_parts(X, y):
    x, res, rank, s = np.linalg.lstsq(X, y, rcond=None)
    return x, res, rank, s, res.size, len(res), res.sum()


_LSTSQ = jc.jit(_lstsq_parts)


# What lstsq compiles for under the ci profile (tests/budget.py ``signatures``): the shapes the
# rule tells apart (m > n, m == n + 1, m == n, m < n; one column, one row), b a vector or two
# columns. The 60 examples draw their data (rank deficiency, scale, seed) over these 14
# signatures instead of ~32 new ones (lstsq's sizes: test_decompositions.py).
_DESIGN_SIGNATURES = [(m, n, k) for m, n in ((1, 1), (1, 3), (3, 3), (6, 1), (4, 3), (7, 4), (4, 5))
                      for k in (None, 2)]
_DESIGN_SHAPES = st.tuples(st.integers(1, 7), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 3)))


@st.composite
def _design(draw):
    m, n, k = draw(signatures(_DESIGN_SHAPES, _DESIGN_SIGNATURES))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    X = rng.standard_normal((m, n))
    kind = draw(st.sampled_from(["full", "repeat", "zero", "scaled", "ints"]))
    if kind == "repeat" and n > 1:
        X[:, -1] = X[:, 0]
    elif kind == "zero":
        X[:, draw(st.integers(0, n - 1))] = 0.0
    elif kind == "scaled" and n > 1:
        X[:, 1] = 2.0 * X[:, 0]
    elif kind == "ints":
        X = np.round(X * 2)
    y = rng.standard_normal(m) if k is None else rng.standard_normal((m, k))
    return X, y


@SETTINGS
@given(_design())
def test_lstsq_residuals_rule(Xy):
    X, y = Xy
    want, got = _lstsq_parts(X, y), _LSTSQ(X, y)
    scale = max(1.0, np.abs(X).max()) * max(1.0, np.abs(y).max())
    assert got[2] == want[2] and type(got[2]) is type(want[2])             # rank
    assert got[1].shape == want[1].shape and got[1].dtype == want[1].dtype  # residuals' rule
    assert got[4:6] == want[4:6] and type(got[4]) is type(want[4])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-9 * scale ** 2)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-9, atol=1e-12 * scale)  # singular values
    np.testing.assert_allclose(got[0], want[0], rtol=1e-7, atol=1e-7 * scale)


def test_lstsq_reported_rank_deficient():
    X = np.column_stack([np.ones(5), np.arange(5.), 2 * np.arange(5.)])
    y = np.arange(5.) + 1
    res = jc.jit(lambda X, y: np.linalg.lstsq(X, y, rcond=None)[1])(X, y)
    assert res.shape == (0,) and res.dtype == np.float64
    res = jc.jit(lambda X, y: np.linalg.lstsq(X, y, rcond=None)[1])(X, np.column_stack([y, y]))
    assert res.shape == (0,)


def test_lstsq_residual_item_and_its_index_error():
    f = lambda X, y: np.linalg.lstsq(X, y, rcond=None)[1][0]  # noqa: E731
    Xf = np.column_stack([np.ones(5), np.arange(5.), np.arange(5.) ** 2])
    y = np.array([1.0, 2.1, 2.8, 4.3, 5.0])
    got, want = jc.jit(f)(Xf, y), f(Xf, y)
    assert type(got) is type(want) and np.isclose(got, want, rtol=1e-9)
    Xd = np.column_stack([np.ones(5), np.arange(5.), 2 * np.arange(5.)])
    check(f, Xd, y)  # IndexError, as NumPy's empty residuals


def test_selection_item_by_int():
    x = np.array([-1.0, 2.0, -3.0, 4.0, 5.0])
    for i in (0, 2, 3, -1, -3, -4):
        check(lambda x, i: x[x > 0][i], x, i)
    check(lambda x: x[x[:, 0] > 0][1], np.arange(6.0).reshape(3, 2) - 1)
    check(lambda x: np.unique(x, return_counts=True)[1][0], np.array([3, 1, 3]))
    for x in (np.array([-1.0, 2.0, 3.0, -4.0]), -np.ones(3)):
        check(lambda x: (np.flatnonzero(x > 0)[0], np.flatnonzero(x > 0)[-1]), x)


# -- 5. an axis from a loop over range(3) inside a compiled loop ------------------------------

_E = np.array([[0.0, 1.0], [1.0, 0.0]])
AXIS_OPS = {
    "tensordot": lambda x, q: np.tensordot(_E, x.reshape(2, 2, 2), axes=(1, q)),
    "tensordot_a": lambda x, q: np.tensordot(x.reshape(2, 2, 2), _E, axes=(q, 0)),
    "tensordot_nested": lambda x, q: np.tensordot(x.reshape(2, 2, 2), x.reshape(2, 2, 2),
                                                  axes=((q, (q + 1) % 3), (0, 1))),
    "moveaxis_of_tensordot": lambda x, q: np.moveaxis(np.tensordot(_E, x.reshape(2, 2, 2), axes=(1, q)),
                                                      0, q),
    "sum": lambda x, q: np.sum(x.reshape(2, 2, 2), axis=q),
    "flip": lambda x, q: np.flip(x.reshape(2, 2, 2), (0, q)),
    "roll": lambda x, q: np.roll(x.reshape(2, 2, 2), 1, axis=q),
}


@pytest.mark.parametrize("name", sorted(AXIS_OPS))
@pytest.mark.parametrize("trips", [4, 5])
def test_axis_from_inner_loop(name, trips):
    op = AXIS_OPS[name]

    def f(xs):
        out = []
        for x in xs:   # 5 or more trips: a compiled loop, whose inner q is traced at first
            psi = np.arange(8.0) * x
            e = 0.0
            for q in range(3):
                r = op(psi, q)
                e = e + np.sum(r * np.arange(r.size).reshape(r.shape))  # weighted: the axes show
            out.append(e)
        return out

    check(f, np.arange(float(trips)))


def test_data_dependent_tensordot_axis_is_a_jitcore_error():
    def f(x):
        return np.tensordot(_E, x.reshape(2, 2, 2), axes=(1, np.argmax(x) % 3))
    with pytest.raises(jc.JitcoreError, match="axes|axis"):
        jc.jit(f)(np.arange(8.0))


# -- 6. a Python number a traced if leaves the same stays that number --------------------------

def _helper(x, n):
    return x + n


def _passed_in_branch(x, u):
    n = 2
    if u < 0.5:
        x = _helper(x, n)      # n only passed: the same int after the if
    return x.reshape((2,) * n), n


def _same_in_both(x, u):
    n, k = 2, -0.0
    if u < 0.5:
        n, k = 2, -0.0
        x = x * 2
    else:
        x = _helper(x, n)
    print("n is", n, type(n).__name__, k)
    return x.reshape((2,) * n), n, k


def _differs(x, u):
    n = 2
    if u < 0.5:
        n = 3
    return x * n, n


_COND_FNS = [_passed_in_branch, _same_in_both, _differs]
_JIT_COND = [jc.jit(f) for f in _COND_FNS]


@pytest.mark.parametrize("k", range(len(_COND_FNS)))
@SETTINGS
@given(st.floats(0, 1))
def test_python_int_through_traced_if(k, u):
    check(_COND_FNS[k], np.arange(4.0), u, jitted=_JIT_COND[k])


def test_python_int_through_traced_if_printed(capsys):
    for u in (0.3, 0.7):
        check(_same_in_both, np.arange(4.0), u)
    out = capsys.readouterr().out.splitlines()
    assert out[0::2] == out[1::2] and out[0] == "n is 2 int -0.0"


# -- 7. random draws with traced array parameters of any length -------------------------------

def _multinomial(n, pvals, seed):
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, pvals), rng.random()


def _dirichlet(alpha, seed):
    return np.random.default_rng(seed).dirichlet(alpha)


def _choice(p, seed):
    return np.random.default_rng(seed).choice(len(p), size=4, p=p)


@SETTINGS
@given(st.integers(1, 20), st.integers(0, 100), st.integers(0, 2 ** 16), st.booleans())
def test_multinomial_traced_pvals_any_length(k, n, seed, skewed):
    w = np.arange(1.0, k + 1) if skewed else np.ones(k)
    check(_multinomial, n, w / w.sum(), seed)


def test_multinomial_reported_and_invalid_pvals():
    for k in (5, 6, 8, 16):
        check(_multinomial, 100, np.full(k, 1.0 / k), 1)
    check(_multinomial, 10, np.full(6, 0.3), 1)   # the user's invalid pvals: NumPy's ValueError


@pytest.mark.parametrize("k", [2, 6, 12])
def test_other_draws_with_traced_arrays(k):
    check(_dirichlet, np.arange(1.0, k + 1), 3)
    check(_choice, np.full(k, 1.0 / k), 3)


# -- 8. in-place writers into an array the function made; bincount's traced minlength ---------

def _fill_made(v):
    A = np.zeros((3, 3))
    np.fill_diagonal(A, v)
    return A


def _fill_alias_view_loop(v):
    A = np.zeros((4, 4))
    B = A
    np.fill_diagonal(A[1:, :3], v)
    for i in range(3):
        np.fill_diagonal(B, A[0, 0] + v * i)
    return A, B


def _put_family(x):
    A, P, M, L = np.zeros((3, 3)), np.zeros(5), np.zeros(5), np.zeros(5)
    np.put_along_axis(A, np.array([[0], [1], [2]]), x[0], axis=1)
    np.put(P, [0, 2], x[:2])
    np.putmask(M, x > 2, x)
    np.place(L, x > 2, x)
    return A, P, M, L


@SETTINGS
@given(st.floats(-1e6, 1e6))
def test_fill_diagonal_on_made_array(v):
    check(_fill_made, v, jitted=_JIT_FILL[0])
    check(_fill_alias_view_loop, v, jitted=_JIT_FILL[1])


_JIT_FILL = [jc.jit(_fill_made), jc.jit(_fill_alias_view_loop)]


def test_put_family_on_made_arrays():
    check(_put_family, np.arange(5.0))
    check(_put_family, np.array([3.0, -1.0, 7.0, 0.0, 2.5]))


def test_in_place_writer_into_a_list_says_what_to_do():
    def f(x):
        A = [0.0, 1.0]
        np.putmask(A, x > 2, x)
        return A
    with pytest.raises(jc.UnsupportedError, match="np.zeros/np.empty in the function"):
        jc.jit(f)(np.arange(2.0))


def _group_sums(ids, y):
    u, inv = np.unique(ids, return_inverse=True)
    return np.bincount(inv, weights=y, minlength=len(u))


def test_bincount_minlength_of_unique_says_what_to_do():
    # (session 53: minlength=len(u) of a selection compiles, a result of len(u) bins)
    ids = np.array([101, 100, 103, 101, 100]), np.arange(5.0)
    got, want = jc.jit(_group_sums)(*ids), _group_sums(*ids)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    with pytest.raises(jc.JitcoreError, match=r"computed from traced data"):
        jc.jit(lambda x: np.bincount(x, minlength=x.max() + 1))(np.array([1, 2]))


def test_bincount_advice_compiles():
    def f(ids, y):   # the advice: len(ids) bins, zeros past the last group
        u, inv = np.unique(ids, return_inverse=True)
        return np.bincount(inv, weights=y, minlength=len(ids)), np.bincount(inv, minlength=len(ids))
    ids = np.random.default_rng(1).integers(100, 120, 50)
    check(f, ids, np.arange(50.0))
