"""Loops whose counter or index is used after the loop, as users write them (session 37), shared
by their test (tests/jitcore/test_loop_exit_values.py) and their benchmark
(``tools/bench_user_loops.py --exits``). Each name maps to ``(function, arguments(n))``; every
program compiles its loop as a loop and is compared with plain Python/NumPy at a few lengths.
"""

from __future__ import annotations

import numpy as np


def while_counter_slice(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n - 3:
        s = s + x[i]
        i += 1
    return s + x[i:].sum()


def for_index_slice(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
    return s, x[:i].sum(), i


def for_index_arithmetic(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + x[i] * x[i + 1]
    return s * i


def nested_shapes(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s = s + a[i, j] * (i - j)
    return s, a[i, :j].sum()


def while_data_break(x):
    n = x.shape[0]
    i = 0
    while i < n:
        if x[i] < 0:
            break
        i += 1
    return i


def while_data_break_sum(x):
    n = x.shape[0]
    i = 0
    while i < n:
        if x[i] < 0:
            break
        i += 1
    return x[:i].sum(), x[i:].max()


def carry_rows(x):
    acc = np.zeros(x.shape[1])
    for k in range(x.shape[0]):
        acc = 0.9 * acc + x[k]
    return acc, k


def running_max(x):
    out = np.empty_like(x)
    prev = 0.0
    for i in range(len(x)):
        prev = max(prev, x[i])
        out[i] = prev
    return out, i


def zip_rows(a, b):
    s = 0.0
    for ra, rb in zip(a, b):
        s = s + (ra * rb).sum()
    return s, ra.sum() - rb.sum()


def enumerate_rows(a):
    out = np.zeros(a.shape[0])
    for k, row in enumerate(a):
        out[k] = row.max() - row.min()
    return out, out[:k].sum(), row.sum()


def select_step_slice(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if i % 3 == 0:
            s = s + x[i]
            i += 1
        else:
            i += 2
    return s, x[i - n:].sum(), np.zeros(i - n + 2)


def until_root_slice(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if i * i >= n:
            break
        s = s + x[i]
        i += 1
    return s, x[:i].sum(), x[i:2 * i]


def for_break_on_data(x):
    for i in range(x.shape[0]):
        if x[i] > 2.0:
            break
    return i, x[:i + 1].sum()


def for_break_on_index(x):
    s = 0.0
    for i in range(x.shape[0]):
        if i * i > x.shape[0]:
            break
        s = s + x[i]
    return s, x[:i], np.zeros(i)


def blocks_then_tail(x):
    n = x.shape[0]
    for i in range(0, n - 4, 4):
        x[i:i + 4] = x[i:i + 4] * 2.0
    return x[i + 4:].sum(), x


def counter_in_for(x):
    k = 0
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
        k += 3
    return s, x[: k // 3 - 1], k


def countdown_in_for(x):
    k = x.shape[0]
    s = 0.0
    for i in range(x.shape[0] // 3):
        s = s + x[i]
        k -= 3
    return s, x[k:].sum(), np.zeros(k)


def inner_index_after(a):
    j = 0
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s = s + a[i, j]
    return s, a[:, :j].sum()


def enumerate_zip(x, y):
    s = 0.0
    for k, (u, v) in enumerate(zip(x, y)):
        s = s + u * v * k
    return s, k, u - v


def stride_while(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        s = s + x[i]
        i += 3
    return s, i, x[i - 3:].sum()


def while_around_for(a):
    rows = a.shape[0]
    r = 0
    total = 0.0
    while r < rows:
        for c in range(a.shape[1]):
            total = total + a[r, c]
        r += 1
    return total, r + c, a[:, :c].sum()


def float_counter(y0):
    y = y0.copy()
    t = 0.0
    while t < 1.0:
        y = y - 0.01 * y * y
        t += 0.01
    return y * t, t


def reverse_range(x):
    s = 0.0
    for i in range(x.shape[0] - 1, -1, -1):
        s = 0.5 * s + x[i]
    return s, i, x[i:].sum()


def index_rebound(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
        i = i * 2  # rebinding the target: after the loop it holds 2 * (n - 1)
    return s, x[: i // 4].sum()


def _normal(n):
    return (np.random.default_rng(n).standard_normal(n),)


def _positive_then_negative(n):
    x = np.abs(_normal(n)[0]) + 0.1
    x[n // 2 + 3] = -1.0
    return (x,)


def _uniform(n):
    return (np.random.default_rng(n).random(n),)


def _rows(n):
    return (np.random.default_rng(n).standard_normal((n // 10, 7)),)


PROGRAMS = {
    "while i < n - 3, then x[i:]": (while_counter_slice, _normal),
    "for i in range(n), then x[:i] and i": (for_index_slice, _normal),
    "for i in range(n - 1), then s * i": (for_index_arithmetic, _normal),
    "nested for over a shape, then a[i, :j]": (nested_shapes, _rows),
    "while with a break on the data, return i": (while_data_break, _positive_then_negative),
    "while with a break on the data, x[:i].sum()": (while_data_break_sum, _positive_then_negative),
    "carry over rows, then k": (carry_rows, _rows),
    "running max over range(len(x)), then i": (running_max, _normal),
    "zip of two arrays' rows, then the last rows": (zip_rows, lambda n: (*_rows(n), *_rows(n + 1))),
    "enumerate rows, then out[:k] and row": (enumerate_rows, _rows),
    "while, step under an if on i, then x[i - n:]": (select_step_slice, _normal),
    "while, break on i * i >= n, then x[:i]": (until_root_slice, _normal),
    "for, break on the data, then x[:i + 1].sum()": (for_break_on_data, _normal),
    "for, break on the index, then x[:i]": (for_break_on_index, _normal),
    "blocks of 4, then the tail x[i + 4:]": (blocks_then_tail, _normal),
    "k += 3 in a for loop, then x[:k // 3 - 1]": (counter_in_for, _normal),
    "k -= 3 in a for loop, then x[k:] and np.zeros(k)": (countdown_in_for, _normal),
    "enumerate(zip(x, y)), then k": (enumerate_zip, lambda n: (*_normal(n), *_normal(n + 1))),
    "while i < n: i += 3, then x[i - 3:]": (stride_while, _normal),
    "while around a for, then r + c and a[:, :c]": (while_around_for, _rows),
    "while t < 1.0 (a float counter), then t": (float_counter, _uniform),
    "reversed range, then x[i:]": (reverse_range, _normal),
    "target rebound in the body, then x[:i // 4]": (index_rebound, _normal),
}
