"""Round 45's new users (lead-out t45): boolean masks with an integer index, ``math``'s
predicates, filtered generator reductions and a Python list indexed by traced data, each
checked against plain Python and NumPy (results, types, arguments after the call), or, where
jitcore refuses on purpose, checked to be jitcore's own error naming what to write instead."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitcore as jc
from tests.oracle import assert_same_tree

# -- math.isnan, isinf, isfinite, isclose, fsum -------------------------------------------------

def _count_nans(x):
    n = 0
    for v in x:
        if math.isnan(v):
            n += 1
    return n


def _predicates(x):
    return (math.isnan(x[0]), math.isinf(x[1]), math.isfinite(x[2]), math.isfinite(x[0]),
            math.isnan(x.sum()), n_close(x))


def n_close(x):
    return math.isnan(x[3]) + math.isinf(x[1])


def _isclose(x, y):
    return (math.isclose(x[0], y[0]), math.isclose(x[1], y[1], rel_tol=0.1),
            math.isclose(x[2], y[2], abs_tol=1e-3), math.isclose(x[3], y[3]),
            math.isclose(x[4], y[4]), math.isclose(x[0], 1.0 + 1e-12))


@pytest.mark.parametrize("fn, args", [
    (_count_nans, (np.array([1.0, np.nan, 2.0, np.nan]),)),
    (_predicates, (np.array([np.nan, -np.inf, 3.0, 1.0]),)),
    (_predicates, (np.array([0.5, 2.0, np.inf, np.nan]),)),
    (_isclose, (np.array([1.0, 1.0, 0.0, np.inf, np.nan]),
                np.array([1.0 + 1e-10, 1.05, 5e-4, np.inf, np.nan]))),
    (_isclose, (np.array([1.0, 1.0, 0.0, np.inf, 1.0]), np.array([1.1, 1.2, 2e-3, -np.inf, np.inf]))),
], ids=["count-nans", "predicates", "predicates-2", "isclose", "isclose-2"])
def test_math_predicates_of_traced_numbers_are_pythons(fn, args):
    assert_same_tree(jc.jit(fn)(*args), fn(*args))


def test_isclose_of_a_traced_number_and_an_int():
    fn = lambda x, n: math.isclose(x.sum(), n) and math.isclose(n, 6)  # noqa: E731
    assert_same_tree(jc.jit(fn)(np.arange(4.0), 6), fn(np.arange(4.0), 6))


def test_isclose_with_a_negative_tolerance_raises_pythons_error():
    x = np.arange(3.0)
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        jc.jit(lambda x: math.isclose(x[0], x[1], rel_tol=-1.0))(x)
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        jc.jit(lambda x, t: math.isclose(x[0], x[1], abs_tol=t))(x, x[1] - 2.0)
    assert jc.jit(lambda x, t: math.isclose(x[0], x[1], abs_tol=t))(x, 1.5) is True


_RNG_F = np.random.default_rng(7)


@pytest.mark.parametrize("x", [
    np.array([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]),
    np.array([1e-16, 1, 1e16]),  # the half-even correction across partials
    np.array([0.1] * 10),
    _RNG_F.normal(size=500) * 10.0 ** _RNG_F.integers(-30, 30, 500),
    np.array([]), np.array([np.inf, 1.0]), np.array([np.nan, 1.0]), np.array([-0.0, -0.0]),
    np.array([2.0 ** 53, 1.0, 1e-300]), np.array([1.0, -2.0 ** -54, -2.0 ** -108]),
    np.array([1e308, 1e308, -1e308, -1e308]) / 2,
], ids=["cancel", "half-even", "tenths", "wide", "empty", "inf", "nan", "negative-zeros",
        "big-int", "below-half", "large"])
def test_fsum_of_traced_numbers_is_pythons_exactly_rounded_sum(x):
    got, want = jc.jit(lambda x: math.fsum(x))(x), math.fsum(x)
    assert_same_tree(got, want)
    assert math.copysign(1.0, got) == math.copysign(1.0, want)


def test_fsum_of_a_list_of_traced_numbers():
    fn = lambda x: math.fsum([x[0], 1.0, x[1], x.sum()])  # noqa: E731
    assert_same_tree(jc.jit(fn)(np.array([1e16, -1e16])), fn(np.array([1e16, -1e16])))


@pytest.mark.parametrize("x, error, words", [
    (np.array([np.inf, -np.inf]), ValueError, r"-inf \+ inf in fsum"),
    (np.array([1e308, 1e308, -1e308]), OverflowError, "intermediate overflow in fsum"),
    (np.array([2.0 ** e for e in range(-1000, 1000, 20)]), OverflowError, "at most 64 partial sums"),
], ids=["inf-minus-inf", "overflow", "too-many-partials"])
def test_fsum_raises_pythons_errors(x, error, words):
    with pytest.raises(error, match=words):
        jc.jit(lambda x: math.fsum(x))(x)


# -- a Python list or tuple read at a traced position -------------------------------------------

def _best_lambda(x, lams):
    scores = [np.sum((x - lam) ** 2) for lam in lams]
    return lams[int(np.argmin(scores))]


def _chosen_row(x, rows):
    return rows[int(np.argmax(x)) - 2] * 2.0


X4 = np.array([0.9, 1.1, 1.0, 3.0])


@pytest.mark.parametrize("fn, args", [
    (_best_lambda, (np.array([0.9, 1.1, 1.0]), [0.5, 1.0, 2.0])),
    (_best_lambda, (np.array([0.9, 1.1, 1.0]), (0.5, 1.0, 2.0))),
    (lambda x, ks: ks[int(np.argmax(x))] + 1, (X4, [1, 2, 3, 4])),
    (lambda x, ks: ks[np.argmax(x)], (X4, (True, False, False, True))),
    (lambda x, ks: ks[-int(np.argmax(x))], (X4, [1.5, 2.5, 7.0, 8.0])),
    (lambda x, ks: ks[int(np.argmax(x))], (X4, [np.float32(1), np.float32(2), np.float32(3), np.float32(4)])),
    (lambda x: [x.sum(), x.max(), x[0], x[1]][int(np.argmin(x))], (X4,)),
    (lambda x: (1.0, 2.0, 4.0)[int(np.argmin(x))], (X4,)),
    (_chosen_row, (X4, [np.zeros(2), np.ones(2), np.arange(2.0), np.full(2, 3.0)])),
    (lambda x: [x, x * 2, x + 1][int(np.argmin(x)) + 1], (X4,)),
], ids=["floats", "tuple", "ints", "bools", "negative", "float32", "numpy-scalars", "constant",
        "array-arguments", "traced-arrays"])
def test_a_list_read_at_a_traced_position_is_pythons_item(fn, args):
    assert_same_tree(jc.jit(fn)(*args), fn(*args))


def _weighted(x, ws):
    total = x * 0
    for i in range(len(ws)):  # long: tried as a compiled loop, unrolled for ws[i], as before
        total = total + ws[i] * x
    return total


def test_a_list_read_at_a_static_loops_index_is_read_item_by_item():
    ws = [np.full(3, float(i)) for i in range(70)]
    assert_same_tree(jc.jit(_weighted)(np.ones(3), ws), _weighted(np.ones(3), ws))
    assert '"scf.for"' not in jc.jit(_weighted).lower(np.ones(3), ws).as_text("traced")


def test_a_list_read_out_of_range_raises_pythons_index_error():
    fn = lambda x, ks: ks[int(np.argmax(x))]  # noqa: E731
    with pytest.raises(IndexError, match="^list index out of range") as caught:  # + the traceback note
        jc.jit(fn)(X4, [1.5, 2.5])
    assert str(caught.value) == "list index out of range"
    with pytest.raises(IndexError, match="^tuple index out of range"):
        jc.jit(lambda x: (1, 2)[-int(np.argmax(x))])(X4)


def _write_chosen(x, arrays):
    a = arrays[int(np.argmax(x)) - 3]
    a[0] = 5.0
    return a


@pytest.mark.parametrize("fn, args, words", [
    (lambda x, ks: ks[int(np.argmax(x))], (X4, [1, 2.5, 7.0, 8.0]), "list of mixed types.*np.asarray"),
    (lambda x: ["a", "b", "c", "d"][int(np.argmax(x))], (X4,), "list of str items.*return the position"),
    (_write_chosen, (X4, [np.zeros(2), np.ones(2)]), "array chosen from a list.*np.stack"),
], ids=["mixed", "strings", "written"])
def test_lists_a_gather_cannot_read_are_refused_with_advice(fn, args, words):
    with pytest.raises(jc.UnsupportedError, match=words):
        jc.jit(fn)(*args)


def test_a_list_of_strings_at_an_int_argument_is_still_static_on_demand():
    fn = lambda x, i: ["a", "b", "c"][i]  # noqa: E731
    assert jc.jit(fn)(X4, 2) == "c"


# -- reductions of a filtered generator ---------------------------------------------------------

X3 = np.array([0.9, -1.1, 1.0, 3.0, 4.0, -0.5])


def _positives_in_rows(x):
    total = 0
    for k in range(x.shape[0]):
        total += sum(1 for v in x[k] if v > 0)
    return total


@pytest.mark.parametrize("fn", [
    lambda x: sum(1 for v in x if v > 0),
    lambda x: sum(v for v in x if v > 0),
    lambda x: len([v for v in x if v > 0]),
    lambda x: len([v for v in x if v > 0 if v < 3.5]),
    lambda x: any(v > 3 for v in x if v > 0),
    lambda x: all(v > 3.5 for v in x if v > 3),
    lambda x: (max(v for v in x if v < 2), min([v for v in x if v > 0])),
    lambda x: sum((v for v in x if v > 0), 10.0),
    lambda x: sum([v * v for v in x if v > 0], 1),
    lambda x: sum(v > 1 for v in x if v > 0),
    lambda x: sum(v for v in x.astype(np.float32) if v > 0),
    lambda x: sum(v for v in (x * 3).astype(np.int32) if v > 0),
    lambda x: sum(1 for v in x.tolist() if v > 0),
    lambda x: sum(v for v in x.tolist() if v > 0),
    lambda x: sum(i for i, v in enumerate(x) if v > 0),
    lambda x: sum(a * b for a, b in zip(x, x + 1) if a > 0),
    lambda x: sum(x[i] for i in range(5) if x[i] > 0),
    lambda x: sum(row for row in x.reshape(3, 2) if row[0] > 0),
    lambda x: sum(math.log(v) for v in x if v > 0),
    _positives_in_rows,
], ids=["count", "sum", "len", "len-two-ifs", "any", "all", "max-min", "start", "list-start",
        "bools", "float32", "int32", "tolist-count", "tolist-sum", "enumerate", "zip", "range",
        "rows", "log-where-kept", "in-a-loop"])
def test_filtered_generator_reductions_are_pythons(fn):
    x = X3.reshape(2, 3) if fn is _positives_in_rows else X3
    assert_same_tree(jc.jit(fn)(x), fn(x))


def test_max_of_a_filtered_generator_follows_pythons_nan_rule():
    fn = lambda x: max(v for v in x if v > 0 or v != v)  # noqa: E731
    for x in (np.array([np.nan, 1.0, 2.0]), np.array([1.0, np.nan, 2.0])):
        assert_same_tree(jc.jit(fn)(x), fn(x))


def _constant_test(x, keep):
    return sum(math.log(v) for v in x if keep), len([v for v in x if keep])


def test_a_test_that_does_not_depend_on_the_item_is_pythons():
    for keep in (True, False):  # False: no item's value computed (log of a negative would raise)
        x = np.abs(X3) if keep else X3
        assert_same_tree(jc.jit(_constant_test, static_argnames="keep")(x, keep), _constant_test(x, keep))


def test_an_empty_filtered_max_raises_pythons_error():
    with pytest.raises(ValueError, match=r"max\(\) arg is an empty sequence"):
        jc.jit(lambda x: max(v for v in x if v > 10))(X3)


def test_a_filtered_sum_keeping_nothing_is_start_itself():
    """Python's sum keeping nothing is ``start``, the int 0 (or the start given), and otherwise
    the items' type: the type the data chose comes back (``type_choice``)."""
    for fn in (lambda x: sum(v for v in x if v > 10), lambda x: sum(v for v in x if v > 1),
               lambda x: sum((v for v in x if v > 10), 0.5)):
        got, want = jc.jit(fn)(X3), fn(X3)
        assert type(got) is type(want) and got == want, (got, want)


