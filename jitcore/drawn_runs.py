"""``rng.lognormal(mu, sigma, n)`` with ``n`` computed in the function (a drawn count), used only
by a reduction (``.sum()``, ``.mean()``, ``.max()``, ``.min()``, ``np.sum(...)``): compiled as a
loop of ``n`` single draws at the call's place, which draws NumPy's numbers in NumPy's order
(NumPy's ``size=n`` fills one draw after another) and leaves the generator where NumPy's call
leaves it; the loop keeps their total, least and greatest.

The draws have no array jitcore could give a shape while compiling, so the result is a
``DrawnRun``: its reductions are all it offers, and anything else is refused with the loop of
single draws to write instead. A float total is added in draw order, not NumPy's pairwise
order: within the documented forward error bound of a sum, not NumPy's last bits past 8 terms.
"""

from __future__ import annotations

import numpy as np

from jitcore import control_flow
from jitcore.errors import UnsupportedError
from jitcore.masked import raise_at_run_time
from jitcore.tracer import Tracer, fresh

# the samplers drawn so: NumPy's size=n is n single draws (not integers: its fill buffers words)
SAMPLERS = frozenset(
    {
        "random",
        "uniform",
        "standard_normal",
        "normal",
        "standard_exponential",
        "exponential",
        "poisson",
        "laplace",
        "gumbel",
        "logistic",
        "standard_gamma",
        "gamma",
        "chisquare",
        "beta",
        "binomial",
        "geometric",
        "lognormal",
        "pareto",
        "weibull",
        "power",
        "rayleigh",
        "standard_cauchy",
        "standard_t",
        "f",
        "wald",
        "triangular",
        "negative_binomial",
        "noncentral_chisquare",
        "noncentral_f",
        "logseries",
        "zipf",
    }
)


def run_size(method: str, names: list[str], args, kwargs):
    """(the parameters, the traced 0-d integer ``size``) of a draw to make as a loop; else None."""
    if method not in SAMPLERS or len(args) > len(names) + 1 or set(kwargs) - {*names, "size"}:
        return None
    bound = dict(zip([*names, "size"], args))
    if set(bound) & set(kwargs):
        return None
    bound.update(kwargs)
    size = bound.pop("size", None)
    if not (isinstance(size, Tracer) and size.ndim == 0 and size.dtype.kind in "iu"):
        return None
    if all(s in size.owner_trace.scalar_arguments for s in size.sources):
        return None  # a count of int arguments: made static on demand, the draw a real array
    for v in bound.values():
        if isinstance(v, Tracer) and v.ndim or not isinstance(v, (Tracer, bool, int, float, np.number)):
            return None
    return bound, size


def drawn_run(draw, bound: dict, size: Tracer, kind, refusal: str) -> DrawnRun:
    """The loop of ``size`` single draws ``draw(**bound)`` (of dtype ``kind``), at this place
    of the program."""
    kind = np.dtype(kind)
    zero = np.asarray(0, kind)
    if kind.kind == "i":
        low, high = np.asarray(np.iinfo(kind).max, kind), np.asarray(np.iinfo(kind).min, kind)
    else:
        low, high = np.asarray(np.inf, kind), np.asarray(-np.inf, kind)

    def body(_, carry):
        total, least, greatest = carry
        x = draw(**bound)
        return total + x, np.minimum(least, x), np.maximum(greatest, x)

    total, least, greatest = control_flow.fori_loop(0, size, body, (zero, low, high))
    return DrawnRun(total, least, greatest, size, refusal)


class DrawnRun:
    """The draws of ``rng.X(..., size=n)`` for a traced ``n``, as their reductions."""

    def __init__(self, total, least, greatest, count, refusal: str):
        self._total, self._least, self._greatest, self._count = total, least, greatest, count
        self._refusal = refusal

    def _plain(self, name: str, axis=None, dtype=None, out=None, keepdims=False, **rest) -> None:
        if axis not in (None, 0, -1, (0,)) or dtype is not None or out is not None or keepdims or rest:
            raise UnsupportedError(f"{self._refusal} ({name}() with axis, dtype, out or keepdims)")

    def sum(self, *args, **kwargs):
        self._plain("sum", *args, **kwargs)
        return fresh(self._total, scalar=True, weak=False)

    def mean(self, *args, **kwargs):
        self._plain("mean", *args, **kwargs)
        return fresh(self._total.astype(np.float64) / self._count.astype(np.float64), scalar=True, weak=False)

    def max(self, *args, **kwargs):
        self._plain("max", *args, **kwargs)
        return self._extreme(self._greatest, "maximum")

    def min(self, *args, **kwargs):
        self._plain("min", *args, **kwargs)
        return self._extreme(self._least, "minimum")

    def _extreme(self, value, name: str):
        message = f"zero-size array to reduction operation {name} which has no identity"
        raise_at_run_time(self._count <= 0, lambda: ValueError(message))
        return fresh(value, scalar=True, weak=False)

    amax, amin = max, min

    def __getattr__(self, name: str):
        if name.startswith("__"):  # (NumPy's probes, np.asarray's __array_struct__: not the user's)
            raise AttributeError(name)
        raise UnsupportedError(f"{self._refusal} (its .{name} is none of those reductions)")

    def _refused(self, *args, **kwargs):
        raise UnsupportedError(self._refusal)

    __array__ = __len__ = __iter__ = __getitem__ = __add__ = __radd__ = __mul__ = __rmul__ = _refused
    __sub__ = __rsub__ = __truediv__ = __rtruediv__ = __neg__ = __lt__ = __gt__ = __le__ = __ge__ = _refused
