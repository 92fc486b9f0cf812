"""codegen.mathlib fast=True variants: within the error bounds documented in the module docstring,
on the test_mathlib sweeps, random arguments and special values (IEEE special values unchanged)."""

import ctypes

import numpy as np
import pytest
from llvmlite import ir
from test_mathlib import DTYPES, TRIG_LIMIT, build_loop, reference, specials, sweep, ulp_distance

from jitcore.codegen import mathlib
from jitcore.codegen.cpu import target

# The table in codegen/mathlib.py's docstring (keep the two in step).
FAST_ULP_BOUND = {
    ("exp", "f32"): 5, ("log", "f32"): 7, ("tanh", "f32"): 7, ("sin", "f32"): 1, ("cos", "f32"): 1,
    ("exp", "f64"): 8, ("log", "f64"): 6, ("tanh", "f64"): 23, ("sin", "f64"): 1, ("cos", "f64"): 1,
}
FAST = sorted(mathlib.FAST_UNARY)
_kernels: dict = {}


def fast_kernel(name, kind):
    """Callable on NumPy arrays: the test_mathlib loop with emit_unary(..., fast=True)."""
    if (name, kind) not in _kernels:
        orig = mathlib.emit_unary
        mathlib.emit_unary = lambda b, n, x: orig(b, n, x, fast=True)
        try:
            _, addrs = target.compile_module(build_loop(name, kind), ["k"])
        finally:
            mathlib.emit_unary = orig
        cfunc = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(addrs["k"])

        def run(x):
            x = np.ascontiguousarray(x, dtype=DTYPES[kind])
            out = np.empty_like(x)
            cfunc(x.ctypes.data, out.ctypes.data, out.size)
            return out

        _kernels[name, kind] = run
    return _kernels[name, kind]


def check_fast(name, kind, x):
    got = fast_kernel(name, kind)(x)
    d = ulp_distance(got, reference(name, kind, x))
    bound = FAST_ULP_BOUND[name, kind]
    bad = d > bound
    assert not bad.any(), (f"fast {name} {kind}: {bad.sum()} over {bound} ULP, max {d.max()}: "
                           f"{list(zip(x[bad][:5], got[bad][:5]))}")


def test_fast_names_documented():
    assert {"exp", "log", "tanh", "sin", "cos"} <= mathlib.FAST_UNARY
    assert set(FAST_ULP_BOUND) == {(n, k) for n in mathlib.FAST_UNARY for k in DTYPES}
    for (name, _kind), bound in FAST_ULP_BOUND.items():
        assert f"{name}" in mathlib.__doc__ and f"<= {bound} ULP" in mathlib.__doc__


def random_args(name, kind, n=500_000):
    rng = np.random.default_rng(7)
    if name == "log":
        hi = 708 if kind == "f64" else 87
        return np.concatenate([np.exp(rng.uniform(-hi, hi, n)), rng.uniform(0.5, 2, n)])
    lim = {"exp": 709 if kind == "f64" else 88, "tanh": 40, "sin": 200, "cos": 200}[name]
    return np.concatenate([rng.uniform(-lim, lim, n), rng.uniform(-1, 1, n)])


@pytest.mark.parametrize("kind", ["f32", "f64"])
@pytest.mark.parametrize("name", FAST)
def test_fast_sweep(name, kind):
    for x in (sweep(name, kind), random_args(name, kind)):
        check_fast(name, kind, x.astype(DTYPES[kind]))


@pytest.mark.parametrize("kind", ["f32", "f64"])
@pytest.mark.parametrize("name", FAST)
def test_fast_special_values(name, kind):
    x = specials(kind)
    if name in ("sin", "cos"):
        far = np.abs(x) > TRIG_LIMIT[kind]
        assert np.isnan(fast_kernel(name, kind)(x[far])).all()
        x = x[~far]
    check_fast(name, kind, x)
    # IEEE special values exactly, signed zeros included.
    inf, nan = np.inf, np.nan
    cases = {
        "exp": [(nan, nan), (inf, inf), (-inf, 0.0), (0.0, 1.0), (-0.0, 1.0), (1000.0, inf),
                (-1000.0, 0.0)],
        "log": [(nan, nan), (inf, inf), (-inf, nan), (0.0, -inf), (-0.0, -inf), (-1.0, nan), (1.0, 0.0)],
        "tanh": [(nan, nan), (inf, 1.0), (-inf, -1.0), (0.0, 0.0), (-0.0, -0.0), (1000.0, 1.0)],
        "sin": [(nan, nan), (inf, nan), (-inf, nan), (0.0, 0.0), (-0.0, -0.0)],
        "cos": [(nan, nan), (inf, nan), (-inf, nan), (0.0, 1.0), (-0.0, 1.0)],
    }[name]
    dt = DTYPES[kind]
    xs, want = np.array([c[0] for c in cases], dt), np.array([c[1] for c in cases], dt)
    got = fast_kernel(name, kind)(xs)
    np.testing.assert_array_equal(got, want, err_msg=f"fast {name} {kind}")
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()
    # Gradual underflow: exp of arguments whose results are subnormal.
    if name == "exp":
        lo = -103.0 if kind == "f32" else -744.0
        check_fast(name, kind, np.linspace(lo, lo + 16, 20001).astype(dt))


def test_fast_signature_and_fallback():
    """fast is a keyword with default False; names without a fast variant emit the accurate code;
    positional calls keep working."""
    def ir_of(name, fast, binary=False):
        module = ir.Module()
        fty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()] * (2 if binary else 1))
        fn = ir.Function(module, fty, "f")
        b = ir.IRBuilder(fn.append_basic_block())
        if binary:
            b.ret(mathlib.emit_binary(b, name, *fn.args, fast=fast))
        else:
            b.ret(mathlib.emit_unary(b, name, fn.args[0], fast=fast))
        return str(module)

    assert ir_of("arctan", True) == ir_of("arctan", False)
    assert ir_of("pow", True, binary=True) == ir_of("pow", False, binary=True)
    assert ir_of("exp", True) != ir_of("exp", False)