def test_a_filtered_list_kept_is_refused_naming_the_masked_forms():
    with pytest.raises(jc.UnsupportedError, match=r"'if' of a comprehension.*np.count_nonzero\(x > 0\)"
                       r".*x\[x > 0\].sum\(\)"):
        jc.jit(lambda x: [v for v in x if v > 0])(X3)


# -- a boolean mask with an integer index: v[mask, 0] *= -1 -------------------------------------

_RNG = np.random.default_rng(45)
V = _RNG.normal(size=(6, 3))
A3 = _RNG.normal(size=(4, 5, 3))


def _flip_column(v, m):
    v[m, 0] *= -1
    v[m, 1:] = 0
    return v


def _bump_row(v):
    m = v[0] > 0
    v[0, m] += 1
    return v


def _bounce(pos, vel, steps):
    for _ in range(steps):
        pos += 0.1 * vel
        for k in range(2):
            out = (pos[:, k] < 0) | (pos[:, k] > 1)
            vel[out, k] = -vel[out, k]
    return pos, vel


def _column_k(v, k):
    m = v[:, 0] > 0
    v[m, k] = 0.5 * v[m, k] + 1
    v[m, 0] = v[m, 1]
    return v


def _masked_columns(v):
    m = v[0] > 0
    v[:, m] *= 3
    return v


