#!/usr/bin/env python
"""``np.sort`` of long float lanes on 1 and 2 threads against NumPy's (one thread), the numbers
of docs/performance.md's "Sorts on all cores (sort51)".

    PYTHONPATH=. python tools/bench_sort_threads.py [--sizes 10000,100000] [--repeat R]
        [--dtypes float64,float32] [--kinds uniform,normal,sorted,reversed,few] [--threads 1,2]

Each column is the median (and the least) over R rounds of the wall time of one call
(``jc.config.num_threads`` as given), NumPy's and jitcore's alternating within each round. Run it in two
trees (base and branch) alternately to compare them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc


def data(kind: str, n: int, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = {
        "uniform": lambda: rng.random(n),
        "normal": lambda: rng.standard_normal(n),
        "sorted": lambda: np.sort(rng.random(n)),
        "reversed": lambda: np.sort(rng.random(n))[::-1].copy(),
        "few": lambda: rng.integers(0, 10, n).astype(float),
    }[kind]()
    return x.astype(dtype)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000,10000000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--kinds", default="uniform,normal,sorted,reversed,few")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--op", default="sort", choices=("sort", "argsort"))
    args = parser.parse_args()
    op = getattr(np, args.op)
    f = jc.jit(lambda a: op(a), cache=False)
    for kind in args.kinds.split(","):
        for dtype in args.dtypes.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                x = data(kind, n, dtype)
                expected = op(x, kind="stable")
                assert np.array_equal(f(x).view(np.uint8), expected.view(np.uint8))
                line = f"{args.op} {kind:9} {dtype:8} {n:>9}"
                for threads in (int(t) for t in args.threads.split(",")):
                    times = {"NumPy": [], "jc": []}
                    with jc.config.using(num_threads=threads):
                        f(x)
                        for _ in range(args.repeat):
                            for name, fn in (("NumPy", op), ("jc", f)):
                                t = time.perf_counter()
                                fn(x)
                                times[name].append(time.perf_counter() - t)
                    ms = {k: np.median(v) * 1e3 for k, v in times.items()}
                    low = min(times["jc"]) * 1e3
                    line += (f"  | {threads}t jc {ms['jc']:8.3f} (min {low:8.3f}) np {ms['NumPy']:8.3f}"
                             f" x{ms['NumPy'] / ms['jc']:.2f}")
                print(line, flush=True)


if __name__ == "__main__":
    main()
