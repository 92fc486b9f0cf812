#!/usr/bin/env python3
"""The fixed cost of a cached call, in thread CPU time: jitcore's calls of small arrays against
NumPy's and Numba's, each variant timed in turn over batches of calls.

    python tools/bench_dispatch.py [--batches B] [--calls N] [--kinds]

Thread CPU time, not wall time: on a shared host the wall clock mostly measures the other
processes (``tools/bench.py --only dispatch`` prints wall time). The variants take turns, batch
by batch, so all see the same load; each row is the minimum and the median over the batches,
in µs per call. To compare two checkouts, run this in each, in turn, a few times.

Rows: ``f(x, y) = tanh(x * 2 + y)`` and ``g(x) = tanh(x * 2 + 1)`` on float32[8] (the native
call of ``jitcore.native_call``), ``x[i]`` (code that checks indices: status words), calls
with numbers, strided arrays, keywords and static arguments (native too), a jitted method (the
full Python path: its instance's state is a static argument); NumPy's three ufuncs for ``f``
and Numba's ``njit`` of it where Numba is installed. ``--kinds`` adds the other ways to call:
keywords in another order, a default omitted or given, a static argument by position or left to
its default, ``*args``, ``functools.partial`` with a positional argument, and a Python loop
calling ``f`` on each of 100 arrays in a list (the row: the whole loop). ``--forms`` adds the
forms of a function (``call_forms``: jitted methods, static and class methods, ``jit`` of a
bound method, a partial, a callable object) and arguments of other kinds (a 0-d array, a NumPy
scalar, a Python float, a list, an ``out`` argument, a global array rebound between calls, and
the other call-time inputs and containers of arrays);
``--only-forms`` runs those and ``f(x, y)`` alone. ``--results`` adds results of other shapes
(``result_forms``: lists, dicts, nested and named tuples, ``x.item(0)``, ``[x[0], x[1]]``,
``tolist()``, a returned loop counter, constant outputs), nested container arguments and
random draws (``np.random`` inside the function, NumPy's own draws for scale);
``--only-results`` runs those and ``f(x, y)`` alone.
"""

from __future__ import annotations

import argparse
import collections
import functools
import statistics
import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp


def variants(kinds: bool = False) -> dict:
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = x[::-1].copy()
    index = np.array([1, 3, 5])
    strided = np.ones((4, 4), np.float32)[:, ::2]
    every_other = np.linspace(-1, 1, 16, dtype=np.float32)[::2]
    f = jc.jit(lambda x, y: jnp.tanh(x * 2 + y))
    g = jc.jit(lambda x: jnp.tanh(x * 2 + 1))
    take = jc.jit(lambda x, i: x[i])
    scale = jc.jit(lambda x, s: x * s)
    total = jc.jit(lambda m, axis: m.sum(axis=axis), static_argnames=("axis",))
    m = np.ones((4, 8), np.float32)
    keyword = functools.partial(f, y=y)

    class Model:
        @jc.jit
        def apply(self, x, y):
            return jnp.tanh(x * 2 + y)

    model = Model()
    rows = {
        "jitcore f(x, y)": lambda: f(x, y),
        "jitcore g(x)": lambda: g(x),
        "jitcore x[i] (index checks)": lambda: take(x, index),
        "jitcore f(x, y=y) (keywords)": lambda: f(x, y=y),
        "jitcore sum(m, axis=1) (a static keyword)": lambda: total(m, axis=1),
        "jitcore partial(f, y=y)(x)": lambda: keyword(x),
        "jitcore model.apply(x, y) (a jitted method)": lambda: model.apply(x, y),
        "jitcore x * 2.0 (a Python scalar)": lambda: scale(x, 2.0),
        "jitcore f(xs, xs) (strided)": lambda: f(strided, strided),
        "jitcore g(x[::2]) (strided 1-d)": lambda: g(every_other),
        "jitcore x * 3 (a Python int)": lambda: scale(x, 3),
        "jitcore x * np.float32(2) (a NumPy scalar)": lambda: scale(x, np.float32(2)),
        "numpy np.tanh(x * 2 + y)": lambda: np.tanh(x * 2 + y),
    }
    if kinds:
        rows.update(call_kinds(f, x, y, m))
    try:
        import numba
    except ImportError:
        return rows
    nb = numba.njit(lambda x, y: np.tanh(x * 2 + y))
    rows["numba f(x, y)"] = lambda: nb(x, y)
    return rows


