"""Silent wrong answers new users found (session 48), each against plain Python + NumPy.

- An op whose result starts as a copy of an operand (``np.linalg.solve``'s right-hand side, a
  scatter's array) may take the operand's buffer over when nothing reads the operand after it.
  A vector right-hand side is reshaped to a column first, and that view's place said how long
  the buffer lived: after an ``if ...: break`` (or ``continue``) the rest of the loop body is an
  arm of its own, the view was made in the arm while its vector was made before it, so the
  vector's later reads (``out += g``, after the loop, the next iteration) saw the solution.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.jit_once import jit_once


def same(a, b, exact=False):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y, exact)
    elif isinstance(a, (float, np.floating)):
        if exact:  # the same number, the sign of a zero included, or both NaN
            assert (a == b and np.signbit(a) == np.signbit(b)) or (a != a and b != b), (a, b)
        else:
            assert abs(a - b) <= 1e-10 * max(1.0, abs(a))
    else:
        assert a == b


def check(f, *args, exact=False):
    """``f`` under jit gives Python's result, and leaves its arguments as Python does."""
    py_args, jit_args = copy.deepcopy(args), copy.deepcopy(args)
    try:
        expected = f(*py_args)
    except Exception as e:  # the same error under jit
        with pytest.raises(type(e)):
            jit_once(f)(*jit_args)
        return None
    got = jit_once(f)(*jit_args)
    same(expected, got, exact)
    same(list(py_args), list(jit_args), exact=True)
    return got


H = np.array([[2.0, 0.5], [0.5, 4.0]])
X = np.array([1.0, 3.0])


# -- 1. an operand whose buffer an op may take over, read after the op ---------------------

def solve_break(x, H, n):
    out = np.zeros(2)
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            break
        p = np.linalg.solve(H, g)  # noqa: F841 (the report's form: p unused)
        out += g
    return out


def solve_continue(x, H, n):
    out = np.zeros(2)
    acc = np.zeros(2)
    for k in range(n):
        g = x + k
        if g[1] > 5.5:
            continue
        p = np.linalg.solve(H, g)  # noqa: F841 (the report's form: p unused)
        out += g
        acc += p
    return out, acc


def solve_while_break(x, H, n):
    out = np.zeros(2)
    k = 0
    while k < n:
        g = x * 0.5 + k
        k += 1
        if g[0] > 1e10:
            break
        p = np.linalg.solve(H, g)  # noqa: F841 (the report's form: p unused)
        out = out + g @ p - g
    return out


def solve_after_loop(x, H, n):
    g = x.copy()
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            break
        p = np.linalg.solve(H, g)  # noqa: F841 (the report's form: p unused)
    return g


def solve_next_iteration(x, H, n):
    g = x.copy()
    total = np.zeros(2)
    for _ in range(n):
        if g[0] > 1e10:
            break
        p = np.linalg.solve(H, g)  # noqa: F841 (the report's form: p unused)
        total += p
        g = g + 1.0      # the next step reads the g the solve was given
    return g, total


def solve_dot_gradient(x, H, n):
    # a Newton step reusing the gradient: the form the report's trust-region program had
    step = 0.0
    for k in range(n):
        g = H @ x - k
        if np.abs(g).max() < 1e-300:
            break
        p = -np.linalg.solve(H, g)
        step += g @ p
    return step


def solve_nested_ifs(x, H, n):
    out = np.zeros(2)
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            break
        if g[1] > 2.0:
            if g[0] > 0.0:
                p = np.linalg.solve(H, g)
                out += p
        out += g
    return out


PROGRAMS = [solve_break, solve_continue, solve_while_break, solve_after_loop,
            solve_next_iteration, solve_dot_gradient, solve_nested_ifs]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_solve_keeps_its_vector_right_hand_side(f):
    check(f, X, H, 5)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_solve_keeps_its_vector_right_hand_side_zero_steps(f):
    check(f, X, H, 0)


def other_linalg(x, A, n):
    out = np.zeros(2)
    for k in range(n):
        g = x + k
        M = A + k
        if g[0] > 1e10:
            break
        p = np.linalg.lstsq(M, g, rcond=None)[0]
        Mi = np.linalg.inv(M)
        L = np.linalg.cholesky(M)
        q, r = np.linalg.qr(M)
        c = np.linalg.solve(M, g[:, None])
        out += g + M.sum(axis=0) + 0.0 * (p + Mi[0] + L[1] + q[0] + r[0] + c[:, 0])
    return out


