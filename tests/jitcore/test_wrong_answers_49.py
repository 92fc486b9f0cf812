"""Wrong answers, crashes and refusals new users found (session 49), each against plain
Python + NumPy.

- A mutable default (``def f(x, cache=[])``, a dict, an object; keyword-only too) or a list a
  ``functools.partial`` bound is one object for every call, as a global is. The trace changed
  it once, compiled code never again (1, 1, 1 where NumPy counts 1, 2, 3) and left its tracer in
  it (a memo dict then broke the next trace, and the plain function returned a tracer). Now a
  change is refused as a global's is, reads see the call's value, and no tracer is left behind.
- A gather through an index array a traced mask filtered (``lut[idx[(idx >= 0) & (idx < n)]]``,
  ``img[ys[ok], xs[ok]]``, ``np.compress``/``np.extract``/``np.take`` forms) bounds-checked
  every index, the removed ones too, and raised IndexError where NumPy, which filters first,
  does not. The write ``grid[ys[m], xs[m]] = v`` was refused; it is now a scatter of the kept
  positions.
- ``np.repeat(np.arange(n), np.diff(indptr))`` (traced counts) has sum(counts) elements, which no
  shape bounds: refused with a JitTypeError naming np.repeat and the rewrites that compile (it
  was a bare conversion error when the first argument was a NumPy array); the rewrites it names
  give NumPy's result.
- ``np.add.reduceat(x, idx)`` at traced ``idx`` was refused ("they set the result's length":
  they do not, len(idx) does). add, multiply, maximum and minimum compile, along any axis, with
  NumPy's bits and its IndexError.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError, UnsupportedError
from jitcore.tracer import Tracer


def no_tracer(obj, depth=4) -> bool:
    """Whether ``obj`` holds no tracer (a list's, dict's, object's members, ``depth`` deep)."""
    if isinstance(obj, Tracer):
        return False
    if depth == 0:
        return True
    if isinstance(obj, dict):
        return all(no_tracer(v, depth - 1) for v in obj.values())
    if isinstance(obj, (list, tuple, set)):
        return all(no_tracer(v, depth - 1) for v in obj)
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return all(no_tracer(v, depth - 1) for v in vars(obj).values())
    return True


# -- 1. mutable defaults and partial-bound containers ----------------------------------------

def _append_default(x, cache=[]):  # noqa: B006  (the idiom under test)
    cache.append(x.sum())
    return len(cache)


def _memo_default(x, memo={}):  # noqa: B006
    memo[len(memo)] = x.sum()
    return len(memo)


def _kwonly_default(x, *, acc=[]):  # noqa: B006
    acc.append(1)
    return len(acc) + x


class _Counter:
    def __init__(self):
        self.n = 0
        self.total = 0.0


_COUNTER = _Counter()


def _object_default(x, c=_COUNTER):
    c.n += 1
    c.total = c.total + x.sum()
    return c.n


@pytest.mark.parametrize("fun, holder", [
    (_append_default, lambda: _append_default.__defaults__),
    (_memo_default, lambda: _memo_default.__defaults__),
    (_kwonly_default, lambda: _kwonly_default.__kwdefaults__),
    (_object_default, lambda: _object_default.__defaults__),
])
def test_changing_a_default_is_refused_and_left_as_it_was(fun, holder):
    # NumPy: 1, 2, 3 (the default grows at each call); jit before: 1, 1, 1 and a tracer left in it
    before = repr(holder())
    with pytest.raises(UnsupportedError, match="default value of .* one .* for every call"):
        jc.jit(fun)(np.ones(3))
    assert no_tracer(holder()) and repr(holder()) == before
    assert np.all(fun(np.ones(3)) == (1 if fun is not _kwonly_default else 2.0))  # plain still works
    if fun is _object_default:
        _COUNTER.n, _COUNTER.total = 0, 0.0
    else:
        next(iter(holder().values() if isinstance(holder(), dict) else holder())).clear()


def test_partial_bound_list_is_refused_and_left_empty():
    lst = []

    def h(x, out):
        out.append(x.sum())
        return len(out)

    with pytest.raises(UnsupportedError, match="bound by functools.partial"):
        jc.jit(functools.partial(h, out=lst))(np.ones(2))
    with pytest.raises(UnsupportedError, match="bound by functools.partial"):
        jc.jit(functools.partial(h, np.ones(2), lst))()
    assert lst == []


def _gauss_kernel(sigma, x, _cache={}):  # noqa: B006
    if sigma not in _cache:
        r = np.arange(-3, 4)
        k = np.exp(-r ** 2 / (2 * sigma ** 2)) * x.mean()
        _cache[sigma] = k / k.sum()
    return _cache[sigma]


def _blur(img, sigma):
    return np.convolve(img, _gauss_kernel(sigma, img), mode="same")


def test_memo_default_of_a_helper_is_refused_and_no_tracer_poisons_later_calls():
    x1, x2 = np.random.default_rng(0).random(20), np.random.default_rng(1).random(30)
    jb = jc.jit(_blur, static_argnums=1)
    for x in (x1, x2):  # before: the second trace raised an internal VerificationError
        with pytest.raises(UnsupportedError, match="'_cache' in _gauss_kernel"):
            jb(x, 1.0)
    assert _gauss_kernel.__defaults__ == ({},)
    assert isinstance(_blur(x1, 1.0), np.ndarray)  # before: the plain function returned a tracer
    _gauss_kernel.__defaults__[0].clear()


def test_the_advice_works_pass_it_or_lru_cache():
    def f(x, cache):
        cache.append(x.sum())
        return len(cache)

    mine, jf = [], jc.jit(f)
    assert [jf(np.ones(3), mine) for _ in range(3)] == [1, 2, 3]
    assert mine == [3.0, 3.0, 3.0] and all(type(v) is np.float64 for v in mine)

    @functools.lru_cache
    def kernel(n):
        return np.arange(n) * 2.0

    def g(x):
        return x + kernel(3)

    np.testing.assert_array_equal(jc.jit(g)(np.ones(3)), g(np.ones(3)))


def test_a_default_read_only_is_the_value_at_the_call():
    weights = [1.0, 2.0]
    table = {"scale": 3.0}

    def f(x, w=weights, t=table):
        return x * w[1] + t["scale"]

    jf = jc.jit(f)
    for k in range(3):
        weights[1] = 2.0 + k
        table["scale"] = 3.0 - k
        np.testing.assert_array_equal(jf(np.ones(2)), f(np.ones(2)))
    assert weights == [1.0, 4.0] and table == {"scale": 1.0}


def test_a_failed_trace_leaves_no_tracer_in_a_list_passed_in():
    def f(x, out):
        out.append(x.sum())
        return np.zeros(int(x.sum()))  # refused: a shape from the data

    out = [1.0]
    with pytest.raises(JitcoreError):
        jc.jit(f)(np.ones(2), out)
    assert out == [1.0]


# -- 2. gathers and scatters through mask-filtered index arrays ------------------------------

def outcome(fun, *args):
    """``fun(*args)``'s result, or the type of the error it raised (IndexError for jitcore's)."""
    try:
        return fun(*args)
    except IndexError as e:
        return IndexError, str(e)


def same_outcome(fun, *args):
    expected = outcome(fun, *(np.copy(a) for a in args))
    got = outcome(jc.jit(fun), *(np.copy(a) for a in args))
    if isinstance(expected, tuple):
        assert got == expected
        return
    assert type(got) is type(expected)
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


GATHERS = [
    lambda lut, idx: lut[idx[(idx >= 0) & (idx < 4)]],
    lambda lut, idx: lut[idx[(idx >= 0) & (idx < 4)]].sum(),
    lambda lut, idx: lut[idx[idx >= 0]],  # a kept index may still be out of range: NumPy's error
    lambda lut, idx: lut[np.compress((idx >= -4) & (idx < 4), idx)],
    lambda lut, idx: lut[np.extract(idx < 4, idx)].max(initial=-1.0),
    lambda lut, idx: np.take(lut, idx[(idx >= 0) & (idx < 4)]),
]


@pytest.mark.parametrize("k", range(len(GATHERS)))
@given(idx=st.lists(st.integers(-9, 9), min_size=0, max_size=8))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_gather_through_filtered_indices_checks_only_the_kept_ones(k, idx):
    same_outcome(GATHERS[k], np.arange(4.0) * 10, np.array(idx, dtype=np.int64))


def _rotate(img, theta):
    h, w = img.shape
    yy, xx = np.mgrid[0:h, 0:w]
    c, s = np.cos(theta), np.sin(theta)
    sx = c * (xx - (w - 1) / 2) + s * (yy - (h - 1) / 2) + (w - 1) / 2
    sy = -s * (xx - (w - 1) / 2) + c * (yy - (h - 1) / 2) + (h - 1) / 2
    xi, yi = np.round(sx).astype(np.int64), np.round(sy).astype(np.int64)
    valid = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = np.zeros_like(img)
    out[valid] = img[yi[valid], xi[valid]]
    return out


@pytest.mark.parametrize("theta", [0.4, 2.0])
def test_rotate_image_idiom(theta):
    same_outcome(_rotate, np.random.default_rng(0).random((7, 9)), np.float64(theta))


def _write_one(grid, ys, xs, m):
    grid[ys[m], xs[m]] = 1
    return grid


def _write_selected(grid, ys, xs, m):
    grid[ys[m], xs[m]] = (ys * 10 + xs)[m]
    return grid


def _add_selected(grid, ys, xs, m):
    grid[ys[m], xs[m]] += 1
    return grid


def _write_rows(grid, ys, xs, m):
    grid[ys[m]] = 7  # whole rows
    return grid.sum()


@pytest.mark.parametrize("fun", [_write_one, _write_selected, _add_selected, _write_rows])
@given(data=st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.booleans()),
                     min_size=0, max_size=9))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_write_through_filtered_index_arrays_is_a_scatter_of_the_kept_pairs(fun, data):
    # before: refused (JitTypeError); a kept index out of range raises NumPy's IndexError
    ys = np.array([d[0] for d in data], dtype=np.int64)
    xs = np.array([d[1] for d in data], dtype=np.int64)
    m = np.array([d[2] for d in data], dtype=bool) & (np.abs(ys) < 5)
    same_outcome(fun, np.zeros((4, 5), dtype=np.int64), ys, xs, m)


