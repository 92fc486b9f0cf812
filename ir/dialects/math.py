"""``math``: scalar transcendental and rounding functions for kernel bodies."""

from __future__ import annotations

from jitcore.ir.dialects.arith import FLOAT, INT, define

UNARY_FLOAT = ("sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "floor", "ceil", "absf", "trunc",
               "rint", "exp2", "expm1", "log2", "log10", "log1p", "cbrt", "sinh", "cosh", "arcsin",
               "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
for _name in UNARY_FLOAT:
    define("math", _name, 1, FLOAT)
for _name in ("arctan2", "hypot", "logaddexp", "logaddexp2"):
    define("math", _name, 2, FLOAT)
define("math", "absi", 1, INT)
define("math", "powf", 2, FLOAT)
define("math", "ipowi", 2, INT, doc="Integer power; a negative exponent gives 1/b**-e truncated.")
define("math", "copysign", 2, FLOAT)
define("math", "fma", 3, FLOAT, doc="a * b + c with one rounding (complex products, as NumPy's SIMD loops).")
define("math", "ctpop", 1, INT, doc="The number of set bits.")
define("math", "gcdui", 2, INT, doc="Greatest common divisor of the operands as unsigned; gcd(0, 0) = 0.")
