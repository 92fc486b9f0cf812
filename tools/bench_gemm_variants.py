#!/usr/bin/env python
"""Matrix products (and fused epilogues) under variants of ``codegen/cpu/tiled_gemm.py``'s
module constants, compiled in one process and timed in turns: CPU time of this thread, so run
with ``JITCORE_NUM_THREADS=1`` (the numbers of docs/performance.md, "The MLP step's products").

    JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_gemm_variants.py \\
        --shapes 'a@b:10000x256x16,a@b*(1-c*c):10000x16x256' \\
        --variant s24=NARROW_STREAMS=24 --variant s8=NARROW_STREAMS=8 [--dtype float64]

A shape is ``FORM:MxKxN`` (FORM one of ``FORMS``; ``c`` is an M x N operand of the epilogue;
``a@a.T`` has one operand, and N is M);
a variant is ``NAME=ATTR=VALUE;ATTR=VALUE...`` (values as Python literals), the first one the
base of the ratios. Each variant's function is compiled with its constants set (and then put
back), checked against the first, and timed in loops of about 30 ms, medians of ``--repeat``.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import tiled_gemm

FORMS = {
    "a@b": lambda a, b: a @ b,
    "a.T@b": lambda a, b: a.T @ b,
    "a@b.T": lambda a, b: a @ b.T,
    "a.T@b.T": lambda a, b: a.T @ b.T,
    "tanh(a@b)": lambda a, b: np.tanh(a @ b),
    "a@b*(1-c*c)": lambda a, b, c: (a @ b) * (1 - c * c),
    "a@a.T": lambda a: a @ a.T,  # one operand: MxK (N is M)
    "a.T@a": lambda a: a.T @ a,  # KxM
}


def operand_shapes(form: str, m: int, k: int, n: int) -> list[tuple[int, int]]:
    if form in ("a@a.T", "a.T@a"):
        return [(m, k) if form == "a@a.T" else (k, m)]
    a = (k, m) if form.startswith("a.T") else (m, k)
    b = (n, k) if "b.T" in form else (k, n)
    return [a, b, (m, n)] if "c" in form else [a, b]


def parse_variant(text: str) -> tuple[str, list[tuple[str, object]]]:
    name, _, body = text.partition("=")
    sets = []
    for item in filter(None, body.split(";")):
        attr, _, value = item.partition("=")
        if not hasattr(tiled_gemm, attr):
            raise SystemExit(f"tiled_gemm has no constant {attr!r}")
        sets.append((attr, ast.literal_eval(value)))
    return name, sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", required=True)
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--numpy", action="store_true", help="time NumPy's product too, in the same turns")
    args = parser.parse_args()
    variants = dict(parse_variant(v) for v in args.variant)
    rng = np.random.default_rng(0)
    for case in args.shapes.split(","):
        form, dims = case.split(":")
        m, k, n = map(int, dims.split("x"))
        data = [rng.standard_normal(s).astype(args.dtype) for s in operand_shapes(form, m, k, n)]
        fns = {}
        for name, sets in variants.items():
            saved = {attr: getattr(tiled_gemm, attr) for attr, _ in sets}
            for attr, value in sets:
                setattr(tiled_gemm, attr, value)
            try:
                fns[name] = jc.jit(FORMS[form], cache=False)
                fns[name](*data)  # compiled with these constants
            finally:
                for attr, value in saved.items():
                    setattr(tiled_gemm, attr, value)
        want = next(iter(fns.values()))(*data)
        if args.numpy:
            fns["numpy"] = FORMS[form]
        for name, f in fns.items():
            assert np.allclose(f(*data), want, rtol=1e-3, atol=1e-3 * k ** 0.5), name
        calls = max(1, int(0.03 / max(1e-5, 2 * m * n * k / 1e11)))
        times = {name: [] for name in fns}
        for _ in range(args.repeat):
            for name, f in fns.items():
                f(*data)
                start = time.thread_time()
                for _ in range(calls):
                    f(*data)
                times[name].append((time.thread_time() - start) / calls * 1e3)
        ms = {name: statistics.median(t) for name, t in times.items()}
        first = next(iter(ms.values()))
        cells = "  ".join(f"{name} {t:.3f} ms ({t / first:.2f})" for name, t in ms.items())
        print(f"{case} {args.dtype}: {cells}", flush=True)


if __name__ == "__main__":
    main()
