"""numpy.linalg.eig and eigvals under jit against NumPy.

The eigenvalues are compared with NumPy's sorted (``sort_complex``; jitcore's order is the
Schur form's, usually but not always NumPy's) within ``C * n * eps * ||A||_F``; the vectors by
their definition (A v = w v), unit norm and LAPACK's normalisation (the largest component
real), and against NumPy's up to sign where the eigenvalues are well separated. Results are
real where every eigenvalue is, as NumPy's (session 46; complex before). Each shape compiles anew
(a second or two), so the hypothesis test draws few examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import jitcore as jc
from jitcore import ir
from tests.budget import examples
from tests.jitcore.test_decompositions import _scale, matrices

EIG = jc.jit(lambda a: np.linalg.eig(a))
EIGVALS = jc.jit(lambda a: np.linalg.eigvals(a))


def _check(a, w, v, factor=16, values=None):
    """w, v against NumPy's eigenvalues (within ``values`` if given) and the definition, for
    a stack ``a``."""
    real = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    # NumPy's choice on the data: real parts where every eigenvalue is real
    assert w.dtype == v.dtype
    assert w.dtype == (real if np.isrealobj(w) else np.result_type(real, np.complex64))
    n = a.shape[-1]
    assert w.shape == a.shape[:-1] and v.shape == a.shape
    if n == 0:
        return
    eps, size = np.finfo(real).eps, _scale(a)[..., None]
    want = np.sort_complex(np.linalg.eigvals(a.astype(np.float64)))
    bound = 16 * factor * n * eps * size if values is None else values
    assert (np.abs(np.sort_complex(w) - want) <= bound).all()
    a64, v64 = a.astype(np.float64), v.astype(np.complex128)
    residual = np.abs(a64 @ v64 - v64 * w[..., None, :]).max(axis=-2)
    assert (residual <= factor * n * eps * size).all()
    assert (np.abs(np.linalg.norm(v64, axis=-2) - 1) <= 4 * n * eps).all()
    largest = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    assert (largest.imag == 0).all()  # LAPACK's phase: the largest component real


@settings(max_examples=examples(6, ci=4), deadline=None)
@given(a=matrices(square=True, max_side=6))
def test_eig_matches_numpy(a):
    w, v = EIG(a)
    _check(a, w, v)


def test_eig_result_type_vectors_and_eigvals():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 5))
    result = EIG(a)
    assert type(result) is type(np.linalg.eig(a))
    w, v = result
    _check(a, w, v)
    np.testing.assert_array_equal(EIGVALS(a), w)  # the same eigenvalues, without the vectors
    # vectors of separated eigenvalues are NumPy's up to sign (both normalised as geev)
    want_w, want_v = np.linalg.eig(a)
    mine, theirs = np.argsort(w), np.argsort(want_w)
    dots = np.sum(v[:, mine].conj() * want_v[:, theirs], axis=0)
    np.testing.assert_allclose(np.abs(dots), 1, atol=1e-12)
    np.testing.assert_allclose(dots.imag, 0, atol=1e-12)
    batch = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    _check(batch, *EIG(batch))
    np.testing.assert_allclose(EIGVALS(batch), EIG(batch).eigenvalues, rtol=0, atol=1e-5)


def test_eig_of_special_matrices():
    rotation = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    w, v = EIG(rotation)
    np.testing.assert_allclose(w, [np.exp(0.3j), np.exp(-0.3j)], rtol=0, atol=1e-15)
    _check(rotation, w, v)
    assert w.dtype == np.linalg.eig(rotation).eigenvalues.dtype == np.complex128
    w, v = EIG(np.diag([3.0, 1.0, 2.0, 5.0, 4.0]))  # shapes repeat: each new one compiles
    np.testing.assert_array_equal(w, [3, 1, 2, 5, 4])
    assert w.dtype == v.dtype == np.float64  # every eigenvalue real: NumPy's real parts
    np.testing.assert_array_equal(v, np.eye(5))
    rng = np.random.default_rng(8)
    for a in (np.triu(rng.standard_normal((5, 5))), np.tril(rng.standard_normal((5, 5))),
              np.ones((5, 5)), np.zeros((5, 5)), np.zeros((0, 0)), np.array([[-2.5]]),
              np.eye(5)[[1, 2, 3, 4, 0]],  # a cyclic permutation: the 5th roots of unity
              np.eye(5, k=-1) - np.eye(5, k=4),  # the companion matrix of x^5 + 1
              rng.standard_normal((5, 5)) * 1e150, rng.standard_normal((5, 5)) * 1e-200):
        _check(a, *EIG(a))
    np.testing.assert_array_equal(EIG(np.zeros((5, 5))).eigenvectors, np.eye(5))
    # defective: eigenvalues only to eps^(1/k) for a Jordan block of k (NumPy's too), but
    # A v = w v still holds to rounding
    for a in (np.array([[1.0, 1.0], [0.0, 1.0]]), 2 * np.eye(5) + np.eye(5, k=1)):
        w, v = EIG(a)
        np.testing.assert_allclose(w, np.diag(a), rtol=0, atol=1e-3)
        _check(a, w, v, values=1e-3)
    ints = np.array([[2, -1], [1, 2]])
    w, v = EIG(ints)
    np.testing.assert_allclose(w, [2 + 1j, 2 - 1j], rtol=0, atol=1e-15)
    _check(ints, w, v)


def test_eig_errors():
    for bad in (np.nan, np.inf):
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            EIG(np.array([[1.0, bad], [0.0, 1.0]]))
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            EIGVALS(np.array([[1.0, 0.0], [bad, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        EIG(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        EIGVALS(np.ones(3))


def test_eig_op_round_trips_and_verifies():
    text = ir.print_op(jc.make_ir(lambda a: (np.linalg.eig(a), np.linalg.eigvals(a)))(np.eye(3)))
    assert '"array.eig"' in text and "vectors = 0" in text and "vectors = 1" in text
    assert ir.print_op(ir.parse(text)) == text
    ir.verify(ir.parse(text))


@pytest.mark.parametrize("fn", [np.linalg.eigvals, np.roots, lambda a: np.linalg.eig(a).eigenvectors],
                         ids=["eigvals", "roots", "eig-vectors"])
def test_real_results_where_every_eigenvalue_is_real(fn):
    """NumPy gives real parts when every eigenvalue is real: a dtype chosen by the data, on
    every call (the native path's from the third)."""
    jitted = jc.jit(fn)
    sym, rot = np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([[0.0, -1.0], [1.0, 0.0]])
    cases = [np.array([1.0, -3.0, 2.0]), np.array([1.0, 0.0, 1.0])] if fn is np.roots else [sym, rot]
    for a in cases * 3:
        got, want = jitted(a), fn(a)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        if fn is np.roots:
            np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), atol=1e-12)


def test_the_dtype_the_data_chose_holds_on_every_later_call():
    """eigvals is real where every eigenvalue is (NumPy's w.real): the cached call's short path
    (dispatch.Executable.call_flat) returned the held complex array from the second call on,
    unconverted (found in session 51)."""
    jf = jc.jit(lambda a: np.linalg.eigvals(a))
    rotation, diagonal = np.array([[0.0, -1.0], [1.0, 0.0]]), np.diag([1.0, 2.0])
    for a in (rotation, diagonal, diagonal, rotation, diagonal):
        got, want = jf(a), np.linalg.eigvals(a)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want)
