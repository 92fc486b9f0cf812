"""newuser37: ``np.copyto`` into traced arrays (``where=``, NumPy's casting rules and errors),
``complex()`` of traced numbers in converted code, and NumPy's ValueError for an integer power
whose traced exponent holds a negative number (raised by the compiled call), each under jit
against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc

X, INTS = np.array([0.0, -1.0, 2.0, 3.5, 4.0]), np.arange(5)


def copied(fn):
    """``fn(dst)`` writes ``dst``; the function returns it, as a user's would."""
    def run(dst):
        fn(dst)
        return dst
    return run


COPIES = {
    "a number where a mask holds": (lambda d: np.copyto(d, 5.0, where=d > 3), X),
    "an array": (lambda d: np.copyto(d, d[::-1] * 2), X),
    "a Python int into ints": (lambda d: np.copyto(d, 7), INTS),
    "unsafe casting truncates": (lambda d: np.copyto(d, d * 1.5 - 4, casting="unsafe"), INTS),
    "an int64 scalar into int8 (same kind)": (lambda d: np.copyto(d, np.int64(-3)), INTS.astype(np.int8)),
    "a row broadcast, a list mask": (lambda d: np.copyto(d, d[0] + 1, where=[True, False, True, False, True]),
                                     X.reshape(5, 1) * X),
}


@pytest.mark.parametrize("case", COPIES)
def test_copyto_matches_numpy(case):
    fn, x = COPIES[case]
    got, want = jc.jit(copied(fn))(x.copy()), copied(fn)(x.copy())
    np.testing.assert_array_equal(got, want, strict=True)


@pytest.mark.parametrize("fn, x, error, words", [
    (lambda d: np.copyto(d, 5.0), INTS, TypeError, "according to the rule 'same_kind'"),
    (lambda d: np.copyto(d, d * 1.5), INTS, TypeError, "Cannot cast array data"),
    (lambda d: np.copyto(d, 300), INTS.astype(np.int8), OverflowError, "out of bounds for int8"),
    (lambda d: np.copyto(d, [1.0, 2.0]), X, ValueError, "broadcast"),
])
def test_copyto_errors_are_numpys(fn, x, error, words):
    with pytest.raises(error):
        fn(x.copy())
    with pytest.raises(jc.JitcoreError, match=words) as info:
        jc.jit(copied(fn))(x.copy())
    assert isinstance(info.value, error)


def complex_numbers(x, z):
    return (complex(x[0]), complex(x[1], x[0]), complex(x[0], 2), complex(1.0, x[2]),
            complex(z[0], x[1]), np.float32(2) * complex(x[0]))


def test_complex_of_traced_numbers_matches_python():
    x, z = np.array([1.5, -np.inf, 3.0]), np.array([1 + 2j, 3 - 1j])
    got, want = jc.jit(complex_numbers)(x, z), complex_numbers(x, z)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype and g == w, (got, want)
    with pytest.raises(jc.UnsupportedError, match="im"):
        jc.jit(lambda z: complex(z[0], z[1]))(z)


POWERS = {"0 ** a": lambda a: 0 ** a, "np.power(2, a)": lambda a: np.power(2, a),
          "int8 ** int8": lambda a: np.int8(3) ** a.astype(np.int8)}


@pytest.mark.parametrize("case", POWERS)
def test_a_negative_traced_integer_exponent_raises_numpys_error(case):
    fn = jc.jit(POWERS[case])
    good, bad = np.array([0, 1, 2, 5]), np.array([0, 1, -2, 5])
    np.testing.assert_array_equal(fn(good), POWERS[case](good), strict=True)
    with pytest.raises(ValueError, match="negative integer powers"):
        POWERS[case](bad)
    with pytest.raises(jc.JitValueError, match="negative integer powers"):
        fn(bad)
    np.testing.assert_array_equal(fn(np.array([3, 0], np.uint8)), POWERS[case](np.array([3, 0], np.uint8)))
    np.testing.assert_array_equal(fn(np.zeros(0, np.int64)), POWERS[case](np.zeros(0, np.int64)), strict=True)
