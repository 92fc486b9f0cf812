"""The NumPy coverage table of issue #3: every function of item 3, how to draw its arguments, and
how to compare jitcore's result with NumPy's.

Shared by ``tests/jitcore/test_numpy_coverage.py`` (hypothesis draws the cases) and
``tools/parity_report.py`` (a seeded generator draws them), so that the suite and the measurement
run exactly the same table. Every function is written in plain NumPy spelling (``np.exp(x)``,
``np.sum(x, axis=...)``, ``x[::-1, None]``): under ``jit`` it reaches jitcore through NumPy's
protocols (``__array_ufunc__``, ``__array_function__``), and on NumPy arrays it is the oracle.

A case draws its arguments through a ``Draw`` (``choice``, ``integer``, ``real``, and ``shape``
for an entry of a pool of shapes), so one generator serves hypothesis (``HypothesisDraw``), a
seeded generator (``RandomDraw``) and the fixed edge batch (``EdgeDraw``, ``edge_draws``: every
dtype of the family, the special values, the shapes (), (0,), (1,) and one of odd length past any
vector width, every memory layout). Every drawn array comes in a layout of tests/layouts.py.
Static parameters (axes, keys, shapes) are drawn too and passed to the jitted function as one
hashable static argument, so each case has one ``JitFunction`` and repeated signatures hit its
cache.

Float results are compared exactly, within the ULP bounds of tests/oracle.py (``ULP_BOUNDS``), or,
where the order of operations is not NumPy's, within its forward error bound (``ORDER_BOUNDS``):
see ``Tol``. Where NumPy raises, jitcore must refuse (``REFUSALS``) or raise the same.
"""

from __future__ import annotations

import math
import random
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

import jitcore as jc
from tests.layouts import LAYOUTS, relayout
from tests.oracle import ORDER_BOUNDS, assert_matches, assert_within, order_bound, ulp_bound

# -- dtypes -----------------------------------------------------------------------------------
FAMILIES: dict[str, tuple[np.dtype, ...]] = {
    "bool": (np.dtype(np.bool_),),
    "signed": tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)),
    "unsigned": tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)),
    "float": tuple(np.dtype(t) for t in (np.float16, np.float32, np.float64)),
    "complex": tuple(np.dtype(t) for t in (np.complex64, np.complex128)),
}
ALL_DTYPES = tuple(d for family in FAMILIES.values() for d in family)


# -- drawing ------------------------------------------------------------------------------------
# Every drawn array is handed over in one of these layouts (tests/layouts.py), C-contiguous most
# often: compiled code reads its arguments through their strides.
DRAW_LAYOUTS = ("C", "C") + LAYOUTS[1:]


class Draw:
    """Where a case's randomness comes from: hypothesis, a seeded generator, or a fixed edge
    example (``EdgeDraw``)."""

    def choice(self, options: Sequence):
        raise NotImplementedError

    def integer(self, lo: int, hi: int) -> int:  # inclusive
        raise NotImplementedError

    def real(self, lo: float, hi: float) -> float:
        raise NotImplementedError

    # Built on the three above, so that both back ends draw the same kinds of values.
    def array(self, dtype, shape, domain: str = "any") -> np.ndarray:
        dtype = np.dtype(dtype)
        n = math.prod(shape)
        values = [element(self, dtype, domain) for _ in range(n)]
        with np.errstate(all="ignore"):
            a = np.array(values, dtype=object).astype(dtype).reshape(shape)
        return relayout(a, self.choice(DRAW_LAYOUTS))

    def dtype(self, family: str) -> np.dtype:
        return self.choice(FAMILIES[family])

    def shape(self, pool: Sequence):
        """One entry of a pool of shapes (a shape, a tuple of shapes, or shapes among other
        static parameters: ``(subscripts, *shapes)``, ``(shape_a, shape_b, axes)``)."""
        return self.choice(pool)


class RandomDraw(Draw):
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choice(self, options):
        options = list(options)
        return options[self.rng.randrange(len(options))]

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)

    def real(self, lo, hi):
        return self.rng.uniform(lo, hi)


class HypothesisDraw(Draw):
    def __init__(self, data):
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def choice(self, options):
        return self.data.draw(self.st.sampled_from(list(options)))

    def integer(self, lo, hi):
        return self.data.draw(self.st.integers(lo, hi))

    def real(self, lo, hi):
        return self.data.draw(self.st.floats(lo, hi))


def float_specials(dtype: np.dtype) -> list[float]:
    info = np.finfo(dtype)
    return [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, float(info.max),
            -float(info.max), float(info.tiny), -float(info.tiny), float(info.smallest_subnormal),
            float(2**17 + 3), float(2**43 + 3), -1e15, 3.141592653589793, 1e-30]


def int_specials(dtype: np.dtype) -> list[int]:
    info = np.iinfo(dtype)
    return [v for v in (0, 1, -1, 2, info.min, info.max, info.min + 1, info.max - 1)
            if info.min <= v <= info.max]


def element(draw: Draw, dtype: np.dtype, domain: str):
    """One element of ``dtype``. Domains (``EDGE_DOMAINS`` says which specials each keeps):
    ``any`` (special values, small values, the whole range), ``small`` (|x| <= 100 plus
    NaN/inf/-0.0, for results that depend on summation order), ``prod`` (|x| <= 1.5: products of
    a few dozen stay in range), ``finite`` (|x| <= 100, no NaN or inf), ``nonneg`` (0..70:
    integer exponents, which NumPy refuses below 0)."""
    kind = dtype.kind
    if kind == "b":
        return draw.choice([False, True])
    if kind == "c":
        part = np.dtype(dtype.char.lower())
        if domain == "prod":
            # Where a complex product meets inf or NaN, NumPy's fused (SIMD) and plain (scalar)
            # loops disagree with each other: products of complex numbers draw finite parts.
            return complex(draw.real(-1.5, 1.5), draw.real(-1.5, 1.5))
        return complex(element(draw, part, domain), element(draw, part, domain))
    if kind in "iu":
        info = np.iinfo(dtype)
        if domain == "nonneg":
            return draw.integer(0, min(info.max, 70))
        if domain == "small":
            return draw.integer(max(info.min, -100), min(info.max, 100))
        mode = draw.choice(["small", "small", "special", "full"])
        if mode == "small":
            return draw.integer(max(info.min, -9), min(info.max, 9))
        if mode == "special":
            return draw.choice(int_specials(dtype))
        return draw.integer(int(info.min), int(info.max))
    if domain == "finite":
        return draw.real(-100.0, 100.0)
    if domain in ("small", "prod"):
        if draw.integer(0, 9) == 0:
            return draw.choice([math.nan, math.inf, -math.inf, -0.0, 0.0])
        limit = 100.0 if domain == "small" else 1.5
        return draw.real(-limit, limit)
    if domain == "nonneg":
        return abs(element(draw, dtype, "any"))
    mode = draw.choice(["unit", "unit", "special", "wide"])
    if mode == "unit":
        return draw.real(-4.0, 4.0)
    if mode == "special":
        return draw.choice(float_specials(dtype))
    info = np.finfo(dtype)
    lo = math.log2(float(info.smallest_subnormal))
    hi = math.log2(float(info.max)) + 0.5  # sometimes just past the largest: inf after rounding
    sign, exponent = draw.choice([1.0, -1.0]), draw.real(lo, hi)
    return sign * 2.0 ** exponent if exponent < 1024 else sign * math.inf


# -- the edge batch: fixed examples that reach the edges on every run ------------------------------
# Hypothesis draws a few random examples per row; these are added to them, the same on every run,
# so that every row meets every dtype of its family, its domain's special values, the shapes
# (), (0,), (1,) and an odd length past any vector width, and every layout (see ``edge_draws``).
LONG = 67  # odd, and past the 64 lanes of a 512-bit vector of int8

# Which special values each domain keeps, and why it leaves the others out.
EDGE_DOMAINS = {
    "any": "NaN, +-inf, +-0.0, +-smallest subnormal, +-tiny, +-max, trig arguments past 2**17 "
           "and 2**43 (integers: min, max, 0, -1 and their neighbours)",
    "small": "NaN, +-inf, +-0.0, subnormals, tiny, +-100; not +-max: where a sum overflows "
             "depends on its order (integers: -100..100)",
    "prod": "NaN, +-inf, +-0.0, subnormals, tiny, +-1.5; not +-max, as for small (complex: "
            "finite parts, see element())",
    "finite": "+-0.0, subnormals, tiny, +-100; no NaN or inf: where a three-operand contraction "
              "or a complex product meets them, the association decides between inf and NaN",
    "nonneg": "|x| of any's (integers 0..70: NumPy refuses negative integer exponents)",
}


def edge_specials(dtype: np.dtype, domain: str) -> list:
    """The special values of ``domain`` for ``dtype`` (see ``EDGE_DOMAINS``)."""
    kind = dtype.kind
    if kind == "b":
        return [False, True]
    if kind in "iu":
        info = np.iinfo(dtype)
        wanted = {"nonneg": [0, 70, 1, 2, 63], "small": [-100, 100, 0, -1, 1, 2, -7]}.get(
            domain, [int(info.min), int(info.max), 0, -1, 1, int(info.min) + 1, int(info.max) - 1, 2, -2])
        return [v for v in wanted if info.min <= v <= info.max]
    info = np.finfo(dtype)
    ss, tiny, big = float(info.smallest_subnormal), float(info.tiny), float(info.max)
    zeros = [0.0, -0.0, ss, -ss, tiny, -tiny]
    specials = [math.nan, math.inf, -math.inf]
    if domain == "any":
        return specials + zeros + [big, -big, 1.0, -1.0, 0.5, float(2**17 + 3), float(2**43 + 3),
                                   -1e15, 3.141592653589793, 1e-30]
    if domain == "nonneg":
        return list(dict.fromkeys(abs(v) for v in edge_specials(dtype, "any") if not math.isnan(v))) \
            + [math.nan]
    if domain == "small":
        return specials + zeros + [100.0, -100.0, 1.0, -1.0, 0.5]
    if domain == "prod":
        return specials + zeros + [1.5, -1.5, 1.0, -1.0, 0.5]
    return zeros + [100.0, -100.0, 1.0, -1.0, 0.5]  # finite


