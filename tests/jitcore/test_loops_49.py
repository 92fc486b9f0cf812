"""Loops of session 49 against plain Python + NumPy: values, dtypes, Python types, the
arguments after the call, errors raised (type and message).

1. A variable a traced loop or ``if`` may leave without a value (the loop's target after
   ``range(n)`` with ``n == 0``, a name first bound in the body or in one branch), read after
   it: Python's ``UnboundLocalError`` when the function runs (it returned zeros).
2. A list appended under a traced ``if`` in a loop, then appended to after the loop (closing
   the last run-length segment), extended, ``+=``, ``+``: it was refused.
3. A loop over ``range(n)``, ``n`` an int argument, that appends (and may break): ``n`` stays
   traced, one compile for the ints of its class (it was made static: one compile per ``n``).
4. A list of numbers as an argument (``f(x, [3])``, ``f(x, [0.1, 0.2])``): as a tuple, traced,
   or made static where a value is needed (it was a ConcretizationError); a static list the
   function changes is refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.oracle import assert_same_tree


def _outcome(fn, args):
    """``fn(*args)``'s result and its arguments after the call, or the error it raised."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return "ok", fn(*args), args
    except Exception as e:  # noqa: BLE001  (the error is the outcome compared)
        return "raised", (type(e), str(e)), args


def _check(jitted, fn, *args):
    want, got = _outcome(fn, args), _outcome(jitted, args)
    assert got[0] == want[0], (got, want)
    if want[0] == "raised":
        assert got[1] == want[1], (got[1], want[1])
    else:
        assert_same_tree(got[1], want[1])
    for a, b in zip(got[2], want[2]):  # the arguments after the call, as Python leaves them
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)


# -- 1. reads of variables a traced loop or if may leave unbound ------------------------------
def target_after_range(x, n):
    for i in range(n):  # noqa: B007  (read after the loop: the case)
        x = x + 1
    return i


def first_bound_in_body(x, n):
    for i in range(n):
        y = x * i
    return y.sum()


def target_after_array_loop(x):
    for v in x:  # noqa: B007
        pass
    return v


def target_guarded_read(x, n):
    for i in range(n):  # noqa: B007  (read after the loop: the case)
        x = x + 1
    if n > 0:
        return i
    return -1


def two_loops_one_target(x, n, m):
    for i in range(n):  # noqa: B007  (read after the loop: the case)
        x = x + 1
    for i in range(m):  # noqa: B007
        x = x * 2
    return i


def one_arm(x):
    if x.sum() > 0:
        y = x + 1
    return y


def one_arm_read_under_same_test(x):
    if x.sum() > 0:
        y = 1.0
    if x.sum() > 0:
        return y
    return 0.0


def else_arm(x):
    if x.sum() > 0:
        pass
    else:
        y = x * 2
    return y


def written_then_unbound(x, n):
    for i in range(n):
        x[i] = 5.0
        v = i
    x[0] = -1.0
    return v


