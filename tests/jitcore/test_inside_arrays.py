"""Issue 12, item 1: arrays built inside a jitted function meet traced data. Each test is the
user code that failed (TracerConversionError, a refused ``out=``, a TypeError on a list, no
lowering, a data-dependent shape), run under jit against NumPy on hypothesis draws."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples
from tests.jit_once import jit_once

FLOATS = st.one_of(st.floats(-1e3, 1e3), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5]))
FINITE = st.floats(-100, 100, allow_nan=False, allow_infinity=False)
DTYPES = st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.uint8, np.bool_])


def vectors(elements=FINITE, min_size=1, max_size=9, dtype=np.float64):
    return hnp.arrays(dtype, st.integers(min_size, max_size), elements=elements)


def any_vectors(min_size=1, max_size=9):
    """Vectors of every dtype family (values from the dtype, NaN and inf included)."""
    return DTYPES.flatmap(lambda dt: hnp.arrays(dt, st.integers(min_size, max_size)))


def same(fn, *args, rtol=0.0, atol=0.0, **jit_kwargs):
    """``jit(fn)(*args)`` against ``fn(*args)`` on NumPy: values, dtypes and shapes; NumPy's
    exception type when NumPy raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        except (ValueError, TypeError, IndexError) as e:
            with pytest.raises(type(e)):
                jit_once(fn, **jit_kwargs)(*args)
            return
        got = jit_once(fn, **jit_kwargs)(*args)
    for g, w in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want))):
        assert type(g) is type(w) or isinstance(g, np.ndarray) == isinstance(w, np.ndarray), (g, w)
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


# -- np.array / np.asarray of traced values ---------------------------------------------------

@settings(max_examples=examples(15), deadline=None)
@given(vectors(FLOATS), vectors(FLOATS))
def test_np_array_of_traced_sums(a, b):
    same(lambda a, b: np.array([a.sum(), b.sum()]), a, b, rtol=1e-12)
    same(lambda a, b: np.array([[a[0], b[0]], [a.max(), 2.0]]), a, b)
    same(lambda a, b: np.array((a[0], 1, True)), a, b)  # NumPy's dtype of a mixed list
    same(lambda a, b: np.asarray([a[0], b[-1]], dtype=np.float32), a, b)
    same(lambda a, b: np.array([a.sum(), b.sum()], ndmin=2), a, b, rtol=1e-12)


@settings(max_examples=examples(15), deadline=None)
@given(any_vectors())
def test_np_array_dtype_rules_of_lists_mixing_traced_values_and_numbers(x):
    same(lambda x: np.array([x[0], 1.0]), x)  # a Python float in a list is float64, not weak
    same(lambda x: np.array([x[0], 1]), x)
    same(lambda x: np.array([x[0], x[-1]]), x)
    same(lambda x: np.stack([[x[0], x[-1]], [x[-1], x[0]]]), x)


@settings(max_examples=examples(15), deadline=None)
@given(vectors(FLOATS))
def test_asarray_of_a_traced_value_is_the_value_and_array_copies(x):
    same(lambda x: np.asarray(x) + 1, x)
    same(lambda x: np.asanyarray(x) * 2, x)
    same(lambda x: np.ascontiguousarray(x)[::-1], x)
    same(lambda x: np.asarray(x, dtype=np.float32), x)
    same(lambda x: (np.asarray(x[0]), np.array(x.sum())), x, rtol=1e-12)  # 0-d arrays, not scalars

    def asarray_aliases(x):
        y = np.asarray(x)
        y[0] = 7.0  # np.asarray returned x itself: the write reaches x
        return x

    def array_copies(x):
        y = np.array(x)
        y[0] = 7.0  # np.array copied: x is unchanged
        return x, y

    same(asarray_aliases, x)
    same(array_copies, x)


def test_asarray_of_a_traced_value_without_autograph_is_a_clear_error():
    f = jc.jit(lambda x: np.asarray(x) + 1, autograph=False)
    with pytest.raises(jc.TracerConversionError, match="np.asarray"):
        f(np.ones(3))