def _ordinary(rng: random.Random, dtype: np.dtype, domain: str):
    """A plain value of ``domain``, between the specials."""
    if dtype.kind == "b":
        return rng.random() < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo, hi = {"nonneg": (0, 70), "small": (-100, 100)}.get(domain, (-9, 9))
        return rng.randint(max(int(info.min), lo), min(int(info.max), hi))
    lo, hi = {"any": (-4.0, 4.0), "prod": (-1.5, 1.5), "nonneg": (0.0, 4.0)}.get(domain, (-100.0, 100.0))
    return rng.uniform(lo, hi)


def _is_shape(v) -> bool:
    return isinstance(v, tuple) and all(isinstance(d, int) for d in v)


def _shapes_of(entry) -> list[tuple]:
    return [entry] if _is_shape(entry) else [v for v in entry if _is_shape(v)]


def _with_length(entry, n: int):
    """``entry`` with every dimension 17 of its shapes made ``n``."""
    def fix(v):
        return tuple(n if d == 17 else d for d in v) if _is_shape(v) else v
    return fix(entry) if _is_shape(entry) else tuple(fix(v) for v in entry)


def edge_shape(pool, plan: str):
    """The entry of ``pool`` that ``plan`` asks for. Pools that hold a length-17 shape give it
    the length ``LONG`` (``long``), 0 (``size 0``) or 1 (``size 1``); otherwise the largest
    entry (``long``), the largest with two or more dims (``multi``), the one with fewest dims
    (``0-d``), the first holding a size-0 shape (``size 0``) or a size-1 one (``size 1``)."""
    def size(e):
        return sum(math.prod(s) for s in _shapes_of(e))

    def ndim(e):
        return max((len(s) for s in _shapes_of(e)), default=0)

    with_17 = [e for e in pool if any(17 in s for s in _shapes_of(e))]
    if plan in ("long", "size 0", "size 1") and with_17:
        return _with_length(with_17[0], {"long": LONG, "size 0": 0, "size 1": 1}[plan])
    if plan == "long":
        return max(pool, key=size)
    if plan == "multi":
        return max(pool, key=lambda e: (ndim(e) >= 2, size(e)))
    if plan == "size 0":
        empty = [e for e in pool if any(math.prod(s) == 0 for s in _shapes_of(e))]
        if empty:
            return empty[0]
    if plan == "size 1":
        ones = [e for e in pool if any(s and math.prod(s) == 1 for s in _shapes_of(e))]
        if ones:
            return ones[0]
    return min(pool, key=lambda e: (ndim(e), size(e)))


