"""Issue 12, items 6-7: everyday NumPy functions composed from jitcore's others, as user code
writes them (the coverage table's rows in tests/coverage/everyday.py cover dtypes and edges).

``cov`` and ``corrcoef`` have no row: a mean and a dot product in another order than NumPy's
leave them within a few ULP of the data's scale, so they are compared here with a relative
tolerance. Each test compiles one function (the suite's time budget)."""

import numpy as np
import pytest

import jitcore as jc

RNG = np.random.default_rng(12)
DATA = {
    "float64": RNG.normal(size=(3, 7)),
    "int16": RNG.integers(-50, 50, size=(2, 6)).astype(np.int16),
    "complex128": RNG.normal(size=(2, 4)) + 1j * RNG.normal(size=(2, 4)),
}


def statistics(m):
    return (np.cov(m), np.cov(m, rowvar=False), np.cov(m[0], m[1]), np.cov(m, bias=True),
            np.cov(m, ddof=0), np.corrcoef(m), np.corrcoef(m[0], m[1]), np.corrcoef(m[0]),
            np.cov(m[:, :1]))


@pytest.mark.parametrize("dtype", list(DATA))
def test_cov_and_corrcoef_match_numpy(dtype):
    m = DATA[dtype]
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):  # NumPy: ddof >= samples
        want = statistics(m)
    got = jc.jit(statistics)(m)
    rtol = 1e-12
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def weighted_covariances(m, f, a):
    return (np.cov(m, aweights=a), np.cov(m, fweights=f), np.cov(m, fweights=f, aweights=a),
            np.cov(m, aweights=a, ddof=0), np.cov(m[0], aweights=a), np.cov(m, aweights=np.arange(7.0)))


def test_weighted_cov_matches_numpy():
    m, f, a = DATA["float64"], np.array([1, 0, 2, 3, 1, 1, 2]), RNG.uniform(0, 2, 7)
    want = weighted_covariances(m, f, a)
    got = jc.jit(weighted_covariances)(m, f, a)
    for g, w in zip(got, want, strict=True):
        assert type(g) is type(w) and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    for bad, error in ((lambda x: np.cov(x, aweights=-np.ones(7)), ValueError),
                       (lambda x: np.cov(x, fweights=np.full(7, 0.5)), TypeError),
                       (lambda x: np.cov(x, aweights=np.ones(3)), RuntimeError)):
        with pytest.raises(error):
            jc.jit(bad)(m)


