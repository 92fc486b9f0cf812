#!/usr/bin/env python
"""``numpy.fft`` under jit against NumPy's pocketfft: the numbers of docs/performance.md's
"numpy.fft under jit" section.

    PYTHONPATH=. python tools/bench_fft.py [--repeat R] [--cases fft-1024,...] [--threads 1,2]

Cases: ``fft`` of complex64 and complex128 data of 2^10, 2^16 and 2^20 points, of the products
of small primes 10080, 15015 and 10^5, of the prime 10007 (Bluestein), and of each row of a 512x512
array and of a 512x105 one (105 = 3 5 7); ``rfft`` of 2^16 points and of each row of a 1024x1024
float32 and float64 array, and ``irfft`` of those rows' spectra and of 2^15 + 1 terms (2^16
points). ``--clock thread`` times this thread's CPU seconds instead of wall seconds (for
``--threads 1`` on a loaded host). Each case
compiles once (not timed), then jitcore (on each thread count of ``--threads``) and NumPy run in
turn, R times each; the table shows the median wall time of each and the ratio of medians
(jitcore / NumPy: below 1 is faster), and the compile time.

    PYTHONPATH=. python tools/bench_fft.py --points 243,1000,... [--threads 1 --clock thread]

the one-dimensional ``fft``, ``rfft`` and ``irfft`` of each length, complex64/complex128 and
float32/float64.

    PYTHONPATH=. python tools/bench_fft.py --compile [--lengths 16,1024,...]

times instead the compile of ``fft`` of complex128 data of each length (powers of two, products
of small primes, primes through Bluestein's algorithm by default): the process's CPU seconds of
tracing, the pass pipeline and code generation (LLVM), which a loaded host inflates less than
wall time, the wall seconds, and the kernels launched and compiled (stages of the same code
compile once).
"""

from __future__ import annotations

import argparse
import functools
import re
import statistics
import time

import numpy as np
from bench import _median_time  # tools/, on sys.path as this module's own folder

import jitcore as jc


def cases():
    rng = np.random.default_rng(0)
    out = {}
    for dtype in (np.complex64, np.complex128):
        # 10080 = 2^5 3^2 5 7, 15015 = 3 5 7 11 13, 10^5 = 2^5 5^5
        for n in (1 << 10, 1 << 16, 1 << 20, 10080, 15015, 10007, 100000):
            x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
            out[f"fft-{n}-{np.dtype(dtype).name}"] = (np.fft.fft, x)
        x = (rng.standard_normal((512, 512)) + 1j * rng.standard_normal((512, 512))).astype(dtype)
        out[f"fft-rows-512x512-{np.dtype(dtype).name}"] = (np.fft.fft, x)
        out[f"fft-rows-512x105-{np.dtype(dtype).name}"] = (np.fft.fft, x[:, :105].copy())  # 105 = 3 5 7
    for dtype in (np.float32, np.float64):
        rows = rng.standard_normal((1024, 1024)).astype(dtype)
        out[f"rfft-rows-1024x1024-{np.dtype(dtype).name}"] = (np.fft.rfft, rows)
        out[f"rfft-65536-{np.dtype(dtype).name}"] = (np.fft.rfft, rows.reshape(-1)[:1 << 16].copy())
        spectra = np.fft.rfft(rows).astype(np.result_type(dtype, np.complex64))
        out[f"irfft-rows-1024x513-{np.dtype(dtype).name}"] = (np.fft.irfft, spectra)
        out[f"irfft-65536-{np.dtype(dtype).name}"] = (np.fft.irfft, spectra.reshape(-1)[:1 << 15 | 1].copy())
    return out


ROW_LENGTHS = (105, 100, 1000, 360, 243, 125, 49, 1024, 4096)
ROW_POINTS = 1 << 16  # the rows of a case hold about this many points in all


def row_cases(lengths):
    rng = np.random.default_rng(0)
    out = {}
    for n in lengths:
        rows = max(1, ROW_POINTS // n)
        for real in (np.float32, np.float64):
            x = rng.standard_normal((rows, n)).astype(real)
            z = (x + 1j * rng.standard_normal((rows, n))).astype(np.result_type(real, np.complex64))
            spectra = np.fft.rfft(x).astype(z.dtype)
            out[f"fft-rows-{n}-{z.dtype.name}"] = (np.fft.fft, z)
            out[f"ifft-rows-{n}-{z.dtype.name}"] = (np.fft.ifft, z)
            out[f"rfft-rows-{n}-{x.dtype.name}"] = (np.fft.rfft, x)
            out[f"irfft-rows-{n}-{x.dtype.name}"] = (functools.partial(np.fft.irfft, n=n), spectra)
    return out


def point_cases(lengths):
    """One-dimensional ``fft`` (complex64, complex128), ``rfft`` and ``irfft`` (float32, float64)
    of each length: where a call is short, its fixed cost shows."""
    rng = np.random.default_rng(0)
    out = {}
    for n in lengths:
        for real in (np.float32, np.float64):
            x = rng.standard_normal(n).astype(real)
            z = (x + 1j * rng.standard_normal(n)).astype(np.result_type(real, np.complex64))
            out[f"fft-{n}-{z.dtype.name}"] = (np.fft.fft, z)
            out[f"rfft-{n}-{x.dtype.name}"] = (np.fft.rfft, x)
            spectrum = np.fft.rfft(x).astype(z.dtype)
            out[f"irfft-{n}-{x.dtype.name}"] = (functools.partial(np.fft.irfft, n=n), spectrum)
    return out


def _thread_median(fn, repeat: int) -> float:
    """The median CPU time of this thread per call: on a shared, loaded host the time a call
    waits for a core is not counted (jitcore on one thread runs its kernels on this one)."""
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times)