class EdgeDraw(RandomDraw):
    """One fixed edge example: shapes as ``plan`` says (``edge_shape``), the family's arrays of
    ``dtype``, every array filled from its domain's special values (``long``: every other
    element; ``multi``: every third, so that some slices stay finite; a single element: one of
    them, chosen by ``seed``) and handed over in ``layout``. Other choices (axes, keys, plain
    values between the specials) come from a generator seeded with ``seed``, so the same seed
    gives the same example in every layout."""

    def __init__(self, dtype, plan: str, layout: str, seed: int):
        super().__init__(seed)
        self.fixed, self.plan, self.layout, self.seed = np.dtype(dtype), plan, layout, seed
        self.count = 0  # arrays drawn so far: each starts at another special

    def __repr__(self):
        return f"EdgeDraw({self.fixed}, {self.plan!r}, {self.layout!r}, {self.seed})"

    def dtype(self, family):
        return self.fixed if self.fixed in FAMILIES[family] else super().dtype(family)

    def shape(self, pool):
        return edge_shape(list(pool), self.plan)

    def array(self, dtype, shape, domain="any"):
        dtype = np.dtype(dtype)
        j, self.count = self.count, self.count + 1
        n = math.prod(shape)
        if dtype.kind == "c":
            part = np.dtype(dtype.char.lower())
            if domain == "prod":  # finite parts, as element() draws them
                domain = "finite"
            re, im = self._values(part, n, domain, 2 * j), self._values(part, n, domain, 2 * j + 1)
            values = [complex(a, b) for a, b in zip(re, im)]
        else:
            values = self._values(dtype, n, domain, j)
        with np.errstate(all="ignore"):
            a = np.array(values, dtype=object).astype(dtype).reshape(shape)
        return relayout(a, self.layout)

    def _values(self, dtype, n, domain, j):
        specials = edge_specials(dtype, domain)
        p = len(specials)
        start = (self.seed + 7 * j) % p
        every = 1 if dtype.kind == "b" else {"long": 2, "multi": 3}.get(self.plan, 1)
        out = []
        for i in range(n):
            if i % every == every - 1:
                # The k-th special of array j: shifted by j more after each round of the list,
                # so that over a long array a special meets several others in a binary op.
                k = i // every
                out.append(specials[(start + k + j * (k // p)) % p])
            else:
                out.append(_ordinary(self.rng, dtype, domain))
        return out


NON_C_LAYOUTS = ("F", "reversed", "strided", "broadcast")
# The plans of each family's edge batch, one example each; the family's dtypes take them in turn
# (starting at a dtype that depends on the row), so that every dtype meets at least one.
EDGE_PLANS = {
    "bool": ("long", "multi", "0-d", "size 0"),
    "signed": ("long", "multi", "0-d", "size 0"),
    "unsigned": ("long", "multi", "0-d", "size 0"),
    "float": ("long", "multi", "0-d", "size 0", "size 1"),
    "complex": ("long", "multi", "0-d", "size 0", "size 1"),
}


def edge_draws(case_name: str, family: str) -> list[EdgeDraw]:
    """The edge batch of one row and family, one signature per plan (each compiled once): the
    ``multi`` example in the non-C layouts (one compiled strided variant serves them all), the
    others C-contiguous and, but for size 0, unaligned too (a contiguous array is read in place
    by the same compiled code, aligned or not)."""
    dtypes = FAMILIES[family]
    base = zlib.crc32(f"{case_name}/{family}".encode())
    draws = []
    for j, plan in enumerate(EDGE_PLANS[family]):
        dtype = dtypes[(base + j) % len(dtypes)]
        layouts = {"multi": NON_C_LAYOUTS, "size 0": ("C",)}.get(plan, ("C", "unaligned"))
        draws += [EdgeDraw(dtype, plan, layout, base + j) for layout in layouts]
    return draws


# Shapes come from small pools so that repeated signatures hit each case's compile cache.
UNARY_SHAPES = [(), (0,), (1,), (7,), (17,), (2, 3), (3, 1, 4), (2, 0, 3)]
BINARY_SHAPES = [((), ()), ((5,), ()), ((), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0,), (1,)),
                 ((17,), (17,)), ((3, 1, 2), (4, 1)), ((2, 3), (2, 3)), ((2,), (3,))]  # last: error
TERNARY_SHAPES = [((), (), ()), ((4,), (), (4,)), ((2, 3), (3,), (2, 1)), ((0,), (1,), ()),
                  ((17,), (17,), (17,)), ((2, 3), (3,), (2,))]  # last: error
REDUCTION_SHAPES = [(), (0,), (5,), (17,), (2, 3), (3, 0), (2, 3, 4)]
SHAPE_OP_SHAPES = [(), (0,), (1,), (6,), (2, 3), (3, 1), (1, 4, 1), (2, 3, 4), (2, 0, 3), (17,)]


def axis_param(draw: Draw, ndim: int, allow_tuple=True, allow_none=True):
    options = ["int"] * 3 + (["none"] if allow_none else []) + (["tuple"] * 2 if allow_tuple else [])
    options += ["bad"] if draw.integer(0, 7) == 0 else []
    what = draw.choice(options)
    if what == "none":
        return None
    if what == "bad":  # out of range: NumPy raises AxisError, jitcore must raise too
        return ndim + draw.integer(0, 1)
    if ndim == 0:
        return draw.choice([0, -1]) if what == "int" else ()
    if what == "int":
        return draw.integer(-ndim, ndim - 1)
    k = draw.integer(0, ndim)
    axes = sorted({draw.integer(0, ndim - 1) for _ in range(k)})
    return tuple(a - ndim if draw.integer(0, 2) == 0 else a for a in axes)


# -- the comparison -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Tol:
    """How a case's float results are compared with NumPy's.

    ``exact``: bit for bit (floats may differ only in NaN payload). ``ulp``: within
    ``ulp_bound(key, dtype)`` ULP (1 for float16 results, which both compute in float32 and
    round once). ``order``: the rounding depends on the order of operations, which is not
    NumPy's; within the forward error bound ``ORDER_BOUNDS[key]`` of tests/oracle.py, with n
    the terms per result (``count``: ``size``, the reduced elements per result; ``ones``, the
    operation applied to ones; ``all``, every element of the largest input) and S the
    operation applied to |x|. Float16 is compared with NumPy computed in float32 and rounded
    once, as jitcore computes it. ``meta``: only dtype and shape (``np.empty``). ``complex``,
    if given, replaces the tolerance for complex results."""

    mode: str = "exact"
    key: str = ""
    count: str = "size"
    complex: Tol | None = None


EXACT = Tol()
META = Tol("meta")


def ulp(key):
    return Tol("ulp", key)


SUM_TOL = Tol("order", "sum")
MEAN_TOL = Tol("order", "mean")
VAR_TOL = Tol("order", "var")
STD_TOL = Tol("order", "std")
PROD_TOL = Tol("order", "prod")
DOT_TOL = Tol("order", "dot", count="ones")


def _order_bound(tol: Tol, fn, args, params, expected) -> np.ndarray:
    """The absolute bound, per element of ``expected``, that ``ORDER_BOUNDS[tol.key]`` allows;
    ``fn(*args, **params)`` is the NumPy operation whose result ``expected`` is."""
    params = dict(params)
    arrays = [np.asarray(a) for a in args]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A NaN term makes its results NaN (compared by position); elsewhere (the other part
        # of a complex number) it adds nothing.
        mags = [np.nan_to_num(np.abs(a).astype(np.float64), nan=0.0, posinf=np.inf) for a in arrays]
        if tol.count == "ones":
            n = fn(*(np.ones(a.shape) for a in arrays), **params)
        elif tol.count == "all":
            n = max(a.size for a in arrays)
        else:
            n = max(a.size for a in arrays) // max(expected.size, 1)
        kw = {}
        if tol.key in ("var", "std"):
            magnitude = expected.astype(np.float64)
            kw["mean_abs"] = np.mean(mags[0], axis=params.get("axis"), keepdims=params.get("keepdims", False))
            kw["ddof"] = params.get("ddof", 0)
        else:
            magnitude = fn(*mags, **params)
        if tol.key == "prod":
            kw["growth"] = fn(*(np.maximum(m, 1.0) for m in mags), **params)
    return order_bound(tol.key, expected.dtype, n, magnitude, expected=expected, **kw)


def _within_term_ulps(actual, expected, args, bound):
    """``actual`` with the elements within ``bound`` ULP of the largest term (max(x, y), the
    log1p term, the result) replaced by NumPy's: logaddexp cancels near 0 (see
    ULP_BOUNDS; tests/codegen/test_mathlib.py measures it the same way)."""
    if actual.dtype != expected.dtype or actual.dtype.kind != "f":
        return actual
    with np.errstate(all="ignore"):
        terms = np.maximum(*(np.broadcast_to(np.asarray(a), expected.shape).astype(expected.dtype)
                             for a in args))
        scale = np.maximum(np.maximum(np.abs(expected), np.abs(terms)), np.abs(expected - terms))
        err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
        err /= np.spacing(scale).astype(np.float64)
    ok = np.isfinite(err) & (err <= bound)
    return np.where(ok, expected, actual)


def within_conditioned_ulps(actual, expected, z, w, bound):
    """Complex ``actual`` with the parts within ``bound * (1 + |w log z|)`` ULP of the larger
    finite part of NumPy's ``z ** w`` replaced by NumPy's: z**w = exp(w log z) turns a relative
    error e in log z into |w log z| * e in the result, and its small part (an angle near a
    multiple of pi/2) is no more accurate than its large one, in NumPy (glibc's cpow) as in
    jitcore. Specials (inf, NaN) and equal values (0.0 against -0.0) stay, to be compared exactly."""
    shape = expected.shape
    with np.errstate(all="ignore"):
        z, w = (np.broadcast_to(np.asarray(v), shape).astype(np.complex128) for v in (z, w))
        kappa = 1 + np.abs(w * np.log(z))
        finite = [np.where(np.isfinite(p), np.abs(p), 0) for p in (expected.real, expected.imag)]
        ulp = np.spacing(np.maximum(*finite)).astype(np.float64)
        out = actual.copy()
        for a, e in ((out.real, expected.real), (out.imag, expected.imag)):
            err = np.abs(a.astype(np.float64) - e.astype(np.float64))
            ok = np.isfinite(err) & (err > 0) & (err <= bound * kappa * ulp)
            a[ok] = e[ok]
    return out


def compare(tol: Tol, actual, expected, args, context: str, fn=None, params=()) -> None:
    """``actual`` (jitcore) matches ``expected`` (NumPy) as ``tol`` says; AssertionError if not.
    ``fn(*args, **params)`` computed ``expected`` (``order`` tolerances apply it to |args|)."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (
            f"got {type(actual).__name__} of {len(actual) if hasattr(actual, '__len__') else '?'} "
            f"results, NumPy {type(expected).__name__} of {len(expected)} ({context})")
        for i, (a, e) in enumerate(zip(actual, expected)):
            part_fn = None if fn is None else (lambda *xs, _i=i, **k: fn(*xs, **k)[_i])
            compare(tol, a, e, args, f"{context}, result {i}", part_fn, params)
        return
    actual, expected = np.asarray(actual), np.asarray(expected)
    if tol.complex is not None and expected.dtype.kind == "c":
        tol = tol.complex
    if tol.mode == "order" and expected.dtype.kind in "fc":
        assert fn is not None, "an order tolerance needs the operation"
        bound = _order_bound(tol, fn, args, params, expected)
        rule = ORDER_BOUNDS[tol.key]
        assert_within(actual, expected, bound, context,
                      rule.complex_zero_sign if expected.dtype.kind == "c" else rule.zero_sign)
        return
    if expected.dtype.kind == "c" and actual.dtype == expected.dtype and tol.mode == "ulp":
        part_tol = Tol("ulp", f"complex {tol.key}")
        if tol.key == "pow" and actual.shape == expected.shape:
            bound = ulp_bound("complex pow", np.float64)
            actual = within_conditioned_ulps(actual, expected, *args[:2], bound)
        compare(part_tol, actual.real, expected.real, args, f"{context}, real part")
        compare(part_tol, actual.imag, expected.imag, args, f"{context}, imaginary part")
        return
    if tol.mode == "meta":
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape), (
            f"{actual.dtype}{list(actual.shape)} != NumPy's {expected.dtype}{list(expected.shape)} "
            f"({context})")
        return
    if expected.dtype.kind != "f" or tol.mode != "ulp":
        assert_matches(actual, expected, 0, context)
        return
    bound = ulp_bound(tol.key, expected.dtype)
    if tol.key in ("logaddexp", "logaddexp2") and actual.shape == expected.shape:
        actual = _within_term_ulps(actual, expected, args, bound)
    assert_matches(actual, expected, bound, context)


# -- cases --------------------------------------------------------------------------------------
NUMPY_ERRORS = (TypeError, ValueError, IndexError, OverflowError)


@dataclass
class Case:
    """One row of the table.

    ``fn(*arrays, **params)`` is what runs under ``jit`` (plain NumPy spelling); ``ref`` is the
    NumPy oracle when ``fn`` itself cannot run on NumPy arrays (``x.at[...]``). ``gen(draw,
    family)`` returns ``(arrays, params)``; ``params`` must be hashable. ``unsupported`` lists
    the families jitcore does not lower yet (strict xfail, ``UnsupportedError``); ``raises``
    overrides the exception those xfails expect. ``error`` cases must raise a ``JitcoreError``
    under jit (a data-dependent output shape). Known bugs are listed in ``BUGS``, each with the
    rows it affects."""

    name: str
    group: str
    fn: Callable
    gen: Callable
    tol: Tol = EXACT
    ref: Callable | None = None
    unsupported: tuple[str, ...] = ()
    raises: type = jc.UnsupportedError
    reason: str = "not lowered yet"
    error: bool = False
    note: str = ""

    @cached_property
    def jitted(self):
        fn = self.fn

        def run(arrays, params):
            return fn(*arrays, **dict(params))

        run.__name__ = run.__qualname__ = "case"
        return jc.jit(run, static_argnums=1)

    def oracle(self, arrays, params):
        return (self.ref or self.fn)(*arrays, **dict(params))


class Outcome:
    PASS, NA, UNSUPPORTED, KNOWN_BUG = "pass", "n/a", "unsupported", "known bug"


def run_case(case: Case, arrays, params) -> str:
    """Run one drawn example; raises AssertionError on a mismatch and lets ``UnsupportedError``
    out. Returns ``Outcome.PASS``, ``NA`` (NumPy refuses and jitcore too) or ``KNOWN_BUG`` (the
    example hits a bug of ``BUGS``, which has its own strict-xfail reproducer)."""
    arrays = tuple(arrays)
    params = tuple(sorted(params.items())) if isinstance(params, dict) else tuple(params)
    bugs = [b for b in BUGS if case.name in b.cases]
    if any(b.inputs is not None and b.inputs(arrays, dict(params)) for b in bugs):
        return Outcome.KNOWN_BUG
    try:
        return _run_case(case, arrays, params)
    except Exception as e:
        if any(b.error is not None and b.error(e, arrays, dict(params)) for b in bugs):
            return Outcome.KNOWN_BUG
        raise


# What jitcore may raise where NumPy raises: a refusal (an unsupported type, dtype, shape or
# parameter), or the exception NumPy raises. Anything else (an IRError, a VerificationError, a
# PassFailure, a CodegenError, a ConcretizationError) is a bug that NumPy's refusal must not hide.
REFUSALS = (jc.JitTypeError, jc.UnsupportedError)
# What a row whose output shape depends on the data must raise, and what the message must say.
DATA_DEPENDENT = (jc.JitTypeError, "depends on the data")


def _float16_via_float32(case: Case, arrays, params, expected):
    """NumPy's answer computed in float32 and rounded once to float16 where ``expected`` (NumPy's
    own) is float16, as jitcore computes float16 sums, means, variances, products and
    contractions (NumPy itself sums float16 along an axis other than the innermost in float16:
    np.sum(np.ones((5000, 2), np.float16), axis=0) is 2048)."""
    wide = tuple(a.astype(np.float32) if np.asarray(a).dtype == np.float16 else a for a in arrays)
    result = case.oracle(wide, params)

    def narrow(r, e):
        return np.asarray(r).astype(np.float16) if np.asarray(e).dtype == np.float16 else e
    if isinstance(expected, tuple):
        return tuple(narrow(r, e) for r, e in zip(result, expected))
    return narrow(result, expected)


def _run_case(case: Case, arrays, params) -> str:
    context = f"{case.name} on {describe(arrays)} with {dict(params)}"
    # NumPy sees C-contiguous copies of the same values: its own answer can depend on the layout
    # (complex64 np.abs of a negative-stride array comes from hypotf, 1 ULP from its SIMD loop),
    # and the layouts are there to test jitcore.
    plain = tuple(np.array(a, order="C") if isinstance(a, np.ndarray) else a for a in arrays)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = case.oracle(plain, params)
            numpy_error = None
        except NUMPY_ERRORS as e:
            numpy_error = e
        if numpy_error is None and case.tol.mode == "order" and any(
                np.asarray(a).dtype == np.float16 for a in arrays):
            expected = _float16_via_float32(case, plain, params, expected)
    if numpy_error is not None or case.error:
        try:
            got = case.jitted(arrays, params)
        except Exception as e:  # noqa: BLE001  (checked below: only a refusal passes)
            if numpy_error is not None and (isinstance(e, REFUSALS) or isinstance(e, type(numpy_error))):
                return Outcome.NA
            if numpy_error is None and isinstance(e, DATA_DEPENDENT[0]) and DATA_DEPENDENT[1] in str(e):
                return Outcome.PASS
            wanted = (f"NumPy raises {type(numpy_error).__name__}: {numpy_error}" if numpy_error
                      else f"expected a {DATA_DEPENDENT[0].__name__} saying the shape "
                           f"{DATA_DEPENDENT[1]}")
            raise AssertionError(f"jitcore raised {type(e).__name__}: {e}; {wanted} ({context})") from e
        if numpy_error is None:
            raise AssertionError(f"expected a JitcoreError under jit, got {got!r} ({context})")
        raise AssertionError(f"NumPy raises {type(numpy_error).__name__}: {numpy_error}; jitcore "
                             f"returned {got!r} ({context})")
    actual = case.jitted(arrays, params)
    compare(case.tol, actual, expected, plain, context, case.ref or case.fn, params)
    return Outcome.PASS


def layout_kind(a) -> str:
    """Which of tests/layouts.py's LAYOUTS an array's layout is."""
    if not isinstance(a, np.ndarray) or a.flags.c_contiguous and a.flags.aligned:
        return "C"
    if not a.flags.aligned:
        return "unaligned"
    if a.flags.f_contiguous:
        return "F"
    if any(s == 0 for s, n in zip(a.strides, a.shape) if n > 1):
        return "broadcast"
    return "reversed" if any(s < 0 for s in a.strides) else "strided"


def same_layout(new: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``new`` (values computed from ``like``) in ``like``'s layout."""
    return new if new is like else relayout(new, layout_kind(like))


def describe(arrays) -> str:
    def one(a):
        kind = layout_kind(a)
        return f"{np.asarray(a).dtype}{list(np.shape(a))}{'' if kind == 'C' else ' ' + kind}"
    return "(" + ", ".join(one(a) for a in arrays) + ")"


CASES: list[Case] = []


def case(name, group, fn, gen, **kw) -> Case:
    c = Case(name, group, fn, gen, **kw)
    assert all(c.name != other.name for other in CASES), name
    CASES.append(c)
    return c


ALL = tuple(FAMILIES)
INTS = ("bool", "signed", "unsigned")


# -- generators ---------------------------------------------------------------------------------
def g_unary(domain="any", shapes=UNARY_SHAPES):
    def gen(draw, family):
        return (draw.array(draw.dtype(family), draw.shape(shapes), domain),), {}
    return gen


def g_binary(domain_a="any", domain_b="any", shapes=BINARY_SHAPES):
    def gen(draw, family):
        sa, sb = draw.shape(shapes)
        return (draw.array(draw.dtype(family), sa, domain_a),
                draw.array(draw.dtype(family), sb, domain_b)), {}
    return gen


def g_complex_power(draw, family):
    """Complex bases |part| <= 100 and exponents |part| <= 1.5 or small real integers (NumPy's
    repeated squaring), NaN/inf/0 among both: beyond that z**w's parts are ill-conditioned
    (the angle im(w log z) is huge), and the special-value grid of test_complex.py covers it."""
    sa, sb = draw.shape(BINARY_SHAPES)
    dtype = draw.dtype(family)
    if draw.integer(0, 2) == 0:
        exponent = np.array(draw.integer(-9, 9), dtype)
    else:
        exponent = draw.array(dtype, sb, "prod")
    return (draw.array(dtype, sa, "small"), exponent), {}


def g_power(draw, family):
    # NumPy refuses negative integer exponents (ValueError, data-dependent); jitcore defines
    # them (see test_negative_integer_power_is_defined), so integer exponents are drawn >= 0.
    if family == "complex":
        return g_complex_power(draw, family)
    sa, sb = draw.shape(BINARY_SHAPES)
    return (draw.array(draw.dtype(family), sa), draw.array(draw.dtype(family), sb, "nonneg")), {}


def g_ternary(draw, family):
    shapes = draw.shape(TERNARY_SHAPES)
    return tuple(draw.array(draw.dtype(family), s) for s in shapes), {}


# -- 1. ufuncs: arithmetic, comparison, logical, bitwise ------------------------------------------
def _u(name, group, gen, tol=EXACT, unsupported=(), **kw):
    uf = getattr(np, name)
    label = f"np.{name}(x{', y' if uf.nin == 2 else ''})"
    return case(label, group, uf, gen, tol=tol, unsupported=unsupported, **kw)


for _name in ("add", "subtract", "multiply", "divide", "floor_divide", "remainder"):
    _u(_name, "arithmetic", g_binary())
_u("power", "arithmetic", g_power, tol=ulp("pow"))
for _name in ("fmod", "heaviside", "divmod"):
    _u(_name, "arithmetic", g_binary())
_u("float_power", "arithmetic", lambda draw, family: (g_complex_power if family == "complex" else g_binary())(
    draw, family), tol=ulp("pow"))
for _name in ("gcd", "lcm"):
    _u(_name, "arithmetic", g_binary())
for _name in ("negative", "positive", "absolute", "fabs", "square"):
    _u(_name, "arithmetic", g_unary())
_u("sign", "arithmetic", g_unary(), tol=ulp("sign"))  # exact but for complex (z / hypot)
_u("reciprocal", "arithmetic", g_unary(), unsupported=INTS,
   reason="integer reciprocal refused on purpose (UnsupportedError suggests 1 / x or 1 // x)")
for _name in ("maximum", "minimum"):
    _u(_name, "comparison", g_binary())


def _fixed_zero_tie(fn):
    """NumPy's ``fn`` (fmax, fmin), except for +0.0 against -0.0, where NumPy's float32/64 answer
    depends on the element's position in its SIMD loop (the vector body returns the second
    operand, the scalar remainder the first: see test_fmax_zero_tie_is_positional in
    tests/jitcore/test_ufuncs_extra.py). There jitcore always returns the second operand (the
    first for float16, as NumPy's float16 loop always does)."""
    def ref(x, y):
        out = np.asarray(fn(x, y))
        if out.dtype.kind == "f":
            x, y = (np.asarray(v).astype(out.dtype) for v in (x, y))
            tie = (x == y) & (np.signbit(x) != np.signbit(y))
            out = np.where(tie, x if out.dtype == np.float16 else y, out)
        return out
    return ref


for _name in ("fmax", "fmin"):
    _u(_name, "comparison", g_binary(), ref=_fixed_zero_tie(getattr(np, _name)))
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    _u(_name, "comparison", g_binary())
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    _u(_name, "logical", g_unary() if _name == "logical_not" else g_binary())
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"):
    _u(_name, "bitwise", g_unary() if _name == "invert" else g_binary())
_u("bitwise_count", "bitwise", g_unary())

_CONST = np.arange(3, dtype=np.int16)
case("ndarray + x (NumPy array on the left)", "arithmetic", lambda x: _CONST + x, g_unary())
_ZERO = np.zeros(1, dtype=np.int16)  # broadcasts against every drawn shape; ties with +-0.0
case("np.maximum(ndarray, x), np.minimum(ndarray, x) (constant on the left)", "comparison",
     lambda x: (np.maximum(_ZERO, x), np.minimum(_ZERO, x)), g_unary())
case("x + 2.5, x * 2 (Python scalars, weak)", "arithmetic", lambda x: (x + 2.5, x * 2, 3 - x), g_unary())

# -- 2. float math ------------------------------------------------------------------------------
for _name in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
              "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
              "arctanh"):
    _u(_name, "float math", g_unary(), tol=ulp(_name))
for _name in ("arctan2", "hypot", "logaddexp"):
    _u(_name, "float math", g_binary(), tol=ulp(_name))
_u("logaddexp2", "float math", g_binary(), tol=ulp("logaddexp2"))
for _name in ("floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite"):
    _u(_name, "float math", g_unary())
case("np.clip(x, lo, hi)", "float math", lambda x, lo, hi: np.clip(x, lo, hi), g_ternary)


def g_clip_scalar(draw, family):
    (x,), _ = g_unary()(draw, family)
    lo, hi = draw.choice([(0, 5), (-3, 3), (None, 1), (1, None), (2.5, 7.5), (True, True)])
    return (x,), {"lo": lo, "hi": hi}


case("np.clip(x, 0, 5) (scalar bounds)", "float math", lambda x, lo, hi: np.clip(x, lo, hi),
     g_clip_scalar)


# -- 3. reductions ------------------------------------------------------------------------------
def g_reduce(domain="any", ddof=False, tuple_axis=True, keepdims=True, none_axis=True):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(REDUCTION_SHAPES), domain)
        params = {"axis": axis_param(draw, x.ndim, tuple_axis, none_axis)}
        if keepdims:
            params["keepdims"] = draw.choice([False, True])
        if ddof:
            params["ddof"] = draw.choice([0, 1, 2])
        return (x,), params
    return gen


def _float_domain(gen_small, gen_any):
    """Float and complex reductions draw |x| <= 100 (where a sum overflows depends on its order);
    integer ones draw anything (they wrap identically in any order; a mean, var or std is
    computed in float64 by both, within its order bound)."""
    def gen(draw, family):
        return (gen_small if family in ("float", "complex") else gen_any)(draw, family)
    return gen


case("np.sum(x, axis, keepdims)", "reduction", lambda x, **k: np.sum(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=SUM_TOL)
case("np.prod(x, axis, keepdims)", "reduction", lambda x, **k: np.prod(x, **k),
     _float_domain(g_reduce("prod"), g_reduce()), tol=PROD_TOL)
case("np.mean(x, axis, keepdims)", "reduction", lambda x, **k: np.mean(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)


case("np.var(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.var(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=VAR_TOL)
case("np.std(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.std(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=STD_TOL)
case("np.min(x, axis, keepdims)", "reduction", lambda x, **k: np.min(x, **k), g_reduce())
case("np.max(x, axis, keepdims)", "reduction", lambda x, **k: np.max(x, **k), g_reduce())
case("np.any(x, axis, keepdims)", "reduction", lambda x, **k: np.any(x, **k), g_reduce())
case("np.all(x, axis, keepdims)", "reduction", lambda x, **k: np.all(x, **k), g_reduce())
case("np.argmin(x, axis, keepdims)", "reduction", lambda x, **k: np.argmin(x, **k),
     g_reduce(tuple_axis=False))
case("np.argmax(x, axis, keepdims)", "reduction", lambda x, **k: np.argmax(x, **k),
     g_reduce(tuple_axis=False))
# Scans add (multiply) one element after another along the axis, in NumPy as in jitcore (float16
# rounding every step in both): bit for bit. But complex products: NumPy's scan multiplies in its
# plain loop, its elementwise multiply (and jitcore) through fma, 1 ULP apart.
case("np.cumsum(x, axis)", "reduction", lambda x, **k: np.cumsum(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)))
case("np.cumprod(x, axis)", "reduction", lambda x, **k: np.cumprod(x, **k),
     _float_domain(g_reduce("prod", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)),
     tol=Tol(complex=Tol("order", "prod", count="all")))
case("x.sum(), x.any(axis), x.mean() (methods)", "reduction",
     lambda x, axis, keepdims: (x.sum(axis=axis, keepdims=keepdims), x.any(axis=axis),
                                x.mean(axis=axis)),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)  # the mean's bound covers the sum's


for _name, _tol, _dom in (("add", SUM_TOL, "small"), ("multiply", PROD_TOL, "prod"),
                          ("maximum", EXACT, "any"), ("minimum", EXACT, "any"),
                          ("logical_and", EXACT, "any"), ("logical_or", EXACT, "any")):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k),
         _float_domain(g_reduce(_dom), g_reduce()), tol=_tol)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k), g_reduce())
