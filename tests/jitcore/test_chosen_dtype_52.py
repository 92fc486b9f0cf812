"""Arrays whose dtype the data chooses, used inside the function (``jitcore/chosen_dtype.py``).

``np.array([v if v > 0 else 0 for v in x])`` is NumPy's int64 where every item took the int
path and float64 where a float is among them. Returned, used in arithmetic, reduced, indexed or
printed, jitcore gives NumPy's dtype and values; what would need to know the dtype while
compiling (a bitwise op, ``// 0``, a write of 2.5) is refused with a JitTypeError naming the line.
Each function below returns many results so that one compile covers many cases.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc

# x's sign picks each item's type: all ints (every item 0), all floats, mixed
INPUTS = (np.linspace(-1.0, 1.0, 12), -np.ones(12), np.ones(12))  # (one size: one compile)


def same(got, want):
    """NumPy's results: types (Python, NumPy scalar, array), dtypes, shapes, values."""
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.shape(got) == np.shape(want), (got, want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def check(f, *inputs):
    jf = jc.jit(f)
    for x in inputs or INPUTS:
        same(jf(x), f(x))


def comprehension_ops(x):
    a = np.array([v if v > 0 else 0 for v in x])
    return (a, a * 2, a ** 2, a // 2, a % 3, -a, abs(a), a + a, a - 1, np.maximum(a, 0),
            a / 2, a > 0, a.mean(), np.sqrt(a), a.sum(), a.max(), np.cumsum(a), np.sort(a), a[0],
            a[1:], a[::-1], a.reshape(-1, 1), np.zeros_like(a), np.where(a > 0, a, -1),
            np.concatenate([a, a]), a.astype(np.float32), np.unique(a), len(a), a.shape,
            np.argsort(a), x + a, a @ a, np.dot(a, x), a.T, np.diff(a), np.clip(a, 0, 1))


def test_comprehension_array_used_keeps_numpys_dtype():
    check(comprehension_ops)


def reductions_of_comprehensions(x):
    return (np.sum([v if v > 0 else 0 for v in x]), np.max([v if v > 0 else 0 for v in x]),
            np.mean([v if v > 0 else 0 for v in x]), np.prod([1 if v > 0 else 0.5 for v in x]))


def test_numpy_functions_of_comprehensions():
    check(reductions_of_comprehensions)


def loop_list(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] if x[i] > 0 else 0)
    a = np.array(out)
    return a, a * 2, np.sum(out), np.max(out), a[-1], len(a)


def loop_list_under_if(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out.append(1)
        elif x[i] < -0.5:
            out.append(x[i])
    a = np.array(out)
    return a, a + 1, a.sum(), len(a)


def test_lists_a_loop_filled():
    check(loop_list)
    # kept items: none (float64 of shape (0,)), ints only, floats only, both
    check(loop_list_under_if, np.zeros(12), np.ones(12), -np.ones(12), np.linspace(-1, 1, 12))


def short_list(x):
    a = np.array([x[0] if x[0] > 0 else 0, 1])
    return a, a * 2


def writes(x):
    a = np.array([v if v > 0 else 0 for v in x])
    a[0] = 5
    a[1:3] = np.arange(2)
    return a


def test_short_lists_and_integer_writes():
    check(short_list)
    check(writes)


def printed(x):
    a = np.array([v if v > 0 else 0 for v in x])
    print(a, a * 2)
    return a


def test_printed_as_numpys(capsys):
    jf = jc.jit(printed)
    for x in INPUTS[:2]:
        printed(x)
        want = capsys.readouterr().out
        jf(x)
        assert capsys.readouterr().out == want


def bitwise(x):
    a = np.array([v if v > 0 else 0 for v in x])
    return a & 1


def by_zero(x):
    a = np.array([v if v > 0 else 0 for v in x])
    return a // 0


def dtype_read(x):
    a = np.array([v if v > 0 else 0 for v in x])
    return np.zeros(3, a.dtype)


def float_written(x):
    a = np.array([v if v > 0 else 0 for v in x])
    a[0] = 2.5
    return a


def changed_under_traced_if(x):
    a = np.array([v if v > 0 else 0 for v in x])
    if x.sum() > 0:
        a = a + 1
    return a


@pytest.mark.parametrize("f, use", [
    (bitwise, "numpy.bitwise_and"), (by_zero, "numpy.floor_divide"), (dtype_read, r"\.dtype"),
    (float_written, "writing a value that is not an integer"),
    (changed_under_traced_if, "'a', assigned in the if at")])
def test_uses_that_depend_on_the_dtype_are_refused(f, use):
    with pytest.raises(jc.JitTypeError, match=use + r".* of an array whose dtype the data chooses "
                       r"\(float64 or int64.*\(at .*test_chosen_dtype_52.py:\d+\).*0.0 in place of 0"):
        jc.jit(f)(INPUTS[0])
