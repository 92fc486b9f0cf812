"""math.erf, erfc, gamma and lgamma of an array under jit (``np.vectorize(math.f)``) against
scipy.special (when installed) and NumPy's own ``np.vectorize(math.f)``, in one process
(docs/performance.md, newuser35). Medians of repeated calls on 1e6 elements; run with
``JITCORE_NUM_THREADS=1 JITCORE_CACHE=0`` for one thread and a fresh compile.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

import jitcore as jc
from jitcore.errors import CompileTimeWarning

CASES = {"erf": (math.erf, "erf", (-4, 4)), "erfc": (math.erfc, "erfc", (-2, 10)),
         "gamma": (math.gamma, "gamma", (0.1, 30)), "lgamma": (math.lgamma, "gammaln", (0.1, 100))}


def median_ms(f, x, repeats: int = 7) -> float:
    f(x)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def vectorized(fn, dtype):
    def apply(v):
        return np.vectorize(fn, otypes=[dtype])(v)
    return apply


def main(n: int = 1_000_000) -> None:
    try:
        import scipy.special as special
    except ImportError:
        special = None
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore", CompileTimeWarning)
    print(f"{'function':8s} {'dtype':7s} {'jitcore ms':>10s} {'scipy ms':>9s} {'np.vectorize ms':>15s}")
    for name, (fn, scipy_name, (lo, hi)) in CASES.items():
        for dtype in (np.float64, np.float32):
            x = rng.uniform(lo, hi, n).astype(dtype)
            jitted = median_ms(jc.jit(vectorized(fn, dtype)), x)
            theirs = median_ms(getattr(special, scipy_name), x) if special else float("nan")
            # NumPy's loop calls math per element: a tenth of the elements, times ten
            loop = median_ms(vectorized(fn, dtype), x[: n // 10], 3) * 10
            print(f"{name:8s} {np.dtype(dtype).name:7s} {jitted:10.2f} {theirs:9.2f} {loop:15.1f}")


if __name__ == "__main__":
    main()
