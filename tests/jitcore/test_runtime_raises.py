"""A ``raise`` or a failed ``assert`` under a traced condition is raised when the compiled function
runs and takes that branch, as Python raises it, never while tracing for every input
(jitcore/autograph/raises.py). NumPy, run without jit, is the oracle: the same result, or the
same exception type and message."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples
from tests.jitcore.asserting_programs import asserted, asserted_bare  # (pytest rewrites a test's asserts)


class OutOfRange(Exception):
    def __init__(self, low, high):
        super().__init__(f"values must lie in [{low}, {high}]")
        self.low, self.high = low, high


def validated_sqrt(x):
    if np.any(x < 0):
        raise ValueError("negative input")
    return np.sqrt(x)


def checked_else(x):
    if np.all(np.isfinite(x)):
        y = x * 2
    else:
        raise FloatingPointError("not finite")
    return y + 1


def scanned(x):
    total = 0.0
    for i in range(x.shape[0]):  # a compiled loop: the check runs on each step
        if x[i] > 100:
            raise OutOfRange(0, 100)
        total += x[i]
    return total


def outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001  (the oracle's exception, whatever it is)
        return None, e


def agrees(fn, *args):
    jitted = jc.jit(fn)
    want, want_error = outcome(fn, *args)
    for _ in range(3):  # traced, then cached (the native call among them)
        got, got_error = outcome(jitted, *args)
        if want_error is None:
            assert got_error is None, got_error
            np.testing.assert_allclose(got, want, rtol=1e-14)  # (the math library: ulps)
        else:
            assert type(got_error) is type(want_error), got_error
            assert str(got_error) == str(want_error)
            assert any("raised by the compiled function" in n for n in got_error.__notes__)
    return jitted


CASES = {
    "raise in the then branch": (validated_sqrt, [np.arange(4.0)], [np.array([1.0, -1.0])]),
    "raise in the else branch": (checked_else, [np.ones(3)], [np.array([1.0, np.inf])]),
    "raise in a compiled loop": (scanned, [np.arange(2000.0) % 100], [np.arange(2000.0)]),
    "assert with a message": (asserted, [np.ones(3), np.full(3, 2.0)],
                              [np.ones(3), np.array([1.0, 0.0, 2.0])]),
    "assert without one": (asserted_bare, [np.ones(3)], [-np.ones(3)]),
}


@pytest.mark.parametrize("case", CASES)
def test_raised_only_where_python_raises(case):
    fn, good, bad = CASES[case]
    jitted = agrees(fn, *good)
    agrees(fn, *bad)
    with pytest.raises((ValueError, FloatingPointError, OutOfRange, AssertionError)):
        jitted(*bad)
    np.testing.assert_allclose(jitted(*good), fn(*good), rtol=1e-14)  # and it goes on working
    assert jitted.cache_info().compiles == 1


def test_the_exception_is_a_fresh_copy_each_call():
    f = jc.jit(scanned)
    errors = []
    for _ in range(3):
        with pytest.raises(OutOfRange) as info:
            f(np.array([1.0, 500.0]))
        errors.append(info.value)
    assert len({id(e) for e in errors}) == 3
    assert all(e.low == 0 and e.high == 100 for e in errors)
    assert all(e.__traceback__ is not None and len(e.__notes__) == 1 for e in errors)


def test_a_static_assert_still_fails_while_tracing():
    with pytest.raises(AssertionError):
        jc.jit(asserted)(np.ones(3), np.ones(4))


def test_jitcores_own_errors_in_a_branch_stay_trace_time_errors():
    def mismatched(x, y):
        if x.sum() > 0:
            return x + y  # shapes that do not broadcast: an error whatever the data
        return x

    with pytest.raises(jc.JitValueError):
        jc.jit(mismatched)(np.ones(3), np.ones(4))


@settings(max_examples=examples(30), deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(0, 20), elements=st.floats(-5, 100, allow_nan=False)))
def test_validation_matches_numpy(x):
    agrees(validated_sqrt, x)
    agrees(scanned, x)


# -- a try whose except would catch what the compiled code finds only when it runs ------------
def _item_or_default(x, i):
    try:
        return x[i]
    except IndexError:
        return -1.0


def _item_at_data(x):
    try:
        return x[int(x[0])]
    except (KeyError, IndexError):
        return -1.0


def _solved_or_none(a, b):
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return np.zeros_like(b)


def _other_errors_caught(x):
    try:
        return x[int(x[0])] * 2
    except KeyError:  # (an index error is not caught: it reaches the caller, as NumPy's)
        return -1.0


def test_an_index_from_a_python_int_is_checked_while_tracing_where_the_except_catches_it():
    f = jc.jit(_item_or_default)
    x = np.arange(4.0)
    for i in (2, 10, -5):
        assert f(x, i) == _item_or_default(x, i)


def test_errors_found_only_when_run_inside_a_catching_try_are_refused_with_the_reason():
    # (session 50: an index from the data takes the except where it is out of range: test_try_except_50.py)
    assert jc.jit(_item_at_data)(np.array([7.0, 1.0])) == -1.0
    # (session 50: a singular matrix's LinAlgError takes the except, as Python's: test_try_except_50.py)
    assert np.array_equal(jc.jit(_solved_or_none)(np.zeros((2, 2)), np.ones(2)), np.zeros(2))
    f = jc.jit(_other_errors_caught)
    assert f(np.array([1.0, 3.0])) == 6.0
    with pytest.raises(IndexError):
        f(np.array([9.0, 3.0]))
