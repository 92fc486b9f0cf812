"""Sums of one float32 1000x1000 matrix seen through different layouts: thread CPU time per call
(median of 7 runs of 5 calls) in jitcore and in NumPy, for docs/performance.md "Reductions in
the logical order" and "Strided sums".

    JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_layout_sums.py
"""

from __future__ import annotations

import time

import numpy as np

import jitcore


def relayout(x: np.ndarray, kind: str) -> np.ndarray:
    """The values of ``x`` seen through the layout ``kind`` (tools import no test module)."""
    if kind in ("C", "F"):
        return np.array(x, order=kind)
    if kind == "reversed":
        return np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    big = np.zeros((2 * x.shape[0], 2 * x.shape[1]), x.dtype)  # "strided": every other element
    big[::2, ::2] = x
    return big[::2, ::2]


def main() -> None:
    x = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
    cases = {
        "C a.sum()": (lambda a: a.sum(), "C"),
        "F a.sum()": (lambda a: a.sum(), "F"),
        "strided a.sum()": (lambda a: a.sum(), "strided"),
        "reversed a.sum()": (lambda a: a.sum(), "reversed"),
        "C (a.T * 2).sum()": (lambda a: (a.T * 2).sum(), "C"),
        "F (a * 2).sum(axis=0)": (lambda a: (a * 2).sum(axis=0), "F"),
        "F (a * 2).sum(axis=1)": (lambda a: (a * 2).sum(axis=1), "F"),
        "strided (a * 2).sum()": (lambda a: (a * 2).sum(), "strided"),
        "strided a.sum(axis=1)": (lambda a: a.sum(axis=1), "strided"),
        "strided exp(a).sum()": (lambda a: np.exp(a).sum(), "strided"),
    }
    print(f"{'case':24s} {'jitcore':>11s} {'NumPy':>11s}  NumPy/jitcore")
    for name, (fn, layout) in cases.items():
        a = relayout(x, layout)
        jitted = jitcore.jit(fn)
        jitted(a)
        ours, numpys = per_call(jitted, a), per_call(fn, a)
        print(f"{name:24s} {ours:8.3f} ms {numpys:8.3f} ms  {numpys / ours:5.2f}x")


def per_call(fn, a: np.ndarray) -> float:
    """Thread CPU ms per call: the median of 7 runs of 5 calls."""
    times = []
    for _ in range(7):
        start = time.thread_time()
        for _ in range(5):
            fn(a)
        times.append((time.thread_time() - start) / 5)
    return float(np.median(times)) * 1e3


if __name__ == "__main__":
    main()
