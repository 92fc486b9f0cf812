"""Session 54's forecasting loops: first call (CPU of the process, disk cache off), second call
and run time against NumPy's, CPU time so that the busy host's load counts less.

    PYTHONPATH=. python tools/bench_forecast_loops54.py hw [N]   # Holt-Winters, list state
    PYTHONPATH=. python tools/bench_forecast_loops54.py med      # rolling median, 2e4 x 31
"""

import os
import sys
import time
import warnings

os.environ["JITCORE_CACHE"] = "0"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import jitcore  # noqa: E402


def hw_add(y, m, alpha, beta, gamma, h):
    """The user's additive Holt-Winters, its seasonal state a list read back at ``t - m`` (as in
    tests/jitcore/test_loops_54.py: a tool imports no test module)."""
    n = len(y)
    level = y[:m].mean()
    b = (y[m:2 * m].mean() - y[:m].mean()) / m
    s = list(y[:m] - level)
    fit = np.empty(n)
    for t in range(n):
        st = s[t % m] if t < m else s[t - m]
        fit[t] = level + b + st
        lp = level
        level = alpha * (y[t] - st) + (1 - alpha) * (level + b)
        b = beta * (level - lp) + (1 - beta) * b
        s.append(gamma * (y[t] - level) + (1 - gamma) * st)
    fc = np.array([level + (k + 1) * b + s[n - m + (k % m)] for k in range(h)])
    return fit, fc, len(s), s[-1], s[0]


warnings.simplefilter("ignore")


def med(x, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(w - 1, n):
        out[i] = np.median(x[i - w + 1:i + 1])
    return out


which = sys.argv[1]
if which == "hw":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    y = np.random.default_rng(0).normal(size=n).cumsum()
    args, f = (y, 12, 0.3, 0.05, 0.2, 24), hw_add
else:
    args, f = (np.random.default_rng(0).normal(size=20000).cumsum(), 31), med
jf = jitcore.jit(f, cache=False)


def cpu(fn) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


first, second = cpu(jf), cpu(jf)
run, numpy = min(cpu(jf) for _ in range(3)), min(cpu(f) for _ in range(3))
print(f"{which}: first call {first:.2f} s CPU, second {second:.2f} s, run {run * 1e3:.2f} ms, "
      f"numpy {numpy * 1e3:.2f} ms, load {os.getloadavg()[0]:.1f}")
