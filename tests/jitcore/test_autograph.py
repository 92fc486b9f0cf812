"""The user's own Python control flow, converted (jitcore/autograph, docs/control-flow.md §3).

Three kinds of test: on concrete values a converted function does exactly what the original
does (hypothesis, plain Python as the oracle); on traced values its loops and branches become
``scf`` ops (the traced IR); what cannot be converted raises a jitcore error naming the user's
file:line. The programs compiled and run are in ``test_autograph_programs.py``.
"""

from __future__ import annotations

import inspect
import math
import os
import re
import traceback

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.autograph import converted
from tests.jitcore.test_autograph_programs import (  # one copy of each
    capped_collatz,
    find_with_while,
    first_index_above,
    skip_negatives,
    weighted_sum,
)

THIS_FILE = os.path.abspath(__file__)


def line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    (index,) = [i for i, line in enumerate(lines) if text in line]
    return start + index


def traced(fn, *args, **jit_kwargs) -> str:
    return jc.jit(fn, **jit_kwargs).lower(*args).as_text("traced")


# -- on concrete values: Python's meaning, exactly ----------------------------------------------

def loops_and_jumps(n, k):
    total = 0
    for i in range(n):
        if i % k == 0:
            continue
        if total > 3 * n:
            break
        total += i
    else:
        total = -total
    j = 0
    while j < n and total != 7:
        j += 1
        if j > k:
            break
    return total, j


def early_returns(x, y):
    if x > y:
        return x - y
    elif x == y:
        return 0
    for i in range(x):
        if i * i > y:
            return i
        for j in range(i):
            if j * i == y:
                return -j
    return None


def logic(a, b, c):
    return (a and b) or c, not a, a < b <= c, (a or b) and not c, b if a else c, a == b != c


def nested_with_effects(n, m):
    found = []
    for i in range(n):
        for j in range(m):
            if (i + j) % 3 == 2:
                break
            found.append((i, j))
        else:
            found.append("full")
    return found


def while_else(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
        if n == 5:
            break
    else:
        return -steps
    return steps


def long_static_loop(n):
    acc = 0.0
    for i in range(200):  # over the unroll limit, but nothing is traced: plain Python
        acc = acc * 0.5 + (i % (n + 1))
    return acc


def subscript_writes(n):
    out = np.zeros(5)
    for i in range(n):
        out[i % 5] += i
        out[(i + 1) % 5] = out[i % 5] * 2
    return out.tolist()


def helper_clip(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def calls_a_helper(a, b):
    return [helper_clip(v, a, b) for v in range(-5, 6)]


def inside_with_try_and_match(n):
    import contextlib
    with contextlib.nullcontext():
        if n > 2:
            a = n * 2
        else:
            a = -n
    try:
        for i in range(n):
            if i == 3:
                b = a + i
                break
        else:
            b = 0
    except ZeroDivisionError:
        b = None
    match n % 3:
        case 0:
            if a > 4:
                c = 1
            else:
                c = 2
        case _:
            c = 3
    return a, b, c


SMALL = st.integers(-6, 12)
POSITIVE = st.integers(1, 9)


@settings(max_examples=60, deadline=None)
@given(SMALL, POSITIVE)
def test_loops_break_continue_else_as_python(n, k):
    assert converted(loops_and_jumps)(n, k) == loops_and_jumps(n, k)


@settings(max_examples=30, deadline=None)
@given(SMALL)
def test_statements_inside_with_try_and_match_as_python(n):
    assert converted(inside_with_try_and_match)(n) == inside_with_try_and_match(n)


@settings(max_examples=60, deadline=None)
@given(SMALL, SMALL)
def test_early_returns_as_python(x, y):
    assert converted(early_returns)(x, y) == early_returns(x, y)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(-2, 2), st.booleans(), st.just(None), st.just(""), st.just([1])),
       st.integers(-2, 2), st.one_of(st.integers(-2, 2), st.booleans()))