@settings(max_examples=examples(10), deadline=None)
@given(vectors(FLOATS))
def test_lists_holding_traced_values_as_operands_numpy_cannot_see(x):
    same(lambda x: np.sum([x, x]), x, rtol=1e-12)
    same(lambda x: np.mean([x[0], x[-1]]), x, rtol=1e-12)
    same(lambda x: np.max([x[0], 1.0]), x)
    same(lambda x: np.sort([x[-1], x[0]]), x)
    same(lambda x: np.maximum([x[0], x[-1]], 0.0), x)
    same(lambda x: np.float32(x[0]) + np.float64(x.sum()), x, rtol=1e-6)


@settings(max_examples=examples(10), deadline=None)
@given(vectors(FINITE, min_size=3, max_size=3))
def test_lists_holding_traced_values_in_any_operand(x):
    same(lambda x: np.dot(x, [x[0], x[1], 2.0]), x, rtol=1e-12)
    same(lambda x: np.interp(x, [-200.0, x[1], 200.0], [0, 1, 2]), x, rtol=1e-12)
    same(lambda x: np.einsum("i,i", x, [x[0], x[1], 2.0]), x, rtol=1e-12)
    same(lambda x: np.searchsorted(np.sort(x), [x[0], 2.5]), x)
    same(lambda x: np.cross(x, [x[0], 0, 1]), x, rtol=1e-12)
    same(lambda x: np.outer(x, [x[0], 2]), x)
    same(lambda x: np.meshgrid(x, [x[0], 1.0])[0], x)
    same(lambda x: np.average(x, weights=[abs(x[0]) + 1, 1, 1]), x, rtol=1e-12)
    same(lambda x: np.select([x > 1, x < 1], [x, [x[0], 0, 0]]), x)


def test_a_helper_function_builds_the_array():
    def pair(a, b):
        return np.array([a.min(), b.min()])

    def f(a, b):
        return pair(a, b) * 2

    same(f, np.arange(3.0), np.arange(4.0) - 2)


# -- out= into a local array ------------------------------------------------------------------

@settings(max_examples=examples(15), deadline=None)
@given(vectors(FLOATS, min_size=3, max_size=3), vectors(FLOATS, min_size=3, max_size=3))
def test_out_into_a_local_array(a, b):
    def f(a, b):
        tmp = np.empty(3)
        np.add(a, b, out=tmp)
        return tmp

    def g(a, b):
        tmp = np.zeros(3, np.float32)
        y = np.multiply(a, b, out=tmp, casting="unsafe")
        return y, tmp

    def h(a, b):
        acc = np.zeros(3)
        for i in range(4):
            np.add(acc, a * i, out=acc)
        return acc

    same(f, a, b)
    same(g, a, b)
    same(h, a, b)


def test_out_into_a_local_array_in_a_compiled_loop():
    def f(a, n):
        acc = np.zeros(3)
        for i in range(n):
            np.add(acc, a * i, out=acc)
        return acc

    same(f, np.arange(3.0), 5)  # n traced: the loop compiles


def test_out_tuple_of_a_two_output_ufunc_into_local_arrays():
    """``np.divmod(a, b, out=(q, r))`` (found by the random programs of session 38: refused as
    an ``out=`` that is not a local name): each output bound to its own name, as a statement,
    assigned, and in a compiled loop."""
    def f(a):
        q = np.zeros(a.shape, a.dtype)
        r = np.ones(a.shape, a.dtype)
        np.divmod(a, -3, out=(q, r))
        return q, r

    def g(a):
        q, r = np.zeros(a.shape), np.zeros(a.shape)
        t = np.modf(a * 0.75, out=(q, r))
        return q, r, t[1] - t[0]

    def h(a, n):
        q, r = np.zeros(a.shape, a.dtype), np.zeros(a.shape, a.dtype)
        for i in range(n):
            np.divmod(a + i, 3, out=(q, r))
        return q, r

    ints = np.array([5, -3, 0, 7, -128, 127, -1], np.int8)
    same(f, ints)
    same(g, np.array([1.5, -2.0, 0.0, np.nan, np.inf, -0.0, 3.0]))
    same(h, ints, 2)  # n traced: the loop compiles


