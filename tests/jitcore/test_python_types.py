"""``isinstance`` and ``type`` of traced values answer as of the values they stand for: an
array is an ``ndarray``, ``x.sum()`` a NumPy scalar of its dtype, a Python number argument a
Python number. (They answered ``Tracer``, so ``isinstance(x, np.ndarray)`` took the wrong branch.)"""

import numpy as np
import pytest

import jitcore as jc


def as_array(x):
    if isinstance(x, np.ndarray):
        return x.astype(float)
    return np.array([x], dtype=float)


def kinds(x, s, n, flag):
    return (isinstance(x, np.ndarray), isinstance(x[0], np.floating), isinstance(x.sum(), np.float64),
            isinstance(s, float), isinstance(n, int), isinstance(n, bool), isinstance(flag, (bool, np.bool_)),
            type(x) is np.ndarray, type(x.sum()).__name__, type(s).__name__, type(n * 2).__name__,
            isinstance(n, (float, np.integer)), isinstance(x, (list, tuple)), isinstance(x[0] > 0, np.bool_),
            isinstance(x.astype(np.int32)[0], np.int32))


@pytest.mark.parametrize("x", [np.arange(3), np.arange(3.0), np.ones((2, 2), np.float32)])
def test_isinstance_of_an_array_argument_takes_numpys_branch(x):
    f = jc.jit(as_array)
    for _ in range(2):
        got = f(x)
        np.testing.assert_array_equal(got, as_array(x))
        assert got.shape == x.shape


def test_isinstance_and_type_of_arrays_numpy_scalars_and_python_numbers():
    f = jc.jit(kinds)
    for args in [(np.ones(3), 2.0, 3, True), (np.arange(4.0), -1.5, 0, False)] * 2:
        assert f(*args) == kinds(*args)