def test_and_or_not_and_chained_comparisons_as_python(a, b, c):
    try:
        want = logic(a, b, c)
    except TypeError as e:  # None < 1: the converted code raises the same
        with pytest.raises(TypeError, match=re.escape(str(e))):
            converted(logic)(a, b, c)
        return
    got = converted(logic)(a, b, c)
    assert got == want and [type(g) for g in got] == [type(w) for w in want]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(0, 6))
def test_nested_loops_with_break_and_list_effects_as_python(n, m):
    assert converted(nested_with_effects)(n, m) == nested_with_effects(n, m)


@settings(max_examples=40, deadline=None)
@given(st.integers(-3, 60))
def test_while_else_and_long_static_loops_as_python(n):
    assert converted(while_else)(n) == while_else(n)
    assert converted(long_static_loop)(abs(n)) == long_static_loop(abs(n))
    assert converted(subscript_writes)(abs(n)) == subscript_writes(abs(n))
    assert converted(calls_a_helper)(-n, n) == calls_a_helper(-n, n)


def test_what_is_not_converted():
    assert converted(np.sum) is np.sum  # NumPy's
    assert converted(len) is len  # a builtin
    assert converted(os.path.join) is os.path.join  # the standard library
    assert converted(jc.jit) is jc.jit  # jitcore's own


def test_code_without_source_runs_unconverted():
    namespace: dict = {}
    exec("def typed_at_a_prompt(x):\n    return x + 1\n", namespace)
    f = namespace["typed_at_a_prompt"]
    assert converted(f) is f and f(1) == 2


def test_closures_defaults_and_lambdas():
    scale = 3

    def inner(x, offset=10, *, twice=False):
        y = x * scale + offset
        if twice:
            y = y * 2
        return y

    f = converted(inner)
    assert f is not inner and f.__name__ == "inner"
    assert f(1) == 13 and f(1, 0, twice=True) == 6
    scale = 5  # the closure's current value is used
    assert converted(inner)(1) == 15
    both = converted(lambda a, b: a and b)
    assert both(0, 2) == 0 and both(1, 2) == 2


@pytest.mark.skipif(not hasattr(test_closures_defaults_and_lambdas.__code__, "co_positions"),
                    reason="before Python 3.11 code has no columns: such lambdas stay as written")
def test_each_of_several_lambdas_on_a_line_is_converted():
    # the one whose body's place an instruction of the code has; a nested lambda is its own
    pairs = [("and", lambda a, b: a and b), ("or", lambda a, b: a or b), ("nested", lambda a, b: (lambda c: c and b)(a))]  # noqa: E501 (one line)
    for name, f in pairs:
        g = converted(f)
        assert g is not f, name
        for a, b in ((0, 2), (1, 2), (3, 0)):
            assert g(a, b) == f(a, b), (name, a, b)
    x = np.array([0.5, -1.0])
    tails = {"erf": lambda v: math.erf(v.sum()), "erfc": lambda v: math.erfc(v.sum())}
    assert jc.jit(tails["erf"])(x) == math.erf(-0.5) and jc.jit(tails["erfc"])(x) == math.erfc(-0.5)


# -- on traced values: scf ops --------------------------------------------------------------------

def sign_of_sum(x):
    if x.sum() > 0:
        return x
    return -x


def branch_with_elif(x):
    s = x.sum()
    if s > 1:
        y = x * 2
    elif s < -1:
        y = x / 2
    else:
        y = x
    return y


def traced_while(x):
    total = x[0] * 0
    k = 0
    while total < 100 and k < x.shape[0]:
        total = total + x[k]
        k += 1
    return total, k


def traced_bounds(x, n):
    s = 0
    for i in range(1, n, 2):
        s = s + x[i]
    return s


def static_short(x):
    s = x[0]
    for i in range(1, 4):
        s = s + x[i]
    return s


def static_long(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] + x[i]
    return out


def histogram(x):
    h = np.zeros(8)
    for v in x:
        h[int(v)] += 1
    return h


