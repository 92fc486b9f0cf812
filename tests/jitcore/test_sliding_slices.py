"""Slices whose bounds are a loop index plus constants (``x[i:i + w]``) inside a traced loop: a
static length at a traced start, read and written in place of unrolling the loop
(``jitcore/index_forms.py``). NumPy, running the same Python, is the oracle; the traced IR must
hold the loop (``scf.for``), so no case passes by being unrolled (a loop of at most 64 steps may
be, by design: the sizes here are past that). Where a slice could be clamped
by NumPy for some value of the index (``x[i - 1:i + 1]`` at ``i = 0``), the loop is unrolled as
before and the result is still NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore import index_forms


def traced(f, *args, **static):
    return jc.jit(f, static_argnames=tuple(static) or None).lower(*args, **static).as_text("traced")


def moving_max(x, w):
    out = np.empty(x.shape[0] - w + 1, x.dtype)
    for i in range(x.shape[0] - w + 1):
        out[i] = x[i:i + w].max()
    return out


def strided_windows(x):
    out = np.zeros(3, x.dtype)
    for i in range(0, x.shape[0] - 6, 2):
        out = out + x[i + 1:i + 7:2]  # three elements, every other one
    return out


def floyd_warshall(d):
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def block_sums(a, b):
    s = np.zeros((b, b), a.dtype)
    for i in range(0, a.shape[0] - b + 1, b):
        for j in range(0, a.shape[1] - b + 1, b):
            s += a[i:i + b, j:j + b]
    return s


def spread(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        out[i - 1:i + 2] += x[i] * np.array([1.0, 2.0, 1.0])  # a read-modify-write of the window
    return out


def row_windows(a):
    out = np.zeros_like(a)
    for j in range(a.shape[1] - 1):
        out[1:, j:j + 2] = a[:-1, j:j + 2] - out[1:, j:j + 2]  # a 2-D window, a static slice beside
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_moving_max_is_a_loop_and_numpys(dtype):
    f = jc.jit(moving_max, static_argnames="w")
    for n in (4, 5, 41):
        x = (np.random.default_rng(n).standard_normal(n) * 100).astype(dtype)
        np.testing.assert_array_equal(f(x, 4), moving_max(x, 4))
    assert '"scf.for"' in traced(moving_max, np.zeros(41, dtype), w=4)


def test_strided_windows():
    x = np.arange(151.0) ** 1.5
    np.testing.assert_array_equal(jc.jit(strided_windows)(x), strided_windows(x))
    assert '"scf.for"' in traced(strided_windows, x)


def test_floyd_warshall_columns_and_rows():
    d = np.random.default_rng(3).random((70, 70)) * 10
    np.testing.assert_array_equal(jc.jit(floyd_warshall)(d), floyd_warshall(d))
    assert '"scf.for"' in traced(floyd_warshall, d)


def test_nested_blocks():
    a = np.random.default_rng(4).integers(-9, 9, (10, 270)).astype(np.int64)
    np.testing.assert_array_equal(jc.jit(block_sums, static_argnames="b")(a, 3), block_sums(a, 3))
    assert '"scf.for"' in traced(block_sums, a, b=3)  # the inner loop (the outer one: 3 copies)


def test_window_writes():
    x = np.random.default_rng(5).standard_normal(100)
    np.testing.assert_array_equal(jc.jit(spread)(x), spread(x))
    assert '"scf.for"' in traced(spread, x)
    a = np.random.default_rng(6).standard_normal((5, 80))
    np.testing.assert_array_equal(jc.jit(row_windows)(a), row_windows(a))
    assert '"scf.for"' in traced(row_windows, a)


def clamped(x):
    s = np.zeros((), x.dtype)
    for i in range(x.shape[0]):
        s = s + x[i - 1:i + 1].sum()  # at i = 0 NumPy reads x[-1:1]: empty, not two elements
    return s


def past_the_end(x):
    s = np.zeros((), x.dtype)
    for i in range(x.shape[0]):
        s = s + x[i:i + 3].sum()  # the last two windows are shorter
    return s


@pytest.mark.parametrize("f", [clamped, past_the_end])
def test_slices_numpy_would_clamp_are_still_numpys(f):
    x = np.arange(1.0, 67.0)  # 66 steps: past the unrolling limit, so the loop is tried first
    assert jc.jit(f)(x) == f(x)


def test_forms_are_proved_or_absent():
    steps = index_forms.loop_index(range(2, 11, 3))  # 2, 5, 8
    assert (steps.lo, steps.hi) == (2, 8)
    assert index_forms.loop_index(range(5, 5)) is None
    down = index_forms.loop_index(range(9, 0, -4)).times(2).plus(-1)  # 2*{9,5,1} - 1
    assert (down.lo, down.hi, down.scale, down.offset) == (1, 17, 2, -1)

    class Index:
        def __init__(self, form):
            self.index_form = form
    i = Index(steps)
    assert index_forms.static_slice(slice(i, Index(steps.plus(3))), 11)[1:] == (3, 1, False)
    assert index_forms.static_slice(slice(i, Index(steps.plus(3))), 10) is None  # 8 + 3 > 10
    assert index_forms.static_slice(slice(i, Index(steps.plus(5)), 2), 13)[1:] == (3, 2, False)
    assert index_forms.static_slice(slice(i, Index(steps.times(2))), 99) is None  # length varies
    other = Index(index_forms.loop_index(range(2, 11, 3)))  # another loop's index
    assert index_forms.static_slice(slice(i, other), 99) is None


def test_a_traced_length_is_a_prefix_mask(without_auto_static):
    # x[i:i + n] with n traced (no loop's bounds): the mask i <= arange(8) < stop with NumPy's
    # stop for every n, negative ones counted from the end (session 47; it asked for a
    # concrete value before)
    def head(x, n):
        s = 0.0
        for i in range(3):
            s = s + x[i:i + n].sum()
        return s

    x = np.arange(8.0) + 1
    f = jc.jit(head)
    for n in (2, 0, -3, -20, 9, 100):
        assert f(x, n) == head(x, n), n


# -- slices of traced length (x[:i], L[i, :i], x[i:]): masks, reduced or written --------------------
def forward_substitution(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def prefix_and_suffix(x):
    out = np.zeros((4, x.shape[0]), x.dtype)
    for i in range(x.shape[0]):
        out[0, i] = x[:i + 1].max()
        out[1, i] = x[i:].min()
        out[2, i] = np.sum(x[:i])  # empty at i = 0: 0
        out[3, i] = np.dot(x[i:], x[i:])
    return out


def prefix_writes(a):
    out = a.copy()
    for i in range(a.shape[0]):
        out[:i] = out[:i] * 2 - 1  # a selection written through the same mask
        out[i:] += 1  # read, add, write back
    return out


def column_prefix(a):
    s = np.zeros(a.shape[0], a.dtype)
    for j in range(a.shape[1]):
        s[j] = a[:j, j].sum() + a[j, :j].max(initial=-9.0) if j else a[j, j]
    return s


def test_forward_substitution_is_a_loop_and_numpys():
    rng = np.random.default_rng(7)
    n = 70
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    b = rng.random(n)
    # Each row's dot runs over its window [0, i) alone (session 49), in NumPy's pairwise order:
    # np.add.reduce(L[i, :i] * x[:i])'s bits, which differ from the BLAS dot's by ~1e-13 here.
    np.testing.assert_allclose(jc.jit(forward_substitution)(L, b), forward_substitution(L, b),
                               rtol=1e-12, atol=0)
    assert '"scf.for"' in traced(forward_substitution, L, b)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_prefix_and_suffix_reductions(dtype):
    x = (np.random.default_rng(8).standard_normal(70) * 50).astype(dtype)
    np.testing.assert_allclose(jc.jit(prefix_and_suffix)(x), prefix_and_suffix(x), rtol=1e-13)
    assert '"scf.for"' in traced(prefix_and_suffix, x)


def test_prefix_writes():
    a = np.arange(70.0) % 7
    np.testing.assert_array_equal(jc.jit(prefix_writes)(a), prefix_writes(a))
    assert '"scf.for"' in traced(prefix_writes, a)


def test_column_prefix():
    a = np.random.default_rng(9).standard_normal((70, 70))
    np.testing.assert_allclose(jc.jit(column_prefix)(a), column_prefix(a), rtol=1e-12, atol=1e-14)
    assert '"scf.for"' in traced(column_prefix, a)


def cumulative_copy(x):
    out = np.zeros((x.shape[0], x.shape[0]))
    for i in range(x.shape[0]):
        out[i, :i] = x[:i]  # the row's first i elements, from a selection by the same mask
    return out


def lengths(x):
    out = np.zeros(x.shape[0], np.int64)
    for i in range(x.shape[0]):
        out[i] = x[:i].shape[0]  # needs the length: the loop is unrolled, as before
    return out


def test_writes_of_a_selection_and_uses_that_need_the_length():
    x = np.arange(1.0, 67.0)
    np.testing.assert_array_equal(jc.jit(cumulative_copy)(x), cumulative_copy(x))
    assert '"scf.for"' in traced(cumulative_copy, x)
    np.testing.assert_array_equal(jc.jit(lengths)(x), lengths(x))
    assert '"scf.for"' not in traced(lengths, x)


def test_matmul_of_a_ranged_slice_is_not_over_the_whole_array():
    def f(x, i):
        return np.matmul(x[:i], x[:i]), x[:i] @ x[:i], np.vdot(x[i:], x[i:])

    def g(x):
        return jc.fori_loop(0, 3, lambda i, c: c + sum(f(x, i + 2)), 0.0)

    x = np.arange(6.0) + 1j
    want = sum(sum(f(x, i + 2)) for i in range(3))
    np.testing.assert_allclose(jc.jit(g)(x), want, rtol=1e-14)


def test_products_of_mask_selections():
    def f(x):
        m = x > 0
        return x[m] @ x[m], np.dot(x[m], x[m]), np.matmul(x[m], 2 * x[m])

    x = np.array([1.0, -2, 3, -4, 5])
    assert jc.jit(f)(x) == f(x)
    with pytest.raises(jc.JitTypeError, match="not a 1-d or 2-d selection"):
        jc.jit(lambda x: x[x > 0] @ x)(x)


def lu_no_pivoting(a):
    a = a.copy()
    for k in range(a.shape[0] - 1):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])  # two ranged axes
    return a


def trailing_sums(a):
    out = np.zeros(a.shape[0])
    for k in range(a.shape[0]):
        out[k] = a[k:, k:].sum() - np.multiply.outer(a[k:, 0], a[0, k:]).max(initial=-1e300)
    return out


def test_two_ranged_axes_and_outer_products():
    rng = np.random.default_rng(10)
    a = rng.random((70, 70)) + 70 * np.eye(70)
    np.testing.assert_allclose(jc.jit(lu_no_pivoting)(a), lu_no_pivoting(a), rtol=1e-12, atol=1e-15)
    assert '"scf.for"' in traced(lu_no_pivoting, a)
    np.testing.assert_allclose(jc.jit(trailing_sums)(a), trailing_sums(a), rtol=1e-12)
    assert '"scf.for"' in traced(trailing_sums, a)


def cholesky_by_columns(a):
    n = a.shape[0]
    L = np.zeros_like(a)
    for j in range(n):
        L[j, j] = np.sqrt(a[j, j] - L[j, :j] @ L[j, :j])
        L[j + 1:, j] = (a[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]  # matrix @ vector
    return L


def lower_products(a):
    s = np.zeros(a.shape[0])
    for k in range(1, a.shape[0]):
        s[k] = (a[:k, :k] @ a[:k, :k]).sum() + (a[k, :k] @ a[:k, k:]).max()  # matrix, vector @ matrix
    return s


def test_products_of_ranged_matrices():
    rng = np.random.default_rng(11)
    m = rng.standard_normal((70, 70))
    a = m @ m.T + 70 * np.eye(70)
    got = jc.jit(cholesky_by_columns)(a)
    np.testing.assert_allclose(got, cholesky_by_columns(a), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=1e-10, atol=1e-12)
    assert '"scf.for"' in traced(cholesky_by_columns, a)
    np.testing.assert_allclose(jc.jit(lower_products)(m), lower_products(m), rtol=1e-12)
    assert '"scf.for"' in traced(lower_products, m)


def halve_windows(x):
    for i in range(x.shape[0] - 2):
        v = x[i:i + 3]  # a view: writes to it are writes to x, which the loop then carries
        v[:] = v * 0.5
    return x


def scale_rows(a):
    for i in range(a.shape[0]):
        row = a[i]
        row *= i + 1.0  # in place on the view
    return a


def test_writes_through_a_view_made_in_the_loop():
    x = np.arange(70.0)
    np.testing.assert_array_equal(jc.jit(halve_windows)(x.copy()), halve_windows(x.copy()))
    assert '"scf.for"' in traced(halve_windows, x)
    a = np.arange(140.0).reshape(70, 2)
    np.testing.assert_array_equal(jc.jit(scale_rows)(a.copy()), scale_rows(a.copy()))
    assert '"scf.for"' in traced(scale_rows, a)
