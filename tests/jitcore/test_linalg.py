"""matmul (``@``), dot, tensordot, einsum, inner, outer, vdot, vecdot, matvec and vecmat against
NumPy: dtypes, 1-d and 0-d operands, batch broadcasting, size-0 contractions, integer wrapping,
bool or-of-and, error messages; and the IR they make (one ``array.dot_general``, one kernel after
fusion).

Float sums may be added in another order than NumPy's (BLAS): both results are within
``n * eps * sum(|a| * |b|)`` of the exact one for a contraction of length ``n``, so they are
compared within twice that. float16 products accumulate in float32 in NumPy and here, in the same
order, so they are compared exactly where NumPy does not use BLAS.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen.cpu import blas, gemm
from tests import strategies
from tests.budget import examples
from tests.codegen.test_reductions import documented_sum
from tests.layouts import LAYOUTS, relayout
from tests.oracle import assert_matches

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int32, np.int64, np.uint8, np.float16,
                                np.float32, np.float64)]
SOME = settings(max_examples=examples(25, ci=13), deadline=None)  # CI: about half, see tests/budget.py


def elements(dtype: np.dtype):
    """Any integer or bool (their sums wrap exactly in any order); floats small enough that no
    sum overflows (which would make the summation order visible), among them NaN, +-inf, +-0.0
    and subnormals, whose results are the same in any order."""
    if dtype.kind == "f":
        small = strategies.elements(dtype, min_value=-8, max_value=8)
        return st.one_of(small, st.sampled_from([np.inf, -np.inf]))
    return strategies.elements(dtype)


def array_of(data, dtype, shape):
    return data.draw(strategies.arrays(dtype, shape, elements(np.dtype(dtype))))


def assert_product(got, fn, *args):
    """``got`` is NumPy's ``fn(*args)``: exact for integers and bools, within the rounding
    error bound of a float sum for floats (the bound is ``fn`` applied to ``|args|``), NaN and
    infinities exactly where NumPy has them."""
    expected = np.asarray(fn(*args))
    got = np.asarray(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape,
                                                                         expected.dtype, expected.shape)
    if expected.dtype.kind != "f":
        assert_matches(got, expected)
        return
    special = ~np.isfinite(expected)
    assert_matches(got[special], expected[special], 0, "NaN and infinities")
    got, expected = got[~special], expected[~special]
    with np.errstate(invalid="ignore"):  # inf * 0 in terms that made the special results
        bound = np.asarray(fn(*[np.abs(np.asarray(a, dtype=np.float64)) for a in args]))[~special]
    terms = max([1] + [np.size(a) for a in args])  # at least the contraction length
    accumulate = np.finfo(np.float32 if expected.dtype == np.float16 else expected.dtype).eps
    tol = 2 * terms * accumulate * bound + np.finfo(expected.dtype).eps * np.abs(expected.astype(np.float64))
    err = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    assert (err <= tol + np.finfo(expected.dtype).smallest_subnormal).all(), (
        f"max error {err.max(initial=0)} beyond the bound (got {got[:4]}, NumPy {expected[:4]})")


MATMUL = jc.jit(lambda a, b: a @ b)


@st.composite
def matmul_shapes(draw):
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    a = (k,) if draw(st.integers(0, 4)) == 0 else batch.input_shapes[0] + (n, k)
    b = (k,) if draw(st.integers(0, 4)) == 0 else batch.input_shapes[1] + (k, m)
    return a, b


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_matmul_matches_numpy(dtype, data):
    sa, sb = data.draw(matmul_shapes())
    a, b = array_of(data, dtype, sa), array_of(data, dtype, sb)
    with np.errstate(all="ignore"):
        assert_product(MATMUL(a, b), np.matmul, a, b)


@pytest.mark.parametrize("lhs, rhs", [
    (np.int8, np.bool_), (np.uint8, np.int8), (np.int32, np.float32), (np.float16, np.int8),
    (np.bool_, np.float16), (np.uint64, np.int64), (np.float16, np.float32), (np.uint8, np.float64),
], ids=str)
def test_matmul_promotes_as_numpy(lhs, rhs):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, (3, 4)).astype(lhs)
    b = rng.integers(0, 5, (4, 2)).astype(rhs)
    assert_product(MATMUL(a, b), np.matmul, a, b)


def test_integer_matmul_wraps():
    a = np.full((2, 300), 100, np.int8)
    b = np.full((300, 3), 3, np.int8)
    assert_matches(MATMUL(a, b), a @ b)  # 90000 wraps to 16 in int8, as in NumPy
    u = np.full((4,), 200, np.uint8)
    assert_matches(jc.jit(np.dot)(u, u), np.dot(u, u))


def test_bool_matmul_is_or_of_and():
    a = np.array([[True, False, True], [False, False, False]])
    b = np.array([[False, True], [False, True], [True, False]])
    assert_matches(MATMUL(a, b), a @ b)
    text = jc.jit(lambda a, b: a @ b).lower(a, b).as_text("optimized")
    assert '"arith.andi"' in text and '"arith.ori"' in text and "arith.muli" not in text


def test_float16_accumulates_in_float32_like_numpy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 700)).astype(np.float16)
    b = rng.standard_normal((700, 3)).astype(np.float16)
    assert_matches(MATMUL(a, b), a @ b)  # same order, same float32 sums, one rounding
    assert_matches(jc.jit(np.dot)(a, b), np.dot(a, b))


def test_empty_contraction_gives_zeros():
    for dtype in (np.float32, np.int16, np.bool_):
        a, b = np.ones((2, 3, 0), dtype), np.ones((0, 4), dtype)
        assert_matches(MATMUL(a, b), a @ b)


def test_special_values_propagate():
    a = np.array([[np.nan, 1.0], [1.0, 2.0], [np.inf, 0.0], [np.inf, -np.inf]])
    b = np.array([[1.0, 0.0], [2.0, 1.0]])
    with np.errstate(invalid="ignore"):
        got, expected = MATMUL(a, b), a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got[~np.isnan(got)], expected[~np.isnan(expected)])


def test_matmul_with_closed_over_array_and_operator_forms():
    w = np.arange(12.0).reshape(3, 4)
    x = np.arange(8.0).reshape(4, 2)
    np.testing.assert_allclose(jc.jit(lambda x: w @ x)(x), w @ x)
    np.testing.assert_allclose(jc.jit(lambda w: w @ x)(w), w @ x)
    np.testing.assert_allclose(jc.jit(lambda x: np.matmul(w, x))(x), w @ x)
    np.testing.assert_allclose(jc.jit(lambda w: np.matmul(w, x))(w), w @ x)
    np.testing.assert_allclose(jc.jit(lambda x: jnp.matmul(w, x))(x), w @ x)
    np.testing.assert_allclose(jc.jit(lambda w: w.T @ w)(w), w.T @ w)


def test_concrete_arrays_call_numpy():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    for fn in (jnp.matmul, jnp.dot, jnp.outer, jnp.vdot):
        np.testing.assert_array_equal(fn(a, b), getattr(np, fn.__name__)(a, b))
    np.testing.assert_array_equal(jnp.tensordot(a, b, 1), np.tensordot(a, b, 1))
    np.testing.assert_array_equal(jnp.inner(a, b.T), np.inner(a, b.T))
    np.testing.assert_array_equal(jnp.einsum("ij,jk", a, b), a @ b)


# -- dot, tensordot, inner, outer, vdot ----------------------------------------------------
@st.composite
def dot_shapes(draw):
    k = draw(st.integers(0, 4))
    a = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    b = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    a = a[:-1] + (k,) if a else a
    if len(b) >= 2:
        b = b[:-2] + (k,) + b[-1:]
    elif b:
        b = (k,)
    return a, b


def _einsum_form(kind: str, a, b) -> str:
    """The einsum subscripts of ``np.dot`` or ``np.inner`` of operands of a's and b's ranks."""
    free = iter("abcdefghijkl")
    lhs = [next(free) for _ in range(a.ndim - 1)]
    if kind == "dot" and b.ndim >= 2:
        rhs = [next(free) for _ in range(b.ndim - 2)] + ["z", next(free)]
    else:
        rhs = [next(free) for _ in range(b.ndim - 1)] + ["z"]
    out = lhs + [x for x in rhs if x != "z"]
    return f"{''.join(lhs)}z,{''.join(rhs)}->{''.join(out)}"


def without_blas_scal(fn):
    """NumPy's ``fn`` (dot or inner), but for float operands of one element computed as NumPy
    documents (multiply for 0-d, the sum of products otherwise) by multiply or einsum's own
    loops: NumPy's float32/float64 path for them is BLAS ``scal``, whose 0 * NaN and 0 * inf
    are 0 (float16, which has no BLAS path, gives NaN)."""
    def reference(a, b):
        a, b = np.asarray(a), np.asarray(b)
        if np.result_type(a, b).kind != "f" or (a.size != 1 and b.size != 1):
            return fn(a, b)
        if a.ndim == 0 or b.ndim == 0:
            return np.multiply(a, b)
        return np.einsum(_einsum_form(fn.__name__, a, b), a, b)
    return reference


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64], ids=str)
@SOME
@given(data=st.data())
def test_dot_matches_numpy(dtype, data):
    sa, sb = data.draw(dot_shapes())
    a, b = array_of(data, dtype, sa), array_of(data, dtype, sb)
    with np.errstate(all="ignore"):
        assert_product(jc.jit(np.dot)(a, b), without_blas_scal(np.dot), a, b)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float16, np.float64], ids=str)
@SOME
@given(data=st.data())
def test_inner_outer_vdot_match_numpy(dtype, data):
    k = data.draw(st.integers(0, 4))
    sa = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    sb = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    a = array_of(data, dtype, sa[:-1] + (k,) if sa else sa)
    b = array_of(data, dtype, sb[:-1] + (k,) if sb else sb)
    with np.errstate(all="ignore"):
        assert_product(jc.jit(np.inner)(a, b), without_blas_scal(np.inner), a, b)
        assert_product(jc.jit(np.outer)(a, b), np.outer, a, b)
        if a.size == b.size:
            assert_product(jc.jit(np.vdot)(a, b), np.vdot, a, b)


@pytest.mark.parametrize("sa, sb, axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0), ((3,), (3,), 1),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (5, 2), (0, 1)), ((3, 0), (0, 2), 1),
    ((2, 3), (), 0), ((2, 3, 4), (4, 3), ([-1, -2], [0, 1])),
])
def test_tensordot_matches_numpy(sa, sb, axes):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    assert_product(jc.jit(lambda a, b: np.tensordot(a, b, axes))(a, b),
                   lambda a, b: np.tensordot(a, b, axes), a, b)


@pytest.mark.parametrize("name, sa, sb", [
    ("vecdot", (3,), (3,)), ("vecdot", (2, 3), (4, 1, 3)), ("vecdot", (0, 3), (3,)),
    ("vecdot", (2, 0), (2, 0)),
    ("matvec", (2, 3), (3,)), ("matvec", (5, 2, 3), (4, 1, 3)), ("matvec", (2, 0), (0,)),
    ("vecmat", (3,), (3, 2)), ("vecmat", (4, 1, 3), (5, 3, 2)), ("vecmat", (0,), (0, 2)),
])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32], ids=str)
def test_vecdot_matvec_vecmat_match_numpy(name, sa, sb, dtype):
    np_fn = getattr(np, name, None)
    if np_fn is None:
        pytest.skip(f"numpy.{name} needs NumPy 2.2")
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(sa) * 4).astype(dtype), (rng.standard_normal(sb) * 4).astype(dtype)
    assert_product(jc.jit(np_fn)(a, b), np_fn, a, b)
    assert_product(jc.jit(getattr(jnp, name))(a, b), np_fn, a, b)


def test_vecdot_axis():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(2.0)
    got = jc.jit(lambda a, b: jnp.vecdot(a, b[:, None], axis=0))(a, b)
    np.testing.assert_allclose(got, np.vecdot(a, b[:, None], axis=0))


def test_contraction_of_two_broadcasts():
    """The contracting dim is a broadcast in both operands: no operand reads it as a plain dim."""
    x, y = np.arange(3.0).reshape(3, 1), np.arange(5.0).reshape(1, 5)

    def fn(x, y):
        return np.broadcast_to(x, (3, 4)) @ np.broadcast_to(y, (4, 5))

    np.testing.assert_array_equal(jc.jit(fn)(x, y), fn(x, y))


def test_python_scalars_are_strong_as_in_numpy():
    a = np.ones((2, 3), np.float32)
    for fn in (np.dot, np.inner, np.outer):
        got = jc.jit(lambda a, fn=fn: fn(a, 2.0))(a)
        assert_matches(got, fn(a, 2.0))  # float64: asarray(2.0), not a weak scalar


# -- einsum --------------------------------------------------------------------------------
@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bkj->bki", [(2, 3, 4), (2, 5, 4)]),
    ("i,i->", [(5,)]*2),
    ("i,i", [(5,)]*2),
    ("i,i->i", [(5,)]*2),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ba", [(3, 4)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,kl,jm->im", [(2, 3), (4, 5), (3, 6)]),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 6)]),
    ("...ij,jk->ik...", [(7, 3, 4), (4, 6)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("ij,jk->ik", [(3, 1), (4, 5)]),  # size-1 dims broadcast, as in NumPy
    ("ij,jk->ik", [(3, 0), (0, 5)]),
    (" ij , jk -> ik ", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),  # diagonals and traces: a label repeated within one operand
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 5)]),
    ("iji->j", [(3, 5, 3)]),
    ("ij,jj->i", [(2, 3), (3, 3)]),
    ("ij,jj->i", [(2, 1), (3, 3)]),
    ("ii,i->i", [(3, 3), (1,)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("iii", [(2, 2, 2)]),
    ("ijij->ji", [(2, 3, 2, 3)]),
    ("ii->i", [(0, 0)]),
])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32], ids=str)
def test_einsum_matches_numpy(subscripts, shapes, dtype):
    rng = np.random.default_rng(3)
    args = [(rng.standard_normal(s) * 4).astype(dtype) for s in shapes]
    # Each operand in a layout of its own, the same on every run (crc32, unlike hash(), is).
    args = [relayout(a, LAYOUTS[zlib.crc32(f"{subscripts} {i}".encode()) % len(LAYOUTS)])
            for i, a in enumerate(args)]

    def fn(*xs):
        return np.einsum(subscripts, *xs)

    got = jc.jit(fn)(*args)
    if np.dtype(dtype) == np.float16:  # NumPy's own float16 einsum rounds along the way
        expected = fn(*(a.astype(np.float64) for a in args)).astype(np.float16)
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=2e-3, atol=1e-2)
        assert got.dtype == np.float16
    else:
        assert_product(got, fn, *args)


def test_einsum_mixed_dtypes():
    a, b = np.ones((2, 3), np.int8), np.ones((3,), np.uint8)
    assert_matches(jc.jit(lambda a, b: np.einsum("ij,j", a, b))(a, b), np.einsum("ij,j", a, b))


def test_einsum_diagonal_is_one_strided_read_fused_into_the_trace():
    x = np.arange(16.0).reshape(4, 4)
    lowered = jc.jit(lambda a: np.einsum("ii", a)).lower(x)
    optimized = lowered.as_text("optimized")
    assert optimized.count('"kernel.generic"') == 1
    assert "affine_map<(d0) -> (d0, d0)>" in optimized
    assert '"array.diagonal"' in lowered.as_text("traced")
    c = np.arange(9.0).reshape(3, 3)  # a constant operand folds
    assert_matches(jc.jit(lambda a: a + np.einsum("ii->i", c))(np.ones(3)), 1 + np.diagonal(c))


@pytest.mark.parametrize("offset", [-4, -1, 0, 1, 3, 5])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 0), (-1, 1)])
def test_diagonal_and_trace_match_numpy(offset, axes):
    x = np.random.default_rng(1).standard_normal((3, 4, 5)).astype(np.float32)
    assert_matches(jc.jit(lambda a: np.diagonal(a, offset, *axes))(x), np.diagonal(x, offset, *axes))
    assert_matches(jc.jit(lambda a: a.diagonal(offset, *axes) + 1)(x), x.diagonal(offset, *axes) + 1)
    assert_product(jc.jit(lambda a: np.trace(a, offset, *axes))(x), lambda a: np.trace(a, offset, *axes), x)
    xi = np.arange(20, dtype=np.int8).reshape(4, 5)
    assert_matches(jc.jit(lambda a: np.trace(a, offset))(xi), np.trace(xi, offset))  # summed as int64


@pytest.mark.parametrize("k", [-2, 0, 1, 6])
def test_diag_matches_numpy(k):
    v, m = np.arange(1.0, 4.0), np.arange(20, dtype=np.int16).reshape(4, 5)
    assert_matches(jc.jit(lambda a: np.diag(a, k))(v), np.diag(v, k))
    assert_matches(jc.jit(lambda a: np.diag(a, k))(m), np.diag(m, k))


def test_einsum_diagonal_of_unequal_dims_is_refused_like_numpy():
    with pytest.raises(ValueError):
        np.einsum("ii", np.ones((2, 3)))
    with pytest.raises(jc.JitTypeError, match="collapsing index 'i' don't match \\(2 != 3\\)"):
        jc.jit(lambda a: np.einsum("ii", a))(np.ones((2, 3)))


def test_einsum_batch_order_needs_no_transpose():
    a, b = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32)
    lowered = jc.jit(lambda a, b: np.einsum("bij,bjk->bik", a, b)).lower(a, b)
    assert "array.transpose" not in lowered.as_text("traced")
    lowered = jc.jit(lambda a, b: np.einsum("ij,jk->ki", a, b)).lower(a[0], b[0])
    assert "array.transpose" not in lowered.as_text("traced")  # operands swapped instead


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, shapes, message", [
    (lambda a, b: a @ b, [(2, 3), (4, 5)],
     "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
     "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)"),
    (lambda a, b: a @ b, [(2, 2, 3), (3, 3, 5)],
     "matmul: operands could not be broadcast together: batch shapes (2,) and (3,) of shapes (2,2,3) "
     "and (3,3,5)"),
    (lambda a, b: a @ b, [(3,), ()], "matmul: Input operand 1 does not have enough dimensions (has 0"),
    (lambda a, b: np.matmul(a, b), [(), (3,)], "matmul: Input operand 0 does not have enough dimensions"),
    (np.dot, [(2, 3), (4, 5)], "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)"),
    (lambda a, b: np.vecdot(a, b), [(3,), (4,)], "vecdot: Input operand 1 has a mismatch in its core "
     "dimension 0, with gufunc signature (n),(n)->() (size 4 is different from 3)"),
    (lambda a, b: np.vecdot(a, b), [(2, 3), (3, 3)], "vecdot: operands could not be broadcast together"),
    (lambda a, b: jnp.matvec(a, b), [(2, 3), (4,)], "matvec: Input operand 1 has a mismatch in its core "
     "dimension 0, with gufunc signature (m,n),(n)->(m) (size 4 is different from 3)"),
    (lambda a, b: jnp.matvec(a, b), [(3,), (3,)], "matvec: Input operand 0 does not have enough dimensions "
     "(has 1, gufunc core with signature (m,n),(n)->(m) requires 2)"),
    (lambda a, b: jnp.vecmat(a, b), [(3,), (4, 2)], "vecmat: Input operand 1 has a mismatch in its core "
     "dimension 0, with gufunc signature (n),(n,m)->(m) (size 4 is different from 3)"),
    (np.dot, [(3,), (4,)], "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)"),
    (np.inner, [(2, 3), (4, 5)], "shapes (2,3) and (5,4) not aligned: 3 (dim 1) != 5 (dim 0)"),
    (np.vdot, [(3,), (4,)], "vdot: cannot reshape array of size 4 into shape (3,)"),
    (np.tensordot, [(2, 3), (4, 5)], "tensordot: shape-mismatch for sum"),
    (lambda a, b: np.tensordot(a, b, ([0, 1], [0])), [(2, 3), (2, 5)], "tensordot: shape-mismatch for sum"),
    (lambda a, b: np.tensordot(a, b, ([2], [0])), [(2, 3), (2, 5)], "tensordot: axis 2 is out of bounds"),
    (lambda a, b: np.einsum("ij,jk->ik", a, b), [(2, 3), (4, 5)],
     "einsum 'ij,jk->ik': operands could not be broadcast together: dim 'j' is 3 in one operand and 4"),
    (lambda a, b: np.einsum("ij,jk->ik", a, b), [(2, 3, 1), (3, 5)],
     "einsum 'ij,jk->ik': subscripts 'ij' do not match an operand of 3 dims"),
    (lambda a, b: np.einsum("ij->ix", a, b), [(2, 3), (3, 5)],
     "einsum 'ij->ix': 1 operand subscripts for 2 operands"),
    (lambda a: np.einsum("ij->ix", a), [(2, 3)], "einsum 'ij->ix': output label 'x' appears in no input"),
    (lambda a: np.einsum("ij->ii", a), [(2, 3)], "einsum 'ij->ii': an output label appears more than once"),
    (lambda a: np.einsum("i1->i", a), [(2, 3)], "einsum 'i1->i': invalid subscripts 'i1'"),
])
def test_shape_errors_name_the_problem(fn, shapes, message):
    args = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(jc.JitTypeError) as info:
        jc.jit(fn)(*args)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize("fn, message", [
    (lambda a: np.einsum(a, [0, 1], [1, 0], dtype=np.float64), "numpy.einsum with dtype= is not supported"),
    (lambda a: np.einsum("ij->ji", a, dtype=np.float64), "numpy.einsum with dtype= is not supported"),
    (lambda a: np.dot(a, a, out=np.empty((3, 3))), "numpy.dot with out= is not supported"),
    (lambda a: np.matmul(a, a, out=np.empty((3, 3))), "numpy.matmul(..., out=) into an array"),
])
def test_unsupported_forms_say_so(fn, message):
    with pytest.raises(jc.UnsupportedError) as info:
        jc.jit(fn)(np.ones((3, 3)))
    assert str(info.value).startswith(message), str(info.value)


def test_unsupported_dtype_is_named():
    with pytest.raises(jc.JitTypeError, match=f"{np.dtype(np.longdouble)} is not supported"):
        jc.jit(lambda a: a @ np.ones((3, 3), np.longdouble))(np.ones((3, 3)))


# -- IR ------------------------------------------------------------------------------------
def _ops(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if f'"{name}"' in line]


def test_traced_ir_is_one_dot_general():
    a, b = np.ones((5, 2, 3), np.float32), np.ones((3, 4), np.float32)
    traced = jc.make_ir(lambda a, b: a @ b)(a, b)
    text = str(traced)
    (dot,) = _ops(text, "array.dot_general")
    assert ("{lhs_batch = [0], lhs_contracting = [2], rhs_batch = [0], rhs_contracting = [1]} : "
            "(tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>") in dot
    assert len(_ops(text, "array.broadcast_in_dim")) == 1  # b's batch dim


def test_optimized_ir_is_one_reduction_kernel_with_fused_broadcast():
    a, b = np.ones((5, 2, 3), np.float32), np.ones((3, 4), np.float32)
    text = jc.jit(lambda a, b: a @ b).lower(a, b).as_text("optimized")
    (kernel,) = _ops(text, "kernel.generic")
    assert 'iterator_types = ["parallel", "parallel", "reduction", "parallel"]' in text
    # b is read through a map that ignores the batch dim: the broadcast costs no copy.
    assert "affine_map<(d0, d1, d2, d3) -> (d2, d3)>" in text
    assert "array." not in text.replace('"array.constant"', "")


def _random(*shape, seed=0):
    """Distinct values, so that reading an element through a wrong index map shows."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _contraction_body(text: str) -> str:
    """The body and attributes of the one kernel with a reduction in optimized IR ``text``."""
    (kernel,) = [k for k in text.split('"kernel.generic"')[1:] if '"reduction"' in k]
    return kernel


