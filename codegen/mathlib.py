"""jitcore's math library: transcendentals as straight-line LLVM IR.

LLVM does not vectorize calls to libm, and NVPTX cannot lower ``llvm.exp`` and friends, so each
function is emitted inline: range reduction, a polynomial, and selects for special values. There
are no calls except intrinsics that are single instructions on x86 and NVPTX, no branches, and no
64-bit float<->int conversions (AVX2 has none for 64-bit lanes): integers are moved in and out
of floats with the 1.5 * 2**mantissa "shifter" trick instead. The one conversion is f32 cbrt's
32-bit one (the bits of a finite, positive float divided by 3: never NaN, whose fptosi is
poison).

Every emitter works on f32 or f64, scalar or vector. f32 sin/cos compute natively (8 lanes): a
Cody-Waite reduction with pi/2 in three f32 pieces keeps r = r_hi + r_lo as a double-f32, and the
polynomials take r_lo and the rounding of 1 - r**2/2 into account. f32 tan takes the same double-f32 r
into its own polynomial, r + r z P(z) (odd quadrants: -1/tan, one reciprocal and a
correction); f64 tan is sin / cos as double words, with one reciprocal and a correction. f32
pow splits x in f32 and computes only log2, the product and exp2 in f64; f32 hypot and erf
compute in f64.
f32 arctan, arctan2, arcsin, arccos, arcsinh, arccosh, arctanh and cbrt compute in f32 lanes
(twice the lanes of f64; atan's double-double constants split for f32: ``_Math.pair``): their
reductions are exact or carry the rounding in a low part, so the result stays within 1 ULP of
the correctly rounded one. arcsinh, arccosh (_log_of_sum) and arctanh take
log(q) as k ln2 + 2 atanh(s) with s = (q - 2**k) / (q + 2**k) from exact sums: one division,
no table, no double-double log. f32 arctan2 reduces by one quotient (_atan2_f32: min / max, or
(min - max) / (min + max) past 1/2, as a double word from one reciprocal) to a 6-term
polynomial, with the quadrant's multiple of pi/4 added by a fast two-sum.

f32 log, log2 and log10 divide nowhere: after the reduction to 2**k * (1 + f) with 1 + f in
[sqrt(1/2), sqrt2), log(1 + f) = f - f**2/2 + f**3 * P(f), P of degree 7 in f itself, evaluated
as two interleaved Horner chains (even and odd terms). f32 log2 and log10 (bound 2 ULP) take
1 + f in [3/4, 3/2) and one polynomial f * Q(f) (10 terms), fewer operations than log's sum of
parts. f64 log keeps fdlibm's s = f / (2 + f) and 7 terms in s**2: the division-free form needs
19 terms there, and measured 0.82-0.89x of the division form on Zen 5 (docs/performance.md,
"Division-free log"); f64 log10 adds f / ln10 and k log10(2) with double-word constants.

AVX-512 (``isa`` of emit_unary, ``ISA_FUNCTIONS``): exp, exp2 and the log family have vector
variants that use getexp/getmant (log's reduction: k and f as _log_reduce splits them, so the
same results, with the special values carried by k and f's NaN) and scalef (exp's 2**n, one
rounding); f32 log2 and log10 reduce to [3/4, 3/2) (getmant's interval 3), multiply by an
entry of a 16-entry table (vpermps; Tang's accurate tables, _LOG_TABLE) and need 5 terms.
Kernel bodies are scalar IR, so a scalar call goes out with LLVM's vector-function-abi-variant;
the loop vectorizer calls the variants and codegen/cpu/target.py inlines their definitions
after O3 (1.1-1.8x in cache on Zen 4). f32 pow's variant
computes in f32 lanes throughout (_pow_f32_x86: ln|x| and y ln|x| as double words from a
16-entry table, exp by scalef; 1.45x the portable code, which takes its log and exp to f64);
f64 pow's variant is table-driven (_pow_f64_x86: ln|x| from a 16-entry vpermt2pd table of rcp
and -ln(rcp) as double words, r = m rcp - 1 exact as a + b, a 9-term tail; exp from 2**(j/16)
as double words, scalef by n/16; within 0.75 ULP of the exact result where the portable
double-double code reaches 1.7; 1.5-1.7x the portable code, which stays for the scalar
remainder and other targets); f64 exp's variant is that exp (6 terms in place of 10, within 0.54
ULP of the exact result where the portable code reaches 0.97; 1.1x), and so is its scalar twin
(the remainder's: the lanes' bits whatever the split). f32 cbrt's variant takes no
steps (_cbrt_f32_x86: getexp/getmant, 2**(3q + r) mant, a 15-entry table of rcp and exact cube
roots indexed by r and mant, 5 terms, scalef by q; 1.3-1.4x); f64 cbrt stays portable (its
polynomial would need a dozen terms at that table's spacing).
"divide" (``emit_divide_invariant``) is x / d for a divisor the loop does not change:
mathlib_divide.py's reciprocal and Markstein correction, bit for bit IEEE division, float64 only
(DIVIDE_KINDS).

erfc, gamma and lgamma (f32 through f64) have no NumPy ufunc; they are ``math``'s
(``math.erf(x)`` and ``np.vectorize(math.gamma)`` of traced values). erfc: (1 - x) - x Q(x**2)
rounded once below |x| = 1/2, exp(-x**2) (as a double word) times G(x) from six pieces above
(relative to erfc, down to its gradual underflow), 2 minus that for x < 0. gamma: a polynomial
on [2, 3], the factors down to it below 10 (exact differences) or up to it below 2 (a division),
Stirling above 10 as y**((y - 1/2) / 2) times the rest (two factors: overflow only where gamma
overflows); x <= -1 by the reflection with -x exact and sin(pi x) reduced exactly (_sinpi).
lgamma: (z - 1)(z - 2) R(z) on [1, 3] (zeros factored out: relative accuracy at 1 and 2),
one log of the recurrence's factors or of y for Stirling; the reflection for x <= -1 (absolute
accuracy near its zeros there, as every reflection). Measured f64 against mpmath, 1500 points a
range: erf 0.66, erfc 1.56, gamma 5.1 (x < -1) / 3.9, lgamma 2.3 (42 for x < -1) ULP, each below
CPython's ``math`` on the same points.

Polynomial coefficients were fitted by the author (Lawson-reweighted least squares in 50-digit
mpmath on Chebyshev nodes, i.e. near-minimax in relative error); the error quoted with each set is
the fit's own maximum relative error, before rounding the coefficients.

Accuracy, measured against NumPy (see tests/codegen/test_mathlib.py): f32 within 1-2 ULP of the
correctly rounded result, f64 within a few ULP of NumPy. sin/cos/tan are accurate for
|x| <= trig_argument_limit(type): 2**17 for f32 (as NumPy's own f32 SIMD sin/cos, which switch
to scalar code past 71476), 2**43 for f64; beyond that they return NaN. The code generator checks
for such arguments and recomputes those kernels exactly (see codegen/cpu/schedule.py), so users
never see that NaN.

fast=True (``emit_unary(builder, name, x, fast=True)``, for ``jc.jit(f, fastmath=True)``) emits a
cheaper variant of exp, log, tanh, sin and cos: shorter polynomials (_EXP_FAST, _LOG_FAST,
_TANH_FAST with a lower polynomial/exp cutoff, f32 _SIN_FAST/_COS_FAST) and no extra-precision
steps (log without the hfsq split, sin/cos without the double-word evaluation). Range reductions,
the trig argument limit and the special-value selects are unchanged: NaN, +-inf, +-0, overflow
and gradual underflow are as in the accurate functions. Other names fall back to the accurate
path. Max error, measured (tests/codegen/test_mathlib_fast.py: the test_mathlib sweeps and
special values plus 4M random arguments; same references as the accurate bounds, f32 against
the correctly rounded result, f64 against NumPy):

    ====  ===========  ===========
    fast  f32          f64
    ====  ===========  ===========
    exp   <= 5 ULP     <= 8 ULP
    log   <= 7 ULP     <= 6 ULP
    tanh  <= 7 ULP     <= 23 ULP
    sin   <= 1 ULP     <= 1 ULP
    cos   <= 1 ULP     <= 1 ULP
    ====  ===========  ===========
"""

from __future__ import annotations

import math
import struct

from llvmlite import ir

from jitcore.codegen import mathlib_divide

# exp(r) = 1 + r + r**2 * P(r) on |r| <= ln2/2.  f32: 2**-28.3, f64: 2**-57.9.
_EXP = {
    "f32": (0.4999999403953552, 0.1666651964187622, 0.041668400168418884, 0.008368851616978645,
            0.0013814311241731048),
    "f64": (0.5000000000000011, 0.16666666666666408, 0.04166666666652808, 0.008333333333496925,
            0.0013888888944255642, 0.0001984126950276688, 2.4801492382068012e-05,
            2.755758838212843e-06, 2.763052554272378e-07, 2.499987425285867e-08),
}
# log((1+s)/(1-s)) = 2s + s * z * P(z), z = s**2 <= (3 - 2*sqrt2)**2.  f32: 2**-30.2, f64: 2**-59.5.
_LOG = {
    "f32": (0.6666677594184875, 0.39977481961250305, 0.2987363934516907),
    "f64": (0.6666666666666735, 0.3999999999940917, 0.28571428743771055, 0.22222198415911765,
            0.18183573253495647, 0.15313803781906601, 0.14798594604140264),
}
# log(1 + f) = f - f**2/2 + f**3 * P(f) on sqrt(1/2) - 1 <= f < sqrt2 - 1 (f32 _log_parts: no
# division); relative error of log(1 + f), coefficients rounded to f64: 2**-27.4 (within 1 ULP
# of the correctly rounded log on every float32 in [0.7, 2.9]; degree 8, 2**-30.3, measured 4% slower).
_LOG_F = {
    "f32": (0.333333317122705, -0.2500082108415514, 0.2000122639823962, -0.1662335537360136,
            0.14201768223185327, -0.1316021128436837, 0.1276151597600239, -0.07634344286241457),
}
# f32 log2 and log10 (ULP bound 2, log's is 1): log2(1 + f) = f * Q(f) and log10(1 + f) = f * Q(f)
# on -1/4 <= f < 1/2 (1 + f in [3/4, 3/2): _log_reduce's split with one operation fewer on
# AVX-512), Horner in f: fewer operations than log's f - f**2/2 + f**3 P(f) and its sum of parts.
# Relative error (Lawson-reweighted): 2**-27.8.
_LOG2_F32 = (1.4426950348997578, -0.7213475374838815, 0.48090077253826846, -0.3606748430486795,
             0.2883840147443036, -0.24014850745009808, 0.20910184187035988, -0.19027662398466794,
             0.1506585947793826, -0.06433674678655142)
_LOG10_F32 = (0.4342944801003213, -0.21714724608099636, 0.14476555747200015, -0.10857394643905109,
              0.0868122387080392, -0.07229190415641458, 0.06294592655156492, -0.05727897129306157,
              0.045352756133179045, -0.01936729060619023)
# AVX-512 f32 log2 and log10 (_log_table_x86): m = 1 + f in [3/4, 3/2) times rcp, about 1/c for
# the c = 1 + j/16 (j = -4..8) nearest m, r = m rcp - 1 in [-0.0387, 0.0420], and
# log(1 + r) = r Q(r) (Lawson-reweighted: 2**-29.75) added to -log(rcp). Each rcp is the f32 within
# 3000 ULP of 1/c whose -log(rcp) is nearest an f32 (Tang's accurate tables): the table entries
# are then within 0.0004 ULP, so they need no low part. Both tables have 16 entries (one register,
# vpermps), by j mod 16 (entries 9-11 unused). (rcp, -log(rcp)) for log2 and log10:
_LOG_TABLE = {
    "log2": ((1.0, 0.9411407113075256, 0.8889790773391724, 0.8419641852378845, 0.8000308275222778,
             0.7618733048439026, 0.7272350192070007, 0.6957869529724121, 0.6668251752853394, 1.0, 1.0,
             1.0, 1.3336503505706787, 1.2305821180343628, 1.1430436372756958, 1.0665265321731567),
            (0.0, 0.08751765638589859, 0.16977863013744354, 0.24816922843456268, 0.3218725025653839,
             0.39237698912620544, 0.45950642228126526, 0.5232824683189392, 0.5846195220947266, 0.0, 0.0,
             0.0, -0.41538047790527344, -0.2993409335613251, -0.19288048148155212, -0.09291985630989075)),
    "log10": ((1.0, 0.941011905670166, 0.888850748538971, 0.8421248197555542, 0.7999911308288574,
              0.7618822455406189, 0.727263867855072, 0.6955387592315674, 0.6665850877761841, 1.0, 1.0,
              1.0, 1.3330427408218384, 1.2305058240890503, 1.1428922414779663, 1.0669894218444824),
             (0.0, 0.026404881849884987, 0.051171157509088516, 0.07462353259325027, 0.09691482782363892,
              0.11811214685440063, 0.13830798864364624, 0.15767866373062134, 0.17614440619945526, 0.0,
              0.0, 0.0, -0.12484407424926758, -0.09008367359638214, -0.058005284518003464,
              -0.028160113841295242)),
}
_LOG_TABLE_Q = {
    "log2": (1.4426950405867005, -0.7213473256509556, 0.480900467972276, -0.3611562864840306,
             0.2870481150165927),
    "log10": (0.43429448181226166, -0.2171471823129316, 0.14476546578850075, -0.10871887535430728,
              0.08641009281879888),
}
# f32 pow's log in f64: log((1+s)/(1-s)) = 2s + s * z * P(z) as _LOG (Lawson-reweighted): 2**-37.6,
# so y log2|x| is good to 2**-30 absolute up to the clamp (150), a hundredth of an f32 ULP.
_LOG_POW_F32 = (0.6666666564847947, 0.4000033456350521, 0.2853734544214296, 0.2358149722595758)
# sin(r) = r + r * z * P(z), cos(r) = 1 - z/2 + z**2 * Q(z), z = r**2, |r| <= pi/4 + 0.002.
# f32 (evaluated in f64): 2**-37.5 and 2**-33.0; f64: 2**-57.9 and 2**-63.9.
_SIN = {
    "f32": (-0.16666666640260122, 0.008333329242492252, -0.0001983929217662639, 2.717929733927565e-06),
    "f64": (-0.1666666666666663, 0.008333333333321829, -0.0001984126982934827, 2.755731353492683e-06,
            -2.5050733820767195e-08, 1.589539988585851e-10),
}
# f32 tan(r) = r + r * z * P(z), z = r**2, |r| <= pi/4 + 0.006 (Lawson-reweighted, relative to tan):
# 2**-29.3.
_TAN_F32 = (0.33333352884301465, 0.13332552573402237, 0.05407278749418135, 0.021214198241748222,
            0.01101571347375207, -0.0001428278778950225, 0.004492863813557647)
_COS = {
    "f32": (0.04166664535258696, -0.0013887299874179126, 2.443125335958601e-05),
    "f64": (0.04166666666666659, -0.0013888888888872642, 2.4801587288585722e-05, -2.755731410064367e-07,
            2.087568991530541e-09, -1.1357959104019593e-11),
}
# tanh(x) = x + x * z * P(z), z = x**2, on |x| <= _TANH_POLY (exp formula beyond).
# f32 (Chebyshev fit): 2**-27.9, f64: 2**-56.4.
_TANH = {
    "f32": (-0.3333333200797698, 0.1333311372902087, -0.05390942882746055, 0.021309388664443474,
            -0.006610227831114734),
    "f64": (-0.33333333333332854, 0.13333333333262082, -0.053968253931264094, 0.02186948757602267,
            -0.008863221001791686, 0.0035919891676924605, -0.0014549588491943673, 0.0005863164531207776,
            -0.0002285640467166005, 7.714419121462751e-05, -1.607248872394124e-05),
}
# Past 0.55 (f32) / 0.625 (f64) the cancellation in 1 - 2/(e+1) costs under one ULP.
_TANH_POLY = {"f32": 0.55, "f64": 0.625}
# tanh(x) rounds to 1 past 9.01 (f32) / 19.1 (f64); clamping there keeps exp finite.
_TANH_ONE = {"f32": 9.5, "f64": 19.5}
# exp input clamp: just past overflow to inf and underflow to 0 (keeps the exponent arithmetic exact).
_EXP_LIMITS = {"f32": (-104.0, 89.0), "f64": (-746.0, 710.0)}

# fast=True coefficient sets (same forms as above, fewer terms; fitted the same way). Quoted: the
# fit's relative error of the polynomial itself; the function's measured error is in the docstring.
# exp: f32 2**-17.6, f64 2**-46.0.
_EXP_FAST = {
    "f32": (0.49999750253219666, 0.1666677463086131, 0.041833593306671794, 0.00834121612911724),
    "f64": (0.4999999999999994, 0.16666666666648397, 0.04166666666681451, 0.00833333335365528,
            0.001388888883788946, 0.0001984120886007405, 2.480162702870902e-05, 2.7625052949223797e-06,
            2.757605435059069e-07),
}
# log: f32 2**-14.4, f64 2**-43.7.
_LOG_FAST = {
    "f32": (0.6666349112804629, 0.40858839738145675),
    "f64": (0.6666666666666207, 0.4000000001123932, 0.28571424129388384, 0.2222286313130383,
            0.18140160720140974, 0.16622267073182556),
}
# f32 log as _LOG_F, degree 5: 2**-21.9.
_LOG_F_FAST = (0.3333424560817794, -0.24983265714001082, 0.1992450951368799, -0.17137156702183856,
               0.16024325389652067, -0.10191539619302781)
# sin (f32: 2**-22.9) and cos (f32: 2**-24.2); f64 keeps _SIN / _COS (one term fewer costs ~100 ULP).
_SIN_FAST = {"f32": (-0.16666664541898057, 0.008332726826858374, -0.00019583482253747136), "f64": _SIN["f64"]}
_COS_FAST = {"f32": (0.04166666454895566, -0.0013888282827716186, 2.454372784951254e-05), "f64": _COS["f64"]}
# tanh polynomial below _TANH_POLY_FAST: f32 on 0.3 2**-19.4, f64 on 0.45 2**-44.3.
_TANH_FAST = {
    "f32": (-0.3333328613750807, 0.13323874189818263, -0.051132750394472945),
    "f64": (-0.3333333333333183, 0.13333333332384578, -0.053968252981078046, 0.02186944928635294,
            -0.008862465891389388, 0.0035838752819946536, -0.0014061444428794733, 0.0004290449429804938),
}
_TANH_POLY_FAST = {"f32": 0.3, "f64": 0.45}

_LN2 = math.log(2)
# ln2 = head + tail.  For exp's reduction the head is ln2 rounded (n * head is exact inside fma);
# for log the head has 15 (f32) / 32 (f64) bits so that k * head is exact for every exponent k.
_LN2_EXP = {"f32": (float.fromhex("0x1.62e43p-1"), -1.9046542121259336e-09),
            "f64": (_LN2, 2.319046813846299e-17)}