def _three_dims(a):
    m = a[:, 0, 0] > 0
    a[m, :, 0] += 10
    a[0, :, m[:3]] -= 1
    a[1, a[1, :, 0] > 0] *= 2
    return a


@pytest.mark.parametrize("fn, args", [
    (_flip_column, (V, V[:, 0] > 0)),
    (_bump_row, (V,)),
    (_bounce, (_RNG.uniform(0, 1, size=(40, 2)), _RNG.normal(size=(40, 2)), 20)),
    (_column_k, (V, 2)),
    (_column_k, (V, -1)),
    (_masked_columns, (V,)),
    (_three_dims, (A3,)),
], ids=["flip-column", "row", "bounce-loop", "column-k", "column-negative", "columns", "3-d"])
def test_writes_through_a_mask_and_an_int_are_numpys(fn, args):
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got, want = jc.jit(fn)(*mine), fn(*theirs)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(g, w)
    for p, q in zip(mine, theirs):
        np.testing.assert_array_equal(p, q)  # the arguments after the call


@pytest.mark.parametrize("fn", [
    lambda v, m: np.sum(v[m, 0]),
    lambda v, m: v[m, 1].max(),
    lambda v, m: np.mean(v[m, 2]),
    lambda v, m: v[m, -1].sum(),
    lambda v, m: (v[m, 1:] * 2).sum(axis=0),
    lambda v, m: v[:, m[:3]].sum(),
    lambda v, m: np.sum(v[1:, m[:3]] ** 2),
    lambda v, m: v[m, 0].astype(np.float32).sum(),
], ids=["sum", "max", "mean", "negative-int", "slice-axis-0", "columns", "columns-power", "astype"])
def test_reductions_of_a_mask_and_an_int_are_numpys(fn):
    m = V[:, 0] > 0
    got, want = jc.jit(fn)(V, m), fn(V, m)
    assert type(got) is type(want)
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_a_mask_and_an_int_read_in_3_d_is_numpys():
    fn = lambda a, m: (a[m, :, 0].sum(axis=0), a[0, :, m[:3]].sum(axis=0))  # noqa: E731
    m = A3[:, 0, 0] > 0
    for g, w in zip(jc.jit(fn)(A3, m), fn(A3, m)):
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_a_kept_axis_of_a_mask_over_columns_is_numpys():
    # refused until session 47 (its axes were not NumPy's); now each selected column summed
    fn = lambda v, m: v[:, m[:3]].sum(axis=0)  # noqa: E731
    got, want = jc.jit(fn)(V, V[:, 0] > 0), fn(V, V[:, 0] > 0)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("fn, words", [
    (lambda v, m: v.__setitem__((m, 0), v[~m, 1]), "selection by another mask"),
], ids=["another-mask"])
def test_uses_of_a_mask_and_an_int_that_need_the_data_are_refused(fn, words):
    with pytest.raises(jc.JitTypeError, match=words):
        jc.jit(fn)(V.copy(), V[:, 0] > 0)


def test_a_mask_and_an_int_out_of_range_raise_numpys_error():
    with pytest.raises(IndexError, match="out of bounds"):
        jc.jit(lambda v, m: v[m, 7].sum())(V, V[:, 0] > 0)
