"""The edge batch: fixed examples that reach the edges on every run.

Hypothesis draws a few random examples per row; these are added to them, the same on every run,
so that every row meets every dtype of its family, its domain's special values, the shapes (),
(0,), (1,) and an odd length past any vector width, and every layout (see ``edge_draws``)."""

from __future__ import annotations

import math
import random
import zlib

import numpy as np

from tests.coverage.draw import FAMILIES, RandomDraw
from tests.layouts import relayout

LONG = 67  # odd, and past the 64 lanes of a 512-bit vector of int8

# Which special values each domain keeps, and why it leaves the others out.
EDGE_DOMAINS = {
    "any": "NaN, +-inf, +-0.0, +-smallest subnormal, +-tiny, +-max, trig arguments past 2**17 "
           "and 2**43 (integers: min, max, 0, -1 and their neighbours)",
    "small": "NaN, +-inf, +-0.0, subnormals, tiny, +-100; not +-max: where a sum overflows "
             "depends on its order (integers: -100..100)",
    "prod": "NaN, +-inf, +-0.0, subnormals, tiny, +-1.5; not +-max, as for small (complex: "
            "finite parts, see draw.element())",
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
