#!/usr/bin/env python
"""Matrix products under jit against NumPy and JAX: the numbers of docs/performance.md's
"Tiled matmul" section (issue 10, item 6).

    PYTHONPATH=. python tools/bench_matmul.py [--sizes 64,128,...] [--repeat R] [--no-jax]
    # one thread each, CPU time (steady on a shared machine):
    OPENBLAS_NUM_THREADS=1 JITCORE_NUM_THREADS=1 \
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
    PYTHONPATH=. python tools/bench_matmul.py --cpu-time
    # every product form of issue 10's item 6, jitcore against NumPy, one thread then both:
    OPENBLAS_NUM_THREADS=1 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_matmul.py --table
    JITCORE_NUM_THREADS=2 PYTHONPATH=. python tools/bench_matmul.py --table
    # both threads on cores of our own on a loaded host (real-time priority, pinned; each turn
    # after OpenBLAS's workers have parked):
    JITCORE_NUM_THREADS=2 PYTHONPATH=. chrt -f 10 python tools/bench_matmul.py --table --pin --turn-pause 0.15

For each size, form (``a @ b``, ``a.T @ b``, matrix-vector ``a @ v``) and dtype, it times
jitcore as compiled (``gemm.py``'s rule chooses), jitcore forced onto the tiled kernel and
forced onto BLAS (``tiled``, ``blas``: the measurements behind the rule), NumPy, and
``jax.jit`` when JAX is installed, one call of each per round, each round starting with the
next implementation; each time is the median of R rounds after a call that compiles and is
checked against float64. Ratios are the other's median over jitcore's. Each timed call comes
after a pause of ``--settle`` seconds (0.15) and an untimed call of the same implementation:
without it, a library's threads share a core with the previous library's still spinning
(OpenBLAS's workers spin about 0.1 s after a call; jitcore's 1024^2 float64 product measured
1.6x slower right after NumPy's than after a pause, docs/performance.md "Matrix products,
round 3"). ``--settle 0`` times the calls back to back, as before.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import gemm


def forms():
    """Each form's function (``a@v``, ``v@a`` and a batched ``a@b`` are ``a @ b`` of other ranks)."""
    return {"a@b": lambda a, b: a @ b, "a.T@b": lambda a, b: a.T @ b, "a@b.T": lambda a, b: a @ b.T}


def inputs(rng, form: str, dims: tuple[int, ...], dtype: str):
    """The two inputs of ``form`` for ``dims`` (MxKxN, or BxMxKxN: a batch of B products)."""
    *batch, m, k, cols = dims
    a_shape = (k,) if form == "v@a" else (k, m) if form.startswith("a.T") else (m, k)
    b_shape = (k,) if cols == 1 and form == "a@v" else (cols, k) if form.endswith("b.T") else (k, cols)
    return (rng.standard_normal((*batch, *a_shape)).astype(dtype),
            rng.standard_normal((*batch, *b_shape)).astype(dtype))


def compile_forced(fn, tiled: bool, *args):
    """``fn`` compiled with ``gemm.py``'s rule pinned to one side (not kept on disk: the rule's
    constants are not part of the cache key)."""
    jitted = jc.jit(fn, cache=False)
    saved = gemm.TILED_MIN_SIDE, gemm.TILED_MIN_WORK
    gemm.TILED_MIN_SIDE, gemm.TILED_MIN_WORK = (0, 0) if tiled else (1 << 62, 1 << 62)
    try:
        jitted(*args)
    finally:
        gemm.TILED_MIN_SIDE, gemm.TILED_MIN_WORK = saved
    return jitted


CPU_TIME = False  # --cpu-time
SETTLE = 0.0  # --settle


