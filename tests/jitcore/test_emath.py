"""``np.emath`` of traced arrays: NumPy's dtype, which the data chooses (complex where an
element is outside the real function's domain, else real), and NumPy's numbers, from one
compiled function whichever the data chooses; arithmetic on such a result is refused naming
the conversion that fixes its dtype."""

import warnings

import numpy as np
import pytest

import jitcore as jc
from tests.oracle import assert_matches, ulp_bound


def _all(x, i8, u8, z, s):
    e = np.emath
    return (
        e.sqrt(x),
        e.log(x),
        e.log2(i8),
        e.log10(u8),
        e.sqrt(z),
        e.arccos(s),
        e.arcsin(s),
        e.arctanh(s),
        e.sqrt(x.sum()),
        e.logn(2, x),
        e.power(x, 2),
        e.power(x, -1),
        e.sqrt(i8),
        e.sqrt(x).real,
        np.imag(e.sqrt(x)),
        e.sqrt(x)[1:].reshape(1, 3),
        e.sqrt(x).astype(np.complex64),
    )


# x with and without negatives (-0.0 is not: sqrt(-0.0) is real -0.0), ints, magnitudes above 1
REAL = (
    np.array([0.25, 4.0, -0.0, np.inf]),
    np.array([1, 8], np.int8),
    np.array([1, 100], np.uint8),
    np.array([-4 + 0j, 1j]),
    np.array([0.5, -0.25], np.float32),
)
COMPLEX = (
    np.array([0.25, -4.0, 0.0, np.nan]),
    np.array([-1, 8], np.int8),
    np.array([1, 100], np.uint8),
    np.array([-4 + 0j, 1j]),
    np.array([0.5, -2.0], np.float32),
)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_emath_gives_numpys_dtype_and_numbers_as_the_data_chooses():
    f = jc.jit(_all)
    for args in (REAL, COMPLEX, REAL):
        for k, (want, got) in enumerate(zip(_all(*args), f(*args), strict=True)):
            assert type(got) is type(want) and got.dtype == want.dtype and np.shape(got) == np.shape(want), k
            if k in (0, 4, 8, 12, 13, 14, 15, 16):  # square roots and their parts: correctly rounded
                np.testing.assert_array_equal(np.signbit(np.real(got)), np.signbit(np.real(want)))
                np.testing.assert_array_equal(got, want)
            else:  # logs and inverse trig: the bound of their complex forms, the widest
                assert_matches(got, want, ulp_bound("complex arccos", np.float64), f"result {k}")


def _roots(b, c):
    return (-b + np.emath.sqrt(b * b - 4 * c)) / 2, np.emath.log(c).sum()


def test_arithmetic_on_a_result_keeps_the_dtype_the_data_chose():
    f = jc.jit(_roots)
    for b, c in [(np.array([3.0, 5.0]), np.array([1.0, 2.0])), (np.array([1.0, 3.0]), np.array([1.0, -2.0]))]:
        for want, got in zip(_roots(b, c), f(b, c), strict=True):
            assert type(got) is type(want) and got.dtype == want.dtype
            assert_matches(got, want, ulp_bound("complex arccos", np.float64))


def test_arithmetic_on_a_result_of_a_chosen_dtype_says_how_to_fix_it():
    words = r"float16 or complex64.*negative element.*x.astype\(complex\)"
    with pytest.raises(jc.JitTypeError, match=words):  # (not a real_or_complex pair: int8's)
        jc.jit(lambda x: np.emath.sqrt(x) + 1)(np.arange(3, dtype=np.int8))
    with pytest.raises(jc.JitTypeError, match="two traced real arrays"):
        jc.jit(lambda x: np.emath.logn(x, x))(np.ones(2))
    with pytest.raises(jc.JitTypeError, match=r"traced integers.*x.astype\(float\)"):
        jc.jit(lambda x: np.emath.power(x, 2))(np.arange(3))


def _scalar(t):
    return np.emath.sqrt(t) * 2 + 1, np.emath.log10(t - 1.0)


def test_a_0d_result_is_a_numpy_scalar_whose_arithmetic_keeps_its_type():
    f = jc.jit(_scalar)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)  # (no real part taken noisily)
        for t in (4.0, -4.0, 0.5):
            for want, got in zip(_scalar(t), f(t), strict=True):
                assert type(got) is type(want)
                assert_matches(got, want, ulp_bound("complex arccos", np.float64))