case("np.add.accumulate(x, axis)", "ufunc.reduce", lambda x, **k: np.add.accumulate(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False, none_axis=False),
                   g_reduce(tuple_axis=False, keepdims=False, none_axis=False)))  # a scan: exact


# -- 4. indexing --------------------------------------------------------------------------------
def decode_key(key):
    """Keys travel as hashable static parameters: ``("s", start, stop, step)`` is a slice,
    ``"..."`` is Ellipsis, ``("a", values, shape)`` a NumPy integer array and ``("m", values,
    shape)`` a NumPy bool mask, ``("l", values)`` a Python list of ints."""
    def one(k):
        if k == "...":
            return Ellipsis
        if isinstance(k, tuple) and k and k[0] == "s":
            return slice(*k[1:])
        if isinstance(k, tuple) and k and k[0] in ("a", "m"):
            return np.array(k[1], dtype=np.intp if k[0] == "a" else bool).reshape(k[2])
        if isinstance(k, tuple) and k and k[0] == "l":
            return list(k[1])
        return k
    if isinstance(key, tuple) and not (key and key[0] in ("s", "a", "m", "l")):
        return tuple(one(k) for k in key)
    return one(key)


def _draw_index(draw, size, bad=True):
    """A static int for an axis of ``size`` (sometimes out of range: IndexError in both)."""
    if bad and draw.integer(0, 9) == 0:
        return draw.choice([size, -size - 1])
    return draw.integer(-size, size - 1)


