#!/usr/bin/env python
"""NumPy's contraction family under jit against NumPy and JAX: einsum's common forms,
tensordot, dot, vdot, inner, outer and batched/broadcast matmul (issue 10, item 6).

    PYTHONPATH=. python tools/bench_contract.py [--size big|small|both] [--repeat R]
        [--dtypes f32,f64] [--only SUBSTR] [--no-jax]

Each case is compiled, checked against NumPy (float64 reference, relative tolerance), then
timed in rounds: one call of each implementation per round, the order rotating, medians of R
rounds. Ratios are NumPy's (and JAX's) median over jitcore's: above 1, jitcore is faster.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc


def cases(size: str):
    """(label, numpy function, shapes) per case; ``size`` picks the extents."""
    if size == "big":
        n, b, v = 512, 64, 1 << 20
    else:
        n, b, v = 24, 8, 512
    es = [
        ("ij,jk->ik", [(n, n), (n, n)]), ("ij,kj->ik", [(n, n), (n, n)]),
        ("ji,jk->ik", [(n, n), (n, n)]), ("bij,bjk->bik", [(b, b, b), (b, b, b)]),
        ("ij,j->i", [(2 * n, 2 * n), (2 * n,)]), ("i,i->", [(v,), (v,)]),
        ("ij,ij->i", [(2 * n, 2 * n), (2 * n, 2 * n)]), ("ij,ij->", [(2 * n, 2 * n), (2 * n, 2 * n)]),
        ("i,j->ij", [(2 * n,), (2 * n,)]), ("ijk,kl->ijl", [(b, b, n // 2), (n // 2, n // 2)]),
        ("ii->", [(2 * n, 2 * n)]), ("ii->i", [(2 * n, 2 * n)]), ("ij->ji", [(2 * n, 2 * n)]),
    ]
    out = [(f"einsum {s}", _einsum(s), shapes) for s, shapes in es]
    out += [
        ("tensordot axes=1", lambda a, c: np.tensordot(a, c, 1), [(n, n), (n, n)]),
        ("tensordot axes=2", lambda a, c: np.tensordot(a, c, 2), [(b, b, n // 2), (b, n // 2, n // 4)]),
        ("tensordot axes=([1,0],[0,1])", lambda a, c: np.tensordot(a, c, ([1, 0], [0, 1])),
         [(b, n // 2, b), (n // 2, b, n // 4)]),
        ("dot 2-D", np.dot, [(n, n), (n, n)]),
        ("dot 2-D,1-D", np.dot, [(2 * n, 2 * n), (2 * n,)]),
        ("dot 1-D,1-D", np.dot, [(v,), (v,)]),
        ("dot N-D,2-D", np.dot, [(b, b, n // 2), (n // 2, n // 2)]),
        ("dot N-D,N-D", np.dot, [(4, b // 2, n // 4), (4, n // 4, b // 2)]),
        ("vdot", np.vdot, [(2 * n, 2 * n), (2 * n, 2 * n)]),
        ("inner 2-D", np.inner, [(n, n), (n, n)]),
        ("outer", np.outer, [(2 * n,), (2 * n,)]),
        ("matmul batched", np.matmul, [(b, b, b), (b, b, b)]),
        ("matmul 3-D @ 2-D", np.matmul, [(b, b, n // 2), (n // 2, n // 2)]),
        ("matmul 2-D @ 3-D", np.matmul, [(n // 2, n // 2), (b, n // 2, b)]),
    ]
    return out


def _einsum(subscripts: str):
    return lambda *xs: np.einsum(subscripts, *xs)


def median_times(impls, args, repeat):
    times = {name: [] for name in impls}
    names = list(impls)
    for r in range(repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            impls[name](*args[name])
            times[name].append(time.perf_counter() - t0)
    return {name: float(np.median(ts)) * 1e3 for name, ts in times.items()}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", default="both", choices=["big", "small", "both"])
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--dtypes", default="f32,f64")
    p.add_argument("--only", default="")
    p.add_argument("--no-jax", action="store_true")
    opts = p.parse_args()
    jax = jnp = None
    if not opts.no_jax:
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
        except ImportError:
            pass
    rng = np.random.default_rng(0)
    print("| case | size | dtype | shapes | jitcore ms | NumPy ms | JAX ms | NumPy/jc | JAX/jc |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for size in (["big", "small"] if opts.size == "both" else [opts.size]):
        for label, fn, shapes in cases(size):
            if opts.only and opts.only not in label:
                continue
            for dt in opts.dtypes.split(","):
                dtype = {"f32": np.float32, "f64": np.float64}[dt]
                xs = [rng.standard_normal(s).astype(dtype) for s in shapes]
                jitted = jc.jit(fn)
                got, want = np.asarray(jitted(*xs)), fn(*[x.astype(np.float64) for x in xs])
                scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
                tol = 1e-3 if dt == "f32" else 1e-10
                ok = got.shape == np.shape(want) and np.allclose(got, want, rtol=tol, atol=tol * scale)
                impls = {"jitcore": jitted, "numpy": fn}
                args = {"jitcore": xs, "numpy": xs}
                if jnp is not None:
                    jfn = jax.jit(_jax_version(label, jnp))
                    jargs = [jnp.asarray(x) for x in xs]
                    jfn(*jargs).block_until_ready()
                    impls["jax"] = lambda *a, jfn=jfn: jfn(*a).block_until_ready()
                    args["jax"] = jargs
                t = median_times(impls, args, opts.repeat)
                jx = t.get("jax")
                jc_ms = t["jitcore"]
                jax_ms = "" if jx is None else f"{jx:.4f}"
                jax_ratio = "" if jx is None else f"{jx / jc_ms:.2f}x"
                print(f"| {label} | {size} | {dt} | {' '.join('x'.join(map(str, s)) for s in shapes)} | "
                      f"{jc_ms:.4f} | {t['numpy']:.4f} | {jax_ms} | {t['numpy'] / jc_ms:.2f}x | {jax_ratio}"
                      f"{'' if ok else ' WRONG'} |", flush=True)


def _jax_version(label, jnp):
    """The JAX spelling of a case (jnp mirrors NumPy's names)."""
    if label.startswith("einsum "):
        s = label.split()[1]
        return lambda *xs: jnp.einsum(s, *xs)
    name = label.split()[0]
    if name == "tensordot":
        axes = {"axes=1": 1, "axes=2": 2}.get(label.split()[1], ([1, 0], [0, 1]))
        return lambda a, c: jnp.tensordot(a, c, axes)
    return getattr(jnp, name)


if __name__ == "__main__":
    main()
