"""Row blocks side by side: softmax and layernorm over rows compiled with several settings of
``rowwise.ROW_BLOCK_BYTES`` in one process, called in alternation, CPU time of one thread.

On a shared machine the wall time of one call moves by several times from call to call; the
CPU time of one thread (``time.process_time``) and calls in alternation are what make a change
of 10-20% visible (docs/performance.md, "Row blocks that fit the first-level cache"). With
``--threads`` above 1 the clock is the wall clock (the CPU time then counts every thread).

    PYTHONPATH=. python tools/bench_rowblocks.py --bytes 8192,32800 --shape 4096x1024 --rounds 80

prints, per workload and dtype, each setting's least / 25th percentile / median ms per call.
The variants' results are checked to be bit for bit the same.

    PYTHONPATH=. python tools/bench_rowblocks.py --setting CHUNK_BYTES --bytes 0,1048576 --threads 2

varies ``rowwise.CHUNK_BYTES`` instead (the least bytes of rows a chunk of a group takes; 0: a
chunk of ``chunk_size`` points, as before that rule). On this shared host the two-thread wall
times are only worth reading with the cores to itself: ``chrt -f 10`` before the command.

    PYTHONPATH=. python tools/bench_rowblocks.py --pieces

prints instead where GELU (10M) and the outer ``exp`` (4000x4000) spend: each whole, its math
function alone on the same points, the rest alone, and a copy of the same bytes (CPU ms of one
thread, 25th percentile of 21 calls, the previous result held as tools/bench.py holds it).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("JITCORE_CACHE", "0")  # compile each variant here, not from the disk

import numpy as np  # noqa: E402
from bench_workloads import gauss_outer, gelu, layernorm_rows, softmax_rows  # noqa: E402

import jitcore as jc  # noqa: E402
from jitcore.codegen.cpu import rowwise  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bytes", default="8192,32800", help="values of --setting, comma-separated")
    parser.add_argument("--shape", default="4096x1024")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--setting", default="ROW_BLOCK_BYTES", choices=["ROW_BLOCK_BYTES", "CHUNK_BYTES"],
                        help="the rowwise setting --bytes gives values of")
    parser.add_argument("--pieces", action="store_true", help="GELU's and gauss's pieces instead")
    args = parser.parse_args(argv)
    if args.pieces:
        pieces()
        return
    settings = [int(v) for v in args.bytes.split(",")]
    shape = tuple(int(v) for v in args.shape.split("x"))
    jc.config.num_threads = args.threads
    clock = time.process_time if args.threads == 1 else time.perf_counter
    rng = np.random.default_rng(0)
    saved = getattr(rowwise, args.setting)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(shape).astype(dtype)
        for name, fn in (("softmax", softmax_rows), ("layernorm", layernorm_rows)):
            jitted = {}
            for value in settings:
                setattr(rowwise, args.setting, value)  # read when the function compiles
                jitted[value] = jc.jit(fn)
                jitted[value](x)
            setattr(rowwise, args.setting, saved)
            first = jitted[settings[0]](x)
            for value, f in jitted.items():
                if f(x).tobytes() != first.tobytes():
                    raise SystemExit(f"{name}: {args.setting}={value} changed the bits")
            times = {value: [] for value in settings}
            for r in range(args.rounds):
                order = settings if r % 2 else settings[::-1]
                for value in order:
                    start = clock()
                    out = jitted[value](x)
                    times[value].append(clock() - start)
                    del out
            cells = []
            for value, ts in times.items():
                ts.sort()
                cells.append(f"{value}: {ts[0] * 1e3:.2f} / {ts[len(ts) // 4] * 1e3:.2f} / "
                             f"{ts[len(ts) // 2] * 1e3:.2f}")
            print(f"{name:9} {np.dtype(dtype).name:7} " + "   ".join(cells), flush=True)


def _cpu_ms(f, *args, calls: int = 21) -> float:
    held = f(*args)
    times = []
    for _ in range(calls):
        start = time.process_time()
        result = f(*args)
        times.append(time.process_time() - start)
        held = result  # noqa: F841 (the previous result stays alive during the call)
    times.sort()
    return times[calls // 4] * 1e3


def _gelu_twice_rounded_cube(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x))))


def pieces() -> None:
    jc.config.num_threads = 1
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(10_000_000).astype(dtype)
        p, q = (rng.standard_normal(4000).astype(dtype) for _ in range(2))
        cases = [
            ("GELU", gelu, (x,)), ("tanh(x)", lambda x: np.tanh(x), (x,)), ("x**3", lambda x: x ** 3, (x,)),
            ("GELU with x*x*x", _gelu_twice_rounded_cube, (x,)),
            ("x*1.5", lambda x: x * 1.5, (x,)),
            ("gauss", gauss_outer, (p, q)),
            ("exp(p-q) outer", lambda p, q: np.exp(p[:, None] - q[None, :]), (p, q)),
            ("(p-q)**2 outer", lambda p, q: (p[:, None] - q[None, :]) ** 2, (p, q)),
        ]
        cells = [f"{name} {_cpu_ms(jc.jit(fn), *args):.2f}" for name, fn, args in cases]
        print(f"{np.dtype(dtype).name:7} " + "   ".join(cells), flush=True)


if __name__ == "__main__":
    main()