def test_cheap_elementwise_producer_is_fused_into_an_integer_contraction():
    """``a * 2`` is one scalar op: fuse.py's cost rule (at most max-recompute = 2 ops) recomputes it for
    each of the m columns it is read for, rather than writing and reading a buffer."""
    a, b = _small_integers(3, 4).astype(np.int32), _small_integers(4, 5, seed=1).astype(np.int32)
    fn = jc.jit(lambda a, b: (a * 2) @ b)
    text = fn.lower(a, b).as_text("optimized")
    assert len(_ops(text, "kernel.generic")) == 1
    assert len(_ops(text, "arith.muli")) == 2 and len(_ops(text, "arith.addi")) == 1
    assert_product(fn(a, b), lambda a, b: (a * 2) @ b, a, b)


def test_cheap_producer_of_a_float_matrix_product_is_computed_once():
    """Not so into a float matrix product: recomputed per column, ``a * 2`` would keep it from
    being a BLAS call, so it gets a buffer and the product stays ``acc + a * b``."""
    a, b = _random(3, 4), _random(4, 5, seed=1)
    fn = jc.jit(lambda a, b: (a * 2) @ b)
    text = fn.lower(a, b).as_text("optimized")
    assert len(_ops(text, "kernel.generic")) == 2
    body = _contraction_body(text)
    assert body.count('"arith.mulf"') == 1 and "arith.constant" not in body
    assert_product(fn(a, b), lambda a, b: (a * 2) @ b, a, b)