def logic_on_traced(x):
    a = x[0] > 0
    b = x[1] > 0
    return a and b, a or b, not a, 0 < x[2] < 1


def writes_its_argument(x):
    if x[0] > 0:
        x[1] = 5.0


def uses_a_traced_helper(x):
    return helper_clip(x.sum(), 0.0, 1.0)


def nested_def_in_the_api(x, n):
    def body(i, s):
        if x[i] > 0:  # converted with the function that defines it
            s = s + x[i]
        return s
    return jc.fori_loop(0, n, body, 0.0)


def traced_negative_step(x, n):
    s = 0.0
    for i in range(n, 0, -1):
        s = s * 0.5 + x[i - 1]
    return s


def nested_traced_break(x, n, m):
    total = 0.0
    for i in range(n):
        for j in range(m):
            if x[i] * x[j] > 10:
                break
            total = total + x[i] * x[j]
    return total


JUMPS = {  # function, arguments, (scf.for, scf.while) counts
    "return in a while that becomes traced": (find_with_while, (np.arange(10.0), 3.0), (0, 1)),
    "return in a traced while": (capped_collatz, (np.int64(7),), (0, 1)),
    "continue in a traced for": (skip_negatives, (np.ones(5), 3), (1, 0)),
    "break in a traced for in a traced for": (nested_traced_break, (np.ones(5), 3, 4), (1, 1)),
}


@pytest.mark.parametrize("case", JUMPS)
def test_jumps_in_traced_loops(case):
    fn, args, (fors, whiles) = JUMPS[case]
    text = traced(fn, *args)
    assert (text.count('"scf.for"('), text.count('"scf.while"(')) == (fors, whiles), text


def test_nested_functions_are_converted_with_their_parent():
    text = traced(nested_def_in_the_api, np.ones(4), 3)
    assert text.index('"scf.for"') < text.index('"scf.if"')  # the if is in the loop's body


def test_traced_bounds_with_a_negative_step():
    text = traced(traced_negative_step, np.ones(4), 3)
    assert text.count('"scf.for"(') == 1 and 'dense<-1> : tensor<i64>' in text  # the step


def test_traced_if_is_scf_if():
    text = traced(sign_of_sum, np.ones(3))
    assert text.count('"scf.if"') == 1
    text = traced(branch_with_elif, np.ones(3))
    assert text.count('"scf.if"') == 2  # the elif is an if in the else branch


def test_traced_while_with_and_is_scf_while():
    text = traced(traced_while, np.ones(5))
    assert text.count('"scf.while"') == 1 and '"array.and"' in text


def test_traced_range_bounds_are_scf_for_with_the_body_dtype():
    text = traced(traced_bounds, np.ones(6), 5)
    assert text.count('"scf.for"(') == 1
    # (lb, ub, step, s, s's type tag) -> s, tag: s = 0 takes the body's float64; it is the int 0
    # where the loop does not run (type_choice.py), a tag that canonicalize computes after it
    assert ("}) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f64>, tensor<i8>) -> "
            "(tensor<f64>, tensor<i8>)") in text
    optimized = jc.jit(traced_bounds).lower(np.ones(6), 5).as_text("optimized")
    assert "(i64, i64, i64, f64) -> f64" in optimized


def test_short_static_range_unrolls_and_long_one_is_a_loop():
    short = traced(static_short, np.ones(6))
    assert '"scf.' not in short and short.count('"array.add"') == 3
    long = traced(static_long, np.ones(100))
    assert long.count('"scf.for"') == 1 and '"array.scatter_nd"' in long


def python_counter(x):
    n = 0
    for i in range(100):  # long, but only Python numbers change: stays Python
        n += i % 3
    return x[: n % 5]  # n is still a Python int: a static bound


def scalar_accumulator(x):
    s = 0.0
    for i in range(100):  # s becomes traced in the first iteration; the rest is a loop
        s += x[i % 8] * 0.5
    return s


