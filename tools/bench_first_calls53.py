#!/usr/bin/env python3
"""First calls of two user programs (session 53): process CPU of each first call, disk cache
off, the result checked against NumPy.

    PYTHONPATH=. python tools/bench_first_calls53.py [panjer SMAX...] [euler]

``panjer SMAX``: the Panjer recursion of the actuarial user (t52 u3, S3), a Python loop of SMAX
steps that runs unrolled (``np.arange``'s length needs the step), each step a sum of at most
10 products. ``euler``: Bunge angles to 10^6 rotation matrices filled component by component
(t52 u2, S2); its first call less a later call's CPU is the compile. Run it in a base tree and
a branch tree alternately: the numbers are thread-count and load dependent.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jitcore as jc  # noqa: E402


def panjer_poisson(lam, f, smax):
    g = np.zeros(smax + 1)
    g[0] = np.exp(lam * (f[0] - 1))
    m = f.size - 1
    for s in range(1, smax + 1):
        j = np.arange(1, min(s, m) + 1)
        g[s] = lam / s * np.sum(j * f[j] * g[s - j])
    return g


def euler_to_r(phi1, big_phi, phi2):
    c1, s1 = np.cos(phi1), np.sin(phi1)
    c, s = np.cos(big_phi), np.sin(big_phi)
    c2, s2 = np.cos(phi2), np.sin(phi2)
    r = np.empty(phi1.shape + (3, 3), dtype=np.result_type(phi1, 1.0))
    r[..., 0, 0] = c1 * c2 - s1 * s2 * c
    r[..., 0, 1] = s1 * c2 + c1 * s2 * c
    r[..., 0, 2] = s2 * s
    r[..., 1, 0] = -c1 * s2 - s1 * c2 * c
    r[..., 1, 1] = -s1 * s2 + c1 * c2 * c
    r[..., 1, 2] = c2 * s
    r[..., 2, 0] = s1 * s
    r[..., 2, 1] = -c1 * s
    r[..., 2, 2] = c
    return r


def first_call(fn, *args) -> tuple[float, object]:
    start = time.process_time()
    result = fn(*args)
    return time.process_time() - start, result


def main(argv: list[str]) -> None:
    warnings.simplefilter("ignore")  # the compile-time warning: it is what is measured
    args = argv or ["panjer", "30", "120", "euler"]
    i = 0
    while i < len(args):
        if args[i] == "panjer":
            i += 1
            while i < len(args) and args[i].isdigit():
                smax = int(args[i])
                f = np.r_[0.0, np.full(10, 0.1)]
                cpu, got = first_call(jc.jit(panjer_poisson, cache=False), 3.0, f, smax)
                assert np.allclose(got, panjer_poisson(3.0, f, smax), rtol=1e-12)
                print(f"panjer smax={smax}: first call {cpu:.2f} s CPU", flush=True)
                i += 1
        elif args[i] == "euler":
            eu = np.random.default_rng(0).random((3, 1_000_000))
            jitted = jc.jit(euler_to_r, cache=False)
            cpu, got = first_call(jitted, *eu)
            later = sorted(first_call(jitted, *eu)[0] for _ in range(3))[1]
            assert np.allclose(got, euler_to_r(*eu), rtol=0, atol=1e-15)
            print(f"euler 1e6: first call {cpu:.2f} s CPU, a later call {later:.2f} s", flush=True)
            i += 1
        else:
            raise SystemExit(f"unknown argument {args[i]!r}: panjer SMAX..., euler")
    print(f"(load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main(sys.argv[1:])
