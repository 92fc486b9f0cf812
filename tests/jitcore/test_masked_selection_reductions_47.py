"""Reductions of a selection by a traced mask beyond a fixed list (nanmask47): the nan- family
(``np.nanmean(x[m])``, ``np.nanmax(x[base], axis=0)``), argmax/argmin (an index into the
selection), axes that keep the selected dim (``x[m].sum(axis=1)``, a selection again), a region
along a middle axis (``x[:, m, :]`` reduced along any axes), and the selection's count
(``len(np.flatnonzero(m))``, ``z[m].size``, ``.shape``). Each is compared with NumPy on the
same inputs: values (bits for extremes, indices and counts; sums within a few ulps, their order
is maskedsum47's), dtypes, Python types, the errors raised (empty selections, all-NaN lanes)
and the arguments after the call."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitTypeError


def _numpy(f, *args):
    """NumPy's result or exception (its RuntimeWarnings for empty and all-NaN lanes silenced:
    the compiled call gives the same values without them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return f(*args), None
        except Exception as e:  # noqa: BLE001  (compared with the compiled call's)
            return None, e


def _check(f, jitted, *args):
    expected, error = _numpy(f, *(np.copy(a) for a in args))
    copies = [np.copy(a) for a in args]
    if error is not None:
        with pytest.raises(type(error)) as got:
            jitted(*args)
        assert str(error) in str(got.value), (error, got.value)
    else:
        _same(expected, jitted(*args))
    for a, c in zip(args, copies):  # the arguments are as they were
        assert np.array_equal(a, c, equal_nan=True)


def _same(expected, got):
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected)
        for e, g in zip(expected, got):
            _same(e, g)
        return
    assert type(got) is type(expected), (type(got), type(expected), expected, got)
    e, g = np.asarray(expected), np.asarray(got)
    assert g.dtype == e.dtype and g.shape == e.shape, (expected, got)
    if e.dtype.kind == "f" and e.dtype.itemsize >= 4:
        assert np.array_equal(np.isnan(g), np.isnan(e)), (expected, got)
        tol = 1e-12 if e.dtype == np.float64 else 2e-5
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol * 1e-3, equal_nan=True)
    else:
        assert np.array_equal(g, e, equal_nan=e.dtype.kind in "fc"), (expected, got)


def _exact(expected_fn, jitted, *args):
    """Extremes, indices and counts have one right answer."""
    expected, error = _numpy(expected_fn, *args)
    assert error is None
    got = jitted(*args)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        assert type(g) is type(e)
        # values, not the sign of a zero: which of tied -0.0 and 0.0 NumPy's fmin keeps follows
        # its SIMD lanes (np.nanmin([-0.0, 3, 3, 0.0]) is -0.0, np.min's 0.0), as jitcore's own
        # np.nanmin of a plain array does not either
        assert np.array_equal(np.asarray(g), np.asarray(e), equal_nan=True)


# -- 1-d selections: every reduction, hypothesis over sizes, masks and NaN positions ----------

def nanmean_(x, m): return np.nanmean(x[m])
def nanmax_(x, m): return np.nanmax(x[m])
def nanmin_(x, m): return np.nanmin(x[m])
def nanstd_(x, m): return np.nanstd(x[m])
def nanvar_ddof1(x, m): return np.nanvar(x[m], ddof=1)
def nansum_(x, m): return np.nansum(x[m])
def nanprod_(x, m): return np.nanprod(x[m])
def argmax_(x, m): return np.argmax(x[m])
def argmin_(x, m): return x[m].argmin()
def nanargmax_(x, m): return np.nanargmax(x[m])
def nanargmin_(x, m): return np.nanargmin(x[m])
def max_(x, m): return x[m].max()
def count_(x, m): return len(x[m]), x[m].size, x[m].shape, np.flatnonzero(m).size, len(np.flatnonzero(m))


ONE_D = [nanmean_, nanmax_, nanmin_, nanstd_, nanvar_ddof1, nansum_, nanprod_, argmax_, argmin_,
         nanargmax_, nanargmin_, max_, count_]
JITTED = {f: jc.jit(f) for f in ONE_D}


@st.composite
def masked_inputs(draw, shape_of=lambda n: (n,), mask_len=None):
    n = draw(st.sampled_from([0, 1, 5, 17]))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.normal(size=shape_of(n)).astype(dtype)
    x.ravel()[rng.random(x.size) < draw(st.sampled_from([0.0, 0.3, 1.0]))] = np.nan
    if draw(st.booleans()):
        x.ravel()[rng.random(x.size) < 0.2] = draw(st.sampled_from([0.0, -0.0, np.inf, -np.inf]))
    k = (mask_len or (lambda s: s[0]))(x.shape)
    kind = draw(st.sampled_from(["none", "all", "random"]))
    m = np.zeros(k, bool) if kind == "none" else np.ones(k, bool) if kind == "all" \
        else rng.random(k) < 0.5
    return x, m


