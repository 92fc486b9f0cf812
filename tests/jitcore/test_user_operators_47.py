"""Operators on the user's objects (session 47; new user h1's R1): ``q1 * q2``, ``a @ b``,
``2 * v``, ``-q`` where the user's class defines the operator's method. Python calls those
methods itself, so converted code did not convert them: a traced ``if`` in one, or
``np.array([traced, ...])``, was refused with a message about the array code. Now they are
converted as a method called by name is (``autograph/operators.py``)."""

import numpy as np
import pytest

import jitcore as jc


class Quat:
    def __init__(self, q):
        self.q = q

    def __mul__(self, o):
        if not isinstance(o, Quat):  # q * 2.0: a scalar
            return Quat(self.q * o)
        w1, x1, y1, z1 = self.q[0], self.q[1], self.q[2], self.q[3]
        w2, x2, y2, z2 = o.q[0], o.q[1], o.q[2], o.q[3]
        return Quat(np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                              w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                              w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                              w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]))

    def __rmul__(self, s):
        return Quat(s * self.q)

    def __add__(self, o):
        return Quat(self.q + o.q)

    def __neg__(self):
        return Quat(-self.q)

    def __matmul__(self, o):  # a branch on the data
        d = np.dot(self.q, o.q)
        if d < 0:
            return -d
        return d

    def __truediv__(self, s):
        return Quat(self.q / s)

    def normalized(self):
        return self / np.linalg.norm(self.q)


def product(a, b):
    return (Quat(a) * Quat(b)).normalized().q


def scaled(a, s):
    return (2.0 * Quat(a) + Quat(a) * s).q


def negated(a):
    return (-Quat(a)).q


def dotted(a, b):
    return Quat(a) @ Quat(b)


def chain(a, n):
    q = Quat(a)
    r = Quat(np.array([1.0, 0.0, 0.0, 0.0]))
    for _ in range(n):  # a compiled loop at n past the unroll limit
        r = (r * q).normalized()
    return r.q


def arrays_and_numbers(x, y):
    return -x + 2 * y @ y, x ** 2 // 3 % 2, ~(x > 0)


@pytest.mark.parametrize("fn, args", [
    (product, (np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, -1.0, 0.25, 2.0]))),
    (scaled, (np.array([1.0, 2.0, 3.0, 4.0]), 1.5)),
    (negated, (np.array([1.0, -2.0, 3.0, 0.0]),)),
    (dotted, (np.array([1.0, 2.0, 3.0, 4.0]), np.array([-1.0, -2.0, 0.0, 1.0]))),
    (dotted, (np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 2.0, 0.0, 1.0]))),
    (chain, (np.array([0.9, 0.1, -0.2, 0.3]), 5)),
    (chain, (np.array([0.9, 0.1, -0.2, 0.3]), 300)),
    (arrays_and_numbers, (np.arange(-3.0, 3.0), np.ones(6))),
], ids=lambda v: getattr(v, "__name__", None))
def test_operators_of_the_users_classes_are_converted(fn, args):
    got, want = jc.jit(fn)(*args), fn(*args)
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=1e-13)
        assert np.asarray(g).dtype == np.asarray(w).dtype


class Plain:
    def __init__(self, v):
        self.v = v


class Left:
    def __init__(self, v):
        self.v = v

    def __mul__(self, o):
        return NotImplemented  # Python then asks the right operand


class Reflected:
    def __init__(self, v):
        self.v = v

    def __rmul__(self, o):
        if isinstance(o, Left):
            return Reflected(o.v * self.v)
        if o > 2:  # a branch on a traced number
            return Reflected(o * self.v)
        return Reflected(-self.v)


def not_implemented(a, b, s):
    return (Left(a) * Reflected(b)).v, (s * Reflected(a)).v


def test_python_picks_the_method_as_without_jit():
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    for s in (3.0, 1.0):
        for g, w in zip(jc.jit(not_implemented)(a, b, s), not_implemented(a, b, s)):
            np.testing.assert_array_equal(g, w)


def test_a_class_without_the_operator_raises_pythons_type_error():
    def f(a):
        return Plain(a) * 2

    with pytest.raises(TypeError, match="unsupported operand"):
        f(np.ones(2))
    with pytest.raises(TypeError, match="unsupported operand"):
        jc.jit(f)(np.ones(2))
