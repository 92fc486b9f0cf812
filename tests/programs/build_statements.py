"""Statements of the random programs (tests/programs/generator.py), round 9: the code users
write around the kernels, which the older kinds reach only by chance:

* arrays built inside the function: ``np.zeros``/``np.ones``/``np.full`` written in a loop
  (elements, rows, columns; static and traced trip counts), ``np.empty``/``np.empty_like``
  then filled piece by piece, ``np.concatenate``/``np.stack``/``np.hstack``/``np.vstack``/
  ``np.column_stack``/``np.append`` of computed pieces, a list appended in a loop then
  ``np.stack``-ed or given to ``np.array``, an array grown by concatenation in a loop;
* loops with counters: a traced ``while`` with a counter and a ``break``, a count under a
  traced ``if`` in a ``for`` (a Python int that must stay weak: ``x_int8 + count`` is int8),
  the first index that holds, a running argmax, ``while True`` ... ``break``;
* scans and differences: ``cumsum``/``cumprod`` with ``axis`` and ``dtype``, ``diff`` with
  ``n``, ``prepend``, ``append``, ``ediff1d``, on every dtype (bool and uint8 wrap);
* division by arrays holding zeros and negative numbers, in mixed dtypes (``int8 // uint8`` is
  int16, ``uint64 // int64`` float64, bool, float16): ``//``, ``%``, ``divmod``, ``fmod``;
* mixed dtypes: one or both operands cast to uint8, int16, float16, complex64 or bool first;
* 0-d and size-0 arrays: ``np.array(scalar)``, ``x[0, ...]``, ``x[:0]``, ``x[..., :0]``,
  products and reductions of nothing, joins with an empty piece;
* broadcasting through ``None``/``np.newaxis`` (``x[:, None] - y[None, :]``), maybe reduced;
* ``ufunc.reduce`` with ``keepdims``, ``initial`` and ``where`` (a mask of lower rank too);
* writes through views: ``x[::2] += y``, ``x.T[...] = y``, ``x.T[0] = c``, a view kept as a
  variable and written, overlapping self-assignments (``x[1:] = x[:-1]``, ``x += x[::-1]``);
* ``out=`` arguments: into a new array, into the operand itself, into an overlapping view,
  with ``where=``, of reductions and scans, and ``np.clip(..., out=x)``.

Precisions as in the generator: an IEEE operation per element in NumPy's sequence is exact; a
float sum is exact when its bounded integer terms fit the mantissa, else ``FREE``; a float sum
of a product of two variables, inexact, runs in BLAS's order fused (``unordered``).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FREE = math.inf
SMALL_DTYPES = ("uint8", "int16", "float16", "complex64", "bool", "int8", "float32", "int64")
# Elementwise steps of a loop's body on one read ``{r}``: exact IEEE operations (or a
# selection); "sum": a reduction of the read (exact only for bounded integers)
FILLS = {"{r} * 2": "exact", "{r} + 1": "exact", "-{r}": "exact", "np.abs({r})": "exact",
         "{r} - {x}[0]": "exact", "np.maximum({r}, 0)": "exact", "{r}.sum()": "sum",
         "{r}.max()": "select", "np.count_nonzero({r})": "position"}
# ufuncs for ``out=``: (arity, exact on exact operands)
OUT_UFUNCS = {"add": 2, "subtract": 2, "multiply": 2, "maximum": 2, "minimum": 2, "negative": 1,
              "absolute": 1, "floor_divide": 2, "true_divide": 2, "square": 1, "rint": 1}


def _dtype(v):
    return np.asarray(v).dtype


class BuildStatements:
    """Mixed into generator._Builder: each method draws one statement."""

    ROUND9_KINDS = ("built", "built", "counted_loop", "counted_loop", "scan_diff", "division", "mixed",
                    "edge_shape", "newaxis", "reduce_args", "view_write", "view_write", "out_arg", "out_arg",
                    "select_sorted", "shared_region")

    def round9(self):
        """One of this module's statements: one name among the generator's kinds (``python -m
        tests.programs.fuzz --favour built,...`` draws each more often)."""
        getattr(self, self.choose(self.ROUND9_KINDS))()

    def shared_region(self):
        """An array written in place in a traced loop or branch while another variable that
        shares its memory (a view of it, the array it views, a second name) is read there, and
        after it (session 40: the region wrote a copy, and the other variable kept the data from
        before it; ``autograph/aliasing.py``). The view is an earlier variable or made here."""
        x = self.arrays(lambda v: v.ndim > 0 and v.size > 0 and _dtype(v).kind in "iuf"
                        and self.writable_array(v))
        if x is None:
            return
        t = self.ns[x]
        others = [n for n in self.meta if n != x and isinstance(self.ns[n], np.ndarray)
                  and self.ns[n].ndim > 0 and np.shares_memory(self.ns[n], t)]
        made = None
        if not others or self.chance(0.5):
            made = self.new_name()
            view = self.choose(("[1:]", "[::-1]", "[::2]", "", ".T", "[0]" if t.ndim > 1 else "[:]"))
            if not self.run(f"{made} = {x}{view}", ["view"]):
                return
            self.meta[made] = type(self.meta[x])(self.meta[x].prec, self.meta[x].bound)
            others = [made]
        y = self.choose(others)
        if self.chance(0.5) and self.writable_array(self.ns[y]) and _dtype(self.ns[y]).kind in "iuf":
            x, y = y, x  # written through the view, read through the array
        key = self.choose((':', '0', '-1', '::2', '1:'))
        if self._peek(f"{x}[{key}]") is None:  # (an index past an empty axis: not even traced)
            return
        name = self.new_name()
        c = self.choose((1, 2) if _dtype(self.ns[x]).kind == "u" else (1, 2, -1))  # (-1: OverflowError)
        write = f"{x}[{key}] += {c}"
        # the array read into a sum, or the array itself bound to a name in the region (its
        # value as the region left it; the name is then frozen: which array it holds after a
        # loop depends on the trip count, a case jitcore carries by value)
        bind = self.chance(0.3)
        read = f"{name} = {y}" if bind else f"{name} = {name} + {y}.copy()"
        kind = self.choose(("for", "if", "while"))
        if kind == "for":  # a trip count from the data: a traced loop
            m = self.pick()
            head, cond_prec = f"for i in range(int(np.count_nonzero({m}) % 4)):", self.meta[m].prec
        elif kind == "if":
            cond, cond_prec = self._predicate()
            head = f"if {cond}:"
        else:
            cond, cond_prec = self._predicate()
            counter = f"k{name[1:]}"
            head = f"{counter} = 0\nwhile {counter} < 2 and {cond}:\n    {counter} += 1"
        text = f"{name} = {y}.copy()\n{head}\n    {write}\n    {read}"
        if self.ns[y].ndim == 0 or not self.run(text, ["shared-region", f"shared-{kind}"]):
            return
        exact = cond_prec == 0
        self.written(x, self.meta[x].prec if exact else FREE, None)
        self.result(name, self.meta[y].prec if exact else FREE, None)
        if bind:
            self.frozen.append(self.ns[name])

    # -- helpers ----------------------------------------------------------------------------
    def _exact(self, *names) -> bool:
        return all(self.meta[n].prec == 0 for n in names if n in self.meta)

    def _fill_prec(self, kind, x, out):
        """(prec, bound) of a value made per element by a FILLS template of kind ``kind``."""
        px, bx = self.meta[x].prec, self.meta[x].bound
        if kind == "select":
            return px, bx
        if kind == "position":
            return (0 if px == 0 else FREE), None
        if kind == "sum":
            v = self.ns[x]
            return self._sum_prec(px, bx, max(1, v.size), out)
        return (0 if px == 0 else FREE), None

    def _no_float_to_int(self, src, dst) -> bool:
        """Assigning ``src`` values into a ``dst`` array is defined (NaN and out-of-range floats
        cast to integers are not; complex to real drops a part with a warning)."""
        src, dst = np.dtype(src), np.dtype(dst)
        return np.can_cast(src, dst, "same_kind")

    # -- arrays built inside ------------------------------------------------------------------
    def built(self):
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1)
        if x is None:
            return
        form = self.choose(("loop_fill", "loop_fill", "empty_fill", "pieces", "pieces", "append_loop",
                            "grow"))
        getattr(self, f"_built_{form}")(x)

    def _built_loop_fill(self, x):
        """``v = np.zeros(...)`` (ones, full) written element by element, row by row or column by
        column in a loop over a static or traced range."""
        v = self.ns[x]
        n = v.shape[0]
        body, kind = self.draw(st.sampled_from(sorted(FILLS.items())))
        read = f"{x}[i]"
        if v.ndim >= 2 and self.chance(0.3):  # columns, for a matrix
            read, n = f"{x}[:, i]", v.shape[1]
            if n == 0:
                return
        step = body.format(r=read, x=x)
        probes = [self._peek(step, i=i) for i in range(n)]
        if any(p is None for p in probes) or len({(np.shape(p), _dtype(p)) for p in probes}) > 1:
            return
        probe = probes[0]
        src = _dtype(probe)
        dt = np.dtype(self.choose((src.name, src.name, "float64", "int32", "float32", "complex128")))
        if not self._no_float_to_int(src, dt):
            dt = src
        name = self.new_name()
        shape = (n,) + np.shape(probe)
        maker = self.choose(("zeros", "zeros", "ones", "full"))
        make = {"zeros": f"np.zeros({shape!r}, dtype=np.{dt.name})",
                "ones": f"np.ones({shape!r}, dtype=np.{dt.name})",
                "full": f"np.full({shape!r}, {self.choose((-1, 2, 0.5))}, dtype=np.{dt.name})"}[maker]
        if maker == "full" and dt.kind in "biu":
            c = self.choose((-1, 2, 0)) if dt.kind == "i" else 3
            make = f"np.full({shape!r}, {c}, dtype=np.{dt.name})"
        trips = self.choose(("all", "all", "from1", "traced", "step"))
        start = 1 if trips == "from1" else 0
        if trips == "traced":  # a trip count from the data, at most n
            m = self.pick()
            loop = f"range(int(np.count_nonzero({m})) % {n + 1})"
            pm = self.meta[m].prec
        elif trips == "step":
            loop, pm = f"range(0, {n}, 2)", 0
        else:
            loop, pm = (f"range({start}, {x}.shape[{1 if read.startswith(x + '[:,') else 0}])"
                        if self.chance(0.5) else f"range({start}, {n})"), 0
        at = self.choose(("i", "i, ...")) if len(shape) > 1 else "i"
        text = f"{name} = {make}\nfor i in {loop}:\n    {name}[{at}] = {step}"
        if not self.run(text, ["built", "built-loop-fill", f"built-{maker}"]):
            return
        from tests.programs.generator import cast_prec
        prec, bound = self._fill_prec(kind, x, self.ns[name])
        prec = cast_prec(prec, src, _dtype(self.ns[name]))
        self.result(name, FREE if pm else prec, None if bound is None else max(bound, 2))

    def _built_empty_fill(self, x):
        """``np.empty``/``np.empty_like`` filled piece by piece, every element written."""
        v = self.ns[x]
        name = self.new_name()
        form = self.choose(("halves", "two_rows", "first_rest", "like"))
        n = v.shape[0]
        k = self.draw(st.integers(0, n))
        if form == "halves":  # the two parts of the first axis from two computations
            text = (f"{name} = np.empty({x}.shape, dtype={x}.dtype)\n{name}[:{k}] = {x}[:{k}] * 2\n"
                    f"{name}[{k}:] = -{x}[{k}:]")
        elif form == "two_rows":
            text = (f"{name} = np.empty((2,) + {x}.shape, dtype={x}.dtype)\n{name}[0] = {x}\n"
                    f"{name}[1] = {x}[::-1]")
        elif form == "first_rest":  # a running total after a leading zero
            if v.dtype.kind not in "iuf" or v.dtype == np.float16:
                return
            text = (f"{name} = np.empty({n + 1}, dtype={x}.dtype)\n{name}[0] = 0\n"
                    f"{name}[1:] = np.cumsum({x}.reshape({n}, -1)[:, 0])")
        else:
            c = self.choose((0, 1, -1, 3))
            if v.dtype.kind == "u" and c < 0:
                c = 1
            text = f"{name} = np.empty_like({x})\n{name}[...] = {c}\n{name}[1:] = {x}[:-1]"
        if not self.run(text, ["built", f"built-empty-{form}"]):
            return
        px = self.meta[x].prec
        self.result(name, 0 if px == 0 else FREE, None)

    def _built_pieces(self, x):
        """A join of computed pieces: halves computed apart, reductions along an axis stacked,
        a leading value before a running sum, a reversed copy beside the original."""
        v = self.ns[x]
        k = self.draw(st.integers(0, v.shape[0]))
        y = self.pick(lambda w: isinstance(w, np.ndarray) and w.shape == v.shape)
        c = self.choose((0, 1, -1.5, 2))
        forms = {
            "halves": f"np.concatenate([{x}[:{k}] * 2, {x}[{k}:] - 1])",
            "with_empty": f"np.concatenate([{x}[:0], {x}, {x}[{k}:{k}]], axis=0)",
            "reductions": (f"np.stack([{x}.sum(axis=0), {x}.max(axis=0), {x}.min(axis=0)], "
                           f"axis={self.choose((0, -1))})"),
            "lead": f"np.concatenate([[{c}], np.cumsum({x}.ravel())])",
            "hstack": f"np.hstack([{x}, {x}[::-1] + {y}])",
            "vstack": f"np.vstack([{x}[:1] * 0.5, {x}[1:] + {x}[:-1]])",
            "column_stack": f"np.column_stack([{x}, {x} * 2, {x} > 1])",
            "append": f"np.append({x}, {self.choose((c, f'{x}[:1]'))}"
                      f"{', axis=0' if self.chance(0.5) else ''})",
            "stack_cmp": f"np.stack(({x} > 0, {y} < 1), axis={self.choose((0, 1, -1))})",
        }
        form = self.choose(sorted(forms))
        name = self.new_name()
        if not self.run(f"{name} = {forms[form]}", ["built", "built-pieces", f"built-pieces-{form}"]):
            return
        reads = [x, y]
        exact = self._exact(*reads)
        out = _dtype(self.ns[name])
        prec = 0 if exact else FREE
        if form == "reductions":
            prec, _ = self._sum_prec(self.meta[x].prec, self.meta[x].bound, v.shape[0], self.ns[name])
        if form == "lead" and out.kind == "c":
            prec = prec  # (a sequential complex sum: exact as each part's)
        self.result(name, prec, None)

    def _built_append_loop(self, x):
        """A list appended in a loop (static range), then stacked or given to ``np.array``."""
        v = self.ns[x]
        trips = self.draw(st.integers(1, min(v.shape[0], 4)))
        body, kind = self.draw(st.sampled_from(sorted(FILLS.items())))
        step = body.format(r=f"{x}[i]", x=x)
        probes = [self._peek(step, i=i) for i in range(trips)]
        if any(p is None for p in probes) or len({(np.shape(p), _dtype(p)) for p in probes}) > 1:
            return
        name = self.new_name()
        parts = f"p{name[1:]}"
        join = self.choose(("np.stack({p})", "np.array({p})", "np.stack({p}, axis=-1)",
                            "np.concatenate({p})" if np.ndim(probes[0]) else "np.array({p})",
                            "np.hstack({p})"))
        text = (f"{parts} = []\nfor i in range({trips}):\n    {parts}.append({step})\n"
                f"{name} = {join.format(p=parts)}")
        if not self.run(text, ["built", "built-append"]):
            return
        self.result(name, *self._fill_prec(kind, x, self.ns[name]))

    def _built_grow(self, x):
        """An array grown by a concatenation per step of a static loop."""
        v = self.ns[x]
        trips = self.draw(st.integers(1, min(v.shape[0], 4)))
        name = self.new_name()
        start = self.choose((f"{x}[:1]", f"{x}[:0]", f"np.zeros((0,) + {x}.shape[1:], dtype={x}.dtype)"))
        grow = self.choose((f"np.concatenate([{name}, {x}[i:i + 1] * 2])",
                            f"np.concatenate(({x}[i:i + 1] - 1, {name}))",
                            f"np.append({name}, {x}[i:i + 1], axis=0)"))
        text = f"{name} = {start}\nfor i in range({trips}):\n    {name} = {grow}"
        if not self.run(text, ["built", "built-grow"]):
            return
        self.result(name, 0 if self.meta[x].prec == 0 else FREE, None)

    # -- loops with counters ------------------------------------------------------------------
    def counted_loop(self):
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1 and v.dtype.kind != "c")
        if x is None:
            return
        v = self.ns[x]
        n = v.shape[0]
        c = self.choose((0, 1, -1, 2, 0.5))
        op = self.choose((">", "<", "==", "!=", ">="))
        at = f"{x}[k]" if v.ndim == 1 else f"{x}[k].sum()" if v.dtype.kind in "biu" else f"{x}[k].max()"
        form = self.choose(("while_break", "count_if", "first_index", "argmax", "while_true",
                            "traced_range", "walrus"))
        name = self.new_name()
        k = f"k{name[1:]}"
        cond = f"{at.replace('[k]', f'[{k}]')} {op} {c}"
        feats = ["counted-loop", f"counted-loop-{form}"]
        uses_counter = self.chance(0.6)
        if form == "while_break":  # a counter and a carried sum; the loop stops at a condition
            lim = self.choose((n, min(n, 3)))
            text = (f"{k} = 0\n{name} = 0\nwhile {k} < {lim}:\n    if {cond}:\n        break\n"
                    f"    {name} += {self.choose((1, 2, k))}\n    {k} += 1")
        elif form == "count_if":  # a Python int counted under a traced condition
            cond = cond.replace(k, "i")
            text = (f"{name} = 0\nfor i in range({n}):\n    if {cond}:\n"
                    f"        {name} += {self.choose((1, 'i', 3))}")
        elif form == "first_index":
            cond = cond.replace(k, "i")
            text = (f"{name} = -1\nfor i in range({n}):\n    if {cond}:\n        {name} = i\n"
                    f"        break")
        elif form == "argmax":  # a running best and its index
            if v.ndim != 1:
                return
            rel = self.choose((">", "<", ">="))
            text = (f"{k} = {x}[0]\n{name} = 0\nfor i in range(1, {n}):\n    if {x}[i] {rel} {k}:\n"
                    f"        {k} = {x}[i]\n        {name} = i")
            uses_counter = False
        elif form == "while_true":
            text = (f"{name} = 0\nwhile True:\n    {name} += 1\n    if {name} >= {min(n, 4)} or "
                    f"{cond.replace(k, name)}:\n        break")
        elif form == "walrus":  # a counter stepped in the loop's test
            lim = min(n, self.choose((2, 3, 5)))
            cond = cond.replace(k, name)
            text = (f"{name} = -1\nwhile ({name} := {name} + 1) < {lim} and {cond}:\n"
                    f"    pass")
        else:  # a traced trip count, a break inside, a counter
            m = self.pick()
            cond = cond.replace(k, f"i % {n}")
            text = (f"{name} = 0\nfor i in range(int(np.count_nonzero({m})) % 5):\n    if {cond}:\n"
                    f"        break\n    {name} += 2")
        if not self.run(text, feats):
            return
        exact = self._exact(x)
        # the counter: a Python int (weak), or the running best
        self.meta[name] = type(self.meta[x])(0 if exact else FREE, None)
        self.features.add("python-int")
        if form == "argmax":
            self.meta[k] = type(self.meta[x])(self.meta[x].prec, self.meta[x].bound)
            self.features.add("scalar")
        if uses_counter:  # the counter in arithmetic with an array: it must promote weakly
            y = self.arrays(lambda w: w.dtype.kind in "biuf")
            if y is None:
                return
            use = self.new_name()
            opr = self.choose(("+", "*", "-"))
            if self.run(f"{use} = {y} {opr} {name}", ["counter-promotes"]):
                self.result(use, 0 if exact and self._exact(y) else FREE, None)

    # -- scans and differences ------------------------------------------------------------------
    def scan_diff(self):
        x = self.arrays(lambda v: v.ndim >= 1)
        if x is None:
            return
        v = self.ns[x]
        axis = self.draw(st.integers(-v.ndim, v.ndim - 1))
        form = self.choose(("cumsum", "cumprod", "diff", "diff", "ediff1d", "method"))
        px = self.meta[x].prec
        name = self.new_name()
        if form in ("cumsum", "cumprod"):
            dt = self.choose(("", "", "uint8", "int16", "float32", "float64", "int64"))
            dts = f", dtype=np.{dt}" if dt and np.can_cast(v.dtype, dt, "same_kind") else ""
            ax = "" if self.chance(0.2) else f", axis={axis}"
            text = f"np.{form}({x}{ax}{dts})"
        elif form == "diff":
            n = self.choose((1, 1, 2, 3, 0))
            extra = ""
            if self.chance(0.4):
                edge = self.choose((0, -1, 1.5, f"{x}.take([0], axis={axis})", "np.inf"))
                extra = f", {self.choose(('prepend', 'append'))}={edge}"
            text = f"np.diff({x}, n={n}, axis={axis}{extra})"
        elif form == "ediff1d":
            text = (f"np.ediff1d({x})" if self.chance(0.5) else
                    f"np.ediff1d({x}, to_begin={self.choose((0, -2))}, to_end=[{self.choose((1, 7))}])")
        else:
            text = f"{x}.{self.choose(('cumsum', 'cumprod'))}(axis={axis})"
        if not self.run(f"{name} = {text}", ["scan-diff", f"scan-diff-{form}"]):
            return
        out = _dtype(self.ns[name])
        exact = px == 0 and "1.5" not in text
        if out.kind == "c" and "prod" in text:
            exact = False  # (a complex product: exact per step, but not in NumPy's formula for inf)
        self.result(name, 0 if exact else FREE, None)

    # -- division -----------------------------------------------------------------------------
    def division(self):
        """``//``, ``%``, ``divmod`` and ``fmod`` by arrays holding zeros and negative numbers,
        the operands in mixed dtypes."""
        from tests.programs.generator import _broadcasts
        x = self.pick(lambda w: _dtype(w).kind in "biuf")
        if x is None:
            return
        y = self.pick(lambda w: _dtype(w).kind in "biuf" and _broadcasts(np.shape(self.ns[x]), np.shape(w)))
        dx = self.choose(("", "", "int8", "uint8", "int16", "uint32", "int64", "uint64", "float16",
                          "float32", "bool"))
        dy = self.choose(("", "int8", "uint8", "int16", "int64", "float16", "float64", "bool"))
        tx = self._cast(x, dx)
        # the divisor: zeros and negative numbers among its values (y % 5 - 2 is in -2..2)
        scalar = f"np.{self.choose(('int8', 'int16', 'float16', 'int64'))}({self.choose((-1, -3, 0, 7))})"
        ty = self.choose((f"({self._cast(y, dy)} % 5 - 2)", self._cast(y, dy), scalar,
                          str(self.choose((-1, -3, 0, -7, 2)))))
        if self.chance(0.15):
            tx, ty = ty, tx
        op = self.choose(("//", "%", "divmod0", "divmod1", "fmod", "floor_divide", "remainder"))
        if op.startswith("divmod"):
            text = f"np.divmod({tx}, {ty})[{op[-1]}]"
        elif op in ("fmod", "floor_divide", "remainder"):
            text = f"np.{op}({tx}, {ty})"
        else:
            text = f"{tx} {op} {ty}"
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["division", f"division-{op}"]):
            return
        self.result(name, 0 if self._exact(x, y) else FREE, None)

    def _cast(self, x, dt) -> str:
        """``x`` as ``dt`` (no dtype: as it is); float to integer through a clip to +-100 (NaN
        and out-of-range values cast to integers are not defined)."""
        if not dt:
            return x
        src = _dtype(self.ns[x])
        r = f"{x}.real" if src.kind == "c" and np.dtype(dt).kind != "c" else x
        if src.kind in "fc" and np.dtype(dt).kind in "iub":
            if dt == "bool":
                return f"({r} != 0)"
            return f"np.where(np.isfinite({r}), np.clip({r}, -100, 100), 0).astype(np.{dt})"
        return f"{r}.astype(np.{dt})"

    # -- mixed dtypes -------------------------------------------------------------------------
    def mixed(self):
        from tests.programs.generator import _broadcasts
        x = self.pick()
        y = self.pick(lambda w: _broadcasts(np.shape(self.ns[x]), np.shape(w)))
        dx, dy = self.choose(SMALL_DTYPES + ("",)), self.choose(SMALL_DTYPES)
        tx, ty = self._cast(x, dx), self._cast(y, dy)
        op = self.choose(("+", "-", "*", "/", "np.maximum", "==", "<", "&", "|", "np.where",
                          "np.minimum"))
        if op == "np.where":
            text = f"np.where({tx} != 0, {tx}, {ty})"
        elif op.startswith("np."):
            text = f"{op}({tx}, {ty})"
        else:
            text = f"({tx}) {op} ({ty})"
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["mixed", f"mixed-{dx or 'same'}-{dy}"]):
            return
        out = _dtype(self.ns[name])
        exact = self._exact(x, y) and not (out.kind == "c" and op == "/")
        self.result(name, 0 if exact else FREE, None)

    # -- 0-d and size-0 -----------------------------------------------------------------------
    def edge_shape(self):
        x = self.arrays(lambda v: v.ndim >= 1)
        if x is None:
            return
        v = self.ns[x]
        forms = {
            "array_of_scalar": f"np.array({x}.sum()) + 1",
            "zero_d_view": f"{x}[0, ...] * 2" if v.shape[0] else f"{x}[..., :0]",
            "zero_d_copy_write": None,
            "empty_slice": f"{x}[:0] * 2",
            "empty_last": f"{x}[..., :0].sum(axis=-1)",
            "empty_reduce": f"{x}[:0].{self.choose(('sum', 'prod', 'any', 'all'))}(axis=0)",
            "empty_max_initial": f"np.max({x}[:0], axis=0, initial={self.choose((0, -1))})",
            "empty_matmul": f"{x}[..., :0] @ np.swapaxes({x}[..., :0], -1, -2)" if v.ndim >= 2
            else f"np.outer({x}[:0], {x})",
            "empty_join": f"np.concatenate([{x}[:0], {x}[1:], {x}[:0]])",
            "scalar_ctor": f"np.{self.choose(('float32', 'int16', 'float16', 'uint8'))}(3) * {x}",
            "zero_d_reduce": f"np.sum({x}.sum(keepdims=True).reshape(()))",
            "cumsum_empty": f"np.cumsum({x}[:0], axis=0)",
        }
        form = self.choose(sorted(forms))
        name = self.new_name()
        if form == "zero_d_copy_write":
            text = f"{name} = np.array({x}.max() if {x}.size else 0)\n{name}[...] = {name} * 2"
        else:
            text = f"{name} = {forms[form]}"
        if not self.run(text, ["edge-shape", f"edge-shape-{form}"]):
            return
        exact = self._exact(x) and form not in ("array_of_scalar", "zero_d_reduce", "empty_matmul")
        prec = 0 if exact else FREE
        if form in ("array_of_scalar", "zero_d_reduce"):
            prec, _ = self._sum_prec(self.meta[x].prec, self.meta[x].bound, v.size, self.ns[name])
        if form == "empty_matmul":
            prec = 0  # a product of nothing: zeros
        self.result(name, prec, None)

    # -- broadcasting through newaxis ---------------------------------------------------------
    def newaxis(self):
        x = self.arrays(lambda v: 1 <= v.ndim <= 2)
        if x is None:
            return
        y = self.arrays(lambda w: 1 <= w.ndim <= 2)
        v, w = self.ns[x], self.ns[y]
        new = self.choose(("None", "np.newaxis"))
        op = self.choose(("-", "+", "*", "<", "np.maximum", "np.hypot"))
        if v.ndim == 1 and w.ndim == 1:
            a, b = f"{x}[:, {new}]", f"{y}[{new}, :]"
        elif v.ndim == 2 and self.chance(0.5):  # pairs of rows
            a, b = f"{x}[:, {new}, :]", f"{x}[{new}, :, :]"
            y = x
        else:
            a, b = f"{x}[..., {new}]", f"{y}[{new}]"
        pair = f"{op}({a}, {b})" if op.startswith("np.") else f"{a} {op} {b}"
        red = self.choose(("", "", ".sum(axis={k})", ".max(axis={k})", ".any(axis={k})",
                           ".sum(axis={k}, keepdims=True)"))
        text = f"({pair}){red.format(k=self.choose((0, -1, 1)))}" if red else pair
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["newaxis-broadcast"]):
            return
        out = self.ns[name]
        exact = self._exact(x, y) and op != "np.hypot"
        prec = 0 if exact else FREE
        if op == "np.hypot" and self._exact(x, y) and not red:
            from tests.oracle import ulp_bound
            prec = ulp_bound("hypot", _dtype(out)) if _dtype(out).kind == "f" else FREE
        if ".sum" in red:
            terms = max(np.size(self._peek(pair)), 1)
            bx, by = self.meta[x].bound, self.meta[y].bound
            bound = None if bx is None or by is None else (bx * by if op == "*" else bx + by)
            prec, _ = self._sum_prec(prec, bound, terms, out)
            if op == "*" and prec and _dtype(out).kind in "fc":
                self.unordered.add(name)
                self.features.add("unordered")
        self.result(name, prec, None)

    # -- ufunc.reduce with keepdims, initial, where ---------------------------------------------
    def reduce_args(self):
        from tests.programs.generator import _broadcasts_into
        x = self.arrays(lambda v: v.ndim >= 1 and v.dtype.kind != "c")
        if x is None:
            return
        v = self.ns[x]
        fn = self.choose(("add", "multiply", "maximum", "minimum", "logical_or", "logical_and"))
        axis = self.choose([None] + list(range(-v.ndim, v.ndim)) +
                           ([(0, v.ndim - 1)] if v.ndim >= 2 else []))
        args = [f"axis={axis}"]
        if self.chance(0.4):
            args.append("keepdims=True")
        initial = None
        if fn in ("maximum", "minimum") or self.chance(0.5):
            initial = self.choose((0, 1, -1, 3) + (("-np.inf", "np.inf") if v.dtype.kind == "f" else ()))
            if v.dtype.kind == "u" and initial == -1:
                initial = 1
            if fn.startswith("logical"):
                initial = self.choose(("True", "False"))
            args.append(f"initial={initial}")
        masked = self.chance(0.6)
        if masked:
            m = self.pick(lambda w: _dtype(w) == np.bool_ and np.ndim(w) >= 1 and
                          _broadcasts_into(np.shape(w), v.shape))
            if m is None or self.chance(0.5):
                # (a mask of the leading axes, extent 1 on the last, broadcast along it)
                m = f"{x}[..., :1] != 0" if self.chance(0.3) else \
                    f"{x} {self.choose(('>', '<', '!='))} {self.choose((0, 1))}"
            args.append(f"where={m}")
        name = self.new_name()
        if not self.run(f"{name} = np.{fn}.reduce({x}, {', '.join(args)})",
                        ["reduce-args", f"reduce-args-{fn}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        out = self.ns[name]
        if fn in ("maximum", "minimum"):
            prec = px
        elif fn.startswith("logical"):
            prec = 0 if px == 0 else FREE
        else:
            if initial is not None and bx is not None:
                ib = abs(float(eval(str(initial), {"np": np})))
                bx = max(bx, ib) if float(ib).is_integer() else None
            if fn == "add":
                prec, _ = self._sum_prec(px, bx, v.size + 1, out)
            else:
                from tests.programs.generator import _mantissa_range, _safe_power
                total = None if bx is None else _safe_power(bx, v.size + 1)
                fits = _dtype(out).kind in "biu" or (total is not None and _dtype(out).kind == "f"
                                                     and total <= _mantissa_range(_dtype(out)))
                prec = 0 if px == 0 and fits else FREE
        self.result(name, prec, None)

    # -- writes through views -------------------------------------------------------------------
    def view_write(self):
        from tests.programs.generator import _broadcasts_into
        x = self.arrays(lambda v: v.ndim >= 1 and v.size >= 1 and self.writable_array(v))
        if x is None:
            return
        v = self.ns[x]
        forms = ["strided", "strided", "transpose", "kept", "overlap", "last"]
        if v.ndim >= 2:
            forms += ["transpose_row", "swapaxes"]
        form = self.choose(forms)
        sym = self.choose(("+=", "-=", "*=", "=", "="))
        pre, bind = [], {}
        if form == "strided":
            key = ", ".join(self.choose(("::2", "1::2", "::-1", "::-2", ":", "1:")) for _ in v.shape)
            target = f"{x}[{key}]"
        elif form == "transpose":
            target = f"{x}.T[...]"
        elif form == "transpose_row":
            if not v.shape[-1]:
                return
            target = f"{x}.T[{self.draw(st.integers(-v.shape[-1], v.shape[-1] - 1))}]"
        elif form == "swapaxes":
            target = f"np.swapaxes({x}, 0, 1)[{self.choose(('0', '::-1', '1:'))}]"
        elif form == "kept":  # a view kept under a name, then written
            kept = f"w{self.count}"
            view = f"{x}{self.choose(('[::-1]', '[1:]', '.T', '[..., ::2]'))}"
            pre.append(f"{kept} = {view}")
            bind = {kept: self._peek(view)}
            target = f"{kept}[{self.choose(('1:', '::2', '...', '0'))}]"
        elif form == "last":
            target = f"{x}[..., 0]"
        else:  # x[1:] = x[:-1], x[:-1] += x[1:], x += x[::-1]: NumPy reads before it writes
            src = self.choose((f"{x}[:-1]", f"{x}[1:]", f"{x}[::-1]"))
            target = {f"{x}[:-1]": f"{x}[1:]", f"{x}[1:]": f"{x}[:-1]", f"{x}[::-1]": f"{x}[...]"}[src]
            if sym == "=" and src == f"{x}[::-1]":
                sym = "+="
        tview = self._peek(target, **bind)
        if tview is None:
            return
        if form == "overlap":
            ty = src
        else:
            y = self.pick(lambda w: _broadcasts_into(np.shape(w), np.shape(tview)))
            if y is None or self.chance(0.25):
                ty = repr(self.choose((1, 2, -1, 0.5)))
            else:
                ty = f"{y} * 2" if self.chance(0.3) else y
        value = self._peek(ty)
        if value is None:
            return
        src_dtype = _dtype(value)
        if not np.can_cast(src_dtype, v.dtype, "same_kind") or (
                sym == "=" and src_dtype.kind in "fc" and v.dtype.kind in "biu"):
            return
        write, pm = f"{target} {sym} {ty}", 0
        feats = ["view-write", f"view-write-{form}"]
        if self.chance(0.25):  # repeated by a loop, its trip count from the data
            write, pm = self._repeated(write)
            feats.append("view-write-looped")
        text = "\n".join(pre + [write])
        if not self.run(text, feats):
            return
        reads = [x, ty.split(" ")[0].split("[")[0]]
        exact = self._exact(*reads) and not (v.dtype.kind == "c" and "*" in text) and not pm
        self.written(x, 0 if exact else FREE, None)

    def _repeated(self, statement: str) -> tuple[str, float]:
        """``statement`` in a loop of 0 to 2 (or a static 2) steps, the count from a variable's
        data: (the loop, the count's precision)."""
        if self.chance(0.3):
            return f"for i in range(2):\n    {statement}", 0
        m = self.pick()
        loop = f"for i in range(int(np.count_nonzero({m})) % 3):\n    {statement}"
        return loop, self.meta[m].prec

    # -- out= ----------------------------------------------------------------------------------
    def out_arg(self):
        from tests.programs.generator import _broadcasts
        x = self.arrays(lambda v: v.ndim >= 1)
        if x is None:
            return
        v = self.ns[x]
        form = self.choose(("fresh", "fresh", "itself", "overlap", "where", "reduction", "scan",
                            "clip", "returned", "pair"))
        fn = self.choose(sorted(OUT_UFUNCS))
        arity = OUT_UFUNCS[fn]
        y = self.pick(lambda w: _broadcasts(v.shape, np.shape(w)) and
                      np.broadcast_shapes(v.shape, np.shape(w)) == v.shape)
        second = y if y is not None and self.chance(0.7) else self.choose((2, -1, 0.5))
        operands = x if arity == 1 else f"{x}, {second}"
        name = self.new_name()
        dt = self.choose(("{x}.dtype", "np.float64", "np.int64", "np.float32", "np.complex128"))
        dt = dt.format(x=x)
        writes_x = False
        if form == "fresh":
            make = self.choose((f"np.empty_like({x}, dtype={dt})", f"np.zeros({x}.shape, dtype={dt})"))
            text = f"{name} = {make}\nnp.{fn}({operands}, out={name})"
        elif form == "returned":  # the call's value is the out array itself
            text = (f"o{name[1:]} = np.zeros({x}.shape, dtype={dt})\n"
                    f"{name} = np.{fn}({operands}, out=o{name[1:]})\n{name}[..., :1] = 1")
        elif form == "itself":
            if not self.writable_array(v):
                return
            text = f"np.{fn}({operands}, out={x})\n{name} = {x} * 1"
            writes_x = True
        elif form == "overlap":
            if not self.writable_array(v) or v.shape[0] < 2:
                return
            o = self.choose((f"{x}[1:]", f"{x}[:-1]"))
            a = f"{x}[:-1]" if o == f"{x}[1:]" else f"{x}[1:]"
            ops = a if arity == 1 else f"{a}, {self.choose((a, o, '2'))}"
            text = f"np.{fn}({ops}, out={o})\n{name} = {x} * 1"
            writes_x = True
        elif form == "where":
            m = f"{x} {self.choose(('>', '<', '!='))} {self.choose((0, 1))}"
            text = f"{name} = np.full({x}.shape, {self.choose((0, 7, -1))}, dtype={dt})\n" \
                   f"np.{fn}({operands}, out={name}, where={m})"
        elif form == "reduction":
            axis = self.draw(st.integers(-v.ndim, v.ndim - 1))
            red = self.choose(("sum", "max", "min", "prod"))
            keep = self.chance(0.3)
            shape = tuple(1 if k == axis % v.ndim else d for k, d in enumerate(v.shape)) if keep else \
                tuple(d for k, d in enumerate(v.shape) if k != axis % v.ndim)
            # (into an array of the result's own dtype: into another, NumPy reduces in the
            # promotion of both, which jitcore refuses, UnsupportedError: docs/testing.md round 9)
            natural = _dtype(self._peek(f"np.{red}({x}, axis={axis})"))
            text = (f"{name} = np.zeros({shape!r}, dtype=np.{natural.name})\n"
                    f"np.{red}({x}, axis={axis}{', keepdims=True' if keep else ''}, out={name})")
            fn = red
        elif form == "scan":
            axis = self.draw(st.integers(-v.ndim, v.ndim - 1))
            scan = self.choose(("cumsum", "cumprod"))
            natural = _dtype(self._peek(f"np.{scan}({x}, axis={axis})"))
            text = (f"{name} = np.empty({x}.shape, dtype=np.{natural.name})\n"
                    f"np.{scan}({x}, axis={axis}, out={name})")
            fn = scan
        elif form == "pair":  # a ufunc of two outputs into two local arrays
            if v.dtype.kind == "c":
                return
            two = f"np.divmod({x}, {second})" if v.dtype.kind != "f" or self.chance(0.5) else f"np.modf({x})"
            natural = [_dtype(r) for r in (self._peek(two) or ())]
            if len(natural) != 2:
                return
            q = f"q{name[1:]}"
            text = (f"{q} = np.zeros({x}.shape, dtype=np.{natural[0].name})\n"
                    f"{name} = np.ones({x}.shape, dtype=np.{natural[1].name})\n"
                    f"{two[:-1]}, out=({q}, {name}))\n{name} = {name} + {q}")
            fn = "pair"
        else:
            if not self.writable_array(v) or v.dtype.kind == "c":
                return
            text = f"np.clip({x}, {self.choose((-1, 0))}, {self.choose((2, 3))}, out={x})\n{name} = {x} * 1"
            writes_x, fn = True, "clip"
        pm = 0
        feats = ["out-arg", f"out-arg-{form}"]
        if form in ("itself", "overlap", "where", "fresh") and self.chance(0.25):
            lines = text.split("\n")
            at = 1 if form in ("where", "fresh") else 0  # the call (after the array made for it)
            lines[at], pm = self._repeated(lines[at])
            text = "\n".join(lines)
            feats.append("out-arg-looped")
        if not self.run(text, feats):
            return
        reads = [x] + ([y] if y is not None and str(y) in operands else [])
        exact = self._exact(*reads)
        out = _dtype(self.ns[name])
        if fn in ("sum", "prod"):
            prec, _ = self._sum_prec(self.meta[x].prec, self.meta[x].bound, v.size, self.ns[name]) \
                if fn == "sum" else (FREE, None)
            if fn == "prod" and exact and out.kind in "biu":
                prec = 0
        elif fn == "true_divide" and out.kind == "c":
            prec = FREE
        elif fn == "cumprod" and out.kind == "c":
            prec = FREE
        else:
            prec = 0 if exact else FREE
        if fn == "absolute" and _dtype(v).kind == "c":
            prec = FREE  # (NumPy's own |z| differs by layout: generator.COMPLEX_ABS_ULPS)
        prec = FREE if pm else prec
        if writes_x:
            self.written(x, prec, None)
        self.result(name, prec, None)

    # -- selections by sorting (no np.unique: its length is the data's) -------------------------
    def select_sorted(self):
        """The k largest or smallest along an axis (``np.sort(x)[..., -k:]``), the elements at
        the first k stable argsort positions, the arg-extreme read back through
        ``take_along_axis``, selecting percentiles at several q, a threshold at the k-th value."""
        from tests.programs.generator import _zero_tie
        x = self.arrays(lambda v: v.ndim >= 1 and v.size >= 1 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        axis = self.draw(st.integers(-v.ndim, v.ndim - 1))
        n = v.shape[axis]
        if n == 0:
            return
        k = self.draw(st.integers(1, n))
        form = self.choose(("top", "bottom", "argsort_first", "arg_extreme", "percentiles", "threshold",
                            "reversed"))
        if form == "top":
            text = f"np.sort({x}, axis={axis})[..., -{k}:]" if axis in (-1, v.ndim - 1) else \
                f"np.take(np.sort({x}, axis={axis}), np.arange({n - k}, {n}), axis={axis})"
        elif form == "bottom":
            text = f"np.take(np.sort({x}, axis={axis}), np.arange({k}), axis={axis})"
        elif form == "argsort_first":  # the elements at the first k stable positions
            text = (f"np.take_along_axis({x}, np.take(np.argsort({x}, axis={axis}, kind='stable'), "
                    f"np.arange({k}), axis={axis}), axis={axis})")
        elif form == "arg_extreme":
            fn = self.choose(("argmax", "argmin"))
            text = f"np.take_along_axis({x}, np.{fn}({x}, axis={axis}, keepdims=True), axis={axis})"
        elif form == "percentiles":
            qs = sorted(set(self.draw(st.lists(st.sampled_from((0, 10, 25, 50, 90, 100)), min_size=1,
                                               max_size=3))))
            method = self.choose(("lower", "higher", "nearest", "inverted_cdf", "closest_observation"))
            text = f"np.percentile({x}, {qs}, axis={axis}, method={method!r})"
        elif form == "threshold":  # the elements at least the k-th largest, the others 0
            kth = f"np.take(np.sort({x}, axis={axis}), [{n - k}], axis={axis})"
            text = f"np.where({x} >= {kth}, {x}, 0)"
        else:
            text = f"np.flip(np.sort({x}, axis={axis}), axis={axis})"
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["select-sorted", f"select-sorted-{form}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        tie = _zero_tie(v)  # (which zero a sort puts first is its own choice)
        prec = FREE if tie and form != "arg_extreme" else px
        if form == "threshold" and px:
            prec = FREE
        self.result(name, prec, bx)

