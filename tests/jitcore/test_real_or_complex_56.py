"""Values real or complex as the data chooses (``jitcore/real_or_complex.py``, session 56).

NumPy's ``eigvals``/``eig``/``roots`` of a real matrix are float64 where every eigenvalue is
real and complex128 otherwise, and ``poly`` of complex roots is real where they pair up as
conjugates; what the function computes from them keeps that dtype (``np.sqrt`` of a negative
real eigenvalue is NaN, ``np.iscomplexobj(w)`` False). Before, they stayed complex inside the
function (users u2 W1/W2, u3 W2) and ``np.poly`` of a matrix or of complex roots was refused
(u1 R4). Each test compiles once and calls with data of both kinds; NumPy is the oracle for
the type, dtype, shape and values of every result. Also here: ``np.linalg`` on empty matrices
(u1 C1: ``matrix_rank`` of a (0, 3) matrix is 0 in NumPy).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitTypeError

# A linear PK rate matrix (every eigenvalue real), an oscillator (a complex pair), a real one
# whose first entry takes the other branch below, and a complex one that does too
REAL = np.array([[-1.2, 0.0, 0.0], [1.2, -0.5, 0.1], [0.0, 0.2, -0.1]])
COMPLEX = np.array([[0.0, 1.0, 0.0], [-2.0, -0.3, 0.5], [0.0, 0.1, -1.0]])
REAL_2 = np.array([[-0.5, 0.0, 0.0], [0.3, -2.0, 0.0], [0.1, 0.2, -4.0]])
COMPLEX_2 = np.array([[-2.0, 1.0, 0.0], [-3.0, -0.3, 0.0], [0.0, 0.1, -1.0]])
KINDS = (REAL, COMPLEX, REAL_2, COMPLEX_2)


def _same(got, want, path="result"):
    """NumPy's type, dtype and shape exactly; values to rounding (NaN where NumPy's is)."""
    assert type(got) is type(want), (path, got, want)
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), path
        for k, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{k}]")
    elif isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want), (path, got, want)
        single = want.dtype in (np.float32, np.complex64)  # (eigenvalues to a few eps of ||K||)
        np.testing.assert_allclose(got, want, rtol=2e-5 if single else 1e-9, atol=1e-6 if single else 1e-12,
                                   err_msg=path)
    else:
        assert got == want, (path, got, want)


def _numpy(fn, *args):
    with np.errstate(all="ignore"):
        return fn(*args)


def _uses(K, t):
    # (sorted: NumPy's order is LAPACK's; without it, JITCORE_BLAS=none, the Schur form's)
    w = np.sort(np.linalg.eigvals(K))
    v, V = np.linalg.eig(K)
    p = np.array([1.0, -(K[0, 0] + K[1, 1]), K[0, 0] * K[1, 1] - K[0, 1] * K[1, 0]])
    r = np.sort(np.roots(p))
    out = (w, np.log(2) / -w, np.sqrt(w), np.exp(np.outer(t, w)), -r.min(), np.polyval(p, r), r * 2,
            w[0] * 2, np.abs(w), w.sum(), w.real, np.iscomplexobj(w), np.isrealobj(r),
            w.dtype.kind == "c", v.dtype == np.float64, V @ np.diag(v) @ np.linalg.inv(V), w < 0,
            [x + 1 for x in w], np.stack([w, np.sort(v)]),
            np.sort(np.linalg.eigvals(K.astype(np.float32))) * 2, np.isnan(np.sqrt(w)),
            np.allclose(w, w.real), np.array([w[0], 1.0]))
    v.sort()  # (in place: eig's real parts are not a view of its complex values)
    return (*out, v)


def test_later_arithmetic_keeps_the_dtype_the_data_chose():
    """u2 W1, u3 W2: half-lives, modes, macro constants and a polynomial's value at its roots
    are float64 where NumPy's are; the third call takes the native path."""
    jitted = jc.jit(_uses)
    t = np.linspace(0.0, 2.0, 4)
    for K in (REAL, COMPLEX, REAL, COMPLEX):
        _same(jitted(K, t), _numpy(_uses, K, t))


def _branches(K):
    w = np.sort(np.linalg.eigvals(K))
    if np.iscomplexobj(w):  # u2 W2: an oscillatory system's magnitudes, else the signed rates
        a = np.abs(w)
    else:
        a = w
    b = w * 1j if w.dtype.kind == "c" else w + 1
    if K[0, 0] > -1:  # a branch on other data: w real or complex on either side
        c = np.sqrt(w)
    else:
        c = w * 2
    return a, b, c, (c.min() if K[1, 1] > -1 else np.float64(0.5))


def test_branches_on_the_eigenvalues_take_numpys_side():
    """A traced if or 'x if t else y' carries the two sides and the choice; NumPy's branch is
    taken and each side's dtype kept (u2 W2 gave the magnitudes of real rates before)."""
    jitted = jc.jit(_branches)
    for K in KINDS:
        _same(jitted(K), _numpy(_branches, K))