def test_scientific_snippets_run_unchanged():
    # A signal: windowed, its spectrum's neighbours, its integral, its bins; as users write them.
    def analyse(t, y):
        window = np.hanning(t.shape[0])
        smooth = np.convolve(y * window, np.ones(3) / 3, mode="same")
        slope = np.gradient(smooth, 0.1)
        area = np.trapezoid(y, dx=0.1)
        bins = np.digitize(y, np.array([-1.0, 0.0, 1.0]))
        phase = np.unwrap(np.cumulative_sum(np.abs(y)) % (2 * np.pi))
        order = np.argsort(y)
        ranked = np.take_along_axis(y, order, axis=0)
        inside = np.isin(bins, [1, 2])
        return smooth, slope, area, bins, phase, ranked, inside, np.kron(y[:2], np.eye(2)), np.sinc(t)

    t = np.linspace(0, 2, 21)
    y = np.sin(3 * t) + 0.3 * np.cos(11 * t)
    for g, w in zip(jc.jit(analyse)(t, y), analyse(t, y), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_polynomial_product_matches_numpy():
    def f(p, q):
        return np.polymul(p, q), np.polyval(np.polyder(np.polymul(p, q)), q)

    p, q = np.array([3.0, -1.0, 2.0, 0.5]), np.array([1.0, 4.0])
    for g, w in zip(jc.jit(f)(p, q), f(p, q), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-14)


def test_in_place_helpers_write_traced_arrays():
    def f(x, idx):
        out = x.copy()
        np.fill_diagonal(out, -1.0)
        np.put_along_axis(out, idx, 9.0, axis=1)
        return out, np.choose(idx % 2, [x[:, :2], -x[:, :2]])

    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[3, 0], [1, 2], [0, 3]])
    for g, w in zip(jc.jit(f)(x, idx), f(x, idx), strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("fn", [np.trim_zeros, np.union1d, np.intersect1d, np.setdiff1d, np.setxor1d,
                                np.extract, np.compress])
def test_data_dependent_lengths_are_refused_with_advice(fn):
    x = np.array([0.0, 1.0, 2.0, 0.0])
    # (returned, np.extract and np.compress compile: tests/test_data_dependent_length.py; their length
    # inside the function stays refused)
    # (their len() and .shape compile since session 47: the count; an int index since session 50;
    # slices since session 51: tests/jitcore/test_selection_lengths_51.py)
    call = {np.trim_zeros: lambda a: fn(a), np.extract: lambda a: fn(a > 0, a).reshape(2, -1),
            np.compress: lambda a: fn(a > 0, a) + a}.get(fn, lambda a: fn(a, a[:2]))
    with pytest.raises(jc.JitTypeError, match="depends on the data"):
        jc.jit(call)(x)


def test_put_place_putmask_write_in_place_like_numpy():
    def f(a, idx, v):
        b, c, d, e = a.copy(), a.copy(), a.copy(), a.copy()
        np.put(b, idx, v)  # v repeated to idx's length, a negative index from the end
        np.put(c, idx + 5, [7, 8, 9], mode="wrap")
        np.put(d, idx * 3, v[:1], mode="clip")
        np.place(e, e > 0, v)  # the k-th true element takes v[k % len(v)]
        np.putmask(a, a < 0, v)  # element i takes v[i % len(v)]
        return b, c, d, e

    for a, idx, v in [(np.array([[-1, 5, 2], [4, -3, 0]]), np.array([0, -1, 4]), np.array([10, 20])),
                      (np.array([0.5, -2.0, 3.0, -0.0]), np.array([2, 1]), np.array([9.75, 1.5]))]:
        got_a, want_a = a.copy(), a.copy()
        got, want = jc.jit(f)(got_a, idx, v), f(want_a, idx, v)
        for g, w in zip((*got, got_a), (*want, want_a), strict=True):
            np.testing.assert_array_equal(g, w, strict=True)


def test_put_out_of_range_raises_and_place_without_values_refuses():
    def put(a, idx):
        np.put(a, idx, 1.0)
        return a

    with pytest.raises(IndexError, match="out of bounds"):
        jc.jit(put)(np.zeros(4), np.array([4]))
    with pytest.raises(jc.UnsupportedError, match="empty vals"):
        jc.jit(lambda a: np.place(a, a > 0, []))(np.ones(3))


def test_ix_repeat_counts_gradient_spacing_and_modf():
    def f(A, rows, cols, dx):
        return (A[np.ix_(rows, cols)], np.repeat(A, [2, 0, 1], axis=0), np.repeat(A[0], 2.0),
                np.gradient(A, dx, axis=1), np.gradient(A, np.float64(0.5), edge_order=2)[0],
                *np.modf(A * -1.25), np.logical_xor.reduce(A > 2, axis=1))

    A = np.arange(12.0, dtype=np.float32).reshape(3, 4) ** 2
    args = (A, np.array([2, 0]), np.array([1, 3, 3]), np.float64(0.3))
    for g, w in zip(jc.jit(f)(*args), f(*args), strict=True):
        np.testing.assert_array_equal(g, w, strict=True)  # float32 kept, as NumPy writes into f's dtype


def test_ndenumerate_of_a_traced_array_unrolls():
    def f(A):
        s = 0.0
        for (i, j), v in np.ndenumerate(A):
            s += v * (i - j)
        return s

    A = np.arange(6.0).reshape(2, 3)
    assert jc.jit(f)(A) == f(A)


def filled(v, w):
    return (np.full(3, v), np.full((2, 2), v, dtype=np.float32), np.full_like(np.zeros(2, np.int16), w),
            np.full_like(np.zeros((2, 2)), v), np.full_like(w, v, shape=(1, 2)))


def test_full_of_a_traced_value_keeps_negative_zero_and_fills_numpy_arrays():
    # np.full was zeros + fill (0.0 + -0.0 is 0.0); np.full_like into a NumPy array's shape
    # reached NumPy's copyto with a traced value.
    for v, w in [(-0.0, np.array([2.7, -1.0])), (np.float32(-0.0), np.array([-0.0, 3.0]))]:
        for g, want in zip(jc.jit(filled)(v, w), filled(v, w), strict=True):
            np.testing.assert_array_equal(g, want, strict=True)
            assert np.array_equal(np.signbit(g), np.signbit(want))


def test_apply_along_axis_is_one_loop_over_the_slices():
    def f(A):
        return (np.apply_along_axis(lambda r: r.max() - r.min(), 1, A),
                np.apply_along_axis(np.sort, 0, A),  # results replace the axis
                np.apply_along_axis(lambda r, k: r[:2] * k, -1, A, 3),  # extra arguments
                np.apply_along_axis(lambda r: np.outer(r, r), 1, A[:3]),  # 2-d results
                np.apply_along_axis(lambda r: 2, 1, A))  # a Python number: int64

    A = np.arange(24.0).reshape(8, 3) % 5 - 2
    for got, want in zip(jc.jit(f)(A), f(A)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    text = jc.jit(lambda A: np.apply_along_axis(np.sum, 1, A)).lower(np.ones((50, 3))).as_text("traced")
    assert text.count('"scf.for"(') == 1 and text.count('"array.reduce"') == 2  # slice 0, the loop's
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        jc.jit(lambda A: np.apply_along_axis(np.sum, 1, A))(np.ones((0, 3)))


@pytest.mark.parametrize("bins", [
    [1.0, 2.0, 2.0, 3.0, np.nan],  # sorted with NaN last: increasing, as NumPy decides
    [1.0, 1.0, 2.0, np.nan, np.nan],
    [3.0, 3.0, 1.0, np.nan],  # decreasing
    [np.nan, np.nan],  # NumPy: the first distinct pair does not increase, so decreasing
    [2.0, 2.0, 2.0],  # all equal: increasing
])
def test_digitize_picks_numpys_direction_with_nan_in_the_bins(bins):
    x = np.array([np.nan, 2.0, 0.0, 5.0, 1.0, -np.inf, 3.0])
    b = np.array(bins)
    want = np.digitize(x, b), np.digitize(x, b, right=True)
    for fn, args in [(lambda x, b: (np.digitize(x, b), np.digitize(x, b, right=True)), (x, b)),
                     (lambda x: (np.digitize(x, b), np.digitize(x, b, right=True)), (x,))]:
        for g, w in zip(jc.jit(fn)(*args), want):
            np.testing.assert_array_equal(g, w)
