"""``out=`` of reductions and scans under jit: ``np.sum/prod/max/min/any/all/cumsum/cumprod``,
``np.mean``, ``np.nansum/nanprod``, ``x.sum(out=)`` and the ufunc methods ``reduce``,
``accumulate``, ``reduceat`` and ``outer``.
NumPy is the oracle: the caller's array is written (an argument), the returned value is that
array, its dtype casts the result (unsafe, NumPy's output cast), and an ``out`` of the wrong
shape raises. ``ufunc.reduce(out=)`` once returned the right value and left the caller's array
unwritten: the write is what these tests look at."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitValueError, UnsupportedError

# name: (function of (x, out), the out's shape for an x of shape (3, 4))
CASES = {
    "np.sum": (lambda x, o: np.sum(x, out=o), ()),
    "np.sum axis": (lambda x, o: np.sum(x, axis=1, out=o), (3,)),
    "x.sum keepdims": (lambda x, o: x.sum(axis=0, keepdims=True, out=o), (1, 4)),
    "np.prod axis": (lambda x, o: np.prod(x, axis=0, out=o), (4,)),
    "np.max": (lambda x, o: np.max(x, axis=1, out=o), (3,)),
    "np.min where": (lambda x, o: np.min(x, axis=1, where=x > 0, initial=9, out=o), (3,)),
    "np.any": (lambda x, o: np.any(x > 0.5, axis=0, out=o), (4,)),
    "np.all": (lambda x, o: np.all(x > -3, out=o), ()),
    "np.cumsum": (lambda x, o: np.cumsum(x, out=o), (12,)),
    "np.cumprod axis": (lambda x, o: np.cumprod(x, axis=1, out=o), (3, 4)),
    "add.reduce": (lambda x, o: np.add.reduce(x, out=o), (4,)),
    "maximum.reduce all": (lambda x, o: np.maximum.reduce(x, axis=None, out=o), ()),
    "multiply.accumulate": (lambda x, o: np.multiply.accumulate(x, axis=1, out=o), (3, 4)),
    "add.reduceat": (lambda x, o: np.add.reduceat(x, [0, 2], axis=1, out=o), (3, 2)),
    "subtract.outer": (lambda x, o: np.subtract.outer(x[0], x[1], out=o), (4, 4)),
    "returned plus one": (lambda x, o: np.sum(x, axis=1, out=o) + 1, (3,)),
    "np.mean axis": (lambda x, o: np.mean(x, axis=1, out=o), (3,)),
    "np.mean where": (lambda x, o: np.mean(x, where=x > 0, out=o), ()),
    "np.nansum": (lambda x, o: np.nansum(np.where(x > 2, np.nan, x), axis=0, out=o), (4,)),
    "np.nanprod": (lambda x, o: np.nanprod(np.where(x > 2, np.nan, x), out=o), ()),
}
OUT_DTYPES = [np.float64, np.float32, np.int64, np.complex128, np.bool_]


def _inputs(dtype=np.float64, case: str = ""):
    """The same data for a case whichever worker runs it, in whatever order."""
    seed = zlib.crc32(case.encode())
    return (np.random.default_rng(seed).standard_normal((3, 4)) * 3).astype(dtype)


def _compare(got, want):
    """Equal, or for a float out within a few of its ulps (NumPy rounds a float64 sum into a
    float32 out and then divides a mean there, two roundings; jitcore once), and within a sum's
    bound where terms of up to ~10 cancel (12 terms added in another order)."""
    if want.dtype.kind in "fc":
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(got, want, rtol=4 * eps, atol=512 * eps)
    else:
        np.testing.assert_array_equal(got, want)


# outer's float result into an int or bool out: NumPy's same_kind refusal, tested below
WRITTEN = [(name, dtype) for name in sorted(CASES) for dtype in OUT_DTYPES
           if not (name == "subtract.outer" and dtype in (np.int64, np.bool_))]


@pytest.mark.parametrize("name, out_dtype", WRITTEN, ids=[f"{n}-{np.dtype(d).name}" for n, d in WRITTEN])
def test_out_argument_is_written_as_numpy_writes_it(name, out_dtype):
    fn, shape = CASES[name]
    x = _inputs(case=f"{name}-{np.dtype(out_dtype).name}")
    want_out = np.full(shape, 7, out_dtype)
    with np.errstate(all="ignore"), np.testing.suppress_warnings() as quiet:
        quiet.filter(np.exceptions.ComplexWarning)
        want = fn(x, want_out)
        got_out = np.full(shape, 7, out_dtype)
        got = jc.jit(fn)(x, got_out)
    _compare(got_out, want_out)
    _compare(np.asarray(got), np.asarray(want))


def test_outer_into_an_int_out_raises_as_numpy():
    fn, shape = CASES["subtract.outer"]
    x = _inputs()
    with pytest.raises(TypeError):
        fn(x, np.zeros(shape, np.int64))
    with pytest.raises(TypeError):
        jc.jit(fn)(x, np.zeros(shape, np.int64))


@pytest.mark.parametrize("name", ["np.sum axis", "add.reduce", "np.cumsum"])
def test_out_of_the_wrong_shape_raises(name):
    fn, shape = CASES[name]
    x = _inputs()
    wrong = np.zeros((*shape, 2))
    with pytest.raises(ValueError):
        fn(x, wrong.copy())
    with pytest.raises(JitValueError, match="wrong shape"):
        jc.jit(fn)(x, wrong)


def test_a_local_out_array_and_a_global_one():
    @jc.jit
    def local(x):
        totals = np.zeros(3)
        np.add.reduce(x, axis=1, out=totals)
        running = np.empty(12, np.float32)
        np.cumsum(x, out=running)
        return totals, running

    x = _inputs()
    totals, running = local(x)
    _compare(totals, np.add.reduce(x, axis=1))
    _compare(running, np.cumsum(x).astype(np.float32))

    kept = np.zeros(3)

    @jc.jit
    def into_global(x):
        return np.sum(x, axis=1, out=kept)

    # kept is an input where the code reads it (session 47): written at each call, as NumPy's
    got = into_global(x)
    assert got is kept
    _compare(kept, np.sum(x, axis=1))

    @jc.jit
    def into_made(x):
        made = [np.zeros(3)]  # made while tracing: a constant, which out= cannot rebind
        return np.sum(x, axis=1, out=made[0])

    with pytest.raises(UnsupportedError, match="not an argument"):
        into_made(x)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(CASES)), st.sampled_from([np.float64, np.float32, np.int64, np.int8]),
       st.sampled_from(OUT_DTYPES))
def test_any_input_and_out_dtype(name, in_dtype, out_dtype):
    fn, shape = CASES[name]
    if out_dtype is np.bool_ and np.dtype(in_dtype).kind == "i" and name in ("np.max", "np.min where"):
        # NumPy's own rule is not one rule here: maximum.reduce of int64 [0, -1] into a bool
        # out casts the maximum (False), but along axis 1 of a 2-d array it reduces the truth
        # values (True for a row [0, -3, 0, -1]); jitcore casts the result (docs/numpy_support.md)
        return
    x = _inputs(in_dtype)
    want_out, got_out = np.zeros(shape, out_dtype), np.zeros(shape, out_dtype)
    with np.errstate(all="ignore"), np.testing.suppress_warnings() as quiet:
        quiet.filter(np.exceptions.ComplexWarning)
        try:
            fn(x, want_out)
        except TypeError:  # a cast NumPy refuses: so must jitcore
            with pytest.raises(TypeError):
                jc.jit(fn)(x, got_out)
            return
        jc.jit(fn)(x, got_out)
    if np.dtype(out_dtype).kind in "fc" and np.dtype(in_dtype).kind in "iu" and name.endswith("prod"):
        np.testing.assert_allclose(got_out, want_out, rtol=1e-6)
    elif np.dtype(out_dtype).kind in "fc":
        rtol = 1e-6 if np.dtype(out_dtype) == np.float32 else 1e-12
        np.testing.assert_allclose(got_out, want_out, rtol=rtol, atol=1e-6)
    else:
        np.testing.assert_array_equal(got_out, want_out)


def _nan_where_large(x):
    return np.where(x > 2, np.nan, x)


# Session 40's: statistics, extremes and positions whose out= was refused before.
STATISTICS = {
    "np.var axis": (lambda x, o: np.var(x, axis=1, out=o), (3,)),
    "np.std ddof": (lambda x, o: np.std(x, axis=0, ddof=1, out=o), (4,)),
    "x.var": (lambda x, o: x.var(out=o), ()),
    "x.std keepdims": (lambda x, o: x.std(axis=1, keepdims=True, out=o), (3, 1)),
    "np.argmax axis": (lambda x, o: np.argmax(x, axis=1, out=o), (3,)),
    "x.argmin keepdims": (lambda x, o: x.argmin(axis=0, keepdims=True, out=o), (1, 4)),
    "np.nanmax axis": (lambda x, o: np.nanmax(_nan_where_large(x), axis=1, out=o), (3,)),
    "np.nanmin": (lambda x, o: np.nanmin(_nan_where_large(x), out=o), ()),
    "np.nanmean axis": (lambda x, o: np.nanmean(_nan_where_large(x), axis=0, out=o), (4,)),
    "np.nanvar axis": (lambda x, o: np.nanvar(_nan_where_large(x), axis=1, out=o), (3,)),
    "np.nanstd": (lambda x, o: np.nanstd(_nan_where_large(x), out=o), ()),
    "np.nanargmax axis": (lambda x, o: np.nanargmax(_nan_where_large(x), axis=1, out=o), (3,)),
}
# nanmax/nanmin into an int or bool out: NumPy's fmax.reduce casts the data into out's dtype
# first (a NaN into an int is undefined: INT_MIN on x86), jitcore casts the result: not compared
STATISTICS_RUNS = [(name, dtype) for name in sorted(STATISTICS)
                   for dtype in (np.float64, np.float32, np.int64, np.int32, np.complex128, np.bool_)
                   if not (name.startswith(("np.nanmax", "np.nanmin")) and np.dtype(dtype).kind in "biu")]


@pytest.mark.parametrize("name, out_dtype", STATISTICS_RUNS,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in STATISTICS_RUNS])
def test_statistics_out_written_or_refused_as_numpy(name, out_dtype):
    """Written and cast as NumPy writes them, or refused where NumPy refuses: argmax's out must
    take int64 back safely (int32 may, float64 may not), std's square root is taken in out (an
    int out is refused), the nan-statistics of floats refuse an int out."""
    fn, shape = STATISTICS[name]
    x = _inputs(case=f"{name}-{np.dtype(out_dtype).name}")
    want_out, got_out = np.full(shape, 7, out_dtype), np.full(shape, 7, out_dtype)
    with np.errstate(all="ignore"), np.testing.suppress_warnings() as quiet:
        quiet.filter(np.exceptions.ComplexWarning)
        quiet.filter(RuntimeWarning)
        try:
            want = fn(x, want_out)
        except TypeError:
            with pytest.raises(TypeError):
                jc.jit(fn)(x, got_out)
            return
        got = jc.jit(fn)(x, got_out)
    _compare(got_out, want_out)
    _compare(np.asarray(got), np.asarray(want))
