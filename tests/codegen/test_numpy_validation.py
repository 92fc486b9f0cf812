"""codegen.mathlib against NumPy's own accuracy data: numpy/_core/tests/data/umath-validation-set-*.csv.

Each row holds a dtype, an input and the correctly rounded output (both as hex bits) and the ULP
error NumPy allows for that function and dtype. Every row of every file whose function the library
implements is run through the compiled loop kernel of test_mathlib and must come within the row's
ULP (NaN matches NaN; zeros must agree in sign).

sin/cos/tan rows beyond mathlib.TRIG_ARGUMENT_LIMITS[dtype] (2**17 for f32, 2**43 for f64) are out of
the library's documented range: it must return NaN there (the code generator detects that and
reruns the kernel with libm, see codegen/cpu/schedule.py), and that is what is checked for them.

``python -m tests.codegen.test_numpy_validation`` (from the repository root) prints rows, max ULP
and failures per function.
"""

import math
import os

import numpy as np
import pytest

from jitcore.codegen import mathlib
from tests.codegen.test_mathlib import kernel, ulp_distance

DATA = os.path.join(os.path.dirname(np.__file__), "_core", "tests", "data")
PREFIX, SUFFIX = "umath-validation-set-", ".csv"
TRIG = {"sin", "cos", "tan"}
KINDS = {"np.float32": ("f32", np.float32, np.uint32), "np.float64": ("f64", np.float64, np.uint64)}


def available() -> list[str]:
    """Names of the library's functions that NumPy ships validation data for."""
    if not os.path.isdir(DATA):
        return []
    files = [f for f in os.listdir(DATA) if f.startswith(PREFIX) and f.endswith(SUFFIX)]
    names = [f[len(PREFIX):-len(SUFFIX)] for f in files]
    return sorted(n for n in names if n in mathlib.SUPPORTED_UNARY)


def rows(name: str, kind: str):
    """(inputs, expected, allowed ULP) of one function's file for one dtype, all rows of it."""
    xs, want, tol = [], [], []
    with open(os.path.join(DATA, PREFIX + name + SUFFIX)) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) != 4 or fields[0] not in KINDS or KINDS[fields[0]][0] != kind:
                continue  # header, comments ("## denormals ##"), the other dtype
            xs.append(int(fields[1], 16))
            want.append(int(fields[2], 16))
            tol.append(int(fields[3]))
    _, fty, ity = KINDS["np.float32" if kind == "f32" else "np.float64"]
    return np.array(xs, ity).view(fty), np.array(want, ity).view(fty), np.array(tol)


def measure(name: str, kind: str) -> dict:
    """Run every row; the ULP error of each row checked against its data, and the out-of-range
    trig rows that did not come back NaN."""
    x, want, tol = rows(name, kind)
    got = kernel(name, kind)[1](x)
    d = ulp_distance(got, want)
    far = np.abs(x) > mathlib.TRIG_ARGUMENT_LIMITS[kind] if name in TRIG else np.zeros(x.shape, bool)
    bad = (d > tol) & ~far
    not_nan = far & ~np.isnan(got)
    worst = [(float(x[k]), float(got[k]), float(want[k]), float(d[k])) for k in np.flatnonzero(bad)[:5]]
    return {"rows": x.size, "checked": int((~far).sum()), "beyond_range": int(far.sum()),
            "max_ulp": float(d[~far].max()) if (~far).any() else 0.0, "failures": int(bad.sum()),
            "beyond_range_not_nan": int(not_nan.sum()), "worst": worst}


NAMES = available()
# Known failures, measured: (function, dtype) -> rows over the allowed ULP.
XFAIL: dict = {}
CASES = [pytest.param(name, kind, marks=[pytest.mark.xfail(
             strict=True, reason=f"{XFAIL[name, kind]} rows at 2 ULP where NumPy allows 1")]
             if (name, kind) in XFAIL else [])
         for name in NAMES for kind in ("f32", "f64")]


@pytest.mark.skipif(not NAMES, reason=f"this NumPy ships no umath validation data in {DATA}")
@pytest.mark.parametrize("name, kind", CASES or [("none", "f64")])
def test_validation_set(name, kind):
    r = measure(name, kind)
    assert r["rows"] > 0, f"no {kind} rows for {name}"
    assert r["failures"] == 0, (f"{name} {kind}: {r['failures']} of {r['checked']} rows over the allowed "
                                f"ULP, max {r['max_ulp']}: (input, got, want, ulp) {r['worst']}")
    assert r["beyond_range_not_nan"] == 0, f"{name} {kind}: past the trig argument limit without NaN"


@pytest.mark.skipif(not NAMES, reason=f"this NumPy ships no umath validation data in {DATA}")
def test_every_new_function_has_data():
    """The files NumPy ships for the inverse/hyperbolic functions and cbrt are all used."""
    assert {"arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "cbrt"} <= set(NAMES)


def main():
    print(f"{'function':9s} {'dtype':5s} {'rows':>5s} {'checked':>7s} {'max ulp':>7s} {'failures':>8s}")
    for name in NAMES:
        for kind in ("f32", "f64"):
            r = measure(name, kind)
            limit = math.log2(mathlib.TRIG_ARGUMENT_LIMITS[kind])
            extra = ""
            if r["beyond_range"]:
                extra = f"  ({r['beyond_range']} rows past 2**{limit:g}: NaN as documented)"
            print(f"{name:9s} {kind:5s} {r['rows']:5d} {r['checked']:7d} {r['max_ulp']:7.0f} "
                  f"{r['failures']:8d}{extra}")


if __name__ == "__main__":
    main()
