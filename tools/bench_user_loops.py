#!/usr/bin/env python3
"""Compile time of a new user's loop-shaped programs (docs/performance.md, "Short static loops
that end many kernels" and "Unrolled loops: one kernel for the copies"): a Newton iteration
with two sums per step over a static range, row loops of mean/sort/std, ``np.apply_along_axis``,
unrolled loops over rows ``x[i]`` and shifted windows, and (session 33) loops whose body slices
at the loop's index (``x[i:i + w]``, ``L[i, :i]``, ``a[k + 1:, k + 1:]``) or writes one element
of an array per step; with ``--sizes`` (session 34), each loop jitted once and called at three
lengths: its compiles and what each new length costs (session 35 added while loops on Python
ints, short loops over a shape and extents far from a size); with ``--exits`` (session 37),
loops whose counter or index is used after them (``loop_exit_programs.py``).

    PYTHONPATH=CHECKOUT python tools/bench_user_loops.py [--repeat R] [--sizes] [--forms] [--exits]

Each program is jitted afresh R times (the disk cache off) and called once; the table shows the
median compile (first call) in process CPU seconds, so that other processes' load counts less,
and a steady call in microseconds (median of 200). Run it with each checkout on PYTHONPATH, in
turn, to compare them.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import jitcore as jc


def irr_newton(cash, guess):
    r = guess
    t = np.arange(cash.shape[0])
    for _ in range(50):
        disc = (1 + r) ** -t
        npv = (cash * disc).sum()
        dnpv = (-t * cash * disc / (1 + r)).sum()
        r = r - npv / dnpv
    return r


def row_loop_stats(A):
    out = np.empty((A.shape[0], 3))
    for i in range(A.shape[0]):
        r = A[i]
        out[i, 0] = r.mean()
        out[i, 1] = np.sort(r)[r.shape[0] // 2]
        out[i, 2] = (r - r.mean()).std()
    return out


def apply_rows(A):
    return np.apply_along_axis(lambda r: np.percentile(r, [25, 75]), 1, A)


def loop_rows(A):
    out = np.empty((A.shape[0], 2))
    for i in range(A.shape[0]):
        out[i] = np.percentile(A[i], [25, 75])
    return out


def row_sin_sums(x):
    s = 0.0
    for i in range(10):
        s = s + np.sin(x[i]).sum()
    return s


def row_abs_max(x):
    s = 0.0
    for i in range(10):
        s = s + np.abs(x[i]).sum() * x[i].max()
    return s


def window_sums(v):
    s = 0.0
    for k in range(8):
        s = s + (v[k:k + 1000] * 2.0 + 1.0).sum()
    return s


def moving_mean(x):
    out = np.empty(x.shape[0] - 4)
    for i in range(x.shape[0] - 4):
        out[i] = x[i:i + 5].mean()
    return out


def floyd_warshall(d):
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def forward_substitution(L, b):
    x = np.zeros_like(b)
    for i in range(b.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def lu_no_pivoting(a):
    a = a.copy()
    for k in range(a.shape[0] - 1):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


def row_sums_by_element(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sin(x[i]).sum()  # array work in the body, one element written per step
    return out


ROWS = np.random.default_rng(1).random((40, 9))
BIG = np.random.default_rng(2).random((1000, 1000))
PROGRAMS = {
    "irr_newton, 50 steps": (irr_newton, (np.array([-100.0, 30, 40, 50]), 0.1)),
    "row loop mean/sort/std, 5 rows": (row_loop_stats, (np.random.default_rng(0).random((5, 7)),)),
    "row loop mean/sort/std, 12 rows": (row_loop_stats, (np.random.default_rng(0).random((12, 7)),)),
    "percentiles per row, for loop, 40 rows": (loop_rows, (ROWS,)),
    "percentiles per row, apply_along_axis, 40 rows": (apply_rows, (ROWS,)),
    "sum of sin(x[i]), 10 rows of 1000": (row_sin_sums, (BIG,)),
    "sum(abs(x[i])) * x[i].max(), 10 rows of 1000": (row_abs_max, (BIG,)),
    "sums of 8 shifted windows of 1000": (window_sums, (BIG[0],)),
    "moving mean x[i:i + 5], 300 points": (moving_mean, (BIG[1, :300],)),
    "Floyd-Warshall d[:, k:k + 1], 200 nodes": (floyd_warshall, (BIG[:200, :200] * 10,)),
    "forward substitution L[i, :i] @ x[:i], 300": (
        forward_substitution, (np.tril(BIG[:300, :300]) + 300 * np.eye(300), BIG[2, :300])),
    "LU without pivoting a[k + 1:, k + 1:], 80": (lu_no_pivoting, (BIG[:80, :80] + 80 * np.eye(80),)),
    "out[i] = sin(x[i]).sum(), 20000 rows of 8": (
        row_sums_by_element, (np.random.default_rng(3).random((20000, 8)),)),
}


def inner_sums(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(1, n - 1):
        out[i] = x[i - 1] + x[i + 1]
    return out


def pair_differences(x):
    out = np.zeros(x.shape[0] // 2)
    for i in range(x.shape[0] // 2):
        out[i] = x[2 * i] - x[2 * i + 1]
    return out


def centred_windows(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i - 1:i + 2].sum()  # clamped (or empty) at the first and last steps
    return out


def while_sum(x):
    n = x.shape[0]
    s = 0.0
    i = 0
    while i < n:
        s = s + x[i] * x[i]
        i += 1
    return s


def while_pairs(x):
    n = x.shape[0]
    out = np.zeros(n // 2)
    i = 0
    while i < n - 1:
        out[i // 2] = x[i] - x[i + 1]
        i += 2
    return out


def while_doubling(x):
    n = x.shape[0]
    s = 0.0
    i = 1
    while i < n:
        s = s + x[i]
        i *= 2
    return s


def blend_rows(x):
    s = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        s = s * 0.5 + x[i]
    return s


def running_sum(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc + x[i]
        out[i] = acc
    return out


def far_extents(x):
    n = x.shape[0]
    head = x[:n - 10] * 2.0
    out = np.empty(n - 10)
    out[:] = head + x[10:]
    return out


def thirds(x):
    n = x.shape[0]
    m = n // 3
    return x[:3 * m].reshape(3, -1).sum(axis=0) + np.zeros(m)


def stretched(x):
    n = x.shape[0]
    out = np.zeros(3 * n + 1)
    out[1::3] = x
    return out


# (session 36) While loops whose counter steps under an if, or that break: a traced ``while``
# from their first step (the counter carried), where before Python ran them, one body a step.
def while_select_step(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if i % 3 == 0:  # a condition on the counter: both steps, selected
            s = s + x[i]
            i += 1
        else:
            s = s - x[i]
            i += 2
    return s, i


def while_until_root(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if i * i >= n:  # a break on the counter alone
            break
        s = s + x[i]
        i += 1
    return s, i


def while_data_break(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if x[i] < -1.5:  # a break on the data
            break
        s = s + x[i]
        i += 1
    return s, i


def euler_until(y0):
    y = y0.copy()
    t = 0.0
    dt = 0.01
    while t < 1.0:  # a float counter: 100 steps, each a body before
        y = y - dt * y * y
        t += dt
    return y, t


def _vector(n):
    return (np.random.default_rng(n).random(n),)


# (session 34) The same function at three lengths: how many compiles, and what each new length
# costs. A loop's bounds and the arrays it builds follow the arguments' extents at run time.
SIZED = {
    "moving mean x[i:i + 5]": (moving_mean, _vector, (300, 451, 700)),
    "range(1, n - 1), out = np.zeros(n)": (inner_sums, _vector, (300, 451, 700)),
    "range(n // 2), x[2 * i] - x[2 * i + 1]": (pair_differences, _vector, (300, 451, 700)),
    "x[i - 1:i + 2] over range(len(x))": (centred_windows, _vector, (300, 451, 700)),
    "forward substitution L[i, :i] @ x[:i]": (
        forward_substitution, lambda n: (np.tril(BIG[:n, :n]) + n * np.eye(n), BIG[2, :n]), (100, 151, 200)),
    "Floyd-Warshall d[:, k:k + 1]": (floyd_warshall, lambda n: (BIG[:n, :n] * 10,), (100, 151, 200)),
    "out[i] = sin(x[i]).sum(), rows of 8": (
        row_sums_by_element, lambda n: (np.random.default_rng(3).random((n, 8)),), (5000, 7001, 12000)),
    # session 35: while loops on Python ints, short loops over a shape, extents far from a size
    "while i < n: s += x[i] ** 2; i += 1": (while_sum, _vector, (100, 137, 300)),
    "while i < n - 1: i += 2, out[i // 2]": (while_pairs, _vector, (100, 137, 300)),
    "while i < n: s += x[i]; i *= 2": (while_doubling, _vector, (100, 137, 300)),
    "s = s * 0.5 + x[i] over range(x.shape[0]), rows of 8": (
        blend_rows, lambda n: (np.random.default_rng(4).random((n, 8)),), (10, 11, 12)),
    "out[i] = running sum over range(x.shape[0])": (running_sum, _vector, (10, 11, 12)),
    "x[:n - 10] + x[10:] into np.empty(n - 10)": (far_extents, _vector, (300, 451, 700)),
    "n // 3, reshape(3, -1)": (thirds, _vector, (301, 451, 700)),
    "np.zeros(3 * n + 1)[1::3] = x": (stretched, _vector, (300, 451, 700)),
    "while i < n: if i % 3 == 0: i += 1 else: i += 2": (while_select_step, _vector, (100, 137, 300)),
    "while i < n: if i * i >= n: break": (while_until_root, _vector, (100, 137, 300)),
    "while i < n: if x[i] < -1.5: break": (while_data_break, lambda n: _normal(n), (100, 137, 300)),
    "while t < 1.0: y = y - dt * y * y; t += dt": (euler_until, _vector, (100, 137, 300)),
}


# (session 36) The loops and branches a NumPy user writes, each at three lengths: what it
# becomes (the traced program's scf.for / scf.while ops; none: Python unrolled it), its
# compiles, and a steady call against the same function run by Python.
def newton_sqrt(a):
    x = a.copy()
    err = 1.0
    while err > 1e-10:
        xn = 0.5 * (x + a / x)
        err = np.abs(xn - x).max()
        x = xn
    return x


def newton_scalar(c):
    x = 1.0
    it = 0
    while abs(x * x - c) > 1e-12 and it < 100:
        x = x - (x * x - c) / (2 * x)
        it += 1
    return x, it


def bisection(lo, hi):
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - mid - 2.0 > 0:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


def euler_exit(y0, dt):
    y = y0
    t = 0.0
    for _ in range(1000):
        y = y - dt * y * y
        t += dt
        if y < 0.01:
            break
    return y, t


def first_above(x, target):
    idx = -1
    for i in range(len(x)):
        if x[i] > target:
            idx = i
            break
    return idx


def scaled_copy(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 2.0 + 1.0
    return out


def row_norms(a):
    s = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s[i] += a[i, j] * a[i, j]
    return s


def data_step(x):
    n = x.shape[0]
    i = 0
    s = 0.0
    while i < n:
        if x[i] > 0:
            s += x[i]
            i += 1
        else:
            i += 2
    return s, i


def skip_negative(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s += x[i]
    return s


def first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < -1.5:
            return i
    return -1


def column_cumsum(a):
    out = a.copy()
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = out[i - 1, j] + a[i, j]
    return out


def row_first_above(a, t):
    first = np.full(a.shape[0], -1)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > t:
                first[i] = j
                break
    return first


def binary_search(x, t):
    lo, hi = 0, x.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if x[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


def countdown_odd(x):
    i = x.shape[0] - 1
    s = 0.0
    while i >= 0:
        if x[i] < -2:
            break
        if i % 2:
            s = s + x[i]
        i -= 1
    return s, i


def _normal(n):
    return (np.random.default_rng(n).standard_normal(n),)


def _rows(n):
    return (np.random.default_rng(n).random((n // 10, 12)),)


FORMS = {
    "Newton sqrt, while err > tol (arrays)": (newton_sqrt, lambda n: (_vector(n)[0] + 1.0,)),
    "Newton on a scalar, while ... and it < 100": (newton_scalar, lambda n: (np.float64(2.0 + n),)),
    "bisection, for with a break": (bisection, lambda n: (np.float64(1.0), np.float64(2.0 + n / 1000))),
    "Euler steps, for with an early exit": (euler_exit, lambda n: (np.float64(1.0), np.float64(1.0 / n))),
    "search: for i in range(len(x)) ... break": (first_above, lambda n: (np.abs(_normal(n)[0]), 2.5)),
    "out[i] = ... over range(len(x))": (scaled_copy, _normal),
    "nested loops over a 2-d shape": (row_norms, _rows),
    "nested loops, carried out[i - 1, j]": (column_cumsum, _rows),
    "nested search, inner break": (row_first_above, lambda n: (*_rows(n), 0.9)),
    "for ... continue on the data": (skip_negative, _normal),
    "early return in a loop": (first_negative, _normal),
    "while i < n: step in if/else on the data": (data_step, _normal),
    "while i < n: step in if/else on i": (while_select_step, _normal),
    "while i < n: break on i": (while_until_root, _normal),
    "while i < n: break on the data": (while_data_break, _normal),
    "while t < 1.0 (a float counter)": (euler_until, lambda n: (np.random.default_rng(n).random(n),)),
    "binary search, while lo < hi": (binary_search, lambda n: (np.sort(_normal(n)[0]), 0.3)),
    "countdown, if i % 2, break on the data": (countdown_odd, _normal),
}


FOR, WHILE = '"scf.for"', '"scf.while"'


def forms_table() -> None:
    print("| program | IR loops (for/while) | compiles at 100, 137, 300 | first call (CPU s) | "
          "call (us) | Python (us) |\n| --- | --- | --- | --- | --- | --- |")
    for name, (fn, make) in FORMS.items():
        f = jc.jit(fn)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.process_time()
            f(*make(100))
            first = time.process_time() - t
            f(*make(137))
            args = make(300)
            f(*args)
            text = f.lower(*args).as_text("traced")
            calls, plain = [], []
            for _ in range(200):
                t = time.perf_counter()
                f(*args)
                calls.append(time.perf_counter() - t)
            for _ in range(20):
                copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
                t = time.perf_counter()
                fn(*copies)
                plain.append(time.perf_counter() - t)
        loops = f"{text.count(FOR)}/{text.count(WHILE)}"
        print(f"| {name} | {loops} | {f.cache_info().compiles} | {first:.2f} | "
              f"{statistics.median(calls) * 1e6:.1f} | {statistics.median(plain) * 1e6:.1f} |")


def exits_table() -> None:
    """(session 37) Loops whose counter or index is used after them (``loop_exit_programs``):
    whether each compiles (the error's name where not), its compiles at three lengths, the first
    call, and a steady call against the same function run by Python."""
    from loop_exit_programs import PROGRAMS as EXITS

    print("| program | compiles at 100, 137, 300 | first call (CPU s) | call (us) | Python (us) |\n"
          "| --- | --- | --- | --- | --- |")
    for name, (fn, make) in EXITS.items():
        f = jc.jit(fn)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                t = time.process_time()
                f(*make(100))
                first = time.process_time() - t
                f(*make(137))
                args = make(300)
                f(*args)
            except Exception as e:  # noqa: BLE001  (a checkout without the feature)
                print(f"| {name} | {type(e).__name__} | | | |")
                continue
            calls, plain = [], []
            for _ in range(200):
                t = time.perf_counter()
                f(*args)
                calls.append(time.perf_counter() - t)
            for _ in range(20):
                copies = [a.copy() for a in args]
                t = time.perf_counter()
                fn(*copies)
                plain.append(time.perf_counter() - t)
        print(f"| {name} | {f.cache_info().compiles} | {first:.2f} | "
              f"{statistics.median(calls) * 1e6:.1f} | {statistics.median(plain) * 1e6:.1f} |")


def sized_table() -> None:
    print("| program | lengths | compiles | first call (CPU s) | next lengths (CPU s) |\n"
          "| --- | --- | --- | --- | --- |")
    for name, (fn, make, lengths) in SIZED.items():
        f = jc.jit(fn)
        costs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in lengths:
                fn_args = make(n)
                t = time.process_time()
                f(*fn_args)
                costs.append(time.process_time() - t)
        rest = ", ".join(f"{c:.3f}" for c in costs[1:])
        lengths_text = ", ".join(map(str, lengths))
        print(f"| {name} | {lengths_text} | {f.cache_info().compiles} | {costs[0]:.2f} | {rest} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", action="store_true", help="only the table of three lengths")
    parser.add_argument("--forms", action="store_true", help="only the table of loop forms")
    parser.add_argument("--exits", action="store_true",
                        help="only the table of loops whose counter is used after them")
    parser.add_argument("--only", default="", help="only the rows whose name has this text")
    options = parser.parse_args()
    jc.config.disk_cache = False
    print(f"jitcore from {jc.__file__}")
    if options.sizes:
        for name in [k for k in SIZED if options.only not in k]:
            del SIZED[name]
        sized_table()
        return
    if options.exits:
        exits_table()
        return
    if options.forms:
        for name in [k for k in FORMS if options.only not in k]:
            del FORMS[name]
        forms_table()
        return
    print("| program | compile (process CPU s) | call (us) |\n| --- | --- | --- |")
    for name, (fn, fn_args) in PROGRAMS.items():
        compiles = []
        for _ in range(1):
            f = jc.jit(fn)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the slow-compile warning
                t = time.process_time()
                try:
                    f(*fn_args)
                except Exception as e:  # noqa: BLE001  (a checkout without the feature)
                    compiles = None
                    print(f"| {name} | {type(e).__name__} | |")
                    break
                compiles.append(time.process_time() - t)
        if compiles is None:
            continue
        calls = []
        for _ in range(200):
            t = time.perf_counter()
            f(*fn_args)
            calls.append(time.perf_counter() - t)
        print(f"| {name} | {statistics.median(compiles):.2f} | {statistics.median(calls) * 1e6:.1f} |")


if __name__ == "__main__":
    main()
