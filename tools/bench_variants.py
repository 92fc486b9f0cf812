"""Code-generation variants against each other in one process: each case is compiled once per
variant and the variants (and NumPy) are called in turn, so a burst of load on a shared machine
hits them alike; medians. Separate runs per variant are useless when other work moves NumPy's
own time by 5x from run to run.

    python tools/bench_variants.py --widths 256,512 --size 100000 --repeat 201
    python tools/bench_variants.py --interleave 0,2,4 --size 100000 --repeat 201 --only exp,log,gauss

``--widths``: the vector width of kernels on an AVX-512 host (``JITCORE_VECTOR_BITS``): the host
target machine is remade between compilations. ``--interleave``: the interleave count of loops
that call the math library (``codegen/cpu/cost.py``, ``MATH_INTERLEAVE``; 0 is LLVM's choice).
Run with ``JITCORE_NUM_THREADS=1 JITCORE_CACHE=0`` for one-thread times of fresh code. Prints,
per case and dtype, NumPy's median, each variant's, and NumPy's over each (above 1: jitcore is
faster), then the first variant's time over each other's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import cost, target


def _cases(size: int, rng: np.random.Generator):
    def u(lo, hi, n=size):
        return lambda dt: rng.uniform(lo, hi, n).astype(dt)

    side = max(int(size ** 0.5), 1)
    rows = (max(size // 1000, 1), 1000)

    def softmax(x):
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    return [
        ("exp", np.exp, [u(-80, 80)]),
        ("log", np.log, [u(1e-3, 100)]),
        ("log10", np.log10, [u(1e-3, 100)]),
        ("tanh", np.tanh, [u(-10, 10)]),
        ("sin", np.sin, [u(-100, 100)]),
        ("cos", np.cos, [u(-100, 100)]),
        ("sqrt", np.sqrt, [u(0, 100)]),
        ("arcsinh", np.arcsinh, [u(-100, 100)]),
        ("arctan", np.arctan, [u(-100, 100)]),
        ("cbrt", np.cbrt, [u(-100, 100)]),
        ("tanh(2x+1)", lambda x: np.tanh(2 * x + 1), [u(-3, 3)]),
        ("a*b+c*d-1", lambda a, b, c, d: a * b + c * d - 1, [u(-1, 1)] * 4),
        ("x.sum()", lambda x: x.sum(), [u(-1, 1)]),
        ("sum(x*y)", lambda x, y: np.sum(x * y), [u(-1, 1)] * 2),
        ("sumlogexp", lambda x: np.sum(np.log(np.exp(x))), [u(-1, 1)]),
        ("gauss", lambda p, q: np.exp(-(p[:, None] - q[None, :]) ** 2), [u(-2, 2, side)] * 2),
        ("softmax", softmax, [lambda dt: rng.uniform(-3, 3, rows).astype(dt)]),
    ]


def _set_variant(kind: str, value: int) -> None:
    if kind == "widths":
        target.host_target_machine.cache_clear()
        target.host_light_machine.cache_clear()
        target.override_vector_bits(str(value))
    else:
        cost.MATH_INTERLEAVE = value


def _compiled(kind: str, value: int, fn, args):
    _set_variant(kind, value)

    def body(*a):
        return fn(*a)

    body.__name__ = body.__qualname__ = f"variant_{value}"  # a symbol of its own per variant
    jitted = jc.jit(body)
    jitted(*args)  # compiles now, with this variant
    return jitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--widths", help="vector widths, e.g. 256,512")
    group.add_argument("--interleave", help="interleave counts of math loops, e.g. 0,4")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=201)
    parser.add_argument("--only", help="case names, comma-separated")
    opts = parser.parse_args()
    kind = "widths" if opts.widths else "interleave"
    values = [int(v) for v in (opts.widths or opts.interleave).split(",")]
    only = set(opts.only.split(",")) if opts.only else None
    jc.jit(lambda x: x + 1)(np.ones(3))  # the first call applies the environment's settings
    print(f"{kind} {values}, size {opts.size}, median of {opts.repeat}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rng = np.random.default_rng(0)
    for name, fn, makers in _cases(opts.size, rng):
        if only and name not in only:
            continue
        for dtype in (np.float32, np.float64):
            args = [make(dtype) for make in makers]
            runs = {"numpy": fn, **{v: _compiled(kind, v, fn, args) for v in values}}
            times = {k: [] for k in runs}
            for _ in range(opts.repeat):
                for k, f in runs.items():
                    start = time.perf_counter()
                    f(*args)
                    times[k].append(time.perf_counter() - start)
            ms = {k: statistics.median(t) * 1e3 for k, t in times.items()}
            cells = "  ".join(f"{v}: {ms[v]:.4f} ({ms['numpy'] / ms[v]:.2f}x)" for v in values)
            gains = "  ".join(f"{values[0]}/{v} {ms[values[0]] / ms[v]:.2f}x" for v in values[1:])
            label = f"{name:11s} {np.dtype(dtype).name:8s}"
            print(f"{label} numpy {ms['numpy']:.4f}  {cells}  {gains}", flush=True)
    print(f"load at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