def _draw_slice(draw, size):
    bounds = [None, None, 0, 1, -1, size, -size, size + 2, -size - 3, size // 2]
    step = draw.choice([None, 1, 2, 3, -1, -2, -3] + ([0] if draw.integer(0, 19) == 0 else []))
    return ("s", draw.choice(bounds), draw.choice(bounds), step)


def g_basic_index(kinds):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES))
        key, dim = [], 0
        ellipsis = False
        for _ in range(draw.integer(1, x.ndim + 1)):
            kind = draw.choice(kinds)
            if kind == "none":
                key.append(None)
            elif kind == "ellipsis" and not ellipsis:
                key.append("...")
                ellipsis = True
            elif dim < x.ndim or draw.integer(0, 9) == 0:  # sometimes one index too many
                size = x.shape[dim] if dim < x.ndim else 1
                if kind == "int" and size:
                    key.append(_draw_index(draw, size))
                else:
                    key.append(_draw_slice(draw, size))
                dim += 1
        key = tuple(key)
        return (x,), {"key": key if len(key) != 1 or draw.integer(0, 1) else key[0]}
    return gen


def _index(x, key):
    return x[decode_key(key)]


case("x[i, j] (static ints)", "indexing", _index, g_basic_index(["int"]))
case("x[a:b:s] (slices, negative steps)", "indexing", _index, g_basic_index(["slice"]))
case("x[None, ..., ::-1, i] (None, Ellipsis, mixed)", "indexing", _index,
     g_basic_index(["int", "slice", "none", "ellipsis"]))


def g_mask(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES[1:]))
    mask = draw.array(np.bool_, x.shape)
    return (x,), {"mask": (tuple(mask.ravel().tolist()), mask.shape)}


case("x[mask] (NumPy bool mask: static shape)", "indexing",
     lambda x, mask: x[np.array(mask[0], dtype=bool).reshape(mask[1])], g_mask)


def g_int_array(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES[1:]))
    n = x.shape[0]
    idx = tuple(_draw_index(draw, n) if n else 0 for _ in range(draw.integer(0, 4)))
    return (x,), {"idx": idx}


case("x[[i, j, k]] (NumPy int array: static shape)", "indexing",
     lambda x, idx: x[np.array(idx, dtype=np.intp)], g_int_array)
case("x[[i, j, k]] (Python list)", "indexing", lambda x, idx: x[list(idx)], g_int_array)


def g_take(draw, family):
    (x,), params = g_int_array(draw, family)
    n = max(x.ndim, 1)
    axis = draw.choice([None, draw.integer(-n, n - 1)])
    size = x.size if axis is None else x.shape[axis]
    idx = tuple(_draw_index(draw, size) if size else 0 for _ in range(draw.integer(0, 3)))
    return (x,), {"idx": idx, "axis": axis, "kind": draw.choice(["array", "list", "int"])}


def _take(x, idx, axis, kind):
    indices = {"array": np.array(idx, dtype=np.intp), "list": list(idx), "int": idx[0] if idx else 0}[kind]
    return np.take(x, indices, axis=axis)


case("np.take(x, indices, axis)", "indexing", _take, g_take)


def g_traced_int_array(draw, family):
    x = draw.array(draw.dtype(family), draw.shape([(5,), (3, 2), (4, 1, 2), (2, 0), (17,)]))
    n = x.shape[0]
    # Mostly in [-n, n); sometimes one past either end (IndexError in NumPy and under jit).
    span = max(2 * n + 2 if draw.integer(0, 3) == 0 else 2 * n, 1)
    idx = draw.array(np.int64, draw.shape([(), (3,), (2, 2)]), "nonneg") % span - span // 2
    return (x, idx), {}


case("x[idx] (traced int array: static shape)", "indexing", lambda x, idx: x[idx],
     g_traced_int_array)


def g_ufunc_at(draw, family):
    """``ufunc.at(x, idx, v)``: traced indices (repeated, negative, sometimes out of range) and
    values of ``x``'s dtype, one or one per indexed element."""
    (x, idx), _ = g_traced_int_array(draw, family)
    v = draw.array(x.dtype, draw.shape([(), idx.shape + x.shape[1:]]))
    return (x, idx, v), {}


