"""Session 56 (trace56): two wrong answers of traced control flow, made right or refused.

A number on one side of a traced ``x if t else 1.0`` and an array on the other: jitcore's value
is the number broadcast to the array's shape, Python's the number. Used in elementwise
arithmetic with arrays of that shape, both give the same elements; used where the shape matters
(``v.sum()``, ``len(v)``, ``np.concatenate``, a loop's carry, ``v * 2.0`` returned) the broadcast
summed four numbers where NumPy sums one. Now refused (``jitcore/number_or_array.py``).

Two names bound to one new array in a traced branch (``t = x * 1.0; v = t``) were two values
after the ``if``: a write through one missed the other. Now they share it
(``autograph.aliasing.one_new_array``); after a traced loop whose body binds them so, they are
one object where they were one before it, else a write then a read refuses
(``one_array_after_loop``). An inner if's pick of one array and the other branch's array from
outside were joined by value (the other side lost); both are linked now."""

from __future__ import annotations

import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitcoreError
from tests.oracle import assert_same_tree

X = np.array([0.5, 1.5, 2.5, 3.5])
CS = (-1.0, 1.0, 2.0)  # x[1] > c: the array, the number, the number


def _sum(x, c):
    return (x if x[1] > c else 1.0).sum()


def _length(x, c):
    v = x if x[1] > c else 2.0
    return float(np.size(v)) + len(v)


def _shape(x, c):
    v = x if x[1] > c else 2.0
    return float(v.shape[0])


def _joined(x, c):
    v = x * 2 if x[1] > c else 3.0
    return np.concatenate([v, x])


def _indexed(x, c):
    v = x if x[1] > c else np.float64(2.0)
    return v[0]


def _returned_after_arithmetic(x, c):
    v = x if x[1] > c else 1.0
    return v * 2.0 + 1.0


def _added_to_a_total(x, c):
    v = (x if x[1] > c else 2.0) + x.sum()  # the sum is a number: still a number or an array
    return np.sum(v)


def _carried(x, c):
    v = x if x[1] > c else 2.0
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            v = v + 1.0
    return v[0]


def _dtype_promoted(x, c):
    k = x.astype(np.int64)
    return (k if x[1] > c else 0.5) + k


def _array_written_after(x, c):
    y = x * 1.0
    v = y if x[1] > c else 2.0
    y[0] = 7.0  # Python's v is y where x[1] > c: it sees the write
    return v + y


@pytest.mark.parametrize(
    ("f", "use"),
    [
        (_sum, r"method .sum\(\) \(a Python float has none\)"),
        (_length, r"np.size\(\)"),
        (_shape, r"x.shape"),
        (_joined, "array.concatenate"),
        (_indexed, "indexing it"),
        (_returned_after_arithmetic, r"shape \(4,\) on one side and \(\)"),
        (_added_to_a_total, "array.reduce"),
        (_carried, "traced (branch or )?loop"),
        (_dtype_promoted, "where promotes"),
        (_array_written_after, "written after the choice"),
    ],
)
def test_a_number_or_an_array_where_its_shape_matters_is_refused(f, use):
    with pytest.raises(JitcoreError, match=r"'x if test else y' at .*test_trace_forms_56.py:\d+ gives") as e:
        jc.jit(f)(X.copy(), 1.0)
    assert re.search(use, str(e.value)), str(e.value)


def _elementwise(x, c):
    v = x if x[1] > c else 2.0
    out = np.zeros_like(x)
    out[:] = v * 2  # a write of it: Python's number broadcast
    out += v
    w = np.where(x > 1.0, v, -1.0) + (v > 1.5)
    n = x if x[1] > c else np.float64(2.0)  # a NumPy scalar's methods are an array's
    w = w + n.astype(np.float32) * x
    acc = x * 0.0
    for j in range(x.shape[0]):
        acc = acc + (x * j if j > 1 else 0.0)  # a loop's counter picks
    return out.sum() + (v * x).sum(), w, acc


def test_a_number_or_an_array_in_elementwise_arithmetic_of_its_shape_compiles():
    jitted = jc.jit(_elementwise)
    for c in CS:
        assert_same_tree(jitted(X.copy(), c), _elementwise(X.copy(), c))


