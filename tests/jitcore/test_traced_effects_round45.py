"""Python effects inside traced loops and branches (round 45, h4 W1/W1b, h2 1.2), each compared
with plain Python + NumPy: results, types, arguments after the call, printed text, warnings.

A traced loop's body and a traced branch are traced once, so a call in them that changes a
Python object, or writes output, ran once while compiling: ``log["E"].append(x)`` in a loop of
``n`` steps gave a list of one item, ``sys.stdout.write(f"{k}")`` printed jitcore's placeholder
text once, ``warnings.warn`` fired on the compiling call whatever the data.
"""

import copy

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


def same(f, *args, again=None):
    """f under NumPy and under jit (twice: compiled, then cached): equal results, types and
    arguments after each call."""
    jf = jc.jit(f)
    for call_args in (args, again or args):
        a1, a2 = copy.deepcopy(call_args), copy.deepcopy(call_args)
        want, got = f(*a1), jf(*a2)
        _equal(got, want)
        _equal(list(a2), list(a1))
    return jf


def _equal(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _equal(g, w)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _equal(got[k], want[k])
    elif isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        assert got == pytest.approx(want, rel=1e-12)


# -- W1: appends through a dict item, an attribute, a list item, a helper ----------------------
def dict_item(x, n):
    log = {"E": [], "t": []}
    for i in range(n):
        x = x * 0.9
        log["E"].append(x)
        log["t"].append(i)
    return len(log["E"]), len(log["t"])


class Sim:
    def __init__(self):
        self.events = []


def attribute(x, n):
    sim = Sim()
    for _i in range(n):
        x = x * 0.9
        sim.events.append(1)
    return sum(sim.events), x


def list_item(x, n):
    logs = [[]]
    for _i in range(n):
        x = x * 0.9
        logs[0].append(x)
    return len(logs[0])


def callers_dict(x, sim, n):
    for _i in range(n):
        x = x * 0.9
        sim["E"].append(1.0)
    return x


def record(log, v):
    log.append(v)


def helper(x, n):
    E = []
    for _i in range(n):
        x = x * 0.9
        record(E, 1)
    return len(E)


def nested_helper(x, n):
    E = []

    def rec(v):
        E.append(v)

    for _i in range(n):
        x = x * 0.9
        rec(1)
    return len(E)


def new_keys(x, n):
    d = {}
    for i in range(n):
        x = x * 0.9
        d[i] = 1
    return len(d)


def in_while(x):
    log = {"E": []}
    while x > 0.01:
        x = x * 0.9
        log["E"].append(1)
    return len(log["E"])


def under_if(x, n):
    log = {"hits": []}
    for i in range(n):
        x = x * 0.9
        if x < 0.5:
            log["hits"].append(i)
    return len(log["hits"])


@pytest.mark.parametrize("f, args, again", [
    (dict_item, (1.0, 50), (1.0, 7)),
    (dict_item, (np.ones(3), 50), (np.ones(3), 7)),
    (attribute, (1.0, 50), (2.0, 20)),
    (list_item, (np.ones(2), 40), None),
    (callers_dict, (1.0, {"E": [0.5]}, 40), None),
    (helper, (1.0, 30), (1.0, 4)),
    (nested_helper, (1.0, 30), None),
    (new_keys, (1.0, 30), None),
    (in_while, (1.0,), (0.5,)),
    (under_if, (1.0, 20), None),
])
def test_appends_not_by_name_run_at_each_step(f, args, again):
    same(f, *args, again=again)


def long_dict_item(x, n):
    log = {"E": []}
    h = Sim()
    for _i in range(n):
        x = x * 0.999
        log["E"].append(x @ x)
        h.events.append(x[0])
    return np.array(log["E"]), np.array(h.events), len(log["E"])


def test_a_long_loop_appending_through_a_path_compiles_as_a_loop():
    # (too long to unroll: compiled as an appending loop, the rows carried as an array)
    same(long_dict_item, np.ones(3), 2000)
    text = str(jc.make_ir(long_dict_item, static_argnums=1)(np.ones(3), 2000))
    assert text.count('"scf.for"') == 1


def appends_before_reading(x, n):
    log = {}
    for _i in range(n):
        log["E"].append(x)
    return 1


def test_a_path_that_cannot_be_read_raises_at_the_first_append_as_in_python():
    same(appends_before_reading, np.ones(2), 0)
    with pytest.raises(KeyError):
        appends_before_reading(np.ones(2), 3)
    with pytest.raises(KeyError):
        jc.jit(appends_before_reading)(np.ones(2), 3)


def helper_in_long_loop(x, E, n):
    for _i in range(n):
        x = x * 0.999
        record(E, x.sum())
    return x


def test_a_helper_appending_in_a_compiled_loop_is_refused_and_leaves_the_list_alone():
    E = [1.0]
    with pytest.raises(UnsupportedError, match=r"(?s)for loop at .*:\d+.*changed the list E"):
        jc.jit(helper_in_long_loop)(np.ones(3), E, 3000)
    assert E == [1.0]


def array_while(x):
    log = {"E": []}
    while x.sum() > 0.01:
        x = x * 0.9
        log["E"].append(1)
    return len(log["E"])


def array_if(x):
    hits = {"n": []}
    for i in range(3000):
        x = x * 0.999
        if x.sum() < 1.0:
            hits["n"].append(i)
    return len(hits["n"])


@pytest.mark.parametrize("f, what", [(array_while, "while loop"), (array_if, "if")])
def test_appends_under_a_condition_on_arrays_are_refused(f, what):
    with pytest.raises(UnsupportedError, match=rf"(?s)the {what} at .*changed the list"):
        jc.jit(f)(np.ones(3))
