"""A value that a traced condition chooses among values of different types comes back with the
type Python gives it on the path the data took (jitcore/type_choice.py, docs/control-flow.md
§7): ``1 if x.sum() > 0 else x.mean()`` is the int 1 or an ``np.float64``, not ``np.float64(1.0)``
on both paths. Each test runs the same function in plain Python + NumPy and under ``jit`` and
compares results (their reprs and types, leaf by leaf), arguments after the call and printed
text."""

import copy

import numpy as np
import pytest

import jitcore as jc


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)([_types(v) for v in value])
    return type(value)


def same(fn, *args, capsys=None):
    """``fn(*args)`` under jit as in Python: result, types, arguments after, printed text."""
    python_args = copy.deepcopy(args)
    want = fn(*python_args)
    printed = capsys.readouterr().out if capsys else None
    jit_args = copy.deepcopy(args)
    got = jc.jit(fn)(*jit_args)
    assert repr(got) == repr(want)
    assert _types(got) == _types(want)
    assert repr(jit_args) == repr(python_args)
    if capsys:
        assert capsys.readouterr().out == printed
    return got


POSITIVE, NEGATIVE = np.array([2.0, 3.0, 0.5]), np.array([-1.0, -2.0, 0.25])


def int_or_mean(x):
    return 1 if x.sum() > 0 else x.mean()


def early_return(x):  # h5's ray_sphere1: a miss is the float -1.0
    if x[0] > 0:
        return -1.0
    return x[0] * 2


def clamp(x):  # h2 1.1
    m = x.mean()
    if m > 1:
        m = 1
    print(m)
    return m


def summarize(x):  # h2 1.1: NumPy prints {'mean': nan}
    m = float("nan") if np.isnan(x).all() else np.nanmean(x)
    print({"mean": m})
    return m


def zero_or_argmax(x):
    return 0 if x.sum() > 0 else x.argmax()


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
@pytest.mark.parametrize("fn", [int_or_mean, early_return, zero_or_argmax])
def test_the_branch_taken_gives_the_type(fn, x):
    same(fn, x)


@pytest.mark.parametrize("x", [POSITIVE, np.array([0.5, 0.25]), np.array([np.nan, np.nan]),
                               np.array([np.nan, 1.0])])
@pytest.mark.parametrize("fn", [clamp, summarize])
def test_printed_text_is_the_branch_taken(fn, x, capsys):
    same(fn, x, capsys=capsys)


def f_string(x):
    m = 1 if x[0] > 0 else x[1]
    print(f"m={m} {m!r} {m:.2f}")
    return m


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
def test_an_f_string_formats_the_branch_taken(x, capsys):
    same(f_string, x, capsys=capsys)


def max_of_float_and_min(x):  # h2 1.1, h4 W2
    return max(0.0, x.min())


def min_of_item_and_float(x):  # h5 W3
    return min(x[0], 0.0)


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
@pytest.mark.parametrize("fn", [max_of_float_and_min, min_of_item_and_float])
def test_max_and_min_give_the_value_they_chose(fn, x):
    same(fn, x)


def either_or(x):  # h5 W3: np.True_ or x[1]
    return x[0] > 0 or x[1]


def both_and(x):
    return x[0] > 0 and x[1]


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE, np.array([0.0, 0.0])])
@pytest.mark.parametrize("fn", [either_or, both_and])
def test_and_or_give_the_operand_they_chose(fn, x):
    same(fn, x)


def nested(x):
    if x[0] > 0:
        if x[1] > 2.5:
            r = 1
        else:
            r = 2.5
    else:
        r = x[2]
    return r


@pytest.mark.parametrize("x", [POSITIVE, np.array([2.0, 1.0, 0.0]), NEGATIVE])
def test_nested_ifs(x):
    same(nested, x)


def best_below(x, n):  # h4 W2: a Python float until a NumPy scalar is smaller
    best = 10.0
    for i in range(n):
        best = min(best, x[i])
    return best


def total(x, n):  # the int 0 where the loop does not run
    s = 0
    for i in range(n):
        s += x[i]
    return s


def first_above(x, t):
    i = 0
    found = -1
    while i < x.shape[0]:
        if x[i] > t:
            found = x[i]
            break
        i += 1
    return found


@pytest.mark.parametrize("x", [np.arange(5.0) + 20, np.arange(5.0)])
@pytest.mark.parametrize("n", [0, 3, 5])
def test_a_loop_carries_the_type(x, n):
    same(best_below, x, n)
    same(total, x, n)


