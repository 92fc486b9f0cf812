"""Loop shapes new users write, timed against NumPy (session 44): a loop appending to a list,
a breadth-first search over a grid with a queue array, rows written under two nested traced
ifs, and the textbook Mandelbrot ``z[alive] = z[alive] ** 2 + c[alive]``; and (session 45)
``while`` loops on Python int counters: frames of a signal, two counters walking opposite ways,
a pairwise loop stepping by 2; a compressor that keeps its gain trace in a list next to
``y[n] = v``; a short loop over frames of an rfft (~180 elementwise ops a step).

    PYTHONPATH=. python tools/bench_loop_shapes.py          # medians, ratios, first-call times
    PYTHONPATH=. python tools/bench_loop_shapes.py while    # the rows whose names hold 'while'

Each row: the first jitted call (trace and compile), then the median of repeated calls of the
jitted function and of the plain NumPy function, in one run on the same machine.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import jitcore as jc


def appended(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] ** 2 + 1)
    return np.array(out)


def breadth_first(walls):
    H, W = walls.shape
    seen = np.zeros(walls.shape, dtype=np.int64)
    q = np.zeros((H * W, 2), dtype=np.int64)
    seen[0, 0] = 1
    h, t = 0, 1
    while h < t:
        cy, cx = q[h]
        h += 1
        for dy, dx in ((1, 0), (0, 1)):
            ny, nx = cy + dy, cx + dx
            if ny < H and nx < W:
                # read, then written: one scalar kernel reads seen before it writes it
                if walls[ny, nx] == 0 and seen[ny, nx] == 0:
                    seen[ny, nx] = 1
                    q[t, 0] = ny
                    q[t, 1] = nx
                    t += 1
    return t, seen


def nested_rows(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i, 0] > 0:
            if x[i, 1] < 0.5:  # an if in the if's arm: the row still written where out lies
                out[i, :] = x[i] * 2
    return out


def mandelbrot(c):
    z = np.zeros_like(c)
    count = np.zeros(c.shape, np.int64)
    for _ in range(50):
        alive = np.abs(z) <= 2
        z[alive] = z[alive] ** 2 + c[alive]
        count += alive
    return count


def frames(x, N, hop):
    out = np.zeros((len(x) - N) // hop + 1)
    start = 0
    k = 0
    while start + N <= len(x):
        out[k] = np.sum(x[start:start + N] ** 2)
        start += hop
        k += 1
    return out, start, k


def reversed_pairs(x):
    out = np.zeros_like(x)
    i = 0
    j = len(x) - 1
    while i < len(x):  # a second counter, stepped down: x[j] is a read at a known index
        out[i] = x[i] - x[j]
        i += 1
        j -= 1
    return out, i, j


def pairwise(x):
    acc = 0.0
    i = 0
    while i + 1 < len(x):
        acc = acc + x[i] * x[i + 1]
        i += 2
    return acc, i


def compressor(x, thresh_db, ratio):
    a_att, a_rel = np.exp(-1 / 40.0), np.exp(-1 / 400.0)
    gain_db = 0.0
    y = np.zeros_like(x)
    gains = []
    for n in range(len(x)):
        level = 20 * np.log10(max(abs(x[n]), 1e-9))
        over = level - thresh_db
        target = -over * (1 - 1 / ratio) if over > 0 else 0.0
        coef = a_att if target < gain_db else a_rel
        gain_db = coef * gain_db + (1 - coef) * target
        y[n] = x[n] * 10 ** (gain_db / 20)  # an array written in place next to the append
        gains.append(gain_db)
    return y, np.array(gains)


def spectrum_sum(x):  # (7 to 63 frames: unrolled, as a short loop, before session 45)
    acc = np.zeros(129)
    for i in range((len(x) - 256) // 128 + 1):
        acc += np.abs(np.fft.rfft(x[i * 128:i * 128 + 256])) ** 2
    return acc


def _median(fn, args, repeat) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    walls = (rng.random((200, 200)) < 0.2).astype(np.int64)
    walls[:2, :2] = 0
    re, im = np.meshgrid(np.linspace(-2, 1, 600), np.linspace(-1.2, 1.2, 400))
    cases = [
        ("while frames, start += hop, 4095 steps", frames, (rng.standard_normal(8192), 4, 2), 7),
        ("while, two counters, 4000 steps", reversed_pairs, (rng.standard_normal(4000),), 7),
        ("while i + 1 < n, i += 2, 4000 steps", pairwise, (rng.standard_normal(8000),), 7),
        ("compressor, append next to y[n] = v, 1024", compressor, (rng.standard_normal(1024), -12.0, 4.0), 7),
        ("rfft frames, acc +=, 31 frames", spectrum_sum, (rng.standard_normal(4096),), 7),
        ("list.append loop, 5000 steps", appended, (np.linspace(0, 1, 5000),), 7),
        ("BFS with a queue array, 200x200", breadth_first, (walls,), 5),
        ("rows under two nested ifs, 3000x64", nested_rows, (rng.standard_normal((3000, 64)),), 7),
        ("Mandelbrot z[alive]**2, 600x400, 50 steps", mandelbrot, (re + 1j * im,), 3),
    ]
    print(f"{'workload':44} {'first call':>10} {'jit ms':>9} {'NumPy ms':>9} {'NumPy/jit':>9}")
    only = sys.argv[1:]  # words of the rows to run (all by default)
    for name, fn, args, repeat in cases:
        if only and not any(w in name for w in only):
            continue
        jitted = jc.jit(fn, static_argnums=(1, 2) if fn is frames else ())
        t = time.perf_counter()
        got = jitted(*args)
        first = time.perf_counter() - t
        for g, w in zip(*((r if isinstance(r, tuple) else (r,)) for r in (got, fn(*args)))):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)  # (log10 and ** of jitcore's own)
        tj, tn = _median(jitted, args, repeat), _median(fn, args, max(2, repeat // 2))
        print(f"{name:44} {first:9.2f}s {tj * 1e3:9.2f} {tn * 1e3:9.2f} {tn / tj:8.1f}x")


if __name__ == "__main__":
    main()
