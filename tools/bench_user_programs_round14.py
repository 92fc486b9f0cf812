"""Round 14's new-user programs (tools/user_programs_round14.py) at their test
sizes: each one's first call (trace and compile) and its cached call against NumPy's, as thread
CPU time (the host is shared: wall time moves with the load), medians of rounds that alternate
jitcore and NumPy. A second table: a Monte Carlo step given a new ``np.random.Generator`` on
each call (``--generators``), which is what a jitcore before round 14 compiled anew each call.

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_user_programs_round14.py
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jitcore as jc  # noqa: E402
from tools.user_programs_round14 import PROGRAMS  # noqa: E402


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _cpu(fn, args, calls: int) -> float:
    argsets = [_copies(args) for _ in range(calls)]  # copies made outside the timed loop
    start = time.thread_time()
    for a in argsets:
        fn(*a)
    return (time.thread_time() - start) / calls


def programs(table=PROGRAMS, names=None, rounds: int = 7, calls: int = 200) -> None:
    """Each program of ``table`` (``names`` of it, default all): first call, then jitcore's and
    NumPy's cached calls taking turns, medians and the range of the per-round ratios."""
    print(f"{'program':28s} {'compile s':>9s} {'jit us':>8s} {'numpy us':>9s} {'jit/numpy':>14s}")
    for name in names or list(table):
        fn, static, _, inputs = table[name]
        args = inputs[0]
        jitted = jc.jit(fn, static_argnames=static) if static else jc.jit(fn)
        start = time.perf_counter()
        jitted(*_copies(args))
        compile_s = time.perf_counter() - start
        jitted(*_copies(args))  # the second call installs the native dispatcher
        ratios, mine, theirs = [], [], []
        for _ in range(rounds):
            a = _cpu(jitted, args, calls)
            b = _cpu(fn, args, calls)
            mine.append(a)
            theirs.append(b)
            ratios.append(a / b)
        ratios.sort()
        print(f"{name:28s} {compile_s:9.2f} {statistics.median(mine) * 1e6:8.1f} "
              f"{statistics.median(theirs) * 1e6:9.1f} {statistics.median(ratios):6.2f} "
              f"[{ratios[0]:.2f}-{ratios[-1]:.2f}]", flush=True)


def monte_carlo(rng, n):
    u = rng.random((n, 2))
    return 4.0 * np.mean(np.sum(u * u, axis=1) <= 1.0)


def generators(calls: int = 20) -> None:
    """Per call, each with a new generator: jitcore (the generator an argument; as a static one,
    the only way before round 14) and NumPy."""
    for label, jitted in (("argument", jc.jit(monte_carlo, static_argnames="n")),
                          ("static argument", jc.jit(monte_carlo, static_argnames=("rng", "n")))):
        try:
            jitted(np.random.default_rng(0), 1000)
        except jc.JitTypeError as e:
            print(f"{label:16s} refused: {str(e)[:80]}")
            continue
        start = time.perf_counter()
        for seed in range(calls):
            jitted(np.random.default_rng(seed + 1), 1000)
        per_call = (time.perf_counter() - start) / calls
        print(f"{label:16s} {per_call * 1e6:10.1f} us a call, each with a new generator")
    start = time.perf_counter()
    for seed in range(calls):
        monte_carlo(np.random.default_rng(seed + 1), 1000)
    print(f"{'NumPy':16s} {(time.perf_counter() - start) / calls * 1e6:10.1f} us a call")


if __name__ == "__main__":
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        generators() if "--generators" in sys.argv else programs()