def timed(fn, args, threaded: bool = False) -> float:
    """One call's seconds: wall clock, or with ``CPU_TIME`` the CPU time of this thread (of the
    process for ``threaded``, JAX, which computes on threads of its own: the others' times then
    leave out a thread pool still spinning after JAX's call).

    With ``SETTLE`` seconds, the call is timed after a pause and one untimed call of its own:
    the pause lets the other libraries' thread pools park (OpenBLAS's workers spin about 0.1 s
    after a call, JAX's a while too, each holding a core the next library's threads then
    share), and the untimed call puts this library's own pool in the state that repeated calls
    of it leave (OpenBLAS's spinning, jitcore's parked after a few microseconds)."""
    clock = (time.process_time if threaded else time.thread_time) if CPU_TIME else time.perf_counter
    if SETTLE:
        time.sleep(SETTLE)
        finished(fn(*args))
    start = clock()
    finished(fn(*args))
    return clock() - start


def finished(out) -> None:
    """Wait for ``out`` (JAX returns before it has finished)."""
    for part in out if isinstance(out, tuple) else (out,):
        if hasattr(part, "block_until_ready"):
            part.block_until_ready()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512,1024,2048")
    parser.add_argument("--vectors", default="1024,4096", help="sizes of the matrix-vector products")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--short-repeat", type=int, default=31,
                        help="rounds for the short products (up to 256^3, matrix-vector to 1024^2)")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--shapes", default="",
                        help="rectangular products instead of the squares: FORM:MxKxN,... with FORM"
                             " a@b, a.T@b or a@b.T (the MLP's: a@b:10000x256x16,a.T@b:256x10000x16,...);"
                             " a@v:MxKx1 (matrix-vector), v@a:1xKxN (vector-matrix), a@b:BxMxKxN"
                             " (np.matmul of a batch of B)")
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--mlp", action="store_true",
                        help="time one step of bench.py's MLP workload instead (float32)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time the CPU a call uses, not the wall clock: steadier on a loaded"
                             " machine; run with every library on one thread (see above)")
    parser.add_argument("--interference", action="store_true",
                        help="time jitcore's a @ b (of each size) right after NumPy's and after a"
                             " pause, in turns: what another library's spinning threads cost it")
    parser.add_argument("--loop", action="store_true",
                        help="jitcore (as compiled) and NumPy only, in turns, each turn a loop of calls"
                             " of about 3 ms after a 20 ms pause and one untimed call: CPU time of"
                             " this thread with JITCORE_NUM_THREADS=1, else wall clock (see loop())")
    parser.add_argument("--table", action="store_true",
                        help="every form of table_cases() at each of --sizes, jitcore against NumPy"
                             " as --loop times them (--only 'LABEL;...': those forms)")
    parser.add_argument("--only", default="", help="with --table: these forms only (labels, ';'-separated)")
    parser.add_argument("--turn-pause", type=float, default=0.02,
                        help="with --table: seconds to sleep before each turn (0.15 lets OpenBLAS's"
                             " workers park: they spin about 0.1 s after a call)")
    parser.add_argument("--pin", action="store_true",
                        help="with --table: during each timed loop, this thread on the first CPU and every"
                             " other thread of the process (the libraries' workers) on the others; under"
                             " chrt -f, cores of our own on a loaded host, as on a quiet one")
    parser.add_argument("--settle", type=float, default=0.15,
                        help="seconds to pause before each timed call, which follows an untimed"
                             " one (see timed()); 0: back to back, as before")
    args = parser.parse_args()
    global CPU_TIME, SETTLE
    CPU_TIME, SETTLE = args.cpu_time, args.settle
    jax = None
    if not args.no_jax:
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
        except ImportError:
            jax = None
    if args.mlp:
        mlp(jax, args.repeat)
        return
    if args.interference:
        interference(args.sizes, args.dtypes, args.repeat)
        return
    rng = np.random.default_rng(0)
    if args.loop:
        loop(rng, args.shapes, args.dtypes, args.repeat)
        return
    if args.table:
        table(rng, args.sizes, args.dtypes, args.repeat, args.only, args.turn_pause, args.pin)
        return
    cases = [(form, (n, n, n)) for n in map(int, args.sizes.split(",")) for form in ("a@b", "a.T@b")]
    cases += [("a@v", (n, n, 1)) for n in map(int, args.vectors.split(","))]
    if args.shapes:
        cases = [(form, tuple(map(int, mkn.split("x"))))
                 for form, mkn in (case.split(":") for case in args.shapes.split(","))]
    print(f"{'form':6} {'n':>5} {'dtype':8} {'jitcore':>9} {'tiled':>9} {'blas':>9} {'numpy':>9} {'jax':>9}"
          f" {'np/jc':>6} {'jax/jc':>6}   (ms, medians of {args.repeat}; short ones:"
          f" {max(args.repeat, args.short_repeat)})")
    for dtype in args.dtypes.split(","):
        for form, dims in cases:
            *_, m, k, cols = dims
            fn = forms().get(form, lambda a, b: a @ b)
            a, b = inputs(rng, form, dims, dtype)
            n = k
            impls = {"jitcore": jc.jit(fn, cache=False), "tiled": compile_forced(fn, True, a, b),
                     "blas": compile_forced(fn, False, a, b), "numpy": fn}
            operands = {}
            if jax is not None:
                impls["jax"] = jax.jit(fn)
                operands["jax"] = (jnp.asarray(a), jnp.asarray(b))
            expected = fn(a.astype(np.float64), b.astype(np.float64))
            for name, impl in impls.items():
                got = np.asarray(impl(*operands.get(name, (a, b))))
                scale = np.abs(expected).max() * n * np.finfo(dtype).eps
                assert np.abs(got - expected).max() <= scale, (name, form, n, dtype)
            times = {name: [] for name in impls}
            names = list(impls)
            rounds = args.repeat
            if a.size * cols <= 1 << 24 and a.size + b.size <= 1 << 22:  # well under 1 ms
                rounds = max(rounds, args.short_repeat)
            for r in range(rounds):  # each round starts with the next one: no fixed order
                for name in names[r % len(names):] + names[:r % len(names)]:
                    times[name].append(timed(impls[name], operands.get(name, (a, b)), name == "jax"))
            ms = {name: float(np.median(t)) * 1e3 for name, t in times.items()}
            jax_ms = ms.get("jax", float("nan"))
            size = "x".join(map(str, dims)) if args.shapes else str(m)
            print(f"{form:6} {size:>5} {dtype:8} {ms['jitcore']:9.3f} {ms['tiled']:9.3f} {ms['blas']:9.3f}"
                  f" {ms['numpy']:9.3f} {jax_ms:9.3f} {ms['numpy'] / ms['jitcore']:5.2f}x"
                  f" {jax_ms / ms['jitcore']:5.2f}x", flush=True)