@settings(max_examples=examples(10), deadline=None)
@given(hnp.arrays(np.float64, (3, 3), elements=FINITE))
def test_out_of_numpy_functions_into_a_local_array(m):
    def f(m):
        total = np.empty(3)
        np.sum(m, axis=0, out=total)
        prod = np.zeros((3, 3))
        np.dot(m, m, out=prod)
        both = np.empty(6)
        np.concatenate([m[0], m[1]], out=both)
        clipped = np.empty((3, 3))
        np.clip(m, -1, 1, out=clipped)
        return total, prod, both, clipped

    same(f, m, rtol=1e-12)


def test_out_of_another_dtype_than_the_result_is_cast_as_numpy_casts():
    def f(m):
        total = np.empty(3, np.float32)
        np.sum(m, axis=0, out=total)
        counts = np.empty(3, np.int8)
        np.cumsum(m[0] > 0.5, out=counts)
        return total, counts

    m = np.random.default_rng(39).random((3, 3))
    for got, want in zip(jc.jit(f)(m), f(m)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_out_of_another_dtype_for_a_function_that_does_not_cast_is_refused():
    def f(m):
        product = np.empty((3, 3), np.float32)
        np.dot(m, m, out=product)
        return product

    with pytest.raises(jc.UnsupportedError, match="assign the result instead"):
        jc.jit(f)(np.ones((3, 3)))


def test_out_into_an_attribute_or_a_global_is_refused_with_what_to_write():
    class Buffers:
        tmp = np.zeros(3)

    bufs = Buffers()

    def f(a):
        np.add(a, 1, out=bufs.tmp)
        return a

    # an outside object's array is an input where it is read (session 47): written at each
    # call, as NumPy writes it
    jc.jit(f)(np.ones(3))
    np.testing.assert_array_equal(bufs.tmp, [2.0, 2.0, 2.0])
    jc.jit(f)(np.full(3, 4.0))
    np.testing.assert_array_equal(bufs.tmp, [5.0, 5.0, 5.0])

    def g(a):
        made = Buffers()
        made.own = np.zeros(3)  # made while tracing: a constant, which out= cannot rebind
        np.add(a, 1, out=made.own)
        return made.own

    with pytest.raises(jc.UnsupportedError, match=r"tmp = np.add\(a, b\)"):
        jc.jit(g)(np.ones(3))


def test_out_into_a_local_outside_jit_is_numpy():
    from jitcore.autograph import converted

    def f(a, b):
        tmp = np.empty(3)
        r = np.add(a, b, out=tmp)
        return r is tmp, tmp

    same_object, tmp = converted(f)(np.ones(3), np.ones(3))
    assert same_object and tmp.tolist() == [2.0, 2.0, 2.0]


# -- Python lists as operands --------------------------------------------------------------------

@settings(max_examples=examples(15), deadline=None)
@given(vectors(FLOATS, min_size=3, max_size=3))
def test_lists_as_operands_become_arrays(x):
    same(lambda x: np.concatenate([x, [0.0]]), x)
    same(lambda x: np.concatenate(([1, 2], x)), x)
    same(lambda x: np.concatenate([x, [x[0], 2.0]]), x)
    same(lambda x: np.dot(x, [1, 2, 3]), x, rtol=1e-12)
    same(lambda x: np.where(x > 1, x, [7, 8, 9]), x)
    same(lambda x: np.where([True, False, True], x, 0), x)
    same(lambda x: np.clip(x, [0, 1, 1], [2, 2, 2]), x)
    same(lambda x: np.append(x, [1, 2]), x)
    same(lambda x: np.append([1, 2], x), x)
    same(lambda x: np.hstack([x, [1, 2]]), x)
    same(lambda x: np.vstack([x, [1, 2, 3]]), x)
    same(lambda x: np.stack([x, [1, 2, 3]]), x)
    same(lambda x: x + [1, 2, 3], x)
    same(lambda x: [1, 2, 3] * x, x)
    same(lambda x: np.fmax(x, [1, 1, 1]), x)
    same(lambda x: np.searchsorted([0.0, 1.0, 2.0], np.nan_to_num(x)), x)
    same(lambda x: np.interp(x, [0, 1, 2], [0, 10, 20]), x)

    def write_a_list(x):
        x[:] = [1, 2, 3]
        return x

    same(write_a_list, x)


def test_list_operands_keep_numpy_dtypes():
    x = np.arange(3, dtype=np.float32)
    same(lambda x: x + [1.0, 2.0, 3.0], x)  # a list is float64, not a weak scalar
    same(lambda x: np.concatenate([x, [0.0]]), x)
    same(lambda x: np.concatenate([x, [x[0]]]), x)


# -- linspace / logspace with traced endpoints -------------------------------------------------

@settings(max_examples=examples(25), deadline=None)
@given(FINITE, FINITE, st.integers(0, 12), st.booleans())
def test_linspace_with_traced_endpoints_is_numpys_bits(start, stop, num, endpoint):
    same(lambda s, t: np.linspace(s, t, num, endpoint=endpoint), start, stop)
    same(lambda s, t: np.linspace(s, t, num, endpoint=endpoint, retstep=True), start, stop)
    same(lambda s: np.linspace(s, s + 1, 5), start)
    same(lambda s, t: np.linspace(s, t, num, endpoint=endpoint, dtype=np.int64), start, stop)
    same(lambda x: np.linspace(x[0], x[1], num), np.array([start, stop], np.float32))


@settings(max_examples=examples(15), deadline=None)
@given(st.floats(-5, 5), st.floats(-5, 5), st.integers(0, 8))
def test_logspace_with_traced_endpoints(start, stop, num):
    same(lambda s, t: np.logspace(s, t, num), start, stop, rtol=1e-14)
    same(lambda s: np.logspace(0, 2, num, base=s), abs(start) + 1, rtol=1e-14)


# -- reductions of a read through a traced mask ---------------------------------------------------
# CI runs about half the examples: each compiles eight to ten functions, and past a dozen draws the
# dtypes, the empty selection and the all-selected one have each come up.

@settings(max_examples=examples(25, ci=12), deadline=None)
@given(any_vectors(max_size=12), st.integers(-3, 3))
def test_masked_reductions(x, t):
    # (t an argument, a Python int as drawn, not a closed-over constant: a constant t compiled
    # every form again for every example, 103 compiles under the ci profile)
    x = x.astype(np.float64) if x.dtype == np.float32 else x  # float32 sums: order
    for form, tol in MASKED_REDUCTION_FORMS:
        same(form, x, t, rtol=tol)


MASKED_REDUCTION_FORMS = (
    (lambda x, t: x[x > t].sum(), 1e-12),
    (lambda x, t: x[x > t].max(), 0.0),
    (lambda x, t: x[x < t].min(), 0.0),
    (lambda x, t: np.mean(x[x > t]), 1e-12),
    (lambda x, t: x[x > t].any(), 0.0),
    (lambda x, t: x[x != t].all(), 0.0),
    (lambda x, t: np.sum(x[x >= t]), 1e-12),
    (lambda x, t: np.count_nonzero(x[x > t]), 0.0),
    (lambda x, t: x[x > t].prod(), 1e-12),
    (lambda x, t: np.max(x[x <= t]), 0.0),
)


@settings(max_examples=examples(25, ci=12), deadline=None)
@given(vectors(FLOATS, max_size=12), st.floats(-10, 10))
def test_masked_reductions_of_elementwise_results(x, t):
    # (t an argument, not a closed-over constant: one compiled code per form and shape class
    # serves every example, where a constant t compiled each form again for each example)
    for form, tol in ELEMENTWISE_SELECTION_FORMS:
        same(form, x, t, rtol=tol, atol=tol if tol > 1e-12 else 0.0)


ELEMENTWISE_SELECTION_FORMS = (
    (lambda x, t: (x[x > t] ** 2).sum(), 1e-12),
    (lambda x, t: np.abs(x[x < t]).max(), 0.0),
    (lambda x, t: (x[x > t] - 1.0).mean(), 1e-12),
    (lambda x, t: x[x > t].var(), 1e-9),
    (lambda x, t: np.std(x[x > t], ddof=1), 1e-9),
    (lambda x, t: (x[x > t] > 0).sum(), 0.0),
    (lambda x, t: (x.mean() - x[x > t]).sum(), 1e-9),  # the tracer on the left
    (lambda x, t: np.maximum(x.min(), x[x > t]).max(), 0.0),
)


@settings(max_examples=examples(15, ci=8), deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5), elements=FINITE),
       st.floats(-100, 100))