# -- 3. np.repeat with traced counts ----------------------------------------------------------

def _csr_rows(indptr):
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


def _repeat_listed(c):
    if c[0] > 100:  # (an if: the function is converted, and its list read)
        c = c - 1
    return np.repeat(np.arange(3), [c[0], 1, 2])


@pytest.mark.parametrize("fun", [_csr_rows, lambda c: np.repeat(c, c), _repeat_listed])
def test_repeat_with_traced_counts_is_refused_naming_it_and_what_to_write(fun):
    # before: TracerConversionError "np.asarray() of Traced" for a NumPy first argument
    with pytest.raises(jc.JitTypeError, match=r"numpy.repeat with traced per-element counts.*"
                                              r"np.searchsorted\(indptr"):
        jc.jit(fun)(np.array([0, 2, 2, 5]))


@given(counts=st.lists(st.integers(0, 3), min_size=1, max_size=6))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_rewrites_the_repeat_message_names_give_numpys_result(counts):
    counts = np.array(counts, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    a = np.arange(len(counts)) * 1.5

    def rows(indptr, data):
        return np.searchsorted(indptr, np.arange(len(data)), side="right") - 1

    def repeated(a, counts, data):
        return a[np.searchsorted(np.cumsum(counts), np.arange(len(data)), side="right")]

    data = np.ones(int(counts.sum()))
    np.testing.assert_array_equal(jc.jit(rows)(indptr, data), np.repeat(np.arange(len(counts)), counts))
    got = jc.jit(repeated)(a, counts, data)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.repeat(a, counts))