def _reconstructed(A):
    w, V = np.linalg.eig(A)
    try:
        zeroed = np.linalg.inv(np.diag(w) * 0)
    except np.linalg.LinAlgError:
        zeroed = np.diag(np.sort(w)) + 7
    return V @ np.diag(w) @ np.linalg.inv(V), zeroed


def test_a_failure_on_the_side_not_taken_does_not_raise():
    """inv(V) of a rotation's eigenvectors: their real parts are singular, the complex V that
    NumPy inverts is not; a singular matrix on the side taken raises, or goes to the try."""
    jitted = jc.jit(_reconstructed)
    for A in (np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([[1.0, 2.0], [0.0, 3.0]])):
        _same(jitted(A), _reconstructed(A))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jc.jit(lambda A: np.linalg.inv(np.diag(np.linalg.eigvals(A)) * 0))(np.eye(2))


def _loops(K, n):
    w = np.sort(np.linalg.eigvals(K))
    halved, k = w, 0
    while np.abs(halved).max() > 1e-3 and k < n:  # a traced while: its carry is both sides
        halved = halved / 2
        k += 1
    rooted = w
    for i in range(n):  # a traced for: a step that makes a plain real array of it
        rooted = np.abs(np.sqrt(rooted)) + i
    return halved, k, rooted


def test_loops_carry_the_choice():
    """A traced while or for carries such an array as its two sides and the choice."""
    jitted = jc.jit(_loops)
    for K in (REAL, COMPLEX):
        _same(jitted(K, np.int64(20)), _numpy(_loops, K, np.int64(20)))


def test_uses_that_cannot_follow_the_choice_are_refused():
    """A branch that makes an int array of such an array, a dtype attribute other than
    kind/==, a loop that first makes one: refused with what to write instead, never computed
    complex."""
    def int_branch(K):
        w = np.linalg.eigvals(K)
        if np.iscomplexobj(w):
            return np.arange(3)
        return w

    def dtype_name(K):
        return np.linalg.eigvals(K).dtype.name

    def made_in_loop(K, n):
        w, k = np.zeros(3), 0
        while k < n:
            w = np.linalg.eigvals(K) * k
            k += 1
        return w

    for fn, args in ((int_branch, (REAL,)), (dtype_name, (REAL,)), (made_in_loop, (REAL, np.int64(2)))):
        with pytest.raises(JitTypeError, match="dtype the data chooses|real or complex as the data") as e:
            jc.jit(fn)(*args)
        assert "w.real" in str(e.value)


def _poly_uses(A, roots):
    return np.poly(A), np.poly(roots), np.real(np.poly(roots)) * 2, np.polyval(np.poly(A), 2.0)


@pytest.mark.parametrize("roots", [np.array([-1 + 1j, -1 - 1j, -2]), np.array([-1 + 1j, -1 - 2j, -2])],
                         ids=["conjugate-pair", "unpaired"])
def test_poly_of_a_matrix_and_of_complex_roots(roots):
    """u1 R4: np.poly of a matrix (its characteristic polynomial, by eigvals) and of complex
    roots, real where they pair up as conjugates, as NumPy's."""
    jitted = jc.jit(_poly_uses)
    for A in (REAL, COMPLEX):
        _same(jitted(A, roots), _numpy(_poly_uses, A, roots))
    for a in (np.array([1, 2, 3]), np.array([1.5, 2.0], np.float32), np.array([1j, -1j], np.complex64)):
        _same(jc.jit(np.poly)(a), np.poly(a))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0), (3,)])
def test_matrix_rank_and_two_norm_of_empty_matrices(shape):
    """u1 C1: NumPy's max over the singular values has initial=0 in matrix_rank and
    norm(ord=2): 0 for an empty matrix, not a 'no identity' error; a vector's rank is a
    Python int."""
    a = np.zeros(shape)
    both = jc.jit(lambda a: (np.linalg.matrix_rank(a), np.linalg.norm(a, 2 if a.ndim == 2 else None)))
    _same(both(a), (np.linalg.matrix_rank(a), np.linalg.norm(a, 2 if a.ndim == 2 else None)))


def test_linalg_dtype_and_empty_rules_as_numpy():
    """cond of an empty matrix raises (any p), pinv of an empty one keeps its dtype, det takes
    bools, solve refuses a float16 operand before promoting it: NumPy 2's rules."""
    for p in (None, "fro"):
        with pytest.raises(np.linalg.LinAlgError, match="cond is not defined on empty arrays"):
            jc.jit(lambda a, p=p: np.linalg.cond(a, p))(np.zeros((0, 0)))
    empty = np.zeros((0, 3), np.int64)
    _same(jc.jit(np.linalg.pinv)(empty), np.linalg.pinv(empty))
    flags = np.array([[True, False], [True, True]])
    _same(jc.jit(np.linalg.det)(flags), np.linalg.det(flags))
    with pytest.raises(TypeError, match="array type float16 is unsupported in linalg"):
        jc.jit(np.linalg.solve)(np.eye(2, dtype=np.float32), np.ones(2, np.float16))
