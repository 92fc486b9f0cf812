"""Window reductions (session 44): NumPy against jitcore before and after, in one run.

    python tools/bench_windows.py --before /work/main            (about 1-2 minutes)
    python tools/bench_windows.py --before /work/main --quick    (n = 10**5 rows only)

Each implementation runs in a subprocess of its own (``--worker``): NumPy, then jitcore from
the ``--before`` tree, then from this tree (the ``PYTHONPATH`` of each is its tree). A case is
called once to compile, once more to measure its memory, then timed (``timeit``-style: calls
until 0.25 s have passed, at least 2 and at most 9, one where a call takes over a second) and
its median reported. Peak memory: Linux's peak resident size is reset (``/proc/self/clear_refs``
= 5) before the second call and read after it (``VmHWM``); the table gives the peak above the
resident size before the call: memory the call had to take beyond what the process already
held (the inputs, the code, and heap pages freed earlier that the allocator hands out again,
which is where an output of a few MiB usually comes from: 0.0 there), so an (n, m) temporary
shows, a small output may not. jitcore's buffer pool is off meanwhile; tracemalloc would not
see the buffers that compiled code allocates natively. The machine's load shows in the
medians: compare rows run together, not across runs.

Cases: ``np.convolve(x, k, mode)`` for the three modes, ``len(k)`` 7, 31, 255 and ``len(x)``
10**5 and 10**6; a full autocorrelation ``np.correlate(x, x, 'full')`` of 4096 points; a
moving RMS ``np.sqrt(np.convolve(x**2, np.ones(w)/w, 'valid'))`` (w = 255, n = 10**6); and
``sliding_window_view(x, 64).mean(-1)`` and ``.max(-1)`` (n = 10**6); float64 and float32.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent


def _convolve(mode):
    def f(x, k):
        return np.convolve(x, k, mode)
    f.__name__ = f"convolve_{mode}"
    return f


def autocorrelation(x, k):
    return np.correlate(x, x, "full")


def moving_rms(x, k):
    w = k.shape[0]
    return np.sqrt(np.convolve(x ** 2, np.ones(w, x.dtype) / w, "valid"))


def window_mean(x, k):
    return np.lib.stride_tricks.sliding_window_view(x, 64).mean(-1)


def window_max(x, k):
    return np.lib.stride_tricks.sliding_window_view(x, 64).max(-1)


CONVOLVE = {mode: _convolve(mode) for mode in ("valid", "same", "full")}


def cases(quick: bool):
    """(name, function, n, m) for every row of the table."""
    out = []
    for n in ((10 ** 5,) if quick else (10 ** 5, 10 ** 6)):
        for m in (7, 31, 255):
            for mode, f in CONVOLVE.items():
                out.append((f"convolve {mode}", f, n, m))
    out.append(("correlate(x, x, 'full')", autocorrelation, 4096, 4096))
    n = 10 ** 5 if quick else 10 ** 6
    out.append(("moving RMS, w=255", moving_rms, n, 255))
    out.append(("sliding mean(-1), w=64", window_mean, n, 64))
    out.append(("sliding max(-1), w=64", window_max, n, 64))
    return out


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


def _peak_of(call) -> int | None:
    """Bytes of resident memory the call added at its peak (None where Linux cannot say)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _status("VmRSS")
        result = call()
        peak = _status("VmHWM") - before
        del result
        return max(peak, 0)
    except OSError:
        return None


def _median_time(call) -> float:
    times = []
    spent = 0.0
    while len(times) < 9:
        start = time.perf_counter()
        call()
        t = time.perf_counter() - start
        times.append(t)
        spent += t
        if (spent > 0.25 and len(times) >= 2) or t > 1.0:
            break
    return float(np.median(times))


def worker(impl: str, quick: bool) -> None:
    if impl == "numpy":
        wrap = lambda f: f  # noqa: E731
    else:
        import jitcore as jc
        jc.config.buffer_pool_bytes = 0
        wrap = jc.jit
    rng = np.random.default_rng(44)
    for dtype in (np.float64, np.float32):
        for name, f, n, m in cases(quick):
            x = rng.standard_normal(n).astype(dtype)
            k = rng.standard_normal(m).astype(dtype)
            g = wrap(f)
            record = {"case": name, "dtype": np.dtype(dtype).name, "n": n, "m": m}
            try:
                start = time.perf_counter()
                expected = g(x, k)
                record["first_s"] = time.perf_counter() - start
                record["peak_bytes"] = _peak_of(lambda g=g, x=x, k=k: g(x, k))  # (a second warm-up)
                record["median_s"] = _median_time(lambda g=g, x=x, k=k: g(x, k))
                record["checksum"] = float(np.sum(np.abs(np.asarray(expected, np.float64))))
            except Exception as e:  # reported in the table, not fatal
                record["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
            print(json.dumps(record), flush=True)


def run(impl: str, tree: Path | None, quick: bool) -> list[dict]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", impl]
    command += ["--quick"] if quick else []
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd="/")
    if done.returncode:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"{impl} worker failed ({tree})")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _ms(r: dict) -> str:
    return r.get("error", "")[:20] if "median_s" not in r else f"{r['median_s'] * 1e3:.2f}"


def _mib(r: dict) -> str:
    peak = r.get("peak_bytes")
    return "-" if peak is None else f"{peak / 2 ** 20:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the tree to compare with (e.g. /work/main)")
    parser.add_argument("--quick", action="store_true", help="n = 10**5 only")
    parser.add_argument("--worker", choices=("numpy", "jitcore"), help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="write the records here")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.quick)
        return
    start = time.perf_counter()
    runs = {"numpy": run("numpy", None, args.quick)}
    if args.before is not None:
        runs["before"] = run("jitcore", args.before.resolve(), args.quick)
    runs["after"] = run("jitcore", HERE, args.quick)
    names = list(runs)
    print("| case | dtype | n | m | " + " | ".join(f"{k} ms" for k in names) + " | after/numpy | "
          + " | ".join(f"{k} peak MiB" for k in names) + " |")
    print("|" + " --- |" * (4 + 2 * len(names) + 1))
    for rows in zip(*runs.values()):
        r0, after = rows[0], rows[-1]
        ratio = (f"{after['median_s'] / r0['median_s']:.2f}" if "median_s" in after and "median_s" in r0
                 else "-")
        times, peaks = " | ".join(_ms(r) for r in rows), " | ".join(_mib(r) for r in rows)
        print(f"| {r0['case']} | {r0['dtype']} | {r0['n']} | {r0['m']} | {times} | {ratio} | {peaks} |")
    firsts = [r["first_s"] for r in runs["after"] if "first_s" in r]
    print(f"\nafter: first calls (compile + run) {min(firsts):.2f}-{max(firsts):.2f} s; "
          f"whole run {time.perf_counter() - start:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