def test_repeat_with_static_counts_still_compiles():
    b = np.arange(3.0)
    np.testing.assert_array_equal(jc.jit(lambda b: np.repeat(b, [1, 0, 2]))(b), np.repeat(b, [1, 0, 2]))
    np.testing.assert_array_equal(jc.jit(lambda b: np.repeat(b, 2, axis=0))(b), np.repeat(b, 2, axis=0))


# -- 4. ufunc.reduceat at traced indices ------------------------------------------------------

REDUCEATS = {name: getattr(np, name) for name in ("add", "multiply", "maximum", "minimum")}


@pytest.mark.parametrize("name", sorted(REDUCEATS))
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
@given(idx=st.lists(st.integers(-1, 13), min_size=1, max_size=6), seed=st.integers(0, 3))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_reduceat_at_traced_indices_1d(name, dtype, idx, seed):
    # before: UnsupportedError "takes static indices"
    ufunc = REDUCEATS[name]
    x = (np.random.default_rng(seed).random(12) * 4 + 0.5).astype(dtype)
    if dtype is np.int64:
        x = np.random.default_rng(seed).integers(-5, 6, 12)
    same_outcome(lambda x, i: ufunc.reduceat(x, i), x, np.array(idx, dtype=np.int64))


@pytest.mark.parametrize("name", sorted(REDUCEATS))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reduceat_at_traced_indices_along_an_axis(name, axis):
    ufunc = REDUCEATS[name]
    x = np.random.default_rng(1).random((5, 7)) + 0.5
    idx = np.array([0, 3, 1, 2, 4])
    same_outcome(lambda x, i: ufunc.reduceat(x, i, axis=axis), x, idx)


def test_reduceat_csr_row_sums_and_normalisation():
    rng = np.random.default_rng(2)
    data, indptr = rng.random(40), np.array([0, 5, 5, 17, 30, 40])

    def row_normalize(data, indptr):
        sums = np.add.reduceat(data, indptr[:-1])
        return data / sums[np.searchsorted(indptr, np.arange(len(data)), side="right") - 1]

    got = jc.jit(row_normalize)(data, indptr)
    expected = row_normalize(data, indptr)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("lengths", [[1, 7, 8, 9, 30, 129, 300], [0, 2, 0, 8, 1]])
def test_reduceat_add_sums_each_piece_as_numpy_does(lengths):
    # pieces under 8 added one by one from -0.0, longer ones pairwise: NumPy's bits
    rng = np.random.default_rng(3)
    x = (rng.random(sum(lengths) + 1) - 0.5) * 10.0 ** rng.integers(-8, 9, sum(lengths) + 1)
    x[::5] = -0.0
    idx = np.cumsum([0] + lengths[:-1])
    same_outcome(lambda x, i: np.add.reduceat(x, i), x, idx)
    same_outcome(lambda x, i: np.add.reduceat(x.reshape(1, -1), i, axis=1), x, idx)
