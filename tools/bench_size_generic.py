#!/usr/bin/env python3
"""Size-generic kernels measured: their speed against fixed-size code, and a new size's first call.

    python tools/bench_size_generic.py [--size N] [--repeat R] [--threads T]
    python tools/bench_size_generic.py --round2 [--repeat R] [--threads T]

1. Speed: each case compiled twice in this process, size-generic (extents read at run time,
   as every function now is) and fixed-size (``codegen.host.SIZE_GENERIC = False`` while it
   compiles: extents are constants), both without the disk cache; then called alternately,
   R times each, NumPy in the same rounds. Medians, and fixed / generic (above 1: generic
   faster). Cases: a 10M-element tanh chain, a 10M-element sum, row sums and softmax over
   rows of a 10M-element matrix; and small ones (1000 elements, 100 rows of 100), timed over
   200 calls a sample, where fixed code knows its short trip counts; float32.
2. First call at a new size: ``g(x, y) = tanh(2x + y)``, a fresh jitted function's first call
   (trace, passes, LLVM: a full compile, with no code of it alive in the process) against its
   second call at another size (trace, passes, LLVM IR emitted, machine code reused), R rounds
   alternating; medians.
3. Size classes: the compiles of ``g`` at the seed's sizes 100, 1234, 77777 (below and above
   the split threshold) and of a whole-array sum at 100, 5000, 200000 (one piece, several):
   one each, the other sizes reusing its code.
4. ``--round2`` (issue 13 item 2, round 2: the families that compiled per size): softmax and
   layernorm over rows, BLAS products (matrix-vector, four columns), a tiled 1024 product and
   column sums, each at a fixed size (median of R samples) and its first call at a new size of
   the same pattern (a fresh jitted function called at the fixed size, then at the new one:
   the second call's time; median of 3). It uses only jitcore's public API, so running it with
   ``PYTHONPATH`` at another checkout (main) measures that code: alternate the two processes
   and compare their medians.

Speed is measured here, never asserted in tests (DESIGN.md §8).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen import host


def tanh_chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * 0.5 + x * x


def total(x):
    return x.sum()


def row_sums(x):
    return x.sum(axis=1)


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def compiled(fn, x, generic: bool):
    """``fn`` jitted and compiled for ``x``, size-generic or fixed-size."""
    host.SIZE_GENERIC = generic
    try:
        jitted = jc.jit(fn, cache=False)
        jitted(x)
    finally:
        host.SIZE_GENERIC = True
    return jitted


def timed(fn, *args, calls: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def speed(size: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    flat = rng.standard_normal(size).astype(np.float32)
    matrix = rng.standard_normal((size // 1000, 1000)).astype(np.float32)
    small, square = flat[:1000].copy(), matrix[:100, :100].copy()
    chain = lambda x: np.tanh(x * 2.0 + 1.0) * 0.5 + x * x  # noqa: E731
    cases = [
        ("tanh chain, 10M", tanh_chain, chain, flat, 1),
        ("sum, 10M", total, np.sum, flat, 1),
        ("row sums, 10k x 1k", row_sums, lambda x: x.sum(axis=1), matrix, 1),
        ("softmax rows, 10k x 1k", softmax, numpy_softmax, matrix, 1),
        ("tanh chain, 1000", tanh_chain, chain, small, 200),
        ("sum, 1000", total, np.sum, small, 200),
        ("softmax rows, 100 x 100", softmax, numpy_softmax, square, 200),
    ]
    print(f"{'case':24} {'numpy ms':>9} {'fixed ms':>9} {'generic ms':>10} {'fixed/generic':>13}")
    for name, fn, reference, x, calls in cases:
        generic, fixed = compiled(fn, x, True), compiled(fn, x, False)
        assert fixed.cache_info().compiles == generic.cache_info().compiles == 1
        np.testing.assert_allclose(generic(x), reference(x), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(fixed(x), reference(x), rtol=1e-4, atol=1e-4)
        times = {"numpy": [], "fixed": [], "generic": []}
        for _ in range(repeat):  # alternating, so that noise from other processes hits all alike
            times["generic"].append(timed(generic, x, calls=calls))
            times["fixed"].append(timed(fixed, x, calls=calls))
            times["numpy"].append(timed(reference, x, calls=calls))
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(f"{name:24} {med['numpy']:9.4f} {med['fixed']:9.4f} {med['generic']:10.4f} "
              f"{med['fixed'] / med['generic']:13.2f}")


def g(x, y):
    return jnp.tanh(x * 2 + y)


def first_calls(repeat: int) -> None:
    def pair(n):
        x = np.linspace(-1.5, 1.5, n).astype(np.float32)
        return x, x[::-1].copy()

    full, reuse = [], []
    for k in range(repeat):
        gc.collect()  # the previous round's code is freed: this round compiles
        jitted = jc.jit(g, cache=False)
        full.append(timed(jitted, *pair(1000 + k)))
        reuse.append(timed(jitted, *pair(2000 + k)))
        info = jitted.cache_info()
        assert (info.traces, info.compiles, info.reused) == (2, 1, 1), info
        del jitted
    f, r = statistics.median(full) * 1e3, statistics.median(reuse) * 1e3
    print(f"g first call, full compile: {f:.1f} ms; at a new size (trace + reuse): {r:.1f} ms "
          f"({f / r:.1f}x less)")


def size_classes() -> None:
    cases = [("g", g, (100, 1234, 77777), 2), ("sum", total, (100, 5000, 200_000), 1)]
    for name, fn, sizes, arity in cases:
        jitted = jc.jit(fn, cache=False)
        for n in sizes:
            x = np.linspace(-1.5, 1.5, n).astype(np.float32)
            jitted(*[x, x[::-1].copy()][:arity])
        info = jitted.cache_info()
        print(f"{name} at sizes {', '.join(map(str, sizes))}: {info.traces} traces, "
              f"{info.compiles} compiles, {info.reused} reused")


def layernorm(x):
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / jnp.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


def product(a, b):
    return a @ b


def column_sums(x):
    return x.sum(axis=0)


def round_two(repeat: int) -> None:
    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    # name, function, arguments at the fixed size, at a new size of the same pattern, calls a sample
    cases = [
        ("softmax 4096x1024", softmax, (f32(4096, 1024),), (f32(4000, 1000),), 1),
        ("layernorm 4096x1024", layernorm, (f32(4096, 1024),), (f32(4000, 1024),), 1),
        # below the thread threshold (4 kernels of 6000 points), then above it (4 of 13200)
        ("softmax 60x100", softmax, (f32(60, 100),), (f32(120, 110),), 100),
        ("a @ v 1024 (BLAS gemv)", product, (f32(1024, 1024), f32(1024)), (f32(1000, 1000), f32(1000)), 20),
        ("a @ b 10000x256x4 (BLAS)", product, (f32(10000, 256), f32(256, 4)),
         (f32(9000, 200), f32(200, 4)), 5),
        ("a @ b 1024 (tiled)", product, (f32(1024, 1024), f32(1024, 1024)),
         (f32(1000, 1000), f32(1000, 1000)), 1),
        ("sum(axis=0) 100000x16", column_sums, (f32(100000, 16),), (f32(90000, 16),), 10),
        ("sum(axis=0) 1000000x4", column_sums, (f32(1000000, 4),), (f32(900000, 4),), 2),
        ("sum(axis=0) 10000x256", column_sums, (f32(10000, 256),), (f32(9000, 256),), 10),
        ("sum(axis=0) 256x10000", column_sums, (f32(256, 10000),), (f32(250, 9000),), 10),
    ]
    print(f"{'case':26} {'fixed size ms':>13} {'new size, 1st call ms':>22} {'compiles':>9}")
    for name, fn, fixed, new, calls in cases:
        jitted = jc.jit(fn, cache=False)
        jitted(*fixed)
        speed_ms = statistics.median(timed(jitted, *fixed, calls=calls) for _ in range(repeat)) * 1e3
        del jitted
        firsts, compiles = [], set()
        for _ in range(3):
            gc.collect()  # the previous round's code is freed: the fixed size compiles again
            fresh = jc.jit(fn, cache=False)
            fresh(*fixed)
            firsts.append(timed(fresh, *new))
            compiles.add(fresh.cache_info().compiles)
            del fresh
        print(f"{name:26} {speed_ms:13.3f} {statistics.median(firsts) * 1e3:22.1f} "
              f"{'/'.join(map(str, sorted(compiles))):>9}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1,
                        help="threads a launch may use (default 1: on a shared host, threads add noise)")
    parser.add_argument("--round2", action="store_true", help="the round-2 families only (item 4)")
    options = parser.parse_args()
    jc.config.num_threads = options.threads
    print(f"threads: {jc.config.num_threads}")
    if options.round2:
        round_two(options.repeat)
        return
    size_classes()
    first_calls(options.repeat)
    speed(options.size, options.repeat)


if __name__ == "__main__":
    main()
