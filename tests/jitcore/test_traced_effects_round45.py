"""Python effects inside traced loops and branches (round 45, h4 W1/W1b, h2 1.2), each compared
with plain Python + NumPy: results, types, arguments after the call, printed text, warnings.

A traced loop's body and a traced branch are traced once, so a call in them that changes a
Python object, or writes output, ran once while compiling: ``log["E"].append(x)`` in a loop of
``n`` steps gave a list of one item, ``sys.stdout.write(f"{k}")`` printed jitcore's placeholder
text once, ``warnings.warn`` fired on the compiling call whatever the data.
"""

import copy
import io
import logging
import sys
import warnings

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
    # (E, passed to a call statement, is read again after it (localwrites45), so the loop
    # carries it: the refusal is then the carry's other length, naming E)
    with pytest.raises((UnsupportedError, jc.JitTypeError),
                       match=r"(?s)for loop at .*:\d+.*changed the list E|different structure \('E'"):
        jc.jit(helper_in_long_loop)(np.ones(3), E, 3000)
    assert E == [1.0]


LOG = []


def note(v):
    LOG.append(v)


def global_helper(x, n):
    for _i in range(n):
        x = x * 0.999
        note(1)
    return x


def test_a_helper_appending_to_a_global_list_in_a_compiled_loop_is_refused():
    LOG.clear()
    with pytest.raises(UnsupportedError, match=r"list\.append\(\.\.\.\) on LOG .*changes a list"):
        jc.jit(global_helper)(np.ones(3), 3000)
    assert LOG == []


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


# -- W1b: sys.stdout.write, warnings.warn, logging ---------------------------------------------
def stdout_write(x, n):
    for k in range(n):
        x = x * 0.99
        if k % 10 == 0:
            sys.stdout.write(f"{k} {x.sum():.4f}\n")
    return x


def stdout_write_branch(x, n):
    for _k in range(n):
        x = x * 0.99
        if x.sum() < 2.5:
            sys.stdout.write("low\n")
    return x


def stderr_write(x, n):
    for k in range(n):
        x = x * 0.99
        if k % 10 == 0:
            sys.stderr.write(f"{k}\n")
            print(k, x.sum(), file=sys.stderr)
    return x


def buffer_write(x, buf):
    if x.sum() > 2:
        buf.write(f"big {x.sum()}\n")
    return x


@pytest.mark.parametrize("f, args, again", [
    (stdout_write, (np.ones(3), 50), (np.ones(3) * 2, 30)),
    (stdout_write_branch, (np.ones(3), 30), (np.ones(3) * 0.5, 5)),
    (stderr_write, (np.ones(3), 30), None),
])
def test_stream_writes_run_at_each_call(f, args, again, capsys):
    jf = jc.jit(f)
    for call_args in (args, again or args):
        f(*call_args)
        want = capsys.readouterr()
        jf(*call_args)
        got = capsys.readouterr()
        assert (got.out, got.err) == (want.out, want.err)
        assert "\ue000" not in got.out + got.err


def test_a_buffer_write_is_made_at_each_call():
    jf = jc.jit(buffer_write, static_argnums=1)
    want, got = io.StringIO(), io.StringIO()
    for x in (np.ones(3), np.zeros(3), np.ones(3) * 2):
        buffer_write(x, want)
        jf(x, got)
    assert got.getvalue() == want.getvalue()


def warn_missing(x):
    n = np.isnan(x).sum()
    if n > 0:
        warnings.warn(f"{n} missing", RuntimeWarning, stacklevel=1)
    return np.nanmean(x)


def warn_always(x):
    warnings.warn("called", stacklevel=2)  # (the caller's line, under jit too)
    return x + 1


def _check_big(v):
    if v > 2:
        warnings.warn("big sum", stacklevel=2)  # (the line calling _check_big, under jit too)


def warn_in_helper(x):
    s = x.sum()
    _check_big(s)
    return s


def _warnings(f, *args):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        f(*args)
    return [(str(w.message), w.category, w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize("f, calls", [
    (warn_missing, [np.array([1.0, 2.0, 3.0]), np.array([1.0, np.nan, 3.0]),
                    np.array([np.nan, np.nan, 3.0]), np.array([4.0, 5.0, 6.0])]),
    (warn_always, [np.ones(2), np.ones(2), np.zeros(2)]),
    (warn_in_helper, [np.ones(3), np.ones(2), np.ones(3)]),
])
def test_warnings_fire_at_each_call_where_python_fires_them(f, calls):
    jf = jc.jit(f)
    for x in calls:
        assert _warnings(jf, x) == _warnings(f, x)


def log_big(x):
    s = x.sum()
    if s > 1:
        logging.getLogger("round45").warning(f"big {s}")
        logging.getLogger("round45").info("sum %s", s)
    return s


def test_logging_calls_are_made_at_each_call(caplog):
    jf = jc.jit(log_big)
    caplog.set_level(logging.INFO, logger="round45")
    for x in (np.zeros(3), np.ones(3), np.ones(3) * 2):
        log_big(x)
        want = [r.getMessage() for r in caplog.records]
        caplog.clear()
        jf(x)
        assert [r.getMessage() for r in caplog.records] == want
        caplog.clear()
