"""Session 56: a running min of ints from np.inf (``min(best, x[i])``, 10^6 steps; its ints now
checked against 2**53) and the median of ``x`` without its largest (``np.concatenate`` at
``i = np.argmax(x)``, refused before), each against NumPy (Python for the loop) in one process.

    PYTHONPATH=. python tools/bench_refusals_56.py
"""

import statistics
import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")


def runmin(x):
    best = np.inf
    for i in range(len(x)):
        best = min(best, x[i])
    return best


def leave_max_out(x):
    i = np.argmax(x)
    return np.median(np.concatenate([x[:i], x[i + 1 :]]))


def median_ms(fn, arg, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    x = np.random.default_rng(0).integers(-(10**9), 10**9, 10**6)
    y = np.random.default_rng(1).random(10**6)
    print(f"({jc.__file__})")
    for name, fn, arg, repeat, python_repeat in (
        ("runmin", runmin, x, 15, 3),
        ("leave_max_out", leave_max_out, y, 9, 9),
    ):
        try:
            jitted = jc.jit(fn)
            jitted(arg)
            print(f"{name} jit {median_ms(jitted, arg, repeat):.2f} ms")
        except jc.errors.JitcoreError as e:
            print(f"{name} jit refused ({type(e).__name__})")
        print(f"{name} numpy {median_ms(fn, arg, python_repeat):.2f} ms")


if __name__ == "__main__":
    main()
