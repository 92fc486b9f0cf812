"""New users' reports, round 51 (wrong51), each against plain Python + NumPy.

- W1: a list built in a compiled loop (9+ trips) or a long comprehension from values whose
  Python type a traced condition chose (``x[i] if x[i] > 0 else 0.0``, ``max(v, 0.0)``, an
  ``if``/``else`` appending ``v`` or ``0``) came back all NumPy scalars: the loop's rows lost
  each item's type. Each row now has its tag (``type_choice.py``), carried with the rows.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.jit_once import jit_once


def same(a, b):
    """Equal, with the same Python types all the way down (np.float64(0.0) is not 0.0)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    else:
        assert a == b or (a != a and b != b), (a, b)


def check(f, *args, jitted=None, calls=2):
    """``f`` under jit gives Python's result (and prints its text), leaves its arguments as
    Python does, and raises Python's error type; twice (the second call: the cached path)."""
    py_args = copy.deepcopy(args)
    jitted = jitted or jit_once(f)
    try:
        expected = f(*py_args)
    except Exception as e:  # the same error under jit
        with pytest.raises(type(e)):
            jitted(*copy.deepcopy(args))
        return None
    for _ in range(calls):
        jit_args = copy.deepcopy(args)
        got = jitted(*jit_args)
        same(expected, got)
        same(list(py_args), list(jit_args))
    assert repr(expected) == repr(got)
    return got


# -- W1: items whose Python type a traced condition chose, in a compiled loop ------------------

def ternary_float(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if x[i] > 0 else 0.0)
    return out


def ternary_int(x):
    out = []
    for v in x:
        out.append(v if v > 0 else 0)
    return out


def under_if(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] != 3:
            out.append(x[i] if x[i] > 0 else 0.0)
    return out