def call_kinds(f, x, y, m) -> dict:
    def shifted(x, y, s=2.0):
        return jnp.tanh(x * s + y)

    def summed(m, axis=0):
        return m.sum(axis=axis)

    def added(*xs):
        return xs[0] * 2 + xs[1]

    default, total, star = jc.jit(shifted), jc.jit(summed, static_argnames=("axis",)), jc.jit(added)
    positional = functools.partial(f, x)
    xs = [x] * 100

    def per_element():
        for a in xs:
            f(a, y)

    return {
        "jitcore f(y=y, x=x) (keywords reordered)": lambda: f(y=y, x=x),
        "jitcore d(x, y) (default s omitted)": lambda: default(x, y),
        "jitcore d(x, y, s=3.0) (default given)": lambda: default(x, y, s=3.0),
        "jitcore sum(m, 1) (a static by position)": lambda: total(m, 1),
        "jitcore sum(m) (a static's default)": lambda: total(m),
        "jitcore star(x, y) (*args)": lambda: star(x, y),
        "jitcore partial(f, x)(y)": lambda: positional(y),
        "jitcore f(a, y) for 100 a in a list (all 100)": per_element,
    }


GLOBAL_WEIGHTS = np.ones(8, np.float32)  # the global array a call_forms row reads (and rebinds)


def _weighted(x):
    return x * GLOBAL_WEIGHTS


GLOBAL_OFFSET = 0.5  # a global number a call_forms row reads (a guarded value)


def _offset(x):
    return x + GLOBAL_OFFSET