def test_masked_reductions_of_selected_rows(m, t):
    # (t an argument: as a closed-over constant it compiled each form again per example)
    for form, tol in SELECTED_ROWS_FORMS:
        same(form, m, t, rtol=tol)


SELECTED_ROWS_FORMS = (
    (lambda m, t: m[m[:, 0] > t].sum(axis=0), 1e-12),
    (lambda m, t: m[m[:, 0] > t].max(axis=0), 0.0),
    (lambda m, t: m[m[:, 0] > t].mean(axis=0, keepdims=True), 1e-12),
    (lambda m, t: m[m > t].sum(), 1e-12),
)


def test_max_of_an_empty_selection_raises_numpys_value_error_when_called():
    f = jc.jit(lambda x: x[x > 0].max())
    assert f(np.array([-1.0, 3.0])) == 3.0
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        f(np.array([-1.0, -3.0]))
    assert f(np.array([5.0, -3.0])) == 5.0  # the same compiled code, selecting again


def test_write_through_a_traced_mask_of_a_function_of_the_selection():
    def f(x):
        m = x < 0
        x[m] = np.sqrt(-x[m])
        return x

    def g(x):
        x[x < 0] = -x[x < 0] * 2  # the mask computed twice, the same way
        return x

    def h(x, y):
        return (x[x > 1] * y[x > 1]).sum()  # two arrays selected by one condition

    same(f, np.array([-4.0, 2.0, -9.0]))
    same(g, np.array([-4.0, 2.0, -9.0]))
    same(h, np.array([-4.0, 2.0, 9.0]), np.array([1.0, 2.0, 3.0]))


