"""Statements of the random programs (tests/programs/generator.py) over what session 33's
compiler work changed:

* loops over ranges whose bodies slice at the loop index: windows ``x[i:i + w]`` that clamp at
  the end or run empty, prefixes ``x[:i]``, suffixes ``x[i:]``, a start behind the index
  ``x[i - k:i + w]`` (negative, so wrapping, near 0), columns ``x[:, k:k + w]``, two nested
  loops over a 2-d window (jitcore/index_forms.py, indexing.py, masked.py's RangedSelection:
  a loop kept as a loop, or unrolled where a slice may clamp);
* element, row and window writes in loops, into a copy, an input, a view of one (reversed,
  transposed, every other row) or a sorted copy (codegen/host.py's in-place takeover of a dying
  input's buffer), and the loops of Gaussian elimination and forward substitution
  (``a[k + 1:, k + 1:] -= np.outer(...)``, ``L[i, :i] @ y[:i]``);
* integer ``//``, ``%`` and ``divmod`` by constants (the magic-number divisions), by NumPy scalars
  and by arrays, in every integer dtype: zero divisors, ``MIN // -1``, both signs;
* column sums of strided reads (``x[::2].sum(0)``, axis 0 of 3-d, reversed steps);
* ``z.real`` and ``z.imag`` as views and writes through them, in loops too;
* partitions at several k, argpartition read back through ``take_along_axis``, selecting
  quantiles along axis 0;
* complex ``eig``, ``eigh`` and ``svd`` with their vectors, compared through what they
  reconstruct (vectors are defined up to a phase only).

Precisions as in the generator: an IEEE operation per element in NumPy's sequence is exact
(elimination's updates are: one product and one difference each); a sum is exact when its
bounded integer terms fit the mantissa, else ``FREE``.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FREE = math.inf
# Reductions of one slice per step: (template, what its value is); "empty-safe" ones may
# reduce an empty slice (a window past the end).
EMPTY_SAFE = {"np.sum({r})": "sum", "np.count_nonzero({r})": "position", "np.any({r})": "position",
              "{r}.sum(axis=0)": "sum", "np.abs({r}).sum()": "sum"}
NON_EMPTY = {"np.max({r})": "select", "np.min({r})": "select", "np.argmax({r})": "position",
             "{r}[-1]": "select", "{r}.mean()": "mean"}
# Divisors of the integer divisions: small and large, both signs, powers of two, 0 and -1
DIVISORS = (1, -1, 2, 3, 5, 7, -3, -7, 10, 16, -16, 100, 127, 255, 641, 1000, 65535, 2**31 - 1, 0)


def _dtype(v):
    return np.asarray(v).dtype


def _fits(c, dtype) -> bool:
    info = np.iinfo(dtype)
    return info.min <= c <= info.max


class LoopStatements:
    """Mixed into generator._Builder: each method draws one statement."""

    # (complex_decomposition is drawn only when favoured: its eig/eigh/svd kernels take 3-10 s
    # to compile, fused and unfused, against about 0.1 s for a statement here)
    KINDS = ("sliced_loop", "sliced_loop", "loop_write", "loop_write", "intdiv", "strided_sum",
             "complex_view", "selection")

    def round8(self):
        """One of this module's statements: one name among the generator's kinds, so that the
        older kinds keep their share (``python -m tests.programs.fuzz --favour sliced_loop,...``
        draws each more often)."""
        getattr(self, self.choose(self.KINDS))()

    def _window(self, n):
        """A read at the loop index ``i`` of an axis of ``n``, its form, and the loop's range
        ``lo``, ``hi`` (that may run past the end: the reads clamp or run empty)."""
        w = self.draw(st.integers(1, max(1, min(n + 1, 5))))
        form = self.choose(("window", "window", "prefix", "suffix", "behind", "ahead"))
        k = self.draw(st.integers(1, 3))
        read = {"window": f"[i:i + {w}]", "prefix": "[:i]", "suffix": "[i:]",
                "behind": f"[i - {k}:i + {w}]", "ahead": f"[i + 1:i + {k + 1}]"}[form]
        top = self.choose((n, n, n + 1, max(n - w + 1, 1), n + 2))
        lo = self.draw(st.integers(0, max(0, min(top - 1, 3))))
        hi = self.draw(st.integers(lo + 1, max(lo + 1, min(top, lo + 6))))
        return read, form, lo, hi

    def sliced_loop(self):
        """A loop over a range whose steps each reduce a slice at the loop index (a window, a
        prefix, a suffix, a start behind the index, a column block; two loops over a 2-d
        window), into an array of the steps' values or a carried sum."""
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1 and v.dtype.kind != "c")
        if x is None:
            return
        v = self.ns[x]
        n = v.shape[0]
        nested = v.ndim >= 2 and v.shape[1] >= 1 and self.chance(0.25)
        column = not nested and v.ndim >= 2 and self.chance(0.3)
        if nested:
            w1, w2 = (self.draw(st.integers(1, 3)) for _ in range(2))
            hi1, hi2 = min(n, self.draw(st.integers(1, 4))), min(v.shape[1], self.draw(st.integers(1, 4)))
            read, lo, hi, form = f"{x}[i:i + {w1}, j:j + {w2}]", 0, hi1, "nested"
        elif column:  # a block of columns at the index: the reduction runs along axis 1
            m = v.shape[1]
            w = self.draw(st.integers(1, 3))
            read, lo = f"{x}[:, i:i + {w}]", 0
            hi, form = max(1, min(m + self.draw(st.integers(-1, 1)), 6)), "column"
        else:
            read, form, lo, hi = self._window(n)
            read = x + read
        # the whole first axis, written as its length: a loop of up to 17 steps
        whole = not nested and not column and n <= 17 and self.chance(0.2)
        if whole:
            lo, hi = 0, n
        # (x[i - k:i + w] near 0: a negative start, counted from the end)
        points = [(i, j) for i in range(lo, hi) for j in (range(hi2) if nested else (0,))]
        reads = [self._peek(read, i=i, j=j) for i, j in points]
        if any(r is None for r in reads):
            return
        reds = {**EMPTY_SAFE, **NON_EMPTY} if all(np.size(r) for r in reads) else EMPTY_SAFE
        if column:
            reds = {"{r}.sum(axis=1)": "sum", "{r}.max(axis=1, initial=0)": "select-0",
                    "np.count_nonzero({r}, axis=1)": "position"}
        body, kind = self.draw(st.sampled_from(sorted(reds.items())))
        step = body.format(r=read)
        probes = [self._peek(step, i=i, j=j) for i, j in points]
        if any(p is None for p in probes) or len({(np.shape(p), _dtype(p)) for p in probes}) > 1:
            return
        probe = probes[0]
        name = self.new_name()
        dt = _dtype(probe).name
        loop = self.choose((f"range(len({x}))", f"range({x}.shape[0])")) if whole else f"range({lo}, {hi})"
        carried = not nested and self.chance(0.3) and np.ndim(probe) == 0
        if nested:
            text = (f"{name} = np.zeros(({hi1}, {hi2}) + {np.shape(probe)!r}, dtype=np.{dt})\n"
                    f"for i in range({hi1}):\n    for j in range({hi2}):\n        {name}[i, j] = {step}")
        elif carried:  # a carried sum of the steps, added in the loop's order
            init = f"np.{dt}(0)" if dt != "bool" else "np.int64(0)"
            text = f"{name} = {init}\nfor i in {loop}:\n    {name} = {name} + {step}"
            if dt == "bool":
                kind = "position"
        else:
            at = f"i - {lo}" if lo else "i"
            text = (f"{name} = np.zeros(({hi - lo},) + {np.shape(probe)!r}, dtype=np.{dt})\n"
                    f"for i in {loop}:\n    {name}[{at}] = {step}")
        if not self.run(text, ["sliced-loop", f"sliced-loop-{form}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        out = self.ns[name]
        steps = (hi1 * hi2) if nested else hi - lo
        if carried and kind in ("select", "mean"):  # a sum of the steps' values, one at a time
            prec, bound = (0 if px == 0 else FREE), None
        elif kind in ("select", "select-0"):  # (a max with initial=0: 0 or an element)
            prec, bound = px, bx
        elif kind == "position":
            prec, bound = (0 if px == 0 else FREE), None
        else:  # a sum of at most v.size terms per step, summed over the steps if carried
            prec, bound = self._sum_prec(px, bx, v.size * steps, out)
            if kind == "mean":
                bound = None
        self.result(name, prec, bound)

    def loop_write(self):
        """Element, row or window writes in a loop: into a copy, into the variable itself (an
        input, maybe), through a view of it, or into a sorted copy; then Gaussian elimination
        and forward substitution."""
        if self.chance(0.25):
            self._elimination()
            return
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 2)
        if x is None:
            return
        v = self.ns[x]
        target = self.choose(("copy", "copy", "itself", "view", "sorted"))
        if target != "copy" and not self.writable_array(v):
            target = "copy"
        if target == "sorted" and v.dtype.kind == "c":
            target = "copy"
        view = self.choose(("[::-1]", "[1:]", "[::2]", ".T", "[:, ::-1]" if v.ndim >= 2 else "[::-1]"))
        op = self.choose(("{y}[i - 1] + {y}[i]", "{y}[i] - {y}[i - 1]", "np.maximum({y}[i - 1], {y}[i])",
                          "{y}[i - 1] * 2", "{y}[i - 1] + {x}[i]", "-{y}[i]"))
        window = self.chance(0.25)
        name = self.new_name()
        lines = []
        if target == "copy":
            lines.append(f"{name} = {x}.copy()")
            y = name
        elif target == "sorted":
            lines.append(f"{name} = np.sort({x}, axis=0)")
            y = name
        elif target == "itself":
            y = x
        else:
            lines.append(f"{name} = {x}{view}")
            y = name
        m = np.shape(self._peek(f"{x}{view}") if target == "view" else v)
        if not m or m[0] < 2:
            return
        lo, hi = self.draw(st.integers(1, 2)), min(m[0], self.draw(st.integers(2, 7)))
        if lo >= hi:
            lo = 1
        if window:  # a window at the index, clamped at the end: overlapping writes
            w = self.draw(st.integers(1, 3))
            c = self.choose((1, 2, -1))
            lines.append(f"for i in range({lo - 1}, {hi}):\n    {y}[i:i + {w}] += {c}")
        else:
            lines.append(f"for i in range({lo}, {hi}):\n    {y}[i] = {op.format(y=y, x=x)}")
        if y == x:  # the result: the input's new value, and a read of it after the writes
            lines.append(f"{name} = {x}[::-1] * 1")
        if not self.run("\n".join(lines), ["loop-write", f"loop-write-{target}"] +
                        (["loop-write-window"] if window else [])):
            return
        from tests.programs.generator import _zero_tie
        px = self.meta[x].prec
        # (+0.0 and -0.0 in a sorted copy: their places are the sort's choice)
        exact = px == 0 and (v.dtype.kind != "c" or "* 2" not in op) and not (
            target == "sorted" and _zero_tie(v))
        prec = 0 if exact else FREE
        if target in ("itself", "view"):
            self.written(x, prec, None)
        if target == "view":
            self.meta[name] = type(self.meta[x])(prec, None)
            self.features.add("write-through-view")
            return
        self.result(name, prec, None)

    def _elimination(self):
        """LU without pivoting (``a[k + 1:, k] /= a[k, k]``; ``a[k + 1:, k + 1:] -=
        np.outer(...)``) of a float square, or forward substitution with a unit lower
        triangle (``y[i] -= L[i, :i] @ y[:i]``)."""
        x = self.arrays(lambda v: v.ndim == 2 and min(v.shape) >= 1 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        k = min(v.shape[0], v.shape[1], self.draw(st.integers(2, 5)))
        name = self.new_name()
        if self.chance(0.5):
            dt = v.dtype.name if v.dtype.kind == "f" else "float64"
            text = (f"{name} = {x}[:{k}, :{k}].astype(np.{dt})\nfor k in range({k} - 1):\n"
                    f"    {name}[k + 1:, k] /= {name}[k, k]\n"
                    f"    {name}[k + 1:, k + 1:] -= np.outer({name}[k + 1:, k], {name}[k, k + 1:])")
            form = "lu"
        else:  # y[:i] is empty at i = 0: a product of nothing
            text = (f"{name} = {x}[0, :{k}].copy()\nfor i in range({k}):\n"
                    f"    {name}[i] = {name}[i] - {x}[i, :i] @ {name}[:i]")
            form = "substitution"
        if not self.run(text, ["loop-write", f"elimination-{form}"]):
            return
        px = self.meta[x].prec
        out = _dtype(self.ns[name])
        if form == "lu":
            prec = 0 if px == 0 else FREE
        else:  # a dot of a row: exact for integers; a float sum in BLAS's order or the loop's
            prec = 0 if px == 0 and out.kind in "biu" else FREE
            if out.kind == "f":
                self.unordered.add(name)
                self.features.add("unordered")
        self.result(name, prec, None)

    def intdiv(self):
        """``x // d``, ``x % d``, ``divmod`` or ``np.fmod`` of an integer variable (cast to another
        integer dtype now and then) by a constant, a NumPy scalar, or an array."""
        from tests.programs.generator import _broadcasts_into  # (a cycle: generator imports this)
        x = self.arrays(lambda v: v.dtype.kind in "biu")
        if x is None:
            return
        v = self.ns[x]
        tx = x
        dt = v.dtype
        if self.chance(0.4) or dt == np.bool_:
            dt = np.dtype(self.choose(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                       "uint64")))
            tx = f"{x}.astype(np.{dt.name})"
        info = np.iinfo(dt)
        form = self.choose(("constant", "constant", "constant", "scalar", "array", "min"))
        if form == "array":
            y = self.arrays(lambda w: w.dtype.kind in "biu" and _broadcasts_into(np.shape(w), v.shape))
            if y is None:
                return
            ty = y if self.chance(0.5) else f"({y} - 1)"
        else:
            c = self.choose(DIVISORS + (int(info.max), int(info.min) if info.min else 3))
            if not _fits(c, dt):
                return
            ty = f"np.{dt.name}({c})" if form == "scalar" else repr(c)
            if form == "min" and info.min:  # the least value divided by -1, and by itself
                tx = f"np.minimum({tx}, np.{dt.name}({info.min}))" if self.chance(0.3) else tx
                ty = self.choose(("-1", f"np.{dt.name}({info.min})", "1"))
        op = self.choose(("//", "%", "divmod0", "divmod1", "fmod", "inplace"))
        name = self.new_name()
        if op == "inplace":
            text = f"{name} = {tx}.copy()\n{name} {self.choose(('//=', '%='))} {ty}"
        elif op.startswith("divmod"):
            text = f"{name} = np.divmod({tx}, {ty})[{op[-1]}]"
        elif op == "fmod":
            text = f"{name} = np.fmod({tx}, {ty})"
        else:
            text = f"{name} = {tx} {op} {ty}"
        if not self.run(text, ["intdiv", f"intdiv-{form}"]):
            return
        py = self.meta[ty.strip("(").split()[0]].prec if form == "array" else 0
        self.result(name, 0 if self.meta[x].prec == 0 and py == 0 else FREE, None)

    def strided_sum(self):
        """A column sum of a strided read: ``x[::2].sum(0)``, a start and a step, a reversed
        step, every other column, axis 0 of 3-d, through a Fortran copy."""
        x = self.arrays(lambda v: v.ndim >= 2 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        step = self.choose((2, 3, -1, -2, 4))
        start = self.choose(("", "1", "-1"))
        # (an F-order operand: the layouts of tests/layouts.py; np.asfortranarray is not traced)
        read = self.choose((f"{x}[{start}::{step}]", f"{x}[::{step}, ::2]", f"{x}.T.T[::{step}]",
                            f"{x}[{start}::{step}, 1:]", x))
        fn = self.choose(("{r}.sum(0)", "np.sum({r}, axis=0)", "{r}.sum(axis=0, keepdims=True)",
                          "np.add.reduce({r}, axis=0)", "{r}.max(axis=0)", "{r}.sum(0, dtype=np.float64)"))
        text = fn.format(r=read)
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["strided-sum"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        if ".max" in fn:
            self.result(name, px, bx)
        else:
            self.result(name, *self._sum_prec(px, bx, v.shape[0], self.ns[name]))

    def complex_view(self):
        """A complex variable made from a real one, then written through ``.real`` or ``.imag``
        (a slice of a part, a part's view kept as a variable, a loop over the elements)."""
        x = self.arrays(lambda v: v.ndim >= 1 and v.shape[0] >= 1 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        ctype = self.choose(("complex64", "complex128"))
        name = self.new_name()
        part, other = self.choose((("real", "imag"), ("imag", "real")))
        c = self.choose((1, -2, 0.5, "-0.0"))
        form = self.choose(("slice", "add", "view", "loop", "copy-part"))
        lines = [f"{name} = {x}.astype(np.{ctype})"]
        if form == "slice":
            lines.append(f"{name}.{part}[{self.choose(('::2', '1:', ':-1', '::-1'))}] = {c}")
        elif form == "add":
            lines.append(f"{name}.{part}[...] += {name}.{other} * {c}")
        elif form == "view":  # the part kept as a variable of its own: a view
            lines.append(f"p{name[1:]} = {name}.{part}\np{name[1:]} -= {c}")
        elif form == "loop":
            lines.append(f"for i in range(1, {min(v.shape[0], 5)}):\n"
                         f"    {name}.{part}[i] = {name}.{other}[i - 1] + {name}.{part}[i - 1]")
        else:  # a part's copy written: the complex variable keeps its values
            lines.append(f"q{name[1:]} = {name}.{part}.copy()\nq{name[1:]}[:1] = {c}\n"
                         f"{name} = {name} + q{name[1:]}")
        if not self.run("\n".join(lines), ["complex-view", f"complex-view-{form}"]):
            return
        # (``-= 0.5`` of a float16 cast to complex64: one rounding, as in NumPy)
        self.result(name, 0 if self.meta[x].prec == 0 else FREE, None)

    def selection(self):
        """Partitions at several k and along any axis, an argpartition read back through
        ``take_along_axis``, a median or selecting quantile along axis 0."""
        from tests.programs.generator import _zero_tie
        x = self.arrays(lambda v: v.ndim >= 1 and v.size >= 1 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        axis = self.draw(st.integers(-v.ndim, v.ndim - 1))
        n = v.shape[axis]
        if n == 0:
            return
        ks = sorted(set(self.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))))
        k = ks[-1]
        form = self.choose(("partition", "argpartition", "median", "quantile"))
        if form == "partition":  # each kth element's place is defined, and the max before it
            text = (f"np.take(np.partition({x}, {ks}, axis={axis}), {ks}, axis={axis})" if self.chance(0.5)
                    else f"np.take(np.partition({x}, {k}, axis={axis}), np.arange({k + 1}), axis={axis})"
                         f".max(axis={axis})")
        elif form == "argpartition":
            text = (f"np.take(np.take_along_axis({x}, np.argpartition({x}, {k}, axis={axis}), axis={axis}),"
                    f" {k}, axis={axis})")
        elif form == "median":
            text = f"np.median({x}, axis={axis})"
        else:
            text = (f"np.quantile({x}, {self.choose((0.0, 0.25, 0.5, 1.0, 0.9))}, axis={axis}, "
                    f"method={self.choose(('lower', 'higher', 'nearest', 'inverted_cdf'))!r})")
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["selection", f"selection-{form}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        tie = _zero_tie(v)
        if form == "median":  # the mean of the two middle elements where n is even
            out = _dtype(self.ns[name])
            fits = bx is not None and 2 * bx <= 2.0 ** (np.finfo(out).nmant + 1)
            prec = 0 if px == 0 and not tie and (n % 2 or fits) else FREE
        else:
            prec = FREE if tie else px
        self.result(name, prec, bx if form != "median" else None)

    def complex_decomposition(self):
        """Complex ``eig``, ``eigh`` or ``svd`` with vectors, compared through what they give
        back: ``V diag(w) V^H`` (the Hermitian matrix), ``U diag(s) V^H`` (the matrix), or the
        residual ``M V - V diag(w)`` (about 0)."""
        x = self.arrays(lambda v: v.dtype.kind in "fc" and v.ndim >= 1)
        if x is None:
            return
        v = self.ns[x]
        n = min(v.shape[-2:] + (self.choose((1, 2, 3, 4)),))
        s = f"({x}[:{n}, None] - {x}[None, :{n}])" if v.ndim == 1 else f"{x}[..., :{n}, :{n}]"
        ctype = "complex64" if v.dtype in (np.float16, np.float32, np.complex64) else "complex128"
        # each part's finite values clipped to [-1, 1] (of a real variable, the imaginary part
        # its columns reversed), plus 2n on the diagonal: well conditioned
        re_, im_ = (f"{s}.real", f"{s}.imag") if v.dtype.kind == "c" else (s, f"{s}[..., ::-1]")
        m = (f"(np.where(np.isfinite({re_}), np.clip({re_}, -1, 1), 0) + 1j * np.where(np.isfinite({im_}), "
             f"np.clip({im_}, -1, 1), 0) + {2 * n} * np.eye({n})).astype(np.{ctype})")
        name = self.new_name()
        t = f"t{name[1:]}"
        fn = self.choose(("eigh", "svd", "eig"))
        if fn == "eigh":
            text = (f"{t} = {m}\n{t} = {t} + np.swapaxes({t}, -1, -2).conj()\n"
                    f"w{name[1:]}, u{name[1:]} = np.linalg.eigh({t})\n"
                    f"{name} = (u{name[1:]} * w{name[1:]}[..., None, :]) @ "
                    f"np.swapaxes(u{name[1:]}, -1, -2).conj()")
        elif fn == "svd":
            text = (f"u{name[1:]}, w{name[1:]}, h{name[1:]} = np.linalg.svd({m})\n"
                    f"{name} = (u{name[1:]} * w{name[1:]}[..., None, :]) @ h{name[1:]}")
        else:
            text = (f"{t} = {m}\nw{name[1:]}, u{name[1:]} = np.linalg.eig({t})\n"
                    f"{name} = {t} @ u{name[1:]} - u{name[1:]} * w{name[1:]}[..., None, :]")
        if not self.run(text, ["complex-decomposition", f"complex-decomposition-{fn}"]):
            return
        self.result(name, FREE, None)
        self.unordered.add(name)
        out = self.ns[name]
        if self.meta[x].prec != FREE and np.size(out):
            eps = float(np.finfo(np.float32 if out.dtype == np.complex64 else np.float64).eps)
            self.rel[name] = (256 * n * eps, 1.0)

