"""Bellman backups (session 52): NumPy against jitcore, wall and CPU (process) time, medians.

    PYTHONPATH=. python tools/bench_bellman.py [SxA ...]     (default: 50x2 50x16 300x8 1000x4 2000x2)

Each case: ``P @ V`` of P (S, A, S) and of (A, S, S), ``einsum("sat,t->sa")``, a stack times a
thin matrix ``(A, S, S) @ (S, 3)``, a batch ``(A, S, S) @ (A, S, 3)``, and the whole backup
``max(R + gamma * (P @ V), axis=1)``, float64 and float32. CPU time shows a library's threads
spinning on a loaded host where wall time alone cannot say why; say the load (``uptime``).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import jitcore


def wall_cpu(f, args, n):
    f(*args)
    walls, cpus = [], []
    for _ in range(n):
        w, c = time.perf_counter(), time.process_time()
        f(*args)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return np.median(walls) * 1e3, np.median(cpus) * 1e3


def matvec(P, V):
    return P @ V


def stacked(P, V):
    return np.einsum("sat,t->sa", P, V)


def backup(P, R, V, gamma):
    return np.max(R + gamma * (P @ V), axis=1)


def main(cases):
    jitted = {f: jitcore.jit(f) for f in (matvec, stacked, backup)}
    g = np.random.default_rng(0)
    print(f"{'case':38s} {'np wall':>8s} {'jit wall':>8s} {'np cpu':>8s} {'jit cpu':>8s}  np/jit wall")
    for S, A in cases:
        n = max(5, min(41, int(2e7 / (S * S * A))))
        for dt in (np.float64, np.float32):
            P = g.random((S, A, S)).astype(dt)
            V = g.standard_normal(S).astype(dt)
            PA = np.ascontiguousarray(P.transpose(1, 0, 2))
            R = g.standard_normal((S, A)).astype(dt)
            runs = [("P@V (S,A,S)", matvec, (P, V)), ("einsum sat,t", stacked, (P, V)),
                    ("P@V (A,S,S)", matvec, (PA, V)),
                    ("(A,S,S)@(S,3)", matvec, (PA, g.standard_normal((S, 3)).astype(dt))),
                    ("(A,S,S)@(A,S,3)", matvec, (PA, g.standard_normal((A, S, 3)).astype(dt))),
                    ("backup", backup, (P, R, V, dt(0.95)))]
            for name, f, args in runs:
                tol = 1e-4 if dt == np.float32 else 1e-10
                assert np.allclose(f(*args), jitted[f](*args), rtol=tol, atol=tol * S), (name, S, A)
                nw, nc = wall_cpu(f, args, n)
                jw, jc = wall_cpu(jitted[f], args, n)
                print(f"{name:16s} S={S:4d} A={A:2d} {np.dtype(dt).name:7s} {nw:8.3f} {jw:8.3f} "
                      f"{nc:8.3f} {jc:8.3f}  {nw / jw:6.2f}", flush=True)


if __name__ == "__main__":
    given = [tuple(map(int, c.split("x"))) for c in sys.argv[1:]]
    main(given or [(50, 2), (50, 16), (300, 8), (1000, 4), (2000, 2)])
