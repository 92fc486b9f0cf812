"""Reductions of strided, transposed and reversed views of a 4096x4096 buffer, in jitcore and
NumPy: thread CPU ms per call (median of 9 runs of 5 calls), the first call's CPU, for
docs/performance.md "Strided reductions". ``A ...`` cases pass the view as the argument
(strides known only at run time); the others take the slice inside the function.

    JITCORE_NUM_THREADS=1 JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_strided_reductions.py [CASE ...]
"""

from __future__ import annotations

import sys
import time

import numpy as np

import jitcore


def stride_2(x: np.ndarray) -> np.ndarray:
    return x[::2, ::2]


CASES = {  # name: (function, view of the buffer passed as its argument)
    "A s.sum(1)": (lambda a: a.sum(axis=1), stride_2),
    "A s.mean(1)": (lambda a: a.mean(axis=1), stride_2),
    "A s.max(1)": (lambda a: a.max(axis=1), stride_2),
    "A s.sum(0)": (lambda a: a.sum(axis=0), stride_2),
    "A T.sum(1)": (lambda a: a.sum(axis=1), lambda x: x.T),
    "A r.max(1)": (lambda a: a.max(axis=1), lambda x: x[:, ::-1]),
    "A s3.argmax(0)": (lambda a: a.argmax(axis=0), lambda x: x[::3]),
    "s.sum(1)": (lambda a: a[::2, ::2].sum(axis=1), None),
    "s.mean(1)": (lambda a: a[::2, ::2].mean(axis=1), None),
    "s.max(1)": (lambda a: a[::2, ::2].max(axis=1), None),
    "s.sum(0)": (lambda a: a[::2, ::2].sum(axis=0), None),
    "T.sum(1)": (lambda a: a.T.sum(axis=1), None),
    "r.max(1)": (lambda a: a[:, ::-1].max(axis=1), None),
    "s3.argmax(0)": (lambda a: a[::3].argmax(axis=0), None),
}


def per_call(fn, a) -> float:
    """Thread CPU ms per call: the median of 9 runs of 5 calls."""
    times = []
    for _ in range(9):
        start = time.thread_time()
        for _ in range(5):
            fn(a)
        times.append((time.thread_time() - start) / 5)
    return float(np.median(times)) * 1e3


def main(names: list[str]) -> None:
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((4096, 4096)).astype(dtype)
        for name, (fn, view) in CASES.items():
            if names and name not in names:
                continue
            a = x if view is None else view(x)
            jitted = jitcore.jit(fn)
            start = time.process_time()
            jitted(a)
            first = (time.process_time() - start) * 1e3
            ours, numpys = per_call(jitted, a), per_call(fn, a)
            print(f"{np.dtype(dtype).name:8s} {name:15s} jitcore {ours:8.3f} ms  NumPy {numpys:8.3f} ms  "
                  f"NumPy/jitcore {numpys / ours:5.2f}x  first call {first:6.0f} ms", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