def test_expensive_producer_read_many_times_is_materialised():
    """exp(sin(a) * 3 + 1) is four ops and the matmul reads each of its elements m times (its
    map for ``a`` leaves out the rhs free dim): by fuse.py's rule it gets a buffer."""
    a, b = np.abs(_random(3, 4)), _random(4, 5, seed=1)  # a >= 0: fn(|a|, |b|) bounds the terms
    fn = jc.jit(lambda a, b: np.exp(np.sin(a) * 3 + 1) @ b)
    text = fn.lower(a, b).as_text("optimized")
    first, second = _ops(text, "kernel.generic")
    body = text[text.index(first):text.index(second)]
    assert "math.exp" in body and "iterator_types" in text
    assert text.count('"reduction"') == 1
    # The producer is jitcore's exp and sin, a few ULP from NumPy's: far inside the sum's bound.
    assert_product(fn(a, b), lambda a, b: np.exp(np.sin(a) * 3 + 1) @ b, a, b)


def test_expensive_producer_read_once_is_fused():
    """A matrix-vector product reads each matrix element once (its map uses every iteration
    dim), so a producer with no other user is fused whatever its cost."""
    a, x = np.abs(_random(3, 4)), _random(4, seed=1)  # a >= 0: fn(|a|, |x|) bounds the terms
    fn = jc.jit(lambda a, x: np.exp(np.sin(a) * 3 + 1) @ x)
    text = fn.lower(a, x).as_text("optimized")
    assert len(_ops(text, "kernel.generic")) == 1
    assert_product(fn(a, x), lambda a, x: np.exp(np.sin(a) * 3 + 1) @ x, a, x)


