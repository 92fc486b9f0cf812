"""Statements of the random programs (tests/programs/generator.py) that call NumPy's scientific
functions: ``numpy.fft`` on small lengths (primes among them, which run by Bluestein's
algorithm), small ``numpy.linalg`` calls on well-conditioned matrices, quantiles and
percentiles with every method, and ``einsum`` strings.

Their results are not correctly rounded and not in NumPy's order (pocketfft's, LAPACK's), so
most are compared with NumPy within a tolerance relative to the result's largest magnitude
(``_Builder.rel``, checked by tests/programs/differential.py), not in ULPs. A value computed
from one of them afterwards is not compared with NumPy at all (``FREE``); the unfused pipeline
must still agree bit for bit unless the value is ``unordered``.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FFT_LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 19, 23)  # 17, 19, 23: Bluestein
QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                    "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                    "hazen", "weibull", "median_unbiased", "normal_unbiased")
# Methods whose result is one of the elements (no arithmetic): exact as the input is.
SELECTING = {"lower", "higher", "nearest", "inverted_cdf", "closest_observation"}
EINSUMS_1 = ("ij->ji", "ij->i", "ij->j", "ij->", "ii->i", "ii", "i->", "...->...", "...i->...",
             "ijk->kji", "ijk->ik")
EINSUMS_2 = ("ij,j->i", "i,i->", "i,j->ij", "ij,kj->ik", "ij,jk->ik", "...i,...i->...", "bij,bjk->bik",
             "ij,ij->ij", "i,i->i")
FREE = math.inf


def _finite_and_moderate(v) -> bool:
    """Finite values of magnitude at most 1e30: a transform of them neither overflows nor
    turns into NaN in one implementation and not the other."""
    v = np.asarray(v)
    if v.dtype.kind not in "biufc":
        return False
    a = np.abs(v.astype(np.complex128)) if v.dtype.kind in "fc" else np.abs(v.astype(np.float64))
    return bool(np.isfinite(a).all() and (a <= 1e30).all())


def _dtype(v):
    return np.asarray(v).dtype


def _tiny(v) -> float:
    dt = np.asarray(v).dtype
    return float(np.finfo(np.float32 if dt in (np.complex64, np.float32, np.float16) else np.float64).tiny)


def _eps(v) -> float:
    dt = np.asarray(v).dtype
    if dt.kind == "c":
        dt = np.float32 if dt == np.complex64 else np.float64
    return float(np.finfo(dt).eps) if np.dtype(dt).kind == "f" else 0.0


class ScientificStatements:
    """Mixed into generator._Builder: each method draws one statement."""

    def fft(self):
        x = self.arrays(lambda v: v.ndim > 0 and v.dtype.kind in "biufc")
        if x is None:
            return
        v = self.ns[x]
        real = v.dtype.kind != "c"
        fns = ["fft", "ifft", "irfft", "hfft", "fftshift", "ifftshift", "fftn"] + (
            ["rfft", "ihfft", "rfftn"] if real else []) + (["fft2", "ifft2"] if v.ndim >= 2 else [])
        fn = self.choose(fns)
        args = []
        if fn in ("fftshift", "ifftshift"):
            if self.chance(0.5):
                args.append(f"axes={self.draw(st.integers(-v.ndim, v.ndim - 1))}")
        elif fn in ("fft2", "ifft2", "fftn", "rfftn"):
            if self.chance(0.4):
                k = min(v.ndim, 2)
                args.append(f"s={tuple(self.choose(FFT_LENGTHS) for _ in range(k))}")
                args.append(f"axes={tuple(range(v.ndim - k, v.ndim))}")
        else:
            if self.chance(0.5):
                args.append(f"n={self.choose(FFT_LENGTHS)}")
            if self.chance(0.5):
                args.append(f"axis={self.draw(st.integers(-v.ndim, v.ndim - 1))}")
        if fn not in ("fftshift", "ifftshift") and self.chance(0.4):
            args.append(f"norm={self.choose(('ortho', 'forward', 'backward'))!r}")
        name = self.new_name()
        text = f"np.fft.{fn}({', '.join([x] + args)})"
        if not self.run(f"{name} = {text}", ["fft", f"fft-{fn}"]):
            return
        px, bx = self.meta[x].prec, self.meta[x].bound
        if fn in ("fftshift", "ifftshift"):  # a roll: the same values
            self.result(name, px, bx)
            return
        self.result(name, FREE, None)
        out = self.ns[name]
        axis = next((int(a[5:]) for a in args if a.startswith("axis=")), -1)
        if fn in ("irfft", "hfft") and v.shape[axis] == 0:
            return  # NumPy 2.4 reads memory it never wrote there: np.fft.irfft([], n=1) is garbage
        if px != FREE and _finite_and_moderate(v) and np.size(out):
            n = max(np.shape(out) + np.shape(v))
            # (NumPy rounds a float16 input's normalisation factor to float16)
            e = _eps(out) + px * _eps(v) + (2 * _eps(v) if v.dtype == np.float16 else 0)
            # (of subnormal values, an error of their own size: at least the smallest normal)
            self.rel[name] = (16 * e * (math.log2(n) + 1) * math.sqrt(n), _tiny(out))

    def linalg(self):
        """A call on ``M``, a matrix (or a batch) made well conditioned from a variable's
        leading square: its finite values clipped to [-1, 1], plus 2n on the diagonal."""
        x = self.pick(lambda v: _dtype(v).kind in "biufc")
        if x is None:
            return
        v = self.ns[x]
        n = min(np.shape(v)[-2:] + (self.choose((1, 2, 3, 4)),))  # 0 where v is empty
        # (of a vector, the matrix of its differences; of a scalar, a matrix full of it)
        s = {0: f"np.full(({n}, {n}), {x})", 1: f"({x}[:{n}, None] - {x}[None, :{n}])"}.get(
            np.ndim(v), f"{x}[..., :{n}, :{n}]")
        complex_ = _dtype(v).kind == "c"
        if _dtype(v).kind == "f":
            eye = f"np.eye({n}, dtype=np.{_dtype(v).name})"
            m = f"(np.where(np.isfinite({s}), np.clip({s}, -1, 1), 0) + {2 * n} * {eye})"
        elif complex_:  # each part clipped; Hermitian below
            eye = f"np.eye({n}, dtype=np.{_dtype(v).name})"
            m = (f"(np.where(np.isfinite({s}), np.clip({s}.real, -1, 1) + 1j * np.clip({s}.imag, -1, 1), 0)"
                 f" + {2 * n} * {eye})")
        else:
            m = f"(np.clip({s}.astype(np.int64), -1, 1) + {2 * n} * np.eye({n}, dtype=np.int64))"
        sym = f"({m} + np.swapaxes({m}, -1, -2){'.conj()' if complex_ else ''})"
        # (complex eigh: UnsupportedError, it needs the eigenvectors)
        fn = self.choose(("det", "inv", "solve", "solve-vector", "qr-r", "qr-q", "eigvalsh", "cholesky",
                          "slogdet", "norm", "svdvals") + (() if complex_ else ("eigh",)))
        text = {"det": f"np.linalg.det({m})", "inv": f"np.linalg.inv({m})",
                "solve": f"np.linalg.solve({m}, {m}[..., ::-1])",
                "solve-vector": f"np.linalg.solve({m}, np.arange({n}) - 1.5)",
                "qr-r": f"np.linalg.qr({m}).R", "qr-q": f"np.linalg.qr({m}, mode='complete').Q",
                "eigvalsh": f"np.linalg.eigvalsh({sym})", "eigh": f"np.linalg.eigh({sym}).eigenvalues",
                "cholesky": f"np.linalg.cholesky({sym})", "slogdet": f"np.linalg.slogdet({m}).logabsdet",
                "norm": f"np.linalg.norm({m}, {self.choose(('None', '1', '-np.inf', repr('fro')))})",
                "svdvals": f"np.linalg.svd({m}, compute_uv=False)"}[fn]
        name = self.new_name()
        feats = ["linalg", f"linalg-{fn}"] + (["linalg-complex"] if complex_ else [])
        if not self.run(f"{name} = {text}", feats):
            return
        px = self.meta[x].prec
        self.result(name, FREE, None)
        out = self.ns[name]
        if px != FREE and np.size(out):
            # (M's entries are of order n, its inverse's of order 1/n: errors scale with 1)
            self.rel[name] = (64 * n * (_eps(out) + px * _eps(v)), 1.0)

    def quantile(self):
        x = self.arrays(lambda v: v.ndim > 0 and v.dtype.kind in "biuf")
        if x is None:
            return
        v = self.ns[x]
        fn = self.choose(("quantile", "percentile", "nanquantile", "nanpercentile"))
        method = self.choose(QUANTILE_METHODS + ("default",))
        scale = 100 if "percentile" in fn else 1
        qs = self.choose(((0.5,), (0.0,), (1.0,), (0.25,), (0.3,), (0.9, 0.1), (0.5, 0.75, 0.0)))
        qs = [q * scale for q in qs]
        q = repr(qs[0]) if len(qs) == 1 and self.chance(0.7) else (
            f"{qs}" if self.chance(0.5) else f"np.array({qs})")
        axis = self.choose([None] + list(range(-v.ndim, v.ndim)))
        if v.ndim >= 2 and self.chance(0.2):
            axis = (0, v.ndim - 1)
        if fn.startswith("nan") and method not in SELECTING and v.dtype.kind == "f" and v.size \
                and np.isnan(v).all(axis=axis).any():
            # NumPy's result dtype then depends on the data (a lane of NaN only: the input's
            # float dtype, else float64); jitcore's does not (docs/numpy_support.md)
            method = "lower"
        args = "" if axis is None else f", axis={axis}"
        if method != "default":
            args += f", method={method!r}"
        if self.chance(0.3):
            args += ", keepdims=True"
        name = self.new_name()
        if not self.run(f"{name} = np.{fn}({x}, {q}{args})", ["quantile", f"quantile-{method}"]):
            return
        from tests.programs.generator import _zero_tie  # (a cycle: generator imports this module)
        px = self.meta[x].prec
        if method in SELECTING and not _zero_tie(v):
            self.result(name, px, self.meta[x].bound)
            return
        self.result(name, FREE, None)
        # NumPy's interpolation: a few roundings of finite values; inf - inf and the like give
        # NaN in an order of NumPy's choosing
        out = self.ns[name]
        if px != FREE and _finite_and_moderate(v) and np.size(out) and not _zero_tie(v):
            self.rel[name] = (8 * (_eps(out) + px * _eps(v)), 0.0)

    def einsum(self):
        two = self.chance(0.5)
        spec = self.choose(EINSUMS_2 if two else EINSUMS_1)
        ins = spec.split("->")[0].split(",")

        def rank_fits(sub):
            return lambda w: isinstance(w, np.ndarray) and (w.ndim == len(sub) if "..." not in sub else
                                                            w.ndim >= len(sub) - 3)
        x = self.pick(rank_fits(ins[0]))
        if x is None:
            return
        ops = [x]
        if two:
            y = self.pick(lambda w: rank_fits(ins[1])(w) and self._peek(
                f"np.einsum({spec!r}, {x}, w)", w=w) is not None)
            if y is None:
                return
            ops.append(y)
        text = f"np.einsum({spec!r}, {', '.join(ops)}{', optimize=True' if self.chance(0.3) else ''})"
        res = self._peek(text)
        if res is None:
            return
        sums = len(set(spec.replace(",", "").replace("->", "").replace(".", ""))) > len(
            spec.split("->")[1].replace(".", "")) if "->" in spec else True
        out = np.asarray(res).dtype
        if sums and out.kind in "fc":  # the sign of a zero sum depends on the order of its terms
            text = f"({text}) + 0.0"
        name = self.new_name()
        if not self.run(f"{name} = {text}", ["einsum"]):
            return
        prec = max(self.meta[o].prec for o in ops)
        bounds = [self.meta[o].bound for o in ops]
        bound = None if any(b is None for b in bounds) else math.prod(bounds)
        if sums:
            terms = max(1, max(np.size(self.ns[o]) for o in ops))
            total = None if bound is None else terms * bound
            exact = out.kind in "biu" or (out.kind == "f" and total is not None
                                          and total <= 2.0 ** (np.finfo(out).nmant + 1))
            prec, bound = (prec if exact and prec == 0 else FREE), total
            if prec and out.kind in "fc":
                self.unordered.add(name)
        elif len(ops) == 2:  # one product an element: exact when its operands are
            prec = 0 if prec == 0 and out.kind != "c" else FREE
        self.result(name, prec, bound)