def test_enumerate_and_zip_over_traced_arrays():
    assert traced(weighted_sum, np.ones(100), np.ones(100)).count('"scf.for"(') == 1
    assert '"scf.' not in traced(weighted_sum, np.ones(5), np.ones(5))  # short: unrolled
    assert converted(weighted_sum)([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 46.0  # plain Python


def test_a_long_static_loop_stays_python_until_its_state_is_traced():
    counter = traced(python_counter, np.ones(8))
    assert '"scf.' not in counter and "tensor<4xf64>" in counter  # 99 % 5 == 4
    text = traced(scalar_accumulator, np.ones(8))
    assert text.count('"scf.for"(') == 1 and text.count('"array.add"') == 2


def newton_with_sums(c, r, steps):
    t = np.arange(c.shape[0])
    for _ in range(steps):  # two sums a step: 20 steps would be 40 kernels to compile
        d = (1 + r) ** -t
        r = r - (c * d).sum() / (-t * c * d / (1 + r)).sum()
    return r


def damped(x, steps):
    for _ in range(steps):  # elementwise only: the copies fuse into one kernel
        x = x * 0.5 + 1.0
    return x


def test_a_short_static_loop_whose_copies_would_be_many_kernels_is_a_loop():
    c = np.array([-100.0, 30, 40, 50])
    text = traced(newton_with_sums, c, 0.1, 20, static_argnames="steps")
    assert text.count('"scf.for"(') == 1 and text.count('"array.reduce"') == 4  # first step, loop
    assert '"scf.' not in traced(newton_with_sums, c, 0.1, 3, static_argnames="steps")
    assert '"scf.' not in traced(damped, np.ones(4), 60, static_argnames="steps")
    f = jc.jit(newton_with_sums, static_argnames="steps")
    np.testing.assert_allclose(f(c, 0.1, 20), newton_with_sums(c, 0.1, 20), rtol=1e-13)


def test_histogram_over_a_traced_array_is_one_loop():
    text = traced(histogram, np.zeros(100))
    assert text.count('"scf.for"') == 1
    assert '"array.convert"' in text and '"array.scatter_nd"' in text
    # short, over a length that is a size of the arguments: a loop too (one code for every
    # length); up to 8 elements (2 * loops.NEAR) unrolled
    assert traced(histogram, np.zeros(10)).count('"scf.for"') == 1
    unrolled = traced(histogram, np.zeros(8))  # (an scf.if: int()'s check of each bin)
    assert '"scf.for"' not in unrolled and '"scf.while"' not in unrolled


def test_return_inside_a_traced_loop_is_a_while_loop():
    text = traced(first_index_above, np.arange(100.0), 5.0)
    assert text.count('"scf.while"') == 1 and '"scf.if"' in text


def test_and_or_not_on_traced_booleans_are_logical_ops():
    text = traced(logic_on_traced, np.ones(3))
    assert '"array.and"' in text and '"array.or"' in text and '"array.not"' in text


def test_a_written_argument_is_carried_out_of_the_branch():
    text = traced(writes_its_argument, np.ones(3))
    (branch,) = [ln for ln in text.splitlines() if '"scf.if"' in ln]
    (ret,) = [ln for ln in text.splitlines() if '"func.return"' in ln]
    # The function returns nothing but x's new value (the caller's array gets it): the if's.
    assert ret.split("(")[1].split(")")[0] == branch.split("=")[0].strip()
    assert '"array.update_slice"' in text


def test_helpers_are_converted_too():
    assert traced(uses_a_traced_helper, np.ones(3)).count('"scf.if"') == 2


def test_static_arguments_still_unroll():
    text = traced(traced_bounds, np.ones(6), 5, static_argnames="n")
    assert '"scf.' not in text


def test_autograph_off_keeps_python_control_flow():
    with pytest.raises(jc.ConcretizationError):
        traced(sign_of_sum, np.ones(3), autograph=False)


# -- what cannot be converted: a jitcore error at the user's line -----------------------------------

def used_after_loop(x, n):
    # (y is read in the next step before this one binds it; a name bound before any read is
    # bound after the loop where a step bound it: ``autograph.unbound``)
    for i in range(n):
        if x[i] > 5:
            s = y  # noqa: F821  (bound by an earlier step: the case)
        y = x[i]  # noqa: F841
    return s


def returns_differ(x):
    if x.sum() > 0:
        return x
    return x.sum()


def try_around(x):
    try:
        if x.sum() > 0:
            x = x + 1
    except ValueError:
        pass
    return x


def a_generator(x):
    yield x


def carries_a_list(x, n):
    parts = [x]
    for _ in range(n):
        parts = parts + [x]
    return parts[0]


def reversed_traced_range(x, n):
    s = x[0]
    for i in reversed(range(n)):
        s = s + x[i]
    return s


ERRORS = {
    "first assigned in a traced loop": (used_after_loop, (np.ones(3), 2), jc.UnsupportedError,
                                        "for i in range(n):", "'y' is first assigned inside the for loop"),
    # ("assigned in one branch", y in one and z in the other: compiled since session 51, each
    # bound where its branch ran, the other's UnboundLocalError Python's: test_user_round51)
    "branches return different types": (returns_differ, (np.ones(3),), jc.JitTypeError,
                                        "if x.sum() > 0:", "the value returned is float64[3]"),
    "try around a traced if": (try_around, (np.ones(3),), jc.UnsupportedError,
                               "if x.sum() > 0:", "inside try/except"),
    "a list carried by a traced loop": (carries_a_list, (np.ones(3), 2), jc.JitTypeError,
                                        "for _ in range(n):", "has a different structure"),
    "a traced range used as a sequence": (reversed_traced_range, (np.ones(3), 2), jc.UnsupportedError,
                                          "for i in reversed(range(n)):", "can only be the iterable"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_unconvertible_code_names_the_line_and_the_reason(case, without_auto_static):
    fn, args, error, line_text, reason = ERRORS[case]
    with pytest.raises(error) as info:
        jc.jit(fn)(*args)
    message = str(info.value)
    assert f"{THIS_FILE}:{line_of(fn, line_text)}" in message, message
    assert reason in message, message


def test_a_jitted_generator_is_refused_at_its_line():
    with pytest.raises(jc.UnsupportedError, match="generator") as info:
        jc.jit(a_generator)
    assert f"{THIS_FILE}:{line_of(a_generator, 'def a_generator')}" in str(info.value)


def raises_in_a_loop(x):
    for i in range(3):
        if i == 2:
            raise KeyError("from the user's code")
    return x


def test_tracebacks_point_at_the_users_lines_without_the_helpers():
    with pytest.raises(KeyError) as info:
        jc.jit(raises_in_a_loop)(np.ones(2))
    frames = traceback.extract_tb(info.value.__traceback__)
    raised = line_of(raises_in_a_loop, "raise KeyError")
    assert (frames[-1].filename, frames[-1].lineno) == (THIS_FILE, raised)
    ours = [f for f in frames if f.filename == THIS_FILE]
    assert [f.lineno for f in ours[-3:]] == [line_of(raises_in_a_loop, t) for t in
                                            ("for i in", "if i == 2", "raise KeyError")]
    assert not any(os.sep + "autograph" + os.sep in f.filename for f in frames)


def _sliding_sums(x):
    out = x * 0
    for i in range(100):  # long, and x[i:i + 3] needs i as a Python int: unrolled, as before
        out[i] = x[i:i + 3].sum()
    return out


def test_a_long_static_loop_whose_body_needs_its_index_as_an_int_still_runs():
    x = np.arange(200.0)
    np.testing.assert_array_equal(jc.jit(_sliding_sums)(x), _sliding_sums(x))


def jacobi_sweeps(u, f, iters):
    for _ in range(iters):
        un = u.copy()  # a scratch array bound afresh each iteration, then written in place
        un[1:-1] = 0.5 * (u[:-2] + u[2:] - f[1:-1])
        u = un
    return u


def scratch_in_while(x, tol):
    err = np.inf
    while err > tol:
        y = x.copy()
        y[0] = y[0] / 2
        err = np.abs(y - x).max()
        x = y
    return x


def test_a_scratch_array_written_in_a_traced_loop_needs_no_value_before_it():
    u, f = np.linspace(0.0, 1.0, 7) ** 2, np.full(7, 0.01)
    want = jacobi_sweeps(u, f, 5)
    np.testing.assert_array_equal(jc.jit(jacobi_sweeps)(u, f, np.int64(5)), want)
    x = np.array([8.0, 1.0])
    np.testing.assert_array_equal(jc.jit(scratch_in_while)(x, 0.5), scratch_in_while(x, 0.5))


def spike_counts(drive, steps):
    v = np.zeros_like(drive)
    spikes = np.zeros(drive.shape, np.int64)  # a local NumPy array
    for _ in range(steps):
        v = v + 0.5 * (drive - v)
        fired = v > 1.0
        spikes += fired  # updated with a traced value: a traced array from here on
        v = np.where(fired, 0.0, v)
    return spikes


def add_into_a_view(x):
    a = np.zeros((2, 3))
    row = a[0]
    row += x  # written through the view: a sees it (session 48; refused before)
    return a


def test_augmented_assignment_of_a_local_array_with_a_traced_value():
    drive = np.array([0.5, 1.5, 3.0])
    np.testing.assert_array_equal(jc.jit(spike_counts)(drive, 6), spike_counts(drive, 6))
    np.testing.assert_array_equal(jc.jit(spike_counts)(drive, np.int64(6)), spike_counts(drive, 6))
    np.testing.assert_array_equal(jc.jit(add_into_a_view)(np.ones(3)), add_into_a_view(np.ones(3)))


def rows_through_views(x):
    img = np.zeros((2, 3))
    for i in range(2):
        line = img[i]
        line[:] = x * i  # img sees the write (session 48: every holder of the array does)
    return img


def write_into_a_reshaped_temporary(x):
    a = np.arange(6.0).reshape(2, 3)  # a view no other name holds the array of: fine
    a[0] = x
    return a


def test_a_write_through_a_view_of_a_local_array_reaches_the_array():
    x3 = np.array([1.0, -2.0, 0.5])
    np.testing.assert_array_equal(jc.jit(rows_through_views)(x3), rows_through_views(x3))
    x = np.array([7.0, -0.0, np.inf])
    want = write_into_a_reshaped_temporary(x)
    np.testing.assert_array_equal(jc.jit(write_into_a_reshaped_temporary)(x), want)


def builtins_over_generators(x, t):
    biggest = max(x[i] for i in range(x.shape[0]))
    smallest = min(abs(v) for v in x)
    some, every = any(x[i] > t for i in range(2)), all(v > -t for v in x)
    return biggest, smallest, some, every, any([0, x[0] > t]), all([])


def test_max_min_any_all_of_generators_with_traced_values():
    for x, t in [(np.array([1.0, -3.0, 2.5]), 2.0), (np.array([np.nan, 1.0]), 0.5), (np.arange(4), 5)]:
        got, want = jc.jit(builtins_over_generators)(x, t), builtins_over_generators(x, t)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, strict=False)
            assert np.asarray(g).dtype == np.asarray(w).dtype
    with pytest.raises(ValueError, match="ambiguous"):
        jc.jit(lambda m: any(m > 0))(np.ones((2, 2)))


def scan_until_negative(x):
    i = 0
    while i < x.shape[0] and x[i] >= 0:  # x[i] is read only while i is in range, as Python does
        i += 1
    k = 0
    while not (k >= x.shape[0] or x[k] < 0):
        k += 1
    after = x[i] if i < x.shape[0] else -1.0  # x[n] not read either
    return i, k, (i > 0 and x[i - 1] * 2), (i == 0 or x[i - 1] > 1), after


def test_and_or_and_if_else_evaluate_an_operand_only_when_python_would():
    for x in (np.array([1.0, 2.0, 3.0]), np.array([1.0, -2.0, 3.0]), np.array([-1.0]), np.zeros(0)):
        got, want = jc.jit(scan_until_negative)(x), scan_until_negative(x)
        assert [np.asarray(g).item() for g in got] == [np.asarray(w).item() for w in want], (x, got, want)
    assert traced(scan_until_negative, np.ones(3)).count('"scf.if"') == 6  # each side guarded


# --- found by the random programs (tests/programs/generator.py's control statements) ---------

def update_a_dead_name(x):
    v = x.copy()
    if np.count_nonzero(x) > 1:
        v = np.abs(v)  # read first in the branch, never after the if
    w = x.copy()
    if x.max() > 0:
        w = w.astype(np.float32)  # dead after the if: its branches may differ in dtype
    return x + 1


def shift_by_the_index(x):
    v = x.copy()
    for i in range(int(np.count_nonzero(x) % 4)):  # a traced trip count
        v = v + i  # i is a Python int: float16 + i stays float16 (NEP 50)
    return v


def test_a_name_a_traced_branch_reads_before_assigning_it_keeps_its_value():
    x = np.array([3, -1, 2], np.int8)
    np.testing.assert_array_equal(jc.jit(update_a_dead_name)(x), update_a_dead_name(x))


def test_the_index_of_a_traced_range_promotes_as_a_python_int():
    for x in (np.array([1.5, 0.0, 2.0], np.float16), np.array([7, 1, 250], np.uint8)):
        got, want = jc.jit(shift_by_the_index)(x), shift_by_the_index(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def the_index_after_a_traced_loop(x):
    for i in range(int(np.count_nonzero(x))):
        if x[i] > 1.5:
            break
    return x + i, i


def int_of_a_traced_value(x):
    n = int(np.count_nonzero(x))
    m = float(x.sum())
    return x + n, n, x * m, m


@pytest.mark.parametrize("fn", [the_index_after_a_traced_loop, int_of_a_traced_value])
def test_a_traced_python_number_is_a_scalar_that_promotes_weakly(fn):
    """Python gives an int (a float): jitcore a NumPy scalar (as for any Python number it
    returns), never a 0-d array, and one that promotes as a Python number (float32 x + n stays
    float32)."""
    x = np.array([1.0, 2.0, 0.0], np.float32)
    for got, want in zip(jc.jit(fn)(x), fn(x)):
        assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def test_a_function_made_by_exec_converts_when_linecache_has_its_source():
    import linecache

    source = "def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
    name = "<made by test_autograph>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    scope = {}
    exec(compile(source, name, "exec"), scope)
    np.testing.assert_array_equal(jc.jit(scope["f"])(np.array([-1.0, -2.0])), [1.0, 2.0])


def test_control_flow_in_a_function_without_source_says_why_it_was_not_converted():
    scope = {}
    source = "def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
    exec(compile(source, "<string>", "exec"), scope)
    with pytest.raises(jc.ConcretizationError, match="source jitcore cannot read"):
        jc.jit(scope["f"])(np.array([1.0]))


def _pairs_sum(x):
    def pairs():
        for i in range(x.shape[0] - 1):
            yield x[i], x[i + 1]
    return sum(a * b for a, b in pairs())


def _positives(x):
    def positives():
        for v in x:
            if v > 0:
                yield v
    return sum(positives())


def test_a_generator_defined_inside_runs_as_python():
    """Its loop is not converted (a body function cannot yield for it): before session 40 it
    raised "__agf_body_1() takes 1 positional argument but 2 were given"."""
    x = np.arange(5.0)
    assert jc.jit(_pairs_sum)(x) == _pairs_sum(x)
    with pytest.raises(jc.ConcretizationError):  # an if on the data inside a generator
        jc.jit(_positives)(x)


def _elif_returns(x, k):
    if k == 1:
        return x * 2
    elif k == 2:
        return x * x
    return x


def _elif_chain_returns(x, k):
    y = x  # (a traced k needs y on every path: only one branch sets it)
    if k == 1:
        return x * 2
    elif k == 2:
        return x * x
    elif k == 3:
        y = x + 1
    else:
        return -x
    return y * 3


def _elif_returns_in_loop(x, n):
    for i in range(n):
        if x[i] > 10:
            return x * 0
        elif x[i] < 0:
            return x * -1
    return x


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("fn", [_elif_returns, _elif_chain_returns])
@pytest.mark.parametrize("static", [False, True])
def test_a_return_after_an_elif_that_returns_runs_only_when_no_branch_returned(fn, k, static):
    """The statements after ``if ...: return`` / ``elif ...: return`` were moved into the else
    branch unguarded, so they ran after the elif's return too: ``k == 2`` gave ``x``, not
    ``x * x`` (a wrong answer before session 40, static or traced ``k``)."""
    x = np.arange(4.0)
    jitted = jc.jit(fn, static_argnames=("k",) if static else ())
    np.testing.assert_array_equal(jitted(x, k), fn(x, k))


@pytest.mark.parametrize("data", [[1.0, 2.0, 3.0], [1.0, -2.0, 3.0], [1.0, 20.0, 3.0]])
def test_a_return_after_an_elif_in_a_loop(data):
    x = np.array(data)
    np.testing.assert_array_equal(jc.jit(_elif_returns_in_loop)(x, 3), _elif_returns_in_loop(x, 3))



def _set_after_a_nested_return(x, k):
    if k > 0:
        if k > 5:
            return x * 5
        y = x + 1
    else:
        return x * -1
    return y * 2


@pytest.mark.parametrize("k", [-1, 1, 7])
def test_a_name_set_only_on_the_branch_that_falls_through(k):
    """``y`` is set only where no return came first, and read after the if: with a traced ``k``
    it was refused ("'y' is assigned in only one branch"); the rest now joins that branch."""
    x = np.arange(3.0)
    np.testing.assert_array_equal(jc.jit(_set_after_a_nested_return)(x, k), _set_after_a_nested_return(x, k))


def heron_until_settled(x):
    prev = x.copy()
    for it in range(100):  # noqa: B007  (the count after the loop: the case)
        cur = 0.5 * (prev + 2.0 / prev)  # first given a value in the loop's body
        if np.max(np.abs(cur - prev)) < 1e-12:
            break
        prev = cur
    return cur, it


@pytest.mark.parametrize("x", [np.full(4, 3.0), np.linspace(1.0, 9.0, 7), np.full(3, np.sqrt(2.0))],
                         ids=["several steps", "mixed", "settled at the first step"])
def test_a_variable_first_set_in_a_loop_with_a_traced_break(x):
    # Its first step runs in Python (giving cur a value), the rest as a loop (session 41).
    got, want = jc.jit(heron_until_settled)(x), heron_until_settled(x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-15)
    assert got[1] == want[1]


def sorted_picks(x, k):
    top = sorted([x[0], x[k], x[-1], 0.5], reverse=True)
    return top[0], top[-1], sorted(x[:4]), sorted([3, 1, 2])


@pytest.mark.parametrize("x", [np.array([3.0, -1.0, 2.5, 7.0, -4.0]), np.arange(6.0)[::-1].copy(),
                               np.array([1, 9, -3, 4], np.int32)])
def test_sorted_of_traced_numbers_is_pythons(x):
    got, want = jc.jit(sorted_picks)(x, 2), sorted_picks(x, 2)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g, float), np.asarray(w, float))
    assert type(got[3]) is list and got[3] == [1, 2, 3]


def first_above(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            return i
    return -1


@pytest.mark.parametrize("limit", [2.5, 100.0])
def test_an_index_returned_from_a_traced_loop_is_a_python_int(limit):
    x = np.arange(6.0)
    got = jc.jit(first_above)(x, limit)
    assert got == first_above(x, limit) and type(got) is int
    got, want = jc.jit(heron_until_settled)(np.full(3, 5.0)), heron_until_settled(np.full(3, 5.0))
    assert got[1] == want[1] and type(got[1]) is int