def _mlp_layer(x, w, b, v, g):
    h = np.tanh(x @ w + b)
    return h @ v, (g @ v.T) * (1 - h * h)


def test_math_stored_for_a_contraction_is_read_not_recomputed():
    """``h = tanh(x @ w + b)`` is stored for ``h @ v``, so the backward kernel reads it rather
    than computing ``tanh`` again (fuse.py's ``_stored_for_a_contraction``); ``x @ w`` then has
    one reader, and its bias and ``tanh`` become its epilogue: one ``tanh`` in the program."""
    x, w, b = _random(70, 33), _random(33, 72, seed=1), _random(72, seed=2)
    v, g = _random(72, 9, seed=3), _random(70, 9, seed=4)
    fn = jc.jit(_mlp_layer)
    text = fn.lower(x, w, b, v, g).as_text("optimized")
    assert len(_ops(text, "math.tanh")) == 1
    fused = text.split('"kernel.generic"')[1]  # the first kernel: x @ w, its sum a loop over k
    assert '"scf.for"' in fused and '"math.tanh"' in fused
    for got, want in zip(fn(x, w, b, v, g), _mlp_layer(x, w, b, v, g)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def _small_integers(*shape, seed=0):
    """Integer-valued floats: every product and sum of a few of them is exact, so a contraction
    equals NumPy's bit for bit in any order, and a wrong index map shows."""
    return np.random.default_rng(seed).integers(-8, 9, shape).astype(np.float32)


A, B, V, X = (_small_integers(*s, seed=i) for i, s in enumerate([(4, 3), (6, 5), (3,), (2, 3, 4)]))
# (producer op in the contraction kernel, function, arguments): exact elementwise producers read
# through transposed, broadcast, sliced and reversed maps.
FUSED_PRODUCERS = {
    "transposed": ("arith.mulf", lambda a, b: (a.T * 2) @ b[:4], (A, B)),
    "rank-3 transpose": ("arith.mulf", lambda x, b: (x.transpose(1, 2, 0) * 2) @ b[:2, :3], (X, B)),
    "broadcast row": ("arith.addf", lambda a, v, b: (a + v) @ b[:3], (A, V, B)),
    "broadcast column": ("arith.subf", lambda a, v, b: (a - v[:, None].T) @ b[1:4], (A, V, B)),
    "sliced and reversed": ("arith.subf", lambda a, b: (a[1:, ::-1] - 1) @ b[::2, :4][:3], (A, B)),
    "both operands": ("arith.addf", lambda a: (a * 2) @ (a.T + 1), (A,)),
    "matvec": ("arith.maximumf", lambda a, v: np.maximum(a, -2) @ v[::-1], (A, V)),
    "vecmat": ("arith.mulf", lambda v, a: (v * 3) @ a.T, (V, A)),
    "einsum": ("arith.subf", lambda a, b: np.einsum("ij,kj->ik", 1 - a, b[:, :3] * 3), (A, B)),
    "einsum batch": ("arith.subf", lambda x, b: np.einsum("bij,jk->bki", x - 1, b[:4, ::2]), (X, B)),
    "tensordot": ("arith.mulf", lambda x, a: np.tensordot(x[:, ::-1] * 5, a.T[:, :3], ([1], [1])), (X, A)),
    "dot of a broadcast": ("arith.mulf", lambda a, v: np.dot(np.broadcast_to(v, (4, 3)) * a, a.T), (A, V)),
    "strided arguments": ("arith.mulf", lambda a, b: (a.T * 2) @ b, (A[::-1], B[::-1, 1::2][:4, :3].T.T)),
}


_AS_INTEGER = {"arith.mulf": "arith.muli", "arith.addf": "arith.addi", "arith.subf": "arith.subi",
               "arith.maximumf": "arith.maxsi"}


@pytest.mark.parametrize("name", list(FUSED_PRODUCERS))
def test_elementwise_producers_fused_into_contractions_match_numpy(name):
    """In int32 each producer runs inside the contraction's kernel (fused, not materialised),
    and the result is NumPy's, bit for bit: a wrong index map for a fused operand reads other
    values."""
    op, fn, args = FUSED_PRODUCERS[name]
    args = tuple(a.astype(np.int32) for a in args)
    text = jc.jit(fn).lower(*args).as_text("optimized")
    body = _contraction_body(text)
    producers = body.replace('"arith.muli"', "", 1).replace('"arith.addi"', "", 1)  # its own ops
    assert f'"{_AS_INTEGER[op]}"' in producers, text
    assert_matches(jc.jit(fn)(*args), fn(*args), 0, name)


@pytest.mark.parametrize("name", list(FUSED_PRODUCERS))
def test_producers_of_float_contractions_match_numpy(name):
    """The same in float32, where a contraction runs as a BLAS call when its operands allow
    (producers it would recompute are materialised): NumPy's result, bit for bit."""
    _, fn, args = FUSED_PRODUCERS[name]
    assert_matches(jc.jit(fn)(*args), fn(*args), 0, name)


def test_transcendental_producer_fused_into_a_matvec():
    a, v = _random(4, 3), _random(4, seed=1)
    fn = jc.jit(lambda a, v: np.exp(a.T[::-1]) @ v)
    assert '"math.exp"' in _contraction_body(fn.lower(a, v).as_text("optimized"))
    # exp is positive: exp(|a|) @ |v|, the bound assert_product takes, bounds every term.
    assert_product(fn(a, v), lambda a, v: np.exp(a.T[::-1]) @ v, a, v)


def test_outer_product_kernel_has_no_reduction():
    a, b = np.ones(3, np.int32), np.ones(4, np.int32)
    text = jc.jit(np.outer).lower(a, b).as_text("optimized")
    assert len(_ops(text, "kernel.generic")) == 1 and "reduction" not in text and "inits" not in text


def test_constant_operands_fold():
    def weights():
        return np.arange(6.0).reshape(2, 3) - 2.5

    def fn(x):
        w = weights()  # made while tracing: a constant (a closed-over array is read per call)
        c = jnp.ones_like(x)[:, :1] * w  # a traced constant, w by rows
        return x + c @ (c.T * 3)

    x = np.random.default_rng(4).standard_normal((2, 2))
    lowered = jc.jit(fn).lower(x)
    assert "array.dot_general" in lowered.as_text("traced")
    optimized = lowered.as_text("optimized")
    assert "dot_general" not in optimized and len(_ops(optimized, "kernel.generic")) == 1  # the add
    w = weights()
    assert_matches(jc.jit(fn)(x), x + w @ (w.T * 3))


# -- float contractions as BLAS calls (codegen/cpu/gemm.py) ----------------------------------
HAS_BLAS = blas.library() is not None
needs_blas = pytest.mark.skipif(not HAS_BLAS, reason="NumPy's OpenBLAS not found in this process")


@pytest.fixture
def products_on_blas(monkeypatch):
    """Plain matrix products on BLAS, as they were before jitcore had its own tiled kernel
    (which gemm.py's rule now chooses for them, within the float bound of NumPy's result but
    not bit for bit: tests/codegen/test_tiled_gemm.py). The disk cache keys on the rule."""
    monkeypatch.setattr(gemm, "TILED_MIN_WORK", 1 << 62)


def _llvm(fn, *args) -> str:
    return jc.jit(fn).lower(*args).plan().llvm_ir


def _calls(text: str) -> list[str]:
    """The BLAS routines an LLVM module calls."""
    return sorted({line.split("@")[1].split("(")[0].strip('"') for line in text.splitlines()
                   if line.lstrip().startswith("declare") and "cblas" in line})


# (n, k, m): a sparse set of sizes from 1 to 2048, square and not, with vector shapes.
SIZES = [(1, 1, 1), (2, 3, 4), (7, 1, 5), (16, 16, 16), (33, 65, 17), (64, 64, 64), (100, 3, 257),
         (255, 256, 257), (1024, 1024, 1024), (2048, 2048, 2048), (1, 2048, 3), (3, 2048, 1)]


# The 2048-cube product runs in float32 only, to keep the suite's time.
FLOAT_MATMULS = [(n, k, m, dtype) for n, k, m in SIZES for dtype in (np.float32, np.float64)
                 if n * k * m <= 2 ** 27 or dtype == np.float32]


@pytest.mark.usefixtures("products_on_blas")
@pytest.mark.parametrize("n, k, m, dtype", FLOAT_MATMULS, ids=str)
def test_float_matmul_of_any_size_is_numpys_bit_for_bit(n, k, m, dtype):
    """Contiguous operands reach the same BLAS routine NumPy calls, with the same arguments."""
    rng = np.random.default_rng(n * 7 + k * 3 + m)
    a, b = rng.standard_normal((n, k)).astype(dtype), rng.standard_normal((k, m)).astype(dtype)
    on_blas = jc.jit(lambda a, b: a @ b)  # not MATMUL: other tests compile it with the rule's choice
    assert_matches(on_blas(a, b), a @ b, 0, f"{n}x{k} @ {k}x{m}")


@pytest.mark.usefixtures("products_on_blas")
@needs_blas
@pytest.mark.parametrize("fn, shapes, routine", [
    (lambda a, b: a @ b, [(8, 5), (5, 6)], "gemm"),
    (lambda a, b: a.T @ b, [(5, 8), (5, 6)], "gemm"),
    (lambda a, x: a @ x, [(8, 5), (5,)], "gemv"),
    (lambda x, a: x @ a, [(5,), (5, 8)], "gemv"),
    (lambda a, b: np.einsum("bij,bjk->bik", a, b), [(3, 32, 33), (3, 33, 34)], "gemm"),
    (lambda a, b: np.tensordot(a, b, 2), [(4, 5, 6), (5, 6, 7)], "gemm"),
], ids=["matmul", "transposed", "matvec", "vecmat", "batched", "tensordot"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_float_contraction_calls_blas(fn, shapes, routine, dtype):
    """The LLVM module calls the routine, and the plan names it (resolved when loaded); the
    launch runs as one piece (the library threads it)."""
    args = [np.ones(s, dtype) for s in shapes]
    symbol = blas.library().routine(("s" if dtype == np.float32 else "d") + routine)
    plan = jc.jit(fn).lower(*args).plan()
    assert _calls(plan.llvm_ir) == [symbol]
    (launch,) = [launch for launch in plan.launches if launch.calls]
    assert launch.calls == (symbol,) and launch.parallel_extent == ()
    assert_matches(jc.jit(fn)(*args), fn(*args), 0, routine)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_vector_products_are_sums_in_the_documented_order(dtype):
    """``x @ y``, ``np.sum(x * y)`` and a row dot of one row call no BLAS ``dot``: they are
    reductions of products, in ``reduction.py``'s order (``codegen/cpu/gemm.py``)."""
    rng = np.random.default_rng(7)
    n = 33 * 256 + 7  # whole runs of blocks, a carry, a single block and a tail
    x, y = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    row = jc.jit(lambda a, b: np.einsum("ij,ij->i", a, b))
    assert _calls(_llvm(lambda a, b: a @ b, x, y)) == _calls(_llvm(row, x[None], y[None])) == []
    assert jc.jit(lambda a, b: a @ b)(x, y) == documented_sum(x * y)
    assert row(x[None], y[None]) == documented_sum(x * y)


@pytest.mark.usefixtures("products_on_blas")
@needs_blas
@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: np.einsum("ij,ij->i", a, b), [(1000, 8), (1000, 8)]),
    (lambda a, x: np.einsum("bij,bj->bi", a, x), [(100, 8, 8), (100, 8)]),
    (lambda a, b: a @ b, [(100, 3, 3), (100, 3, 3)]),  # (16^3 calls since rl52: measured)
], ids=["row dots", "matvecs", "matmuls"])
def test_batches_of_small_products_stay_loops(fn, shapes):
    """A call per batch index costs more than the loop nest's work on small products
    (``MIN_BATCHED_WORK`` in codegen/cpu/gemm.py); one large enough product takes the call."""
    args = [np.random.default_rng(5).standard_normal(s).astype(np.float32) for s in shapes]
    assert _calls(_llvm(fn, *args)) == []
    assert_product(jc.jit(fn)(*args), fn, *args)
    one = _calls(_llvm(fn, *[a[:1] for a in args]))  # a batch of one: a call, but a dot is a sum
    assert one == [] if fn(*args).ndim == 1 else one != []


