"""Reshape, ravel, ascontiguousarray and asfortranarray are views where NumPy's are (the strides allow it) and
copies where NumPy copies: a write through ``g.T.ravel()`` must not reach ``g``. (Every reshape
was a view, so such writes changed the array they came from, and an argument's caller.)"""

import numpy as np
import pytest

import jitcore as jc


def write_through(make):
    def f(g):
        r = make(g)
        r[(0,) * r.ndim] = -99.0
        return g, r.sum()
    return f


FORMS = {
    "T.ravel": lambda g: g.T.ravel(),
    "T.reshape(-1)": lambda g: g.T.reshape(-1),
    "np.ravel(T)": lambda g: np.ravel(g.T),
    "ascontiguousarray(T)": lambda g: np.ascontiguousarray(g.T),
    "ascontiguousarray(g)": lambda g: np.ascontiguousarray(g),
    "asfortranarray(T)": lambda g: np.asfortranarray(g.T),
    "asfortranarray(g)": lambda g: np.asfortranarray(g),
    "rows.ravel": lambda g: g[1:].ravel(),
    "cols.reshape(-1)": lambda g: g[:, 1:].reshape(-1),
    "one col.reshape(-1)": lambda g: g[:, :1].reshape(-1),
    "every other row.ravel": lambda g: g[::2].ravel(),
    "reversed.ravel": lambda g: g[::-1].ravel(),
    "T split an axis": lambda g: g.T.reshape(g.shape[1], g.shape[0], 1),
    "swapaxes.reshape": lambda g: np.swapaxes(g, 0, 1).reshape(-1),
    "reshape.T.reshape": lambda g: g.reshape(-1).reshape(g.shape).T.reshape(-1),
    "ravel": lambda g: g.ravel(),
}


@pytest.mark.parametrize("form", FORMS)
def test_a_write_reaches_the_array_only_where_numpys_reshape_is_a_view(form):
    f = write_through(FORMS[form])
    for shape in [(3, 4), (4, 6)]:
        local = jc.jit(lambda x: f(x.copy()))
        want = f(np.arange(np.prod(shape), dtype=float).reshape(shape).copy())
        got = local(np.arange(np.prod(shape), dtype=float).reshape(shape))
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        a, b = (np.arange(np.prod(shape), dtype=float).reshape(shape) for _ in range(2))
        f(a), jc.jit(f)(b)  # the caller's array: written only through a view
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_fortran_argument_ravels_to_a_copy_and_reshapes_as_numpy_does(order):
    def f(g):
        r = g.ravel()
        r[0] = 7.0
        s = g.reshape(g.shape[0], g.shape[1], 1)
        s[1, 1, 0] = 8.0
        return r
    for shape in [(2, 3), (5, 4)]:
        a = np.array(np.arange(np.prod(shape), dtype=float).reshape(shape), order=order)
        b = a.copy(order="A")
        np.testing.assert_array_equal(jc.jit(f)(b), f(a))
        np.testing.assert_array_equal(b, a)


def test_a_complex_arrays_real_part_reshaped_is_a_copy():
    def f(z):
        r = z.real.reshape(-1)
        r[0] = 9.0
        return z
    z = np.arange(6.0).reshape(2, 3) + 1j
    np.testing.assert_array_equal(jc.jit(f)(z.copy()), f(z.copy()))


@pytest.mark.parametrize("view", [lambda u: np.swapaxes(u, 0, 1), lambda u: np.moveaxis(u, 0, -1),
                                  lambda u: np.rot90(u), lambda u: u.T.reshape(2, 3), lambda u: u[::-1]])
def test_a_flat_write_through_a_strided_view_reaches_the_array(view):
    """``v.flat[0] = -99`` of a transposed or reversed view writes the array (``x.flat`` is C
    order of the view's elements, whatever its strides; it was a reshape, a copy there)."""
    def f(u):
        u = u.copy()
        v = view(u)
        v.flat[0] = -99.0
        v.flat[[1, 3]] = 7.0
        return u
    u = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(jc.jit(f)(u), f(u))


@pytest.mark.parametrize("order", ["C", "F"])
def test_asfortranarray_and_ascontiguousarray_as_numpys(order):
    """Each a view of an array already in its order (a write reaches the argument), a copy in
    that order elsewhere (the result's flags are NumPy's), 0-d made 1-d, of lists too."""
    def f(g):
        fa, ca = np.asfortranarray(g), np.ascontiguousarray(g)
        fa[0, 0], ca[1, 1] = -1.0, -2.0
        return (g, fa, ca, np.asfortranarray(g.T), np.asfortranarray(g, dtype=np.float32),
                np.asfortranarray(g.sum()), np.ascontiguousarray(g.max()),
                np.asfortranarray([g[0, 0], g[1, 2]]), np.asfortranarray(g[:, ::2] * 2) @ g[0, :2])
    a = np.array(np.arange(6.0).reshape(2, 3), order=order)
    b = a.copy(order="A")
    for want, got in zip(f(a), jc.jit(f)(b), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous,
                                                                   want.flags.f_contiguous)
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(b, a)

