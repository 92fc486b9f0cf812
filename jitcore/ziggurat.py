"""NumPy's ziggurat tables for ``standard_normal`` (256 layers: ``ki``, ``wi``, ``fi``) and for
``standard_exponential`` (``ke``, ``we``, ``fe``), read back from NumPy's own samplers, for the
compiled code to draw normals and exponentials bit for bit NumPy's (``codegen/pcg64.py``).

Recomputed from the ziggurat's recurrence, in float64 or in 60 digits, a third of the entries
differ from NumPy's in the last bits (docs/numpy_support.md, rng48). Instead, NumPy's
``Generator`` is given a bit generator that hands out chosen 64-bit words (a ctypes ``bitgen_t``
in a capsule, which ``Generator`` accepts), and its ``standard_normal`` shows the tables (a word
is the layer i in its low 8 bits, a sign bit, then 52 bits of rabs; ``standard_exponential``'s
is 3 unused bits, the layer, then 53 bits):

- ``wi[i]``: layer i, sign 0, rabs 1 gives ``1 * wi[i]``;
- ``ki[i]``: the least rabs for which the draw asks for more bits (a binary search);
- ``fi[i]``: ``exp(-x*x/2)`` (``exp(-x)``) of the layer's ``x = wi[i] * 2**52`` (``2**53``), or
  an ulp or two off (one entry of NumPy 2.4's normal table is), the one whose acceptance
  boundary over the uniform U matches the sampler's at a point of the layer (the test
  ``(fi[i-1] - fi[i]) * U + fi[i] < density(x)``).

Each answer is checked; ``tables()`` is None when anything does not fit, and the normals then
keep NumPy's sampler through a callback.
"""

from __future__ import annotations

import ctypes
import functools
import math
import threading

import numpy as np

_NEXT64 = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)
_NEXT32 = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)
_NEXTD = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p)
_U = 1.0 / 9007199254740992.0


class _BitGen(ctypes.Structure):
    _fields_ = [("state", ctypes.c_void_p), ("next_uint64", _NEXT64), ("next_uint32", _NEXT32),
                ("next_double", _NEXTD), ("next_raw", _NEXT64)]


class _Fed:
    """A bit generator that hands out ``words``, then 2**63 (a uniform of 0.5, which ends the
    tail's loop, which zeros would not), counting them."""

    def __init__(self):
        self.words, self.used, self.lock = [], 0, threading.Lock()
        self.method = "standard_normal"
        self._callbacks = (_NEXT64(self._next64), _NEXT32(lambda s: self._next64(s) & 0xFFFFFFFF),
                           _NEXTD(lambda s: (self._next64(s) >> 11) * _U))
        self._struct = _BitGen(None, self._callbacks[0], self._callbacks[1], self._callbacks[2],
                               self._callbacks[0])
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self.capsule = new(ctypes.addressof(self._struct), b"BitGenerator", None)

    def _next64(self, _state) -> int:
        word = self.words[self.used] if self.used < len(self.words) else 1 << 63
        self.used += 1
        return word

    def draw(self, generator, *words) -> tuple[float, int]:
        self.words, self.used = list(words), 0
        return getattr(generator, self.method)(), self.used


class _Kind:
    """One ziggurat: its sampler, where a word holds the layer and the bits of x, the
    bits' count and the density the layers cover."""

    def __init__(self, method: str, layer_shift: int, bits_shift: int, bits: int, density):
        self.method, self.layer_shift, self.bits_shift = method, layer_shift, bits_shift
        self.bits, self.density = bits, density

    def layer(self, i: int, rabs: int) -> int:
        return (i << self.layer_shift) | (rabs << self.bits_shift)  # (the normal's sign: 0)


NORMAL = _Kind("standard_normal", 0, 9, 52, lambda x: math.exp(-0.5 * x * x))
EXPONENTIAL = _Kind("standard_exponential", 3, 11, 53, lambda x: math.exp(-x))


def _accepts(kind: _Kind, fi_before: float, fi_i: float, x: float, k: int) -> bool:
    return (fi_before - fi_i) * (k * _U) + fi_i < kind.density(x)


def _boundary(accepts) -> int:
    """The least k in [0, 2**53) where ``accepts(k)`` is false (it holds below, not above)."""
    lo, hi = 0, 2**53
    while lo < hi:
        mid = (lo + hi) // 2
        if accepts(mid):
            lo = mid + 1
        else:
            hi = mid
    return lo


@functools.cache
def tables(kind: _Kind = NORMAL) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(ki uint64, wi float64, fi float64) as NumPy's ``standard_normal`` (or ``kind``'s
    sampler) uses them, or None."""
    try:
        fed = _Fed()
        fed.method = kind.method
        generator = np.random.Generator(fed)
        return _read(fed, generator, kind)
    except Exception:  # an other NumPy: its draws keep the callback
        return None


def _read(fed: _Fed, generator, kind: _Kind) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    top = 2**kind.bits
    wi = np.zeros(256)
    ki = np.zeros(256, np.uint64)
    for i in range(256):
        wi[i], _ = fed.draw(generator, kind.layer(i, 1), 0)
        lo, hi = 0, top  # the least rabs that takes the slow path (top: none does)
        while lo < hi:
            mid = (lo + hi) // 2
            if fed.draw(generator, kind.layer(i, mid), 0, 0, 0)[1] > 1:
                hi = mid
            else:
                lo = mid + 1
        ki[i] = lo
        if 0 < lo < top and fed.draw(generator, kind.layer(i, lo - 1))[0] != (lo - 1) * wi[i]:
            return None
    fi = np.zeros(256)
    fi[0] = 1.0
    for i in range(1, 256):
        guess = kind.density(wi[i] * top)
        fits = _near(guess)
        for part in (2, 4, 8):  # points of the layer's slow path, until one candidate is left
            rabs = int(ki[i]) + (top - int(ki[i])) // part
            x = rabs * wi[i]
            if fed.draw(generator, kind.layer(i, rabs), 0)[0] != x:  # U = 0 accepts there
                return None
            # NumPy's boundary: a rejected U draws again (layer 0, rabs 0: a 0.0, one more word)
            word = kind.layer(i, rabs)
            drawn = _boundary(lambda k, word=word: fed.draw(generator, word, k << 11, 0)[1] == 2)
            before = fi[i - 1]
            fits = [c for c in fits
                    if _boundary(lambda k, c=c, x=x, before=before: _accepts(kind, before, c, x, k)) == drawn]
            if len(fits) <= 1:
                break
        if not fits:
            return None
        # candidates no point tells apart draw alike there: the formula's, when it is one
        fi[i] = guess if guess in fits else fits[0] if len(fits) == 1 else math.nan
        if math.isnan(fi[i]):
            return None
    return ki, wi, fi


def _near(x: float, ulps: int = 3) -> list[float]:
    out, down, up = [x], x, x
    for _ in range(ulps):
        down, up = math.nextafter(down, 0.0), math.nextafter(up, 2.0)
        out += [down, up]
    return out
