"""Round 15's new-user programs (tools/user_programs_round15.py) at their test sizes: each
one's first call (trace and compile, wall time) and its cached call against NumPy's, as thread
CPU time (the host is shared: wall time moves with the load), medians of rounds that alternate
jitcore and NumPy, with the range of the per-round ratios.

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_user_programs_round15.py [names]
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
from tools.user_programs_round15 import PROGRAMS  # noqa: E402


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _cpu(fn, args, calls: int) -> float:
    argsets = [_copies(args) for _ in range(calls)]  # copies made outside the timed loop
    start = time.thread_time()
    for a in argsets:
        fn(*a)
    return (time.thread_time() - start) / calls


def programs(names, rounds: int = 7, calls: int = 200) -> None:
    print(f"{'program':28s} {'compile s':>9s} {'jit us':>8s} {'numpy us':>9s} {'jit/numpy':>14s}")
    for name in names:
        fn, static, _, inputs = PROGRAMS[name]
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


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    programs(sys.argv[1:] or list(PROGRAMS))