def call_forms() -> dict:
    """The forms of a function besides a plain one, and arguments of other kinds: a jitted
    method (``@jit`` in the class body), its static and class methods, ``jit`` of a bound
    method, of a ``functools.partial`` and of a callable object; a 0-d array, a NumPy scalar, a
    Python float, a list, an ``out``-like keyword argument, and a global array rebound between
    calls (two arrays in turn); an in-place update, a global array not rebound, a closed-over and
    a default array, a global number, tuples, lists and dicts of arrays; NumPy's ``out=`` call and
    product for scale."""
    global GLOBAL_WEIGHTS
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = x[::-1].copy()

    def plain(x, y, s=2.0):
        return jnp.tanh(x * s + y)

    class Model:
        def __init__(self):
            self.s = 2.0
            self.w = np.full(8, 0.5, np.float32)

        @jc.jit
        def apply(self, x, y):
            return jnp.tanh(x * self.s + y)

        @jc.jit
        def weighted(self, x):
            return x * self.w

        def raw(self, x, y):
            return jnp.tanh(x * self.s + y)

        @jc.jit
        @staticmethod
        def static(x, y):
            return jnp.tanh(x * 2 + y)

        @jc.jit
        @classmethod
        def klass(cls, x, y):
            return jnp.tanh(x * cls.S + y)

        S = 2.0

    class Clip:
        def __init__(self, limit):
            self.limit = limit

        def __call__(self, x, y):
            return jnp.minimum(x + y, self.limit)

    model = Model()
    bound = jc.jit(model.raw)
    partial = jc.jit(functools.partial(plain, s=3.0))
    clip = jc.jit(Clip(0.5))
    f = jc.jit(plain)
    scalar0 = np.float32(0.25)
    zero_d = np.array(0.25, np.float32)
    listed = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    total = jc.jit(lambda a: a * 2)

    def into(x, y, out):
        out[...] = x * 2 + y
        return out

    out = np.empty(8, np.float32)
    into_jit = jc.jit(into)

    def increment(a):
        a += 1

    counter = np.zeros(8, np.float32)
    increment_jit = jc.jit(increment)
    scale = np.full(8, 0.5, np.float32)

    def closed(x):
        return x * scale

    def defaulted(x, w=np.full(8, 0.5, np.float32)):  # noqa: B008  (a default array: the row)
        return x * w

    closed_jit, defaulted_jit, offset_jit = jc.jit(closed), jc.jit(defaulted), jc.jit(_offset)
    pair_sum = jc.jit(lambda xs: xs[0] * 2 + xs[1])
    layer = jc.jit(lambda p, x: x * p["w"] + p["b"])
    params = {"w": scale, "b": y}
    weighted = jc.jit(_weighted)
    pair = (np.ones(8, np.float32), np.full(8, 2.0, np.float32))
    turn = [0]

    def rebinding():
        global GLOBAL_WEIGHTS
        turn[0] ^= 1
        GLOBAL_WEIGHTS = pair[turn[0]]
        return weighted(x)

    return {
        "jitcore model.apply(x, y) (@jit method)": lambda: model.apply(x, y),
        "jitcore model.weighted(x) (@jit method reading self.w)": lambda: model.weighted(x),
        "jitcore Model.static(x, y) (@jit staticmethod)": lambda: Model.static(x, y),
        "jitcore model.static(x, y) (staticmethod via instance)": lambda: model.static(x, y),
        "jitcore Model.klass(x, y) (@jit classmethod)": lambda: Model.klass(x, y),
        "jitcore jit(model.raw)(x, y) (bound method)": lambda: bound(x, y),
        "jitcore jit(partial(f, s=3.0))(x, y)": lambda: partial(x, y),
        "jitcore jit(Clip(0.5))(x, y) (callable object)": lambda: clip(x, y),
        "jitcore f(x, 0-d array)": lambda: f(x, zero_d),
        "jitcore f(x, np.float32 scalar)": lambda: f(x, scalar0),
        "jitcore f(x, 0.25) (Python float)": lambda: f(x, 0.25),
        "jitcore t(list of 8 floats)": lambda: total(listed),
        "jitcore into(x, y, out=out) (out keyword)": lambda: into_jit(x, y, out=out),
        "jitcore into(x, y, out) (out by position)": lambda: into_jit(x, y, out),
        "jitcore inc(a) (a += 1, returns None)": lambda: increment_jit(counter),
        "jitcore w(x) global array rebound each call": rebinding,
        "jitcore w(x) global array, same one": lambda: weighted(x),
        "jitcore c(x) closed-over array": lambda: closed_jit(x),
        "jitcore d(x) default array": lambda: defaulted_jit(x),
        "jitcore o(x) global number (guarded)": lambda: offset_jit(x),
        "jitcore s((x, y)) (a tuple of arrays)": lambda: pair_sum((x, y)),
        "jitcore s([x, y]) (a list of arrays)": lambda: pair_sum([x, y]),
        "jitcore layer(params, x) (a dict of arrays)": lambda: layer(params, x),
        "numpy np.multiply(x, w, out=out)": lambda: np.multiply(x, scale, out=out),
        "numpy x * w": lambda: x * scale,
    }


RNG = np.random.default_rng(0)  # the generator the draw rows read (a global: a call-time input)
Pair = collections.namedtuple("Pair", "total scaled")


def _counted(x):
    i = 0
    for i in range(x.shape[0]):  # noqa: B007  (the counter left after the loop: the row)
        pass
    return x[:i].sum(), i