@pytest.mark.usefixtures("products_on_blas")
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.complex64, np.complex128, np.float16, np.bool_],
                         ids=str)
def test_other_dtypes_keep_the_loop_nest(dtype):
    """Integers, bools and complex numbers stay loop nests (exact, or NumPy's own order);
    float16 contracts in float32, so it calls sgemm."""
    rng = np.random.default_rng(1)
    a, b = (rng.integers(-3, 4, s).astype(dtype) for s in [(9, 7), (7, 5)])
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.integers(-3, 4, a.shape).astype(dtype)
    called = _calls(_llvm(lambda a, b: a @ b, a, b))
    assert called == ([blas.library().routine("sgemm")] if dtype == np.float16 and HAS_BLAS else [])
    assert_product(MATMUL(a, b), np.matmul, a, b)


def _layouts(a: np.ndarray):
    """``a``'s values with C, F, transposed-copy, row-strided, column-strided and reversed
    layouts (the last two have no unit stride: BLAS cannot take them, the loops do)."""
    big = np.zeros((2 * a.shape[0], 2 * a.shape[1]), a.dtype)
    big[::2, ::2] = a
    rows = np.zeros((a.shape[0], a.shape[1] + 3), a.dtype)
    rows[:, 1:-2] = a
    reversed_ = a[::-1, ::-1].copy()[::-1, ::-1]
    return {"C": a, "F": np.asfortranarray(a), "T": np.ascontiguousarray(a.T).T,
            "row-strided": rows[:, 1:-2], "every-other": big[::2, ::2], "reversed": reversed_}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("left", ["C", "F", "T", "row-strided", "every-other", "reversed"])
