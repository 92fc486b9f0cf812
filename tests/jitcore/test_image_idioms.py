"""NumPy idioms of image and array code that raised a raw Python error or NumPy's conversion
error under jit (found by new-user programs, session 42): ``out=`` of the ``clip``, ``cumsum``
and ``cumprod`` methods and of ``np.clip`` inside an expression, ``x.flat``, and a ufunc's
``reduce``/``accumulate``/``outer`` of a list of traced arrays."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitTypeError


def clip_in_place(x):
    x.clip(0, 5, out=x)
    return x.sum()


def cumsum_in_place(x):
    x.cumsum(axis=1, out=x)
    x.cumprod(axis=0, out=x)
    return x


def clip_in_an_expression(x):
    return np.clip(x, 0, 5, out=x) * 2


def clip_into_another(x):
    y = np.zeros_like(x)
    x.clip(1, 3, out=y)
    return y


def flat_reads(x):
    return x.flat[::2].sum(), x.flat[3], len(x.flat), sum(v for v in x.T.flat), x.T.flat[1:4]


def flat_writes(x):
    x.flat[::7] = 3.0
    x.flat[[1, 2]] = -1.0
    return x


def ufunc_methods_of_lists(r):
    return (np.maximum.reduce([r, np.roll(r, 1, 0), np.roll(r, -1, 1)]), np.add.reduce([r, r * 2]),
            np.add.accumulate([r[0], r[1]]), np.multiply.outer([r[0, 0], r[1, 1]], r[0]))


@pytest.mark.parametrize("fn", [clip_in_place, cumsum_in_place, clip_in_an_expression, clip_into_another,
                                flat_reads, flat_writes, ufunc_methods_of_lists])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_numpy_and_writes_the_argument_as_numpy_does(fn, dtype):
    x = (np.arange(12.0).reshape(3, 4) - 3).astype(dtype)
    want_x, got_x = x.copy(), x.copy()
    want, got = fn(want_x), jc.jit(fn)(got_x)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got_x, want_x)


def test_clip_out_of_another_kind_is_numpys_casting_error():
    with pytest.raises(JitTypeError, match="same_kind"):
        jc.jit(lambda x: x.clip(0, 1.5, out=x))(np.arange(3))


def columns_where_the_first_row_is_big(a):
    a[:, a[0] > 1] = -1
    return a



def one_row_and_an_ellipsis(a):
    m = a[0] > 1
    a[1, m] = -1
    a[..., ~m] = 7
    return a


@pytest.mark.parametrize("fn", [columns_where_the_first_row_is_big, one_row_and_an_ellipsis])
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_one_value_written_through_a_mask_among_slices(fn, dtype):
    # Found by a new-user program (session 42, "NumPy for MATLAB users"): a[:, m] = v raised
    # that the shape depends on the data; one value written where the key selects has no such shape.
    a = np.arange(12).reshape(4, 3).astype(dtype)
    want_a, got_a = a.copy(), a.copy()
    np.testing.assert_array_equal(jc.jit(fn)(got_a), fn(want_a))
    np.testing.assert_array_equal(got_a, want_a)


def test_the_cross_product_of_two_2_vectors_is_a_0d_array():
    # Found by a new-user program (session 42, NumPy's docs): it came back a NumPy scalar.
    import warnings

    f = lambda x, y: np.cross(x, y)  # noqa: E731
    for x, y in [(np.array([1, 2]), np.array([4, 5])), (np.array([1.0, 2.0]), np.array([4.0, 5.5]))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2 deprecates 2-vectors
            got, want = jc.jit(f)(x, y), f(x, y)
        assert type(got) is type(want) and got.dtype == want.dtype and got == want


def test_histogram2d_edges_of_two_lengths_from_arguments():
    # Found by a new-user program (session 42): NumPy's "inhomogeneous shape" error, from
    # stacking the two edge arrays as one operand; refused as static bins until session 47,
    # which bins by traced edges per axis as 1-d histogram does.
    g = lambda x, y, ex, ey: np.histogram2d(x, y, bins=(ex, ey))[0]  # noqa: E731
    args = (np.linspace(0, 1, 30), np.linspace(1, 0, 30), np.array([0, 0.5, 1]),
            np.array([0, 0.3, 0.6, 1]))
    got, want = jc.jit(g)(*args), g(*args)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def _paint(img, z, color):
    img[z > 0.5] = color  # (H, W, 3)[(H, W) mask] = (3,)
    return img


def test_a_color_written_through_a_mask_of_the_leading_dims():
    """``img[mask] = color`` with a mask over (H, W) and a color of (3,): every selected pixel
    gets it (NumPy broadcasts the value over the selection's rows); it was refused as a shape
    depending on the data. An int image keeps its bits (the value is cast, not the image)."""
    z = np.array([[0.1, 0.9], [0.7, 0.0]])
    for img, color in [(np.zeros((2, 2, 3)), np.array([1.0, 2.0, 3.0])),
                       (np.zeros((2, 2, 3), np.int64) + 2**60 + 1, np.array([1.7, 2.0, 3.0]))]:
        a, b = img.copy(), img.copy()
        np.testing.assert_array_equal(jc.jit(_paint)(b, z, color), _paint(a, z, color))
        np.testing.assert_array_equal(b, a)
