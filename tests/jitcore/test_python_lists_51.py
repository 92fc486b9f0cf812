"""Plain Python around arrays that new user h1 wrote (round 51), compared with plain Python +
NumPy: results, dtypes, Python types, errors raised, and what a refusal says.

- list methods that compare traced items: ``v in l``, ``v not in l``, ``l.index(v)`` (Python's
  ValueError when absent), ``l.count(v)``, ``l.sort(key=, reverse=)``, ``sorted(l, key=)``;
- ``map(f, x)`` / ``filter`` over a traced array, as the comprehension ``[f(v) for v in x]``;
- a list appended to in a loop whose count is an argument, then indexed by an int (``es[-1]``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError
from tests.budget import examples


def same(a, b):
    assert type(a) is type(b), (type(a), type(b), a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, (float, np.floating)) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b, (a, b)


def outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return e


def check(f, *args, **jit_kwargs):
    """f's result (or error: its Python type and message) and its arguments after the call."""
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = outcome(f, *want_args)
    got = outcome(jc.jit(f, **jit_kwargs), *got_args)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (got, want)
        assert str(got) == str(want), (str(got), str(want))
    else:
        assert not isinstance(got, Exception), got
        same(got, want)
    same(got_args, want_args)


# -- R4: list methods that compare items -------------------------------------------------------
def floats_in(x, v):
    items = [float(t) for t in x]
    return v in items, v not in items, items.count(v)


def ints_in(x):
    ids = [int(i) for i in np.argsort(x)]
    return 3 in ids, ids.count(ids[1]), ids.index(ids[2]), ids.index(1), 7 not in ids


def scalars_index(x, v):
    items = [x[0], x[1], x[2], x[3]]
    return items.index(v)


def py_floats_index(x, v):
    return [float(t) for t in x].index(v)


def index_bounds(x):
    items = [float(t) for t in x]
    return items.index(items[0], 1), items.index(items[1], 0, 3)


def nan_object(x):
    first = float(x[0])  # NaN: in the list that holds this very object, never == another NaN
    items = [first, float(x[1])]
    return first in items, items.count(first), float(x[1]) in items, items.index(first)


def sort_plain(x):
    items = [x[0], x[1], x[2], x[3]]
    items.sort()
    return items


def sort_reverse(x):
    items = [float(t) for t in x]
    items.sort(reverse=True)
    return items


def sort_key(x):
    items = [float(t) for t in x]
    items.sort(key=lambda v: abs(v - 2.0), reverse=False)
    return items


def sort_key_reverse(x):
    items = [float(t) for t in x]
    items.sort(key=abs, reverse=True)
    return items


def sorted_pairs(x):
    pairs = [(int(i), float(x[i])) for i in range(4)]
    return sorted(pairs, key=lambda p: p[1])


def positions_by_key(x):
    idx = [0, 1, 2, 3]
    idx.sort(key=lambda i: x[i])  # Python ints ordered by traced keys
    return idx, sorted(range(4), key=lambda i: -x[i], reverse=True)


def python_items_traced_value(x, v):
    return [1.0, 2.0, 3.0].count(v), v in (1.0, 5.0), (float(x[0]), float(x[1])).index(v)


LIST_EDGES = [np.array([3.0, 1.0, 2.0, 5.0]), np.array([2.0, -2.0, 2.0, 0.0]),
              np.array([-1.0, 1.0, -1.0, 4.0]), np.array([0.0, -0.0, 3.0, 3.0])]


@pytest.mark.parametrize("x", LIST_EDGES)
def test_list_methods_compare_items(x):
    for v in (1.0, 2, 7.5, -1.0):
        check(floats_in, x, v)
    check(ints_in, x)
    check(index_bounds, x)
    for f in (sort_plain, sort_reverse, sort_key, sort_key_reverse, sorted_pairs, positions_by_key):
        check(f, x)
    for v in (x[1], 9.0):  # (absent: tuple.index's own ValueError)
        check(python_items_traced_value, x, float(v))


def test_index_absent_raises_pythons_value_error():
    x = np.array([3.0, 1.0, 2.0, 5.0])
    for v in (2.0, 4.0, 4, np.float64(2.5), np.int64(9)):
        check(scalars_index, x, v)
        check(py_floats_index, x, v)
    check(ints_in, np.array([3.0, 1.0, 2.0]))  # (ids.index(3) absent: a 3-item list)


def test_nan_membership_is_pythons():
    check(nan_object, np.array([np.nan, np.nan]))
    check(nan_object, np.array([1.0, np.nan]))