def loop(rng, shapes: str, dtypes: str, repeat: int) -> None:
    """Each product of ``shapes`` (``--shapes``' syntax) timed through jitcore and NumPy in
    turns, ``repeat`` turns each, a turn a loop of calls of about 3 ms (short products are
    timed over many calls, as a caller's loop runs them): the medians and NumPy's over
    jitcore's. The time is of this thread's CPU when jitcore runs on one thread (run NumPy's
    BLAS on one too), so that other processes on a loaded machine count less; else wall."""
    cpu = jc.config.num_threads == 1
    clock = time.thread_time if cpu else time.perf_counter
    print(f"(ms, medians of {repeat} turns; {'CPU time of this thread' if cpu else 'wall clock'})")
    for dtype in dtypes.split(","):
        for form, size in (case.split(":") for case in shapes.split(",")):
            dims = tuple(map(int, size.split("x")))
            a, b = inputs(rng, form, dims, dtype)
            product = forms().get(form, lambda a, b: a @ b)
            impls = {"jitcore": jc.jit(product), "numpy": product}
            impls["jitcore"](a, b)
            calls = max(1, int(3e-3 / (a.size * dims[-1] / 3e10 + 2e-6)))  # about 3 ms a turn
            times = {name: [] for name in impls}
            for r in range(repeat):
                for name in (list(impls) if r % 2 == 0 else list(impls)[::-1]):
                    time.sleep(0.02)
                    impls[name](a, b)
                    start = clock()
                    for _ in range(calls):
                        impls[name](a, b)
                    times[name].append((clock() - start) / calls)
            jc_ms, np_ms = (float(np.median(times[name])) * 1e3 for name in ("jitcore", "numpy"))
            print(f"{form:6} {size:>16} {dtype:8} jc {jc_ms:9.4f} np {np_ms:9.4f} np/jc {np_ms / jc_ms:5.2f}x"
                  f"  ({repeat}x{calls})", flush=True)


