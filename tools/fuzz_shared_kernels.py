#!/usr/bin/env python3
"""Random unrolled loops over rows, columns and windows, jitted with kernels shared by start
(codegen/cpu/shared_kernels.py) and without: the two must give the same bits, and NumPy's
values within a tolerance.

    PYTHONPATH=. python tools/fuzz_shared_kernels.py [--seeds FIRST LAST]

Each program appends one reduction of one read of ``x`` per step of a static loop (2 to 5
steps), on float64, float32, int64 or int32 data laid out C, Fortran, rows reversed or strided.
Prints each mismatch with its program, then how many programs shared a kernel.
"""

from __future__ import annotations

import argparse
import random
import warnings

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import shared_kernels

REDUCTIONS = ["np.sin({r}).sum()", "{r}.max()", "{r}.argmax()", "({r} * 2 + 1).mean()",
              "np.abs({r}).min()", "np.cumsum({r})[-1]", "({r} > 0).sum()", "np.sort({r})[1]",
              "{r}.prod()", "np.exp({r} * 0.1).sum()"]
READS = ["x[{i}]", "x[:, {i}]", "x[{i}, 1:]", "x[{i}][::-1]", "x[{i}:{i} + 2].ravel()", "x[{i}, ::2]"]


def program(seed: int):
    """The seed's program (its source, for the report) and its argument."""
    rnd = random.Random(seed)
    body = rnd.choice(REDUCTIONS).format(r=rnd.choice(READS).format(i="i"))
    source = (f"def f(x):\n    out = []\n    for i in range({rnd.randint(2, 5)}):\n"
              f"        out.append({body})\n    return tuple(out)\n")
    rng = np.random.default_rng(seed)
    base = (rng.standard_normal((9, 12)) * 5).astype([np.float64, np.float32, np.int64, np.int32][seed % 4])
    x = [base, np.asfortranarray(base), base[::-1], base[::2, ::2][:5]][seed // 4 % 4]
    return source, x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs=2, type=int, default=(0, 100))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    jc.config.disk_cache = False
    mismatches = shared = 0
    for seed in range(*args.seeds):
        source, x = program(seed)
        namespace = {"np": np}
        exec(source, namespace)  # noqa: S102  (the program this tool just wrote)
        f = namespace["f"]
        want = f(x)
        got = jc.jit(f)(x)
        shared += '_shared"' in jc.jit(f).lower(x).as_text("llvm")
        shared_kernels.SHARE = False
        try:
            own = jc.jit(f)(x)
        finally:
            shared_kernels.SHARE = True
        for g, o, w in zip(got, own, want):
            same_bits = np.asarray(g).tobytes() == np.asarray(o).tobytes()
            if not same_bits or not np.allclose(g, w, rtol=1e-5, atol=1e-4):
                mismatches += 1
                print(f"seed {seed}: shared {g!r}, own {o!r}, NumPy {w!r}\n{source}")
                break
    print(f"{args.seeds[1] - args.seeds[0]} programs, {shared} with a shared kernel, {mismatches} mismatches")


if __name__ == "__main__":
    main()
