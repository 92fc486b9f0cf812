"""A jitted function's changes to its list and dict arguments reach the caller, as NumPy's
do: items rebound, added and removed, ``append`` and ``pop``, nested containers kept as
objects. (They were made to the trace's copies of the containers and lost.)"""

import numpy as np

import jitcore as jc


def trade(state, amounts):
    state["cash"] -= amounts.sum()
    state["log"].append(amounts.max())
    state["pos"] = state["pos"] + amounts
    return state["cash"]


def fresh_state():
    return {"cash": 100.0, "pos": np.zeros(2), "log": []}


def assert_same_state(got, want):
    assert list(got) == list(want)
    for k in want:
        if isinstance(want[k], list):
            assert len(got[k]) == len(want[k])
            for g, w in zip(got[k], want[k]):
                assert type(g) is type(w) and g == w
        else:
            np.testing.assert_array_equal(got[k], want[k])
            assert type(got[k]) is type(want[k])


def test_a_dict_arguments_items_and_its_list_change_as_numpys():
    f = jc.jit(trade)
    a, b = fresh_state(), fresh_state()
    log = b["log"]
    for amounts in (np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 0.5])):
        assert f(b, amounts) == trade(a, amounts)
        assert_same_state(b, a)
    assert b["log"] is log  # the caller's list, appended to


def test_keys_added_and_removed_and_nested_dicts_kept_as_objects():
    def f(d, x):
        d["inner"]["k"] = d["inner"]["k"] + x
        d["new"] = x.sum()
        del d["gone"]
        return 0
    a = {"inner": {"k": np.arange(3.0)}, "gone": 1.0}
    b = {"inner": {"k": np.arange(3.0)}, "gone": 1.0}
    inner = b["inner"]
    f(a, np.ones(3)), jc.jit(f)(b, np.ones(3))
    assert list(b) == list(a) == ["inner", "new"] and b["inner"] is inner
    np.testing.assert_array_equal(b["inner"]["k"], a["inner"]["k"])
    assert b["new"] == a["new"]


def test_list_append_pop_and_item_writes_and_keyword_containers():
    def f(xs, x, *, seen):
        first = xs.pop(0)
        xs.append(first * 2)
        xs[0] = xs[0] + x
        seen.append(len(xs))
        return first
    a, b = [np.ones(2), np.zeros(2)], [np.ones(2), np.zeros(2)]
    sa, sb = [], []
    g = jc.jit(f)
    for _ in range(2):
        np.testing.assert_array_equal(g(b, np.ones(2), seen=sb), f(a, np.ones(2), seen=sa))
        assert len(a) == len(b) and sa == sb
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)


def test_unchanged_containers_and_in_place_array_writes_keep_the_callers_objects():
    def f(d):
        d["x"] += 1
        return d["x"].sum()
    x = np.ones(3)
    d = {"x": x}
    g = jc.jit(f)
    for _ in range(3):
        g(d)
    assert d["x"] is x
    np.testing.assert_array_equal(x, 4.0)


def _count_moves(state, x):
    if x[0] > 0:  # a traced branch
        state["hits"] += 1
        state["inner"]["n"] += 1
    state["moves"] = 5  # after it
    i = 0
    while x[i] > 0:  # a traced loop
        state["inner"]["n"] += 1
        i += 1
    for k in range(int(x.shape[0] * 0) + i):  # a traced trip count
        state["acc"][0] += x[k]
    return i


def test_changes_in_traced_branches_and_loops_reach_the_callers_containers():
    f = jc.jit(_count_moves)
    for x in (np.array([1.0, 2.0, -1.0]), np.array([-1.0, 3.0])):
        a = {"hits": 0, "inner": {"n": 0}, "acc": [0.0]}
        b = {"hits": 0, "inner": {"n": 0}, "acc": [0.0]}
        inner, acc = b["inner"], b["acc"]
        assert f(b, x) == _count_moves(a, x)
        assert b == a and type(b["hits"]) is type(a["hits"])
        assert b["inner"] is inner and b["acc"] is acc  # the same objects, changed


def _new_pair(d, x):
    d["pair"] = (d["pair"][0] + 1, x[1])  # a new tuple, bound to the dict's item
    d["log"][0].append(x[0])  # and a list inside a tuple, changed in place
    return x.sum()


def test_a_new_tuple_in_a_changed_container_reaches_the_caller():
    a = {"pair": (1, 2.0), "log": ([],)}
    b = {"pair": (1, 2.0), "log": ([],)}
    inner = b["log"][0]
    x = np.array([3.0, 7.0])
    assert jc.jit(_new_pair)(b, x) == _new_pair(a, x)
    assert b == a and type(b["pair"][1]) is type(a["pair"][1])
    assert b["log"][0] is inner  # the list kept as the object it was