@settings(max_examples=examples(25, 8), deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=4, max_size=4), st.integers(-3, 3))
def test_list_methods_vary(values, v):
    x = np.array(values, float)
    check(floats_in, x, float(v))
    check(py_floats_index, x, float(v))
    check(sort_key_reverse, x)


# -- R5: map and filter over traced arrays ------------------------------------------------------
def map_sum(x):
    return sum(map(float, x))


def map_list(x):
    return list(map(float, x))


def map_two(x):
    return list(map(lambda a, b: a * b, x, x[::-1]))


def map_np(x):
    return list(map(np.sqrt, x))


@pytest.mark.parametrize("n", [3, 40])
def test_map_is_the_comprehension(n):
    x = np.linspace(0.5, 3.0, n)
    for f in (map_sum, map_list, map_two, map_np):
        check(f, x)


def filter_traced(x):
    return sum(filter(lambda v: v > 1.0, x))


def test_filter_with_a_traced_test_says_what_to_write():
    with pytest.raises(JitcoreError, match=r"filter\(\) with a test the data decides .*test_python_lists_51"):
        jc.jit(filter_traced)(np.array([0.5, 2.0]))


# -- R2: a list appended to in a loop whose count is an argument, indexed by an int -------------
def appended_items(x, n, i):
    es = []
    for k in range(n):
        es.append(x.sum() * k)
    return es[-1], es[0], es[i], len(es)


def appended_python(x, n):
    es = []
    for k in range(n):
        es.append(float(x[k % 3]) * k)
    return es[-1] - es[0], es[1 - n]


def appended_under_if(x):
    es = []
    for v in x:  # (a KeptList of the kept values: indexed as any list)
        if v > 0:
            es.append(float(v))
    return es[-1], es[0]


def appended_arrays(x, n):
    rows = []
    for k in range(n):
        rows.append(x * k)
    return rows[-2]


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_counted_loop_list_indexed(n):
    x = np.arange(5.0)
    for i in (0, 2, -1, -3, 5):
        check(appended_items, x, n, i)
    check(appended_python, x, n)
    check(appended_arrays, x, n)


def test_counted_loop_list_indexed_compiles_once():
    f = jc.jit(appended_items)
    x = np.arange(5.0)
    for n in (2, 5, 9, 40):
        same(f(x, n, 1), appended_items(x, n, 1))
    assert f.cache_info().compiles == 1


@pytest.mark.parametrize("x", [np.array([1.0, -2.0, 3.0] * 4), np.array([-1.0] * 9 + [2.0]),
                               np.array([-1.0] * 10)])
def test_list_kept_under_traced_if_indexed(x):
    check(appended_under_if, x)


def largest(x, n):
    es = []
    for k in range(n):
        es.append(x.sum() * k)
    return max(es)


def test_counted_loop_refusal_names_the_loop_and_static(monkeypatch):
    monkeypatch.setattr(jc.config, "auto_static", False)
    with pytest.raises(JitcoreError) as info:
        jc.jit(largest)(np.arange(3.0), 4)
    text = str(info.value)
    assert "counted loop whose count is an argument" in text and "static_argnums" in text
    assert "under an if" not in text and "test_python_lists_51.py" in text
    monkeypatch.setattr(jc.config, "auto_static", True)  # (static n on demand: it compiles)
    check(largest, np.arange(3.0), 4)


# -- R6, R7: what a refusal of a length the data chooses says ----------------------------------
def rebuilt_in_if(r, rc, n):
    i, j = np.nonzero(((r[:, None] - r[None]) ** 2).sum(-1) < rc * rc)
    e = 0.0
    for _ in range(n):
        d = r[i] - r[j]
        e += np.sum((d * d).sum(1))
        r = r * 1.01
        if e > 100:
            i, j = np.nonzero(((r[:, None] - r[None]) ** 2).sum(-1) < rc * rc)
    return e


def drawn_for_hits(v, p, rng):
    hit = rng.random(len(v)) < p
    v[hit] = rng.normal(0, 1.0, size=(hit.sum(), 3))
    return v


def drawn_sized(v, n, rng):
    return rng.normal(0, 1.0, size=(n, 3))


def test_positions_changed_in_a_traced_if_said_in_the_users_terms():
    r = np.random.default_rng(0).random((6, 3))
    with pytest.raises(JitcoreError) as info:
        jc.jit(rebuilt_in_if)(r, 1.0, 3)
    text = str(info.value)
    assert "indices from np.nonzero" in text and "Positions" not in text
    assert "test_python_lists_51.py" in text and "before any traced if or loop" in text
    assert "fixed-capacity array and a count" in text