def test_selections_by_different_masks_do_not_mix():
    """x[m] = x[m2] pairs the k-th kept elements (session 50, masked.realigned), and raises
    NumPy's ValueError when the counts differ (a count of 1 broadcasts)."""
    def f(x):
        x[x < 0] = x[x > 0]
        return x

    np.testing.assert_array_equal(jc.jit(f)(np.array([-1.0, 2.0])), f(np.array([-1.0, 2.0])))
    with pytest.raises(ValueError):
        f(np.array([-1.0, -3.0, 2.0, 4.0, 5.0]))
    with pytest.raises(ValueError):
        jc.jit(f)(np.array([-1.0, -3.0, 2.0, 4.0, 5.0]))


@pytest.mark.parametrize("use", [  # (returning x[x > 0]: tests/test_data_dependent_length.py;
    # len(x[x > 0]) and x[x[:, 0] > 0].sum(axis=1) compile since session 47, np.sort of it and
    # its slices since session 51: tests/jitcore/test_selection_lengths_51.py; x[x > 0][0] of a
    # 2-d x since session 51: below)
    lambda x: np.sort(x[x > 0]).reshape(2, -1),
    lambda x: x[x[:, 0] > 0].sum(axis=1)[1:] + x[0],
])
def test_other_uses_of_a_traced_mask_read_keep_the_clear_error(use):
    with pytest.raises(jc.JitTypeError, match="depends on the data"):
        jc.jit(use)(np.arange(6.0).reshape(2, 3) - 2)


def test_an_item_of_a_2d_arrays_selection_is_numpys():
    """``x[x > 0][i]`` of a 2-d ``x``: the i-th kept element in C order (session 51, the
    selection's grid flattened), NumPy's IndexError where fewer are kept."""
    def f(x, i):
        return x[x > 0][i]

    jf = jc.jit(f)
    x = np.arange(6.0).reshape(2, 3) - 2
    for i in (0, 1, -1, -3):
        got, want = jf(x, i), f(x, i)
        assert type(got) is type(want) and got == want
    with pytest.raises(IndexError):
        jf(x, 3)


# -- np.empty ------------------------------------------------------------------------------------