def ufunc_reuse(x, n):
    out = np.zeros(2)
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            continue
        h = np.sqrt(g.reshape(2, 1))   # a view of g, read by an op made after the break
        g2 = g.reshape(1, 2)
        g2[0, 0] = -1.0
        out += g + h[:, 0] + g2[0]
    return out


def scatter_in_arm(x, n):
    out = np.zeros(3)
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            break
        v = g.reshape(3)
        v[1] = 0.0                      # a write through the view: NumPy writes g too
        out += g + v
    return out


def test_other_decompositions_keep_their_operands():
    A = np.array([[4.0, 1.0], [1.0, 3.0]])
    check(other_linalg, X, A, 4)


def test_views_written_after_a_break():
    check(ufunc_reuse, X, 3, exact=True)
    check(scatter_in_arm, np.array([1.0, 2.0, 3.0]), 3, exact=True)


def branch_result_in_view(x, n):
    out = np.zeros(2)
    for k in range(n):
        g = x + k
        if g[0] > 1e10:
            break
        h = g.reshape(2, 1)
        if g[1] > 4.5:
            h = h * 2.0
        out += h[:, 0] + g
    return out


def test_an_if_result_does_not_take_over_a_view_of_a_live_value():
    check(branch_result_in_view, X, 4, exact=True)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=3, max_size=3),
       st.integers(0, 6), st.floats(-5, 20))
def test_solve_in_loops_with_exits_hypothesis(x, n, limit):
    x = np.array(x)
    A = np.array([[3.0, 0.5, 0.1], [0.5, 4.0, 0.2], [0.1, 0.2, 5.0]])

    def f(x, A, n, limit):
        out = np.zeros(3)
        g = x.copy()
        for k in range(n):
            g = x + k
            if g[0] > limit:
                break
            if g[1] < -limit:
                continue
            p = np.linalg.solve(A, g)
            out += g - A @ p
        return out, g

    check(f, x, A, n, limit)


# -- 2. a power of scalars is C's pow(), as NumPy's scalar math and Python's float power -------

def test_scalar_square_is_pow_report():
    f = lambda x: (x[0] - 1) ** 2 + (x[0] - x[1]) ** 2  # noqa: E731 (the report's form)
    check(f, np.array([0.6666666739422462, 0.5555555620627065]), exact=True)


def element_powers(x):
    a = x[0] - 1.0
    return a ** 2, a ** 3, a ** -1, a ** 0.5, a ** 1.5, a ** 2.0, x[1] ** 2


def python_float_powers(x, v):
    return x * v ** 2, v ** 3, v ** -1.0, v ** 0.5 if v >= 0 else v


def array_squares(x):
    return x ** 2, x ** -1, x ** 0.5   # NumPy's array forms stay: square, reciprocal, sqrt


def powers_in_a_loop(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(finite, min_size=2, max_size=2))
def test_numpy_float64_scalar_powers_are_pows_bits(values):
    check(element_powers, np.array(values), exact=True)  # types too: np.float64 each


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(finite, min_size=2, max_size=2))
def test_numpy_float32_scalar_powers_are_powfs_bits(values):
    check(element_powers, np.array(values, dtype=np.float32), exact=True)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(finite, st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False))
def test_python_float_powers_are_pows_bits(v, w):
    check(python_float_powers, np.array([1.0, w]), v, exact=True)


def test_scalar_powers_in_a_loop_and_of_special_values():
    rng = np.random.default_rng(0)
    check(powers_in_a_loop, rng.uniform(-2, 2, 200), exact=True)
    for v in (0.0, -0.0, np.inf, -np.inf, np.nan, 1e200, -1e-200, 5e-324):
        check(lambda x: (x[0] ** 2, x[0] ** 3, x[0] ** -1, x[0] ** 0.5),  # noqa: E731
              np.array([v, 1.0]), exact=True)


