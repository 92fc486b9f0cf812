"""Values the traced code reads from outside are read (or guarded) at each call, by every access
path: a class named directly (``Cfg.K``), a module's attribute (``settings.THR``), a number in
a global or closed-over list or tuple (``L[0]``, ``TUP[0]``), a callable object's ``self``
(``gain(x)``), a helper function bound anew. And a change to an outside list, dict or set while
tracing is refused, before it happens (it would happen once, not at each call as NumPy's does).
Each test compares with plain Python + NumPy after the same changes."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

Y = np.array([0.3, 0.6])
X = np.arange(5.0)


def same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def check(f, *args):
    """f's result, jitted and not, on the same arguments."""
    same(jc.jit(f)(*args), f(*args))


# -- a class named directly ---------------------------------------------------------------------

class Cfg:
    thr = 0.5
    K = np.array([1.0, 2.0, 1.0])


def by_class_number(x):
    return x > Cfg.thr


def by_class_array(x):
    return np.convolve(x, Cfg.K, mode="same")


def test_a_class_attribute_number_rebound_is_read_at_the_call():
    jf = jc.jit(by_class_number)
    same(jf(Y), by_class_number(Y))
    old = Cfg.thr
    try:
        Cfg.thr = 0.1
        same(jf(Y), by_class_number(Y))
    finally:
        Cfg.thr = old
    same(jf(Y), by_class_number(Y))


def test_a_class_attribute_array_written_in_place_or_rebound_is_read_at_the_call():
    jf = jc.jit(by_class_array)
    same(jf(X), by_class_array(X))
    old = Cfg.K
    try:
        Cfg.K = Cfg.K.copy()
        Cfg.K[1] = 7.0
        same(jf(X), by_class_array(X))
        Cfg.K = np.array([0.0, 1.0, 0.0])
        same(jf(X), by_class_array(X))
    finally:
        Cfg.K = old


# -- a module's attribute -----------------------------------------------------------------------

settings_module = types.ModuleType("settings46")
settings_module.__file__ = __file__  # a module of the user's (as a config.py is)
settings_module.THR = 0.5
settings_module.KERNEL = np.array([1.0, 2.0, 1.0])
sys.modules["settings46"] = settings_module
cfg = settings_module


def by_module_number(x):
    return x > cfg.THR


def by_module_array(x):
    return np.convolve(x, cfg.KERNEL, mode="same")


def test_a_module_attribute_number_rebound_is_read_at_the_call():
    jf = jc.jit(by_module_number)
    same(jf(Y), by_module_number(Y))
    cfg.THR = 0.1
    try:
        same(jf(Y), by_module_number(Y))
    finally:
        cfg.THR = 0.5


def test_a_module_attribute_array_written_in_place_or_rebound_is_read_at_the_call():
    jf = jc.jit(by_module_array)
    same(jf(X), by_module_array(X))
    old = cfg.KERNEL
    try:
        cfg.KERNEL = old.copy()
        cfg.KERNEL[1] = 7.0
        same(jf(X), by_module_array(X))
        cfg.KERNEL = np.array([0.0, 1.0, 0.0])
        same(jf(X), by_module_array(X))
    finally:
        cfg.KERNEL = old


def test_setting_a_module_attribute_in_the_jitted_function_is_refused():
    def f(x):
        cfg.THR = 0.2
        return x > cfg.THR

    with pytest.raises(jc.UnsupportedError, match="THR"):
        jc.jit(f)(Y)
    assert cfg.THR == 0.5


# -- numbers in lists and tuples ----------------------------------------------------------------

L = [0.5]
TUP = (0.5, 1.0)


def by_list(x):
    return x > L[0]


def by_tuple(x):
    return x * TUP[1] > TUP[0]


def test_a_number_in_a_global_list_is_read_at_the_call():
    global L
    jf = jc.jit(by_list)
    same(jf(Y), by_list(Y))
    L[0] = 0.1
    same(jf(Y), by_list(Y))
    L = [0.7]  # bound anew: the old list's item is not what the code reads
    same(jf(Y), by_list(Y))
    L = [0.5]


def test_a_number_in_a_global_tuple_rebound_is_read_at_the_call():
    global TUP
    jf = jc.jit(by_tuple)
    same(jf(Y), by_tuple(Y))
    TUP = (0.1, 1.0)
    same(jf(Y), by_tuple(Y))
    TUP = (0.1, 0.25)
    same(jf(Y), by_tuple(Y))
    TUP = (0.5, 1.0)


def test_a_number_in_a_closed_over_list_is_read_at_the_call():
    box = [0.5]

    def f(x):
        return x * box[0]

    jf = jc.jit(f)
    same(jf(Y), f(Y))
    box[0] = 3.0
    same(jf(Y), f(Y))
    box[0] = 2  # an int: Python's type rules for the product
    same(jf(Y), f(Y))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3))
def test_any_values_in_a_closed_over_list_are_read_at_the_call(values):
    box = [0.0, 0.0, 0.0]

    def f(x):
        return x * box[0] + box[1] - box[2]

    jf = jc.jit(f)
    same(jf(Y), f(Y))
    box[:] = values
    same(jf(Y), f(Y))


# -- a callable object's self, and functions by identity ----------------------------------------

class Gain:
    scale = 1.0

    def __init__(self, g):
        self.g = g
        self.w = np.array([1.0, 1.0])

    def __call__(self, x):
        return x * self.g * self.w * self.scale


