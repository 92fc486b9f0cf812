"""While loops whose counter steps under an ``if`` or that ``break``: one traced ``while`` from
their first step (session 36; docs/control-flow.md, "While loops whose counter steps under an
if or that break").

``analysis.stepped_while`` finds the counter of ``while i < n`` (alone, or ``not brk and i < n``
as ``lowering`` writes a ``break``) when every assignment of it in the body is a step by a
number or an invariant name; ``statements._stepped_while`` carries it into a traced ``while``
when the loop is long or its bound a size. Each program is checked against the same function
run by Python (the counter's value after the loop exactly), with one compile over three
lengths, and run by Python (unrolled) where it is short.
"""

from __future__ import annotations

import ast
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import jitcore as jc
from jitcore.autograph import analysis, lowering
from jitcore.errors import UnsupportedError
from tests.jitcore.test_loops_size_generic import data

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:  # the programs the benchmark times (bench_user_loops.py --sizes and --forms)
    from bench_user_loops import euler_until, while_data_break, while_select_step, while_until_root
finally:
    sys.path.pop(0)

LONG = (140, 201, 300)
EDGES = (0, 1, 5)  # loops that never run, run once, or Python unrolls


def check(jitted, *args, same_kind=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf: as NumPy's
        expected = jitted.fun(*(a.copy() for a in args))
        got = jitted(*args)
    got, expected = (v if isinstance(v, tuple) else (v,) for v in (got, expected))
    *values, counter = got
    *want, final = expected
    assert counter == final, (counter, final)  # the counter after the loop: exactly Python's
    if same_kind:
        assert np.asarray(counter).dtype.kind == np.asarray(final).dtype.kind, (counter, final)
    for g, e in zip(values, want):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=0, equal_nan=True)


def countdown_odd(x):  # s = 0.0 is a number until the first step: one code at odd and even n
    i = x.shape[0] - 1
    s = 0.0
    while i >= 0:
        if x[i] < -2:
            break
        if i % 2:
            s = s + x[i]
        i -= 1
    return s, i


@pytest.mark.parametrize("f", [while_select_step, while_until_root, while_data_break, euler_until,
                               countdown_odd],
                         ids=lambda f: f.__name__)
def test_one_while_loop_one_compile_and_pythons_values(f):
    jitted = jc.jit(f)
    for n in LONG:
        check(jitted, data(n, n))
    info = jitted.cache_info()
    assert (info.traces, info.compiles) == (3, 1), info
    text = jitted.lower(data(LONG[0], 0)).as_text("traced")
    assert text.count('"scf.while"') == 1, text  # one loop, not one body a step
    for n in EDGES:  # (each a compile of its own: small sizes are a size class each)
        check(jitted, data(n, n))


def binary_search(x, t):  # lo and hi are Python ints until the if on x[mid] makes them traced
    lo, hi = 0, x.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if x[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo, hi


def test_a_while_the_first_step_makes_traced_is_a_loop_from_that_step():
    jitted = jc.jit(binary_search)
    for n in LONG:  # before: the first step ran in Python, x[n // 2] a constant of the code
        x = np.sort(data(n, n))  # (NaN sorts last: x[mid] < t is False there, as in Python)
        for t in (-0.5, 0.0, np.inf):
            check(jitted, x, np.float64(t))
    assert jitted.cache_info().compiles == 1
    assert '"scf.while"' in jitted.lower(np.zeros(LONG[0]), np.float64(0.0)).as_text("traced")
    for n in (0, 1, 5):
        check(jitted, np.sort(data(n, n)), np.float64(0.1))


def test_steps_of_both_kinds_and_a_break_on_the_data_together():
    def mixed(x):  # an int counter that a float step makes a float, and a break on the data
        n = x.shape[0]
        i, s = 0, 0.0
        while i < n:
            v = x[int(i)]
            if v != v:  # NaN
                break
            if v > 0:
                i += 0.5
            else:
                s = s + v
                i += 1
        return s, i

    jitted = jc.jit(mixed)
    for n in (100,):
        # (the counter is float64 throughout: Python's is an int until a float step)
        check(jitted, data(n, n), same_kind=False)
        check(jitted, np.abs(data(n, n)) * np.where(np.arange(n) % 3 == 0, -1.0, 1.0), same_kind=False)
    assert '"scf.while"' in jitted.lower(data(100, 0)).as_text("traced")


def test_a_body_that_needs_the_counter_as_a_python_int_runs_as_before():
    def prefixes(x):  # x[:i] has a shape that depends on i: Python's loop, one body a step
        n = x.shape[0]
        out = np.zeros(n)
        i = 1
        while i < n:
            if i % 2:
                out[i] = x[:i].sum()
                i += 1
            else:
                i += 3
        return out, i

    check(jc.jit(prefixes), data(20, 3))


def test_a_python_object_changed_in_a_traced_loop_is_refused():
    def history(x):  # before: the body was traced once, so len(hist) was 2 whatever the data
        err, hist = 1.0, []
        while err > 1e-6:
            err = err * 0.5 * x.mean()
            hist.append(err)
        return err, len(hist)

    def counts(x):
        seen = []
        for i in range(int(x[0])):
            seen.append(i)
        return len(seen)

    for f, what in ((history, "while loop"), (counts, "for loop")):
        with pytest.raises(UnsupportedError, match=rf"the {what} at .* calls \w+\.append"):
            jc.jit(f)(np.full(4, 1.5))  # (a loop that ends, in 48 steps)


def _stepped(src: str):
    fn = ast.parse(textwrap.dedent(src)).body[0]
    lowering.lower_returns(fn)
    lowering.lower_jumps(fn)
    loop = next(n for n in ast.walk(fn) if isinstance(n, ast.While))
    found = analysis.stepped_while(loop)
    return None if found is None else (found[0], found[1], [ast.unparse(s) for s in found[3]])


def test_which_while_loops_are_stepped():
    assert _stepped("""
        def f(x, n, dt):
            i = 0
            while i < n:
                if x[i] > 0:
                    i += 1
                else:
                    i = i - dt
        """) == ("i", "<", ["1", "-dt"])
    assert _stepped("""
        def f(x, n):
            i = n
            while i >= 0:
                if x[i] < 0:
                    break
                i -= 2
        """) == ("i", ">=", ["-2"])
    for body in (["i += 1", "i = 0"],            # reset: not a step
                 ["i *= 2", "i += 1"],            # a product
                 ["i += k", "k += 1"],            # a step the body changes
                 ["i += 1", "n -= 1"],            # a bound the body changes
                 ["i += 1", "log.append(i)"],     # Python effects (a print is none: it prints at each call)
                 ["i, j = i + 1, j"]):            # an assignment that is no step
        lines = "".join(f"        {s}\n" for s in body)
        assert _stepped(f"def f(x, n, k, j):\n    i = 0\n    while i < n:\n{lines}") is None, body
