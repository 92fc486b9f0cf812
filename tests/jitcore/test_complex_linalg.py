"""numpy.linalg on complex64 and complex128 stacks under jit, against NumPy.

The complex LU (det, slogdet, solve, inv), Cholesky and Householder QR run in complex arithmetic
in their kernels and agree with LAPACK's ``z``/``c`` routines to rounding, conventions included
(R's diagonal real, with geqrf's signs, so Q and R are compared entry by entry; the determinant's
phase). pinv and lstsq go through the real form ``[[Re a, -Im a], [Im a, Re a]]``; svdvals, the
2-norms, cond and matrix_rank through the complex bidiagonalisation, eigvalsh the complex
tridiagonalisation (their vectors: test_complex_spectral.py).

Tolerances: backward-stable results (factors, singular values, eigenvalues) within
``C n eps ||A||``; solutions (solve, inv, pinv, lstsq, det's relative error) within
``C n eps cond(A)`` of NumPy's, cond(A) set by the drawn singular values (up to 1e3 here). Each
test is one compile per dtype (every function on the same stacks, so the SVDs are shared).
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

COMPLEX = [np.dtype(np.complex128), np.dtype(np.complex64)]


def _unitary(rng, *shape):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return np.linalg.qr(z)[0]


def _conditioned(rng, batch, m, n, cond, dtype):
    """A complex stack (batch, m, n) with singular values spread from 1 to 1/cond."""
    k = min(m, n)
    s = np.logspace(0, -np.log10(cond), k)
    a = (_unitary(rng, *batch, m, m)[..., :, :k] * s) @ _unitary(rng, *batch, n, n)[..., :k, :]
    return a.astype(dtype)


def _eps(dtype) -> float:
    return float(np.finfo(dtype).eps)


def _close(got, want, bound, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype,
                                                               want.dtype)
    err = np.max(np.abs(got.astype(np.complex128) - want), initial=0)
    assert err <= bound, f"{what}: max error {err:.3g} beyond {bound:.3g}"


def _everything(a, b, sq, h, tall, rhs, through_svd=True):
    """Every complex linalg function jitcore compiles, on a few stacks (one compile); those
    through an SVD or eigh (``through_svd``) cost the most to compile."""
    lin = np.linalg
    out = {
        "det": lin.det(sq), "slogdet": lin.slogdet(sq), "solve": lin.solve(sq, b),
        "solve_vector": lin.solve(sq[0], b[0, :, 0]), "solve_broadcast": lin.solve(sq, b[0]),
        "inv": lin.inv(sq), "cholesky": lin.cholesky(h), "cholesky_upper": lin.cholesky(h, upper=True),
        "qr": lin.qr(a), "qr_complete": lin.qr(a, "complete"), "qr_r": lin.qr(sq, "r"),
        "fro": lin.norm(a), "cond1": lin.cond(sq, 1), "power": lin.matrix_power(sq, 3),
        "power_neg": lin.matrix_power(sq, -2), "svdvals": lin.svd(a, compute_uv=False),
        "norm2": lin.norm(a, 2, axis=(-2, -1)), "nuc": lin.norm(a, "nuc", axis=(-2, -1)),
        "rank": lin.matrix_rank(a),
    }
    if through_svd:
        # (cond's 2-norm and eigvalsh's upper triangle take the same paths again: left out, as
        # each is seconds of compile)
        out.update({"eigvalsh": lin.eigvalsh(h), "pinv": lin.pinv(tall), "lstsq": lin.lstsq(tall, rhs)})
    return out


# which results are solutions (error scales with cond), which backward-stable values
_SOLUTIONS = {"solve", "solve_vector", "solve_broadcast", "inv", "pinv", "lstsq", "power_neg", "cond1"}


@pytest.mark.parametrize("dtype", COMPLEX, ids=str)
def test_complex_linalg_matches_numpy(dtype):
    """complex64 skips the SVDs with vectors and eigh (their code is complex128's; each costs
    seconds to compile)."""
    rng = np.random.default_rng(32)
    cond = 1e3 if dtype == np.complex128 else 30.0
    a = _conditioned(rng, (2,), 5, 3, cond, dtype)
    sq = _conditioned(rng, (2,), 4, 4, cond, dtype)
    b = (rng.standard_normal((2, 4, 2)) + 1j * rng.standard_normal((2, 4, 2))).astype(dtype)
    g = _conditioned(rng, (2,), 4, 4, 10.0, dtype)
    h = g @ np.conj(np.swapaxes(g, -1, -2))  # Hermitian positive definite
    h[..., 1, 1] += 0.5j  # an imaginary diagonal part LAPACK ignores
    tall = _conditioned(rng, (), 6, 3, cond, dtype)
    rhs = (rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))).astype(dtype)
    args = (a, b, sq, h, tall, rhs, dtype == np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileTimeWarning)
        got = jc.jit(_everything, static_argnums=6)(*args)
    want = _everything(*args)
    eps = _eps(dtype)
    for name, w in want.items():
        gs, ws = (got[name], w) if isinstance(w, tuple) else ((got[name],), (w,))
        for k, (x, y) in enumerate(zip(gs, ws)):
            scale = max(1.0, float(np.max(np.abs(y), initial=0)))
            bound = 64 * 6 * eps * scale * (cond if name in _SOLUTIONS else 1)
            if name == "lstsq" and k == 2:  # the rank
                assert x == y and np.asarray(x).dtype == np.asarray(y).dtype
                continue
            _close(x, y, bound, f"{name}[{k}]")
    assert got["rank"].tolist() == [3, 3]


def test_complex_determinant_phase_and_special_matrices():
    """The determinant's phase (a permutation, a diagonal of unit phases), singular matrices
    (det 0, slogdet (0, -inf), solve raises), NaN entries (NaN out, as NumPy), empty stacks."""
    rot = np.array([[0, 1j], [1, 0]])  # det -1j
    phases = np.diag(np.exp(1j * np.array([0.3, 1.1, -2.0])))
    singular = np.array([[1 + 1j, 2 - 1j], [2 + 2j, 4 - 2j]])
    nan = np.array([[1, np.nan + 1j], [1j, 2]])
    empty = np.zeros((2, 0, 0), complex)
    f = jc.jit(lambda r, p, s, n, e: (np.linalg.det(r), np.linalg.det(p), np.linalg.det(s),
                                      np.linalg.slogdet(s), np.linalg.det(n), np.linalg.solve(n, n),
                                      np.linalg.det(e), np.linalg.inv(e), np.linalg.qr(e[0])))
    got = f(rot, phases, singular, nan, empty)
    assert got[0] == -1j
    np.testing.assert_allclose(got[1], np.linalg.det(phases), rtol=4 * _eps(float))
    assert got[2] == 0 and got[3].sign == 0 and got[3].logabsdet == -np.inf
    assert np.isnan(got[4]) and np.isnan(np.linalg.det(nan))
    assert np.isnan(got[5]).any() and np.isnan(np.linalg.solve(nan, nan)).any()
    np.testing.assert_array_equal(got[6], np.linalg.det(empty))
    assert got[7].shape == (2, 0, 0) and got[7].dtype == complex
    assert got[8].Q.shape == got[8].R.shape == (0, 0)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jc.jit(np.linalg.solve)(singular, np.ones(2, complex))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        jc.jit(np.linalg.cholesky)(np.array([[1, 2j], [-2j, 1]]))
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        jc.jit(lambda x: np.linalg.norm(x, 2))(nan)
