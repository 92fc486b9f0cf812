"""Round 16's new-user programs (tools/user_programs_round16.py) at their test sizes: each
one's first call (trace and compile, wall time) and its cached call against NumPy's, as thread
CPU time (the host is shared: wall time moves with the load), medians of rounds that alternate
jitcore and NumPy, with the range of the per-round ratios. ``--sorts``: complex sort and stable
argsort at 8, 1000 and 1e5 elements; ``--calls``: what a nested or repeated result costs a call.

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_user_programs_round16.py [names]
    JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_user_programs_round16.py --sorts --calls
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
from tools.bench_user_programs_round14 import programs  # noqa: E402
from tools.user_programs_round16 import PROGRAMS  # noqa: E402


def _alternating(jitted, fn, args, calls: int, rounds: int = 5) -> tuple[float, float]:
    """Median thread CPU time per call (us) of ``jitted`` and ``fn``, taking turns."""
    mine, theirs = [], []
    for _ in range(rounds):
        start = time.thread_time()
        for _ in range(calls):
            jitted(*args)
        middle = time.thread_time()
        for _ in range(calls):
            fn(*args)
        mine.append((middle - start) / calls * 1e6)
        theirs.append((time.thread_time() - middle) / calls * 1e6)
    return statistics.median(mine), statistics.median(theirs)


def complex_sorts() -> None:
    rng = np.random.default_rng(0)
    for n in (8, 1000, 100_000):
        z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        for name, fn in (("sort", np.sort), ("stable argsort", lambda z: np.argsort(z, kind="stable"))):
            jitted = jc.jit(fn)
            jitted(z)
            mine, theirs = _alternating(jitted, fn, (z,), max(3, 20000 // n))
            print(f"complex {name:15s} n={n:<7d} jit {mine:9.1f} us  numpy {theirs:9.1f} us  "
                  f"{mine / theirs:5.2f}x")


def call_structures() -> None:
    a, b = np.array([7, -7, 7, -7, 0, 5]), np.array([2, 2, -2, -2, 3, -1])
    for label, fn in (
        ("(a + b, a - b, a * b)", lambda a, b: (a + b, a - b, a * b)),
        ("(a + b, (a - b, a * b))", lambda a, b: (a + b, (a - b, a * b))),
        ("(a // b, np.divmod(a, b))", lambda a, b: (a // b, np.divmod(a, b))),
    ):
        jitted = jc.jit(fn)
        jitted(a, b)
        jitted(a, b)
        mine, theirs = _alternating(jitted, fn, (a, b), 300)
        print(f"{label:28s} jit {mine:6.1f} us  numpy {theirs:6.1f} us")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    flags = {"--sorts", "--calls"} & set(sys.argv[1:])
    if "--sorts" in flags:
        complex_sorts()
    if "--calls" in flags:
        call_structures()
    if not flags:
        programs(PROGRAMS, sys.argv[1:])
