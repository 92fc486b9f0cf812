"""Session 52: compile cost of closure_writes. A traced ``for`` (an if/else) and a counted
``while`` calling helpers that read a closure table and write a closure log. Prints the first
compile (with the first call) and the median of six retraces of fresh closures (compile
cached), and the log against NumPy's. Run from a worktree: PYTHONPATH=. python
tools/bench_closure_writes52.py NAME"""

import statistics
import sys
import time

import numpy as np

import jitcore as jc


def make():
    def f(x):
        table = np.arange(1000.0)  # read by a helper: watched at each traced statement
        log = np.zeros(4, np.int64)

        def look(i):
            return table[i % 1000]

        def hit(k):
            log[k] += 1

        s = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0:
                s += look(i)
                hit(1)
            else:
                hit(2)
        j = 0
        while j < x.shape[0] and x[j] < 0.9:
            s += look(j)
            j += 1
        return s, log

    return f


x = np.random.default_rng(0).uniform(-1, 1, 200)
ts = []
for _ in range(7):
    f = make()
    t = time.perf_counter()
    r = jc.jit(f)(x)
    ts.append(time.perf_counter() - t)
name = sys.argv[1] if len(sys.argv) > 1 else ""
print(name, "first compile s", round(ts[0], 3), "retrace median s", round(statistics.median(ts[1:]), 4),
      r[1], "numpy", make()(x)[1])