def test_draw_sized_by_the_data_suggests_the_full_shape_not_static(monkeypatch):
    v = np.zeros((5, 3))
    with pytest.raises(JitcoreError) as info:
        jc.jit(drawn_for_hits)(v, 0.5, np.random.default_rng(1))
    text = str(info.value)
    assert "size the data chooses" in text and "np.where(mask[:, None], new, v)" in text
    assert "static" not in text and "stream after it differs" in text
    assert "test_python_lists_51.py" in text
    monkeypatch.setattr(jc.config, "auto_static", False)  # (an int argument's: static it is)
    with pytest.raises(JitcoreError, match=r"traced size.*static_argnums"):
        jc.jit(drawn_sized)(v, 3, np.random.default_rng(1))


# -- R3: an object whose array attribute and list attribute change in one counted loop ----------
class Sim:
    def __init__(self, x):
        self.x = x.copy()
        self.es = []

    def run(self, n):
        for _ in range(n):
            self.x += 1.0
            self.es.append(self.x.sum())
        return self


def sim_method(x, n):
    s = Sim(x).run(n)
    return s.es[-1] - s.es[0], s.x


def sim_inline(x, n):
    s = Sim(x)
    for _ in range(n):
        s.x = s.x + 1.0
        s.es.append(s.x.sum())
    return s.es


def test_object_attributes_array_and_list_in_a_counted_loop():
    x = np.arange(5.0)
    for n in (3, 4):
        check(sim_method, x, n)
        check(sim_inline, x, n)


def test_object_list_attribute_refusal_names_the_users_loop(monkeypatch):
    monkeypatch.setattr(jc.config, "auto_static", False)
    with pytest.raises(JitcoreError) as info:
        jc.jit(sim_inline)(np.arange(3.0), 4)
    text = str(info.value)
    assert "test_python_lists_51.py" in text and "s.es.append" in text
    assert "exists only inside" not in text and "s.es = es" in text and "static_argnums" in text


def reduced(x, n):
    es = []
    for k in range(n):
        es.append(x.sum() * k)
    return np.sum(es), np.std(es), np.asarray(es)


def reduced_max(x, n):
    es = []
    for k in range(n):
        es.append(float(x[0]) * k - 1.0)
    return np.max(es), len(es)


def reduced_ints(x, n):  # (np.array([]) is float64: int items stay n-static, whose result is NumPy's)
    es = []
    for k in range(n):
        es.append(int(x[0]) * k)
    return np.sum(es)


@pytest.mark.parametrize("n", [0, 1, 6])
def test_numpy_reductions_of_a_counted_loop_list(n):
    x = np.arange(1.0, 6.0)
    with np.errstate(all="ignore"):
        check(reduced, x, n)
    check(reduced_max, x, n)
    check(reduced_ints, x, n)


class SimLocal(Sim):
    def run(self, n):  # (the refusal's advice: a local list, set after the loop)
        es = []
        for _ in range(n):
            self.x += 1.0
            es.append(self.x.sum())
        self.es = es
        return self


def sim_local(x, n):
    s = SimLocal(x).run(n)
    return s.es[-1] - s.es[0], s.es


def test_the_advised_local_list_compiles_once_for_every_count():
    f = jc.jit(sim_local)
    for n in (2, 5, 9):
        x = np.arange(4.0)
        same(f(x, n), sim_local(x, n))
    assert f.cache_info().compiles == 1


# -- sum(es): Python's sum of the kept items in order; int 0 where nothing was kept ------------
def summed_numpy(x, n):
    es = []
    for k in range(n):
        es.append(x.sum() * k + 0.1)
    return sum(es)


def summed_python(x, n):
    es = []
    for k in range(n):
        es.append(float(x[k % 3]) * 0.1 * k)
    return sum(es), (sum(es) / len(es) if len(es) > 0 else 0.0)


def summed_kept(x):
    es = []
    for v in x:
        if v > 0:
            es.append(float(v))
    return sum(es)


def truth_of_list(x, n):
    es = []
    for k in range(n):
        es.append(x.sum() * k)
    return 1.0 if es else 0.0


def test_python_sum_of_a_list_the_data_filled(monkeypatch):
    monkeypatch.setattr(jc.config, "auto_static", False)  # (n stays traced: one compile)
    x = np.arange(1.0, 6.0)
    for n in (0, 1, 7):
        check(summed_numpy, x, n)
        check(summed_python, x, n)
    for x in (np.array([-1.0] * 10), np.array([0.1, -1.0, 0.2, 0.3] * 4)):
        check(summed_kept, x)
    with pytest.raises(JitcoreError, match=r"truth value \(if es: \.\.\.; write len\(es\) > 0\)"):
        jc.jit(truth_of_list)(x, 3)