_LN2_LOG = {"f32": (float.fromhex("0x1.62e4p-1"), 1.428606765330187e-06),
            "f64": (float.fromhex("0x1.62e42feep-1"), 1.9082149292705877e-10)}
_SQRT_HALF_BITS = {"f32": 0x3F3504F3, "f64": 0x3FE6A09E667F3BCD}
_THREE_QUARTERS_BITS = {"f32": 0x3F400000, "f64": 0x3FE8000000000000}
_SQRT_HALF = {k: struct.unpack("f" if k == "f32" else "d", struct.pack("I" if k == "f32" else "Q", v))[0]
              for k, v in _SQRT_HALF_BITS.items()}
_MIN_NORMAL = {"f32": 2.0**-126, "f64": 2.0**-1022}
# log(j/8) as double-doubles, for pow's log.
_LOG_EIGHTHS = {
    6: (-0.2876820724517809, -2.607160616442564e-17), 7: (-0.13353139262452263, 3.664457663660085e-18),
    9: (0.11778303565638346, -1.1971685747593677e-18), 10: (0.22314355131420976, -9.091270597324799e-18),
    11: (0.3184537311185346, 2.7114779367326236e-17),
}
# pi/2 in three pieces of the type's precision (53 / 24 bits); n * piece is exact inside fma.
_PIO2 = {"f64": (float.fromhex("0x1.921fb54442d18p+0"), float.fromhex("0x1.1a62633145c07p-54"),
                 float.fromhex("-0x1.f1976b7ed8fbcp-110")),
         "f32": (float.fromhex("0x1.921fb6p+0"), float.fromhex("-0x1.777a5cp-25"),
                 float.fromhex("-0x1.ee59dap-50"))}
# atan(t) = t + t * z * P(z), z = t**2, |t| <= 7/16.  Relative error of P: f32 2**-28.3, f64 2**-51.4
# (so under 2**-32 / 2**-55 of atan itself).
_ATAN = {
    "f32": (-0.33333333238013857, 0.19999963216148037, -0.14283427148496003, 0.11058598439768132,
            -0.08534237957395722, 0.048265461318273487),
    "f64": (-0.33333333333333326, 0.19999999999988094, -0.14285714283199175, 0.11111110903770129,
            -0.09090900301051194, 0.07692089358468134, -0.06663262727912922, 0.058478943109742394,
            -0.05034686224102745, 0.03784329008476318, -0.01756592546933348),
}
_PI = (3.141592653589793, 1.2246467991473532e-16)
# f32 arctan2 (_atan2_f32): atan(t) = t + t * z * P(z), z = t**2 <= 1/4 (Lawson-reweighted,
# relative to atan; each coefficient rounded to f32 and the rest refitted): 2**-31.7. And
# 1 / (1 + z) to 0.6% as c0 + c1 z, the slope that weighs t's low part.
_ATAN2_F32 = (-0.333333283662796, 0.19999554753303528, -0.14273107051849365, 0.10948410630226135,
              -0.08009076118469238, 0.0390421524643898)
_ATAN2_SLOPE = (0.9937886408961961, -0.795029700626972)
_PIO4_HEAD = float.fromhex("0x1.921fbp-1")  # pi/4 to 21 bits: 3 times it is exact in f32
_PIO4_TAIL = math.pi / 4 - _PIO4_HEAD
_PIO2_DD = (1.5707963267948966, 6.123233995736766e-17)
# atan's reduction: t = (a - c*b) / (b + c*a) for a/b in [lo, next lo); c = inf means t = -b/a.
# atan(c) as (hi, lo) and pi - atan(c) as (hi, lo).
_ATAN_STEPS = (
    (7 / 16, 0.5, (0.4636476090008061, 2.2698777452961687e-17), (2.677945044588987, 1.5527705369303147e-16)),
    (11 / 16, 1.0, (0.7853981633974483, 3.061616997868383e-17), (2.356194490192345, 9.184850993605148e-17)),
    (19 / 16, 1.5, (0.982793723247329, 1.3903311031230998e-17), (2.158798930342464, 2.1958367134601997e-16)),
    (39 / 16, math.inf, _PIO2_DD, _PIO2_DD),
)
# asin(s) = s + s * z * R(z), z = s**2 <= 1/4.  Relative error of R: f32 2**-29.6, f64 2**-53.0
# (under 2**-34 / 2**-57 of asin).
_ASIN = {
    "f32": (0.16666666686832057, 0.07499992099080593, 0.044647816337976695, 0.03026644883308901,
            0.023633023998087643, 0.01049777284238768, 0.0310780933205372),
    "f64": (0.16666666666666669, 0.07499999999998348, 0.04464285714652568, 0.03038194412548683,
            0.02237217345327051, 0.017352380960253006, 0.013971384063873235, 0.011477541713343187,
            0.010333234480326865, 0.005413697801752017, 0.017517611340059934, -0.015030485131381196,
            0.028877357037034895),
}
# cbrt's start: the bits of a**(-1/3) (f64: their high word) are about this minus a's / 3
# (fitted: 2**-4.9 relative).
_CBRT_MAGIC = {"f32": 0x54A232A0, "f64": 0x553EF0FF}
# f32: atanh(s) = s + s * z * P(z), z = s**2 <= 0.09: 2**-32.9.
_ATANH_F32 = (0.33333333274784793, 0.19999966361629531, 0.1428993762256177, 0.10965158506554157,
              0.10987120665671116)
# erf(x) = x + x * Q(z), z = x**2 <= 1: error of 1 + Q relative to erf(x)/x: f32 2**-34.8, f64 2**-56.0.
_ERF = {
    "f32": (0.12837916705877983, -0.37612638437201223, 0.11283782003144498, -0.02686540155907295,
            0.00522094949086191, -0.0008482886179904983, 0.00011257354122663933, -9.642651187622729e-06),
    "f64": (0.12837916709551256, -0.3761263890318352, 0.11283791670944218, -0.02686617064311601,
            0.005223977606153613, -0.0008548325930966115, 0.00012055293626019309, -1.492471324400715e-05,
            1.6447143172887311e-06, -1.6206402299335457e-07, 1.371136124724311e-08, -7.780173962886533e-10),
}
# erfc(x) * exp(x**2) = G(x - centre) on [1, 2), [2, 3), [3, 4.5), [4.5, 6]: (start, centre, coeffs).
# Relative errors 2**-54.0, 2**-48.6, 2**-45.8, 2**-26.4: each under 2**-54 of 1 - erfc(x) there.
_ERFC = (
    (1.0, 1.5, (0.3215854164543175, -0.16362291773256005, 0.07615103985547743, -0.032930905299565216,
                0.013377340953065303, -0.00514595754784019, 0.0018861348770592816, -0.000661930070062578,
                0.00022330994423765347, -7.265887346375806e-05, 2.2864308716235765e-05,
                -6.975359887174379e-06, 2.067022578959058e-06, -5.945023376889841e-07,
                1.6724962458414908e-07, -4.953918787754262e-08, 1.3135565008385134e-08)),
    (2.0, 2.5, (0.21080636406114356, -0.07434734678978167, 0.02493799708666185, -0.008001569383560624,
                0.002467036815670408, -0.0007335908904297908, 0.00021101981968705947,
                -5.8869604616360174e-05, 1.5961954433049126e-05, -4.2100437353285745e-06,
                1.0843965881048985e-06, -2.8644928220340656e-07, 7.008741974939262e-08)),
    (3.0, 3.75, (0.14558972127503844, -0.03645625753268228, 0.00887875552732987, -0.0021072828722245845,
                 0.00048822238223131096, -0.00011057954570863823, 2.45163217242562e-05,
                 -5.326850414336881e-06, 1.1353530511166017e-06, -2.370770853725776e-07,
                 4.877467102578321e-08, -1.0617848322689543e-08, 2.1025180447271344e-09)),
    (4.5, 5.25, (0.10561273548369907, -0.01944545580531283, 0.003524152322309539, -0.000628943519005743,
                 0.00011065995786079662, -1.9762145683172335e-05, 3.377975723671728e-06)),
)
# erfc(a) * exp(a**2) = G(a - centre) on [1/2, 1), [1, 2), [2, 4), [4, 8), [8, 16), [16, 27.5]:
# (start, centre, coeffs), fitted as the others; relative errors of each fit under 2**-59.
_ERFC_TAIL = (
    (0.5, 0.75, (
        0.5069376502931449, -0.3679726916557954, 0.2309581315512983, -0.12983606199487813,
        0.06679054252756783, -0.03189726204019368, 0.014289198666091785, -0.006051532258236163,
        0.002437637348879293, -0.0009385135840131843, 0.00034675112699586235, -0.00012332254905491935,
        4.236277872839012e-05, -1.4426531927022256e-05, 4.6468063021709155e-06)),
    (1.0, 1.5, (
        0.3215854164543175, -0.16362291773256005, 0.0761510398554774, -0.03293090529956527,
        0.013377340953067394, -0.0051459575478377826, 0.0018861348769919975, -0.0006619300701084315,
        0.0002233099453004411, -7.265887301589559e-05, 2.2864299608127746e-05, -6.97536222785843e-06,
        2.0670657912156654e-06, -5.944961119917664e-07, 1.6714292901928126e-07, -4.9545807838901603e-08,
        1.3242541506849586e-08)),
    (2.0, 3.0, (
        0.17900115118138996, -0.05437226000717287, 0.01588437115987136, -0.00447943101837258,
        0.0012230390523759822, -0.00032412554449670324, 8.355413963925958e-05, -2.0989464462229973e-05,
        5.146436493852072e-06, -1.2333677143104898e-06, 2.8926692938101366e-07, -6.646690382092543e-08,
        1.4977112890287265e-08, -3.312780752600577e-09, 7.206556491473509e-10, -1.539306000137148e-10,
        3.165046186861128e-11, -6.555844952443731e-12, 1.6647790649164353e-12, -3.32463503923892e-13)),
    (4.0, 6.0, (
        0.09277656780053835, -0.015060353489052321, 0.0024144468662244205, -0.0003824481944705051,
        5.987884970076073e-05, -9.270038506541105e-06, 1.4195395535806798e-06, -2.150860524044952e-07,
        3.225581030524989e-08, -4.789154205388809e-09, 7.041764094831803e-10, -1.0256213784536454e-10,
        1.4801038508056053e-11, -2.1167488762479203e-12, 2.9987116126098005e-13, -4.2148199443205474e-14,
        5.934916095594772e-15, -8.200146087896092e-16, 1.011527055502778e-16, -1.3809061281701986e-17,
        3.0539138854703963e-18, -4.067980830006641e-19)),
    (8.0, 12.0, (
        0.04685422101489376, -0.0038778627380622716, 0.0003198681581465103, -2.6296560202762363e-05,
        2.154717856665598e-06, -1.7597836911425496e-07, 1.43258091149633e-08, -1.162474206759927e-09,
        9.402964895861765e-11, -7.581872266491223e-12, 6.094395402949446e-13, -4.883562285418063e-14,
        3.9013303178917446e-15, -3.1077219506872464e-16, 2.4676561557852615e-17, -1.9478351591381003e-18,
        1.53759485090264e-19, -1.2502447719000393e-20, 9.805320874311988e-22, -5.911255209634577e-23,
        4.628432671453108e-24, -8.005162844863597e-25, 6.190266474422265e-26)),
    (16.0, 21.75, (
        0.02591242061289317, -0.0011888704346597499, 5.448865904360805e-05, -2.49473364085006e-06,
        1.1410117756139524e-07, -5.213211555778002e-09, 2.3794207363383703e-10, -1.0848986958594126e-11,
        4.941519953882212e-13, -2.2484674417429446e-14, 1.0220423535549653e-15, -4.6410207889719176e-17,
        2.1052905979177087e-18, -9.53727656160016e-20, 4.317633604193242e-21, -1.9652681112756414e-22,
        8.878743032263109e-24, -3.704780575909782e-25, 1.6710472737575418e-26, -1.1595763582335365e-27,
        5.214341942867016e-29)),
)
# gamma(z) = P(z - 2.5) on [2, 3]: 2**-59.5.
_GAMMA_2_3 = (2.5, (
    1.329340388179137, 0.9347345216260855, 0.6545585779813361, 0.2538712468411431, 0.1096732340022263,
    0.028360780594813752, 0.01039240342319837, 0.0016074004859635903, 0.0007544741843398753,
    3.941763325825312e-06, 6.132933686364514e-05, -1.2801398595590587e-05, 7.258179334692199e-06,
    -2.561960809450555e-06, 1.0654567795576118e-06, -4.1866472217648884e-07, 2.0594390312960716e-07,
    -8.228337612513728e-08))
# lgamma(z) = (z - 1)(z - 2) R(z - 1.5) on [1, 2] (its zeros factored out: relative accuracy
# near 1 and 2): 2**-59.3.
_LGAMMA_1_2 = (1.5, (
    0.4831289505409809, -0.14595989591430608, 0.06291140107456439, -0.031308487501010646, 0.01679709863127416,
    -0.009425622448525798, 0.005446457839126065, -0.0032120740737152814, 0.0019229163127905161,
    -0.0011644145847310124, 0.000711519067515296, -0.00043799307479613914, 0.00027131373861446925,
    -0.0001689178215524898, 0.00010535512483785591, -6.614136022346414e-05, 4.30276814976503e-05,
    -2.7201673025504752e-05, 1.3186019073996835e-05, -8.355075869795273e-06, 1.2140008083973407e-05,
    -7.760660152513446e-06))
# ... and R(z - 2.5) on [2, 3]: 2**-59.1.
_LGAMMA_2_3 = (2.5, (
    0.37957716063055885, -0.07466357415449941, 0.019905154304743208, -0.006018768527036914,
    0.0019490574889463365, -0.0006586397065650056, 0.00022905363747507287, -8.130229408034726e-05,
    2.929928312004998e-05, -1.0682259123883373e-05, 3.9305860909127655e-06, -1.4575541733757617e-06,
    5.436082854534496e-07, -2.015090104183497e-07, 7.585695078040205e-08, -3.385821013938236e-08,
    1.2848137769988069e-08))
# Stirling's series for lgamma: S(w) = w * P(w**2), w = 1 / x (B_2k / (2k (2k - 1))); at x >= 10
# the first term left out is under 2**-58 of S.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
_HALF_LOG_2PI = 0.9189385332046728  # log(2 pi) / 2
_SQRT_2PI = 2.5066282746310002
# sin/cos/tan are accurate up to these |x| (see _trig_reduce), NaN beyond: trig_argument_limit(ty).
TRIG_ARGUMENT_LIMITS = {"f32": 2.0**17, "f64": 2.0**43}
TRIG_ARGUMENT_LIMIT = TRIG_ARGUMENT_LIMITS["f64"]  # f64's; f32's is smaller
# 1/ln10 and log10(2) as double words (f64 log10).
_INV_LN10_DD = (0.4342944819032518, 1.098319650216765e-17)
_LOG10_2_DD = (0.30102999566398114, 5.270742310347266e-17)  # lo > 0: k's infinities add up


