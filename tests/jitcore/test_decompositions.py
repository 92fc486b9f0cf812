"""numpy.linalg's decompositions under jit against NumPy: cholesky, slogdet, qr, eigh, eigvalsh,
svd, svdvals, and lstsq, pinv, matrix_rank, cond, norm (ord 2, -2, 'nuc') and multi_dot on top.

Where the result is unique (cholesky, slogdet, eigenvalues, singular values, pinv, a full-rank
lstsq, Q and R with LAPACK's sign convention) it is compared with NumPy's within a backward
error bound: ``C * n * eps * ||A||`` (relative to the matrix, not to each entry, as LAPACK
promises). Eigenvectors and singular vectors are fixed only up to sign, so those are checked
by their defining properties (A V = V diag(w), U S Vh = A, orthonormal columns) and against
NumPy's up to sign where the values are well separated. Every compile costs a few tenths of a
second, so the hypothesis tests draw few examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore import ir
from jitcore.codegen.cpu import lapack
from jitcore.ir.errors import VerificationError
from jitcore.numpy.decompositions import _chain_order
from tests.budget import examples


@pytest.fixture(autouse=True, scope="module")
def compiled_algorithms():
    """These test jitcore's own decompositions: the code that runs where NumPy's LAPACK is not
    called (no library, ``JITCORE_BLAS=none``); tests/codegen/test_lapack_51.py tests the calls."""
    lapack.ENABLED = False
    yield
    lapack.ENABLED = True

FEW = settings(max_examples=examples(10, ci=6), deadline=None)
FLOATS = [np.dtype(np.float64), np.dtype(np.float32)]


def _eps(dtype) -> float:
    return float(np.finfo(dtype).eps)


def _scale(a) -> np.ndarray:
    """||A||_F per matrix, at least 1 (for an absolute error bound), broadcastable over a
    result of the batch shape plus ``trailing`` dims."""
    return np.maximum(np.sqrt(np.sum(np.square(a.astype(np.float64)), axis=(-2, -1))), 1)


def _close(got, want, a, factor=32):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    n = max(a.shape[-2:] + (1,))
    bound = factor * n * _eps(want.dtype) * _scale(a)
    bound = bound.reshape(bound.shape + (1,) * (want.ndim - bound.ndim))
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert (err <= bound).all(), f"max error {err.max(initial=0)} beyond {bound.max(initial=0)}"


@st.composite
def matrices(draw, square=False, max_side=5):
    """A float32/float64 stack with batch dims (maybe none), sides 0..max_side, and a
    conditioning knob: singular values spread over up to 6 decades."""
    dtype = draw(st.sampled_from(FLOATS))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=2))
    m = draw(st.integers(0, max_side))
    n = m if square else draw(st.integers(0, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    decades = draw(st.sampled_from([0, 2, 6])) if dtype == np.float64 else draw(st.sampled_from([0, 2]))
    k = min(m, n)
    u = np.linalg.qr(rng.standard_normal((*batch, m, m)))[0]
    v = np.linalg.qr(rng.standard_normal((*batch, n, n)))[0]
    s = np.logspace(0, -decades, k) * draw(st.sampled_from([1.0, 1e3]))
    a = (u[..., :, :k] * s[..., None, :]) @ v[..., :k, :] if k else np.zeros((*batch, m, n))
    return a.astype(dtype)


def _spd(a):
    """A symmetric positive definite stack from a square one."""
    n = a.shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=a.dtype)).astype(a.dtype)


# -- cholesky, slogdet ---------------------------------------------------------------------
@FEW
@given(a=matrices(square=True))
def test_cholesky_matches_numpy(a):
    spd = _spd(a)
    garbage = spd + np.triu(np.full(spd.shape, 7.0, spd.dtype), 1)  # the upper triangle is not read
    _close(jc.jit(lambda x: np.linalg.cholesky(x))(garbage), np.linalg.cholesky(spd), spd)
    _close(jc.jit(lambda x: np.linalg.cholesky(x, upper=True))(spd), np.linalg.cholesky(spd, upper=True), spd)


def test_cholesky_of_a_matrix_not_positive_definite_raises():
    f = jc.jit(lambda x: np.linalg.cholesky(x))
    ok = np.eye(2)
    for bad in (np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([[0.0, 0.0], [0.0, 1.0]])):
        with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
            np.linalg.cholesky(bad)
        with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
            f(np.stack([ok, bad]))
    np.testing.assert_array_equal(f(np.stack([ok, 4 * ok])), np.stack([ok, 2 * ok]))  # same code, fine
    nan = np.array([[4.0, np.nan], [np.nan, 4.0]])  # NaN runs through, as in NumPy
    np.testing.assert_array_equal(f(nan), np.linalg.cholesky(nan))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        f(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        f(np.ones(3))


@FEW
@given(a=matrices(square=True))
def test_slogdet_matches_numpy(a):
    if a.shape[-1] > 1:
        a[..., 0, :] *= 0.0 if a.size % 3 == 0 else 1.0  # sometimes singular
    sign, logdet = jc.jit(lambda x: np.linalg.slogdet(x))(a)
    want = np.linalg.slogdet(a)
    assert sign.dtype == want.sign.dtype and np.shape(sign) == np.shape(want.sign)
    np.testing.assert_array_equal(sign, want.sign)
    finite = np.isfinite(want.logabsdet)
    np.testing.assert_array_equal(np.asarray(logdet)[~finite], want.logabsdet[~finite])
    n = max(a.shape[-1], 1)
    np.testing.assert_allclose(np.asarray(logdet)[finite], want.logabsdet[finite], rtol=0,
                               atol=64 * n * _eps(a.dtype) * 1e6)  # log of a condition up to 1e6


def test_slogdet_returns_numpys_named_tuple_of_scalars():
    got = jc.jit(lambda x: np.linalg.slogdet(x))(np.array([[0.0, 2.0], [3.0, 0.0]]))
    assert type(got) is type(np.linalg.slogdet(np.eye(2)))
    assert got.sign == -1.0 and isinstance(got.sign, np.float64)
    np.testing.assert_allclose(got.logabsdet, np.log(6.0), rtol=1e-15)


# -- qr ------------------------------------------------------------------------------------
@FEW
@given(a=matrices(), mode=st.sampled_from(["reduced", "complete", "r"]))
def test_qr_matches_numpy_with_lapacks_signs(a, mode):
    got = jc.jit(lambda x: np.linalg.qr(x, mode))(a)
    want = np.linalg.qr(a, mode)
    if mode == "r":
        _close(got, want, a)
        return
    q, r = got
    assert type(got) is type(want)
    _close(q, want.Q, a * 0 + 1)  # Q's entries are O(1)
    _close(r, want.R, a)
    _close(q @ r, a, a)
    eye = np.eye(q.shape[-1], dtype=q.dtype)
    _close(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(eye, q.shape[:-2] + eye.shape), a * 0 + 1)
    assert (np.tril(r, -1) == 0).all()


def test_blocked_qr_matches_numpy(monkeypatch):
    """qr in panels (passes/kernelize/decompose.py, ``_blocked_qr``): panels of 4 reflectors
    from min(m, n) = 8 on, so these take several panels and a narrower last one: tall with
    Q complete (columns past the reflectors), a batch of wide float32; one compile."""
    from jitcore.passes.kernelize import decompose

    monkeypatch.setattr(decompose, "BLOCKED_FROM", 8)
    monkeypatch.setattr(decompose, "BLOCK", 4)
    rng = np.random.default_rng(4)
    tall, wide = rng.standard_normal((13, 11)), rng.standard_normal((2, 10, 14)).astype(np.float32)
    got = jc.jit(lambda t, w: (np.linalg.qr(t, "complete"), np.linalg.qr(w)), cache=False)(tall, wide)
    for (q, r), (a, mode) in zip(got, ((tall, "complete"), (wide, "reduced"))):
        want = np.linalg.qr(a, mode)
        _close(q, want.Q, a * 0 + 1)
        _close(r, want.R, a)


def test_qr_modes_and_errors():
    a = np.arange(12.0).reshape(4, 3)
    with pytest.raises(jc.UnsupportedError, match="raw"):
        jc.jit(lambda x: np.linalg.qr(x, "raw"))(a)
    with pytest.raises(ValueError, match="Unrecognized mode"):
        jc.jit(lambda x: np.linalg.qr(x, "full!"))(a)
    got = jc.jit(lambda x: np.linalg.qr(x))(a.astype(np.int32))  # integers in float64, as NumPy
    assert got.Q.dtype == np.float64
    with pytest.raises(TypeError, match="float16"):
        jc.jit(lambda x: np.linalg.qr(x))(a.astype(np.float16))


# -- eigh ----------------------------------------------------------------------------------
def _check_eigh(a, w, v, w_want):
    _close(w, w_want, a, factor=64)
    n = a.shape[-1]
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    _close(sym @ v, v * w[..., None, :], a, factor=64)
    eye = np.broadcast_to(np.eye(n, dtype=v.dtype), v.shape)
    _close(np.swapaxes(v, -1, -2) @ v, eye, a * 0 + 1, factor=64)
    assert (np.diff(w, axis=-1) >= 0).all()


@FEW
@given(a=matrices(square=True))
def test_eigh_and_eigvalsh_match_numpy(a):
    garbage = a + np.triu(np.full(a.shape, 5.0, a.dtype), 1)  # only the lower triangle is read
    w, v = jc.jit(lambda x: np.linalg.eigh(x))(garbage)
    w_want, v_want = np.linalg.eigh(garbage)
    _check_eigh(garbage, w, v, w_want)
    _close(jc.jit(lambda x: np.linalg.eigvalsh(x))(garbage), w_want, garbage, factor=64)
    upper = np.swapaxes(garbage, -1, -2)
    _close(jc.jit(lambda x: np.linalg.eigvalsh(x, UPLO="U"))(upper), w_want, garbage, factor=64)
    # vectors of well separated eigenvalues agree with NumPy's up to sign
    if a.shape[-1] and a.dtype == np.float64:
        gaps = np.diff(w_want, axis=-1, prepend=-np.inf, append=np.inf)
        separated = np.minimum(gaps[..., :-1], gaps[..., 1:]) > 1e-3 * _scale(a)[..., None]
        signs = np.sign(np.sum(v * v_want, axis=-2, keepdims=True))
        err = np.abs(v * signs - v_want).max(axis=-2)
        assert (err[separated] < 1e-8).all()


def test_eigh_of_special_matrices():
    f = jc.jit(lambda x: np.linalg.eigh(x))
    result = f(np.diag([3.0, 1.0, 2.0]))
    assert type(result) is type(np.linalg.eigh(np.eye(2)))
    np.testing.assert_array_equal(result.eigenvalues, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.abs(result.eigenvectors), np.eye(3)[:, [1, 2, 0]])
    hilbert = 1 / (np.arange(8)[:, None] + np.arange(8) + 1.0)  # condition 1e10
    w, v = f(hilbert)
    _check_eigh(hilbert, w, v, np.linalg.eigvalsh(hilbert))
    # tridiagonal already (Wilkinson's, close pairs of eigenvalues), and clustered eigenvalues
    wilkinson = np.diag(np.abs(np.arange(8) - 3.5)) + np.eye(8, k=1) + np.eye(8, k=-1)
    q = np.linalg.qr(np.random.default_rng(9).standard_normal((8, 8)))[0]
    clustered = (q * [1.0, 1, 1, 1, 2, 2, 2, 3]) @ q.T
    for a in (wilkinson, clustered, -1e-300 * clustered, 1e300 * clustered):
        w, v = f(a)
        _check_eigh(a, w, v, np.linalg.eigvalsh(a))
    repeated = np.ones((4, 4))  # eigenvalue 0 three times
    w, v = f(repeated)
    _check_eigh(repeated, w, v, np.linalg.eigvalsh(repeated))
    zeros = f(np.zeros((3, 3)))
    np.testing.assert_array_equal(zeros.eigenvalues, 0.0)
    np.testing.assert_array_equal(zeros.eigenvectors, np.eye(3))
    w, _ = f(np.full((2, 2), np.nan))  # NaN in, NaN out, no hang
    assert np.isnan(w).all()


# -- svd -----------------------------------------------------------------------------------
@FEW
@given(a=matrices(), full=st.booleans())
def test_svd_matches_numpy(a, full):
    u, s, vh = jc.jit(lambda x: np.linalg.svd(x, full_matrices=full))(a)
    want = np.linalg.svd(a, full_matrices=full)
    assert u.shape == want.U.shape and vh.shape == want.Vh.shape
    _close(s, want.S, a)
    k = s.shape[-1]
    _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, a)
    for x in (u, np.swapaxes(vh, -1, -2)):
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape[:-2] + (x.shape[-1],) * 2)
        _close(np.swapaxes(x, -1, -2) @ x, eye, a * 0 + 1)
    assert (np.diff(s, axis=-1) <= 0).all()
    _close(jc.jit(lambda x: np.linalg.svd(x, compute_uv=False))(a), want.S, a)
    _close(jc.jit(lambda x: np.linalg.svdvals(x))(a), want.S, a)


def test_svd_of_rank_deficient_matrices_completes_the_basis():
    f = jc.jit(lambda x: np.linalg.svd(x))
    for a in (np.zeros((3, 2)), np.zeros((2, 4)), np.outer([1.0, 2, 3, 4], [1.0, -1, 2]),
              np.array([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])):
        u, s, vh = f(a)
        _close(s, np.linalg.svd(a, compute_uv=False), a)
        _close((u[:, :len(s)] * s) @ vh[:len(s)], a, a)
        _close(u.T @ u, np.eye(len(u)), a * 0 + 1)
        _close(vh @ vh.T, np.eye(len(vh)), a * 0 + 1)
    hilbert = 1 / (np.arange(7)[:, None] + np.arange(5) + 1.0)
    _close(f(hilbert).S, np.linalg.svd(hilbert, compute_uv=False), hilbert)
    assert type(f(hilbert)) is type(np.linalg.svd(hilbert))
    for bad in (np.nan, np.inf):  # as NumPy's LAPACK: raises, never hangs
        with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
            f(np.array([[1.0, bad], [0.0, 1.0], [2.0, 0.0]]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_svd_and_eigh_of_larger_structured_matrices(dtype):
    """Sides past the vector loops' widths and remainders, through svd's one-pass
    bidiagonalisation (a row reflector pending from one step to the next; zero reflectors
    mid-way) and eigh's lower-triangle tridiagonalisation, as stacks: one kernel each."""
    rng = np.random.default_rng(31)
    q = [np.linalg.qr(rng.standard_normal((k, k)))[0] for k in (37, 23, 33)]
    graded = (q[0][:, :23] * np.logspace(0, -6 if dtype == np.float64 else -3, 23)) @ q[1]
    bidiagonal = np.zeros((37, 23))  # its row and column reflectors all zero
    bidiagonal[np.arange(23), np.arange(23)] = rng.standard_normal(23)
    bidiagonal[np.arange(22), np.arange(1, 23)] = rng.standard_normal(22)
    holes = rng.standard_normal((37, 23))
    holes[:, [0, 5, 6]] = 0.0  # zero columns: zero column reflectors, then rows the same
    holes[[3, 20], :] = 0.0
    a = np.stack([graded, bidiagonal, holes, np.outer(rng.standard_normal(37), rng.standard_normal(23))])
    repeated = (q[2] * np.repeat([-2.0, 0.0, 1.0, 1.0 + 1e-9], [9, 8, 8, 8])) @ q[2].T
    sym = np.stack([repeated, (q[2] * np.logspace(0, -12, 33)) @ q[2].T, rng.standard_normal((33, 33))])
    sym = (sym + np.swapaxes(sym, -1, -2)) / 2
    a, sym = a.astype(dtype), sym.astype(dtype)
    both = jc.jit(lambda a, sym: (np.linalg.svd(a, full_matrices=False), np.linalg.eigh(sym)))
    (u, s, vh), (w, v) = both(a, sym)
    _close(s, np.linalg.svd(a, compute_uv=False), a)
    _close((u * s[..., None, :]) @ vh, a, a)
    for x in (u, np.swapaxes(vh, -1, -2)):
        _close(np.swapaxes(x, -1, -2) @ x, np.broadcast_to(np.eye(23, dtype=dtype), (4, 23, 23)), a * 0 + 1)
    _check_eigh(sym, w, v, np.linalg.eigvalsh(sym))