def test_empty_inside_jit_is_the_same_for_every_compile():
    """Written with traced values, an ``np.empty`` becomes a constant: its garbage must not
    become part of the compiled code (a compile would differ from the next)."""
    def f(x):
        y = np.empty(4)
        y[:2] = x[:2]
        return y[:2]

    texts = {jc.jit(f).lower(np.arange(4.0)).as_text("traced") for _ in range(3)}
    assert len(texts) == 1
    same(f, np.arange(4.0))


def test_an_empty_written_whole_costs_no_initialisation():
    def f(x):
        y = np.empty(x.shape)
        y[:] = x * 2
        return y

    def g(x):
        y = np.empty(x.shape)
        np.multiply(x, 2, out=y)
        return y

    for fn in (f, g):
        text = jc.jit(fn).lower(np.arange(4.0)).as_text("optimized")
        assert "array.constant" not in text, text  # no zeros are made, only the product
        same(fn, np.arange(4.0))


def test_a_tuple_of_traced_keys_reaches_lexsort():
    # NumPy's dispatcher for lexsort looks inside a tuple of keys only: a list of them too.
    def order(a, b):
        return np.lexsort((b, a)), np.lexsort([a, b]), np.concatenate((a, b))

    a, b = np.array([2, 1, 2, 0]), np.array([0.5, 3.0, -1.0, 2.0])
    for got, want in zip(jc.jit(order)(a, b), order(a, b)):
        np.testing.assert_array_equal(got, want)


def test_shifts_of_a_masked_selection_and_their_in_place_forms():
    """``t[t > 2] >>= 1`` and ``t[m] << 1``: a masked selection had the other bitwise
    operators but not the shifts (Python's TypeError)."""
    def f(t):
        t[t > 2] >>= 1
        t[t < 2] <<= 2
        return t, (t[t > 1] >> 1).sum(), (1 << t[t > 3]).sum()
    for n in (6, 11):
        a, b = np.arange(n, dtype=np.int32), np.arange(n, dtype=np.int32)
        want, got = f(a), jc.jit(f)(b)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(b, a)


def test_fromiter_of_traced_values():
    """``np.fromiter((p.sum() for p in P), float, count=len(P))``: NumPy's own code met the
    traced values (a plain ValueError)."""
    def f(P):
        return (np.fromiter((p.sum() for p in P), dtype=float, count=len(P)),
                np.fromiter((p[0] for p in P), np.float32), np.fromiter(range(3), np.int64))
    P = np.arange(6.0).reshape(3, 2)
    for got, want in zip(jc.jit(f)(P), f(P)):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


_DIRS = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]])


def _walk(moves):
    pos = np.zeros(2, dtype=np.int64)
    for m in moves:
        pos = pos + _DIRS[m] + np.take(_DIRS, m, axis=0)
    return pos


def _turns(turns):
    dx = (0, 1, 0, -1)
    d, x = 0, 0
    for t in turns:
        d = (d + t) % 4
        x = x + dx[d]
    return x


def test_lookup_tables_read_at_traced_positions():
    """A row of a global table at a traced index (``DIRS[m]``, a view in NumPy: now a view of
    its call-time input), ``np.take(DIRS, m, axis=0)`` (NumPy dispatches on the table alone)
    and a tuple of numbers at a traced index (``dx[d]``, a Python number): all were refused."""
    for fn, x in [(_walk, np.array([0, 2, 2, 1, 3])), (_walk, np.arange(40) % 4),
                  (_turns, np.array([1, 1, -1, 1, 1])), (_turns, np.arange(40) % 3 - 1)]:
        got, want = jc.jit(fn)(x), fn(x)
        np.testing.assert_array_equal(got, want)
        assert type(got) is type(want)
    table = np.arange(6.0).reshape(3, 2)

    def write_row(i):
        local = np.arange(6.0).reshape(3, 2) * 1.0  # made while compiling: its rows read, not written
        row = local[i]
        row[0] = 5.0
        return local
    with pytest.raises(jc.JitcoreError, match="made while compiling"):
        jc.jit(write_row)(1)

    def write_row_of_copy(i):
        local = table * 1.0  # table is an input where it is read: local is traced (session 47)
        row = local[i]
        row[0] = 5.0
        return local
    np.testing.assert_array_equal(jc.jit(write_row_of_copy)(1), write_row_of_copy(1))
