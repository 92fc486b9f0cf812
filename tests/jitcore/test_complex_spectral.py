"""Eigen- and singular vectors of complex matrices under jit, against NumPy.

Eigenvectors and singular vectors are fixed only up to a unit phase each (and within a repeated
value up to a unitary mix), so they are tested by their invariants: ``A V = V diag(w)`` and
``V^H V = I`` for eigh, ``U diag(s) Vh = A`` and unitary U, Vh for svd. Backward-stable
results are within ``C n eps ||A||`` of the truth: eigenvalues of a Hermitian matrix and
singular values to that absolutely (Weyl), so they are compared with NumPy's directly; the
residuals and the orthogonality too, whatever the gaps between the values (repeated ones
included). One compile per test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import lapack
from jitcore.errors import CompileTimeWarning


@pytest.fixture(autouse=True, scope="module")
def compiled_algorithms():
    """These test jitcore's own decompositions: the code that runs where NumPy's LAPACK is not
    called (no library, ``JITCORE_BLAS=none``); tests/codegen/test_lapack_51.py tests the calls."""
    lapack.ENABLED = False
    yield
    lapack.ENABLED = True


def _unitary(rng, *shape):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return np.linalg.qr(z)[0]


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _bound(a, dtype, factor=64):
    """C n eps ||A||: what a backward-stable result may be off by."""
    n = max(a.shape[-1], 1)
    return factor * n * float(np.finfo(dtype).eps) * max(1.0, float(np.max(np.abs(a), initial=0)))


def _check_eigh(a, w, v, w_want, dtype):
    """Ascending real eigenvalues as NumPy's, unit orthogonal eigenvectors of the Hermitian
    matrix of ``a``'s lower triangle (its diagonal's imaginary parts ignored, as LAPACK)."""
    assert w.dtype == w_want.dtype and v.dtype == dtype and v.shape == a.shape
    diagonal = np.real(np.diagonal(a, 0, -2, -1))[..., None] * np.eye(a.shape[-1])
    herm = np.tril(a, -1) + _h(np.tril(a, -1)) + diagonal
    bound = _bound(a, dtype)
    assert np.max(np.abs(w - w_want), initial=0) <= bound
    assert (np.diff(w, axis=-1) >= 0).all()
    assert np.max(np.abs(herm @ v - v * w[..., None, :]), initial=0) <= bound
    eye = np.eye(a.shape[-1])
    assert np.max(np.abs(_h(v) @ v - eye), initial=0) <= _bound(eye, dtype)


def _hermitian_batch(rng, n=6):
    """Hermitian matrices: random, one with eigenvalues repeated (1, 1, 1, 2, 2, 5: the case
    the real form's doubled eigenvalues could not give orthogonal vectors for), a diagonal
    one, one with an imaginary diagonal part LAPACK ignores; garbage in the upper triangle,
    which is not read."""
    g = rng.standard_normal((4, n, n)) + 1j * rng.standard_normal((4, n, n))
    h = g + _h(g)
    q = _unitary(rng, n, n)
    h[1] = (q * np.array([1.0, 1, 1, 2, 2, 5])) @ _h(q)
    h[2] = np.diag(np.cos(np.arange(n)))
    h[3, 2, 2] += 0.25j
    return h + np.triu(np.full((n, n), 7 - 3j), 1)


def test_complex_eigh_invariants():
    """complex128: eigh of the lower triangle, eigvalsh of the upper one (UPLO='U'); a 1x1 and a
    0x0 stack."""
    lower = _hermitian_batch(np.random.default_rng(33))
    dtype = np.dtype(np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        f = jc.jit(lambda lo, up: (np.linalg.eigh(lo), np.linalg.eigvalsh(up, UPLO="U")), cache=False)
        (w, v), wv = f(lower, _h(lower))
        g = jc.jit(np.linalg.eigh, cache=False)
        (w1, v1), (w0, v0) = g(np.array([[[2.0 + 0.5j]]])), g(np.zeros((2, 0, 0), complex))
    w_want = np.linalg.eigvalsh(lower)
    _check_eigh(lower, w, v, w_want, dtype)
    assert np.max(np.abs(wv - w_want)) <= _bound(lower, dtype) and wv.dtype == w_want.dtype
    assert w1.tolist() == [[2.0]] and v1.tolist() == [[[1.0]]]
    assert w0.shape == (2, 0) and v0.shape == (2, 0, 0) and v0.dtype == dtype


def _check_svd(a, u, s, vh, dtype, full):
    """Descending singular values as NumPy's, unitary U and Vh (their first k columns and rows
    when not ``full``), and U diag(s) Vh = A."""
    m, n = a.shape[-2:]
    k = min(m, n)
    s_want = np.linalg.svd(a, compute_uv=False)
    assert s.dtype == s_want.dtype and u.dtype == vh.dtype == dtype
    assert u.shape[-2:] == ((m, m) if full else (m, k)) and vh.shape[-2:] == ((n, n) if full else (k, n))
    bound = _bound(a, dtype)
    assert np.max(np.abs(s - s_want), initial=0) <= bound
    assert np.max(np.abs((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :] - a), initial=0) <= bound
    for q in (_h(u) @ u, vh @ _h(vh)):
        eye = np.eye(q.shape[-1])
        assert np.max(np.abs(q - eye), initial=0) <= _bound(eye, dtype)


def _svd_batch(rng):
    """Tall matrices: random, one of rank 2 with a repeated singular value (3, 3, 0, 0), one
    whose columns are unit phases times each other (rank 1)."""
    tall = rng.standard_normal((3, 6, 4)) + 1j * rng.standard_normal((3, 6, 4))
    tall[1] = (_unitary(rng, 6, 6)[:, :4] * np.array([3.0, 3, 0, 0])) @ _unitary(rng, 4, 4)
    tall[2] = np.exp(1j * np.arange(6))[:, None] * np.exp(-1j * np.arange(4))
    return tall


def test_complex_svd_invariants():
    """complex128: tall stacks with full U, wide ones (through A^H) reduced."""
    tall = _svd_batch(np.random.default_rng(34))
    wide = _h(tall[:2, :5, :])  # 4 x 5
    dtype = np.dtype(np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        f = jc.jit(lambda t, w: (np.linalg.svd(t), np.linalg.svd(w, full_matrices=False)), cache=False)
        (u, s, vh), (uw, sw, vhw) = f(tall, wide)
    _check_svd(tall, u, s, vh, dtype, True)
    _check_svd(wide, uw, sw, vhw, dtype, False)


def _matched(got, want):
    """``got`` reordered to pair each of ``want``'s values with the nearest one left (NumPy
    gives eigenvalues in no specified order)."""
    left, order = list(range(len(got))), []
    for value in want:
        best = min(left, key=lambda j: abs(got[j] - value))
        order.append(best)
        left.remove(best)
    return np.array(order, dtype=int)


def _check_eig(a, w, v, wv, dtype):
    """Per matrix: eigenvalues (of eig and eigvals) as NumPy's as multisets, within C n eps
    ||A|| times the eigenvector matrix's condition number; ``A v = w v`` within C n eps ||A||
    (backward stable); unit vectors with their largest component real (``zgeev``'s rule);
    the vectors of a simple eigenvalue NumPy's within that bound over the eigenvalue's gap."""
    assert w.dtype == wv.dtype == v.dtype == dtype
    for x, wx, vx, wvx in zip(a, w, v, wv):
        w_np, v_np = np.linalg.eig(x.astype(np.complex128))
        bound = _bound(x, dtype)
        kappa = np.linalg.cond(v_np)
        for got in (wx, wvx):
            assert np.max(np.abs(got[_matched(got, w_np)] - w_np)) <= bound * kappa
        assert np.max(np.abs(x @ vx - vx * wx)) <= bound
        assert np.max(np.abs(np.linalg.norm(vx, axis=0) - 1)) <= _bound(np.eye(1), dtype)
        top = np.argmax(np.abs(vx), axis=0)
        assert (vx[top, np.arange(len(top))].imag == 0).all()
        order = _matched(wx, w_np)
        gaps = np.array([np.min(np.abs(np.delete(w_np, k) - w_np[k]), initial=np.inf)
                         for k in range(len(w_np))])
        simple = gaps > 1e-3 * max(1.0, np.max(np.abs(x)))
        err = np.max(np.abs(vx[:, order] - v_np), axis=0)
        assert (err[simple] <= bound * kappa / gaps[simple]).all()


def _general_batch(rng, n=6):
    """Random, known eigenvalues (1, 2i, -1, -1+1e-1j, 3, 0.5) under a random similarity, a real
    matrix (eigenvalues in conjugate pairs), a Hermitian one, an upper triangular one
    (converged from the start) and a zero matrix."""
    a = rng.standard_normal((6, n, n)) + 1j * rng.standard_normal((6, n, n))
    s = _unitary(rng, n, n) + 0.3 * np.eye(n)
    a[1] = s @ np.diag([1, 2j, -1, -1 + 0.1j, 3, 0.5]) @ np.linalg.inv(s)
    a[2] = a[2].real
    a[3] = a[3] + _h(a[3])
    a[4] = np.triu(a[4])
    a[5] = 0
    return a


def test_complex_eig_invariants():
    """complex128: eig and eigvals; a NaN input raises as NumPy's."""
    a = _general_batch(np.random.default_rng(35))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        f = jc.jit(lambda x: (np.linalg.eig(x), np.linalg.eigvals(x)), cache=False)
        (w, v), wv = f(a)
        nan = a.copy()
        nan[3, 1, 2] = np.nan
        with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
            f(nan)
    _check_eig(a, w, v, wv, np.dtype(np.complex128))


def test_complex64_eigh_svd_eig():
    """complex64 (single precision's eps, tiny and scaling in the kernels): eigh, svd and eig
    of the same batches, one compile."""
    rng = np.random.default_rng(36)
    dtype = np.dtype(np.complex64)
    h, t, a = (x.astype(dtype) for x in (_hermitian_batch(rng), _svd_batch(rng), _general_batch(rng)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        f = jc.jit(lambda h, t, a: (np.linalg.eigh(h), np.linalg.svd(t), np.linalg.eig(a)), cache=False)
        (w, v), (u, s, vh), (ew, ev) = f(h, t, a)
    _check_eigh(h, w, v, np.linalg.eigvalsh(h), dtype)
    _check_svd(t, u, s, vh, dtype, True)
    _check_eig(a, ew, ev, ew, dtype)


def test_roots_of_complex_coefficients():
    """np.roots of complex coefficients: the eigenvalues of the complex companion matrix, as
    NumPy's (a multiset), within C n eps ||C|| times its eigenvector matrix's condition number."""
    p = np.poly([1 + 1j, -2, 0.5j, 3, -1 - 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        got = jc.jit(np.roots, cache=False)(p)
    want = np.roots(p)
    companion = np.diag(np.ones(4, complex), -1)
    companion[0] = -p[1:] / p[0]
    bound = _bound(companion, np.complex128) * np.linalg.cond(np.linalg.eig(companion)[1])
    assert got.dtype == want.dtype == np.complex128
    assert np.max(np.abs(got[_matched(got, want)] - want)) <= bound
