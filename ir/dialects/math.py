"""``math``: scalar transcendental and rounding functions for kernel bodies."""

from __future__ import annotations

from jitcore.ir.dialects.arith import FloatOp, FloatUnaryOp, IntOp, IntUnaryOp
from jitcore.ir.opdef import attr, of


class SinOp(FloatUnaryOp):
    name = "math.sin"
    __slots__ = ()
class CosOp(FloatUnaryOp):
    name = "math.cos"
    __slots__ = ()
class TanOp(FloatUnaryOp):
    name = "math.tan"
    __slots__ = ()
class TanhOp(FloatUnaryOp):
    name = "math.tanh"
    __slots__ = ()
class ExpOp(FloatUnaryOp):
    name = "math.exp"
    __slots__ = ()
class LogOp(FloatUnaryOp):
    name = "math.log"
    __slots__ = ()
class SqrtOp(FloatUnaryOp):
    name = "math.sqrt"
    __slots__ = ()
class FloorOp(FloatUnaryOp):
    name = "math.floor"
    __slots__ = ()
class CeilOp(FloatUnaryOp):
    name = "math.ceil"
    __slots__ = ()
class AbsfOp(FloatUnaryOp):
    name = "math.absf"
    __slots__ = ()
class TruncOp(FloatUnaryOp):
    name = "math.trunc"
    __slots__ = ()
class RintOp(FloatUnaryOp):
    name = "math.rint"
    __slots__ = ()
class Exp2Op(FloatUnaryOp):
    name = "math.exp2"
    __slots__ = ()
class Expm1Op(FloatUnaryOp):
    name = "math.expm1"
    __slots__ = ()
class Log2Op(FloatUnaryOp):
    name = "math.log2"
    __slots__ = ()
class Log10Op(FloatUnaryOp):
    name = "math.log10"
    __slots__ = ()
class Log1pOp(FloatUnaryOp):
    name = "math.log1p"
    __slots__ = ()
class CbrtOp(FloatUnaryOp):
    name = "math.cbrt"
    __slots__ = ()
class SinhOp(FloatUnaryOp):
    name = "math.sinh"
    __slots__ = ()
class CoshOp(FloatUnaryOp):
    name = "math.cosh"
    __slots__ = ()
class ArcsinOp(FloatUnaryOp):
    name = "math.arcsin"
    __slots__ = ()
class ArccosOp(FloatUnaryOp):
    name = "math.arccos"
    __slots__ = ()
class ArctanOp(FloatUnaryOp):
    name = "math.arctan"
    __slots__ = ()
class ArcsinhOp(FloatUnaryOp):
    name = "math.arcsinh"
    __slots__ = ()
class ArccoshOp(FloatUnaryOp):
    name = "math.arccosh"
    __slots__ = ()
class ArctanhOp(FloatUnaryOp):
    name = "math.arctanh"
    __slots__ = ()
class ErfOp(FloatUnaryOp):
    name = "math.erf"
    __slots__ = ()
class ErfcOp(FloatUnaryOp):
    name = "math.erfc"
    __slots__ = ()
class GammaOp(FloatUnaryOp):
    """C99's tgamma."""
    name = "math.gamma"
    __slots__ = ()
class LgammaOp(FloatUnaryOp):
    """C99's lgamma: log|gamma(x)|."""
    name = "math.lgamma"
    __slots__ = ()
class Arctan2Op(FloatOp):
    name = "math.arctan2"
    __slots__ = ()
class HypotOp(FloatOp):
    name = "math.hypot"
    __slots__ = ()
class LogaddexpOp(FloatOp):
    name = "math.logaddexp"
    __slots__ = ()
class Logaddexp2Op(FloatOp):
    name = "math.logaddexp2"
    __slots__ = ()
class AbsiOp(IntUnaryOp):
    name = "math.absi"
    __slots__ = ()
class PowfOp(FloatOp):
    """``pow(x, y)``; ``libm``: the C library's own ``pow``/``powf``, bits and all (NumPy's and
    Python's scalar ``**``), which no rewrite may replace by the forms it equals."""
    name = "math.powf"
    __slots__ = ()
    libm = attr(of(bool), optional=True, default=False)
class IpowiOp(IntOp):
    """Integer power; a negative exponent gives 1/b**-e truncated."""
    name = "math.ipowi"
    __slots__ = ()
class CopysignOp(FloatOp):
    name = "math.copysign"
    __slots__ = ()
class FmaOp(FloatOp):
    """a * b + c with one rounding (complex products, as NumPy's SIMD loops)."""
    name = "math.fma"
    arity = (3, 1)
    __slots__ = ()
class CtpopOp(IntUnaryOp):
    """The number of set bits."""
    name = "math.ctpop"
    __slots__ = ()
class GcduiOp(IntOp):
    """Greatest common divisor of the operands as unsigned; gcd(0, 0) = 0."""
    name = "math.gcdui"
    __slots__ = ()