def table_cases(n: int):
    """(label, function, input shapes) of every form of a product of side ``n``: the matrix
    products (both operands' layouts, NumPy's other spellings, a batch, a fused bias and
    ReLU, a contraction over two axes) and the matrix-vector ones (each orientation, the
    matrix contiguous or transposed)."""
    sq = [(n, n), (n, n)]
    split = max(1, n // 8)
    return [
        ("a@b", lambda a, b: a @ b, sq),
        ("a.T@b", lambda a, b: a.T @ b, sq),
        ("a@b.T", lambda a, b: a @ b.T, sq),
        ("a.T@b.T", lambda a, b: a.T @ b.T, sq),
        ("dot(a,b)", np.dot, sq),
        ("einsum ij,jk", lambda a, b: np.einsum("ij,jk->ik", a, b), sq),
        ("einsum ik,jk", lambda a, b: np.einsum("ik,jk->ij", a, b), sq),
        ("tensordot 2ax", lambda a, b: np.tensordot(a, b, 2),
         [(n, split, n // split), (split, n // split, n)]),
        ("batch2 a@b", lambda a, b: a @ b, [(2, n, n), (2, n, n)]),
        ("relu(a@b+c)", lambda a, b, c: np.maximum(a @ b + c, 0), [(n, n), (n, n), (n,)]),
        ("A@x", lambda a, x: a @ x, [(n, n), (n,)]),
        ("A.T@x", lambda a, x: a.T @ x, [(n, n), (n,)]),
        ("x@A", lambda a, x: x @ a, [(n, n), (n,)]),
        ("x@A.T", lambda a, x: x @ a.T, [(n, n), (n,)]),
        ("dot(A,x)", np.dot, [(n, n), (n,)]),
    ]


def table(rng, sizes: str, dtypes: str, repeat: int, only: str, pause: float = 0.02,
          pin: bool = False) -> None:
    """Each form of ``table_cases`` at each size and dtype, jitcore (checked against float64
    first) and NumPy in turns as ``loop`` times them (``pause`` seconds before each turn); the
    cells under 0.9x flagged. With ``pin``, each turn's timed loop runs pinned (``pinned``)."""
    cpu = jc.config.num_threads == 1
    clock = time.thread_time if cpu else time.perf_counter
    print(f"threads {jc.config.num_threads}, {'CPU time of this thread' if cpu else 'wall clock'},"
          f" ms, medians of {repeat} turns; load {os.getloadavg()[0]:.1f}", flush=True)
    low = []
    for dtype in dtypes.split(","):
        for n in map(int, sizes.split(",")):
            for label, product, shapes in table_cases(n):
                if only and label not in only.split(";"):
                    continue
                args = [rng.standard_normal(s).astype(dtype) for s in shapes]
                jitted = jc.jit(product, cache=False)
                want = product(*(x.astype(np.float64) for x in args))
                scale = np.abs(want).max() * n * np.finfo(dtype).eps
                assert np.abs(jitted(*args) - want).max() <= scale, (label, n, dtype)
                work = max(n * n, np.prod(shapes[0]) * shapes[1][-1] if len(shapes[1]) > 1 else 0)
                calls = max(1, int(3e-3 / (work / 3e10 + 2e-6)))  # about 3 ms a turn
                impls = {"jitcore": jitted, "numpy": product}
                times = {name: [] for name in impls}
                start = time.perf_counter()
                product(*args)
                slow = time.perf_counter() - start > 0.3  # NumPy's einsum loops at 1024^2 and up
                for r in range(3 if slow else repeat):
                    for name in (list(impls) if r % 2 == 0 else list(impls)[::-1]):
                        time.sleep(pause)
                        impls[name](*args)
                        with pinned(pin):
                            start = clock()
                            for _ in range(calls):
                                impls[name](*args)
                            times[name].append((clock() - start) / calls)
                jc_ms, np_ms = (float(np.median(times[name])) * 1e3 for name in impls)
                flag = "  <0.9" if np_ms / jc_ms < 0.9 else ""
                if flag:
                    low.append(f"{label} {n} {dtype} {np_ms / jc_ms:.2f}x")
                print(f"{label:14} {n:5} {dtype:8} jc {jc_ms:9.4f} np {np_ms:9.4f} np/jc"
                      f" {np_ms / jc_ms:5.2f}x ({len(times['numpy'])}x{calls}){flag}", flush=True)
    print(f"under 0.9x ({len(low)}): " + "; ".join(low) + f"; load {os.getloadavg()[0]:.1f}")


CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


@contextmanager
def pinned(pin: bool):
    """With ``pin``: this thread on the first CPU, the process's other threads on the rest
    (Linux), and this thread on every CPU again after (a compile counts them: split_chunks).
    Pinned after a turn's untimed call, so the threads it starts are there to pin."""
    if not pin or len(CPUS) < 2:
        yield
        return
    me = threading.get_native_id()
    for task in map(int, os.listdir("/proc/self/task")):
        try:
            os.sched_setaffinity(task, {CPUS[0]} if task == me else set(CPUS[1:]))
        except OSError:  # a thread that ended meanwhile
            pass
    try:
        yield
    finally:
        os.sched_setaffinity(0, CPUS)


def interference(sizes: str, dtypes: str, repeat: int) -> None:
    """jitcore's ``a @ b`` timed right after NumPy's (OpenBLAS's workers still spinning) and
    after a pause of ``SETTLE`` seconds (parked), and NumPy's likewise, in turns."""
    rng = np.random.default_rng(0)
    for dtype in dtypes.split(","):
        for n in map(int, sizes.split(",")):
            a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
            product = forms()["a@b"]
            jitted = jc.jit(product, cache=False)
            jitted(a, b)
            times = {"jitcore after numpy": [], "jitcore after a pause": [],
                     "numpy after numpy": [], "numpy after a pause": []}
            for _ in range(repeat):
                for name, impl in (("jitcore", jitted), ("numpy", product)):
                    product(a, b)
                    times[f"{name} after numpy"].append(_wall(impl, a, b))
                    time.sleep(SETTLE)
                    times[f"{name} after a pause"].append(_wall(impl, a, b))
            print(f"a@b {n} {dtype} (ms, medians of {repeat}): "
                  + ", ".join(f"{k} {np.median(v) * 1e3:.3f}" for k, v in times.items()), flush=True)


def _wall(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def mlp(jax, repeat: int) -> None:
    """One SGD step of ``tools/bench_workloads.py``'s MLP (its inputs, float32), per
    implementation, the same rounds as the products."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_workloads import _mlp_inputs, _mlp_shapes, mlp_step

    args = _mlp_inputs(np.random.default_rng(0), _mlp_shapes(1.0), np.float32)
    impls = {"jitcore": jc.jit(mlp_step, cache=False), "blas": compile_forced(mlp_step, False, *args),
             "numpy": mlp_step}
    operands = {}
    if jax is not None:
        import jax.numpy as jnp
        from bench_workloads import _with_np
        impls["jax"] = jax.jit(_with_np(mlp_step, jnp))
        operands["jax"] = tuple(jnp.asarray(a) for a in args)
        impls["jax"](*operands["jax"])
    impls["jitcore"](*args)
    names, times = list(impls), {name: [] for name in impls}
    for r in range(repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(timed(impls[name], operands.get(name, args), name == "jax"))
    ms = {name: float(np.median(t)) * 1e3 for name, t in times.items()}
    print(f"MLP step (ms, medians of {repeat}): " + ", ".join(f"{k} {v:.2f}" for k, v in ms.items()))


if __name__ == "__main__":
    main()
