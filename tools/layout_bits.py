"""Results of many reductions over arguments of every layout class, dumped to compare two trees
bit for bit (docs/performance.md, "One kernel per layout class"): results and their strides,
in-place writes, a global array, tiny and 1-d and 3-d shapes.

    JITCORE_CACHE=0 PYTHONPATH=. python tools/layout_bits.py dump OUT.pkl     # in each tree
    python tools/layout_bits.py compare BEFORE.pkl AFTER.pkl
"""

from __future__ import annotations

import pickle
import sys

import numpy as np

G = np.asfortranarray(np.random.default_rng(7).standard_normal((64, 48)))  # a global F array


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


FUNCTIONS = {
    "sum": lambda x: x.sum(),
    "sum0": lambda x: x.sum(axis=0),
    "sum1": lambda x: x.sum(axis=1),
    "sum0k": lambda x: x.sum(axis=0, keepdims=True),
    "x2sum": lambda x: (x * 2).sum(),
    "x2sum1": lambda x: (x * 2).sum(axis=1),
    "expsum0": lambda x: np.exp(x * 1e-2).sum(axis=0),
    "prod1": lambda x: (1 + x * 1e-3).prod(axis=1),
    "mean": lambda x: x.mean(),
    "std0": lambda x: x.std(axis=0),
    "var1": lambda x: x.var(axis=1),
    "max0": lambda x: x.max(axis=0),
    "argmax1": lambda x: x.argmax(axis=1),
    "cumsum0": lambda x: np.cumsum(x, axis=0),
    "ew": lambda x: x * 2 + 1,
    "softmax": _softmax,
    "dot": lambda x: x.T @ x,
    "glob": lambda x: (x[:64, :48] * G).sum(axis=0) if x.shape[0] >= 64 else (x * 1).sum(),
}
# The functions run on every class of the small shapes and in float64.
SHORT_LIST = ("sum", "sum0", "sum1", "x2sum1", "glob")
KINDS = ("C", "F", "reversed", "strided", "broadcast", "Cflip0", "Cflip1", "Fflip0", "Fflip1", "Frev")


def _inplace(x):
    x[0] = 5.0
    x *= 2
    return x.sum()


def _view(a: np.ndarray, kind: str) -> np.ndarray:
    """``a``'s values in the layout ``kind`` (the kinds of tests/layouts.py, which a tool may not
    import, and dense arrays with some axes flipped)."""
    back = slice(None, None, -1)
    if kind == "broadcast":  # stride 0 along the last axis
        return np.broadcast_to(a[..., :1], a.shape)
    if kind == "strided":  # every other element of a buffer twice as long on every axis
        view = np.zeros(tuple(2 * n for n in a.shape), a.dtype)[(slice(None, None, 2),) * a.ndim]
        view[...] = a
        return view
    if kind in ("C", "F", "reversed"):  # copies
        index = (back,) * a.ndim if kind == "reversed" else ()
        return np.array(a[index], order="F" if kind == "F" else "C")[index]
    dense, index = {"Cflip0": (np.ascontiguousarray, (back,)),
                    "Cflip1": (np.ascontiguousarray, (slice(None), back)),
                    "Fflip0": (np.asfortranarray, (back,)),
                    "Fflip1": (np.asfortranarray, (slice(None), back)),
                    "Frev": (np.asfortranarray, (back, back))}[kind]
    return dense(a[index])[index]


def dump(path: str) -> None:
    import jitcore as jc

    rng = np.random.default_rng(7)
    jitted = {name: jc.jit(fn) for name, fn in FUNCTIONS.items()}
    inplace = jc.jit(_inplace)
    out = {}
    for dt in (np.float32, np.float64):
        for shape in ((300, 70), (5, 3), (1, 257)):
            base = (rng.standard_normal(shape) * 1e3).astype(dt)
            base[::3] = dt(1e-3)
            for kind in KINDS:
                if shape != (300, 70) and kind not in ("F", "reversed", "Cflip0"):
                    continue
                for name, fn in jitted.items():
                    if (shape != (300, 70) or dt is np.float64) and name not in SHORT_LIST:
                        continue
                    try:
                        r = np.asarray(fn(_view(base, kind)))
                        out[(dt.__name__, shape, kind, name)] = (r.copy(), r.strides)
                    except Exception as e:  # the same error in both trees is the same result
                        out[(dt.__name__, shape, kind, name)] = repr(e)[:200]
                if kind != "broadcast":
                    x = _view(base, kind)
                    out[(dt.__name__, shape, kind, "inplace")] = (np.asarray(inplace(x)).copy(), x.copy())
        for n in (1000, 130, 7):
            v = (rng.standard_normal(n) * 1e3).astype(dt)
            for kind in ("C", "reversed", "strided"):
                for name in ("sum", "x2sum", "mean", "max0", "cumsum0"):
                    out[(dt.__name__, n, kind, name)] = np.asarray(jitted[name](_view(v, kind))).copy()
        a3 = (rng.standard_normal((20, 30, 40)) * 1e3).astype(dt)
        for kind in ("F", "reversed"):
            x = _view(a3, kind)
            for ax in (None, 0, 1, 2, (0, 1), (1, 2), (0, 2)):
                r = jc.jit(lambda x, ax=ax: x.sum(axis=ax))(x)
                out[(dt.__name__, "3d", kind, str(ax))] = np.asarray(r).copy()
    with open(path, "wb") as f:
        pickle.dump(out, f)
    print(len(out), "results")


def compare(before: str, after: str) -> int:
    with open(before, "rb") as f:
        a = pickle.load(f)
    with open(after, "rb") as f:
        b = pickle.load(f)
    bad = 0
    for k, x in a.items():
        y = b.get(k)
        if isinstance(x, str) or isinstance(y, str):
            same = x == y
        else:
            xs, ys = (x, y) if isinstance(x, tuple) else ((x,), (y,))
            same = len(xs) == len(ys) and all(
                np.asarray(p).dtype == np.asarray(q).dtype and np.array_equal(p, q, equal_nan=True)
                for p, q in zip(xs, ys))
        if not same:
            bad += 1
            print("differs:", k)
    print(f"{len(a)} results before, {len(b)} after, {bad} differ")
    return int(bad > 0 or len(a) != len(b))


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
