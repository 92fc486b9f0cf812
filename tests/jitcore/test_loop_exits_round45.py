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


# -- h3 R1: the index of a for loop that may end early -------------------------------------
# Its uses in the body that need a Python int (V[:, :j], np.zeros(k + 2), U[k:, k]) compile as
# they do without the early exit (the loop unrolled, each step under an if); after the loop
# the index is known only at run time, and a shape made of it is refused saying so.


def krylov_basis(A, b, m):
    n = len(b)
    V = np.zeros((n, m))
    V[:, 0] = b / np.linalg.norm(b)
    for j in range(1, m):
        w = A @ V[:, j - 1]
        w -= V[:, :j] @ (V[:, :j].T @ w)
        nw = np.linalg.norm(w)
        if nw < 1e-10:
            return V, j
        V[:, j] = w / nw
    return V, m


def projected_until_small(V, w):
    for j in range(1, V.shape[1]):
        w = w - V[:, :j] @ (V[:, :j].T @ w)
        if np.linalg.norm(w) < 1e-10:
            break
    return w, j


def det_elim(A):
    U = A.astype(np.float64).copy()
    n = U.shape[0]
    sign = 1.0
    for k in range(n):
        p = k + np.argmax(np.abs(U[k:, k]))
        if U[p, k] == 0:
            return U[p, k]
        if p != k:
            U[[k, p]] = U[[p, k]]
            sign = -sign
        U[k + 1:] -= np.outer(U[k + 1:, k] / U[k, k], U[k])
    return sign * np.prod(np.diag(U))


def residual_sizes(H, beta, tol):
    # a new array each step, its size the step's (gmres' right-hand side)
    total = 0.0
    for k in range(H.shape[1]):
        e1 = np.zeros(k + 2)
        e1[0] = beta
        total += np.abs(H[:k + 2, :k + 1].T @ e1).sum()
        if total > tol:
            break
    return total, k


def sum_to_stop(x):
    for k in range(x.shape[0]):
        w = np.full(k + 1, x[k])  # needs k as a Python int: the loop is unrolled
        if w.sum() > 10.0:
            break
    return x[:k].sum(), k


R = np.random.default_rng(0).standard_normal((6, 6))
SPD = R @ R.T + 6 * np.eye(6)


@pytest.mark.parametrize("args", [(SPD, np.ones(6), 5),
                                  (np.diag([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 1.0, 0.0, 0.0]), 4)],
                         ids=["runs-out", "returns"])
def test_slices_by_the_index_in_a_loop_that_returns(capsys, args):
    assert_same(capsys, krylov_basis, *args, rtol=1e-12)


@pytest.mark.parametrize("w", [np.ones(6), SPD[:, 0] * 1.0], ids=["a", "b"])
def test_slices_by_the_index_in_a_loop_that_breaks(capsys, w):
    V = np.linalg.qr(R)[0][:, :4]
    assert_same(capsys, projected_until_small, V, w, rtol=1e-12)
    V[:, 3] = V[:, 0]  # w is in the span after 3 columns: the break is taken
    assert_same(capsys, projected_until_small, V, V[:, 1] + V[:, 2], rtol=1e-12)


@pytest.mark.parametrize("A", [SPD, np.array([[1.0, 2.0], [2.0, 4.0]])], ids=["det", "singular"])
def test_a_slice_from_the_index_under_an_early_return(capsys, A):
    assert_same(capsys, det_elim, A, rtol=1e-12)


@pytest.mark.parametrize("tol", [1e9, 3.0], ids=["runs-out", "breaks"])
def test_an_array_sized_by_the_index_in_a_loop_that_breaks(capsys, tol):
    assert_same(capsys, residual_sizes, np.arange(20.0).reshape(5, 4), 1.5, tol, rtol=1e-12)


@pytest.mark.parametrize("x", [np.ones(8), np.arange(8.0)], ids=["runs-out", "breaks"])
def test_the_index_after_an_unrolled_loop_selects_by_a_mask(capsys, x):
    assert_same(capsys, sum_to_stop, x)


def zeros_after(b):
    for k in range(4):
        if b[k] > 100.0:
            break
    return np.zeros(k + 2)


def columns_after(V, b):
    for j in range(1, V.shape[1]):
        w = V[:, :j].sum(axis=1)  # (a Python int here: unrolled, each step under an if)
        if b[j] > w.sum():
            break
    return V[:, :j]


@pytest.mark.parametrize("fn,args", [
    (zeros_after, (np.ones(4),)), (columns_after, (np.ones((3, 4)), np.ones(4))),
], ids=["compiled-loop", "unrolled-loop"])
def test_a_shape_from_the_index_after_the_loop_says_why(fn, args):
    with pytest.raises(jc.ConcretizationError) as e:
        jc.jit(fn)(*args)
    text = str(e.value)
    assert "which a break or return on a traced test may end early" in text
    assert "keep the full size and mask" in text and "slice outside the jitted function" in text
    assert "element-wise with jitcore.numpy.where(cond, a, b)" not in text  # (the generic advice)
