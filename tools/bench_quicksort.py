#!/usr/bin/env python
"""``np.sort`` of long float lanes: jitcore's vector quicksort (``codegen/cpu/sort_quick.py``),
jitcore's radix path, and NumPy's sort, the numbers of docs/performance.md's "Float sorts by
vector partitions (sort49)".

    PYTHONPATH=. python tools/bench_quicksort.py [--sizes 10000,100000] [--repeat R]
                                                 [--dtypes float64,float32] [--kinds uniform,...]

Each column is the median over R rounds of the calling thread's CPU time (one thread:
``jc.config.num_threads = 1``), the three sorts run in turn within each round. "quick" forces
the quicksort at every length, "radix" turns it off, so both are measured whatever
``QUICK_LENGTHS`` chooses.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import sort_quick


def data(kind: str, n: int, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = {
        "uniform": lambda: rng.random(n),
        "normal": lambda: rng.standard_normal(n),
        "sorted": lambda: np.sort(rng.random(n)),
        "reversed": lambda: np.sort(rng.random(n))[::-1].copy(),
        "equal": lambda: np.full(n, 1.5),
        "organ": lambda: np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]),
        "few": lambda: rng.integers(0, 10, n).astype(float),
        "special": lambda: rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0], n),
    }[kind]()
    return x.astype(dtype)


def compiled(x, lengths):
    saved = dict(sort_quick.QUICK_LENGTHS)
    sort_quick.QUICK_LENGTHS.update(lengths)
    try:
        f = jc.jit(lambda a: np.sort(a), cache=False)
        f(x)
    finally:
        sort_quick.QUICK_LENGTHS.update(saved)
    return f


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--kinds", default="uniform,normal")
    args = parser.parse_args()
    for kind in args.kinds.split(","):
        for dtype in args.dtypes.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                x = data(kind, n, dtype)
                every, none = ((0, 1 << 62),), ()
                runs = {"quick": compiled(x, {32: every, 64: every}),
                        "radix": compiled(x, {32: none, 64: none}), "NumPy": np.sort}
                expected = np.sort(x, kind="stable")
                for name, fn in runs.items():
                    same = np.array_equal(fn(x).view(np.uint8), expected.view(np.uint8))
                    assert same or name == "NumPy", name
                cpu = {name: [] for name in runs}
                with jc.config.using(num_threads=1):
                    for _ in range(args.repeat):
                        for name, fn in runs.items():
                            c = time.thread_time()
                            fn(x)
                            cpu[name].append(time.thread_time() - c)
                ms = {name: np.median(t) * 1e3 for name, t in cpu.items()}
                ratios = "  ".join(f"NumPy/{k} {ms['NumPy'] / ms[k]:.2f}" for k in ("quick", "radix"))
                print(f"{kind:9} {dtype:8} {n:>8}  " + "  ".join(f"{k} {v:8.3f}" for k, v in ms.items())
                      + "  " + ratios, flush=True)


if __name__ == "__main__":
    main()
