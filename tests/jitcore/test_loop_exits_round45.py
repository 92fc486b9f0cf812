"""Round 45 (lead-out t45 h3): exits from traced loops. A ``return x`` taken on a traced test
before an indexed write ``x[k] = v`` in the same body returned zeros (an ``scf.if`` whose arm
yields one array as two results, the result so far and ``x``, had both results planned in one
buffer, so the other arm's result so far was written over ``x``); each program here runs under
``jit`` and plainly, and results, types, arguments after the call and printed text agree."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore import pytree


def _run(capsys, fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    capsys.readouterr()
    out = fn(*args)
    return out, args, capsys.readouterr().out


def assert_same(capsys, fn, *args, rtol=0.0):
    """Results, arguments after the call and printed text equal NumPy's: values (to ``rtol``
    where the order of a sum's terms may differ), dtypes, types."""
    want, want_args, want_text = _run(capsys, fn, args)
    got, got_args, got_text = _run(capsys, jc.jit(fn), args)
    assert got_text == want_text
    (got, got_tree), (want, want_tree) = pytree.flatten((got, got_args)), pytree.flatten((want, want_args))
    assert got_tree == want_tree
    for g, w in zip(got, want):
        assert type(g) is type(w), f"{type(g).__name__} where NumPy gives {type(w).__name__}"
        if isinstance(w, np.ndarray) or isinstance(w, np.generic):
            assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


SMALL = np.array([3.0, 4.0, 5.0, 6.0])  # no early exit
BIG = np.array([3.0, 400.0, 5.0, 6.0])  # the exit at k == 1


def return_before_write(b):
    x = b * 2.0
    for k in range(3):
        if b[k] > 100.0:
            return x
        x[k] = 7.0
    return x


def return_before_write_at_constant(b):
    x = b * 2.0
    for k in range(3):
        if b[k] > 100.0:
            return x
        x[0] += 1.0
    return x


def return_copy_before_write(b):
    x = b * 2.0
    for k in range(3):
        if b[k] > 100.0:
            return x.copy()
        x[k] = 7.0
    return x.copy()


def while_returns_array_and_counter(b):
    x = b * 2.0
    k = 0
    while k < 3:
        if x[k] > 100.0:
            return x, k
        x[k] = 7.0
        k += 1
    return x, k


def nested_if_return(b):
    x = b * 2.0
    for k in range(3):
        if b[k] > 1.0:
            if b[k] > 100.0:
                return x, k
        x[k] = -1.0
    return x, -1


def two_arrays_written(b):
    x = b * 2.0
    y = b + 1.0
    for k in range(3):
        if b[k] > 100.0:
            return y, x
        x[k] = 7.0
        y[k + 1] = x[k] + y[k]
    return y, x


def writes_argument_and_local(b, out):
    x = b * 2.0
    for k in range(3):
        if b[k] > 100.0:
            return k, x
        out[k] = x[k]
        x[k] = 0.5
    return 3, x


def printed_before_return(b):
    x = b * 2.0
    for k in range(3):
        if b[k] > 100.0:
            print("stop at", k)
            return x
        x[k] += 1.0
    print("ran", len(x))
    return x


def inner_loop_returns(b):
    x = b * 2.0
    for i in range(2):
        for k in range(3):
            if b[k] > 100.0:
                return x, i
            x[k] += 1.0
    return x, -1


def arnoldi(A, b, m):
    # the textbook order: the breakdown test, then the next basis vector stored
    n = len(b)
    Q = np.zeros((n, m + 1))
    H = np.zeros((m + 1, m))
    Q[:, 0] = b / np.linalg.norm(b)
    for k in range(m):
        w = A @ Q[:, k]
        h = Q.T @ w
        w = w - Q @ h
        H[:, k] = h[:m + 1]
        nw = np.linalg.norm(w)
        if nw < 1e-12:
            return Q, H, k
        H[k + 1, k] = nw
        Q[:, k + 1] = w / nw
    return Q, H, m


@pytest.mark.parametrize("fn", [return_before_write, return_before_write_at_constant,
                                return_copy_before_write, while_returns_array_and_counter,
                                nested_if_return, two_arrays_written, printed_before_return,
                                inner_loop_returns])
@pytest.mark.parametrize("b", [SMALL, BIG], ids=["runs-out", "returns"])
def test_return_before_an_indexed_write(capsys, fn, b):
    assert_same(capsys, fn, b)


@pytest.mark.parametrize("b", [SMALL, BIG], ids=["runs-out", "returns"])
def test_argument_written_in_a_loop_that_returns(capsys, b):
    assert_same(capsys, writes_argument_and_local, b, np.zeros(4))


@pytest.mark.parametrize("b", [np.array([1.0, 1.0, 0.0, 0.0, 0.0]), np.arange(1.0, 6.0)],
                         ids=["breaks-down", "runs-out"])
def test_arnoldi_breakdown_test_before_the_store(capsys, b):
    assert_same(capsys, arnoldi, np.diag([1.0, 2.0, 3.0, 4.0, 5.0]), b, 3, rtol=1e-12)


def one_value_as_two_results(b):
    x = b * 2.0
    if b[0] > 1.0:
        y = x
    else:
        y = np.zeros(4)
        x[0] = 7.0
    return y + 0.0, x


@pytest.mark.parametrize("b", [SMALL, -SMALL], ids=["then", "else"])
def test_an_if_yielding_one_value_twice(capsys, b):
    assert_same(capsys, one_value_as_two_results, b)
