"""Decompositions by NumPy's own LAPACK (codegen/cpu/lapack.py): differential against NumPy,
bit for bit, where the process has the library; jitcore's compiled algorithms where it has not
(``JITCORE_BLAS=none``: this file passes both ways, the bit-for-bit checks then compare to
documented tolerances instead).

Results, dtypes, Python types and errors as NumPy's: float32 computed in float64 and rounded
(NumPy's ``_commonType``), complex64 in complex128; signs of singular vectors, -0.0 in R, the
last bits of eigenvalues and of ``lstsq``-style products all NumPy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.config  # noqa: F401  (it reads JITCORE_BLAS: ON below follows it)
from jitcore.codegen.cpu import blas, lapack
from tests.budget import examples

LIB = blas.library()
ON = LIB is not None and lapack.symbols(LIB, "svd", False) is not None


def _same(got, want) -> None:
    """Bit for bit with the library; to rounding without it (of unique results only: tests
    with singular vectors, eigenvectors or Q need the library, ``_needs_lapack``)."""
    got, want = (x if isinstance(x, tuple) else (x,) for x in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if ON:
            assert g.tobytes() == w.tobytes(), (g, w)
        else:
            tol = 1e-3 if w.dtype in (np.float32, np.complex64) else 1e-8
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _needs_lapack() -> None:
    if not ON:
        pytest.skip("vectors agree with NumPy's up to sign and rotation only without its LAPACK "
                    "(tests/jitcore/test_decompositions.py checks them so)")


def _many(x, s):
    """Every decomposition of the LAPACK path in one function (one compile per dtype)."""
    return (*np.linalg.svd(x), *np.linalg.svd(x, full_matrices=False), np.linalg.svd(x, compute_uv=False),
            *np.linalg.eigh(s), *np.linalg.eigh(s, "U"), np.linalg.eigvalsh(s, "U"),
            np.linalg.cholesky(s), np.linalg.cholesky(s, upper=True), *np.linalg.slogdet(s),
            np.linalg.det(s), np.linalg.solve(s, x[..., :3, :2]), np.linalg.inv(s),
            *np.linalg.qr(x), *np.linalg.qr(x, "complete"), np.linalg.qr(np.swapaxes(x, -1, -2), "r"))



def _inputs(rng, dtype, batch=(2,)):
    x = rng.standard_normal((*batch, 5, 3))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(x.shape)
    s = np.swapaxes(x.conj(), -1, -2) @ x + 3 * np.eye(3)
    return x.astype(dtype), s.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_every_decomposition_is_numpys_bit_for_bit(dtype):
    _needs_lapack()
    x, s = _inputs(np.random.default_rng(51), dtype)
    _same(jc.jit(_many)(x, s), _many(x, s))


def _few(x, s):
    return (*np.linalg.svd(x), *np.linalg.eigh(s, "U"), np.linalg.det(s), *np.linalg.qr(x))


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_the_other_dtypes_and_one_matrix(dtype):
    """float32 through dgesdd, dsyevd, dgetrf and dgeqrf (NumPy's double), complex128 as
    itself; float32 as one matrix (det a NumPy scalar), complex128 as a stack of 3."""
    _needs_lapack()
    x, s = _inputs(np.random.default_rng(7), dtype, () if dtype == np.float32 else (3,))
    _same(jc.jit(_few)(x, s), _few(x, s))


@settings(max_examples=examples(20, 6), deadline=None)
@given(hnp.arrays(np.float64, (2, 4, 4), elements=st.floats(-8, 8, width=32)))
def test_random_values_bit_for_bit(a):
    """Values vary (ties, zeros, rank-deficient draws), the signature not: one compile."""
    _needs_lapack()
    g = jc.jit(_some)
    _same_or_same_error(g, _some, a)


def _some(a):
    s = a @ np.swapaxes(a, -1, -2)
    return (*np.linalg.svd(a), *np.linalg.eigh(s), np.linalg.det(a), *np.linalg.qr(a))


def _same_or_same_error(f, g, *args) -> None:
    try:
        want = g(*args)
    except np.linalg.LinAlgError as e:
        with pytest.raises(np.linalg.LinAlgError, match=str(e)):
            f(*args)
        return
    _same(f(*args), want)


EDGES = {  # an input, and the functions whose edge it is
    "singular": (np.array([[1.0, 2.0], [2.0, 4.0]]), ("inv", "det", "slogdet", "svd")),
    "not positive definite": (np.array([[1.0, 2.0], [2.0, 1.0]]), ("cholesky", "eigh")),
    "nan": (np.array([[1.0, np.nan], [2.0, 4.0]]), ("svd", "eigh", "det", "inv")),
    "inf": (np.array([[1.0, np.inf], [0.0, 1.0]]), ("svd", "svdvals")),
    "rank 1": (np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0]), ("svd", "qr", "pinv")),
    "0x0": (np.zeros((0, 0)), ("svd", "eigh", "det", "inv")),
    "0x2": (np.zeros((0, 2)), ("svd", "qr")),
    "1x1": (np.array([[-3.0]]), ("cholesky", "slogdet", "svd")),
    "no matrices": (np.zeros((0, 2, 2)), ("svd", "inv")),
    "ints": (np.array([[2, 1], [1, 3]]), ("det", "inv", "eigh")),
}
FUNCTIONS = {
    "svd": np.linalg.svd, "svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
    "eigh": np.linalg.eigh, "cholesky": np.linalg.cholesky, "slogdet": np.linalg.slogdet,
    "det": np.linalg.det, "inv": np.linalg.inv, "qr": lambda a: np.linalg.qr(a, "complete"),
    "pinv": np.linalg.pinv,
}


@pytest.mark.parametrize("edge", list(EDGES))
def test_edges_as_numpy(edge):
    """Singular and not positive definite matrices raise NumPy's LinAlgError with its message;
    NaN and inf go where NumPy's LAPACK takes them (an inf entry: NaN results, no error, from
    gesdd here); empty matrices and stacks, 1x1 and integer input."""
    a, names = EDGES[edge]
    if edge in ("nan", "inf", "rank 1"):
        _needs_lapack()  # jitcore's own algorithms also raise on NaN and inf (documented)
    for name in names:
        if ON or name not in ("svd", "eigh", "qr"):  # vectors: NumPy's up to sign without it
            _same_or_same_error(jc.jit(FUNCTIONS[name]), FUNCTIONS[name], a)


def _eig(a):
    return (*np.linalg.eig(a), np.linalg.eigvals(a))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_eig_is_numpys_geev(dtype):
    """geev's order, its unit vectors with the largest component real, a real matrix's complex
    pairs ``v +- i w`` and all-real results given back real (NumPy's dtype choice); NaN
    refused before the call, as NumPy's ``_assert_finite``."""
    _needs_lapack()
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 4, 4)).astype(dtype)
    f = jc.jit(_eig)
    _same(f(a), _eig(a))
    if dtype == np.float64:  # a rotation (a complex pair), a symmetric and a defective matrix
        edges = np.array([[[0.0, -1.0], [1.0, 0.0]], [[2.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [0.0, 1.0]]])
        _same(f(edges), _eig(edges))
        real = edges.copy()
        real[0] = [[3.0, 0.0], [-0.0, 1.0]]  # every eigenvalue real: real results
        _same(f(real), _eig(real))
        real[0, 0, 1] = np.nan
        _same_or_same_error(f, _eig, real)


def test_a_failure_inside_try_takes_the_except_branch():
    """Soft mode (jitcore/failures.py): gesv's and potrf's info > 0 sets the flag row."""
    def f(a, b):
        try:
            x = np.linalg.solve(a, b)
            c = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            return np.zeros(2), np.zeros((2, 2)) - 1.0
        return x, c

    g = jc.jit(f)
    b = np.array([1.0, 2.0])
    for a in (np.array([[4.0, 1.0], [1.0, 3.0]]), EDGES["singular"][0], EDGES["not positive definite"][0]):
        _same(g(a, b), f(a, b))


def test_strided_and_broadcast_stacks():
    """Transposed views and broadcast right-hand sides, copied in as NumPy's linearize_matrix."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))

    def f(a, b):
        at = np.swapaxes(a, -1, -2)
        return np.linalg.solve(at, b), np.linalg.svd(at[:, ::2])[1], np.linalg.eigvalsh(at[::-1])

    _same(jc.jit(f)(a, b), f(a, b))


def test_the_plan_names_numpys_routines():
    """The launches call the symbols NumPy's _umath_linalg imports (``nm -D``)."""
    lowered = jc.jit(lambda a: np.linalg.svd(a), cache=False).lower(np.ones((3, 3)))
    calls = {c for launch in lowered.plan().launches for c in launch.calls}
    if ON:
        assert LIB.lapack_routine("dgesdd") in calls
    else:
        assert not calls


def test_without_the_calls_the_compiled_algorithms_run(monkeypatch):
    """The other path, in this run too: the kernels' own bodies (no routine in the plan),
    their unique results NumPy's to rounding."""
    monkeypatch.setattr(lapack, "ENABLED", False)
    x, s = _inputs(np.random.default_rng(5), np.float64)

    def f(x, s):
        return (np.linalg.svd(x, compute_uv=False), np.linalg.eigvalsh(s), np.linalg.det(s),
                np.linalg.solve(s, x[..., :3, :2]), np.linalg.cholesky(s))

    g = jc.jit(f, cache=False)
    assert not {c for launch in g.lower(x, s).plan().launches for c in launch.calls}
    for got, want in zip(g(x, s), f(x, s)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_float32_lstsq_is_solved_in_double_as_numpys():
    """NumPy solves a float32 problem in float64 (its rcond double's eps): a singular value of
    1e-9 stays in the rank (before: float32's eps cut it, x[2] 1e-9 where NumPy has 1e9)."""
    a = np.vstack([np.diag([1.0, 1e-5, 1e-9]), np.full((1, 3), 1e-12)]).astype(np.float32)
    b = np.ones(4, np.float32)
    f = lambda a, b: np.linalg.lstsq(a, b)  # noqa: E731
    got, want = jc.jit(f)(a, b), f(a, b)
    assert got[2] == want[2] == 3 and type(got[2]) is type(want[2])
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype and np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-6)
