"""How the coverage table compares jitcore's result with NumPy's: ``Tol`` says how (exactly,
within the ULP bounds of tests/oracle.py ``ULP_BOUNDS``, or, where the order of operations is not
NumPy's, within its forward error bound ``ORDER_BOUNDS``), ``compare`` does it."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from tests.oracle import ORDER_BOUNDS, assert_matches, assert_within, order_bound, ulp_bound


@dataclass(frozen=True)
class Tol:
    """How a case's float results are compared with NumPy's.

    ``exact``: bit for bit (floats may differ only in NaN payload). ``ulp``: within
    ``ulp_bound(key, dtype)`` ULP (1 for float16 results, which both compute in float32 and
    round once). ``order``: the rounding depends on the order of operations, which is not
    NumPy's; within the forward error bound ``ORDER_BOUNDS[key]`` of tests/oracle.py, with n
    the terms per result (``count``: ``size``, the reduced elements per result; ``ones``, the
    operation applied to ones; ``all``, every element of the largest input) and S the
    operation applied to |x|. Float16 sums, products, means and variances are compared with
    NumPy's own answer on the operands in their own layouts (jitcore follows NumPy's float16
    loops), float16 contractions with NumPy computed in float32 and rounded once
    (``harness._float16_expected``). ``meta``: only dtype and shape (``np.empty``). ``complex``,
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


def complex_expm1_within_term_ulps(actual, expected, z, bound):
    """Complex ``actual`` with real parts within ``bound`` ULP of the larger term of NumPy's
    ``expm1(re) cos(im) - 2 sin(im / 2)**2`` replaced by NumPy's: where the terms cancel, the
    difference keeps the terms' absolute error, in NumPy as in jitcore. Specials stay."""
    with np.errstate(all="ignore"):
        z = np.broadcast_to(np.asarray(z), expected.shape).astype(np.complex128)
        terms = np.maximum(np.abs(np.expm1(z.real) * np.cos(z.imag)), 2 * np.sin(z.imag / 2) ** 2)
        ulp = np.spacing(terms.astype(expected.real.dtype)).astype(np.float64)
        out = actual.copy()
        err = np.abs(out.real.astype(np.float64) - expected.real.astype(np.float64))
        ok = np.isfinite(err) & (err > 0) & (err <= bound * ulp)
        out.real[ok] = expected.real[ok]
    return out


def complex_within_modulus_ulps(actual, expected, bound):
    """``actual`` with the elements within ``bound`` ULP of ``|expected|`` replaced by NumPy's:
    a complex quotient (``sin(y) / y``) is accurate relative to its modulus, not part by part
    (a part that cancels keeps the absolute error of the other). Specials stay."""
    with np.errstate(all="ignore"):
        err = np.abs(actual.astype(np.complex128) - expected.astype(np.complex128))
        ulp = np.spacing(np.abs(expected)).astype(np.float64)
        ok = np.isfinite(err) & (err <= bound * ulp)
    return np.where(ok, expected, actual)


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
        if tol.key == "sinc" and actual.shape == expected.shape:
            actual = complex_within_modulus_ulps(actual, expected, ulp_bound("complex sinc", np.float64))
        if tol.key == "expm1" and actual.shape == expected.shape:
            bound = ulp_bound("complex expm1", np.float64)
            actual = complex_expm1_within_term_ulps(actual, expected, args[0], bound)
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
