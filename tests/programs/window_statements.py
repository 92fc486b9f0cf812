"""Statements of the random programs (tests/programs/generator.py) over rows, columns and
windows, the shapes session 32's compiler work changed:

* an unrolled loop (a list comprehension or a static ``range`` writing into a new array) that
  reduces one read of a variable per step: ``x[i]``, ``x[:, i]``, ``x[i, 1:]``, ``x[i][::-1]``,
  ``x[i:i + 2]``, a window ``x[i:i + w]``; its kernels differ only in their constant starts
  (codegen/cpu/shared_kernels.py) and the integer index is read in place (passes/fuse.py,
  ``_read_through_unit_reshapes``);
* a read through a reshape that only adds or drops extent-1 axes, then indexed;
* ``np.convolve`` and ``np.correlate`` (shifted sums of up to 64 taps, every mode);
* sorts, stable argsorts, medians and partitions of many short lanes (``np.resize`` to 1024
  elements or more: the sorting networks of codegen/cpu/sort_lanes.py).

Each keeps the generator's precisions: a selection is as exact as its operand; a sum is exact
when its terms are bounded integers whose total fits the dtype's mantissa, else ``FREE``.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FREE = math.inf
# One read of ``{x}`` per step ``{i}``: (template, least rank of x)
READS = (("{x}[{i}]", 1), ("{x}[:, {i}]", 2), ("{x}[{i}, 1:]", 2), ("{x}[{i}][::-1]", 1),
         ("{x}[{i}:{i} + 2]", 1), ("{x}[..., {i}]", 1), ("{x}[{i}, ::2]", 2))
# A reduction of one read ``{r}``; "select": its value is one of the elements
STEP_REDUCTIONS = {"np.sum({r})": "sum", "np.max({r})": "select", "np.min({r})": "select",
                   "np.argmax({r})": "position", "np.mean({r})": "mean", "np.abs({r}).sum()": "sum",
                   "np.count_nonzero({r})": "position", "np.sort({r}, axis=None)[0]": "sort",
                   "np.cumsum({r})[-1]": "sum"}
# Reads that index ``{x}`` through a reshape adding or dropping unit axes
UNIT_READS = ("{x}.reshape((1,) + {x}.shape)[0]", "{x}[None][0]", "{x}[:, None][{i}]",
              "{x}.reshape({x}.shape[0], 1, -1)[:, 0]",
              "{x}.reshape(({x}.shape[0], 1) + {x}.shape[1:])[{i}, 0]")
LANES = (2, 3, 4, 5, 8, 9, 16, 17)  # lane lengths of the sorting networks' tests, and odd ones


def _dtype(v):
    return np.asarray(v).dtype


def _mantissa(dtype) -> float:
    dtype = np.dtype(dtype)
    return 2.0 ** (np.finfo(dtype).nmant + 1) if dtype.kind == "f" else math.inf


class WindowStatements:
    """Mixed into generator._Builder: each method draws one statement."""

    def _sum_prec(self, px, bound, terms, out):
        """A sum of ``terms`` values bounded by ``bound``: (prec, bound of the total)."""
        total = None if bound is None else terms * bound
        exact = _dtype(out).kind in "biu" or (_dtype(out).kind == "f" and total is not None
                                                and total <= _mantissa(_dtype(out)))
        return (0 if px == 0 and exact else FREE), total

    def unrolled(self):
        """One reduction of one read per step of a short static loop, collected in an array."""
        from tests.programs.generator import _zero_tie  # (a cycle: generator imports this module)
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1 and v.dtype.kind != "c")
        if x is None:
            return
        v = self.ns[x]
        read, rank = self.choose(READS + (("window", 1),))
        if v.ndim < rank:
            read = "{x}[{i}]"
        extent = v.shape[-1] if read.startswith("{x}[...") or read.startswith("{x}[:,") else v.shape[0]
        window = read == "window"
        if window:  # a sliding window of w rows (of elements, for a vector)
            w = self.draw(st.integers(1, min(extent, 4)))
            read = "{x}[{i}:{i} + " + str(w) + "]"
            extent -= w - 1
        trips = self.draw(st.integers(1, max(1, min(extent, 5))))
        start = self.draw(st.integers(0, extent - trips)) if extent > trips else 0
        loop = f"range({start}, {start + trips})" if start else f"range({trips})"
        body, kind = self.draw(st.sampled_from(sorted(STEP_REDUCTIONS.items())))
        step = body.format(r=read.format(x=x, i="i"))
        probe = self._peek(step, i=start)
        if probe is None:
            return
        name = self.new_name()
        if self.chance(0.5):
            text = f"{name} = np.array([{step} for i in {loop}])"
        else:  # written element by element into a new array of the step's dtype
            at = f"i - {start}" if start else "i"
            text = (f"{name} = np.zeros({trips}, dtype=np.{_dtype(probe).name})\nfor i in {loop}:\n"
                    f"    {name}[{at}] = {step}")
        if not self.run(text, ["unrolled", f"unrolled-{kind}"] + (["window"] if window else [])):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        out = self.ns[name]
        tie = _zero_tie(v)
        if kind == "select":
            prec, bound = px, bx
        elif kind == "sort":
            prec, bound = (FREE if tie else px), bx
        elif kind == "position":
            prec, bound = (0 if px == 0 else FREE), None
        elif kind == "mean":  # one division of an exact sum
            prec, bound = self._sum_prec(px, bx, v.size, out)[0], None
        else:
            prec, bound = self._sum_prec(px, bx, v.size, out)
        self.result(name, prec, bound)

    def unit_reshape(self):
        """An elementwise op or a row sum of a read through a reshape of unit axes."""
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1)
        if x is None:
            return
        v = self.ns[x]
        read = self.choose(UNIT_READS).format(x=x, i=self.draw(st.integers(-v.shape[0], v.shape[0] - 1)))
        op = self.choose(("-{r}", "np.abs({r})", "np.maximum({r}, 0)", "{r} * 2", "np.sum({r}, axis=-1)",
                          "np.max({r}, axis=0)"))
        text = op.format(r=read)
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["unit-reshape"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        out = self.ns[name]
        if op.startswith("np.sum"):
            prec, bound = self._sum_prec(px, bx, v.shape[-1] if v.ndim else 1, out)
        elif op.startswith("{r} *"):
            prec, bound = (0 if px == 0 else FREE), (None if bx is None else 2 * bx)
        else:
            prec, bound = px, bx
        self.result(name, prec, bound)

    def convolve(self):
        """``np.convolve``/``np.correlate`` of two vectors (flattened variables, the taps at most
        8: each tap is a product in one kernel, and a complex kernel of 17 taps took 1 s to
        compile), any mode."""
        x = self.arrays(lambda v: v.size >= 1)
        y = self.arrays(lambda v: 1 <= v.size <= 8)
        if x is None or y is None:
            return
        fn = self.choose(("convolve", "correlate"))
        mode = self.choose(("", ", 'full'", ", 'same'", ", 'valid'", ", mode='same'"))
        flat = {n: (n if self.ns[n].ndim == 1 else f"{n}.ravel()") for n in (x, y)}
        name = self.run_sum(f"np.{fn}({flat[x]}, {flat[y]}{mode})", ["convolve", f"convolve-{fn}"])
        if name is None:
            return
        res = self.ns[name]
        out = _dtype(res)
        (px, bx), (py, by) = ((self.meta[n].prec, self.meta[n].bound) for n in (x, y))
        terms = min(self.ns[x].size, self.ns[y].size)
        bound = None if bx is None or by is None else bx * by
        if out.kind == "c":  # products of complex numbers: several roundings each
            prec, total = (0 if px == py == 0 and bound is not None and terms * bound * 2
                           <= _mantissa(np.float32 if out == np.complex64 else np.float64) else FREE), None
        else:
            prec, total = self._sum_prec(max(px, py), bound, terms, res)
        self.result(name, prec, total)

    def lanes(self):
        """A sort along many short lanes: ``np.resize`` of a variable to 1024 elements or more.
        Drawn by ``sort`` now and then (a network costs more to compile than most statements)."""
        from tests.programs.generator import _zero_tie
        x = self.arrays(lambda v: v.size >= 1 and v.dtype.kind != "c")
        if x is None:
            return
        v = self.ns[x]
        n = self.choose(LANES)
        rows = -(-1024 // n) + self.draw(st.integers(0, 3))
        m = f"np.resize({x}, ({rows}, {n}))"
        form = self.choose(("sort", "sort", "argsort", "median", "partition", "descending"))
        kind = "" if self.chance(0.5) else f", kind={self.choose(('quicksort', 'stable', 'heapsort'))!r}"
        k = self.draw(st.integers(0, n - 1))
        text = {"sort": f"np.sort({m}, axis=-1{kind})",
                "argsort": f"np.argsort({m}, axis=1, kind='stable')",
                "median": f"np.median({m}, axis=-1)",
                "partition": f"np.partition({m}, {k}, axis=-1)[:, {k}]",
                "descending": f"-np.sort(-{m}, axis=1)"}[form]
        # (a whole lane sorted but only a few lanes returned: less to compare)
        if self.chance(0.5):
            text = f"({text})[{self.draw(st.integers(0, rows - 1))}::{self.choose((7, 64, 128))}]"
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["lanes", f"lanes-{form}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        tie = _zero_tie(v)
        if form == "argsort":
            prec, bound = (0 if px == 0 and not tie else FREE), None
        elif form == "median":  # an element, or the mean of the two middle ones
            fits = bx is not None and 2 * bx <= _mantissa(np.float64 if v.dtype.kind != "f" else v.dtype)
            prec, bound = (0 if px == 0 and not tie and fits else FREE), None
        else:
            prec, bound = (FREE if tie else px), bx
        self.result(name, prec, bound)