def _ufunc_at(ufunc):
    def fn(x, idx, v):
        y = x.copy()  # in place on a copy: the drawn arrays stay as they are
        ufunc.at(y, idx, v)
        return y
    return fn


for _name in ("add", "subtract", "multiply", "maximum", "minimum"):
    case(f"np.{_name}.at(x, idx, v)", "indexing", _ufunc_at(getattr(np, _name)), g_ufunc_at)


def _outer(ufunc):
    return lambda a, b: ufunc.outer(a, b)


for _name in ("add", "subtract", "multiply", "equal", "maximum", "arctan2"):
    case(f"np.{_name}.outer(a, b)", "ufunc methods", _outer(getattr(np, _name)),
         g_binary(shapes=[((2,), (3,)), ((2, 2), ()), ((0,), (2, 1)), ((), ()), ((17,), (2,))]),
         **({"tol": ulp("arctan2")} if _name == "arctan2" else {}))


def g_advanced_mixed(draw, family):
    """Integer arrays (NumPy arrays and lists, broadcasting against each other) and masks (over
    one or two dims) among slices, ints, None and Ellipsis; advanced indices adjacent or apart."""
    shapes = [(4, 3), (2, 3, 4), (3, 1, 2), (0, 3), (2, 3, 2, 2), (17, 2)]
    x = draw.array(draw.dtype(family), draw.shape(shapes))
    key, dim = [], 0
    while dim < x.ndim:
        size = x.shape[dim]
        kind = draw.choice(["slice", "array", "array", "list", "int", "mask", "mask2", "none"])
        if kind == "none":
            key.append(None)
        if kind == "int" and size:
            key.append(_draw_index(draw, size, bad=False))
        elif kind in ("array", "list") and size:
            shape = draw.choice([(2,), (1,), (2, 1), (), (1, 3)] if kind == "array" else [(2,), (3,), (1,)])
            bad = draw.integer(0, 4) == 0  # sometimes out of range: IndexError in both
            values = tuple(_draw_index(draw, size, bad=bad) for _ in range(math.prod(shape)))
            key.append(("a", values, shape) if kind == "array" else ("l", values))
        elif kind == "mask2" and dim + 1 < x.ndim:
            mask = draw.array(np.bool_, x.shape[dim: dim + 2])
            key.append(("m", tuple(mask.ravel().tolist()), mask.shape))
            dim += 1
        elif kind in ("mask", "mask2"):
            mask = draw.array(np.bool_, (size,))
            key.append(("m", tuple(mask.tolist()), (size,)))
        else:
            key.append(_draw_slice(draw, size))
        dim += 1
    if not any(isinstance(k, tuple) and k[0] in ("a", "m", "l") for k in key):  # at least one array
        key[-1] = ("a", (0,), (1,)) if x.shape[-1] else ("m", (), (0,))
    if draw.integer(0, 3) == 0:
        key = ["...", *key[1:]]
    return (x,), {"key": tuple(key)}


case("x[[i, j], :, mask] (arrays among slices, ints, None)", "indexing", _index, g_advanced_mixed)
case("x[x > 0] (traced mask: data-dependent shape)", "indexing", lambda x: x[x > 0],
     g_unary(shapes=UNARY_SHAPES[1:]), error=True, note="must raise a JitcoreError")
case("np.where(x > 0) (one argument: data-dependent shape)", "indexing", lambda x: np.where(x > 0),
     g_unary(shapes=UNARY_SHAPES[1:]), error=True, note="must raise a JitcoreError")
case("np.nonzero(x) (data-dependent shape)", "indexing", lambda x: np.nonzero(x),
     g_unary(shapes=UNARY_SHAPES[1:]), error=True, note="must raise a JitcoreError")


# -- 5. shapes and data movement ----------------------------------------------------------------
def g_shape(extra=None, shapes=SHAPE_OP_SHAPES):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(shapes))
        return (x,), (extra(draw, x) if extra else {})
    return gen