def squares_one_by_one(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] ** 2 + (x[i] - 0.0) ** 3   # NumPy scalars: pow's bits, one at a time
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_squares_where_pow_is_not_the_product(dtype):
    """Where C's pow(x, 2) is not x * x (about 1 in 1200 uniform float64s in [-3, 3], 1 in 1300
    float32s for powf): picked here by Python's own powers, so the test always bites."""
    x = np.random.default_rng(1).uniform(-3, 3, 200_000).astype(dtype)
    differs = np.array([v ** 2 != v * v for v in x])
    assert differs.sum() > 20
    check(squares_one_by_one, x[differs][:64], exact=True)
    if dtype is np.float64:  # a Python float argument: Python's float power is pow() too
        for v in x[differs][:5].tolist():
            check(python_float_powers, np.ones(2), v, exact=True)


def test_squares_over_many_magnitudes():
    """The square's fast path (``x * x`` where glibc's pow is known to give it) at every scale:
    binade edges, near over- and underflow, subnormal squares."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.standard_normal(4000) * 10.0 ** rng.integers(-170, 170, 4000),
                        np.exp2(rng.integers(-540, 512, 500).astype(float)),
                        np.nextafter(np.exp2(rng.integers(-540, 512, 500).astype(float)), 0),
                        [1.3407807929942596e154, 1.3407807929942597e154, 1e-162, 2.2e-308]])
    with np.errstate(all="ignore"):
        check(squares_one_by_one, x, exact=True)


def test_arrays_keep_numpys_array_forms_and_integers_stay_exact():
    x = np.random.default_rng(2).uniform(-3, 3, 101)
    check(array_squares, x, exact=True)
    check(lambda a: (a[0] ** 2, a[1] ** 3, a ** 2), np.array([3, -7, 11]), exact=True)  # noqa: E731
    check(lambda a: a ** 2, np.array(0.6666666739422462 - 1), exact=True)  # noqa: E731 (0-d: square)


def test_math_pow_is_pow_also_under_vectorize():
    import math
    x = np.random.default_rng(3).uniform(-3, 3, 100_000)
    x = x[np.array([v ** 2 != v * v for v in x])][:40]

    def f(x):
        return [math.pow(x[i], 2) for i in range(8)], np.vectorize(lambda v: math.pow(v, 2))(x)

    check(f, x, exact=True)


# -- 3. hasattr/getattr of a traced value answer as the value it stands for ------------------

# (not a Python number's own methods, bit_length or is_integer: those make the number static)
NAMES = ("dtype", "shape", "ndim", "item", "__len__", "__iter__", "__getitem__", "real",
         "imag", "conjugate", "T", "size", "__array__", "astype", "reshape")


def probe_attributes(x, v):
    return tuple(hasattr(v, n) for n in NAMES), tuple(getattr(v, n, None) is None for n in NAMES)


VALUES = {"float": 0.1, "int": 3, "bool": True, "np.float64": np.float64(0.25),
          "np.float32": np.float32(1.5), "np.int64": np.int64(7), "array": np.arange(3.0),
          "0-d array": np.array(2.0)}


@pytest.mark.parametrize("kind", VALUES)
def test_hasattr_and_getattr_answer_as_the_value_would(kind):
    check(probe_attributes, np.ones(3), VALUES[kind])


def test_hasattr_of_computed_values():
    def f(x, lr):
        s, e, m = x.sum(), x[0], x * lr
        return tuple(hasattr(v, n) for v in (s, e, m, lr * 2, lr + e) for n in NAMES)

    check(f, np.arange(4.0), 0.5)
    check(f, np.arange(4.0), 2)


def scale_layers(x, factors):
    if not hasattr(factors, "__iter__"):
        factors = [factors]
    for f in factors:
        x = x * f
    return x, len(factors)


@pytest.mark.parametrize("factors", [2.0, 3, [2.0, 0.5], (1.5,)])
def test_a_single_value_or_a_list(factors):
    check(scale_layers, np.ones(3), factors)


def test_getattr_without_a_default_raises_pythons_error():
    def f(x, lr, name="dtype"):
        return getattr(lr, name)

    check(f, np.ones(2), 0.5)      # AttributeError, as Python's
    check(f, np.ones(2), np.float64(0.5))


def test_lr_sniffing_takes_pythons_branch():
    def step(w, g, lr):
        if hasattr(lr, "dtype"):
            lr = lr.astype(w.dtype)
        else:
            lr = float(lr) * 2.0
        return w - lr * g

    w, g = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    check(step, w, g, 0.1)
    check(step, w, g, np.float32(0.1))