@pytest.mark.parametrize("t", [2.5, 10.0])
def test_a_while_loop_carries_the_type(t):
    same(first_above, np.arange(5.0), t)


def pair(x):
    lo = 0 if x[0] > 0 else x[0]
    hi = x[1] if x[1] > 0 else 0.0
    return (lo, hi), {"lo": lo, "hi": hi, "n": 3}, [hi]


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
def test_tuples_dicts_and_lists_of_such_values(x):
    same(pair, x)


def written_into(x, d):
    d["m"] = 1 if x[0] > 0 else x.mean()
    return d


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
def test_a_value_written_into_an_argument_dict(x):
    same(written_into, x, {"m": 0.0})


def float32_or_float64(a, b):  # h2 r24: the float32 path stays float32
    return a.mean() if a[0] > 0 else b.mean()


def int_or_float32(a):
    return 0 if a[0] > 0 else a[1]


@pytest.mark.parametrize("first", [1.0, -1.0])
def test_float32_paths(first):
    a = np.array([first, 2.5], np.float32)
    same(float32_or_float64, a, np.array([1.0, 2.0]))
    same(int_or_float32, a)


def complex_or_float(x):
    return 1j if x[0] > 0 else x[1]


def bool_or_float(x):
    return True if x[0] > 0 else x[1]


def bool_or_int(x):
    return x[0] > 0 if x[1] > 0 else 7


def int32_or_int64(a, b):
    return a[0] if a[0] > b[0] else b[0]


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE])
def test_complex_bool_and_integer_mixes(x):
    same(complex_or_float, x)
    same(bool_or_float, x)
    same(bool_or_int, x)
    same(int32_or_int64, np.array([3], np.int32) * np.sign(x[:1]).astype(np.int32), np.array([0], np.int64))


def same_types_on_both_paths(x):
    return x[0] if x[1] > 0 else x[2]


def test_no_tag_where_the_types_agree():
    text = jc.jit(same_types_on_both_paths).lower(POSITIVE).as_text("traced")
    assert "i8" not in text


def twice(x):
    m = 1 if x[0] > 0 else x.mean()
    return m * 2


def big_int_or_float(n, x):
    return n if x[0] > 0 else x[1]


def test_documented_limits():
    # arithmetic on the chosen value keeps the choice (chosen_kind_arithmetic.py): Python's int 2
    same(twice, POSITIVE)
    same(twice, NEGATIVE)
    # an int past 2**53 held in a float64 is not known exactly: OverflowError from the call
    # (session 56; it gave the promoted type, np.float64)
    with pytest.raises(OverflowError, match="the int 1152921504606846976 .* float64 holds ints exactly"):
        jc.jit(big_int_or_float)(2 ** 60, POSITIVE)
    got = jc.jit(big_int_or_float)(2 ** 40 + 1, POSITIVE)
    assert type(got) is int and got == 2 ** 40 + 1


def test_the_native_call_converts_too():
    f = jc.jit(total)
    x = np.arange(4.0)
    for _ in range(3):  # the native call takes over from the second cached call
        assert repr(f(x, 0)) == "0" and repr(f(x, 4)) == "np.float64(6.0)"


def written_into_list(x, lst):
    lst[0] = 1 if x[0] > 0 else x.mean()
    return lst


def half_counter(x):  # h2 r24: an int counter that a traced branch steps by 0.5
    n = 0
    for v in x:
        if v > 1:
            n += 0.5
    return n


def running_max(x, n):
    r = 0
    k = 0
    while k < n:
        r = x[k] if x[k] > r else r
        k += 1
    return r


@pytest.mark.parametrize("x", [np.array([1.5, -2.0]), np.array([-1.0, -2.0])])
def test_list_arguments_counters_and_while_loops(x):
    same(written_into_list, x, [0.0])
    same(half_counter, x)
    same(running_max, x, 2)


def test_chosen_type_on_every_call_of_the_native_path():
    """From the third call the native entry calls the executable: the tag arrives as its
    one-element buffer, which the conversion reads as the Python path's 0-d tag (was a
    TypeError from the third call on; session 46, h1 C1)."""
    def f(p):
        acc = 0.0
        out = np.zeros(len(p))
        for i in range(len(p)):
            acc += p[i]
            out[i] = 1.0
        return acc

    jitted = jc.jit(f)
    for p in [np.linspace(0, 1, 30)] * 4 + [np.zeros(0)] * 4 + [np.arange(3.0)] * 3:
        want, got = f(p), jitted(p)
        assert type(got) is type(want) and got == want, (got, want)
