"""``python -m jitcore``: a short demo that jitcore installed and works on this machine.

Compiles two small functions, checks them against NumPy on 10 million float32 numbers, shows
the IR of ``g`` before and after optimisation (one fused kernel), and times both against NumPy.

``python -m jitcore cache info`` shows the disk cache (its directory, state, entries and size);
``python -m jitcore cache clear`` empties it (``jitcore/disk_cache.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp


@jc.jit
def f(x, y):
    z = x + y
    w = jnp.sin(z)
    return w


@jc.jit
def g(x):
    a = x * 2
    b = a + 1
    c = jnp.tanh(b)
    return c


def max_ulp(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance between two float32 arrays in units in the last place."""

    def ordered(x):
        i = np.ascontiguousarray(x, dtype=np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(2**31) - i, i)

    return int(np.max(np.abs(ordered(a) - ordered(b)))) if a.size else 0


def median_seconds(fn, *args, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    n = 10_000_000
    rng = np.random.default_rng(0)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    cases = [("f(x, y) = sin(x + y)", f, lambda x, y: np.sin(x + y), (x, y)),
             ("g(x) = tanh(2x + 1)", g, lambda x: np.tanh(x * 2 + 1), (x,))]

    print(f"jitcore demo: float32 arrays of {n:,} elements\n")
    ok = True
    for title, jitted, reference, args in cases:
        start = time.perf_counter()
        got = jitted(*args)
        first = time.perf_counter() - start
        want = reference(*args)
        same_kind = got.dtype == want.dtype and got.shape == want.shape
        close = same_kind and np.allclose(got, want, rtol=1e-6, atol=1e-6)
        ok &= close
        print(f"{title}: first call (trace, optimise, compile, run) {first * 1e3:.0f} ms; "
              f"matches NumPy: {close} (max {max_ulp(got, want)} ULP)")

    small = np.zeros(8, np.float32)
    print("\ng traced on f32[8] (jc.make_ir(g)(x)):")
    print(jc.make_ir(g)(small))
    print("\ng optimised (g.lower(x).as_text('optimized')): one fused kernel.generic")
    print(g.lower(small).as_text("optimized"))

    print("\nmedian of 7 runs:")
    for title, jitted, reference, args in cases:
        t_jit = median_seconds(jitted, *args)
        t_np = median_seconds(reference, *args)
        print(f"  {title:22}  jitcore {t_jit * 1e3:7.2f} ms   NumPy {t_np * 1e3:7.2f} ms   "
              f"jitcore is {t_np / t_jit:.2f}x NumPy's speed")
    if not ok:
        raise SystemExit("jitcore's results differ from NumPy's")


def cache_command(action: str) -> None:
    from jitcore import disk_cache

    if action == "info":
        print(disk_cache.describe(disk_cache.info()))
    else:
        removed = disk_cache.cache_clear()
        print(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {jc.config.cache_dir}")


def command_line(argv: list[str]) -> None:
    if not argv:
        main()
        return
    parser = argparse.ArgumentParser(prog="python -m jitcore", description="Without arguments: a demo.")
    commands = parser.add_subparsers(dest="command", required=True)
    cache = commands.add_parser("cache", help="the disk cache of compiled functions")
    cache.add_argument("action", choices=("info", "clear"))
    cache_command(parser.parse_args(argv).action)


if __name__ == "__main__":
    command_line(sys.argv[1:])