def breaking_loop_target(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
    return i


def bound_under_if_in_body(x, n):
    for i in range(n):
        if x[i] > 0:
            y = x[i]
    return y


def bound_after_break(x, n):
    for i in range(n):
        if x[i] > 2:
            break
        gg = x[i]
    return gg


def rebound_by_a_later_loop(x, n, m):
    for i in range(n):  # noqa: B007
        pass
    for j in range(m):
        if x[j] > 0:
            i = j
    return i


def bound_in_while(x, n):
    i = 0
    while i < n:
        z = x + i
        i += 1
    return z


def bound_in_data_while(x):
    i = 0
    while x[i] < 3 and i < x.shape[0] - 1:
        last = x[i]
        i += 1
    return last


@given(x=st.lists(st.sampled_from([-1.0, 1.0, 3.0]), min_size=3, max_size=3), n=st.integers(0, 3),
       m=st.integers(0, 3))
@settings(max_examples=examples(40, 15), deadline=None)
def test_bound_on_some_steps_only(x, n, m):
    x = np.array(x)
    for fn in (bound_under_if_in_body, bound_after_break, bound_in_while):
        _check(_jitted(fn), fn, x, n)
    _check(_jitted(rebound_by_a_later_loop), rebound_by_a_later_loop, x, n, m)
    _check(_jitted(bound_in_data_while), bound_in_data_while, x)


_UNBOUND = "cannot access local variable 'i' where it is not associated with a value"


def test_target_after_empty_range_raises_pythons_error():
    f = jc.jit(target_after_range)
    with pytest.raises(UnboundLocalError) as e:
        f(np.ones(3), 0)
    assert str(e.value) == _UNBOUND
    assert f(np.ones(3), 4) == 3
    assert f.cache_info().compiles == 1  # n stays traced: one compile for every n


@given(n=st.integers(-2, 6), m=st.integers(-1, 4))
@settings(max_examples=examples(30, 12), deadline=None)
def test_reads_after_loops_match_python(n, m):
    x = np.arange(1.0, 4.0)
    for fn in (target_after_range, first_bound_in_body, target_guarded_read):
        _check(_jitted(fn), fn, x, n)
    _check(_jitted(two_loops_one_target), two_loops_one_target, x, n, m)
    _check(_jitted(written_then_unbound), written_then_unbound, np.zeros(8), n)


_JITTED = {}


def _jitted(fn):
    return _JITTED.setdefault(fn, jc.jit(fn))


@pytest.mark.parametrize("x", [np.zeros(0), np.ones(1), np.arange(4.0)])
def test_loop_over_array(x):
    _check(_jitted(target_after_array_loop), target_after_array_loop, x)


@pytest.mark.parametrize("fn", [one_arm, one_arm_read_under_same_test, else_arm])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_one_arm_of_traced_if(fn, sign):
    _check(_jitted(fn), fn, sign * np.arange(1.0, 4.0))


@pytest.mark.parametrize("x", [np.zeros(0), np.array([1.0, -1.0]), np.array([-1.0])])
def test_breaking_loop_target(x):
    _check(_jitted(breaking_loop_target), breaking_loop_target, x)


def test_run_time_error_names_the_line():
    with pytest.raises(UnboundLocalError) as e:
        jc.jit(first_bound_in_body)(np.ones(2), 0)
    assert "test_loops_49.py" in " ".join(getattr(e.value, "__notes__", []))


def test_no_check_where_the_loop_is_known_to_run():
    # a static range that runs: the value is bound, no check is compiled
    def f(x):
        for i in range(100):
            x = x + i
        return i
    text = str(jc.make_ir(f)(np.ones(2)))
    assert "callback" not in text
    assert jc.jit(f)(np.ones(2)) == 99


# -- 2. growing a list after the loop that appended to it under a traced if -------------------
def close_last(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(i)
    out.append(-1)
    return out


def close_last_array(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(i)
    out.append(-1)
    return np.array(out), len(out)


def extended(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(float(x[i]))
    out.extend([7.0, 8.0])
    out += [9.0]
    out = out + [0.5]
    return out, np.array(out).sum(), len(out)


def numpy_items(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(x[i] * 2)
    out.append(x[0])
    return out, np.array(out)


def segments(path):
    starts, ends = [], []
    for i in range(1, path.size):
        if path[i] != path[i - 1]:
            ends.append(i)
            starts.append(i)
    ends.append(path.size)
    return [0] + starts, ends


def second_loop(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(i)
    for i in range(x.size):
        out.append(i * 10)
    out.append(-1)
    return out


def tuple_rows(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append((i, i + 1))
    out.append((-1, -1))
    return np.array(out)


def breaking_then_appended(x):
    hist = []
    for k in range(x.size):
        hist.append(float(x[k]))
        if x[k] < 0:
            break
    hist.append(0.0)
    return hist


_GROWN = [close_last, close_last_array, extended, numpy_items, second_loop, tuple_rows,
          breaking_then_appended]


@given(x=st.lists(st.integers(-3, 3), max_size=9))
@settings(max_examples=examples(30, 10), deadline=None)
def test_appends_after_the_loop_match_python(x):
    x = np.array(x, dtype=float)
    for fn in _GROWN:
        if fn is numpy_items and not x.size:
            continue
        _check(_jitted(fn), fn, x)
    _check(_jitted(segments), segments, x.astype(np.int64))


@pytest.mark.parametrize("fn", _GROWN)
def test_appends_after_the_loop_compile_once(fn):
    f = jc.jit(fn)
    for x in (np.array([1.0, -2.0, 3.0]), -np.ones(3)):
        _check(f, fn, x)
    assert f.cache_info().compiles == 1


def other_type_after(x):
    out = []
    for i in range(x.size):
        if x[i] > 0:
            out.append(i)
    out.append(1.5)
    return out


def test_an_item_of_another_type_is_refused_saying_what_it_holds():
    with pytest.raises(jc.UnsupportedError, match=r"out.append of a Python float .* holds Python ints"):
        jc.jit(other_type_after)(np.ones(3))



# -- 3. appending loops over range(n) with n an int argument ---------------------------------
def history_until_small(x, n):
    hist = []
    for _k in range(n):
        e = float(np.sum(x))
        hist.append(e)
        if e < 1e-3:
            break
        x = x * 0.5
    return x, hist


def every_step(x, n):
    out = []
    for k in range(n):
        out.append(x[k % x.size] * k)
    return np.array(out), len(out)


def odd_steps_kept(x, n):
    out = []
    for k in range(1, n, 2):
        if x[k % x.size] > 0:
            out.append(k)
    out.append(-1)
    return out


@given(n=st.integers(-3, 260), scale=st.sampled_from([1.0, 1e-4, 0.0]))
@settings(max_examples=examples(30, 12), deadline=None)
def test_appending_loops_over_a_traced_range_match_python(n, scale):
    x = np.array([1.0, -2.0, 3.0]) * scale
    for fn in (history_until_small, every_step, odd_steps_kept):
        _check(_jitted(fn), fn, x, n)


def test_the_count_stays_traced():
    for fn in (history_until_small, every_step, odd_steps_kept):
        f = jc.jit(fn)
        for n in (5, 0, 40, 127, 3):  # (the ints of one class: 0 to 127)
            _check(f, fn, np.array([1.0, -2.0, 3.0]), n)
        assert f.cache_info().compiles == 1, fn.__name__


# -- 4. a list of numbers argument, as a tuple: traced, or static where a value is needed ----
def zeros_of(x, sizes):
    return np.zeros(sizes[0]) + x.sum()


def weighted(x, w):
    return x * w[0] + w[1]


def views(theta, shapes):
    out, off = [], 0
    for s in shapes:
        n = s[0] * s[1]
        out.append(theta[off:off + n].reshape(s))
        off += n
    return out


def bumps_a_static_list(x, sizes):
    sizes[0] = sizes[0] + 1
    return np.zeros(sizes[0]) + x.sum()


def appends_to_a_list(x, w):
    w.append(3)
    w[0] = 5
    return x * w[1]


@given(n=st.integers(0, 5), kind=st.sampled_from([list, tuple]))
@settings(max_examples=examples(20, 8), deadline=None)
def test_a_list_of_numbers_is_made_static_where_a_value_is_needed(n, kind):
    _check(_jitted(zeros_of), zeros_of, np.ones(3), kind([n]))


def test_a_static_list_compiles_once_per_value_and_apart_from_the_tuple():
    f = jc.jit(zeros_of)
    for sizes in ([3], [4], [3]):
        _check(f, zeros_of, np.ones(2), sizes)
    assert f.cache_info().compiles == 2
    _check(f, zeros_of, np.ones(2), (3,))
    assert f.cache_info().compiles == 3  # (a list and a tuple are other values)


@pytest.mark.parametrize("w, other", [([0.1, 0.2], [0.3, -1.0]), ((0.1, 0.2), (0.3, -1.0)),
                                      ([1, 2], [3, -4]), ([True, 3.5], [False, 1.5])])
def test_a_list_of_numbers_the_function_only_computes_with_stays_traced(w, other):
    f = jc.jit(weighted)
    _check(f, weighted, np.arange(3.0), w)
    _check(f, weighted, np.arange(3.0), other)
    assert f.cache_info().compiles == 1


def test_shapes_in_a_list_slice_views():
    _check(jc.jit(views), views, np.arange(30.0), [(4, 5), (5, 2)])
    _check(jc.jit(views), views, np.arange(30.0), [[2, 3], [4, 6]])


def test_a_static_list_named_in_static_argnames():
    f = jc.jit(weighted, static_argnames=("w",))
    _check(f, weighted, np.ones(2), [2.0, 1.0])
    _check(f, weighted, np.ones(2), [3.0, 1.0])
    assert f.cache_info().compiles == 2


def test_changing_a_static_list_is_refused_and_leaves_it_as_it_was():
    sizes = [3]
    with pytest.raises(jc.UnsupportedError, match=r"the list sizes is changed while the function "
                                                  r"compiles \(\[3\] became \[4\]\).*Change a copy"):
        jc.jit(bumps_a_static_list)(np.ones(2), sizes)
    assert sizes == [3]


def test_changing_a_traced_list_reaches_the_caller():
    w, v = [1, 2], [1, 2]
    np.testing.assert_array_equal(jc.jit(appends_to_a_list)(np.ones(2), w), appends_to_a_list(np.ones(2), v))
    assert w == v == [5, 2, 3]