def _one_new_array(x, c):
    t = x * 0.0
    v = t
    u = x * 4.0
    w = [x * 5.0]
    d = {"a": x * 6.0}
    if x[0] + c > 1.0:
        t = x * 1.0
        v = t  # both branches leave t and v one array
        u = t  # only this one leaves t and u one array
        w = [t]
        d = {"a": t}  # (a dict's name sorts before t's)
    t[0] = 5.0
    u[1] += 7.0
    return t, v, u, w[0], d["a"]


def _both_branches(x, c):
    if x[0] + c > 1.0:
        t = x * 1.0
        v = t
    else:
        t = x * 2.0
        v = t
    v += 1.0
    for i in range(x.shape[0]):
        t[i] = t[i] * i
    return v


def _in_a_loop(x, c):
    t = x * 3.0
    v = x * 0.0
    for k in range(2):
        if x[k] + c > 1.0:
            t = x * 1.0
            v = t
        t[0] = 5.0 + k
    return v


@pytest.mark.parametrize("f", [_one_new_array, _both_branches, _in_a_loop])
def test_names_bound_to_one_new_array_in_a_branch_share_it(f):
    jitted = jc.jit(f)
    for c in (-1.0, 0.0, 1.0):
        assert_same_tree(jitted(X.copy(), c), f(X.copy(), c))


def _chosen_by_an_inner_if(x, c):
    t = x * 3.0
    v = x * 0.0
    if x[0] + c > 0.0:
        if x[0] + c > 1.0:
            t = x * 1.0
            v = t
    t[0] = 5.0
    return v


def _kept_by_an_inner_if(x, c):
    a = x * 1.0
    b = x * 2.0
    r = a
    done = False
    if x[0] + c > 0.0:
        if x[0] + c > 1.0:
            done = True
        if not done:
            r = b
    a[0] = 9.0  # r is a where the inner if set done
    return r


@pytest.mark.parametrize("f", [_chosen_by_an_inner_if, _kept_by_an_inner_if])
def test_an_array_an_inner_if_chose_then_written_is_refused(f):
    with pytest.raises(JitcoreError, match="nested traced conditions"):
        jc.jit(f)(X.copy(), 0.0)


def _picked_or_other(x, c):
    a = x * 1.0
    b = x * 2.0
    y = x * 3.0
    if x[0] + c > 0:
        if x[0] + c > 1:
            return a, b, y
        r = b  # an inner if (the return's) picks b: the if carries whether it did
    else:
        r = a  # ... and the other branch's array is a, which was lost (a by value)
    s = r
    if x[1] + c > 0:
        s = y
    b[1] = 8.0
    a[0] = 9.0
    r[2] = -3.0
    s[3] = -4.0
    return a, b, r + 0.0


def test_a_branch_whose_inner_if_picked_an_array_and_the_other_branch_another():
    jitted = jc.jit(_picked_or_other)
    for c in (-1.0, -0.6, 0.0, 1.0):
        x = X.copy()
        assert_same_tree(jitted(x, c), _picked_or_other(X.copy(), c))


def _carried_as_one(x, c):
    t = x * 3.0
    v = t
    k = 0
    while k < 3 and x[k] + c < 2.0:
        t = x * k
        v = t  # one array in every pass, and before the loop
        k += 1
    t[0] = 5.0
    return v


def test_names_a_loop_body_binds_to_one_array_stay_one():
    jitted = jc.jit(_carried_as_one)
    for c in (-1.0, 0.0, 1.0, 2.0):
        assert_same_tree(jitted(X.copy(), c), _carried_as_one(X.copy(), c))


def _carried_as_two(x, c):
    t = x * 3.0
    v = x * 0.0
    k = 0
    while k < 3 and x[k] + c < 2.0:
        t = x * k
        v = t  # one array where the loop ran, two where it did not
        k += 1
    t[0] = 5.0
    return v


def _broken_out_of(x, c):
    t = x * 3.0
    v = x * 0.0
    for k in range(3):
        if x[k] + c > 2.0:
            t = x * 1.0
            v = t
            break
    t[0] = 5.0
    return v


@pytest.mark.parametrize("f", [_carried_as_two, _broken_out_of])
def test_names_a_loop_body_binds_to_one_array_on_some_paths_refuse_a_write(f):
    with pytest.raises(JitcoreError, match="after the loop"):
        jc.jit(f)(X.copy(), 0.0)