class _Math:
    """Typed arithmetic on one builder for a float type (scalar or vector), f32 or f64.

    ``prec`` is the precision the result is rounded to; it differs from the computing type when
    an f32 function computes in f64.
    """

    def __init__(self, builder: ir.IRBuilder, ty: ir.Type, prec: str | None = None,
                 isa: frozenset[str] = frozenset(), isa_bits: int = 512):
        self.b = builder
        self.isa, self.isa_bits = isa, isa_bits
        self.ty = ty
        self.lanes = ty.count if isinstance(ty, ir.VectorType) else None
        elem = ty.element if self.lanes else ty
        self.kind = "f64" if isinstance(elem, ir.DoubleType) else "f32"
        self.prec = prec or self.kind
        self.mant, self.bias = (52, 1023) if self.kind == "f64" else (23, 127)
        ity = ir.IntType(64 if self.kind == "f64" else 32)
        self.ity = ir.VectorType(ity, self.lanes) if self.lanes else ity

    def wide(self) -> _Math:
        elem = ir.DoubleType()
        return _Math(self.b, ir.VectorType(elem, self.lanes) if self.lanes else elem, self.prec, self.isa,
                     self.isa_bits)

    @property
    def avx512(self) -> bool:
        """Whether AVX-512's getexp, getmant and scalef may be used: only in the vector variants
        (``ISA_FUNCTIONS``), on vectors of 128 bits up to isa_bits (the target's width: 512, or
        256 where it prefers 256-bit registers)."""
        return "avx512" in self.isa and self.lanes is not None and self.lanes * self.width <= self.isa_bits

    @property
    def width(self) -> int:
        return 64 if self.kind == "f64" else 32

    def _x86(self, op: str, args: list, imm: int | None = None):
        """AVX-512 ``op`` (getexp, getmant, scalef) on this vector type: the masked form with
        all lanes on and the current rounding mode."""
        width = self.lanes * self.width
        name = f"llvm.x86.avx512.mask.{op}.{'pd' if self.kind == 'f64' else 'ps'}.{width}"
        mask = ir.IntType(16 if self.lanes == 16 else 8)
        head = [*args, *([] if imm is None else [ir.Constant(ir.IntType(32), imm)])]
        tail = [self.c(0.0), ir.Constant(mask, -1)]
        if width == 512:
            tail.append(ir.Constant(ir.IntType(32), 4))  # _MM_FROUND_CUR_DIRECTION
        module = self.b.module
        fn = module.globals.get(name) or ir.Function(
            module, ir.FunctionType(self.ty, [v.type for v in head + tail]), name)
        return self.b.call(fn, head + tail)

    def getexp(self, a):
        """floor(log2|a|) as a float: -inf at 0, inf at inf, NaN at NaN; subnormals exact."""
        return self._x86("getexp", [a])

    def getmant(self, a, imm: int):
        """a's significand in an interval (imm bits 1:0: 0 [1, 2), 1 [1/2, 2), 2 [1/2, 1),
        3 [3/4, 3/2)) with a sign (imm bits 3:2: 0 a's, 1 positive, 2 NaN for negative a);
        +-1 at +-0 and inf."""
        return self._x86("getmant", [a], imm)

    def scalef(self, a, n):
        """a * 2**floor(n), one rounding (gradual underflow, overflow to inf)."""
        return self._x86("scalef", [a, n])

    def cvtt(self, a):
        """x86's truncating f32 -> i32 conversion of each lane: 0x80000000 for NaN and out of
        range (defined, where LLVM's fptosi is poison)."""
        assert self.kind == "f32"
        args = [a]
        if self.lanes == 16:
            name = "llvm.x86.avx512.mask.cvttps2dq.512"
            args += [self.i(0), ir.Constant(ir.IntType(16), -1), ir.Constant(ir.IntType(32), 4)]
        else:
            name = {8: "llvm.x86.avx.cvtt.ps2dq.256", 4: "llvm.x86.sse2.cvttps2dq"}[self.lanes]
        module = self.b.module
        fn = module.globals.get(name) or ir.Function(
            module, ir.FunctionType(self.ity, [v.type for v in args]), name)
        return self.b.call(fn, args)

    def table16(self, idx, values: tuple[float, ...]):
        """values[idx mod 16] per lane (the index's low bits pick the entry). f32: one vpermps at
        16 lanes, vpermt2ps at 8 (two 8-entry halves), two and a select at 4. f64: one vpermt2pd
        at 8 lanes (two 8-entry halves), two and a select at 4, four and three selects at 2."""
        assert len(values) == 16
        b, module = self.b, self.b.module
        if not self.avx512:
            return self._table16_lanes(idx, values)
        if self.kind == "f64":
            return self._table16_f64(idx, values)

        def intrinsic(name, args):
            fn = module.globals.get(name) or ir.Function(
                module, ir.FunctionType(args[0].type, [a.type for a in args]), name)
            return b.call(fn, args)

        def vec(vs):
            return ir.Constant(ir.VectorType(ir.FloatType(), len(vs)), list(vs))

        if self.lanes == 16:
            return intrinsic("llvm.x86.avx512.permvar.sf.512", [vec(values), idx])
        if self.lanes == 8:
            return intrinsic("llvm.x86.avx512.vpermi2var.ps.256", [vec(values[:8]), idx, vec(values[8:])])
        low, high = (intrinsic("llvm.x86.avx512.vpermi2var.ps.128",
                               [vec(values[i:i + 4]), idx, vec(values[i + 4:i + 8])]) for i in (0, 8))
        return self.sel(b.icmp_unsigned("!=", b.and_(idx, self.i(8)), self.i(0)), high, low)

    def _table16_lanes(self, idx, values: tuple[float, ...]):
        """table16 without AVX-512's permutes, for a variant's scalar twin (the loop's remainder
        must give the vector lanes' bits): an element of a constant vector a lane."""
        b = self.b
        elem = self.ty.element if self.lanes else self.ty
        fifteen = ir.Constant(ir.IntType(self.width), 15)
        table = ir.Constant(ir.VectorType(elem, 16), list(values))
        if self.lanes is None:
            return b.extract_element(table, b.and_(idx, fifteen))
        out = ir.Constant(self.ty, ir.Undefined)
        for k in range(self.lanes):
            lane = ir.Constant(ir.IntType(32), k)
            pick = b.extract_element(table, b.and_(b.extract_element(idx, lane), fifteen))
            out = b.insert_element(out, pick, lane)
        return out

    def _table16_f64(self, idx, values: tuple[float, ...]):
        b, module = self.b, self.b.module
        part = {8: 16, 4: 8, 2: 4}[self.lanes]  # entries one two-register permute reaches
        name = f"llvm.x86.avx512.vpermi2var.pd.{self.lanes * 64}"
        fty = ir.FunctionType(self.ty, [self.ty, self.ity, self.ty])
        fn = module.globals.get(name) or ir.Function(module, fty, name)

        def vec(vs):
            return ir.Constant(self.ty, list(vs))

        half = self.lanes
        parts = [b.call(fn, [vec(values[i:i + half]), idx, vec(values[i + half:i + part])])
                 for i in range(0, 16, part)]
        while len(parts) > 1:  # pick by the index's next bit up, pairwise
            bit = self.i(part)
            on = b.icmp_unsigned("!=", b.and_(idx, bit), self.i(0))
            parts = [self.sel(on, hi, lo) for lo, hi in zip(parts[::2], parts[1::2])]
            part *= 2
        return parts[0]

    def _const(self, ty, v):
        if self.lanes:
            return ir.Constant(ir.VectorType(ty.element, self.lanes), [v] * self.lanes)
        return ir.Constant(ty, v)

    def c(self, v: float) -> ir.Constant:
        return self._const(self.ty, v)

    def pair(self, hl: tuple[float, float]) -> tuple[ir.Constant, ir.Constant]:
        """A double-double constant as a head of this type and the rest: in f32, the head
        rounded to f32 and what it leaves of the value, rounded (a double-double's own tail is
        below f32's precision)."""
        hi, lo = hl
        if self.kind == "f32":
            head = struct.unpack("f", struct.pack("f", hi))[0]
            hi, lo = head, (hi - head) + lo
        return self.c(hi), self.c(lo)

    def i(self, v: int) -> ir.Constant:
        return self._const(self.ity, v)

    def call(self, name: str, *args: ir.Value) -> ir.Value:
        suffix = f"v{self.lanes}{self.kind}" if self.lanes else self.kind
        full = f"llvm.{name}.{suffix}"
        module = self.b.module
        fn = module.globals.get(full) or ir.Function(
            module, ir.FunctionType(self.ty, [self.ty] * len(args)), full)
        return self.b.call(fn, args)

    def add(self, a, b):
        return self.b.fadd(a, b)

    def sub(self, a, b):
        return self.b.fsub(a, b)

    def mul(self, a, b):
        return self.b.fmul(a, b)

    def div(self, a, b):
        return self.b.fdiv(a, b)

    def neg(self, a):
        return self.b.fneg(a)

    def fma(self, a, b, c):
        return self.call("fma", a, b, c)

    def abs(self, a):
        return self.call("fabs", a)

    def lt(self, a, b):
        return self.b.fcmp_ordered("<", a, b)

    def ge(self, a, b):
        return self.b.fcmp_ordered(">=", a, b)

    def le(self, a, b):
        return self.b.fcmp_ordered("<=", a, b)

    def gt(self, a, b):
        return self.b.fcmp_ordered(">", a, b)

    def eq(self, a, b):
        return self.b.fcmp_ordered("==", a, b)

    def ne(self, a, b):
        return self.b.fcmp_unordered("!=", a, b)

    def isnan(self, a):
        return self.b.fcmp_unordered("uno", a, a)

    def sel(self, cond, a, b):
        return self.b.select(cond, a, b)

    def poly(self, z, coeffs):
        """Horner's rule with fma: coeffs[0] + coeffs[1] * z + ..."""
        acc = self.c(coeffs[-1])
        for k in reversed(coeffs[:-1]):
            acc = self.fma(acc, z, self.c(k))
        return acc

    def bits(self, a):
        return self.b.bitcast(a, self.ity)

    def from_bits(self, a):
        return self.b.bitcast(a, self.ty)

    def unless_any(self, mask, fast, slow, names: tuple[str, str, str]):
        """``fast()`` where no lane of the i1 vector ``mask`` is set, else ``slow()``: one
        branch per vector, weighted as rare (ordinary data never takes it), the two results
        joined by a phi. ``names``: the fast, slow and joining blocks."""
        b = self.b
        wide = ir.IntType(self.lanes)
        any_set = b.icmp_unsigned("!=", b.bitcast(mask, wide), ir.Constant(wide, 0))
        fast_block, slow_block, done = (b.block.parent.append_basic_block(n) for n in names)
        b.cbranch(any_set, slow_block, fast_block).set_weights([1, 1000])
        b.position_at_end(fast_block)
        r_fast = fast()
        fast_end = b.block
        b.branch(done)
        b.position_at_end(slow_block)
        r_slow = slow()
        slow_end = b.block
        b.branch(done)
        b.position_at_end(done)
        r = b.phi(self.ty)
        r.add_incoming(r_fast, fast_end)
        r.add_incoming(r_slow, slow_end)
        return r

    def _shifter(self) -> float:
        return 1.5 * 2.0**self.mant

    def low_int(self, n):
        """Integer-valued float n (|n| < 2**(mant-1)) -> its two's-complement low bits."""
        return self.bits(self.add(n, self.c(self._shifter())))

    def to_float(self, k):
        """Integer 0 <= k < 2**(mant-1) -> float."""
        shifter = self.c(self._shifter())
        return self.sub(self.from_bits(self.b.or_(k, self.bits(shifter))), shifter)

    def pow2(self, n, offset: int = 0):
        """2**(n + offset) for an integer-valued float n, n + offset in the normal exponent range
        (the offset costs nothing: it joins the biased shifter)."""
        e = self.bits(self.add(n, self.c(self._shifter() + self.bias + offset)))
        return self.from_bits(self.b.shl(e, self.i(self.mant)))

    def scale(self, p, n):
        """p * 2**n for p near 1 (within [1/2, 2)) and an integer-valued float n from below the
        subnormals (-(bias + mant) - 2) to past overflow (bias + 1), in two products: by
        2**(n + a), normal, then by 2**-a, with a = 64 (f32) / 600 (f64) for n < 0 and -1 for
        n >= 0. The second product rounds once (gradual underflow) or overflows; a is one
        select of constants, folded into pow2's shifter."""
        if self.avx512:
            return self.scalef(p, n)
        a_neg = 64 if self.kind == "f32" else 600
        neg = self.lt(n, self.c(0.0))
        biased = self._shifter() + self.bias
        e = self.bits(self.add(n, self.sel(neg, self.c(biased + a_neg), self.c(biased - 1))))
        first = self.from_bits(self.b.shl(e, self.i(self.mant)))
        return self.mul(self.mul(p, first), self.sel(neg, self.c(2.0**-a_neg), self.c(2.0)))


def _clamp(m: _Math, x, lo: float, hi: float):
    """x limited to [lo, hi]; NaN becomes lo (callers restore NaN at the end)."""
    x = m.sel(m.gt(x, m.c(lo)), x, m.c(lo))
    return m.sel(m.lt(x, m.c(hi)), x, m.c(hi))


