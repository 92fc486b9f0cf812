"""Session 55: a list read in the loop that appends to it under a traced ``if``, or read at a
position / iterated in a loop the data ends, compiles as a loop: the list is a growing buffer
(its items before the loop, then the capacity of the loop's appends) and its count, carried
(``autograph/appending.py``, ``_growing``). Before, such loops unrolled (minutes at n = 500) or
were refused."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.oracle import assert_same_tree


def unique_sites(x, tol):  # (t52/u2 R2: the list it appends to is the one it searches)
    keep = []
    for i in range(x.shape[0]):
        dup = False
        for j in keep:
            if abs(x[i] - x[j]) < tol:
                dup = True
                break
        if not dup:
            keep.append(i)
    return np.array(keep), len(keep)


def records(x):
    # reads before and inside the branch; an item of Python's float first, NumPy's after
    best = [0.0]
    gaps = []
    for i in range(x.shape[0]):
        if x[i] > best[-1] and len(best) < 6:
            best.append(x[i])
            gaps.append(best[-1] - best[len(best) - 2])
    return best, np.array(gaps), len(best)


def halves(x, k):
    # a loop that breaks: its rows read at any position; s[k] past the items raises IndexError
    s = []
    tot = 0.0
    for i in range(x.shape[0]):
        if x[i] > 2.0:
            break
        s.append(x[i])
        tot += s[i // 2] + s[min(k, len(s) - 1)] + s[-k - 1 if k < len(s) else 0]
    return np.array(s), tot


def halving(x, tol):
    # a guarded while loop, appends under a traced if, its length read
    s = []
    it = 0
    v = 1.0
    while v > tol and it < 40:
        v = v * 0.5
        if x[it % x.shape[0]] > 0 and len(s) < 7:
            s.append(v)
        it += 1
    return s, len(s)


def centers(pts, r):
    # rows (arrays) iterated in the loop that appends them
    found = []
    for i in range(pts.shape[0]):
        new = True
        for c in found:
            if ((c - pts[i]) ** 2).sum() < r * r:
                new = False
                break
        if new:
            found.append(pts[i])
    return np.array(found)


def near_sites(x):  # enumerate of the list, in the loop that appends to it
    keep = []
    for i in range(x.shape[0]):
        near = 0
        for k, j in enumerate(keep, 1):
            if abs(x[i] - x[j]) < 0.3:
                near += k
        if near == 0:
            keep.append(i)
    return np.array(keep)


def first_seen(x):  # v not in seen (Python ints), and v in a list every step appends to
    seen = []
    hits = []
    for i in range(x.shape[0]):
        v = int(x[i] * 3)
        if v not in seen:
            seen.append(v)
        hits.append(x[i] * 2)
        if i > 0 and x[i - 1] * 2 in hits:
            hits.append(-1.0)
        else:
            hits.append(x[i])
    return seen, np.array(hits)


def rising(x):  # s[-1] of a list that may be empty, on the right of an or
    s = []
    for i in range(x.shape[0]):
        if len(s) == 0 or s[-1] < x[i]:
            s.append(x[i])
    return np.array(s)


def until_big(x):  # a guarded while whose test reads the list
    s = []
    i = 0
    while i < x.shape[0] and (len(s) == 0 or s[-1] < 1.0):
        if x[i] > 0:
            s.append(x[i])
        i += 1
    return np.array(s), i


def shrinking(x):  # the test reads a list every step appends to (no if): growing too
    s = []
    i = 0
    while i < x.shape[0] and len(s) < 7:
        s.append(abs(x[i]))
        i += 1
    return np.array(s), i


def last_of_empty(x):  # Python's IndexError at the first step (it was a silent 0.0 for a moment)
    s = []
    tot = 0.0
    for i in range(x.shape[0]):
        tot += s[-1]
        s.append(x[i])
    return tot


def _same(fn, *args):
    assert_same_tree(jc.jit(fn)(*args), fn(*args))


@settings(max_examples=examples(30, 10), deadline=None)
@given(
    st.lists(st.sampled_from([-1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.5, np.nan, np.inf]), max_size=12),
    st.sampled_from([1e-3, 0.6]),
)
def test_dedupe_over_the_list_it_builds(values, tol):
    x = np.array(values, np.float64)
    _same(unique_sites, x, tol)


def test_growing_lists_match_python():
    rng = np.random.default_rng(55)
    for n in (0, 40):
        x = rng.standard_normal(n)
        _same(records, x)
        _same(halving, np.append(x, -1.0), 1e-3)
        for k in (0, 2):
            if n:  # (k = 2 reads past the items at the first steps: the call raises, as Python)
                try:
                    want = halves(x, k)
                except IndexError:
                    with pytest.raises(IndexError, match="list index out of range"):
                        jc.jit(halves)(x, k)
                else:
                    assert_same_tree(jc.jit(halves)(x, k), want)
        _same(centers, rng.standard_normal((n, 2)), 0.8)
        _same(int_first, x)
        _same(near_sites, x)
        _same(rising, x)
        _same(until_big, x)
        _same(shrinking, x)
        _same(first_seen, x)
    with pytest.raises(IndexError, match="list index out of range"):
        jc.jit(last_of_empty)(np.arange(3000.0))
    # one compiled loop at any n: no copy of the body per step
    assert "scf.for" in str(jc.make_ir(unique_sites)(np.zeros(50), 0.1))


def int_first(x):  # (a Python int first: its row's tag keeps its type)
    s = [0]
    for i in range(x.shape[0]):
        if x[i] > s[-1]:
            s.append(x[i])
    return np.array(s), s


def numpy_int_first(x):
    s = [np.int64(0)]
    for i in range(x.shape[0]):
        if x[i] > s[-1]:
            s.append(x[i])
    return np.array(s)


def tuples_read(x):
    s = [(0.0, 0.0)]
    for i in range(x.shape[0]):
        if x[i] > 0:
            s.append((x[i], 1.0))
        x[i] = len(s)
    return np.array(s)


@pytest.mark.parametrize(
    "fn, words",
    [
        (
            numpy_int_first,
            r"its items before the loop are NumPy scalar of int64, its appends NumPy scalar of float64",
        ),
        (tuples_read, r"its items are tuples"),
    ],
)
def test_a_list_its_rows_cannot_hold_is_refused_naming_the_loop(fn, words):
    with pytest.raises(jc.UnsupportedError, match=words) as e:
        jc.jit(fn)(np.array([0.5, -1.0, 2.0]))
    assert "for i in range(x.shape[0])" in str(e.value)  # (the user's loop, by its line)