@pytest.mark.parametrize("right", ["C", "F", "every-other"])
def test_strided_and_transposed_operands(left, right, dtype):
    """Any layout, within the float bound of NumPy's result (and exactly it where both call
    the same routine on the same layout)."""
    rng = np.random.default_rng(2)
    a = _layouts(rng.standard_normal((37, 29)).astype(dtype))[left]
    b = _layouts(rng.standard_normal((29, 31)).astype(dtype))[right]
    assert_product(MATMUL(a, b), np.matmul, a, b)
    x = _layouts(rng.standard_normal((29, 2)).astype(dtype))[right][:, 0]  # a strided vector
    assert_product(MATMUL(a, x), np.matmul, a, x)
    assert_product(MATMUL(x, a.T), np.matmul, x, a.T)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_batched_and_broadcast_products(dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 2, 17, 9)).astype(dtype)
    b = rng.standard_normal((2, 9, 11)).astype(dtype)
    assert_product(MATMUL(a, b), np.matmul, a, b)
    assert_product(MATMUL(a[:, :, ::2], b[:1]), np.matmul, a[:, :, ::2], b[:1])
    assert_product(MATMUL(a, b[0, :, 0]), np.matmul, a, b[0, :, 0])
    packed = a[..., ::2], b[:, ::2, ::-1]  # no unit stride, a negative one: packed per batch
    assert_product(MATMUL(*packed), np.matmul, *packed)  # NumPy: its own loop, another order
    assert_product(MATMUL(a.swapaxes(-1, -2), a), np.matmul, a.swapaxes(-1, -2), a)
    einsum = jc.jit(lambda a, b: np.einsum("abij,bjk->kai", a, b))
    assert_product(einsum(a, b), lambda a, b: np.einsum("abij,bjk->kai", a, b), a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_products_broadcast_over_the_right_operands_stack(dtype):
    """``(n, k) @ (B, k, m)``: fusion reads the left matrix with stride 0 along the batch, and
    the batch dim, parted from the result's m dim by its rows, runs as a stack of products
    (odd extents, a batch of one, strided and transposed operands, an empty one)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((40, 37)).astype(dtype)  # big enough for a call per batch index
    b = rng.standard_normal((5, 37, 70)).astype(dtype)
    assert_product(MATMUL(a, b), np.matmul, a, b)
    assert_product(MATMUL(a, b[:1]), np.matmul, a, b[:1])
    assert_product(MATMUL(a.T.copy().T, b[:, ::-1, ::3]), np.matmul, a.T.copy().T, b[:, ::-1, ::3])
    assert_product(MATMUL(a[:, :0], b[:, :0]), np.matmul, a[:, :0], b[:, :0])
    stacked = jc.jit(lambda a, b: np.einsum("ij,bjk->bik", a, b))
    assert_product(stacked(a, b), lambda a, b: np.einsum("ij,bjk->bik", a, b), a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("sa, sb", [((0, 4), (4, 3)), ((3, 0), (0, 5)), ((3, 4), (4, 0)), ((0,), (0,)),
                                    ((2, 0, 3), (3, 4))], ids=str)
def test_empty_float_contractions(sa, sb, dtype):
    a, b = np.ones(sa, dtype), np.ones(sb, dtype)
    assert_matches(MATMUL(a, b), np.matmul(a, b), 0, "empty")


@pytest.mark.usefixtures("products_on_blas")
def test_epilogue_is_one_elementwise_kernel_after_the_product():
    """A bias and an activation on the product are one kernel that reads it once: with
    ``fuse{gemm-epilogue=false}`` an elementwise kernel after the product; by default the
    product's own kernel, after its sum (tests/codegen/test_gemm_epilogue.py), which on BLAS
    runs the call and then that elementwise loop (NumPy's bits)."""
    rng = np.random.default_rng(4)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in [(16, 8), (8, 64), (64,)])
    unfused = jc.compiler.DEFAULT_PIPELINE.replace(",fuse,", ",fuse{gemm-epilogue=false},")
    fn = jc.jit(lambda a, b, c: np.maximum(a @ b + c, 0), pipeline=unfused)
    text = fn.lower(a, b, c).as_text("optimized")
    product, epilogue = _ops(text, "kernel.generic")
    assert "arith.maximumf" in text[text.index(epilogue):] and "arith.maximumf" not in _contraction_body(text)
    assert_matches(fn(a, b, c), np.maximum(a @ b + c, 0), 0, "bias and relu")
    fn = jc.jit(lambda a, b, c: np.maximum(a @ b + c, 0))
    text = fn.lower(a, b, c).as_text("optimized")
    (fused,) = _ops(text, "kernel.generic")
    assert text.index('"scf.for"') < text.index('"arith.maximumf"')
    assert _calls(fn.lower(a, b, c).plan().llvm_ir)
    assert_matches(fn(a, b, c), np.maximum(a @ b + c, 0), 0, "bias and relu, fused")


NUMPY_LINALG_NAMES = {  # numpy.linalg's own functions on traced arrays (audit10b: refused before)
    "vector_norm": lambda a, b: np.linalg.vector_norm(a, axis=1, ord=1),
    "matrix_norm": lambda a, b: np.linalg.matrix_norm(a),
    "matrix_transpose": lambda a, b: np.linalg.matrix_transpose(a),
    "diagonal": lambda a, b: np.linalg.diagonal(a),
    "trace": lambda a, b: np.linalg.trace(a),
    "outer": lambda a, b: np.linalg.outer(a[0], b),
    "cross": lambda a, b: np.linalg.cross(a, a[::-1]),
    "vecdot": lambda a, b: np.linalg.vecdot(a, b),
    "matmul": lambda a, b: np.linalg.matmul(a, a.T),
    "tensordot": lambda a, b: np.linalg.tensordot(a, a),
}


@pytest.mark.parametrize("name", NUMPY_LINALG_NAMES)
def test_numpy_linalg_names_on_traced_arrays(name):
    fn = NUMPY_LINALG_NAMES[name]
    a, b = np.arange(9.0).reshape(3, 3) - 4, np.array([1.0, -2.0, 0.5])
    got, want = jc.jit(fn)(a, b), fn(a, b)
    assert type(got) is type(want) and got.dtype == want.dtype and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-15)
