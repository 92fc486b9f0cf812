"""Slice copies and transposes against NumPy (docs/performance.md, "Slice copies and
transposes (copies48)"): thread CPU time, one thread, medians; NumPy in the same process.

    PYTHONPATH=. python tools/bench_copies.py [NAME ...]   # the cases whose name contains NAME
"""
import sys
import time

import numpy as np

import jitcore as jc


def im2col(x):
    kh = kw = 3
    N, C, H, W = x.shape
    oh, ow = H - kh + 1, W - kw + 1
    cols = np.empty((N, C, kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j, :, :] = x[:, :, i:i + oh, j:j + ow]
    return cols.transpose(0, 4, 5, 1, 2, 3).reshape(N * oh * ow, -1)



def fill(x):
    N, C, H, W = x.shape
    cols = np.empty((N, C, 3, 3, H - 2, W - 2), dtype=x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, :, i, j, :, :] = x[:, :, i:i + H - 2, j:j + W - 2]
    return cols


def transpose6(c):
    N, C, kh, kw, oh, ow = c.shape
    return c.transpose(0, 4, 5, 1, 2, 3).reshape(N * oh * ow, -1)


def t2(a):
    return np.ascontiguousarray(a.T)


def t3(a):
    return np.ascontiguousarray(a.transpose(0, 2, 1))


def every_other(a):
    return np.ascontiguousarray(a[:, ::2])


def cpu_ms(f, n):
    times = []
    for _ in range(n):
        t = time.thread_time()
        f()
        times.append(time.thread_time() - t)
    return 1e3 * np.median(times)


def main(only):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)
    cases = [("im2col", im2col, x, 31), ("fill", fill, x, 31), ("tr6d", transpose6, fill(x), 31)]
    for dt in (np.float32, np.float64):
        for n in (1000, 4096):
            a = rng.standard_normal((n, n)).astype(dt)
            cases.append((f"T {n} {np.dtype(dt).name}", t2, a, 15 if n == 1000 else 5))
    cube = rng.standard_normal((64, 300, 200)).astype(np.float32)
    cases.append(("T3 (0,2,1) 64x300x200 f32", t3, cube, 15))
    cases.append(("x[:, ::2] 2000x2000 f64", every_other, rng.standard_normal((2000, 2000)), 15))
    for name, f, a, n in cases:
        if only and not any(o in name for o in only):
            continue
        jitted = jc.jit(f)
        assert np.array_equal(jitted(a), f(a))
        jit_ms = cpu_ms(lambda: jitted(a), n)  # noqa: B023 (called here, in this iteration)
        np_ms = cpu_ms(lambda: f(a), n)  # noqa: B023
        print(f"{name:28s} jit {jit_ms:.3f}  np {np_ms:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