def test_dot_products_are_marked_reorderable_and_nothing_else():
    """The reductions' dot products carry ``fastmath = "reassoc"`` (so LLVM vectorizes them,
    decompose._dot); the code generator marks exactly those additions, the rest stay IEEE."""
    lowered = jc.jit(lambda a: np.linalg.eigvalsh(a), cache=False).lower(np.ones((4, 4)))
    marked = lowered.as_text("optimized").count('{fastmath = "reassoc"}')
    llvm = lowered.as_text("llvm")
    assert marked >= 1
    assert llvm.count("fadd reassoc") == marked
    assert " fadd double" in llvm


def test_vector_updates_logged_in_small_batches_and_strips(monkeypatch):
    """eigh's, svd's and eig's updates of their vectors wait in logs applied a strip of
    columns at a time (passes/kernelize/decompose.py, ``_RowLog``): logs of about one sweep
    and 16-column strips (many flushes, two strips per row) give the same answers."""
    from jitcore.passes.kernelize import bidiagonal, decompose, nonsymmetric, spectral

    monkeypatch.setattr(decompose._RowLog, "STRIP_BYTES", 1)
    for module, name in ((spectral, "LOG_SWEEPS"), (bidiagonal, "LOG_TURNS"), (nonsymmetric, "LOG_STEPS")):
        monkeypatch.setattr(module, name, 1)
    rng = np.random.default_rng(12)
    a, g = rng.standard_normal((24, 20)), rng.standard_normal((24, 24))
    sym = g + g.T
    f = jc.jit(lambda a, sym, g: (np.linalg.eigh(sym), np.linalg.svd(a), np.linalg.eig(g)), cache=False)
    (w, v), (u, s, vh), (ew, ev) = f(a, sym, g)
    _check_eigh(sym, w, v, np.linalg.eigvalsh(sym))
    _close(s, np.linalg.svd(a, compute_uv=False), a)
    _close((u[:, :20] * s) @ vh, a, a)
    _close(u.T @ u, np.eye(24), a * 0 + 1)
    _close(vh @ vh.T, np.eye(20), a * 0 + 1)
    for part in (np.real, np.imag):  # (complex results)
        _close(part(np.sort_complex(ew)), part(np.sort_complex(np.linalg.eigvals(g))), g, factor=64)
        _close(part(g @ ev), part(ev * ew), g, factor=64)
    _close(np.linalg.norm(ev, axis=0), np.ones(24), g)


