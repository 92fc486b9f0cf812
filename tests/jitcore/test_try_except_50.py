"""A ``try`` whose ``except`` catches what the compiled code finds only when it runs (session 50).

``np.linalg.cholesky`` / ``solve`` / ``inv`` inside such a try are emitted soft: the failure is
a traced flag, and the try traced control flow (``jitcore/failures.py``,
``jitcore/autograph/attempts.py``). Each test runs the function in plain Python + NumPy and
jitted, and compares results, dtypes, Python types, arguments after the call, printed text and
errors raised.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.jit_once import jit_once

LinAlgError = np.linalg.LinAlgError


def _outcome(f, args, capsys):
    args = copy.deepcopy(args)
    try:
        result = f(*args)
        error = None
    except Exception as e:  # noqa: BLE001  (compared with the other side)
        result, error = None, (type(e), str(e))
    return result, error, args, capsys.readouterr().out


def _same(a, b, rtol=None):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol)
        return
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray) or isinstance(a, np.generic):
        assert a.dtype == b.dtype
        eps = 1e-4 if a.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(a, b, rtol=max(eps, rtol or 0), atol=1e-5)
    else:
        assert a == b or (a != a and b != b)


def check(f, *args, capsys, jitted=None, rtol=None):
    """``rtol``: for an ill-conditioned system, whose solutions differ by rounding."""
    expected = _outcome(f, args, capsys)
    got = _outcome(jitted or jit_once(f), args, capsys)
    assert got[1] == expected[1], (got[1], expected[1])
    if expected[1] is None:
        _same(got[0], expected[0], rtol)
    _same(tuple(got[2]), tuple(expected[2]))
    assert got[3] == expected[3]
    return expected[0]


# -- the two programs users reported (h2 D, h3 C1) -------------------------------------------------
def is_pd(A):
    try:
        np.linalg.cholesky(A)
        return True
    except np.linalg.LinAlgError:
        return False


def safe_solve(A, b):
    try:
        x = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        x = np.linalg.lstsq(A, b, rcond=None)[0]
    return x


def inverse_or_zeros(A):
    try:
        return np.linalg.inv(A), True
    except np.linalg.LinAlgError:
        return np.zeros_like(A), False


_JIT_IS_PD, _JIT_SAFE_SOLVE, _JIT_INVERSE = jc.jit(is_pd), jc.jit(safe_solve), jc.jit(inverse_or_zeros)


def _matrix(kind: str, seed: int, n: int, dtype):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n))
    if kind == "pd":
        a = m @ m.T + n * np.eye(n)
    elif kind == "not pd":  # symmetric with a negative eigenvalue
        a = m @ m.T - (np.abs(np.linalg.eigvalsh(m @ m.T)).max() + 1.0) * np.eye(n) * (seed % 2) \
            - np.eye(n) * (1 - seed % 2) * 3 * n
    elif kind == "singular":  # a zero row or column: an exactly zero pivot in any rounding
        a = m.copy()
        if seed % 2:
            a[-1] = 0
        else:
            a[:, seed % n] = 0
    elif kind == "zero":
        a = np.zeros((n, n))
    else:  # near-singular, not singular
        a = m.copy()
        a[-1] = a[0] + 1e-3
    return a.astype(dtype)


_KINDS = st.sampled_from(["pd", "not pd", "singular", "zero", "near"])
_DTYPES = st.sampled_from([np.float64, np.float32])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=_KINDS, seed=st.integers(0, 10_000), dtype=_DTYPES)
def test_is_pd(kind, seed, dtype, capsys):
    check(is_pd, _matrix(kind, seed, 4, dtype), capsys=capsys, jitted=_JIT_IS_PD)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=_KINDS, seed=st.integers(0, 10_000), dtype=_DTYPES)
def test_safe_solve(kind, seed, dtype, capsys):
    a = _matrix(kind, seed, 4, dtype)
    b = np.random.default_rng(seed + 1).standard_normal(4).astype(dtype)
    rtol = np.finfo(dtype).eps * np.linalg.cond(a.astype(np.float64)) * 50
    check(safe_solve, a, b, capsys=capsys, jitted=_JIT_SAFE_SOLVE, rtol=rtol)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=_KINDS, seed=st.integers(0, 10_000))
def test_return_in_try(kind, seed, capsys):
    a = _matrix(kind, seed, 3, np.float64)
    rtol = np.finfo(np.float64).eps * np.linalg.cond(a) * 50
    check(inverse_or_zeros, a, capsys=capsys, jitted=_JIT_INVERSE, rtol=rtol)


def test_user_reports(capsys):
    assert check(is_pd, -np.eye(3), capsys=capsys) is False
    assert check(is_pd, np.eye(3), capsys=capsys) is True
    check(safe_solve, np.ones((3, 3)), np.arange(3.0), capsys=capsys)
    check(inverse_or_zeros, np.ones((2, 2)), capsys=capsys)


# -- stacks, complex, the error's bases ------------------------------------------------------------
def batched_sum(A):
    try:
        return np.linalg.cholesky(A).sum()
    except np.linalg.LinAlgError:
        return A.sum() * 0 - 1  # (a Python float here would come back as the other branch's type)


@pytest.mark.parametrize("bad", [None, 0, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_stack_fails_when_any_matrix_does(bad, dtype, capsys):
    stack = np.stack([np.eye(3) * (k + 1) for k in range(3)]).astype(dtype)
    if bad is not None:
        stack[bad, 1, 1] = -1
    check(batched_sum, stack, capsys=capsys)


def solve_stack(A, b):
    try:
        return np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        return b * 0 - 1


@pytest.mark.parametrize("bad", [None, 1])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_solve_stack(bad, dtype, capsys):
    a = np.stack([np.eye(2) * 2, np.array([[1.0, 2.0], [3.0, 4.0]])]).astype(dtype)
    if bad is not None:
        a[bad] = [[1.0, 2.0], [2.0, 4.0]]
    check(solve_stack, a, np.ones((2, 2, 3), dtype), capsys=capsys)


def catches_value_error(A):
    try:
        x = np.linalg.inv(A)
    except ValueError:  # LinAlgError's base
        x = A * 0
    return x


def catches_exception(A):
    try:
        x = np.linalg.inv(A)
    except Exception:
        x = A * 0
    return x


def catches_all(A):
    try:
        x = np.linalg.inv(A)
    except:  # noqa: E722
        x = A * 0
    return x


def catches_tuple(A):
    try:
        x = np.linalg.inv(A)
    except (KeyError, np.linalg.LinAlgError):
        x = A * 0
    return x


@pytest.mark.parametrize("f", [catches_value_error, catches_exception, catches_all, catches_tuple])
@pytest.mark.parametrize("a", [np.ones((2, 2)), np.eye(2)])
def test_clauses_that_catch_it(f, a, capsys):
    check(f, a, capsys=capsys)


# -- what the rest of the body does, and what the handler does --------------------------------------
def keeps_old_value(A, b):
    x = b
    try:
        x = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        pass
    return x


def effects_after(A, out):
    try:
        L = np.linalg.cholesky(A)
        out[0] = 1.0
        print("factored")
        k = int(L[0, 0] > 100) + 5
        out[k] = 3.0  # an index error where L is garbage would be found here
    except np.linalg.LinAlgError as e:
        print("failed:", e)
        out[1] = 2.0
    else:
        out[2] = L[0, 0]
    finally:
        out[3] = 7.0
    return out.sum()


@pytest.mark.parametrize("a", [np.ones((2, 2)), np.eye(2)])
def test_old_value_kept(a, capsys):
    check(keeps_old_value, a, np.full(2, 3.0), capsys=capsys)


@pytest.mark.parametrize("a", [-np.eye(2), 4 * np.eye(2)])
def test_effects_else_finally(a, capsys):
    check(effects_after, a, np.zeros(6), capsys=capsys)


def into_out(A, b, out):
    try:
        out[:] = np.linalg.solve(A, b)  # the write of the statement that fails: not made
        ok = True
    except np.linalg.LinAlgError:
        ok = False
    return ok


@pytest.mark.parametrize("a", [np.ones((2, 2)), 2 * np.eye(2)])
def test_write_in_the_failing_statement(a, capsys):
    check(into_out, a, np.ones(2), np.full(2, 5.0), capsys=capsys)


def reraises(A):
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        print("not positive definite")
        raise
    return L


@pytest.mark.parametrize("a", [-np.eye(2), np.eye(2)])
def test_handler_reraises(a, capsys):
    check(reraises, a, capsys=capsys)


def nested(A, B):
    try:
        try:
            x = np.linalg.inv(A)
        except KeyError:  # does not catch it: the outer try does
            x = A * 0 - 5
        y = np.linalg.inv(B)
    except np.linalg.LinAlgError:
        y = B * 0
        x = y - 1
    return x, y


@pytest.mark.parametrize("a, b", [(np.ones((2, 2)), np.eye(2)), (np.eye(2), np.ones((2, 2))),
                                  (np.eye(2), np.eye(2))])
def test_nested(a, b, capsys):
    check(nested, a, b, capsys=capsys)


def jitter(A):
    n = A.shape[0]
    eps = 0.0
    L = A * 0
    for k in range(12):
        try:
            L = np.linalg.cholesky(A + eps * np.eye(n))
            break
        except np.linalg.LinAlgError:
            eps = 10.0 ** (k - 8)
    return L, eps


@pytest.mark.parametrize("a", [np.eye(2), np.array([[1.0, 0.0], [0.0, 0.0]]),
                               np.array([[1.0, 2.0], [2.0, 1.0]]), -np.eye(2) * 1e9])
def test_loop_with_break(a, capsys):
    check(jitter, a, capsys=capsys)


def count_pd(stack):
    count = 0
    for k in range(stack.shape[0]):
        try:
            np.linalg.cholesky(stack[k])
        except np.linalg.LinAlgError:
            continue
        count += 1
    return count


def test_loop_with_continue(capsys):
    stack = np.stack([np.eye(2), -np.eye(2), 2 * np.eye(2), np.ones((2, 2))])
    check(count_pd, stack, capsys=capsys)


def _factor(A):
    return np.linalg.cholesky(A)


def through_helper(A):
    try:
        L = _factor(A)
        ok = True
    except np.linalg.LinAlgError:
        L, ok = np.eye(A.shape[0]), False
    return L, ok


@pytest.mark.parametrize("a", [-np.eye(3), np.eye(3)])
def test_through_a_helper(a, capsys):
    check(through_helper, a, capsys=capsys)


# -- an index from the data, out of range ---------------------------------------------------------
def item_at_data(x, table):
    try:
        v = table[int(x[0])] * 2
        hit = True
    except IndexError:
        v, hit = table[0] * 0 - 1, False
    return v, hit


def rows_at_data(idx, table):
    try:
        return table[idx].sum(axis=0), True
    except (KeyError, IndexError):
        return table[0] * 0, False


_JIT_ITEM, _JIT_ROWS = jc.jit(item_at_data), jc.jit(rows_at_data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(i=st.integers(-8, 8))
def test_index_from_data(i, capsys):
    check(item_at_data, np.array([float(i)]), np.arange(5.0) + 1, capsys=capsys, jitted=_JIT_ITEM)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(idx=st.lists(st.integers(-6, 6), min_size=3, max_size=3))
def test_indices_from_data(idx, capsys):
    table = np.arange(12.0).reshape(4, 3)
    check(rows_at_data, np.array(idx), table, capsys=capsys, jitted=_JIT_ROWS)


def reads_index_error(x, table):
    try:
        v = table[int(x[0])]
    except IndexError as e:
        print(e)
        v = table[0]
    return v


def test_index_error_read_is_refused():
    with pytest.raises(UnsupportedError, match="names the index only when the compiled code runs"):
        jc.jit(reads_index_error)(np.array([9.0]), np.arange(3.0))


# -- as before, or refused -------------------------------------------------------------------------
def no_try(A):
    return np.linalg.cholesky(A)


def other_error_caught(A):
    try:
        L = np.linalg.cholesky(A)
    except KeyError:
        L = A
    return L


@pytest.mark.parametrize("f", [no_try, other_error_caught])
def test_uncaught_still_raises(f, capsys):
    check(f, -np.eye(2), capsys=capsys)


def in_loop(A, n):
    try:
        for _ in range(n):
            A = np.linalg.cholesky(A) + 1
    except np.linalg.LinAlgError:
        A = A * 0
    return A


@pytest.mark.parametrize("a", [np.eye(2), -np.eye(2)])
def test_loop_inside_the_try(a, capsys):  # (n is made static: the loop runs in Python)
    check(in_loop, a, 3, capsys=capsys)


def in_traced_branch(A):
    try:
        if A[0, 0] > 0:
            A = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        A = A * 0
    return A


def test_failure_inside_a_traced_branch_refused():
    with pytest.raises(UnsupportedError, match="try"):
        jc.jit(in_traced_branch)(np.eye(2))