def _reshape_target(draw, x):
    n = x.size
    divisors = [d for d in range(1, max(n, 1) + 1) if n % d == 0] or [1]
    d = draw.choice(divisors)
    options = [(n,), (-1,), (d, n // d), (d, -1), (-1, d, 1), (1, n, 1), (n + 1,)]  # last: error
    if n == 0:
        options += [(0, 3), (2, -1, 0)]
    return {"shape": draw.choice(options)}


case("np.reshape(x, shape)", "shape", lambda x, shape: np.reshape(x, shape), g_shape(_reshape_target))
case("x.reshape(shape) (method)", "shape", lambda x, shape: x.reshape(shape), g_shape(_reshape_target))
case("np.ravel(x)", "shape", np.ravel, g_shape())


def _perm(draw, x):
    perm = list(range(x.ndim))
    for i in range(len(perm) - 1, 0, -1):
        j = draw.integer(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    return {"axes": draw.choice([None, tuple(perm), tuple(p - x.ndim for p in perm)])}


case("np.transpose(x, axes)", "shape", lambda x, axes: np.transpose(x, axes), g_shape(_perm))
case("x.T", "shape", lambda x: x.T, g_shape())


def _two_axes(draw, x):
    n = max(x.ndim, 1)
    return {"a": draw.integer(-n, n - 1), "b": draw.integer(-n, n - 1)}


case("np.swapaxes(x, a, b)", "shape", lambda x, a, b: np.swapaxes(x, a, b), g_shape(_two_axes))


def _move(draw, x):
    n = max(x.ndim, 1)
    k = draw.integer(0, min(x.ndim, 2))
    src = tuple(draw.integer(-n, n - 1) for _ in range(k))
    dst = tuple(draw.integer(-n, n - 1) for _ in range(k))
    if k == 1 and draw.integer(0, 1):
        src, dst = src[0], dst[0]
    return {"src": src, "dst": dst}


case("np.moveaxis(x, src, dst)", "shape", lambda x, src, dst: np.moveaxis(x, src, dst), g_shape(_move))


def _squeeze_axis(draw, x):
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    return {"axis": draw.choice([None, tuple(ones), *ones, *(range(x.ndim) if x.ndim else [])])}


case("np.squeeze(x, axis)", "shape", lambda x, axis: np.squeeze(x, axis), g_shape(_squeeze_axis))


def _expand_axis(draw, x):
    n = x.ndim + 1
    return {"axis": draw.choice([draw.integer(-n, n - 1), (0, -1), (0, 1) if n > 1 else 0,
                                 np.int64(draw.integer(-n, n - 1))])}


case("np.expand_dims(x, axis)", "shape", lambda x, axis: np.expand_dims(x, axis), g_shape(_expand_axis))


def _broadcast_target(draw, x):
    shape = tuple(draw.choice([d, 3]) if d == 1 else d for d in x.shape)
    return {"shape": draw.choice([(2,) + shape, shape, (1, 1) + shape, (5,) * x.ndim])}


case("np.broadcast_to(x, shape)", "shape", lambda x, shape: np.broadcast_to(x, shape),
     g_shape(_broadcast_target))


def g_join(draw, family):
    base = draw.shape(SHAPE_OP_SHAPES)
    axis = draw.integer(-max(len(base), 1), max(len(base), 1) - 1)
    arrays = []
    for _ in range(draw.integer(1, 3)):
        shape = list(base)
        if shape and draw.integer(0, 1):
            shape[axis] = draw.integer(0, 3)
        arrays.append(draw.array(draw.dtype(family), tuple(shape)))
    return tuple(arrays), {"axis": draw.choice([axis, axis, None])}


case("np.concatenate([x, y, ...], axis)", "shape",
     lambda *xs, axis: np.concatenate(xs, axis=axis), g_join)


def g_stack(draw, family):
    base = draw.shape(SHAPE_OP_SHAPES)
    n = draw.integer(1, 3)
    arrays = tuple(draw.array(draw.dtype(family), base) for _ in range(n))
    if draw.integer(0, 7) == 0:  # mismatched shapes: ValueError in both
        arrays += (draw.array(draw.dtype(family), base + (2,)),)
    return arrays, {"axis": draw.integer(-len(base) - 1, len(base))}


case("np.stack([x, y, ...], axis)", "shape", lambda *xs, axis: np.stack(xs, axis=axis), g_stack)


def g_hvstack(draw, family):
    base = draw.shape([(), (3,), (2, 3), (0, 2), (2, 1, 2), (17,)])
    arrays = []
    for _ in range(draw.integer(1, 3)):
        shape = list(base)
        if shape and draw.integer(0, 1):
            shape[draw.choice([0, -1][: len(shape)])] = draw.integer(1, 3)
        arrays.append(draw.array(draw.dtype(family), tuple(shape)))
    return tuple(arrays), {}


case("np.hstack([x, y, ...])", "shape", lambda *xs: np.hstack(xs), g_hvstack)
case("np.vstack([x, y, ...])", "shape", lambda *xs: np.vstack(xs), g_hvstack)


def _split_arg(draw, x):
    n = max(x.ndim, 1)
    axis = draw.integer(-n, n - 1)
    size = x.shape[axis] if x.ndim else 0
    return {"axis": axis, "sections": draw.choice(
        [1, 2, 3, (1,), (0, 2), (2, 1), (size,), (1, size + 2)][: 8 if size else 6])}


case("np.split(x, sections, axis)", "shape", lambda x, sections, axis: np.split(x, sections, axis),
     g_shape(_split_arg, SHAPE_OP_SHAPES[1:]))


def _roll_arg(draw, x):
    n = max(x.ndim, 1)
    return draw.choice([{"shift": draw.integer(-7, 7), "axis": None},
                        {"shift": draw.integer(-7, 7), "axis": draw.integer(-n, n - 1)},
                        {"shift": (1, -2), "axis": (0, -1)}, {"shift": 2, "axis": (0, -1)},
                        {"shift": np.int64(draw.integer(-7, 7)), "axis": np.int64(draw.integer(-n, n - 1))},
                        {"shift": 1, "axis": ()}, {"shift": (1, 2), "axis": (0, 0)}])


case("np.roll(x, shift, axis)", "shape", lambda x, shift, axis: np.roll(x, shift, axis),
     g_shape(_roll_arg))


def _flip_axis(draw, x):
    return {"axis": axis_param(draw, x.ndim)}


case("np.flip(x, axis)", "shape", lambda x, axis: np.flip(x, axis), g_shape(_flip_axis))


def _tile_reps(draw, x):
    return {"reps": draw.choice([2, 0, 1, (2, 1), (1, 3), (2, 1, 2), (3,)])}


case("np.tile(x, reps)", "shape", lambda x, reps: np.tile(x, reps), g_shape(_tile_reps))


def _repeat_arg(draw, x):
    n = max(x.ndim, 1)
    return {"repeats": draw.choice([0, 1, 2, 3]), "axis": draw.choice([None, draw.integer(-n, n - 1)])}


case("np.repeat(x, n, axis)", "shape", lambda x, repeats, axis: np.repeat(x, repeats, axis),
     g_shape(_repeat_arg))


def _pad_arg(draw, x):
    width = draw.choice([1, (1, 2), ((0, 1),) * x.ndim, tuple((draw.integer(0, 2), draw.integer(0, 2))
                                                            for _ in range(x.ndim))])
    return {"width": width, "value": draw.choice([0, 1, 7, True])}


case("np.pad(x, width, constant_values=c)", "shape",
     lambda x, width, value: np.pad(x, width, mode="constant", constant_values=value),
     g_shape(_pad_arg))


def g_where(draw, family):
    sc, sa, sb = draw.shape(TERNARY_SHAPES)
    return (draw.array(np.bool_, sc), draw.array(draw.dtype(family), sa),
            draw.array(draw.dtype(family), sb)), {}


case("np.where(c, x, y)", "shape", lambda c, x, y: np.where(c, x, y), g_where)
case("np.select([x > 0, x < 2], [x, x * 2], 0)", "shape",
     lambda x: np.select([x > 0, x < 2], [x, x * 2], 0), g_unary())


def _astype_arg(draw, x):
    return {"dtype": draw.choice(ALL_DTYPES).str}


def in_range_for(x: np.ndarray, dst) -> np.ndarray:
    """``x`` with the floats whose conversion to integer ``dst`` C leaves undefined (NaN, inf,
    out of range after truncation) replaced by 0: NumPy's result there depends on its SIMD path,
    jitcore's follows x86 truncation (see docs/numpy_support.md)."""
    dst = np.dtype(dst)
    if x.dtype.kind != "f" or dst.kind not in "iu":
        return x
    info = np.iinfo(dst)
    with np.errstate(all="ignore"):
        t = np.trunc(x.astype(np.float64))
        ok = np.isfinite(t) & (t >= info.min) & (t <= info.max)
    return np.where(ok, x, 0).astype(x.dtype)


def g_astype(draw, family):
    (x,), params = g_shape(_astype_arg, UNARY_SHAPES)(draw, family)
    return (same_layout(in_range_for(x, params["dtype"]), x),), params


case("x.astype(dtype)", "shape", lambda x, dtype: x.astype(dtype), g_astype)


# -- 6. products --------------------------------------------------------------------------------
def product_domain(family: str) -> str:
    """Complex products draw finite values: where a product meets inf or nan, NumPy (BLAS)
    gives inf or nan depending on its order of operations, not on anything NumPy defines. Float
    ones draw |x| <= 100 (no overflow, whose place depends on the order); integer ones anything
    (they wrap identically in any order)."""
    return {"complex": "finite", "float": "small"}.get(family, "any")


def g_pairs(pairs, params=None):
    def gen(draw, family):
        sa, sb = draw.shape(pairs)
        p = params(draw) if params else {}
        return (draw.array(draw.dtype(family), sa, product_domain(family)),
                draw.array(draw.dtype(family), sb, product_domain(family))), p
    return gen


_DOT_PAIRS = [((), (3,)), ((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (4, 2)),
              ((0, 3), (3, 2)), ((3,), (3, 0)), ((3,), (4,)), ((17,), (17,))]
_MATMUL_PAIRS = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((1, 2, 3), (4, 3, 2)),
                 ((3,), (3, 2)), ((2, 3), (3,)), ((0, 3), (3, 0)), ((2, 3), (2, 3)), ((), (3,)),
                 ((2, 17), (17, 3))]
case("np.outer(x, y)", "products", np.outer, g_pairs(BINARY_SHAPES[:-1]), tol=DOT_TOL)
case("np.dot(x, y)", "products", np.dot, g_pairs(_DOT_PAIRS), tol=DOT_TOL)
case("np.matmul(x, y)", "products", np.matmul, g_pairs(_MATMUL_PAIRS), tol=DOT_TOL)
case("x @ y", "products", lambda x, y: x @ y, g_pairs(_MATMUL_PAIRS), tol=DOT_TOL)


def g_tensordot(draw, family):
    sa, sb, axes = draw.shape([((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 2), 1),
                                ((2, 3), (3, 2), ((1,), (0,))), ((2, 3, 4), (4, 3, 2), ((1, 2), (1, 0))),
                                ((3,), (4,), 0), ((2, 3), (2, 3), 1), ((2, 17), (17, 3), 1),
                                ((0, 3), (3, 2), 1)])
    domain = product_domain(family)
    return (draw.array(draw.dtype(family), sa, domain), draw.array(draw.dtype(family), sb, domain)), \
        {"axes": axes}


case("np.tensordot(x, y, axes)", "products", lambda x, y, axes: np.tensordot(x, y, axes),
     g_tensordot, tol=DOT_TOL)

EINSUM_FORMS = [("ij,jk->ik", (2, 3), (3, 4)), ("ij->ji", (2, 3)), ("i,i->", (3,), (3,)),
                ("ij->", (2, 3)), ("ij->i", (2, 3)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 4)),
                ("i,j->ij", (3,), (4,)), ("...ij,...jk->...ik", (2, 2, 3), (3, 4)),
                ("ij,ij->ij", (2, 3), (2, 3)), ("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
                ("ij,jk", (2, 3), (3, 4)), ("i,i", (0,), (0,)), ("ij,j->i", (2, 17), (17,))]


def g_einsum(forms):
    def gen(draw, family):
        subscripts, *shapes = draw.shape(forms)
        # Three operands are contracted pairwise (NumPy sums all products at once): with
        # infinities the association decides between inf and NaN, so those draw finite values.
        domain = product_domain(family) if len(shapes) < 3 else "finite"
        return tuple(draw.array(draw.dtype(family), s, domain) for s in shapes), {"subscripts": subscripts}
    return gen


case("np.einsum(subscripts, *xs) (common forms)", "products",
     lambda *xs, subscripts: np.einsum(subscripts, *xs), g_einsum(EINSUM_FORMS), tol=DOT_TOL)
case("np.einsum('ii->i' / 'ii') (diagonal, trace)", "products",
     lambda *xs, subscripts: np.einsum(subscripts, *xs),
     g_einsum([("ii->i", (3, 3)), ("ii", (3, 3)), ("iij->j", (2, 2, 3)), ("ij,jj->i", (2, 3), (3, 3)),
               ("...ii->...i", (2, 3, 3)), ("iii", (2, 2, 2)), ("jii->ij", (2, 3, 3)), ("ii->i", (0, 0)),
               ("ijij->ji", (2, 3, 2, 3)), ("ii,i->i", (3, 3), (1,))]), tol=DOT_TOL)


# -- 7. creation (concrete NumPy calls inside jit: constants with static sizes) ----------------------
case("np.zeros(x.shape, x.dtype) + x", "creation", lambda x: np.zeros(x.shape, x.dtype) + x, g_unary())
case("np.ones(x.shape, x.dtype) * x", "creation", lambda x: np.ones(x.shape, x.dtype) * x, g_unary())
case("np.full(x.shape, 3, x.dtype) + x", "creation", lambda x: np.full(x.shape, 3, x.dtype) + x, g_unary())
case("np.empty(x.shape, x.dtype)", "creation", lambda x: np.empty(x.shape, x.dtype), g_unary(), tol=META)
case("np.arange(x.size).reshape(x.shape) + x", "creation",
     lambda x: np.arange(x.size).reshape(x.shape) + x, g_unary())
case("np.linspace(0, 1, x.size).reshape(x.shape) * x", "creation",
     lambda x: np.linspace(0, 1, x.size).reshape(x.shape) * x, g_unary())
case("x[..., None] * np.eye(n, dtype=x.dtype)", "creation",
     lambda x: x[..., None] * np.eye(x.shape[-1] if x.ndim else 3, dtype=x.dtype), g_unary())


def _like_arg(draw, x):
    return {"dtype": draw.choice([None, None, *(d.str for d in ALL_DTYPES)])}


case("np.zeros_like(x, dtype)", "creation", lambda x, dtype: np.zeros_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES))
case("np.ones_like(x, dtype)", "creation", lambda x, dtype: np.ones_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES))
case("np.empty_like(x, dtype)", "creation", lambda x, dtype: np.empty_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES), tol=META)


def _full_like_arg(draw, x):
    return {"value": draw.choice([7, 2.5, True, 0, -1, 300]), **_like_arg(draw, x)}


