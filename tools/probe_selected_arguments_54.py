"""Session 54 (refuse54): programs with selections as arguments, jit against NumPy."""

import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")


def fill_interp(x):
    good = ~np.isnan(x)
    t = np.arange(x.size)
    return np.interp(t, t[good], x[good])


def izh(S, v, base):
    fired = np.where(v >= 30)[0]
    return base + S[:, fired].sum(axis=1)


def relabel(lab):
    return np.searchsorted(np.unique(lab), lab)


rng = np.random.default_rng(0)
x = rng.normal(size=10**6)
x[rng.random(x.size) < 0.3] = np.nan
S = rng.random((1000, 1000))
v = rng.normal(20, 20, 1000)
base = np.zeros(1000)
lab = rng.integers(0, 10**4, 10**6) * 7


def med(f, *a, k=9):
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        f(*a)
        ts.append(time.perf_counter() - t)
    return sorted(ts)[k // 2] * 1e3


for name, f, args in (
    ("interp gap fill 1e6 (30% NaN)", fill_interp, (x,)),
    ("S[:, where(v>=30)[0]].sum(1) 1000^2", izh, (S, v, base)),
    ("searchsorted(unique(lab), lab) 1e6", relabel, (lab,)),
):
    jf = jc.jit(f)
    r = jf(*args)
    e = f(*args)
    assert np.allclose(r, e, equal_nan=True, rtol=1e-13)
    a, b = [], []
    for _ in range(3):
        a.append(med(f, *args))
        b.append(med(jf, *args))
    print(
        f"{name}: NumPy {sorted(a)[1]:.2f} ms, jit {sorted(b)[1]:.2f} ms, "
        f"ratio {sorted(a)[1] / sorted(b)[1]:.2f}x"
    )