@pytest.mark.parametrize("f", ONE_D, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None)
@given(inputs=masked_inputs())
def test_one_d_reductions_match_numpy(f, inputs):
    _check(f, JITTED[f], *inputs)


@pytest.mark.parametrize("f", [nanmax_, nanmin_, argmax_, argmin_, nanargmax_, nanargmin_, max_, count_],
                         ids=lambda f: f.__name__)
def test_extremes_indices_and_counts_are_exact(f):
    x = np.array([0.0, -0.0, 3.0, np.nan, 3.0, -np.inf, 0.0, np.nan, -1.0])
    for m in (np.array([1, 1, 0, 0, 1, 1, 1, 0, 1], bool), np.array([0, 1, 1, 0, 1, 0, 1, 0, 0], bool)):
        _exact(f, JITTED[f], x, m)


def test_empty_and_all_nan_selections_raise_numpy_errors():
    x = np.array([np.nan, 1.0, np.nan])
    none, nans = np.zeros(3, bool), np.array([True, False, True])
    for f, m, text in [(nanmax_, none, "fmax"), (nanmin_, none, "fmin"), (max_, none, "maximum"),
                       (argmax_, none, "argmax of an empty"), (nanargmax_, none, "argmax of an empty"),
                       (nanargmin_, nans, "All-NaN slice encountered")]:
        with pytest.raises(ValueError, match=text):
            JITTED[f](x, m)
    # no error where NumPy only warns: NaN, as NumPy's value
    assert np.isnan(JITTED[nanmean_](x, none)) and np.isnan(JITTED[nanmax_](x, nans))
    assert np.isnan(JITTED[nanvar_ddof1](x, np.array([False, True, False])))


def test_integer_and_bool_selections_are_the_plain_reductions():
    x = np.array([3, -1, 7, 7, 2], np.int32)
    m = np.array([True, False, True, True, False])
    for f in (nanmean_, nanmax_, nanmin_, nanstd_, nansum_, nanprod_, argmax_, nanargmin_, count_):
        _check(f, JITTED[f], x, m)
    _check(nanmax_, JITTED[nanmax_], x, np.zeros(5, bool))  # zero-size ... fmax
    b = np.array([True, False, True])
    _check(nansum_, JITTED[nansum_], b, np.array([True, True, False]))


# -- selections of rows (a mask over the leading dim): axis=0 and axes that keep the rows ------

def clim(x, m): return np.nanmean(x[m], axis=0)
def clim_max(x, m): return np.nanmax(x[m], axis=0), np.nanmin(x[m], axis=0, keepdims=True)
def clim_std(x, m): return np.nanstd(x[m], axis=0), np.nanvar(x[m], axis=0, ddof=1)
def rows_arg(x, m): return np.argmax(x[m], axis=0), np.nanargmin(x[m], axis=-1).max(initial=-1)
def rows_kept(x, m):
    return np.nansum(x[m], axis=1).sum(), x[m].max(axis=(1, 2)).sum(), np.nanmean(x[m], axis=2).max(axis=0)
def rows_all(x, m): return np.nanmean(x[m]), np.nanmax(x[m]), x[m].argmax()


ROWS = [clim, clim_max, clim_std, rows_arg, rows_kept, rows_all]
JITTED.update({f: jc.jit(f) for f in ROWS})


@pytest.mark.parametrize("f", ROWS, ids=lambda f: f.__name__)
@settings(max_examples=15, deadline=None)
@given(inputs=masked_inputs(shape_of=lambda n: (n, 4, 3)))
def test_row_selections_along_axes_match_numpy(f, inputs):
    _check(f, JITTED[f], *inputs)


def test_the_climatology_idiom():
    """h2 3.1: the base period's years chosen by traced bounds, NaN-filled data."""
    def base_clim_nan(x, y0, y1):
        years = 1950 + np.arange(x.shape[0]) // 12
        return np.nanmean(x[(years >= y0) & (years <= y1)], axis=0)

    x = np.random.default_rng(0).normal(size=(120, 4, 5))
    x[x > 1.5] = np.nan
    for y0, y1 in [(1951, 1955), (1900, 1901), (1950, 1959)]:
        _check(base_clim_nan, jc.jit(base_clim_nan), x, y0, y1)


# -- a region along a middle axis: x[:, m, :] reduced along any axes ---------------------------

def region_all(x, lat): return np.nanmean(x[:, (lat >= -5) & (lat <= 5), :])
def region_axes(x, lat):
    r = x[:, lat > 0, :]
    return r.mean(axis=(1, 2)), r.sum(), np.nanmax(r, axis=1), np.nanmean(r, axis=1, keepdims=True)
def region_kept(x, lat):
    r = x[:, lat > 0, :]
    return r.mean(axis=2).sum(axis=1), np.nansum(r, axis=(0, 2)).max(initial=0.0), r.argmax(axis=1)


