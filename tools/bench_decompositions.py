#!/usr/bin/env python
"""numpy.linalg's decompositions under jit against NumPy (LAPACK through OpenBLAS): the speed
and accuracy tables of docs/performance.md's "Decompositions" section.

    JITCORE_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python tools/bench_decompositions.py \
        [--sizes 64,256] [--only qr,svd] [--repeat R] [--dtype float64,float32] [--accuracy]

Speed: float64 (or ``--dtype``) n x n matrices (standard normal; ``a a^T + n I`` for cholesky, ``(a + a^T)/2``
for eigh and eigvalsh); each call timed by thread CPU time (the compiled code runs on
the calling thread with one jitcore thread, so this moves little when other processes share
the cores), median of R after one call that compiles (no disk cache). ``--accuracy``: the
largest difference from NumPy's result in units of eps, relative to the largest entry of
NumPy's, for a random 64 x 64 matrix and one of condition 1e12; then the errors of jitcore's and
NumPy's singular values and eigenvalues against known ones (``exact``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc

FUNCTIONS = {
    "solve": lambda a: np.linalg.solve(a, a[:, :1]),
    "inv": lambda a: np.linalg.inv(a),
    "det": lambda a: np.linalg.det(a),
    "cholesky": lambda a: np.linalg.cholesky(a),
    "slogdet": lambda a: np.linalg.slogdet(a),
    "qr": lambda a: np.linalg.qr(a),
    "eigvalsh": lambda a: np.linalg.eigvalsh(a),
    "eigh": lambda a: np.linalg.eigh(a),
    "eigvals": lambda a: np.linalg.eigvals(a),
    "eig": lambda a: np.linalg.eig(a),
    "svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
    "svd": lambda a: np.linalg.svd(a),
    "lstsq": lambda a: np.linalg.lstsq(a, a[:, 0]),
    "pinv": lambda a: np.linalg.pinv(a),
}


def cpu_time(fn, a, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        fn(a)
        times.append(time.thread_time() - start)
    return float(np.median(times))


def operand(name: str, x: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    if name == "cholesky":
        return x @ x.T + n * np.eye(n)
    return (x + x.T) / 2 if name in ("eigh", "eigvalsh") else x


def speed(sizes, names, repeat: int, dtype: str = "float64") -> None:
    rng = np.random.default_rng(0)
    print(f"{dtype}\n| function | n | jitcore ms | NumPy ms | jitcore / NumPy |\n|---|---|---|---|---|")
    for n in sizes:
        x = rng.standard_normal((n, n)).astype(dtype)
        for name in names:
            a = operand(name, x)
            jitted = jc.jit(FUNCTIONS[name], cache=False)
            jitted(a)
            mine, theirs = cpu_time(jitted, a, repeat), cpu_time(FUNCTIONS[name], a, repeat)
            row = f"| {name} | {n} | {mine * 1e3:.2f} | {theirs * 1e3:.2f} | {mine / theirs:.1f} |"
            print(row, flush=True)


def accuracy(n: int = 64) -> None:
    rng = np.random.default_rng(11)
    eps = np.finfo(np.float64).eps

    def conditioned(cond):
        u, v = (np.linalg.qr(rng.standard_normal((n, n)))[0] for _ in range(2))
        return (u * np.logspace(0, -np.log10(cond), n)) @ v

    def rel(got, want):
        return float(np.abs(np.asarray(got) - want).max() / np.abs(want).max() / eps)

    def residual(a, v, w):  # ||A V - V diag(w)||_max / ||A||_max
        return rel(a @ v, v * w) * np.abs(v * w).max() / np.abs(a).max()

    columns = []
    for a in (rng.standard_normal((n, n)), conditioned(1e12)):
        sym, spd = (a + a.T) / 2, a @ a.T + 1e-10 * np.eye(n)
        b = rng.standard_normal(n)
        q, r = jc.jit(FUNCTIONS["qr"])(a)
        w, v = jc.jit(FUNCTIONS["eigh"])(sym)
        u, s, vh = jc.jit(FUNCTIONS["svd"])(a)
        logdet = jc.jit(FUNCTIONS["slogdet"])(a)[1]
        ew, ev = jc.jit(FUNCTIONS["eig"])(a)
        ew_numpy, ev_numpy = np.linalg.eig(a)
        columns.append({
            "cholesky (of a a^T + 1e-10 I)": rel(jc.jit(FUNCTIONS["cholesky"])(spd), np.linalg.cholesky(spd)),
            "slogdet: log abs det (relative to max(1, abs))":
                abs(logdet - np.linalg.slogdet(a)[1]) / max(1.0, abs(np.linalg.slogdet(a)[1])) / eps,
            "qr: R": rel(r, np.linalg.qr(a)[1]),
            "qr: Q": rel(q, np.linalg.qr(a)[0]),
            "eigh: eigenvalues": rel(w, np.linalg.eigvalsh(sym)),
            "eigh: A V - V diag(w), relative to max abs(A)":
                rel(sym @ v, v * w) * np.abs(v * w).max() / np.abs(sym).max(),
            "eig: eigenvalues (sorted)": rel(np.sort_complex(ew), np.sort_complex(ew_numpy)),
            "eig: A V - V diag(w), relative to max abs(A) (NumPy's own)":
                (residual(a, ev, ew), residual(a, ev_numpy, ew_numpy)),
            "svd: singular values": rel(s, np.linalg.svd(a, compute_uv=False)),
            "svd: U S Vh - A": rel((u * s) @ vh, a),
            "lstsq: x": rel(jc.jit(lambda a, b: np.linalg.lstsq(a, b))(a, b)[0], np.linalg.lstsq(a, b)[0]),
            "pinv": rel(jc.jit(FUNCTIONS["pinv"])(a), np.linalg.pinv(a)),
        })
    print(f"| result (float64, {n} x {n}; eps units) | random | condition 1e12 |\n|---|---|---|")
    for key in columns[0]:
        print(f"| {key} | {_cell(columns[0][key])} | {_cell(columns[1][key])} |")


def exact(sizes=(64, 256)) -> None:
    """Singular values and eigenvalues against known ones: A = U diag(s) V^T with s uniform in
    [0.5, 1.5] (orthogonal U, V from QR), and the eigenvalues of X diag(w) X^-1 for a
    well-conditioned X (eig); the largest error in eps, relative to the largest value."""
    rng = np.random.default_rng(5)
    eps = np.finfo(np.float64).eps
    svdvals, eigvals = jc.jit(FUNCTIONS["svdvals"]), jc.jit(FUNCTIONS["eigvals"])
    print("| n | svd: jitcore | svd: NumPy | eig: jitcore | eig: NumPy |\n|---|---|---|---|---|")
    for n in sizes:
        u, v = (np.linalg.qr(rng.standard_normal((n, n)))[0] for _ in range(2))
        s = np.sort(rng.uniform(0.5, 1.5, n))[::-1]
        a = (u * s) @ v.T
        x = np.eye(n) + 0.1 * rng.standard_normal((n, n)) / np.sqrt(n)
        w = np.sort(rng.uniform(0.5, 1.5, n))
        b = np.linalg.solve(x.T, (x * w).T).T  # x diag(w) x^-1
        errs = [np.abs(f(a) - s).max() / s[0] / eps for f in (svdvals, FUNCTIONS["svdvals"])]
        errs += [np.abs(np.sort(f(b).real) - w).max() / w[-1] / eps for f in (eigvals, np.linalg.eigvals)]
        print(f"| {n} | " + " | ".join(f"{x:.3g}" for x in errs) + " |")


def _cell(value) -> str:
    """A number, or jitcore's and NumPy's own as 'mine (NumPy's)'."""
    if isinstance(value, tuple):
        return f"{value[0]:.3g} ({value[1]:.3g})"
    return f"{value:.3g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,256")
    parser.add_argument("--only", default=",".join(FUNCTIONS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dtype", default="float64", help="float64, float32 or both: float64,float32")
    parser.add_argument("--accuracy", action="store_true")
    args = parser.parse_args()
    if args.accuracy:
        accuracy()
        exact()
        return
    for dtype in args.dtype.split(","):
        speed([int(s) for s in args.sizes.split(",")], args.only.split(","), args.repeat, dtype)


if __name__ == "__main__":
    main()
