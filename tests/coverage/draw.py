"""Where the coverage table's arguments come from: the dtype families, and ``Draw``, the one
interface through which a case draws its arrays and static parameters, whether hypothesis
(``HypothesisDraw``), a seeded generator (``RandomDraw``) or the fixed edge batch
(``tests/coverage/edges.py``) does the drawing. Every drawn array comes in a layout of
tests/layouts.py."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from tests.layouts import LAYOUTS, relayout

# -- dtypes -----------------------------------------------------------------------------------
FAMILIES: dict[str, tuple[np.dtype, ...]] = {
    "bool": (np.dtype(np.bool_),),
    "signed": tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)),
    "unsigned": tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)),
    "float": tuple(np.dtype(t) for t in (np.float16, np.float32, np.float64)),
    "complex": tuple(np.dtype(t) for t in (np.complex64, np.complex128)),
}
ALL_DTYPES = tuple(d for family in FAMILIES.values() for d in family)
ALL = tuple(FAMILIES)
INTS = ("bool", "signed", "unsigned")


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
    # Each strategy is built once per process, keyed by its exact arguments (type and repr,
    # so 0.0 and -0.0, 1 and True stay apart): building one and Hypothesis's check of it on its
    # first draw cost about as much as the draw, and the table's draws run ~10,000 a slice.
    # The same strategy draws the same values, so the examples are those of a fresh one.
    _strategies: dict = {}

    def __init__(self, data):
        self.data = data

    def _draw(self, kind: str, *args):
        if any(isinstance(a, np.ndarray) for a in args):  # a truncated repr is no key
            return self.data.draw(_strategy(kind, args))
        key = (kind, tuple((type(a), repr(a)) for a in args))
        strategy = self._strategies.get(key)
        if strategy is None:
            strategy = self._strategies[key] = _strategy(kind, args)
        return self.data.draw(strategy)

    def choice(self, options):
        return self._draw("sampled_from", *options)

    def integer(self, lo, hi):
        return self._draw("integers", lo, hi)

    def real(self, lo, hi):
        return self._draw("floats", lo, hi)


def _strategy(kind: str, args: tuple):
    from hypothesis import strategies as st

    return st.sampled_from(args) if kind == "sampled_from" else getattr(st, kind)(*args)


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