REGION = [region_all, region_axes, region_kept]
JITTED.update({f: jc.jit(f) for f in REGION})


@st.composite
def regions(draw):
    x, _ = draw(masked_inputs(shape_of=lambda n: (3, n, 2)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lat = rng.uniform(-10, 10, x.shape[1])
    return x, lat


@pytest.mark.parametrize("f", REGION, ids=lambda f: f.__name__)
@settings(max_examples=15, deadline=None)
@given(inputs=regions())
def test_region_along_a_middle_axis_matches_numpy(f, inputs):
    _check(f, JITTED[f], *inputs)


def test_region_argmax_of_all_of_it_says_to_give_an_axis():
    with pytest.raises(JitTypeError, match="give an axis"):
        jc.jit(lambda x, m: x[:, m].argmax())(np.ones((2, 3)), np.ones(3, bool))


# -- counts and messages that name what the user wrote ----------------------------------------

def steps(z): return np.flatnonzero(np.abs(z) > 1.0).size, len(np.flatnonzero(np.abs(z) > 1.0))
def unique_count(x): return len(np.unique(x)), np.unique(x).size


def test_counts_are_python_ints():
    z = np.array([0.5, 2.0, -3.0, 0.0])
    _check(steps, jc.jit(steps), z)
    _check(steps, jc.jit(steps), np.zeros(0))
    _check(unique_count, jc.jit(unique_count), np.array([3, 1, 3, 2]))


def iterate_argwhere(occ):
    s = 0
    for (i, j) in np.argwhere(occ):
        s += i * j
    return s


def listed_argwhere(occ):
    return [i * j for (i, j) in np.argwhere(occ)]


def unique_counts_list(x):
    u, c = np.unique(x, return_counts=True)
    return c.tolist()


def test_messages_name_what_the_user_wrote():
    # (a for loop over the positions compiles since session 48: test_selection_loops_48.py)
    _check(iterate_argwhere, jc.jit(iterate_argwhere), np.eye(3, dtype=bool))
    with pytest.raises(JitTypeError) as e:
        jc.jit(listed_argwhere)(np.eye(3, dtype=bool))
    assert "np.argwhere(...)" in str(e.value) and "[mask]" not in str(e.value)
    assert "for i in range" in str(e.value)
    with pytest.raises(JitTypeError) as e:
        jc.jit(unique_counts_list)(np.array([3, 1, 3]))
    assert "np.unique(...)'s counts" in str(e.value) and "np.bincount(x, minlength=K)" in str(e.value)
    assert "[mask]" not in str(e.value)


# -- np.histogram2d / histogramdd with edges passed in (h2 3.4) --------------------------------

def grid_hist(la, lo, v, le, ne): return np.histogram2d(la, lo, bins=[le, ne], weights=v)
def grid_density(la, lo, le, ne): return np.histogram2d(la, lo, bins=[le, ne], density=True)
def grid_dd(s, le): return np.histogramdd(s, bins=[le, 4, np.linspace(0, 1, 5)])


@settings(max_examples=10, deadline=None)
@given(n=st.sampled_from([0, 1, 50]), seed=st.integers(0, 2**32 - 1), nan=st.booleans())
def test_histogram2d_with_edges_as_arguments_matches_numpy(n, seed, nan):
    r = np.random.default_rng(seed)
    la, lo, v = r.uniform(-100, 100, n), r.uniform(-10, 370, n), r.normal(size=n)
    if nan and n:
        la[0] = np.nan
    le, ne = np.sort(r.uniform(-90, 90, 7)), np.linspace(0, 360, 13)
    le[2] = le[3]  # an empty bin
    _check(grid_hist, jc.jit(grid_hist), la, lo, v, le, ne)
    _check(grid_dd, jc.jit(grid_dd), r.random((n, 3)), np.sort(r.random(6)))
    if n > 1 and not nan:
        _check(grid_density, jc.jit(grid_density), la, lo, le, ne)


def test_histogram2d_with_decreasing_edges_raises_numpy_error():
    la = np.zeros(3)
    with pytest.raises(ValueError, match="must be monotonically increasing"):
        jc.jit(grid_hist)(la, la, la, np.array([1.0, 0.0]), np.array([0.0, 1.0]))


def zeros_per_unique(x):
    u, inv = np.unique(x, return_inverse=True)
    return np.zeros((u.shape[0], 3))


def test_a_selections_length_as_a_shape_names_it():
    """h1 R5: np.zeros((u.shape[0], 3)) after np.unique: the count is traced, refused where
    the shape needs it, the message naming np.unique and np.bincount(..., minlength=K)."""
    with pytest.raises(jc.ConcretizationError) as e:
        jc.jit(zeros_per_unique)(np.array([3, 1, 3]))
    assert "length of np.unique(...)" in str(e.value) and "minlength=K" in str(e.value)