def branches(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
        else:
            out.append(0)
    return out


def clipped(x):
    out = []
    for v in x:
        out.append(max(v, 0.0))
    return out


def items_after(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if x[i] > 0 else 0)
    return out[-1], out[0], len(out), np.array(out, dtype=np.float64)


def as_array(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] != 3:
            out.append(x[i] if x[i] > 0 else x[i] * 0)
    return np.array(out), [max(v, 0) for v in x[::-1]]


def with_before_and_after(x):
    out = [1, 2.0]
    for v in x:
        if v > 2:
            out.append(v if v > 4 else 0.0)
    out.append(7)
    return out


def comprehension(x):
    return [x[i] if x[i] > 0 else 0.0 for i in range(x.shape[0])]


def comprehension_int(x):
    return [1 if v > 0 else 0.5 for v in x], [v if v > 0 else 0 for v in x]


def printed(x):
    out = []
    for v in x:
        out.append(v if v > 0 else 0.0)
    print(out)


W1 = [ternary_float, ternary_int, under_if, branches, clipped, items_after, with_before_and_after,
      comprehension, comprehension_int, as_array]
_JITTED = {f.__name__: jc.jit(f) for f in W1}


@pytest.mark.parametrize("f", W1, ids=lambda f: f.__name__)
def test_w1_edges(f):
    for x in (np.array([1., 2, 3, 4, 5, 6, 7, 8, -1]), (np.arange(13) - 3) * 2,
              np.array([-1.0] * 9), np.arange(1, 12, dtype=np.int32)):
        check(f, x, jitted=_JITTED[f.__name__])


@settings(max_examples=examples(20, 4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([-2.0, -0.0, 0.0, 1.5, 3.0, 7.0]), min_size=11, max_size=11))
def test_w1_values(values):
    x = np.array(values)
    for f in (ternary_float, under_if, branches, clipped):
        check(f, x, jitted=_JITTED[f.__name__])


def test_w1_printed(capsys):
    x = np.array([1., 2, 3, 4, 5, 6, 7, 8, -1, 0.5])
    printed(x)
    expected = capsys.readouterr().out
    jc.jit(printed)(x)
    assert capsys.readouterr().out == expected


def array_of_mixed(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if x[i] > 0 else 0)
    return np.array(out)


def array_of_mixed_comprehension(x):
    return np.array([v if v > 0 else 0 for v in x])


def array_of_numpy_ints_or_floats(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if x[i] > 0 else np.int64(0))
    return np.array(out)


def test_w1_array_whose_dtype_the_data_chose():
    # NumPy: int64 where every item took the int path, float64 otherwise: the data decides, and
    # the call gives NumPy's (session 52: chosen_dtype.py; refused in session 51)
    x = np.linspace(-1.0, 1.0, 11)
    jf = jc.jit(array_of_mixed)
    for v in (x, -np.abs(x)):
        got, want = jf(v), array_of_mixed(v)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # NumPy int64 items held in a float64 are not exact past 2**53: still refused
    with pytest.raises(jc.JitTypeError, match=r"np.array.* of values that are np.float64 or np.int64, "
                       r"as a traced condition chose \(at .*test_user_round51.py:\d+\).*0.0 in place of 0"):
        jc.jit(array_of_numpy_ints_or_floats)(x)


def test_w1_comprehensions_array_takes_numpys_dtype_when_it_runs():
    """``np.array([v if v > 0 else 0 for v in x])`` (a long comprehension): int64 where every
    item took the int path, float64 where a float is among them (session 51, lead:
    ``type_choice.array_of``); bools and ints alike."""
    def ints_or_bools(x):
        return np.array([True if v > 0 else 2 for v in x])

    def ints_or_floats(x):
        return np.array([1 if v > 0 else 0.5 for v in x])

    for f in (array_of_mixed_comprehension, ints_or_bools, ints_or_floats):
        jf = jc.jit(f)
        for x in (np.linspace(-1.0, 1.0, 11), -np.ones(11), np.ones(11), np.linspace(-1, 1, 40)):
            got, want = jf(x), f(x)
            assert type(got) is type(want) and got.dtype == want.dtype, (f.__name__, got.dtype)
            np.testing.assert_array_equal(got, want)


# -- C1: consumers of np.nonzero's rows of a 2-D (or 3-D) array --------------------------------
# np.nonzero(C)[0] is 1-D; inside, its values sit on C's grid (its mask is C's shape): the
# consumers written for a 1-d mask (bincount, with weights or not, an item, a dot) flatten that
# grid, whose C order is the selected elements' order.

def row_counts(C):
    return np.bincount(np.nonzero(C)[0], minlength=C.shape[0])


def col_weights(C):
    rows, cols = np.nonzero(C)
    return np.bincount(cols, weights=C[C != 0] * 0.5, minlength=C.shape[-1]), \
        np.bincount(cols, weights=rows.astype(np.float64), minlength=C.shape[-1])


def first_and_last(C):
    rows = np.nonzero(C)[-1]
    return rows[0], rows[-1], np.dot(rows, rows)


def csr_indptr(C):  # the reporter's to_csr
    counts = np.bincount(np.nonzero(C)[0], minlength=C.shape[0])
    return np.concatenate((np.zeros(1, np.int64), np.cumsum(counts)))


@pytest.mark.parametrize("f", [row_counts, col_weights, first_and_last, csr_indptr], ids=lambda f: f.__name__)
def test_c1_nonzero_rows_of_a_grid(f):
    jitted = jc.jit(f)
    grids = [np.array([[0, 1, 0], [2, 0, 0], [0, 0, 0], [1, 1, 0]]), np.eye(4, dtype=np.int64)[:, :3] * 3]
    if f is not col_weights:  # (NumPy's weighted counts of nothing are int64: a documented gap)
        grids.append(np.zeros((4, 3), np.int64))
    for C in grids:
        check(f, C, jitted=jitted)
    C3 = np.zeros((2, 3, 4), np.int64)
    C3[0, 1, 2], C3[1, 2, 3], C3[1, 0, 0] = 1, 2, 1
    check(f, C3)


def test_c1_bincount_of_a_2d_array_is_numpys_value_error():
    with pytest.raises(ValueError, match="object too deep.*ravel") as e:
        jc.jit(lambda C: np.bincount(C, minlength=3))(np.zeros((2, 2), np.int64))
    assert isinstance(e.value, jc.JitcoreError)


# -- R1: an append under an if on a number the loop carries (nested in a traced if) -----------
# A trial run of the body met `cur` as the Python 0 it is before the loop, so `if cur > 0` ran
# in Python and no append was seen: the loop unrolled and the append was refused as "not in a
# loop". The compiled loop carries `cur` traced: the trial now does too, where the first finds
# nothing to compile.

def word_lengths(codes):
    lens = []
    cur = 0
    for c in codes:
        if c == 32:
            if cur > 0:
                lens.append(cur)
            cur = 0
        else:
            cur += 1
    if cur > 0:
        lens.append(cur)
    return lens


def word_lengths_loop_only(codes):
    lens = []
    cur = 0
    for c in codes:
        if c == 32:
            if cur > 0:
                lens.append(cur)
            cur = 0
        else:
            cur += 1
    return lens, cur


def runs(x):
    starts = []
    run = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            run += x[i]
        else:
            if run > 1.0:
                starts.append(run)
            else:
                starts.append(-1)
            run = 0.0
    return starts


_R1 = {f.__name__: jc.jit(f) for f in (word_lengths_loop_only, runs)}


def test_r1_nested_if_edges():
    for codes in (np.array([104, 105, 32, 32, 119, 111, 114, 108, 100, 32, 97, 32, 98, 99]),
                  np.full(10, 32), np.full(10, 97), np.array([32, 97] * 6)):
        check(word_lengths_loop_only, codes, jitted=_R1["word_lengths_loop_only"])
        check(runs, codes - 50.0, jitted=_R1["runs"])


@settings(max_examples=examples(20, 4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([32, 97, 98]), min_size=12, max_size=12))
def test_r1_nested_if_values(codes):
    x = np.array(codes)
    check(word_lengths_loop_only, x, jitted=_R1["word_lengths_loop_only"])
    check(runs, x - 50.0, jitted=_R1["runs"])


def test_r1_append_after_the_loop_compiles():
    # (a trailing `if cur > 0: lens.append(cur)` after such a loop: refused until session 57,
    # now the list's rows grow by that append's row, marked where the if holds)
    jitted = jc.jit(word_lengths)
    for codes in (np.array([97, 32, 97, 97] * 3), np.array([97, 97, 32] * 4)):
        check(word_lengths, codes, jitted=jitted)


# -- h3 3.1: an early return and a break in a loop, a variable bound past the return's if -----
# The return's if has the rest of the body as its other branch: `c` is bound there only, and
# the result only in the returning branch. The branch traced second now gets its variables'
# types from a trial run of it (the path that returns never reads them); before, the message
# said 'c' was "assigned in only one branch of the if", of an if whose branches never bind it.

def vin_like(x):
    for _it in range(10):
        s = np.sin(x)
        if s == 0:
            return 0.0
        c = s * 2
        if abs(c) < 1e-3:
            break
        x = x / 3
    return c + 1


def per_element(xs):
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        out[i] = vin_like(xs[i])
    return out


def first_big(x):
    for i in range(x.shape[0]):
        if x[i] > 5:
            return i, x[i]
        last = x[i] * 2
        if last < -5:
            break
    return -1, last


def test_h3_31_return_and_break_edges():
    check(per_element, np.array([0.5, 0.0, 1e-4, -2.0, 3.0]))
    check(vin_like, np.float64(0.7))
    jitted = jc.jit(first_big)
    for x in (np.array([1.0, 2.0, 7.0]), np.array([1.0, -3.0, 7.0]), np.array([1.0, 2.0, 3.0])):
        check(first_big, x, jitted=jitted)


# -- messages: each says what happened, at the user's line, and what to do --------------------

def test_h3_2a_unique_rows_message_is_whole_and_its_rewrite_works():
    def rows(ij):
        return np.unique(ij, axis=0)
    ij = np.array([[1, 2], [1, 2], [0, 1], [3, 0]])
    check(rows, ij)  # (compiled for integer rows since session 55; floats still refused:)
    with pytest.raises(jc.JitTypeError, match=r"axis=0 on a traced array, at .*round51.py:\d+: only "
                       r"axis=None .* are compiled\. For unique rows of integers, .*key = x\[:, 0\] \* m"
                       r" \+ x\[:, 1\].*outside the jitted function\n"):
        jc.jit(rows)(ij * 1.0)

    def keyed(ij):  # the rewrite the message gives
        u = np.unique(ij[:, 0] * 4 + ij[:, 1])
        return u // 4, u % 4
    check(keyed, ij)
    a, b = jc.jit(keyed)(ij)
    np.testing.assert_array_equal(np.stack([a, b], axis=1), rows(ij))


def pairs_under_if(x):
    pairs = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            pairs.append((i, i + 1))
    return pairs  # <- the line the refusal names


def test_h3_2b_returned_list_of_tuples_names_the_return_line():
    import inspect
    line = inspect.getsourcelines(pairs_under_if)[1] + 5
    with pytest.raises(jc.UnsupportedError, match=rf"'pairs', a list of tuples .* is returned \(at "
                       rf".*test_user_round51.py:{line}\): .*return that"):
        jc.jit(pairs_under_if)(np.array([1.0, -1.0, 2.0]))


def expand(q, s, k):
    return np.concatenate([q, np.argsort(-s)[:k]])


def pick(q, s, k):
    return np.where(q > 7, q, s[:k] * 2)


@pytest.mark.parametrize("f", [expand, pick], ids=lambda f: f.__name__)
def test_h2_r2_slice_by_an_int_argument_in_any_operand_place(f):
    # (x[:k] with k a plain int argument as the second operand: made static on demand, as the
    # first operand's already was; before: "cannot use a RangedSelection as an array operand")
    q, s = np.array([7, 8]), np.array([3.0, 1, 4, 1, 5, 9, 2, 6])
    jitted = jc.jit(f)
    check(f, q, s, 2, jitted=jitted)
    check(f, q, s, 3, jitted=jitted)


def test_h2_r2_selection_operand_refusal_names_no_class():
    with pytest.raises(jc.JitTypeError) as e:
        jc.jit(lambda q, s: np.where(q > 7, q, s[s > 2]))(np.array([7.0, 8.0]), np.arange(8.0))
    assert "Selection" not in str(e.value) and "depends on the data" in str(e.value)


def zipf_ranks(c):
    c = np.sort(c)[::-1]
    c = c[c > 0]
    return np.arange(1, len(c) + 1)


def test_h2_r6_length_from_a_filter_names_the_filter_line():
    import inspect
    line = inspect.getsourcelines(zipf_ranks)[1] + 2
    with pytest.raises(jc.ConcretizationError, match=rf"computed from the length of .*, the elements the "
                       rf"boolean filter at .*test_user_round51.py:{line} keeps"):
        jc.jit(zipf_ranks)(np.array([5.0, 3, 0, 2, 1]))


def test_h3_31_names_bound_in_opposite_branches_are_pythons():
    # (refused before, the names on opposite sides; now each bound where its branch ran and
    # the other's read raises Python's UnboundLocalError)
    def one_branch_only(x):
        if x.sum() > 0:
            y = x
        else:
            z = x
        return y, z

    def either(x):
        if x.sum() > 0:
            y = x * 2
        else:
            z = x - 1
        return y if x.sum() > 0 else z

    for x in (np.ones(3), -np.ones(3)):
        check(one_branch_only, x)
        check(either, x)


# -- h3 3.2: np.add.at (and the other scatter ufuncs) at indices selected by a mask -------------
# Compiled as a masked scatter: each index array keeps its length, a dropped position given
# index 0 and a value that changes nothing there; the kept indices bounds-checked as NumPy's.

def grid_counts(r, ok):
    c = np.zeros(5, np.int64)
    np.add.at(c, r[ok], 1)
    return c


def weighted(r, w, ok):
    c = np.zeros(5)
    np.add.at(c, r[ok], w[ok])
    np.maximum.at(c, r[ok], w[ok] * 3)
    return c


def cells(row, col, ok):
    c = np.zeros((3, 3), np.int32)
    np.add.at(c, (row[ok], col[ok]), 1)
    return c


def into_argument(x, r, ok):
    np.subtract.at(x, r[ok], 2.5)
    np.minimum.at(x, r[ok], -1.0)
    return x


def rows_scaled(r, ok):
    c = np.ones((5, 2))
    np.multiply.at(c, r[ok], 3)
    return c


def nonzero_rows(C):  # (C1's consumer too: np.nonzero's rows of a 2-D array)
    c = np.zeros(C.shape[0], np.int64)
    np.add.at(c, np.nonzero(C)[0], 1)
    return c


_AT = {f.__name__: jc.jit(f) for f in (grid_counts, weighted, cells, into_argument, rows_scaled)}


def test_h3_32_masked_add_at_edges():
    r, ok = np.array([0, 1, 4, 4, 2]), np.array([True, False, True, True, False])
    for f, args in ((grid_counts, (r, ok)), (weighted, (r, np.arange(5.0), ok)),
                    (into_argument, (np.arange(5.0), r, ok)), (rows_scaled, (r, ok)),
                    (cells, (np.array([0, 2, 1, 2]), np.array([1, 1, 5, 1]),
                             np.array([True, True, False, True])))):
        check(f, *args, jitted=_AT[f.__name__])
        check(f, *args[:-1], np.zeros_like(args[-1]), jitted=_AT[f.__name__])
    # NumPy's IndexError for a kept index out of range (a dropped one is never read); negative
    # kept indices count from the end
    for idx, keep in (([0, 7, 4], [1, 1, 0]), ([0, 7, 4], [1, 0, 1]), ([0, -1, -7], [1, 1, 0]),
                      ([0, -1, -7], [1, 1, 1])):
        check(grid_counts, np.array(idx), np.array(keep, bool), jitted=_AT["grid_counts"])
    check(nonzero_rows, np.array([[0, 1, 0], [2, 0, 0], [0, 0, 0], [1, 1, 0]]))


@settings(max_examples=examples(20, 4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(-5, 4), st.booleans()), min_size=6, max_size=6))
def test_h3_32_masked_add_at_values(pairs):
    r = np.array([p[0] for p in pairs])
    ok = np.array([p[1] for p in pairs])
    check(grid_counts, r, ok, jitted=_AT["grid_counts"])
    check(weighted, r, np.linspace(-1.0, 2.0, 6), ok, jitted=_AT["weighted"])


