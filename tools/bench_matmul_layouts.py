#!/usr/bin/env python
"""Square matrix products in every layout, and matrix-vector products, jitcore against NumPy in
the same process (issue 10: at least 0.9x NumPy from 64^2 to 2048^2, every layout).

    OPENBLAS_NUM_THREADS=1 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_matmul_layouts.py \\
        [--sizes 64,128,256,512,1000,1024,2048] [--dtypes float32,float64] [--json out.json]

Each row is checked against float64 (within ``n * eps``), then timed: about 0.3 s of calls per
implementation (5 to 201 samples), jitcore and NumPy in turns, each sample after an untimed call;
short calls are timed as a loop of about 0.2 ms. With ``JITCORE_NUM_THREADS=1`` the clock is this
thread's CPU time (steady on a shared host), otherwise the wall clock. Prints medians in ms and
NumPy's over jitcore's (above 1: jitcore is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import jitcore as jc

FORMS = {
    "a@b": lambda a, b: a @ b,
    "a.T@b": lambda a, b: a.T @ b,
    "a@b.T": lambda a, b: a @ b.T,
    "a.T@b.T": lambda a, b: a.T @ b.T,
    "A@v": lambda a, v: a @ v,
    "A.T@v": lambda a, v: a.T @ v,
}


def median_ms(samples: list[float]) -> float:
    return float(np.median(samples)) * 1e3


def time_pair(jitted, fn, a, b, clock) -> tuple[float, float]:
    """Medians (ms) of jitcore's and NumPy's calls, in turns, the first of each turn alternating."""
    start = time.perf_counter()
    fn(a, b)
    estimate = max(time.perf_counter() - start, 1e-7)
    rounds = int(min(201, max(5, 0.3 / estimate)))
    inner = int(max(1, 2e-4 / estimate))
    samples = {"jc": [], "np": []}
    pair = (("jc", jitted), ("np", fn))
    for r in range(rounds):
        for name, g in pair if r % 2 == 0 else pair[::-1]:
            g(a, b)
            start = clock()
            for _ in range(inner):
                g(a, b)
            samples[name].append((clock() - start) / inner)
    return median_ms(samples["jc"]), median_ms(samples["np"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512,1000,1024,2048")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--forms", default=",".join(FORMS))
    parser.add_argument("--json", default="", help="write the rows here too")
    args = parser.parse_args()
    clock = time.thread_time if os.environ.get("JITCORE_NUM_THREADS") == "1" else time.perf_counter
    rng = np.random.default_rng(0)
    rows = []
    for dtype in args.dtypes.split(","):
        for n in map(int, args.sizes.split(",")):
            for form in args.forms.split(","):
                fn = FORMS[form]
                a = rng.standard_normal((n, n)).astype(dtype)
                b = rng.standard_normal((n,) if form.endswith("v") else (n, n)).astype(dtype)
                jitted = jc.jit(fn, cache=False)
                want = fn(a.astype(np.float64), b.astype(np.float64))
                error = np.abs(jitted(a, b) - want).max() / np.abs(want).max()
                assert error < n * np.finfo(dtype).eps, (form, n, dtype, error)
                jc_ms, np_ms = time_pair(jitted, fn, a, b, clock)
                rows.append({"form": form, "dtype": dtype, "n": n, "jc": jc_ms, "np": np_ms})
                print(
                    f"{form:8} {dtype:8} {n:5} jc {jc_ms:9.4f} np {np_ms:9.4f} np/jc {np_ms / jc_ms:5.2f}",
                    flush=True,
                )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out)


if __name__ == "__main__":
    main()