gain = Gain(2.0)


def pipeline(x):
    return gain(x)


def test_a_callable_objects_attributes_are_read_at_the_call():
    x = np.ones(2)
    jp = jc.jit(pipeline)
    same(jp(x), pipeline(x))
    gain.g = 3.0
    gain.w[1] = 10.0
    same(jp(x), pipeline(x))
    gain.w = np.array([5.0, 5.0])
    same(jp(x), pipeline(x))
    Gain.scale = 0.5
    try:
        same(jp(x), pipeline(x))
    finally:
        Gain.scale = 1.0


def helper(x):
    return x * 2


def uses_helper(x):
    return helper(x)


def test_a_helper_function_bound_anew_runs_the_new_one():
    global helper
    jf = jc.jit(uses_helper)
    same(jf(Y), uses_helper(Y))
    old = helper
    try:
        helper = lambda x: x * 3  # noqa: E731
        same(jf(Y), uses_helper(Y))
    finally:
        helper = old
    same(jf(Y), uses_helper(Y))


# -- changes to outside containers --------------------------------------------------------------

LOG = []
COUNTS = {}
SEEN = set()
COUNT = 0
STATS = {"calls": 0}


class Holder:
    def __init__(self):
        self.items = []


HOLDER = Holder()


def logs(img):
    LOG.append(img.shape)
    return img.sum()


def counts(img):
    COUNTS[img.shape] = COUNTS.get(img.shape, 0) + 1
    return img.sum()


def adds(img):
    SEEN.add(img.shape)
    return img.sum()


def holds(img):
    HOLDER.items.append("frame")
    return img.sum()


def bumps(img):
    global COUNT
    COUNT += 1
    return img.sum()


def augments(img):
    STATS["calls"] += 1
    return img.sum()


@pytest.mark.parametrize("f, container, message", [
    (logs, lambda: LOG, r"list\.append\(\.\.\.\) on LOG"),
    (counts, lambda: COUNTS, r"dict\.__setitem__\(\.\.\.\) on COUNTS"),
    (adds, lambda: SEEN, r"set\.add\(\.\.\.\) on SEEN"),
    (holds, lambda: HOLDER.items, r"list\.append\(\.\.\.\) on HOLDER\.items"),
    (augments, lambda: STATS, r"dict\.__setitem__\(\.\.\.\) on STATS"),
])
def test_a_change_to_an_outside_container_is_refused_and_leaves_it_unchanged(f, container, message):
    before = repr(container())
    with pytest.raises(jc.UnsupportedError, match=message + r".*left unchanged"):
        jc.jit(f)(np.ones((2, 2)))
    assert repr(container()) == before


def test_a_refused_global_number_change_sets_it_back():
    with pytest.raises(jc.UnsupportedError, match="'COUNT' changed from 0 to 1.*set back to 0"):
        jc.jit(bumps)(np.ones((2, 2)))
    assert COUNT == 0


def extends(img):
    global LOG
    LOG += [img.shape]  # no method call: found after the trace, the list put back
    return img.sum()


def test_a_change_to_an_outside_list_by_another_path_is_refused_after_the_trace_and_undone():
    LOG[:] = ["before"]
    with pytest.raises(jc.UnsupportedError, match=r"the list LOG from outside extends\(\) changed"):
        jc.jit(extends)(np.ones((2, 2)))
    assert LOG == ["before"]
    LOG.clear()


def test_an_array_in_an_outside_dict_updated_in_place_is_not_refused_as_a_dict_change():
    params = {"w": np.ones(3)}

    def f(g):
        params["w"] -= g
        return g

    with pytest.raises(jc.UnsupportedError, match=r"out=\) into an array"):  # as before: out=
        jc.jit(f)(np.ones(3))


FAILS = 0
NOTES = ["a"]


def fails_after_changes(x):
    global FAILS, NOTES
    FAILS += 1
    NOTES += ["b"]
    if x.sum() > 0:  # under autograph=False: a ConcretizationError
        return x
    return -x


def test_a_trace_that_fails_for_another_reason_leaves_outside_values_as_they_were():
    with pytest.raises(jc.ConcretizationError):
        jc.jit(fails_after_changes, autograph=False)(np.ones(2))
    assert (FAILS, NOTES) == (0, ["a"])


def test_reading_an_outside_container_is_still_fine():
    table = {"a": 2.0}
    names = ["a"]

    def f(x):
        return x * table.get(names[0], 1.0) + len(names)

    check(f, Y)


def test_a_traced_value_appended_to_an_outside_list_is_still_refused():
    hist = []

    def f(x):
        hist.append(x.sum())
        return x

    with pytest.raises(jc.UnsupportedError, match=r"list\.append\(\.\.\.\) on hist with a traced value"):
        jc.jit(f)(Y)
    assert hist == []


def test_a_list_made_in_the_function_still_takes_appends():
    def f(x):
        out = []
        for k in range(3):
            out.append(x * k)
        return out[2]

    check(f, Y)


# -- the fast call path ---------------------------------------------------------------------------

def test_a_function_reading_nothing_from_outside_stays_a_plain_executable():
    from jitcore.dispatch import Executable

    f = jc.jit(lambda x: x * 2.0 + 1.0)
    f(Y)
    assert all(type(e) is Executable for e in f._cache.values())