case("np.full_like(x, v, dtype)", "creation",
     lambda x, value, dtype: np.full_like(x, value, dtype=dtype), g_shape(_full_like_arg, UNARY_SHAPES))


def _static_properties(x):
    # Inside jit these must be plain Python values, usable to build static shapes.
    assert type(x.shape) is tuple and all(type(d) is int for d in x.shape), x.shape
    assert type(x.ndim) is int and type(x.size) is int and isinstance(x.dtype, np.dtype)
    return np.zeros((x.ndim, x.size), dtype=x.dtype) + x.reshape(x.size)[: min(x.size, 1)].sum(), \
        np.asarray(x.shape + (x.ndim, x.size, x.dtype.itemsize), dtype=np.int64)


case(".shape .ndim .size .dtype (static Python values)", "creation", _static_properties, g_unary())


# -- 8. functional updates (x.at[idx].set / .add, as in JAX) ------------------------------------------
def g_at(draw, family):
    (x,), params = g_basic_index(["int", "slice"])(draw, family)
    params["v"] = draw.choice([0, 1, True])
    return (x,), params


def _at_ref(op):
    def ref(x, key, v):
        y = x.copy()
        if op == "set":
            y[decode_key(key)] = v
        else:
            y[decode_key(key)] += np.asarray(v, dtype=x.dtype)
        return y
    return ref


case("x.at[idx].set(v)", "update", lambda x, key, v: x.at[decode_key(key)].set(v), g_at,
     ref=_at_ref("set"))
case("x.at[idx].add(v)", "update", lambda x, key, v: x.at[decode_key(key)].add(v), g_at,
     ref=_at_ref("add"))


# -- notes for docs/numpy_support.md (differences from NumPy, partial support) ---------------------
NOTES = {
    "np.divide(x, y)": "also np.true_divide",
    "np.remainder(x, y)": "also np.mod; integer x % 0 is 0 as in NumPy",
    "np.floor_divide(x, y)": "integer x // 0 is 0 as in NumPy; INT_MIN // -1 wraps",
    "np.power(x, y)": "integer x ** -n is defined (1 // x**n); NumPy raises ValueError",
    "np.reciprocal(x)": "integers and bool refused on purpose (UnsupportedError: write 1 / x or 1 // x)",
    "np.fmod(x, y)": "integer x fmod 0 is 0 as in NumPy (which warns); INT_MIN fmod -1 is 0",
    "np.gcd(x, y)": "INT_MIN's magnitude is 2**(n-1) read as unsigned, as in NumPy",
    "np.lcm(x, y)": "computed as |x| // gcd * |y|, wrapping on overflow as in NumPy",
    "np.fmax(x, y)": "+0.0 against -0.0: the second operand (float16: the first); NumPy's float32/64 "
                     "answer depends on the element's position in its SIMD loop",
    "np.fmin(x, y)": "+0.0 against -0.0: the second operand (float16: the first); NumPy's float32/64 "
                     "answer depends on the element's position in its SIMD loop",
    "np.logaddexp2(x, y)": "float32: NumPy is up to 2 ULP (of the larger term) off; jitcore within 1",
    "np.absolute(x)": "also np.abs and abs(x)",
    "np.invert(x)": "also np.bitwise_not and ~x",
    "np.sin(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.cos(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.tan(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.exp(x)": "float32 up to 3 ULP from NumPy, whose own float32 exp is 2 ULP off",
    "np.log(x)": "float32 up to 4 ULP from NumPy, whose own float32 log is 3 ULP off",
    "np.logaddexp(x, y)": "float32: NumPy is up to 8 ULP (of the larger term) off; jitcore within 1",
    "np.sum(x, axis, keepdims)": "float summation order is not NumPy's (see below); float16 in float32 "
                                 "(NumPy: in float16 along other than the innermost axis); "
                                 "no out=/where=/initial=",
    "np.prod(x, axis, keepdims)": "float product order is not NumPy's; float16 in float32; "
                                  "no out=/where=/initial=",
    "np.mean(x, axis, keepdims)": "float16 accumulates in float32, as in NumPy",
    "np.var(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.std(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.min(x, axis, keepdims)": "no initial=/where=",
    "np.max(x, axis, keepdims)": "no initial=/where=",
    "x[idx] (traced int array: static shape)": "out-of-bounds indices raise IndexError when called",
    "x[x > 0] (traced mask: data-dependent shape)": "raises a JitcoreError: the shape depends on the data",
    "np.nonzero(x) (data-dependent shape)": "raises a JitcoreError: the shape depends on the data",
    "np.reshape(x, shape)": "order='C' only",
    "np.repeat(x, n, axis)": "an int count only (per-element counts: UnsupportedError)",
    "np.pad(x, width, constant_values=c)": "mode='constant' with one constant only",
    "x.astype(dtype)": "float to int of NaN, inf or out of range: x86 truncation (see below)",
    "np.einsum(subscripts, *xs) (common forms)": "no out=/dtype=, no interleaved (operand, sublist) form",
    "np.empty(x.shape, x.dtype)": "a constant inside jit: zeros (NumPy: uninitialized)",
    "np.empty_like(x, dtype)": "zeros (NumPy: uninitialized)",
    ".shape .ndim .size .dtype (static Python values)":
        "Python values while tracing; returned from jit they become NumPy scalars",
    "np.add.accumulate(x, axis)": "accumulate: add and multiply (others: UnsupportedError)",
}
for _case in CASES:
    _case.note = NOTES.get(_case.name, _case.note)


# -- complex numbers: what is not lowered yet (NumPy accepts complex there) ------------------------
_COMPLEX_FLOAT_MATH = ("expm1", "sin", "cos", "tan", "arcsin",
                       "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")
COMPLEX_NOT_LOWERED = [
    *(f"np.{name}(x)" for name in _COMPLEX_FLOAT_MATH),
]
for _case in CASES:
    if _case.name in COMPLEX_NOT_LOWERED:
        _case.unsupported = (*_case.unsupported, "complex")
assert set(COMPLEX_NOT_LOWERED) <= {c.name for c in CASES}


# -- known bugs ---------------------------------------------------------------------------------
@dataclass
class Bug:
    """A known bug, named by a short stable id: ``repro()`` raises ``raises`` while it exists (the
    suite runs it as a strict xfail). ``cases`` are the rows it affects (each checked by hand,
    for the ``families`` given); a drawn example of those rows that hits it (by its ``inputs``,
    or by the ``error`` jitcore raises) counts as the bug's, not as a new failure."""

    name: str
    cases: tuple[str, ...]
    families: tuple[str, ...]
    raises: type
    reason: str
    repro: Callable[[], None] = field(repr=False, default=None)
    inputs: Callable | None = field(repr=False, default=None)
    error: Callable | None = field(repr=False, default=None)


BUGS: list[Bug] = []


def bug(name, cases, families, raises, reason, inputs=None, error=None):
    cases = (cases,) if isinstance(cases, str) else tuple(cases)
    for c in cases:
        assert any(c == other.name for other in CASES), c

    def register(repro):
        BUGS.append(Bug(name, cases, tuple(families), raises, reason, repro, inputs, error))
        return repro
    return register


def check_same(fn, *args, tol=EXACT):
    """Reproducer helper: jit(fn)(*args) against fn(*args); AssertionError when they differ."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = fn(*args)
    compare(tol, jc.jit(fn)(*args), expected, args, getattr(fn, "__name__", "repro"), fn)


def numpy_differs(a, b) -> bool:
    """Whether two NumPy results differ bit for bit (the sign of zero counts; NaN matches NaN)."""
    try:
        assert_matches(a, b, 0)
    except AssertionError:
        return True
    return False


def _quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _empty_in_numpy(e, arrays, params) -> bool:
    return isinstance(e, IndexError) and _quiet(lambda x: x[decode_key(params["key"])], arrays[0]).size == 0


# NumPy checks the bounds of integer index arrays only where an element is read: when the index
# arrays broadcast to size 0 (an empty mask or list among them), out-of-range ones pass.
@bug("out-of-range-index-in-an-empty-selection", "x[[i, j], :, mask] (arrays among slices, ints, None)",
     ALL, IndexError, "x[[], [5]] of a (2, 3) array is an empty array in NumPy; jitcore checks the "
     "index 5 against the axis anyway and raises IndexError", error=_empty_in_numpy)
def _repro_out_of_range_index_in_an_empty_selection():
    x = np.zeros((2, 3))
    jc.jit(lambda v: v[np.array([], dtype=np.intp), np.array([5])])(x)  # NumPy: shape (0,)


# NumPy clips a float32/64 array to Python scalar bounds in a loop that keeps x where it equals a
# bound (np.clip(-0.0, 0, 5) is -0.0); with array bounds, and in jitcore, it is maximum then
# minimum, which returns the bound (0.0).
@bug("clip-scalar-bound-zero-tie", "np.clip(x, 0, 5) (scalar bounds)", ["float"], AssertionError,
     "np.clip(x, 0, 5) of x = -0.0 is 0.0 under jit, -0.0 in NumPy (its scalar-bound loop keeps x "
     "on a tie with a bound)",
     inputs=lambda arrays, params: arrays[0].dtype.kind == "f" and None not in (
         params["lo"], params["hi"]) and numpy_differs(
         _quiet(np.clip, arrays[0], params["lo"], params["hi"]),
         _quiet(lambda x: np.minimum(np.maximum(x, params["lo"]), params["hi"]), arrays[0])))
def _repro_clip_scalar_bound_zero_tie():
    check_same(lambda x: np.clip(x, 0, 5), np.array([-0.0, 1.0, -0.0]))


