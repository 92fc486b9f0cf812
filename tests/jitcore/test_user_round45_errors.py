"""Round 45's users (misc A): errors and refusals met by ordinary NumPy code, each under jit
against plain Python + NumPy: the right result where jitcore can give it, else a jitcore error
that names what the user wrote and what to write instead."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import jitcore as jc

_Acc = namedtuple("_Acc", "s c")


def same(fn, *args):
    """``jit(fn)`` against ``fn`` on copies of ``args``: result (value, type) and the arguments
    after the call."""
    want_args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    got_args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    got = jc.jit(fn)(*got_args)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)
    return got


# -- 1. np.bincount's values checked by the call (h2 2.1) ------------------------------------
def test_bincount_negative_value_is_numpys_value_error():
    f = lambda k: np.bincount(k, minlength=3)  # noqa: E731
    for k in (np.array([0, -1, 2]), np.array([-5, 1])):
        with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
            f(k)
        with pytest.raises(jc.JitcoreError, match="'list' argument must have no negative"):
            jc.jit(f)(k)


def test_bincount_value_past_minlength_names_bincount_and_minlength():
    f = lambda k, w: np.bincount(k, weights=w, minlength=3)  # noqa: E731
    k = np.array([0, 1, 7])
    assert f(k, None).size == 8  # NumPy grows the result; jit's length is fixed
    for w in (None, np.ones(3)):
        with pytest.raises(IndexError, match=r"np.bincount\(x, minlength=3\).*value 7.*"
                                             r"minlength larger.*np.clip\(x, 0, 2\)") as e:
            jc.jit(f)(k, w)
        assert isinstance(e.value, jc.errors.JitIndexError)


def test_bincount_in_range_and_masked_values_unchanged():
    same(lambda k: np.bincount(k, minlength=4), np.array([0, 1, 1, 3]))
    same(lambda k: np.bincount(k, weights=k * 0.5, minlength=4), np.array([0, 1, 1, 3]))
    same(lambda k: np.bincount(k[k < 3], minlength=3), np.array([0, 1, 7, -2, 2]) % 9)
    same(lambda k: np.bincount(k, minlength=3), np.zeros(0, np.int64))


# -- 2. ndarray.fill of a local NumPy array with a traced value (h2 2.2) ---------------------
def test_fill_local_array_with_traced_value():
    def f(x):
        a = np.zeros(3)
        a.fill(x.max())
        return a.sum()
    same(f, np.array([1.0, 4.0, 2.0]))


def test_fill_in_traced_branch_of_loop_and_of_argument():
    def f(x, n):
        a = np.zeros(3, dtype=np.int64)  # fill casts unsafely, as NumPy's
        for i in range(n):
            if x[i] > 0:
                a.fill(x[i])
        x.fill(0.5)
        return a
    same(f, np.array([1.5, -1.0, 2.7]), 3)


class _Holder:
    pass


def test_fill_of_an_attribute_array_of_an_object_made_inside():
    """(Refused before localwrites45: the object's attribute now takes the traced copy.)"""
    def f(x):
        h = _Holder()
        h.buf = np.zeros(2)
        h.buf.fill(x.mean())
        return h.buf
    same(f, np.ones(3))


# -- 5. nonlocal in a nested helper (h1 R1) --------------------------------------------------
def test_nonlocal_helper_in_straight_line_code_and_python_loops():
    def f(x):
        s = 0.0

        def add(v):
            nonlocal s
            s = s + v
        add(x[0])
        for w in (1.0, 2.0):
            add(w * x[1])
        return np.array([s, x[1]])  # converted: np.array of a traced s
    same(f, np.array([1.0, 2.0]))


def test_nonlocal_helper_keeps_the_enclosing_loops_converted():
    def f(x):
        n = 0

        def bump():
            nonlocal n
            n += 1
        bump()
        total = 0.0
        for i in range(len(x)):
            if x[i] > 0:
                total = total + x[i]
        return total, n
    same(f, np.array([1.0, -2.0, 3.0]))


def test_nonlocal_write_in_a_traced_branch_names_nonlocal_and_the_rewrite():
    def called_from_branch(x):
        s = 0.0

        def add(v):
            nonlocal s
            s = s + v
        for i in range(len(x)):
            if x[i] > 0:
                add(x[i])
        return s

    def branch_in_helper(x):
        s = 0.0

        def add(v):
            nonlocal s
            if v > 0:
                s = s + v
        for i in range(3):
            add(x[i])
        return s
    for f in (called_from_branch, branch_in_helper):
        with pytest.raises(jc.UnsupportedError, match=r"'s', declared nonlocal, is assigned "
                                                      r"\(at .*:\d+\).*s = add\(s, v\)"):
            jc.jit(f)(np.array([1.0, -2.0, 3.0]))


# -- 4. np.asarray / np.array in a class's __init__ (h5 R9) ----------------------------------
class _Vec:
    def __init__(self, v):
        self.v = np.asarray(v, dtype=float)


class _Quat:
    def __init__(self, w, x, y, z):
        self.q = np.array([w, x, y, z], dtype=float)
        if self.q[0] < 0:  # a traced condition in __init__: converted too
            self.q = -self.q


class _Unit(_Vec):
    def __init__(self, v):
        super().__init__(v)
        self.v = self.v / np.linalg.norm(self.v)


def test_asarray_and_array_in_init_of_an_object_made_in_the_function():
    same(lambda v: _Vec(v * 2).v, np.arange(1.0, 3.0))
    same(lambda v: _Quat(v[0], v[1], 1.0, 2).q, np.array([-1.0, 3.0]))
    same(lambda v: _Quat(v[0], v[1], 1.0, 2).q, np.array([1.0, 3.0]))
    same(lambda v: _Unit(v).v, np.array([3.0, 4.0]))


# -- 3. writing through a tuple's element (h2 2.3) -------------------------------------------
def test_write_through_an_element_of_a_local_tuple():
    def f(x):
        acc = (np.zeros(3), np.zeros(3))  # (sums, counts)
        acc[0][:] = x
        acc[1][1] = x[0] + 1
        return acc[0] * 10 + acc[1]
    same(f, np.array([1.0, 2.0, 4.0]))


def test_write_through_a_namedtuple_in_a_traced_branch():
    def f(x, n):
        acc = _Acc(np.zeros(3), np.zeros(3))
        for i in range(n):
            if x[i] > 0:
                acc[0][i] = x[i]
                acc.c[i] = 1  # an attribute's array: written in place where it is
        return acc
    got = jc.jit(f)(np.array([1.0, -1.0, 2.0]), 3)
    want = f(np.array([1.0, -1.0, 2.0]), 3)
    assert type(got) is _Acc
    np.testing.assert_array_equal(got.s, want.s)
    np.testing.assert_array_equal(got.c, want.c)


def test_write_through_a_tuple_whose_array_another_name_holds_follows_numpy():
    def f(x):
        a = np.zeros(3)
        acc = (a, np.zeros(3))
        acc[0][:] = x
        return a
    same(f, np.ones(3))  # (refused before lists_of_arrays_48: every holder sees it now)


# -- 6. messages and in-place updates of containers' arrays (h2 3.3, 3.10; h5 R2; h4 R4, R5) --
def test_augmented_update_of_an_array_in_a_dict_or_attribute():
    def in_dict(x):
        d = {"W": np.zeros(3)}
        d["W"] -= x
        return d["W"]

    def in_attribute(x, n):
        p = _Holder()
        p.W = np.zeros(3)
        p.W -= x
        for i in range(n):
            if x[i] > 0:
                p.W -= x
        return p.W

    def nested(x):
        acc = [np.zeros(3), np.zeros(3)]
        acc[1][1] += x[0]
        return acc[1]
    same(in_dict, np.array([1.0, -1.0, 2.0]))
    same(in_attribute, np.array([1.0, -1.0, 2.0]), 3)
    same(nested, np.array([1.0, -1.0, 2.0]))


def _update(d, k, v):
    d[k] += v


def test_augmented_update_of_a_dict_entry_in_a_helper():
    def f(x):
        d = {"s": np.zeros(2)}
        for v in x:
            _update(d, "s", v)
        return d["s"]
    same(f, np.arange(6.0).reshape(3, 2))


def test_augmented_update_whose_array_another_name_holds_follows_numpy():
    def in_dict(x):
        W = np.zeros(3)
        d = {"W": W}
        d["W"] -= x
        return W

    def in_attribute(x):
        W = np.zeros(3)
        p = _Holder()
        p.W = W
        p.W -= x
        return W

    def through_row(x):
        out = np.zeros((2, 3))
        for i in range(2):
            row = out[i]
            row += x
        return out
    for f in (in_dict, in_attribute, through_row):  # (refused before lists_of_arrays_48)
        same(f, np.ones(3))


def test_continue_after_a_dict_write_names_the_variable_not_the_flag():
    def f(x):
        res = {}
        for g in range(2):
            if x[g] < 0:
                res[g] = 0.0
                continue
            res[g] = x[g]
        return res
    with pytest.raises(jc.JitTypeError, match=r"\('res' is \{\} against \{0: <array or number>"
                                              r"\}\).*same keys and length on every path") as e:
        jc.jit(f)(np.array([-1.0, 2.0]))
    assert "__ag" not in str(e.value)


def test_write_through_a_masked_index_array_says_what_to_write():
    def f(state, partners, hit):
        state[partners[hit]] = 1
        return state

    def fixed(state, partners, hit):  # what the message says to write
        hits = np.zeros(len(state), dtype=int)
        np.add.at(hits, partners, hit)
        state[hits > 0] = 1
        return state
    args = (np.zeros(5), np.array([0, 2, 4, 0]), np.array([True, False, True, False]))
    # the write itself compiles since wrong49 (a scatter of the kept positions); a form it
    # does not take (the selection after a slice) still says what to write
    np.testing.assert_array_equal(jc.jit(f)(*[a.copy() for a in args]), f(*[a.copy() for a in args]))

    def g(state, partners, hit):
        state[:, partners[hit]] = 1
        return state
    with pytest.raises(jc.JitTypeError, match=r"idx\[mask\].*np.add.at\(hits, idx, mask\)"):
        jc.jit(g)(np.zeros((2, 5)), *args[1:])
    np.testing.assert_array_equal(jc.jit(fixed)(*[a.copy() for a in args]), f(*[a.copy() for a in args]))
    # a read through it compiles since maskedsum47, as the s[p][h] the message used to suggest
    same(lambda s, p, h: s[p[h]].sum(), *args)
    same(lambda s, p, h: s[p][h].sum(), *args)


def test_index_list_changed_in_a_traced_loop_says_to_build_a_tuple():
    def f(a, n):
        for _k in range(n):
            idx = [slice(None)] * 2
            idx[1] = 0
            a[tuple(idx)] += 1
        return a

    def fixed(a, n):
        for _k in range(n):
            idx = tuple(0 if d == 1 else slice(None) for d in range(a.ndim))
            a[idx] += 1
        return a
    def from_data(a):
        for _k in range(int(a[0, 1]) + 30):  # a count from the data: the loop stays compiled
            idx = [slice(None)] * 2
            idx[1] = 0
            a[tuple(idx)] += 1
        return a
    with pytest.raises(jc.UnsupportedError, match=r"'idx' holds a slice.*idx = tuple\(0 if d == "
                                                  r"axis else slice\(None\)"):
        jc.jit(from_data)(np.zeros((3, 2)))
    same(fixed, np.zeros((3, 2)), 30)
    same(f, np.zeros((3, 2)), 30)  # an int argument: static on demand, as Python runs it
