"""Where a softmax row's time goes: each of its passes jitted alone, and the row kernels whole.

    PYTHONPATH=. python tools/bench_row_parts.py [SHAPE] [DTYPE] [ROUNDS] [CALLS]
    PYTHONPATH=. python tools/bench_row_parts.py 64x1024 float64 40 20
    PYTHONPATH=. python tools/bench_row_parts.py --workloads [CALLS]

Thread CPU time of one thread (``time.thread_time``: the host is shared, wall time is not
this process's), ns an element, p25 and median of ROUNDS rounds of CALLS calls, every function
called in turn within a round. The parts: the row max, ``exp(x - max)`` stored, the row sum,
the division by the row's sum and, for comparison, the product by it; ``exp`` alone; softmax,
layernorm, ``tanh`` and GELU whole. A shape of 64x1024 float64 (1 MiB) is in Zen 4's L2: the
compute. Alternate trees (base, branch, branch, base) in separate processes for ratios, each
with ``JITCORE_CACHE=0``. ``--workloads``: softmax, layernorm (4096x1024), ``x / 3.7``
(4096x1024) and GELU (10**7) at the workloads suite's shapes, float32 and float64, ms a call
of one thread, p25 and median of CALLS calls (25) after two warm ones.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import jitcore as jc


def rowmax(x):
    return np.max(x, axis=1, keepdims=True)


def exp_minus(x, m):
    return np.exp(x - m)


def rowsum(e):
    return np.sum(e, axis=1, keepdims=True)


def divide(e, s):
    return e / s


def multiply(e, s):
    return e * s


def exp(x):
    return np.exp(x)


def softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def layernorm(x):
    mean = np.mean(x, axis=1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=1, keepdims=True)
    return centred / np.sqrt(var + 1e-5)


def tanh(x):
    return np.tanh(x)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def scale(x):
    return x / 3.7


def workloads(calls: int) -> None:
    shapes = {"softmax": (softmax, (4096, 1024)), "layernorm": (layernorm, (4096, 1024)),
              "x / 3.7": (scale, (4096, 1024)), "gelu": (gelu, (10_000_000,))}
    jc.config.num_threads = 1
    for name, (f, shape) in shapes.items():
        for dtype in ("float32", "float64"):
            x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
            fn = jc.jit(f)
            fn(x), fn(x)
            times = []
            for _ in range(calls):
                start = time.thread_time()
                fn(x)
                times.append(time.thread_time() - start)
            times.sort()
            print(f"{name} {dtype}: p25 {times[len(times) // 4] * 1e3:.3f} median "
                  f"{statistics.median(times) * 1e3:.3f} ms")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--workloads"]:
        workloads(int(argv[1]) if len(argv) > 1 else 25)
        return
    shape = tuple(int(s) for s in (argv[0] if argv else "64x1024").split("x"))
    dtype = np.dtype(argv[1] if len(argv) > 1 else "float64")
    rounds, calls = (int(argv[2]), int(argv[3])) if len(argv) > 3 else (40, 20)
    jc.config.num_threads = 1
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    m = x.max(1, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(1, keepdims=True)
    cases = {"row max": (rowmax, (x,)), "exp(x - max)": (exp_minus, (x, m)), "row sum": (rowsum, (e,)),
             "e / s": (divide, (e, s)), "e * s": (multiply, (e, s)), "exp": (exp, (x,)),
             "softmax": (softmax, (x,)), "layernorm": (layernorm, (x,)), "tanh": (tanh, (x,)),
             "gelu": (gelu, (x,))}
    jitted = {name: jc.jit(f) for name, (f, _) in cases.items()}
    for name, (_, args) in cases.items():
        jitted[name](*args)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (_, args) in cases.items():
            fn = jitted[name]
            start = time.thread_time_ns()
            for _ in range(calls):
                fn(*args)
            times[name].append((time.thread_time_ns() - start) / calls / x.size)
    for name, values in times.items():
        values.sort()
        print(f"{name:14s} {'x'.join(map(str, shape))} {dtype.name}: p25 {values[len(values) // 4]:.3f} "
              f"median {statistics.median(values):.3f} ns an element")


if __name__ == "__main__":
    main(sys.argv[1:])