# -- on top of the SVD ---------------------------------------------------------------------
def test_lstsq_matches_numpy():
    """Through the SVD (small ``a``): full rank (tall: a vector b, wide: a matrix b) and
    rank-deficient (the same compile as the first: only the data differ)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 4))
    f = jc.jit(lambda a, b: np.linalg.lstsq(a, b))
    b = rng.standard_normal(6)
    x, resids, rank, s = f(a, b)
    want = np.linalg.lstsq(a, b)
    for got, expected in zip((x, resids, s), (want[0], want[1], want[3])):
        _close(got, expected, a)
    assert rank == want[2] == 4 and np.asarray(rank).dtype == np.int32
    b = rng.standard_normal((4, 2))
    wide, want = f(a.T, b), np.linalg.lstsq(a.T, b)
    for i in (0, 1, 3):  # x, the residuals (none: m < n), s
        _close(wide[i], want[i], a)
    deficient = a @ np.diag([1.0, 1.0, 0.0, 1.0])  # the minimum-norm solution, rank 3
    b = rng.standard_normal(6)
    got, want = f(deficient, b), np.linalg.lstsq(deficient, b)
    _close(got[0], want[0], deficient, factor=256)
    _close(got[3], want[3], deficient)
    assert got[2] == want[2] == 3
    wide_deficient = np.diag([1.0, 2.0, 3.0, 4.0]) @ deficient.T  # wide, rank 3
    b = rng.standard_normal((4, 2))
    got, want = f(wide_deficient, b), np.linalg.lstsq(wide_deficient, b)
    _close(got[0], want[0], wide_deficient, factor=256)
    assert got[2] == want[2] == 3
    x, *_ = jc.jit(lambda a, b: np.linalg.lstsq(a, b, rcond=0.5))(np.diag([1.0, 0.1]), np.ones(2))
    np.testing.assert_array_equal(x, [1.0, 0.0])  # 0.1 is below the cutoff


def test_lstsq_through_qr_matches_numpy(monkeypatch):
    """A tall or square ``a`` from ``LSTSQ_QR_FROM`` columns on: R of the QR of [a | b] and a
    triangular solve at full rank, R's SVD when rank-deficient (a run-time branch: the same
    compile), a matrix b (residuals per column); the blocked QR (4-column panels)."""
    from jitcore.numpy import decompositions
    from jitcore.passes.kernelize import decompose

    monkeypatch.setattr(decompositions, "LSTSQ_QR_FROM", 4)
    monkeypatch.setattr(decompose, "BLOCKED_FROM", 4)
    monkeypatch.setattr(decompose, "BLOCK", 4)
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((9, 6)), rng.standard_normal((9, 2))
    f = jc.jit(lambda a, b: np.linalg.lstsq(a, b), cache=False)
    deficient = a @ np.diag([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])  # the minimum-norm solution, rank 5
    for matrix, factor in ((a, 32), (deficient, 256)):
        got, want = f(matrix, b), np.linalg.lstsq(matrix, b)
        _close(got[0], want[0], matrix, factor=factor)
        _close(got[3], want[3], matrix)
        assert got[2] == want[2]
        assert got[1].shape == want[1].shape  # NumPy's none when rank-deficient
        _close(got[1], want[1], matrix)


@FEW
@given(a=matrices(max_side=4))
def test_pinv_matrix_rank_cond_and_norms_match_numpy(a):
    if not (a.shape[-1] and a.shape[-2]):
        _close(jc.jit(lambda x: np.linalg.pinv(x))(a), np.linalg.pinv(a), np.linalg.pinv(a), factor=1024)
        return
    # All in one jitted call: one compile, not six (each a singular value decomposition, which
    # those without vectors may share, as in a user's function computing several of them).
    ords = (2, -2, "nuc")
    pinv, rank, *norms, cond = jc.jit(lambda x: (
        np.linalg.pinv(x), np.linalg.matrix_rank(x), *(np.linalg.matrix_norm(x, ord=o) for o in ords),
        np.linalg.cond(x)))(a)
    _close(pinv, np.linalg.pinv(a), np.linalg.pinv(a), factor=1024)
    np.testing.assert_array_equal(rank, np.linalg.matrix_rank(a), err_msg="matrix_rank")
    for ord_, got in zip(ords, norms, strict=True):
        try:
            _close(got, np.linalg.matrix_norm(a, ord=ord_), a)
        except AssertionError as e:
            raise AssertionError(f"matrix_norm(ord={ord_!r}): {e}") from None
    np.testing.assert_allclose(cond, np.linalg.cond(a), rtol=1e3 * _eps(a.dtype) * max(a.shape[-2:]),
                               err_msg="cond")


def test_matrix_rank_cond_and_norm_special_cases():
    np.testing.assert_array_equal(jc.jit(lambda x: np.linalg.matrix_rank(x))(np.zeros(3)), 0)
    np.testing.assert_array_equal(jc.jit(lambda x: np.linalg.matrix_rank(x))(np.arange(3.0)), 1)
    a = np.diag([1.0, 1e-3, 1e-9])
    assert jc.jit(lambda x: np.linalg.matrix_rank(x, tol=1e-6))(a) == 2
    assert jc.jit(lambda x: np.linalg.matrix_rank(x, rtol=1e-2))(a) == 1
    assert jc.jit(lambda x: np.linalg.cond(x))(np.zeros((2, 2))) == np.inf == np.linalg.cond(np.zeros((2, 2)))
    ps = ("fro", 1, -1, np.inf, -np.inf, -2)
    conds = jc.jit(lambda x: tuple(np.linalg.cond(x, p) for p in ps))(a)  # one compile, one inverse
    for p, got in zip(ps, conds, strict=True):
        np.testing.assert_allclose(got, np.linalg.cond(a, p), rtol=1e-13, err_msg=f"cond(p={p!r})")
    got = jc.jit(lambda x: np.linalg.norm(x, 2, axis=(2, 0), keepdims=True))(np.arange(24.0).reshape(2, 3, 4))
    want = np.linalg.norm(np.arange(24.0).reshape(2, 3, 4), 2, axis=(2, 0), keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    with pytest.raises(ValueError, match="both set"):
        jc.jit(lambda x: np.linalg.pinv(x, rcond=0.1, rtol=0.1))(a)


# -- multi_dot -----------------------------------------------------------------------------
@settings(max_examples=examples(50, ci=25), deadline=None)
@given(dims=st.lists(st.integers(1, 40), min_size=4, max_size=8))
def test_chain_order_is_numpys(dims):
    arrays = [np.empty((dims[i], dims[i + 1])) for i in range(len(dims) - 1)]
    want = np.linalg._linalg._multi_dot_matrix_chain_order(arrays)
    got = _chain_order(dims)
    for (i, j), k in got.items():
        assert want[i, j] == k


def test_multi_dot_matches_numpy():
    rng = np.random.default_rng(4)
    mats = [rng.standard_normal(s) for s in ((10, 3), (3, 20), (20, 4), (4, 7))]
    f = jc.jit(lambda *m: np.linalg.multi_dot(m))
    first, last = rng.standard_normal(10), rng.standard_normal(7)
    for chain in (mats, mats[:3], [first, *mats, last], [*mats[1:], last]):
        got, want = f(*chain), np.linalg.multi_dot(chain)
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="at least two"):
        jc.jit(lambda x: np.linalg.multi_dot([x]))(mats[0])
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        f(mats[0], mats[1], np.ones((2, 20, 4)))


# -- the IR --------------------------------------------------------------------------------
def test_decomposition_ops_round_trip_and_verify():
    def f(a):
        return np.linalg.svd(a), np.linalg.qr(a, "complete"), np.linalg.eigvalsh(a[:2, :2])

    module = jc.make_ir(f)(np.ones((3, 2)))
    text = ir.print_op(module)
    for name in ('"array.svd"', '"array.qr"', '"array.eigh"'):
        assert name in text
    assert ir.print_op(ir.parse(text)) == text
    ir.verify(ir.parse(text))
    wrong = text.replace("{full = 1, vectors = 1}", "{full = 0, vectors = 1}")
    assert wrong != text
    with pytest.raises(VerificationError, match="array.svd.*must return"):
        ir.verify(ir.parse(wrong))