def result_forms() -> dict:
    """Results that are not an array or a flat tuple of arrays, and random draws, on float32[8]
    (float64[8] where the row says so)."""
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = x[::-1].copy()
    x64 = x.astype(np.float64)
    listed = jc.jit(lambda x, y: [x + y, x * y])
    mapping = jc.jit(lambda x, y: {"s": x + y, "p": x * y})
    nested = jc.jit(lambda x, y: (x + y, (x * y, x - y)))
    named = jc.jit(lambda x, y: Pair(x.sum(), x * y))
    item = jc.jit(lambda x: x.item(0))
    elements = jc.jit(lambda x: [x[0], x[1]])
    tolist = jc.jit(lambda x: x.tolist())
    counted = jc.jit(_counted)
    constants = jc.jit(lambda x: (x + 1, 2.5, np.zeros(3)))
    noisy = jc.jit(lambda x: x + RNG.normal(size=8))
    two = jc.jit(lambda x: (x * RNG.random(8), RNG.integers(0, 10, size=8)))
    scalar_draw = jc.jit(lambda x: x * RNG.normal())
    floats = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    doubled = jc.jit(lambda a: a * 2)
    rng = np.random.default_rng(1)
    two_layers = jc.jit(lambda p, x: (x * p["l1"]["w"] + p["l1"]["b"]) * p["l2"]["w"] + p["l2"]["b"])
    params = {"l1": {"w": x, "b": y}, "l2": {"w": y, "b": x}}
    pairs = jc.jit(lambda xs: xs[0][0] + xs[0][1] * xs[1])
    reshaped = jc.jit(lambda x: x.reshape(2, 4))
    affine = jc.jit(lambda p, x: x * p.total + p.scaled)
    weights = Pair(x, y)
    return {
        "jitcore [x + y, x * y] (a list result)": lambda: listed(x, y),
        "jitcore {'s': .., 'p': ..} (a dict result)": lambda: mapping(x, y),
        "jitcore (a, (b, c)) (a nested tuple result)": lambda: nested(x, y),
        "jitcore Pair(x.sum(), x * y) (a named tuple)": lambda: named(x, y),
        "jitcore x.item(0) (float64[8])": lambda: item(x64),
        "jitcore [x[0], x[1]] (float64[8])": lambda: elements(x64),
        "jitcore x.tolist() (float64[8])": lambda: tolist(x64),
        "jitcore (x[:i].sum(), i) (a returned loop counter)": lambda: counted(x),
        "jitcore (x + 1, 2.5, np.zeros(3)) (constant outputs)": lambda: constants(x),
        "jitcore t(list of 8 floats) (returns a list)": lambda: doubled(floats),
        "jitcore x.reshape(2, 4) (a view of the argument)": lambda: reshaped(x),
        "numpy x.reshape(2, 4)": lambda: x.reshape(2, 4),
        "jitcore x + rng.normal(size=8) (a draw)": lambda: noisy(x),
        "jitcore (x * rng.random(8), rng.integers(..)) (two draws)": lambda: two(x),
        "jitcore x * rng.normal() (a draw of one number)": lambda: scalar_draw(x),
        "jitcore two_layers({'l1': {'w', 'b'}, 'l2': {..}}, x) (nested dicts)": lambda: two_layers(params, x),
        "jitcore s(((x, y), x)) (a nested tuple argument)": lambda: pairs(((x, y), x)),
        "jitcore affine(Pair(w, b), x) (a named tuple argument)": lambda: affine(weights, x),
        "numpy x + rng.normal(size=8)": lambda: x + rng.normal(size=8),
        "numpy (x * rng.random(8), rng.integers(0, 10, size=8))": lambda: (x * rng.random(8),
                                                                          rng.integers(0, 10, size=8)),
        "numpy [x + y, x * y]": lambda: [x + y, x * y],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=25, help="timed batches per variant (default 25)")
    parser.add_argument("--calls", type=int, default=2000, help="calls per batch (default 2000)")
    parser.add_argument("--kinds", action="store_true", help="add the other ways to call (see above)")
    parser.add_argument("--forms", action="store_true",
                        help="add methods, callable objects and the other forms of a function (see above)")
    parser.add_argument("--only-forms", action="store_true", help="the --forms rows and f(x, y) alone")
    parser.add_argument("--results", action="store_true", help="add results of other shapes and draws")
    parser.add_argument("--only-results", action="store_true", help="the --results rows and f(x, y) alone")
    args = parser.parse_args()
    rows = variants(args.kinds)
    if args.only_forms or args.only_results:
        rows = {name: fn for name, fn in rows.items() if name == "jitcore f(x, y)"}
    if args.forms or args.only_forms:
        rows.update(call_forms())
    if args.results or args.only_results:
        rows.update(result_forms())
    for fn in rows.values():  # compile, then the first cached calls (which set up the native call)
        for _ in range(3):
            fn()
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.batches):
        for name, fn in rows.items():
            start = time.thread_time()
            for _ in range(args.calls):
                fn()
            times[name].append((time.thread_time() - start) / args.calls * 1e6)
    width = max(map(len, rows))
    print(f"{'call':{width}} | min µs | median µs")
    for name, values in times.items():
        print(f"{name:{width}} | {min(values):6.2f} | {statistics.median(values):9.2f}")


if __name__ == "__main__":
    main()