def _tiny(m: _Math, x, r, quadratic: bool = False):
    """x itself where |x| is so small that f(x) rounds to x: f(x) = x + O(x**3) (sin, tan, sinh),
    or x + O(x**2) if quadratic (expm1, log1p).

    Also restores the sign of -0.0, which the reductions (0 * c + -0.0 = +0.0) lose.
    """
    limit = 2.0 ** -(m.mant + 2 if quadratic else m.mant // 2 + 1)
    return m.sel(m.lt(m.abs(x), m.c(limit)), x, r)


# ---- exp family -------------------------------------------------------------------------------

def _exp_reduce(m: _Math, x, x_lo=None, split: bool = False):
    """(u, n) with exp(x + x_lo) = (1 + u) * 2**n and |u| < 0.42, for finite x in _EXP_LIMITS;
    with split, (r, q, n) with u = r + q unrounded."""
    hi, lo = _LN2_EXP[m.kind]
    n = m.call("rint", m.mul(x, m.c(1 / _LN2)))
    r = m.fma(m.neg(n), m.c(hi), x)  # exact: |r| < 0.5 needs no more bits than x and n * hi share
    r = m.fma(m.neg(n), m.c(lo), r)
    if x_lo is not None:
        r = m.add(r, x_lo)
    if split:
        return r, m.mul(m.mul(r, r), m.poly(r, _EXP[m.prec])), n
    return m.fma(m.mul(r, r), m.poly(r, _EXP[m.prec]), r), n


def _exp(m: _Math, x):
    xc = _clamp(m, x, *_EXP_LIMITS[m.kind])
    # 2**(j/16) from a table, 6 terms in place of 10: in the AVX-512 variants and in their
    # scalar twin (the loop's remainder), whose bits must be the vector lanes'
    if m.kind == "f64" and "avx512" in m.isa:
        return m.sel(m.isnan(x), x, _pow_f64_x86_exp(m, xc))
    u, n = _exp_reduce(m, xc)
    return m.sel(m.isnan(x), x, m.scale(m.add(u, m.c(1.0)), n))


def _exp2(m: _Math, x):
    lo, hi = _EXP_LIMITS[m.kind]
    xc = _clamp(m, x, lo / _LN2, hi / _LN2)
    n = m.call("rint", xc)
    r = m.mul(m.sub(xc, n), m.c(_LN2))  # x - n is exact; the product costs under 0.4 ULP
    p = m.fma(m.mul(r, r), m.poly(r, _EXP[m.prec]), m.add(r, m.c(1.0)))
    return m.sel(m.isnan(x), x, m.scale(p, n))


def _expm1_parts(m: _Math, x):
    """(small, big) for x clamped below: e**x - 1 as 2**n * u + (2**n - 1), exact enough while
    2**n is representable and the -1 matters, and as e**x for large x."""
    r, q, n = _exp_reduce(m, x, split=True)
    # n <= max_exp (x is clamped below overflow's threshold + 1), so 2**(n - 1) is normal: p =
    # 2**n is inf only for n = max_exp, where big is taken; big = (1 + u) 2**(n - 1) * 2 overflows
    # only where e**x does (one product for the two steps m.scale takes).
    half = m.pow2(n, -1)
    p = m.add(half, half)
    # 2**n * r + (2**n - 1) with its rounding error e kept: 2**n * u + 2**n - 1 = t + (2**n * q + e).
    t, e = _two_sum(m, m.mul(r, p), m.sub(p, m.c(1.0)))
    small = m.add(t, m.fma(q, p, e))
    return small, m.mul(m.mul(m.add(m.add(r, q), m.c(1.0)), half), m.c(2.0))


def _expm1(m: _Math, x):
    # e**x - 1 is -1 to working precision below -(mant + 8) * ln2.
    xc = _clamp(m, x, -(m.mant + 8) * _LN2, _EXP_LIMITS[m.kind][1])
    small, big = _expm1_parts(m, xc)
    r = m.sel(m.lt(xc, m.c((m.mant + 2) * _LN2)), small, big)
    return _tiny(m, x, m.sel(m.isnan(x), x, r), quadratic=True)


def _half_exp(m: _Math, a):
    """e**a / 2 for 0 <= a <= _HYPERBOLIC_CLAMP, without premature overflow: (1 + u) 2**(n - 2)
    (normal: n <= max_exp + 1 there), then times 2, which overflows only where e**a / 2 does."""
    u, n = _exp_reduce(m, a)
    return m.mul(m.mul(m.add(u, m.c(1.0)), m.pow2(n, -2)), m.c(2.0))


# cosh and sinh overflow past 89.416 (f32) / 710.476 (f64); clamped just past that.
_HYPERBOLIC_CLAMP = {"f32": 89.5, "f64": 710.5}


def _cosh(m: _Math, x):
    a = _clamp(m, m.abs(x), 0.0, _HYPERBOLIC_CLAMP[m.kind])
    h = _half_exp(m, a)
    return m.sel(m.isnan(x), x, m.add(h, m.div(m.c(0.25), h)))


def _sinh(m: _Math, x):
    a = _clamp(m, m.abs(x), 0.0, _HYPERBOLIC_CLAMP[m.kind])
    h = _half_exp(m, a)
    big = m.sub(h, m.div(m.c(0.25), h))
    # Below 1, the Taylor series a + a * z * S(z), z = a**2 (terms to a**13 / a**19: relative
    # error 2**-33 / 2**-57), avoids the cancellation of e**a - e**-a.
    z = m.mul(a, a)
    terms = 6 if m.prec == "f32" else 9
    small = m.fma(m.mul(a, z), m.poly(z, tuple(1 / math.factorial(2 * k + 3) for k in range(terms))), a)
    r = m.call("copysign", m.sel(m.lt(a, m.c(1.0)), small, big), x)
    return _tiny(m, x, m.sel(m.isnan(x), x, r))


def _tanh(m: _Math, x, fast: bool = False):
    a = m.abs(x)
    z = m.mul(a, a)
    small = m.fma(m.mul(a, z), m.poly(z, (_TANH_FAST if fast else _TANH)[m.prec]), a)
    # e = exp(2a) = 2**n * (1 + u): the fma with the biased shifter rounds 2a / ln2 to n once and
    # leaves 2**n's exponent field in its low bits (n <= 28: no scaling steps needed).
    a2 = m.add(a, a)
    a2 = m.sel(m.lt(a2, m.c(2 * _TANH_ONE[m.prec])), a2, m.c(2 * _TANH_ONE[m.prec]))  # NaN: poly side
    biased = m._shifter() + m.bias
    ns = m.fma(a2, m.c(1 / _LN2), m.c(biased))
    n = m.sub(ns, m.c(biased))
    hi, lo = _LN2_EXP[m.kind]
    r = m.fma(m.neg(n), m.c(lo), m.fma(m.neg(n), m.c(hi), a2))
    u = m.fma(m.mul(r, r), m.poly(r, (_EXP_FAST if fast else _EXP)[m.prec]), r)
    p = m.from_bits(m.b.shl(m.bits(ns), m.i(m.mant)))  # 2**n; e = p (1 + u)
    big = m.sub(m.c(1.0), m.div(m.c(2.0), m.fma(u, p, m.add(p, m.c(1.0)))))  # 1 - 2 / (e + 1)
    cut = (_TANH_POLY_FAST if fast else _TANH_POLY)[m.prec]
    use_poly = m.b.fcmp_unordered("<", a, m.c(cut))  # NaN takes this side
    return m.call("copysign", m.sel(use_poly, small, big), x)


# ---- log family -------------------------------------------------------------------------------

def _log_reduce(m: _Math, x, low: bool = False):
    """(k, f) with x = 2**k * (1 + f) and sqrt(1/2) <= 1 + f < sqrt2 (low: 3/4 <= 1 + f < 3/2), for
    finite x > 0."""
    tiny = m.lt(x, m.c(_MIN_NORMAL[m.kind]))
    xs = m.sel(tiny, m.mul(x, m.c(2.0 ** (m.mant + 2))), x)
    width = 64 if m.kind == "f64" else 32
    start = (_THREE_QUARTERS_BITS if low else _SQRT_HALF_BITS)[m.kind]
    ix = m.b.sub(m.bits(xs), m.i(start))
    # k + 2**(width - 2 - mant): the offset keeps the shift logical (no 64-bit ashr on AVX2).
    k_off = m.b.lshr(m.b.add(ix, m.i(1 << (width - 2))), m.i(m.mant))
    k = m.sub(m.to_float(k_off), m.sel(tiny, m.c(2.0 ** (width - 2 - m.mant) + m.mant + 2),
                                        m.c(2.0 ** (width - 2 - m.mant))))
    mbits = m.b.add(m.b.and_(ix, m.i((1 << m.mant) - 1)), m.i(start))
    return k, m.sub(m.from_bits(mbits), m.c(1.0))


def _log_reduce_x86(m: _Math, x, low: bool = False):
    """_log_reduce's (k, f) for every x, from getexp and getmant (AVX-512 vector variants): the
    same split, so the same results for finite x > 0, and k carries the special values: -inf at
    +-0, inf at inf, NaN at NaN, with f finite there; f is NaN for x < 0 (getmant's sign
    control), so the log family needs no selects for them."""
    if low:  # [3/4, 3/2) is one of getmant's intervals: x = 2**(e + 1) * mant / 2 where mant < 1
        mant = m.getmant(x, 8 | 3)
        e = m.getexp(x)
        return m.sel(m.lt(mant, m.c(1.0)), m.add(e, m.c(1.0)), e), m.sub(mant, m.c(1.0))
    mant = m.getmant(x, 8)  # [1, 2), NaN for negative x
    big = m.ge(mant, m.c(2 * _SQRT_HALF[m.kind]))
    k = m.getexp(x)
    return m.sel(big, m.add(k, m.c(1.0)), k), m.sub(m.sel(big, m.mul(mant, m.c(0.5)), mant), m.c(1.0))


def _log_parts(m: _Math, x):
    """(k, f, hfsq, tail) with x = 2**k * (1 + f) and log(1 + f) = f - (hfsq - tail), hfsq =
    f**2 / 2. f32: tail = f**3 * P(f), a polynomial in f itself (_LOG_F), no division. f64:
    tail = s * (hfsq + R(s**2)) with s = f / (2 + f) (_LOG): a division and 7 terms, which
    measured faster than the 19 terms f64 needs in f (on Zen 5, 0.82-0.89x: its divider is
    not what limits log there)."""
    k, f = (_log_reduce_x86 if m.avx512 else _log_reduce)(m, x)
    f2 = m.mul(f, f)
    hfsq = m.mul(m.c(0.5), f2)
    if m.kind == "f32":
        return k, f, hfsq, m.mul(m.mul(f2, f), _even_odd_poly(m, f, f2, _LOG_F["f32"]))
    s = m.div(f, m.add(f, m.c(2.0)))
    z = m.mul(s, s)
    # log(1 + f) = 2s + s * R = f - hfsq + s * (hfsq + R), since 2s = f - s * f.
    return k, f, hfsq, m.mul(s, m.fma(z, m.poly(z, _LOG[m.prec]), hfsq))


def _even_odd_poly(m: _Math, x, x2, coeffs):
    """coeffs[0] + coeffs[1] * x + ... as E(x**2) + x * O(x**2): two Horner chains half as
    long, which overlap (a long polynomial's latency, not its fmas, is what costs)."""
    return m.fma(m.poly(x2, coeffs[1::2]), x, m.poly(x2, coeffs[0::2]))


def _log_special(m: _Math, x, r):
    """log-like result r fixed up for x = 0 (-inf), x < 0 or NaN (NaN) and x = inf (inf); with
    AVX-512 (_log_reduce_x86) r is already right."""
    if m.avx512:
        return r
    inf = m.c(math.inf)
    r = m.sel(m.gt(x, m.c(0.0)), r, m.sel(m.eq(x, m.c(0.0)), m.neg(inf), m.c(math.nan)))
    return m.sel(m.eq(x, inf), inf, r)


def _log(m: _Math, x):
    return _log_special(m, x, _log_sum(m, *_log_parts(m, x)))


def _log_sum(m: _Math, k, f, hfsq, tail):
    """k ln2 + f - (hfsq - tail), ln2 in two parts."""
    hi, lo = _LN2_LOG[m.kind]
    return m.fma(k, m.c(hi), m.sub(f, m.sub(hfsq, m.fma(k, m.c(lo), tail))))


def _log_table_x86(m: _Math, x, name: str):
    """f32 log2 or log10 on AVX-512 vectors: k and m = 1 + f in [3/4, 3/2) from getexp/getmant
    (k carries 0, inf and NaN, m is NaN for x < 0), then k log(2) - log(rcp) + r Q(r) with
    r = m rcp - 1 (_LOG_TABLE): |r| < 0.042 takes 5 terms where f Q(f) takes 10. The table's
    entries are exact to 2**-35, so log(m) carries one rounding (and r's) into k + log(m)."""
    k, f = _log_reduce_x86(m, x, low=True)
    mant = m.add(f, m.c(1.0))  # exact; folded into getmant's result by LLVM
    idx = m.bits(m.fma(mant, m.c(16.0), m.c(m._shifter() - 16.0)))  # j = rint(16 (m - 1)) mod 16
    rcp, log_rcp = _LOG_TABLE[name]
    r = m.fma(mant, m.table16(idx, rcp), m.c(-1.0))
    lg = m.fma(r, m.poly(r, _LOG_TABLE_Q[name]), m.table16(idx, log_rcp))
    if name == "log2":
        return m.add(k, lg)
    hi = float.fromhex("0x1.344p-2")  # log10(2) = hi + lo, k * hi exact
    return m.fma(k, m.c(hi), m.fma(k, m.c(math.log10(2) - hi), lg))


def _log2(m: _Math, x):
    if m.kind == "f32" and m.avx512:
        return _log_table_x86(m, x, "log2")
    if m.kind == "f32":
        k, f = (_log_reduce_x86 if m.avx512 else _log_reduce)(m, x, low=True)
        return _log_special(m, x, m.fma(f, m.poly(f, _LOG2_F32), k))
    k, f, hfsq, tail = _log_parts(m, x)
    return _log_special(m, x, m.fma(m.sub(f, m.sub(hfsq, tail)), m.c(1 / _LN2), k))


def _log10(m: _Math, x):
    if m.kind == "f32" and m.avx512:
        return _log_table_x86(m, x, "log10")
    if m.kind == "f32":
        k, f = (_log_reduce_x86 if m.avx512 else _log_reduce)(m, x, low=True)
    else:
        k, f, hfsq, tail = _log_parts(m, x)
    if m.kind == "f64":
        return _log_special(m, x, _log10_f64(m, k, f, hfsq, tail))
    lg2 = math.log10(2)
    lg2_hi = float.fromhex("0x1.344p-2")  # k * lg2_hi is exact
    # f c0 rounded once inside the sum: the rest, f**2 Q1(f) + k lg2_lo, is a third of it or less
    tail = m.fma(m.mul(f, f), m.poly(f, _LOG10_F32[1:]), m.mul(k, m.c(lg2 - lg2_hi)))
    y = m.fma(f, m.c(_LOG10_F32[0]), tail)
    return _log_special(m, x, m.fma(k, m.c(lg2_hi), y))


def _log10_f64(m: _Math, k, f, hfsq, tail):
    """k log10(2) + (f - (hfsq - tail)) / ln10 with f / ln10 (f is exact) rounded once inside the
    sum and 1/ln10, log10(2) as double words: the rest is small beside it. (FreeBSD's exact
    sums with cut constants, kept until session 27, cost twice the operations and measured
    0.8-0.9x NumPy on Zen 4; this is within 1 ULP of NumPy as they were.)"""
    iv_hi, iv_lo = _INV_LN10_DD
    lg_hi, lg_lo = _LOG10_2_DD
    rest = m.fma(m.neg(m.sub(hfsq, tail)), m.c(iv_hi), m.fma(f, m.c(iv_lo), m.mul(k, m.c(lg_lo))))
    return m.fma(k, m.c(lg_hi), m.fma(f, m.c(iv_hi), rest))


def _log1p(m: _Math, x):
    u = m.add(x, m.c(1.0))
    # log(1 + x) = log(u) + (1 + x - u) / u to first order; the correction is NaN only where
    # u is 0 or inf, where log(u) is already right. (Its division measured cheaper than
    # 2**-k * (1 - f + f**2 - ...) from log's reduction: 0.83x f32, 0.90x f64 without it.)
    c = m.div(m.sub(x, m.sub(u, m.c(1.0))), u)
    r = m.add(_log(m, u), m.sel(m.isnan(c), m.c(0.0), c))
    return _tiny(m, x, r, quadratic=True)


# ---- trigonometric ----------------------------------------------------------------------------

def trig_argument_limit(ty: ir.Type) -> float:
    """Largest |x| for which sin/cos/tan of float type ``ty`` (scalar or vector) are accurate;
    beyond it they return NaN and the code generator recomputes the kernel with libm."""
    elem = ty.element if isinstance(ty, ir.VectorType) else ty
    return TRIG_ARGUMENT_LIMITS["f64" if isinstance(elem, ir.DoubleType) else "f32"]


def _trig_reduce(m: _Math, x):
    """(q, r_hi, r_lo): x = n * pi/2 + r_hi + r_lo with q's low two bits n mod 4, |r_hi| <= pi/4 + 0.006
    and r_hi + r_lo accurate to ~2**-70 (f64) / 2**-48 (f32) relative for |x| <= the trig limit.

    Cody-Waite with pi/2 in three pieces: x - n * p1 is exact (inside fma), n * p2 is split exactly
    (fma) and subtracted with two_sum, so that the rounding of r is kept in r_lo. n comes from one
    fma with the shifter, which also leaves n's low bits in the integer view."""
    shifter = m.c(m._shifter())
    ns = m.fma(x, m.c(2 / math.pi), shifter)
    n = m.sub(ns, shifter)
    p1, p2, p3 = _PIO2[m.kind]
    r1 = m.fma(m.neg(n), m.c(p1), x)  # exact
    p = m.mul(n, m.c(p2))
    p_lo = m.fma(n, m.c(p2), m.neg(p))
    r_hi, e = _two_sum(m, r1, m.neg(p))
    r_lo = m.fma(m.neg(n), m.c(p3), m.sub(e, p_lo))
    return m.bits(ns), r_hi, r_lo


def _sin_cos_dd(m: _Math, r_hi, r_lo):
    """sin and cos of r_hi + r_lo, each as an unevaluated sum (hi, lo): sin = r_hi + tail,
    cos = (1 - z/2 rounded) + the rest, with z's rounding error and r_lo's first-order terms kept."""
    z = m.mul(r_hi, r_hi)
    h = m.mul(z, m.c(0.5))
    c0 = m.sub(m.c(1.0), h)
    c0_err = m.sub(m.sub(m.c(1.0), c0), h)  # exact: 1 >= h
    z_err = m.fma(r_hi, r_hi, m.neg(z))
    s_lo = m.fma(m.mul(r_hi, z), m.poly(z, _SIN[m.prec]), m.mul(r_lo, c0))
    c_lo = m.fma(m.mul(z, z), m.poly(z, _COS[m.prec]),
                 m.fma(m.neg(r_lo), r_hi, m.fma(m.c(-0.5), z_err, c0_err)))
    return (r_hi, s_lo), (c0, c_lo)


def _fast_two_sum(m: _Math, a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly, for |a| >= |b| (Dekker)."""
    s = m.add(a, b)
    return s, m.sub(b, m.sub(s, a))


def _tan_f32(m: _Math, x):
    """f32 tan from its own polynomial, no sin and cos: tan(r_hi + r_lo) = r_hi + t_lo with t_lo =
    r_hi z P(z) + r_lo (1 + z) (r_lo to first order; 1 + z for 1 + tan**2 costs under 0.12
    ULP), and -1 / (r_hi + t_lo) in odd quadrants from one reciprocal of the rounded sum,
    corrected by the sum's error and the reciprocal's remainder."""
    q, r_hi, r_lo = _trig_reduce(m, x)
    z = m.mul(r_hi, r_hi)
    t_lo = m.fma(m.mul(r_hi, z), _even_odd_poly(m, z, m.mul(z, z), _TAN_F32), m.fma(r_lo, z, r_lo))
    t, t_err = _fast_two_sum(m, r_hi, t_lo)  # |t_lo| <= 0.3 |r_hi|
    rcp = m.div(m.c(1.0), t)
    e = m.fma(m.neg(t_err), rcp, m.fma(m.neg(t), rcp, m.c(1.0)))  # 1 - (t + t_err) rcp
    odd = m.b.icmp_unsigned("!=", m.b.and_(q, m.i(1)), m.i(0))
    r = m.sel(odd, m.neg(m.fma(rcp, e, rcp)), t)
    r = m.sel(m.le(m.abs(x), m.c(TRIG_ARGUMENT_LIMITS[m.kind])), r, m.c(math.nan))  # also inf and NaN
    return _tiny(m, x, r)


def _trig(m: _Math, name: str, x):
    if name == "tan" and m.kind == "f32":
        return _tan_f32(m, x)
    q, r_hi, r_lo = _trig_reduce(m, x)
    if name == "cos":
        q = m.b.add(q, m.i(1))
    (s_hi, s_lo), (c_hi, c_lo) = _sin_cos_dd(m, r_hi, r_lo)
    odd = m.b.icmp_unsigned("!=", m.b.and_(q, m.i(1)), m.i(0))
    if name == "tan":
        (s_hi, s_lo), (c_hi, c_lo) = _fast_two_sum(m, s_hi, s_lo), _fast_two_sum(m, c_hi, c_lo)
        # sin / cos (or -cos / sin) with the quotient corrected to the double-double operands.
        num_hi, num_lo = m.sel(odd, m.neg(c_hi), s_hi), m.sel(odd, m.neg(c_lo), s_lo)
        den_hi, den_lo = m.sel(odd, s_hi, c_hi), m.sel(odd, s_lo, c_lo)
        # One reciprocal: t = num_hi / den_hi to a rounding or two, and the remainder (exact)
        # with the low parts corrects it (the correction is ~2**-mant of t: its own error is not
        # seen).
        rcp = m.div(m.c(1.0), den_hi)
        t = m.mul(num_hi, rcp)
        rem = m.fma(m.neg(t), den_hi, num_hi)  # exact
        r = m.add(t, m.mul(m.fma(m.neg(t), den_lo, m.add(rem, num_lo)), rcp))
    else:
        r = m.add(m.sel(odd, c_hi, s_hi), m.sel(odd, c_lo, s_lo))
        r = m.sel(m.b.icmp_unsigned("!=", m.b.and_(q, m.i(2)), m.i(0)), m.neg(r), r)
    r = m.sel(m.le(m.abs(x), m.c(TRIG_ARGUMENT_LIMITS[m.kind])), r, m.c(math.nan))  # also inf and NaN
    return r if name == "cos" else _tiny(m, x, r)


# ---- pow --------------------------------------------------------------------------------------

def _two_sum(m: _Math, a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = m.add(a, b)
    bb = m.sub(s, a)
    return s, m.add(m.sub(a, m.sub(s, bb)), m.sub(b, bb))


def _log_double(w: _Math, x):
    """log(x) as a double-double (hi, lo), relative error ~2**-64, for finite f64 x > 0.

    Like _log_parts, but the mantissa is further divided by c = j/8 nearest to it (j = 6..11,
    log(c) chosen by selects), which shrinks |s| below 0.046 so that the rounding errors of the
    polynomial tail s**3 * P(s**2) stay below 2**-64 of the result.
    """
    k, f = _log_reduce(w, x)
    mant = w.add(f, w.c(1.0))
    j = w.call("rint", w.mul(mant, w.c(8.0)))
    c = w.mul(j, w.c(0.125))
    num = w.sub(mant, c)  # exact (Sterbenz)
    den, den_err = _two_sum(w, mant, c)
    s = w.div(num, den)
    s_lo = w.div(w.sub(w.fma(w.neg(s), den, num), w.mul(s, den_err)), den)
    z = w.mul(s, s)
    # Taylor series of log((1+s)/(1-s)) = 2s + s*z*(2/3 + 2z/5 + ...): on z < 0.0021 six terms
    # are 2**-56 accurate relative to the tail itself (the minimax _LOG is only relative to 2s).
    tail = w.mul(w.mul(s, z), w.poly(z, tuple(2 / (2 * i + 3) for i in range(6))))
    lc_hi, lc_lo = w.c(0.0), w.c(0.0)
    for jj, (hi, lo) in _LOG_EIGHTHS.items():
        is_j = w.eq(j, w.c(float(jj)))
        lc_hi, lc_lo = w.sel(is_j, w.c(hi), lc_hi), w.sel(is_j, w.c(lo), lc_lo)
    ln2_hi, ln2_lo = _LN2_LOG["f64"]
    h, e1 = _two_sum(w, w.mul(k, w.c(ln2_hi)), lc_hi)  # k * ln2_hi is exact
    h, e2 = _two_sum(w, h, w.add(s, s))
    lo = w.fma(k, w.c(ln2_lo), w.add(w.add(e1, e2), w.add(lc_lo, w.fma(w.c(2.0), s_lo, tail))))
    hi = w.add(h, lo)
    return hi, w.sub(lo, w.sub(hi, h))  # renormalized: |lo| <= ulp(hi) / 2


def _clamp_nan(m: _Math, x, lo: float, hi: float):
    """x limited to [lo, hi], NaN kept."""
    x = m.sel(m.lt(x, m.c(lo)), m.c(lo), x)
    return m.sel(m.gt(x, m.c(hi)), m.c(hi), x)


def _exp2_coeffs(prec: str) -> tuple[float, ...]:
    """2**d = exp(d ln2) as one polynomial in d: _EXP's coefficients times powers of ln2 (the
    same approximation, without the product r = d ln2 and the split 1 + r + r**2 P(r))."""
    return (1.0, _LN2, *(c * _LN2 ** (k + 2) for k, c in enumerate(_EXP[prec])))


# f32 pow in f32 lanes (_pow_f32_x86): -ln(rcp) for _LOG_TABLE's log2 rcp entries as a head on
# a grid of 2**-16 (so that k ln2_hi + head is exact, k ln2_hi with _LN2_LOG's 17-bit head) and
# the rest in f32; ln(1 + r) - (r - r**2/2) = r**3 P(r) on [-0.0388, 0.0421] (Lawson-reweighted,
# coefficients rounded to f32: 2**-34.5 of ln(1 + r); Taylor needs 5 terms for 2**-35).
_POW_LOG_F32 = (
    (0.0, 0.0606689453125, 0.11767578125, 0.1720123291015625, 0.2230987548828125, 0.27197265625,
     0.318511962890625, 0.3627166748046875, 0.4052276611328125, 0.0, 0.0, 0.0, -0.2879180908203125,
     -0.207489013671875, -0.133697509765625, -0.0644073486328125),
    (0.0, -6.328538347588619e-06, 5.797546691610478e-06, 5.471889835462207e-06, 6.262770966714015e-06,
     2.347478357478394e-06, -6.381837465596618e-06, -4.907246875518467e-06, -2.8769153459506924e-07,
     0.0, 0.0, 0.0, -1.7162983567686751e-06, 1.6895482986001298e-06, 2.9478376291081076e-06,
     2.1221350721134513e-07),
)
_LOG_TAIL_F32 = (0.333333182610143, -0.2500011685470357, 0.2003133920541638, -0.16582589379987675)


def _pow_f32_x86(m: _Math, x, y):
    """f32 pow on AVX-512 vectors, every step in f32 lanes (no f64 halves). ln|x| as a double
    word: |x| = 2**k m, m in [3/4, 3/2) from getexp/getmant, r = m rcp - 1 exact as a + b (p = m
    rcp, b its fma error, a = p - 1), and ln|x| = (k ln2_hi + L_hi) + (r - r**2/2) + (k ln2_lo +
    L_lo + r**3 P(r)) (_POW_LOG_F32: the first sum exact, r - r**2/2 with its rounding error from
    one more fma, the head's sum by a fast two-sum: |k ln2_hi + L_hi| > |r - r**2/2| where it is
    not 0), relative error ~2**-34; t = y ln|x| as a double word; exp(t) = 2**n (1 + d Q(d)),
    d = t - n ln2 (Cody-Waite, exact), rounded once, and scalef by n. k carries 0, inf and NaN
    (getexp's -inf, inf, NaN) as _pow's edge_log; x = 1 takes t as 0, and the sign, NaN and
    y = 0 cases follow in _pow_sign_x86.

    Those special cases are a rare path (_pow_f32_x86_selects): where every lane has x > 0 and
    -110 <= y ln|x| <= 90 (so y finite, x neither 0, inf nor NaN, no clamp), the sign, clamp and
    1**y selects change nothing and the exp runs without them; one branch on any lane outside
    (well predicted on real data). The results are bit-identical to the selects' everywhere."""
    l_hi, l_lo = _pow_f32_x86_ln(m, x)
    t = m.mul(y, l_hi)

    # t in range: the selects' clamp and t_lo select keep t and t_lo (t_lo is 0 at |x| = 1)
    return _pow_rare_path(m, x, t, (-110.0, 90.0),
                          lambda: _pow_f32_x86_exp(m, t, m.fma(y, l_lo, m.fma(y, l_hi, m.neg(t)))),
                          lambda: _pow_f32_x86_selects(m, x, y, l_hi, l_lo))


def _pow_f32_x86_exp(m: _Math, t, t_lo):
    """exp(t + t_lo) for t in [-110, 90]: n = rint(t / ln2), d = t - n ln2 (the first difference
    exact) + t_lo, 2**n (1 + d Q(d)) rounded once, by scalef."""
    shifter = m.c(m._shifter())
    n = m.sub(m.fma(t, m.c(1 / _LN2), shifter), shifter)  # rint(t / ln2)
    e_hi, e_lo = _LN2_EXP["f32"]
    d = m.fma(m.neg(n), m.c(e_hi), t)  # exact
    d = m.add(m.fma(m.neg(n), m.c(e_lo), d), t_lo)
    return m.scalef(m.fma(d, m.poly(d, (1.0, *_EXP["f32"])), m.c(1.0)), n)


def _pow_rare_path(m: _Math, x, t, limits, fast, slow):
    """The pow variants' one branch: ``fast()`` where every lane has x's sign bit clear and
    t = y ln|x| within ``limits`` (NumPy's special cases change nothing there), ``slow()`` (the
    selects) where any lane is outside: x negative, -0 or -NaN, t out of range or NaN (x = +0,
    inf, NaN; y inf or NaN; 0 * inf at 1**inf). Weighted as rare: real data never takes it."""
    b = m.b
    lo, hi = limits
    out = b.or_(b.fcmp_unordered("<", t, m.c(lo)), b.fcmp_unordered(">", t, m.c(hi)))
    out = b.or_(out, b.icmp_signed("<", m.bits(x), m.i(0)))
    return m.unless_any(out, fast, slow, ("pow_fast", "pow_special", "pow_done"))


def _pow_f32_x86_ln(m: _Math, x):
    """ln|x| as a double word (l_hi, l_lo) for _pow_f32_x86."""
    one = m.c(1.0)
    mant = m.getmant(x, 4 | 3)  # |x|'s significand in [3/4, 3/2); 1 at 0 and inf
    e = m.getexp(x)
    k = m.sel(m.lt(mant, one), m.add(e, one), e)
    # rint(16 m) mod 16 in the low bits of m + 1.5 * 2**19 (its ulp is 1/16): an add where an fma
    # would do, one operation fewer on Zen 4's fma pipes
    idx = m.bits(m.add(mant, m.c(m._shifter() / 16)))
    c = m.table16(idx, _LOG_TABLE["log2"][0])
    p = m.mul(mant, c)
    b = m.fma(mant, c, m.neg(p))  # exact
    a = m.sub(p, one)  # exact (Sterbenz); r = a + b
    half_a = m.mul(a, m.c(-0.5))
    u = m.fma(half_a, a, a)  # a - a**2/2, rounded
    u_lo = m.add(m.fma(half_a, a, m.sub(a, u)), m.fma(m.neg(a), b, b))  # its error, + b - a b
    r1 = m.add(a, b)
    tail = m.fma(m.mul(m.mul(r1, r1), r1), m.poly(r1, _LOG_TAIL_F32), u_lo)
    ln2_hi, ln2_lo = _LN2_LOG["f32"]
    head = m.fma(k, m.c(ln2_hi), m.table16(idx, _POW_LOG_F32[0]))  # exact
    low = m.fma(k, m.c(ln2_lo), m.table16(idx, _POW_LOG_F32[1]))
    l_hi = m.add(head, u)
    l_lo = m.add(m.add(m.sub(head, l_hi), u), m.add(tail, low))  # NaN where k is not finite: dropped
    return l_hi, l_lo


def _pow_f32_x86_selects(m: _Math, x, y, l_hi, l_lo):
    """_pow_f32_x86's exp and special values, every lane handled (the rare path)."""
    zero = m.c(0.0)
    # l_hi is 0 exactly where |x| = 1 (k, the table's 0 entry and r all 0): t = 0 there, so that
    # 1**y = 1 also for y inf and NaN (one compare; the selects become masked operations). Taking
    # t as 0 for y = 0 as well measured 6 instructions more per 4 vectors (a mask or).
    one_x = m.eq(l_hi, zero)
    t = m.sel(one_x, zero, m.mul(y, l_hi))
    t_lo = m.fma(y, l_lo, m.fma(y, l_hi, m.neg(t)))
    tc = _clamp_nan(m, t, -110.0, 90.0)  # past underflow (2**-150) and overflow
    t_lo = m.sel(m.b.and_(m.eq(tc, t), m.b.not_(one_x)), t_lo, zero)
    return _pow_sign_x86(m, x, y, _pow_f32_x86_exp(m, tc, t_lo))


def _pow_sign_x86(m: _Math, x, y, mag):
    """_pow_sign for f32 AVX-512 vectors in fewer operations: the sign bit of x where y is an
    odd integer from the low bit of x86's truncating conversion (m.cvtt: every float at or above
    2**24 is even, and the conversion gives 0x80000000, even, past 2**31 and for NaN) moved to
    bit 31 and xor-ed in; negative finite x as one unsigned compare of its bits."""
    b = m.b
    y_int = m.eq(m.call("trunc", y), y)
    sign = b.and_(b.shl(m.cvtt(y), m.i(31)), m.bits(x))
    r = m.sel(y_int, m.from_bits(b.xor(m.bits(mag), sign)), mag)
    # -inf < x < -0: bits 0x80000001 to 0xFF7FFFFF
    neg_finite = b.icmp_unsigned("<", b.sub(m.bits(x), m.i(0x80000001 - 2**32)), m.i(0xFF800000 - 0x80000001))
    r = m.sel(b.and_(neg_finite, b.not_(y_int)), m.c(math.nan), r)  # also catches y NaN
    return m.sel(m.eq(y, m.c(0.0)), m.c(1.0), r)


# f64 pow on AVX-512 (_pow_f64_x86). log: 16 entries by j = rint(16 m) mod 16, m in [3/4, 3/2):
# rcp = 1 / (centre of m's interval) (1 for j = 0, so that log is exact near 1) and -ln(rcp) as
# a head on a grid of 2**-42 (so that k ln2_hi + head is exact, ln2_hi with 42 bits) and the
# rest; |m rcp - 1| <= 0.0385. Entries 9 to 11 are not reached.
_POW_LOG_F64 = (
    (1.0, 0.9411764705882353, 0.8888888888888888, 0.8421052631578947, 0.8, 0.7619047619047619,
     0.7272727272727273, 0.6956521739130435, 0.6736842105263158, 1.0, 1.0, 1.0, 1.3061224489795917,
     1.2307692307692308, 1.1428571428571428, 1.0666666666666667),
    (0.0, 0.06062462181648698, 0.11778303565643, 0.17185025692674571, 0.22314355131425145,
     0.2719337154835557, 0.31845373111855224, 0.3629054936893681, 0.3949938082407698, 0.0, 0.0, 0.0,
     -0.2670627852489815, -0.20763936477828793, -0.13353139262449076, -0.0645385211375924),
    (0.0, -5.2122328603557226e-14, -4.649178632475319e-14, -8.643688492088945e-14, -4.175347699650321e-14,
     8.609857887931859e-14, -1.765318688778829e-14, 3.9484127277912274e-16, 9.92058649310271e-14, 0.0,
     0.0, 0.0, -6.363967541826173e-14, 4.3369911444011306e-14, -3.1804225197847076e-14,
     2.1239485832617812e-14),
)
_POW_LN2_F64 = (float.fromhex("0x1.62e42fefa3800p-1"), 5.497923018708371e-14)  # head: 42 bits
# ln(1 + r) - (r - r**2/2 + r**3/3) = r**4 P(r) on |r| <= 0.0385: 2**-68.7 of r (Lawson-reweighted,
# 1/3 taken as a double word).
_POW_LOG_TAIL_F64 = (-0.2500000000000001, 0.1999999999999377, -0.16666666666574234, 0.1428571431567244,
                     -0.12500000180381626, 0.11111062753741582, -0.09999854586246354, 0.09123223451719939,
                     -0.08386244766528062)
_THIRD = (1 / 3, 1.850371707708594e-17)  # 1/3 - fl(1/3)
# exp: 2**(j/16) as double-doubles; ln2 with a 38-bit head (n/16 ln2_hi exact for |n/16| < 2**11);
# exp(d) - 1 - d = d**2 Q(d) on |d| <= 0.0218: 2**-64.8.
_POW_EXP2_F64 = (
    (1.0, 1.0442737824274138, 1.0905077326652577, 1.1387886347566916, 1.189207115002721, 1.241857812073484,
     1.2968395546510096, 1.3542555469368927, 1.4142135623730951, 1.4768261459394993, 1.5422108254079407,
     1.6104903319492543, 1.681792830507429, 1.7562521603732995, 1.8340080864093424, 1.9152065613971474),
    (0.0, 8.551889705537965e-17, -3.046782079812471e-17, 8.912812676025408e-17, 3.982015231465646e-17,
     4.658027591836937e-17, 2.5382502794888315e-17, 7.70094837980299e-17, -9.667293313452913e-17,
     -3.483994556892796e-17, 7.949834809697621e-17, 2.4707192569797888e-17, 8.199010020581497e-17,
     2.960140695448873e-17, 3.283107224245627e-17, -1.0619946056195963e-16),
)
_POW_EXP_LN2_F64 = (float.fromhex("0x1.62e42fefa0000p-1"), 1.6465949582897082e-12)
_POW_EXP_Q_F64 = (0.5000000000000004, 0.16666666666666413, 0.041666666660072994, 0.008333333346420092,
                  0.0013889124133048515, 0.0001983969322989813)


def _pow_f64_x86(m: _Math, x, y):
    """f64 pow on AVX-512 vectors, table-driven: ln|x| = k ln2 - ln(rcp) + ln(1 + r) with
    r = m rcp - 1 as an exact a + b (_pow_f64_x86_ln, relative error ~2**-66), t = y ln|x| as a
    double word, exp(t) = 2**(n/16) exp(d) with 2**(j/16) from a table (_pow_f64_x86_exp).
    As _pow_f32_x86, NumPy's special cases are a rare path (_pow_f64_x86_selects) taken where
    any lane has x's sign bit set or t outside [-746, 710] or NaN; bit-identical to it."""
    l_hi, l_lo = _pow_f64_x86_ln(m, x)
    t = m.mul(y, l_hi)
    return _pow_rare_path(m, x, t, _EXP_LIMITS["f64"],
                          lambda: _pow_f64_x86_exp(m, t, m.fma(y, l_lo, m.fma(y, l_hi, m.neg(t)))),
                          lambda: _pow_f64_x86_selects(m, x, y, l_hi, l_lo))


def _pow_f64_x86_ln(m: _Math, x):
    """ln|x| as (l_hi, l_lo), |l_lo| < 2**-33 |l_hi|, for _pow_f64_x86: k and
    m in [3/4, 3/2) from getexp/getmant (k carries 0, inf and NaN), then (k ln2_hi + L_hi) exact,
    a - a**2/2 with its rounding error, b - a b + b a**2 for r's low part, a**3 P(a), and the low
    parts of ln2 and the table."""
    one = m.c(1.0)
    mant = m.getmant(x, 4 | 3)  # |x|'s significand in [3/4, 3/2); 1 at 0 and inf
    e = m.getexp(x)
    k = m.sel(m.lt(mant, one), m.add(e, one), e)
    idx = m.bits(m.add(mant, m.c(m._shifter() / 16)))  # rint(16 m) mod 16 in the low bits
    rcp = m.table16(idx, _POW_LOG_F64[0])
    p = m.mul(mant, rcp)
    b = m.fma(mant, rcp, m.neg(p))  # exact
    a = m.sub(p, one)  # exact (Sterbenz); r = a + b
    half_a = m.mul(a, m.c(-0.5))
    u = m.fma(half_a, a, a)  # a - a**2/2, rounded
    a2 = m.mul(a, a)
    # u's rounding error (a - u is exact), and r's low part: b / (1 + a) to third order,
    # b (1 + a**2) (1 - a) (b a**3 is up to 2**-62 of ln x at the ends of the table's intervals)
    b_1a2 = m.fma(b, a2, b)
    u_lo = m.add(m.fma(half_a, a, m.sub(a, u)), m.fma(m.neg(a), b_1a2, b_1a2))
    # a**3/3 + a**4 P(a) with a**3 = a3 + (e3 + e2 a) (the products' errors) and 1/3 as a double
    # word: the tail, up to 2**-11 of ln(1 + r) near x = 1, rounds once (y multiplies its error)
    a3 = m.mul(a2, a)
    a3_lo = m.fma(m.fma(a, a, m.neg(a2)), a, m.fma(a2, a, m.neg(a3)))
    third, third_lo = m.c(_THIRD[0]), m.c(_THIRD[1])
    rest = m.fma(m.mul(a2, a2), m.poly(a, _POW_LOG_TAIL_F64), m.fma(a3, third_lo, m.fma(a3_lo, third, u_lo)))
    tail = m.fma(a3, third, rest)
    lg, lg_lo = _fast_two_sum(m, u, tail)  # ln(1 + r): the tail is up to 2**-11 of it
    ln2_hi, ln2_lo = _POW_LN2_F64
    head = m.fma(k, m.c(ln2_hi), m.table16(idx, _POW_LOG_F64[1]))  # exact
    low = m.fma(k, m.c(ln2_lo), m.table16(idx, _POW_LOG_F64[2]))
    l_hi, l_err = _fast_two_sum(m, head, lg)  # |head| > |lg| where head is not 0
    return l_hi, m.add(l_err, m.add(lg_lo, low))


def _pow_f64_x86_exp(m: _Math, t, t_lo=None):
    """exp(t + t_lo) for t in [-746, 710] (past both ends: 0 and inf): n = rint(16 t / ln2),
    d = t - n ln2/16 + t_lo (the first difference exact), 2**(j/16) (1 + d + d**2 Q(d)) with the
    table's low part, one rounding, and scalef by n/16 (its floor). Also f64 exp's AVX-512
    variant (no t_lo)."""
    shifter = m.c(m._shifter() / 16)  # its ulp is 1/16
    ns = m.fma(t, m.c(1 / _LN2), shifter)
    nf = m.sub(ns, shifter)  # n/16
    idx = m.bits(ns)  # n mod 16 in the low bits
    e_hi, e_lo = _POW_EXP_LN2_F64
    d = m.fma(m.neg(nf), m.c(e_hi), t)  # exact
    d = m.fma(m.neg(nf), m.c(e_lo), d)
    if t_lo is not None:
        d = m.add(d, t_lo)
    q = m.fma(m.mul(d, d), m.poly(d, _POW_EXP_Q_F64), d)  # exp(d) - 1
    hi = m.table16(idx, _POW_EXP2_F64[0])
    p = m.add(hi, m.fma(hi, q, m.table16(idx, _POW_EXP2_F64[1])))
    if m.avx512:
        return m.scalef(p, nf)
    return m.scale(p, m.call("floor", nf))  # exp's scalar twin: scalef's single rounding


def _pow_f64_x86_selects(m: _Math, x, y, l_hi, l_lo):
    """_pow_f64_x86's exp and special values, every lane handled (the rare path): t = 0 where
    |x| = 1 (l_hi is 0 exactly there), t clamped with NaN kept and t_lo dropped where clamped,
    then _pow_sign's sign, NaN and y = 0 cases."""
    zero = m.c(0.0)
    one_x = m.eq(l_hi, zero)
    t = m.sel(one_x, zero, m.mul(y, l_hi))
    t_lo = m.fma(y, l_lo, m.fma(y, l_hi, m.neg(t)))
    tc = _clamp_nan(m, t, *_EXP_LIMITS["f64"])
    t_lo = m.sel(m.b.and_(m.eq(tc, t), m.b.not_(one_x)), t_lo, zero)
    return _pow_sign(m, x, y, _pow_f64_x86_exp(m, tc, t_lo))


def _pow_sign(m: _Math, x, y, mag):
    """pow from |x|**y: the sign of odd integer powers, NaN for negative x and y not an
    integer, 1 for y = 0 (x = 1 was handled by taking y as 0)."""
    b = m.b
    zero, inf = m.c(0.0), m.c(math.inf)
    y_int = m.eq(m.call("trunc", y), y)
    half = m.mul(y, m.c(0.5))
    y_odd = b.and_(y_int, m.ne(m.call("trunc", half), half))
    r = m.sel(y_odd, m.call("copysign", mag, x), mag)
    neg_finite = b.and_(m.lt(x, zero), m.ne(x, m.neg(inf)))
    r = m.sel(b.and_(neg_finite, b.not_(y_int)), m.c(math.nan), r)  # also catches y NaN
    return m.sel(m.eq(y, zero), m.c(1.0), r)  # x = 1: y was taken as 0 there, so mag is 1


def _pow(m: _Math, x, y):
    """C99 pow. f64: log|x| is a double-double so that y * log|x| stays accurate to ~2**-60
    relative. f32: x = 2**k * (1 + f) is split in f32, then only log2(1 + f), y * log2|x| and
    2**that run in f64 (a 2**-43 log, so the product is good to ~2**-36 absolute, and one
    rounding of the f64 power to f32: within 0.5 ULP + 2**-28); the sign and NaN cases stay in
    f32.

    Most special cases fall out of the main path: log|x| is taken as (|x| - 1) * inf = -inf,
    inf, NaN for |x| = 0, inf, NaN, y is taken as 0 where |x| = 1 (so that 1**inf is 1), and
    y * log|x| is clamped with NaN kept; then 0**y, inf**y, x**(+-inf) and NaN follow from
    2**(+-inf) and NaN arithmetic, and selects remain only for the sign of odd integer powers,
    NaN from negative x, and y = 0 or x = 1."""
    if m.avx512:
        return (_pow_f32_x86 if m.kind == "f32" else _pow_f64_x86)(m, x, y)
    b = m.b
    inf, zero, one = m.c(math.inf), m.c(0.0), m.c(1.0)
    ax = m.abs(x)
    inf_bits = 0x7F800000 if m.kind == "f32" else 0x7FF0000000000000
    edge = b.icmp_unsigned(">=", b.sub(m.bits(ax), m.i(1)), m.i(inf_bits - 1))  # 0, inf or NaN
    edge_log = m.mul(m.sub(ax, one), inf)  # -inf, inf, NaN
    ye = m.sel(m.eq(ax, one), zero, y)
    if m.kind == "f32":
        w = m.wide()
        k, f = _log_reduce(m, ax)  # exact; garbage (finite) for 0, inf and NaN
        k = m.sel(edge, edge_log, k)
        fd = m.b.fpext(f, w.ty)
        s = w.div(fd, w.add(fd, w.c(2.0)))
        z = w.mul(s, s)
        # log2(1 + f) = (2s + s z P(z)) / ln2, the 1/ln2 in the coefficients
        log2x = w.fma(w.mul(s, z), w.poly(z, tuple(c / _LN2 for c in _LOG_POW_F32)),
                      w.fma(s, w.c(2 / _LN2), m.b.fpext(k, w.ty)))
        t = w.mul(m.b.fpext(ye, w.ty), log2x)
        tc = _clamp_nan(w, t, -160.0, 130.0)  # past f32 underflow (2**-150) and overflow
        n = w.call("rint", tc)
        p = w.poly(w.sub(tc, n), _exp2_coeffs("f32"))  # 2**d, |d| <= 1/2 (the difference is exact)
        mag = m.b.fptrunc(w.mul(p, w.pow2(n)), m.ty)  # 2**n is normal in f64: one rounding
    else:
        w = m
        log_hi, log_lo = _log_double(w, ax)  # garbage (finite) for 0, inf and NaN
        log_hi, log_lo = w.sel(edge, edge_log, log_hi), w.sel(edge, zero, log_lo)
        z_hi = w.mul(ye, log_hi)
        z_lo = w.fma(ye, log_lo, w.fma(ye, log_hi, w.neg(z_hi)))  # NaN where z_hi is +-inf
        zc = _clamp_nan(w, z_hi, *_EXP_LIMITS["f64"])
        u, n = _exp_reduce(w, zc, w.sel(w.eq(zc, z_hi), z_lo, zero))
        mag = w.scale(w.add(u, one), n)
    return _pow_sign(m, x, y, mag)


# ---- inverse trigonometric --------------------------------------------------------------------

def _via_f64(fn=None, *, full: bool = False):
    """fn computes in f64. f32 operands are widened and the result is rounded once; fn sees prec
    "f32" and may use shorter polynomials, unless full (f64 polynomials throughout)."""
    if fn is None:
        return lambda f: _via_f64(f, full=full)

    def emit(m: _Math, *xs):
        if m.kind == "f64":
            return fn(m, *xs)
        w = _Math(m.b, m.wide().ty) if full else m.wide()
        return m.b.fptrunc(fn(w, *(m.b.fpext(x, w.ty) for x in xs)), m.ty)
    return emit


def _atan_core(m: _Math, a, b, x_neg):
    """atan(a / b) for a, b >= 0 (either may be 0 or inf, not both), or pi - that where x_neg.

    t = (a - c*b) / (b + c*a) reduces to |t| <= 7/16 with atan(a/b) = atan(c) + atan(t); computing t
    from a and b (not from a/b) keeps it to a rounding or two. Exact where a == 0.
    """
    q = m.div(a, b)
    big = m.b.fcmp_ordered(">=", q, m.c(_ATAN_STEPS[-1][0]))
    c = m.c(0.0)
    pi_hi, pi_lo = m.pair(_PI)
    hi = m.sel(x_neg, pi_hi, m.c(0.0))
    lo = m.sel(x_neg, pi_lo, m.c(0.0))
    first = m.b.fcmp_unordered("<", q, m.c(_ATAN_STEPS[0][0]))  # NaN (0/0, inf/inf): fixed later
    for start, centre, pos, neg in _ATAN_STEPS:
        here = m.b.fcmp_ordered(">=", q, m.c(start))
        if not math.isinf(centre):
            c = m.sel(here, m.c(centre), c)
        (pos_hi, pos_lo), (neg_hi, neg_lo) = m.pair(pos), m.pair(neg)
        hi = m.sel(here, m.sel(x_neg, neg_hi, pos_hi), hi)
        lo = m.sel(here, m.sel(x_neg, neg_lo, pos_lo), lo)
    num = m.sel(first, a, m.sel(big, m.neg(b), m.fma(m.neg(c), b, a)))
    den = m.sel(first, b, m.sel(big, a, m.fma(c, a, b)))
    t = m.div(num, den)
    z = m.mul(t, t)
    v = m.fma(m.mul(t, z), m.poly(z, _ATAN[m.prec]), t)
    return m.add(hi, m.add(lo, m.sel(x_neg, m.neg(v), v)))


def _arctan(m: _Math, x):
    r = _atan_core(m, m.abs(x), m.c(1.0), m.b.icmp_unsigned("!=", m.i(0), m.i(0)))
    return m.call("copysign", r, x)


def _arctan2(m: _Math, y, x):
    if m.kind == "f32":
        return _atan2_f32(m, y, x)
    a, b = m.abs(y), m.abs(x)
    # Keep b + c*a finite and subnormal quotients exact: scaled by a power of two near the ends.
    big, small, up = (2.0**1000, 2.0**-900, 2.0**900) if m.kind == "f64" else (2.0**120, 2.0**-100, 2.0**100)
    mx = m.sel(m.gt(a, b), a, b)
    s = m.sel(m.gt(mx, m.c(big)), m.c(0.25), m.sel(m.lt(mx, m.c(small)), m.c(up), m.c(1.0)))
    a, b = m.mul(a, s), m.mul(b, s)
    x_neg = m.b.icmp_signed("<", m.bits(x), m.i(0))
    r = _atan_core(m, a, b, x_neg)
    inf = m.c(math.inf)
    r = m.sel(m.eq(a, m.c(0.0)), m.sel(x_neg, m.c(math.pi), m.c(0.0)), r)
    both_inf = m.b.and_(m.eq(a, inf), m.eq(b, inf))
    r = m.sel(both_inf, m.sel(x_neg, m.c(3 * math.pi / 4), m.c(math.pi / 4)), r)
    r = m.sel(m.b.or_(m.isnan(x), m.isnan(y)), m.c(math.nan), r)
    return m.call("copysign", r, y)


def _atan2_f32(m: _Math, y, x):
    """f32 arctan2 in f32 lanes from one reciprocal, in place of _atan_core's four steps and
    their ~35 constants. With mn = min(|x|, |y|) and mx = max: t = mn / mx below 1/2, else t =
    (mn - mx) / (mn + mx) (the numerator exact, Sterbenz; the denominator a double word) and
    atan(mn / mx) = pi/4 + atan(t): |t| <= 1/2, chosen before the one division. t is a double
    word (t = num * rcp, its remainder to a rounding), atan(t) = t + t z P(z) (_ATAN2_F32, 6
    terms) and the quadrant is C + sigma atan(t) with C a multiple of pi/4 and sigma = +-1:
    C + sigma t by a fast two-sum (|C| >= pi/4 > |t| where C is not 0) and the other parts added
    to its error, so one rounding at the end."""
    b_ = m.b
    a, b = m.abs(y), m.abs(x)
    swap = m.gt(a, b)
    mn, mx = m.sel(swap, b, a), m.sel(swap, a, b)
    # both scaled by a power of two from mx's exponent field (2**127 for subnormal mx), to mx in
    # [2, 4): 1 / den stays normal and the remainder exact (0 for inf: fixed at the end)
    exp_mask = 0x7F800000
    tiny = m.c(_MIN_NORMAL["f32"])
    e_bits = m.b.and_(m.bits(m.sel(m.lt(mx, tiny), tiny, mx)), m.i(exp_mask))
    s = m.from_bits(m.b.sub(m.i(exp_mask), e_bits))
    inf = m.c(math.inf)
    both_inf = m.eq(mn, inf)
    mn, mx = m.mul(mn, s), m.mul(mx, s)
    big = m.gt(mn, m.mul(mx, m.c(0.5)))  # false for 0/0 and inf/inf (fixed at the end)
    sum_hi, sum_lo = _fast_two_sum(m, mx, mn)
    num = m.sel(big, m.sub(mn, mx), mn)
    den, den_lo = m.sel(big, sum_hi, mx), m.sel(big, sum_lo, m.c(0.0))
    rcp = m.div(m.c(1.0), den)
    t = m.mul(num, rcp)
    t_lo = m.mul(m.fma(m.neg(t), den_lo, m.fma(m.neg(t), den, num)), rcp)  # num / den - t
    z = m.mul(t, t)
    d = m.fma(z, m.c(_ATAN2_SLOPE[1]), m.c(_ATAN2_SLOPE[0]))  # about 1 / (1 + z): t_lo's weight
    tail = m.fma(m.mul(t, z), m.poly(z, _ATAN2_F32), m.mul(t_lo, d))
    x_neg = b_.icmp_signed("<", m.bits(x), m.i(0))
    sign = m.bits(m.sel(b_.xor(swap, x_neg), m.c(-0.0), m.c(0.0)))  # sigma's sign bit
    # C = q pi/4, q = 1 or 3 past 1/2, else 2, 4 or 0: q times a 21-bit head (exact) and a tail
    q = m.sel(big, m.sel(x_neg, m.c(3.0), m.c(1.0)),
              m.sel(swap, m.c(2.0), m.sel(x_neg, m.c(4.0), m.c(0.0))))
    c_hi, c_lo = m.mul(q, m.c(_PIO4_HEAD)), m.mul(q, m.c(_PIO4_TAIL))
    h, e = _fast_two_sum(m, c_hi, m.from_bits(b_.xor(m.bits(t), sign)))
    r = m.add(h, m.add(e, m.add(c_lo, m.from_bits(b_.xor(m.bits(tail), sign)))))
    # t_lo is NaN only where mx is 0 (both 0) or inf (or x or y is NaN): the result is C there
    # (t = 0), or pi/4 or 3pi/4 where both are inf
    edge = m.isnan(t_lo)
    both = m.sel(x_neg, m.c(3 * math.pi / 4), m.c(math.pi / 4))
    r = m.sel(edge, m.sel(both_inf, both, m.add(c_hi, c_lo)), r)
    r = m.sel(b_.fcmp_unordered("uno", x, y), m.c(math.nan), r)
    return m.call("copysign", r, y)


def _asin_parts(m: _Math, x):
    """(big, u, tail): asin(|x|) = u + tail for |x| < 1/2 (big false), and for |x| >= 1/2
    asin(sqrt((1 - |x|) / 2)) = u + tail, with u and tail >= 0 and tail small."""
    a = m.abs(x)
    big = m.b.fcmp_ordered(">=", a, m.c(0.5))
    zb = m.mul(m.sub(m.c(1.0), a), m.c(0.5))  # exact for |x| >= 1/2; < 0 (sqrt NaN) past 1
    s = m.call("sqrt", zb)
    s_lo = m.div(m.fma(m.neg(s), s, zb), m.add(s, s))  # sqrt(zb) = s + s_lo to ~2**-105
    s_lo = m.sel(m.eq(zb, m.c(0.0)), m.c(0.0), s_lo)
    z = m.sel(big, zb, m.mul(a, a))
    u = m.sel(big, s, a)
    tail = m.fma(m.mul(u, z), m.poly(z, _ASIN[m.prec]), m.sel(big, s_lo, m.c(0.0)))
    return big, u, tail


def _minus(m: _Math, c, u, tail):
    """c - (u + tail) for a double-double constant c, with the first difference exact."""
    h, e = _two_sum(m, m.c(c[0]), m.neg(u))
    return m.add(h, m.add(m.add(e, m.c(c[1])), m.neg(tail)))


def _arcsin(m: _Math, x):
    big, u, tail = _asin_parts(m, x)
    two = m.c(2.0)
    r = m.sel(big, _minus(m, _PIO2_DD, m.mul(two, u), m.mul(two, tail)), m.add(u, tail))
    return m.call("copysign", r, x)


def _arccos(m: _Math, x):
    """c - (v + t) once, with c, v, t chosen per branch: pi/2 - (x + tail) below 1/2,
    pi - 2 (u + tail) for x <= -1/2 and 0 - (-2u - 2 tail) for x >= 1/2."""
    big, u, tail = _asin_parts(m, x)
    neg = m.lt(x, m.c(0.0))
    sign2 = m.sel(neg, m.c(2.0), m.c(-2.0))
    v = m.sel(big, m.mul(sign2, u), x)
    t = m.sel(big, m.mul(sign2, tail), m.call("copysign", tail, x))
    c_hi = m.sel(big, m.sel(neg, m.c(_PI[0]), m.c(0.0)), m.c(_PIO2_DD[0]))
    c_lo = m.sel(big, m.sel(neg, m.c(_PI[1]), m.c(0.0)), m.c(_PIO2_DD[1]))
    h, e = _two_sum(m, c_hi, m.neg(v))
    return m.add(h, m.add(m.add(e, c_lo), m.neg(t)))


# ---- inverse hyperbolic, cbrt, hypot, erf --------------------------------------------------------

def _power_of_two_near(m: _Math, w):
    """2**k with w / 2**k in [sqrt(1/2), sqrt2) (to a rounding at the ends), for finite normal
    w > 0 with w * sqrt2 finite: the exponent field of w * sqrt2, two instructions deep."""
    exponent = 0x7F800000 if m.kind == "f32" else 0x7FF0000000000000
    return m.from_bits(m.b.and_(m.bits(m.mul(w, m.c(math.sqrt(2.0)))), m.i(exponent)))


def _log2_of_power(m: _Math, c):
    """k for c = 2**k normal, from its exponent field."""
    return m.sub(m.to_float(m.b.lshr(m.bits(c), m.i(m.mant))), m.c(m.bias))


def _ratio_scale(m: _Math, n, d):
    """2**k with (n / d) / 2**k in [sqrt(1/2), sqrt2) (to a rounding at the ends), for n in [1, 2]
    and normal d > 0, without dividing: d = p * md by its exponent, then a factor 2 more where
    n / md >= sqrt2."""
    p = _power_of_two_near(m, d)
    inv_p = m.from_bits(m.b.sub(m.i((2 * m.bias) << m.mant), m.bits(p)))  # 1 / p, exactly
    up = m.b.fcmp_ordered(">=", m.mul(n, p), m.mul(d, m.c(math.sqrt(2.0))))
    return m.sel(up, m.add(inv_p, inv_p), inv_p)


def _log_of_sum(m: _Math, w, w_lo, large):
    """log(w + w_lo), plus 3 ln2 where ``large``, for finite w >= 1/4 below 2**max_exp / 2 and
    |w_lo| <= ulp(w); to ~2**-60 (f64) / 2**-30 (f32) before the last rounding, with one
    division and no table.

    w = 2**k * mw with mw in [sqrt(1/2), sqrt2), so log(w) = k ln2 + log((1 + s) / (1 - s)) with
    s = (w - 2**k) / (w + 2**k): the numerator's head is exact (Sterbenz), the denominator keeps
    its rounding, and s is carried as s + s_lo from one reciprocal. w_lo enters only s_lo (the
    tail's error from leaving it out of s is under s**2 * s_lo), so the work that computes it
    overlaps the division."""
    one = m.c(1.0)
    c = _power_of_two_near(m, w)
    k = _log2_of_power(m, c)  # off the path to s
    num, num_lo = m.sub(w, c), w_lo  # w_lo is kept apart: it stays off the path to s
    den, den_lo = _two_sum(m, w, c)
    den_lo = m.add(den_lo, w_lo)
    rcp = m.div(one, den)
    s = m.mul(num, rcp)
    s_lo = m.mul(m.sub(m.add(m.fma(m.neg(s), den, num), num_lo), m.mul(s, den_lo)), rcp)
    z = m.mul(s, s)
    tail = m.mul(m.mul(s, z), m.poly(z, _LOG[m.prec]))  # log((1 + s) / (1 - s)) = 2s + tail
    k = m.add(k, m.sel(large, m.c(3.0), m.c(0.0)))
    ln2_hi, ln2_lo = _LN2_LOG[m.kind]  # k * ln2_hi is exact
    h, e = _fast_two_sum(m, m.mul(k, m.c(ln2_hi)), m.add(s, s))  # |k ln2| >= |2s| unless k = 0
    return m.add(h, m.add(e, m.add(m.fma(m.c(2.0), s_lo, tail), m.mul(k, m.c(ln2_lo)))))


# Past this, asinh(a) and acosh(a) are log(2a) to working precision (the next term, 1/(4a**2),
# is under 2**-58 / 2**-26 of it) and a**2 might overflow.
_HYPERBOLIC_LARGE = {"f32": 2.0**12, "f64": 2.0**28}


def _sqrt_dd(m: _Math, hi, lo):
    """sqrt(hi + lo) as (s, s_lo), for hi >= 0."""
    s = m.call("sqrt", hi)
    s_lo = m.div(m.add(m.fma(m.neg(s), s, hi), lo), m.add(s, s))
    return s, m.sel(m.eq(hi, m.c(0.0)), m.c(0.0), s_lo)


def _inf_nan(m: _Math, x, r):
    """r, but inf for x = +inf and NaN for NaN x."""
    return m.sel(m.isnan(x), x, m.sel(m.eq(x, m.c(math.inf)), x, r))


def _arcsinh(m: _Math, x):
    """log(a + sqrt(a**2 + 1)) with the argument as a double word (exact square and sums, sqrt
    with its remainder), in the lanes of x's own type; log(2a) = log(a/4) + 3 ln2 past
    _HYPERBOLIC_LARGE (a/4: 2**k stays finite)."""
    a = m.abs(x)
    one = m.c(1.0)
    large = m.gt(a, m.c(_HYPERBOLIC_LARGE[m.kind]))
    ac = m.sel(large, one, a)
    a2 = m.mul(ac, ac)
    h, e = _two_sum(m, a2, one)
    s, s_lo = _sqrt_dd(m, h, m.add(e, m.fma(ac, ac, m.neg(a2))))
    w, w_lo = _fast_two_sum(m, s, ac)  # s >= ac
    w_lo = m.add(w_lo, s_lo)
    r = _log_of_sum(m, m.sel(large, m.mul(a, m.c(0.25)), w), m.sel(large, m.c(0.0), w_lo), large)
    r = _inf_nan(m, a, r)
    return m.call("copysign", _tiny(m, x, r), x)


def _arccosh(m: _Math, x):
    """log(x + sqrt(x**2 - 1)) as _arcsinh: near x = 1, x**2 - 1 is exact as a double word."""
    one = m.c(1.0)
    large = m.gt(x, m.c(_HYPERBOLIC_LARGE[m.kind]))
    xc = m.sel(large, one, x)
    x2 = m.mul(xc, xc)
    h, e = _fast_two_sum(m, x2, m.c(-1.0))  # x2 >= 1 where x >= 1 (else NaN at the end)
    s, s_lo = _sqrt_dd(m, h, m.add(e, m.fma(xc, xc, m.neg(x2))))
    w, w_lo = _fast_two_sum(m, xc, s)  # s < xc
    w_lo = m.add(w_lo, s_lo)
    r = _log_of_sum(m, m.sel(large, m.mul(x, m.c(0.25)), w), m.sel(large, m.c(0.0), w_lo), large)
    r = m.sel(m.b.fcmp_ordered(">=", x, one), r, m.c(math.nan))
    return _inf_nan(m, x, r)


def _atanh_f32(m: _Math, x):
    """f32 atanh in f32 lanes: atanh(a) = k * ln2/2 + atanh(s), s = (n - 2**k d) / (n + 2**k d) for
    n = 1 + a and d = 1 - a, each kept as hi + lo (exact sums), k = 0 below 0.3 (s = a exactly),
    else the k that keeps |s| <= 0.172. n_hi - 2**k d_hi is exact (Sterbenz) and the denominator
    keeps its rounding, so s is good to ~1.5 roundings where it is a small part of the result;
    k * ln2/2's head is exact and the sum with s keeps its error: within 1 ULP."""
    a = m.abs(x)
    one = m.c(1.0)
    n_hi, n_lo = _fast_two_sum(m, one, a)
    d_hi, d_lo = _fast_two_sum(m, one, m.neg(a))
    c = m.sel(m.lt(a, m.c(0.3)), one, _ratio_scale(m, n_hi, d_hi))  # garbage at a >= 1: selected away
    k = _log2_of_power(m, c)
    num = m.add(m.fma(m.neg(c), d_hi, n_hi), m.fma(m.neg(c), d_lo, n_lo))
    den, den_lo = _two_sum(m, n_hi, m.mul(c, d_hi))
    den = m.add(den, m.add(den_lo, m.fma(c, d_lo, n_lo)))
    s = m.sel(m.eq(k, m.c(0.0)), a, m.div(num, den))
    z = m.mul(s, s)
    tail = m.mul(m.mul(s, z), m.poly(z, _ATANH_F32))
    ln2_hi, ln2_lo = _LN2_LOG["f32"]
    h, e = _fast_two_sum(m, m.mul(k, m.c(ln2_hi / 2)), s)  # k * ln2_hi / 2 is exact
    r = m.add(h, m.add(m.add(e, tail), m.mul(k, m.c(ln2_lo / 2))))
    r = m.sel(m.lt(a, one), r, m.sel(m.eq(a, one), m.c(math.inf), m.c(math.nan)))
    return m.call("copysign", r, x)


def _arctanh(m: _Math, x):
    if m.kind == "f32":
        return _atanh_f32(m, x)
    return _arctanh_f64(m, x)


def _arctanh_f64(m: _Math, x):
    """atanh(a) = k * ln2/2 + atanh(s) as in _atanh_f32, with k from 1 - a's exponent alone (|s| <=
    0.172 throughout) and s carried as s + s_lo: one division (1 / den), no log, no table."""
    a = m.abs(x)
    one = m.c(1.0)
    n_hi, n_lo = _fast_two_sum(m, one, a)
    d_hi, d_lo = _fast_two_sum(m, one, m.neg(a))
    c = _ratio_scale(m, n_hi, d_hi)  # garbage at a >= 1: selected away below
    k = _log2_of_power(m, c)
    lo = m.fma(c, d_lo, n_lo)
    num, num_lo = _two_sum(m, m.fma(m.neg(c), d_hi, n_hi), m.fma(m.neg(c), d_lo, n_lo))  # first exact
    den, den_lo = _two_sum(m, n_hi, m.mul(c, d_hi))
    den_lo = m.add(den_lo, lo)
    rcp = m.div(one, den)
    s = m.mul(num, rcp)
    s_lo = m.mul(m.sub(m.add(m.fma(m.neg(s), den, num), num_lo), m.mul(s, den_lo)), rcp)
    z = m.mul(s, s)
    tail = m.mul(m.mul(s, z), m.poly(z, tuple(c / 2 for c in _LOG["f64"])))
    ln2_hi, ln2_lo = _LN2_LOG["f64"]
    h, e = _fast_two_sum(m, m.mul(k, m.c(ln2_hi / 2)), s)  # k * ln2_hi / 2 is exact
    r = m.add(h, m.add(e, m.add(m.add(s_lo, tail), m.mul(k, m.c(ln2_lo / 2)))))
    r = m.sel(m.lt(a, one), r, m.sel(m.eq(a, one), m.c(math.inf), m.c(math.nan)))
    return m.call("copysign", r, x)


def _inverse_cbrt_start(m: _Math, y):
    """y**(-1/3) to 2**-4.9 for finite normal y > 0: the bits of y**(-1/3) are about a constant
    minus y's bits / 3. f32 divides its bits as a float (one 32-bit conversion each way, of
    finite values); f64 its high word, moved in and out of a double with the shifter (exact:
    the word is below 2**31, and adding the shifter rounds the quotient to an integer)."""
    if m.kind == "f32":
        third = m.mul(m.b.sitofp(m.bits(y), m.ty), m.c(1 / 3))  # exact enough: 2**-24 of it
        return m.from_bits(m.b.sub(m.i(_CBRT_MAGIC["f32"]), m.b.fptosi(third, m.ity)))
    high = m.to_float(m.b.lshr(m.bits(y), m.i(32)))
    shifted = m.bits(m.add(m.mul(high, m.c(1 / 3)), m.c(m._shifter())))  # shifter bits + round(high / 3)
    shifter_bits = 0x4338000000000000  # the bits of 1.5 * 2**52
    z_word = m.b.sub(m.i(_CBRT_MAGIC["f64"] + shifter_bits), shifted)
    return m.from_bits(m.b.shl(z_word, m.i(32)))


# f32 cbrt on AVX-512 (_cbrt_f32_x86): entry j + 5r (j = 0..4, r = 0..2) holds rcp near 1/c,
# c = 1 + j/4, chosen among the f32s within 6000 ULPs of it so that T = cbrt(2**r / rcp) lies
# within 2**-36 of an f32 (Tang's accurate tables; a search, as for _LOG_TABLE): T needs no low
# part. Entry 15 is unused.
_CBRT_TABLE = (
    (1.0, 0.8001431822776794, 0.6669775247573853, 0.5713942050933838, 0.49987509846687317,
     0.9997501969337463, 0.8002417683601379, 0.666512668132782, 0.5717160701751709, 0.5000474452972412,
     1.0000948905944824, 0.7999484539031982, 0.6668122410774231, 0.5713880658149719, 0.5, 1.0),
    (1.0, 1.0771530866622925, 1.1445363759994507, 1.2050952911376953, 1.260025978088379,
     1.260025978088379, 1.357072114944458, 1.4423606395721436, 1.5180399417877197, 1.587350845336914,
     1.587350845336914, 1.710012674331665, 1.8169883489608765, 1.9129763841629028, 2.0, 1.0),
)
# (1 + u)**(1/3) = 1 + u Q(u) on [-0.1001, 0.1252] (Lawson-reweighted, rounded to f32): 2**-28.3.
_CBRT_Q = (0.3333333134651184, -0.11110975593328476, 0.06174410879611969, -0.04152284190058708,
           0.028959617018699646)


def _cbrt_f32_x86(m: _Math, x):
    """f32 cbrt on AVX-512 vectors: |x| = 2**(3q + r) mant with e = getexp(x), q = floor(e / 3)
    and mant = getmant(x) in [1, 2) (subnormals included), then cbrt(2**r mant) = T (1 + u)**(1/3)
    with u = mant rcp - 1 from _CBRT_TABLE's entry rint(4 (mant - 1)) + 5r (|u| < 0.126), one
    fma T + T u Q(u) (about 0.5 ULP from the true value: T is exact to 2**-36, Q to 2**-28), and
    vscalef by q. e is finite exactly where x is finite and not 0; elsewhere x itself."""
    e = m.getexp(x)
    mant = m.getmant(x, 4)  # [1, 2), positive
    q = m.call("floor", m.fma(e, m.c(1 / 3), m.c(1 / 6)))  # e / 3 + 1/6 is q + 1/6 .. q + 5/6
    r = m.fma(q, m.c(-3.0), e)  # exact
    # rint(4 (mant - 1)) + 5r in the low bits of one fma (the shifter holds the sum's integer)
    idx = m.bits(m.fma(mant, m.c(4.0), m.fma(r, m.c(5.0), m.c(m._shifter() - 4.0))))
    rcp, cube_root = _CBRT_TABLE
    u = m.fma(mant, m.table16(idx, rcp), m.c(-1.0))
    t = m.table16(idx, cube_root)
    g = m.scalef(m.fma(t, m.mul(u, m.poly(u, _CBRT_Q)), t), q)
    return m.sel(m.lt(m.abs(e), m.c(math.inf)), m.call("copysign", g, x), x)


def _cbrt(m: _Math, x):
    """cbrt without a reduction or a division: z ~ a**(-1/3) from a's bits divided by 3 (the bits
    of a float are about 2**mant * (log2 + bias); _inverse_cbrt_start), 2**-4.9; steps for the
    inverse cube root that need no division, z (1 + t/3 + 2t**2/9 + 14t**3/81) with t = 1 - a z**3
    (one for f32: 2**-16, two for f64: 2**-32; a fourth-order step costs 7 operations where the
    two Newton steps it replaces cost 10); g = a z**2, and one Newton step for the cube root itself with
    1 / (3 g**2) = z**2 / 3 and g**3 - a exact to a rounding of itself: ~2**-30 (f32) / 2**-60
    (f64) before the last rounding. Subnormal a is scaled by 2**24 / 2**54 first and the result
    by 2**-8 / 2**-18."""
    if m.kind == "f32" and m.avx512:
        return _cbrt_f32_x86(m, x)
    a = m.abs(x)
    inf_bits = 0x7F800000 if m.kind == "f32" else 0x7FF0000000000000
    finite = m.b.icmp_unsigned("<", m.b.sub(m.bits(a), m.i(1)), m.i(inf_bits - 1))  # 0 < a < inf
    sub = m.lt(a, m.c(_MIN_NORMAL[m.kind]))
    up = 24 if m.kind == "f32" else 54  # multiples of 3 that make any subnormal normal
    y = m.sel(finite, m.sel(sub, m.mul(a, m.c(2.0**up)), a), m.c(1.0))
    z = _inverse_cbrt_start(m, y)
    # z (1 - t)**(-1/3), t = 1 - y z**3, by its series to t**3: one step takes 2**-4.9 to
    # 2**-16 (two Newton steps' accuracy for 7 operations in place of 10); f64 takes two.
    for _ in range(1 if m.kind == "f32" else 2):
        t = m.fma(m.neg(m.mul(y, z)), m.mul(z, z), m.c(1.0))
        z = m.fma(m.mul(z, t), m.poly(t, (1 / 3, 2 / 9, 14 / 81)), z)
    zz = m.mul(z, z)
    g = m.mul(y, zz)
    gg = m.mul(g, g)
    res = m.fma(m.fma(g, g, m.neg(gg)), g, m.fma(gg, g, m.neg(y)))
    g = m.fma(m.neg(res), m.mul(zz, m.c(1 / 3)), g)
    g = m.sel(sub, m.mul(g, m.c(2.0 ** -(up // 3))), g)
    return m.sel(finite, m.call("copysign", g, x), x)


@_via_f64
def _hypot(m: _Math, x, y):
    a, b = m.abs(x), m.abs(y)
    if m.prec == "f32":  # exact squares, one rounding of the sum
        r = m.call("sqrt", m.fma(a, a, m.mul(b, b)))
    else:
        hi = m.sel(m.gt(a, b), a, b)
        s = m.sel(m.gt(hi, m.c(2.0**500)), m.c(2.0**-600),
                  m.sel(m.lt(hi, m.c(2.0**-500)), m.c(2.0**600), m.c(1.0)))
        a, b = m.mul(a, s), m.mul(b, s)
        p = m.mul(a, a)
        q = m.mul(b, b)
        h, e = _two_sum(m, p, q)
        e = m.add(e, m.add(m.fma(a, a, m.neg(p)), m.fma(b, b, m.neg(q))))
        r, r_lo = _sqrt_dd(m, h, e)
        r = m.div(m.add(r, r_lo), s)
    inf = m.c(math.inf)
    r = m.sel(m.b.or_(m.isnan(x), m.isnan(y)), m.c(math.nan), r)
    return m.sel(m.b.or_(m.eq(a, inf), m.eq(b, inf)), inf, r)


def _piecewise_poly(m: _Math, a, pieces):
    """P(a - centre) with the centre and coefficients of the last of ``pieces`` (start, centre,
    coeffs), sorted by start, whose start ``a`` reaches (the first below all): picked per lane
    by selects, then one Horner chain; shorter pieces are padded with zeros."""
    width = max(len(cs) for _, _, cs in pieces)
    centre = m.c(pieces[0][1])
    coeffs = [m.c(pieces[0][2][k] if k < len(pieces[0][2]) else 0.0) for k in range(width)]
    for start, mid, cs in pieces[1:]:
        here = m.b.fcmp_ordered(">=", a, m.c(start))
        centre = m.sel(here, m.c(mid), centre)
        coeffs = [m.sel(here, m.c(cs[k] if k < len(cs) else 0.0), coeffs[k]) for k in range(width)]
    t = m.sub(a, centre)
    g = coeffs[-1]
    for ck in reversed(coeffs[:-1]):
        g = m.fma(g, t, ck)
    return g


def _exp_minus_square_times(m: _Math, a, g):
    """exp(-a**2) * g for 1/2 <= a <= 27.25, with a**2 as a double word; gradual underflow."""
    p = m.mul(a, a)
    u, n = _exp_reduce(m, m.neg(p), m.fma(m.neg(a), a, p))
    return m.scale(m.fma(u, g, g), n)


@_via_f64
def _erf(m: _Math, x):
    a = m.abs(x)
    small = m.fma(a, m.poly(m.mul(a, a), _ERF[m.prec]), a)
    ac = _clamp(m, a, 1.0, 6.0)
    erfc = _exp_minus_square_times(m, ac, _piecewise_poly(m, ac, _ERFC))  # erf = 1 - erfc for a >= 1
    r = m.sel(m.lt(a, m.c(1.0)), small, m.sub(m.c(1.0), erfc))
    return m.call("copysign", m.sel(m.isnan(x), x, r), x)


@_via_f64
def _erfc(m: _Math, x):
    """1 - erf(x) without its cancellation: (1 - x) - x Q(x**2) rounded once (an fma) for
    |x| < 1/2 (erf's Q); exp(-a**2) G(a) for a = |x| >= 1/2 (_ERFC_TAIL, relative to erfc
    itself, down to its gradual underflow: 0 past 27.23), and 2 minus that for x <= -1/2."""
    near = m.fma(m.neg(x), m.poly(m.mul(x, x), _ERF[m.prec]), m.sub(m.c(1.0), x))
    a = m.abs(x)
    ac = _clamp(m, a, 0.5, 27.25)
    tail = _exp_minus_square_times(m, ac, _piecewise_poly(m, ac, _ERFC_TAIL))
    far = m.sel(m.lt(x, m.c(0.0)), m.sub(m.c(2.0), tail), tail)
    return m.sel(m.isnan(x), x, m.sel(m.lt(a, m.c(0.5)), near, far))


def _sinpi(m: _Math, x):
    """sin(pi x) for finite x, the reduction exact: r = x - 2 rint(x / 2) in [-1, 1], f = r - rint(r)
    in [-1/2, 1/2], sin(pi x) = sin(pi f), negated where rint(r) is odd. Exactly +-0 at integers."""
    r = m.sub(x, m.mul(m.c(2.0), m.call("rint", m.mul(x, m.c(0.5)))))
    k = m.call("rint", r)
    s = _trig(m, "sin", m.mul(m.c(math.pi), m.sub(r, k)))
    return m.sel(m.eq(k, m.c(0.0)), s, m.neg(s))


def _down_to_2_3(m: _Math, y):
    """(z, P) with y = z + j, z in [2, 3) and P = (y - 1) ... (y - j) for 2 <= y < 10 (z = y,
    P = 1 elsewhere); each y - j is exact."""
    z, prod = y, m.c(1.0)
    for j in range(1, 8):
        t = m.sub(y, m.c(float(j)))
        inside = m.ge(t, m.c(2.0))
        z = m.sel(inside, t, z)
        prod = m.sel(inside, m.mul(prod, t), prod)
    return z, prod


def _gamma_parts(m: _Math, y):
    """(f1, f2) with gamma(y) = f1 * f2 for -1 < y <= 190: P(z) on [2, 3] (_GAMMA_2_3) times the
    factors down to z below 10, over y (y + 1) (y + 2) ... up to z below 2; from 10, Stirling's
    sqrt(2 pi) y**(y - 1/2) e**-y e**S(1/y) as y**((y - 1/2) / 2) times the rest, two factors
    that overflow only where gamma does."""
    z, prod = _down_to_2_3(m, y)
    up = [(2.0, 1.0), (1.0, 2.0), (0.0, 3.0)]  # below `below`, z = y + shift
    den = m.c(1.0)
    for below, shift in up:
        inside = m.lt(y, m.c(below))
        z = m.sel(inside, m.add(y, m.c(shift)), z)
        factor = y if shift == 1.0 else m.add(y, m.c(shift - 1.0))  # y itself: -0.0 keeps its sign
        den = m.sel(inside, m.mul(den, factor), den)
    small = m.div(m.mul(_piecewise_poly(m, z, [(2.0, *_GAMMA_2_3)]), prod), den)
    yb = _clamp(m, y, 10.0, 190.0)
    half_power = _pow(m, yb, m.mul(m.sub(yb, m.c(0.5)), m.c(0.5)))
    w = m.div(m.c(1.0), yb)
    rest = m.mul(m.mul(_exp(m, m.neg(yb)), m.c(_SQRT_2PI)),
                 _exp(m, m.mul(w, m.poly(m.mul(w, w), _STIRLING))))
    big = m.ge(y, m.c(10.0))
    return m.sel(big, m.mul(rest, half_power), small), m.sel(big, half_power, m.c(1.0))


@_via_f64
def _gamma(m: _Math, x):
    """C's tgamma: +-inf at +-0, NaN at negative integers and -inf. For x <= -1 the reflection
    gamma(x) = -pi / (x sin(pi x) gamma(-x)), -x exact and sin(pi x) reduced exactly."""
    reflect = m.le(x, m.c(-1.0))
    y = m.sel(reflect, m.neg(x), x)
    f1, f2 = _gamma_parts(m, m.sel(m.lt(y, m.c(190.0)), y, m.c(190.0)))
    reflected = m.div(m.div(m.div(m.c(-math.pi), _sinpi(m, x)), m.mul(x, f1)), f2)
    r = m.sel(reflect, reflected, m.mul(f1, f2))
    pole = m.b.and_(reflect, m.eq(m.call("rint", x), x))  # also -inf
    return m.sel(m.isnan(x), x, m.sel(pole, m.c(math.nan), r))


def _lgamma_positive(m: _Math, y):
    """log|gamma(y)| for -1 < y: R(z) (z - 1)(z - 2) on [1, 3) (_LGAMMA_1_2, _LGAMMA_2_3: relative
    accuracy at the zeros 1 and 2), with log of the factors down to z below 10 added and of
    those up to z below 1 taken away; from 10, Stirling's series."""
    z, prod = _down_to_2_3(m, y)
    low = m.lt(y, m.c(1.0))
    neg = m.lt(y, m.c(0.0))
    z = m.sel(low, m.add(y, m.sel(neg, m.c(2.0), m.c(1.0))), z)  # in [1, 2) below 1
    one, two = (m.sel(m.lt(y, m.c(2.0)), m.sub(y, m.c(k)), m.sub(z, m.c(k))) for k in (1.0, 2.0))
    # z - 1 and z - 2 from y itself below 1 (exact): y + 1 and y below 0, y and y - 1 below 1
    one = m.sel(low, m.sel(neg, m.add(y, m.c(1.0)), y), one)
    two = m.sel(low, m.sel(neg, y, m.sub(y, m.c(1.0))), two)
    second = m.ge(z, m.c(2.0))
    t = m.sel(second, m.sub(z, m.c(_LGAMMA_2_3[0])), m.sub(y, m.c(1.5)))
    t = m.sel(low, m.sel(neg, m.add(y, m.c(0.5)), m.sub(y, m.c(0.5))), t)
    r = m.sel(second, m.poly(t, _LGAMMA_2_3[1]), m.poly(t, _LGAMMA_1_2[1]))
    core = m.mul(m.mul(one, two), r)
    den = m.sel(neg, m.abs(m.mul(y, m.add(y, m.c(1.0)))), y)
    below = m.lt(y, m.c(10.0))
    yb = m.sel(below, m.c(10.0), y)
    lg = _log(m, m.sel(below, m.sel(low, den, prod), yb))  # one log serves either side
    small = m.add(core, m.sel(low, m.neg(lg), lg))
    w = m.div(m.c(1.0), yb)
    series = m.fma(w, m.poly(m.mul(w, w), _STIRLING), m.c(_HALF_LOG_2PI))
    stirling = m.add(m.fma(m.sub(yb, m.c(0.5)), lg, m.neg(yb)), series)
    return m.sel(below, small, stirling)


@_via_f64
def _lgamma(m: _Math, x):
    """C's lgamma: log|gamma(x)|, +inf at 0, the negative integers and +-inf. For x <= -1,
    log(pi / |x sin(pi x)|) - lgamma(-x)."""
    reflect = m.le(x, m.c(-1.0))
    inf = m.c(math.inf)
    y = m.sel(reflect, m.neg(x), x)
    positive = _lgamma_positive(m, m.sel(m.lt(y, inf), y, m.c(1.0)))
    reflected = m.sub(_log(m, m.div(m.c(math.pi), m.abs(m.mul(_sinpi(m, x), x)))), positive)
    r = m.sel(reflect, reflected, positive)
    pole = m.b.or_(m.eq(m.abs(x), inf), m.b.and_(m.le(x, m.c(0.0)), m.eq(m.call("rint", x), x)))
    return m.sel(m.isnan(x), x, m.sel(pole, inf, r))


# ---- logaddexp, sigmoid -----------------------------------------------------------------------

@_via_f64(full=True)  # f32: the sum may cancel (a near -b), so the terms need f64 accuracy
def _logaddexp(m: _Math, a, b):
    """NumPy's: a + log 2 where a == b (also for infinities), else max + log1p(exp(-|a - b|)).

    Where max and log1p(...) nearly cancel (the result near 0) the error is a few ULP of the
    terms, not of the result; so it is in NumPy."""
    d = m.sub(a, b)
    mx = m.sel(m.gt(a, b), a, b)
    r = m.add(mx, _log1p(m, _exp(m, m.neg(m.abs(d)))))
    return m.sel(m.eq(a, b), m.add(a, m.c(_LN2)), r)  # NaN: d is NaN, so is r


@_via_f64(full=True)  # as logaddexp: the sum may cancel
def _logaddexp2(m: _Math, a, b):
    """NumPy's: a + 1 where a == b (also for infinities), else max + log2(1 + 2**-|a - b|), the
    log2 as log1p / ln 2. The error bound is logaddexp's: a few ULP of the terms."""
    d = m.sub(a, b)
    mx = m.sel(m.gt(a, b), a, b)
    r = m.add(mx, m.mul(_log1p(m, _exp2(m, m.neg(m.abs(d)))), m.c(1 / _LN2)))
    return m.sel(m.eq(a, b), m.add(a, m.c(1.0)), r)  # NaN: d is NaN, so is r


def _sigmoid(m: _Math, x):
    """1 / (1 + exp(-x)), as e / (1 + e) with e = exp(x) for x < 0 so that exp never overflows."""
    e = _exp(m, m.neg(m.abs(x)))
    d = m.add(m.c(1.0), e)
    return m.sel(m.lt(x, m.c(0.0)), m.div(e, d), m.div(m.c(1.0), d))


# ---- fast variants (fast=True) ------------------------------------------------------------------
# Same reductions and special-value selects as the accurate functions (NaN, +-inf, +-0, overflow
# and gradual underflow stay right); shorter polynomials and no extra-precision steps.

def _exp_fast(m: _Math, x):
    xc = _clamp(m, x, *_EXP_LIMITS[m.kind])
    hi, lo = _LN2_EXP[m.kind]
    n = m.call("rint", m.mul(xc, m.c(1 / _LN2)))
    r = m.fma(m.neg(n), m.c(lo), m.fma(m.neg(n), m.c(hi), xc))
    u = m.fma(m.mul(r, r), m.poly(r, _EXP_FAST[m.prec]), r)
    return m.sel(m.isnan(x), x, m.scale(m.add(u, m.c(1.0)), n))


def _log_fast(m: _Math, x):
    """f32: k * ln2 + f - f**2/2 + f**3 * P(f) with a shorter P (_LOG_F_FAST), no division;
    f64: k * ln2 + 2s + s * z * P(z) directly, without _log_parts' f - (hfsq - tail) split."""
    k, f = _log_reduce(m, x)
    hi, lo = _LN2_LOG[m.kind]
    if m.kind == "f32":
        f2 = m.mul(f, f)
        tail = m.fma(m.mul(f2, f), _even_odd_poly(m, f, f2, _LOG_F_FAST), m.mul(m.c(-0.5), f2))
        return _log_special(m, x, m.fma(k, m.c(hi), m.add(f, m.fma(k, m.c(lo), tail))))
    s = m.div(f, m.add(f, m.c(2.0)))
    z = m.mul(s, s)
    p = m.fma(m.mul(s, z), m.poly(z, _LOG_FAST[m.prec]), m.add(s, s))
    return _log_special(m, x, m.fma(k, m.c(hi), m.fma(k, m.c(lo), p)))


def _trig_fast(m: _Math, name: str, x):
    """sin/cos from the same reduction, r_lo kept only to first order, without the double-word
    evaluation of _sin_cos_dd."""
    q, r_hi, r_lo = _trig_reduce(m, x)
    if name == "cos":
        q = m.b.add(q, m.i(1))
    z = m.mul(r_hi, r_hi)
    s = m.add(r_hi, m.fma(m.mul(r_hi, z), m.poly(z, _SIN_FAST[m.prec]), r_lo))
    c = m.add(m.fma(m.c(-0.5), z, m.c(1.0)),
              m.fma(m.mul(z, z), m.poly(z, _COS_FAST[m.prec]), m.mul(m.neg(r_hi), r_lo)))
    odd = m.b.icmp_unsigned("!=", m.b.and_(q, m.i(1)), m.i(0))
    r = m.sel(odd, c, s)
    r = m.sel(m.b.icmp_unsigned("!=", m.b.and_(q, m.i(2)), m.i(0)), m.neg(r), r)
    r = m.sel(m.le(m.abs(x), m.c(TRIG_ARGUMENT_LIMITS[m.kind])), r, m.c(math.nan))  # also inf and NaN
    return r if name == "cos" else _tiny(m, x, r)


# ---- API --------------------------------------------------------------------------------------

_UNARY = {
    "sin": lambda m, x: _trig(m, "sin", x),
    "cos": lambda m, x: _trig(m, "cos", x),
    "tan": lambda m, x: _trig(m, "tan", x),
    "tanh": _tanh, "exp": _exp, "log": _log, "exp2": _exp2, "expm1": _expm1, "log2": _log2,
    "log10": _log10, "log1p": _log1p, "sinh": _sinh, "cosh": _cosh,
    "arctan": _arctan, "arcsin": _arcsin, "arccos": _arccos, "arcsinh": _arcsinh, "arccosh": _arccosh,
    "arctanh": _arctanh, "cbrt": _cbrt, "erf": _erf, "sigmoid": _sigmoid,
    "erfc": _erfc, "gamma": _gamma, "lgamma": _lgamma,
}
_BINARY = {"pow": _pow, "arctan2": _arctan2, "hypot": _hypot, "logaddexp": _logaddexp,
           "logaddexp2": _logaddexp2}
# fast=True variants; every other function falls back to its accurate version.
_UNARY_FAST = {
    "sin": lambda m, x: _trig_fast(m, "sin", x),
    "cos": lambda m, x: _trig_fast(m, "cos", x),
    "tanh": lambda m, x: _tanh(m, x, fast=True), "exp": _exp_fast, "log": _log_fast,
}
_BINARY_FAST: dict = {}
SUPPORTED_UNARY: frozenset[str] = frozenset(_UNARY)
SUPPORTED_BINARY: frozenset[str] = frozenset(_BINARY)
FAST_UNARY: frozenset[str] = frozenset(_UNARY_FAST)  # names with a cheaper fast=True variant
FAST_BINARY: frozenset[str] = frozenset(_BINARY_FAST)


# Functions with a variant for an instruction set (``isa`` of emit_unary / emit_binary): where
# the target has it, the call is to an outside function with vector variants, which LLVM's loop
# vectorizer calls (``vector-function-abi-variant``), and ``isa_definitions`` defines after the
# O3 pipeline, to be inlined (codegen/cpu/target.py). AVX-512's getexp, getmant and scalef
# exist only for vectors; kernel bodies are scalar IR that LLVM vectorizes, so these
# instructions reach a loop only as a vector variant.
ISA_FUNCTIONS: dict[str, frozenset[str]] = {
    "avx512": frozenset({"exp", "exp2", "log", "log2", "log10", "log1p", "pow", "cbrt", "divide"}),
}
# Names whose variant is for some float types only (the others stay inline and portable): f64
# cbrt has none (its polynomial would need a dozen terms at the f32 table's spacing).
ISA_KINDS: dict[str, frozenset[str]] = {"cbrt": frozenset({"f32"})}
ISA_PREFIX = "jitcore_math_"
_ISA_LANES = {"f32": (4, 8, 16), "f64": (2, 4, 8)}  # 128 to 512 bits


# Arguments of the ISA functions that are neither unary nor binary: "divide" is
# mathlib_divide.quotient, x / d from d's reciprocal and window (x, d, y, lo, hi, zero).
_ISA_ARITY = {"divide": 6}


def _divide(m: _Math, *args):
    return mathlib_divide.quotient(m, *args)


def _isa_name(isa: str, name: str, kind: str, lanes: int | None = None) -> str:
    return f"{ISA_PREFIX}{isa}_{name}_{f'v{lanes}' if lanes else ''}{kind}"


def _pure(fn: ir.Function) -> None:
    # llvmlite's attribute sets know no memory(none) or string attributes: added past its check
    for attr in ("nounwind", "memory(none)", "willreturn"):
        set.add(fn.attributes, attr)


def _isa_call(builder: ir.IRBuilder, isa: str, name: str, args: list[ir.Value]) -> ir.Value:
    """A call to ``name``'s ``isa`` function, declared with its vector variants."""
    ty = args[0].type
    kind = "f64" if isinstance(ty, ir.DoubleType) else "f32"
    module = builder.module
    scalar = _isa_name(isa, name, kind)
    fn = module.globals.get(scalar)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * len(args)), scalar)
        _pure(fn)
        variants = []
        for lanes in _ISA_LANES[kind]:
            vector, vty = _isa_name(isa, name, kind, lanes), ir.VectorType(ty, lanes)
            if vector not in module.globals:
                _pure(ir.Function(module, ir.FunctionType(vty, [vty] * len(args)), vector))
            variants.append(f"_ZGV_LLVM_N{lanes}{'v' * len(args)}_{scalar}({vector})")
        set.add(fn.attributes, f'"vector-function-abi-variant"="{",".join(variants)}"')
        _keep(module, [module.globals[_isa_name(isa, name, kind, lanes)] for lanes in _ISA_LANES[kind]])
    return builder.call(fn, args)


def _keep(module: ir.Module, functions: list[ir.Function]) -> None:
    """Add ``functions`` to the module's llvm.compiler.used: the O3 pipeline drops unused
    declarations before the loop vectorizer looks for the variants (their definitions then stay
    in the object code, unused once inlined)."""
    used = module.globals.get("llvm.compiler.used")
    if used is None:
        used = ir.GlobalVariable(module, ir.ArrayType(ir.PointerType(), 0), "llvm.compiler.used")
        used.linkage, used.section = "appending", "llvm.metadata"
        used.initializer = ir.Constant(used.value_type, [])
    members = [*used.initializer.constant, *functions]
    used.value_type = ir.ArrayType(ir.PointerType(), len(members))  # grown in place: one per module
    used.initializer = ir.Constant(used.value_type, members)


def isa_definitions(names: tuple[str, ...], vector_bits: int = 512) -> str | None:
    """LLVM IR defining the functions among ``names`` that _isa_call declares (scalar and
    vector), linkonce_odr and always inlined: the scalar ones with the portable code, the vector
    ones with the instruction set's on vectors up to ``vector_bits`` (the target's width). None
    if there are none."""
    module = ir.Module(name="jitcore_math")
    found = False
    for full in names:
        parts = full[len(ISA_PREFIX):].split("_") if full.startswith(ISA_PREFIX) else []
        if len(parts) != 3 or parts[0] not in ISA_FUNCTIONS or parts[1] not in ISA_FUNCTIONS[parts[0]]:
            continue
        isa, name, shape = parts
        kind = shape[-3:]
        elem = ir.DoubleType() if kind == "f64" else ir.FloatType()
        ty = ir.VectorType(elem, int(shape[1:-3])) if shape.startswith("v") else elem
        arity = _ISA_ARITY.get(name, 2 if name in _BINARY else 1)
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * arity), full)
        fn.linkage = "linkonce_odr"
        fn.attributes.add("alwaysinline")
        _pure(fn)
        # inlined into a caller that has it, a callee without it would drop it (LLVM's rule)
        set.add(fn.attributes, f'"min-legal-vector-width"="{vector_bits}"')
        b = ir.IRBuilder(fn.append_basic_block())
        m = _Math(b, ty, isa=frozenset({isa}), isa_bits=vector_bits)
        b.ret({**_UNARY, **_BINARY, "divide": _divide}[name](m, *fn.args))
        found = True
    return str(module) if found else None


def emit_unary(builder: ir.IRBuilder, name: str, x: ir.Value, fast: bool = False,
               isa: frozenset[str] = frozenset()) -> ir.Value:
    """Emit ``name(x)`` inline at the builder's position; x is f32/f64, scalar or vector.

    fast=True (``jc.jit(..., fastmath=True)``) emits the cheaper variant for the names in
    FAST_UNARY, within the error bounds in the module docstring; other names ignore it.
    ``isa``: the target's instruction sets (``codegen.cpu.target.math_isa``); for a scalar x and
    a name in ISA_FUNCTIONS, a call to that function (see _isa_call) in place of inline code."""
    emit = _UNARY_FAST.get(name) if fast else None
    kind = "f64" if isinstance(x.type, ir.DoubleType) else "f32"
    if emit is None and not isinstance(x.type, ir.VectorType) and kind in ISA_KINDS.get(name, (kind,)):
        for tag in sorted(isa):
            if name in ISA_FUNCTIONS.get(tag, ()):
                return _isa_call(builder, tag, name, [x])
    return (emit or _UNARY[name])(_Math(builder, x.type), x)


# The float types whose division by a row's value pays for the reciprocal's products, checks
# and branch: float64 (Zen 4, in cache: e / s 0.33 -> 0.25 ns an element, layernorm -20%);
# float32's vdivps issues twice the lanes as often, and e / s took 10% longer, layernorm 11%.
DIVIDE_KINDS = frozenset({"f64"})


def emit_divide_invariant(builder: ir.IRBuilder, x: ir.Value, d: ir.Value, isa: frozenset[str],
                          kinds: frozenset[str] = DIVIDE_KINDS) -> ir.Value:
    """``x / d`` (scalar f32 or f64) for a divisor the vectorized loop does not change: where
    ``isa`` has a "divide" function and x's type is in ``kinds``, a call to it with d's
    reciprocal and window computed here (hoisted by LLVM), so that the vector lanes multiply
    where they can (``mathlib_divide.py``); elsewhere, the division. The same bits either way."""
    kind = "f64" if isinstance(x.type, ir.DoubleType) else "f32"
    for tag in sorted(isa) if kind in kinds else ():
        if "divide" in ISA_FUNCTIONS.get(tag, ()):
            return _isa_call(builder, tag, "divide", [x, d, *mathlib_divide.row_values(builder, d)])
    return builder.fdiv(x, d)


def emit_binary(builder: ir.IRBuilder, name: str, x: ir.Value, y: ir.Value,
                fast: bool = False, isa: frozenset[str] = frozenset()) -> ir.Value:
    """Emit ``name(x, y)`` inline at the builder's position; x and y have the same float type.

    fast=True uses the FAST_BINARY variant where there is one (none yet: the accurate path);
    ``isa`` as for emit_unary."""
    emit = _BINARY_FAST.get(name) if fast else None
    kind = "f64" if isinstance(x.type, ir.DoubleType) else "f32"
    if emit is None and not isinstance(x.type, ir.VectorType) and kind in ISA_KINDS.get(name, (kind,)):
        for tag in sorted(isa):
            if name in ISA_FUNCTIONS.get(tag, ()):
                return _isa_call(builder, tag, name, [x, y])
    return (emit or _BINARY[name])(_Math(builder, x.type), x, y)