COMPILE_LENGTHS = (16, 1024, 1 << 16, 1 << 20, 105, 3003, 30030, 17, 101, 1009, 10007, 65537, 100003, 255255)


def compile_times(lengths) -> None:
    print(f"{'n':>8} {'cpu s':>6} {'trace':>6} {'passes':>6} {'codegen':>7} {'wall s':>6} {'launched':>8} "
          f"{'compiled':>8}")
    for n in lengths:
        jitted = jc.jit(lambda a: np.fft.fft(a), cache=False)
        wall, cpu = time.perf_counter(), [time.process_time()]
        lowered = jitted.lower(np.ones(n, np.complex128))
        cpu.append(time.process_time())
        lowered.optimized()
        cpu.append(time.process_time())
        plan = lowered.plan()
        cpu.append(time.process_time())
        wall = time.perf_counter() - wall
        compiled = [name for name in re.findall(r'define[^@]*@"?([^"(]+)', plan.llvm_ir)
                    if re.search(r"_k\d+$", name)]
        steps = [b - a for a, b in zip(cpu, cpu[1:])]
        print(f"{n:8d} {cpu[-1] - cpu[0]:6.2f} " + " ".join(f"{s:6.2f}" for s in steps[:2])
              + f" {steps[2]:7.2f} {wall:6.2f} {len(plan.launches):8d} {len(compiled):8d}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--compile", action="store_true", help="time compiles over lengths instead")
    parser.add_argument("--lengths", default=",".join(map(str, COMPILE_LENGTHS)))
    parser.add_argument("--rows", action="store_true", help="the row cases (fft/ifft/rfft/irfft of rows)")
    parser.add_argument("--row-lengths", default=",".join(map(str, ROW_LENGTHS)))
    parser.add_argument("--points", default="", help="one-dimensional cases of these lengths instead")
    parser.add_argument("--clock", choices=("wall", "thread"), default="wall",
                        help="thread: this thread's CPU time (use with --threads 1 on a loaded host)")
    args = parser.parse_args()
    timed = _thread_median if args.clock == "thread" else _median_time
    if args.compile:
        compile_times([int(n) for n in args.lengths.split(",")])
        return
    threads = [int(t) for t in args.threads.split(",")]
    chosen = set(filter(None, args.cases.split(",")))
    print(f"{'case':32} {'compile s':>9} " + " ".join(f"{f'jc {t}t ms':>10}" for t in threads)
          + f" {'NumPy ms':>10} " + " ".join(f"{f'ratio {t}t':>8}" for t in threads))
    chosen_cases = row_cases([int(n) for n in args.row_lengths.split(",")]) if args.rows else cases()
    if args.points:
        chosen_cases = point_cases([int(n) for n in args.points.split(",")])
    for name, (np_fn, x) in chosen_cases.items():
        if chosen and name not in chosen:
            continue
        jitted = jc.jit(lambda a, f=np_fn: f(a), cache=False)
        start = time.perf_counter()
        jitted(x)
        compile_s = time.perf_counter() - start
        ours = {t: [] for t in threads}
        theirs = []
        for _ in range(3):  # alternate, so that a burst of load hits both
            for t in threads:
                with jc.config.using(num_threads=t):
                    ours[t].append(timed(functools.partial(jitted, x), args.repeat) * 1e3)
            theirs.append(timed(functools.partial(np_fn, x), args.repeat) * 1e3)
        ours = {t: statistics.median(v) for t, v in ours.items()}
        numpy_ms = statistics.median(theirs)
        print(f"{name:32} {compile_s:9.2f} " + " ".join(f"{ours[t]:10.3f}" for t in threads)
              + f" {numpy_ms:10.3f} " + " ".join(f"{ours[t] / numpy_ms:8.2f}" for t in threads), flush=True)


if __name__ == "__main__":
    main()
