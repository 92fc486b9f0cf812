"""NumPy's order of float sums where the order depends on the arguments' strides or on a mask.

- A strided argument's layout class names NumPy's iteration order where it is not the axes'
  own (``layout_class.iteration_order``, checked against ``np.nditer``): ``a.T[::2]`` and
  ``a[::2, 1::3]`` passed in are summed as NumPy sums them (``buffered_sum.py``, and the
  schedule's twin that reads a strided argument in that order).
- Arguments dense in memory with a flipped axis (``a.T[:, ::-1]``, class ``F flip 1``) and
  tiny Fortran ones are read in memory order as NumPy reads them (``schedule._dense_twin``).
- ``sum(where=m)`` and ``mean(where=m)`` add the pairwise sums of each run of consecutive
  selected elements in turn, as NumPy's masked inner loop does; ``np.where(m, x, 0).sum()``
  stays one pairwise sum of every term (``masked_rows.SelectedRuns``).

NumPy is the oracle: bits and type.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.ir import layout_class
from tests.budget import examples


def _same(want, got, what):
    assert type(got) is type(want), what
    assert np.array_equal(want, got, equal_nan=True), (what, want, got)


@settings(max_examples=examples(200, ci=60), deadline=None)
@given(data=st.data())
def test_iteration_order_is_numpys(data):
    """``iteration_order`` visits a view as ``np.nditer`` does (nditer turns negative strides
    around, a reduction does not: compared with each axis's positions counted from where
    nditer starts)."""
    ndim = data.draw(st.integers(2, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    steps = data.draw(st.lists(st.sampled_from([1, 2, 3, -1, -2]), min_size=ndim, max_size=ndim))
    base = np.zeros(tuple(3 * n for n in shape))
    v = base[tuple(slice(None, None, s) for s in steps)][tuple(slice(0, n) for n in shape)]
    v = v.transpose(data.draw(st.permutations(range(ndim))))
    if data.draw(st.booleans()):  # a broadcast axis (stride 0) compares with no other
        axis = data.draw(st.integers(0, ndim - 1))
        v = np.broadcast_to(v[tuple(slice(0, 1) if a == axis else slice(None) for a in range(ndim))], v.shape)
    long_axes = [a for a in range(v.ndim) if v.shape[a] > 1]
    order = layout_class.iteration_order(v.strides, long_axes)
    it = np.nditer(v, flags=["multi_index"])
    seen = []
    for _ in it:
        ix = it.multi_index
        seen.append(tuple(v.shape[a] - 1 - ix[a] if v.strides[a] < 0 else ix[a] for a in order))
    assert seen == sorted(seen), (v.shape, v.strides, order)


def test_a_strided_class_names_numpys_order_where_it_is_not_the_axes_own():
    a = np.zeros((10, 12), np.float64)
    classes = [
        layout_class.classify(v.shape, v.strides, 8)
        for v in (a[::2, 1::3], a.T[::2], a[::2].T, np.broadcast_to(a[:1], a.shape))
    ]
    assert classes == ["strided", "strided gm order 1,0", "strided ug order 1,0", "strided ug zero 0"]
    assert layout_class.describe(classes[1]) == "strided, partly dense (gm), axes 1, 0 outermost first"


def passed_in(step, t_step, step_t, t_flip, tiny_f, f3, row_broadcast):
    return (
        step.sum(),
        t_step.sum(),
        step_t.mean(),
        np.sum(t_flip),
        t_flip.sum(axis=0),
        tiny_f.sum(),
        f3.sum(),
        row_broadcast.sum(),
    )


_passed_in = jc.jit(passed_in)


# (ci: 3, each example compiles the function anew for its shapes)
@settings(max_examples=examples(6, ci=3), deadline=None)
@given(
    shape=st.sampled_from([(3, 8192), (91, 90), (2, 4097), (17, 1025)]),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
)
def test_whole_sums_of_arguments_in_numpys_order(shape, dtype, seed):
    a = (np.random.default_rng(seed).random(shape) * 1e3).astype(dtype)
    a[..., ::3] = 1e-3  # terms of very different size: any other order shows in the bits
    views = (
        a[::2, 1::3],
        a.T[::2],
        a[::2].T,
        a.T[:, ::-1],
        np.asfortranarray(a[:6, :7]),
        a.reshape(shape[0], -1, 1)[:, ::2].transpose(1, 0, 2),
        np.broadcast_to(a[0], a.shape),
    )
    for k, (want, got) in enumerate(zip(passed_in(*views), _passed_in(*views))):
        _same(want, got, (k, shape))


def where_sums(x, m):
    return (
        x.sum(where=m),
        x.sum(axis=-1, where=m),
        x.mean(axis=-1, where=m),
        np.sum(x, where=m),
        np.mean(x, where=m),
        np.where(m, x, 0).sum(axis=-1),
    )


_where_sums = jc.jit(where_sums)


@settings(max_examples=examples(25, ci=10), deadline=None)
@given(
    kept=st.sampled_from([0.0, 0.3, 0.9, 0.99, 1.0]),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float32, np.float64]),
    rows=st.sampled_from([1, 3]),
)
def test_sums_under_a_mask_add_numpys_runs_in_turn(kept, seed, dtype, rows):
    """One shape per dtype and row count: runs of every length, up to whole rows of 2000
    (NumPy's tree splits them) and empty rows (mean: NaN, as NumPy)."""
    rng = np.random.default_rng(seed)
    x = (rng.random((rows, 2000)) * 1e3).astype(dtype)
    x[:, ::3] = 1e-3
    m = rng.random(x.shape) < kept
    with np.errstate(invalid="ignore", divide="ignore"):
        want = where_sums(x, m)
        got = _where_sums(x, m)
    for k, (w, g) in enumerate(zip(want, got)):
        _same(w, g, k)


def variances(strided, broadcast, fortran3, transposed3):
    return (
        strided.var(),
        strided.std(ddof=1),
        np.var(broadcast),
        fortran3.var(axis=2),
        fortran3.sum(axis=2),
        transposed3.var(axis=0, ddof=1),
        strided.mean(keepdims=True),
    )


_variances = jc.jit(variances)


@settings(max_examples=examples(8, ci=4), deadline=None)
@given(seed=st.integers(0, 2**16), dtype=st.sampled_from([np.float32, np.float64]))
def test_variances_of_arguments_in_numpys_order(seed, dtype):
    """``var`` without an axis sums ``x - mean`` as NumPy lays it out (order 'K') in one run,
    its mean in NumPy's buffered order; along the last axis of a Fortran 3-d argument NumPy
    adds the terms of each element one after another (the axis is outermost in memory)."""
    from tests.layouts import relayout

    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 1, (33, 257)).astype(dtype)
    b = rng.lognormal(0, 1, (4, 5, 40)).astype(dtype)
    args = (relayout(a, "strided"), relayout(a, "broadcast"), relayout(b, "F"), b.T)
    for k, (want, got) in enumerate(zip(variances(*args), _variances(*args))):
        _same(want, got, k)