def test_h3_32_other_ufuncs_are_refused_saying_which_compile():
    def powered(r, ok):
        c = np.ones(5, np.int64)
        np.power.at(c, r[ok], 2)
        return c
    with pytest.raises(jc.JitTypeError, match=r"numpy.power.at with it as the indices, other than "
                       r"np.add/subtract/multiply/maximum/minimum/bitwise_\*.at\(x, idx\[mask\], v\)"):
        jc.jit(powered)(np.array([0, 1, 4]), np.array([True, False, True]))


def until_big(x):  # a loop the data ends: a for with a break
    out = []
    for i in range(x.shape[0]):
        if x[i] > 7:
            break
        out.append(x[i] if x[i] > 0 else 0)
    return out


def guarded_while(x):  # and a while with an iteration guard
    out = []
    i = 0
    while x[i] < 7 and i < 20:
        out.append(x[i] if x[i] > 0 else 0.0)
        i += 1
    return out


@pytest.mark.parametrize("f", [until_big, guarded_while], ids=lambda f: f.__name__)
def test_w1_loops_the_data_ends(f):
    jitted = jc.jit(f)
    for x in (np.array([1., -2, 3, 4, 5, -6, 7, 8, -1, 3, 9, 1]), np.array([-1.0, 9.0, 1, 1, 1, 1]),
              np.array([8.0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])):
        check(f, x, jitted=jitted)


def test_w1_64_bit_ints_and_floats_in_branches_stay_refused():
    # (np.int64 values and a Python float would be held in a float64: not exact past 2**53,
    # so the appends of the two branches are still refused, naming the types)
    def mixed(x):
        out = []
        for v in x:
            if v > 0:
                out.append(v)
            else:
                out.append(0.5)
        return out
    with pytest.raises(jc.UnsupportedError, match=r"more than one type.*NumPy scalar of int64, "
                       r"Python number of float64"):
        jc.jit(mixed)(np.arange(-3, 9))


def test_w1_two_loops_and_an_extend_join_their_tags():
    def two_loops(x):
        out = []
        for v in x:
            if v > 1:
                out.append(v if v > 3 else 0.0)
        for v in x:
            if v < 0:
                out.append(v if v < -1 else 0)
        out.extend([5, 6.5])
        return out
    check(two_loops, np.linspace(-3, 5, 11))
