"""The code generator on its own: ``kernel.generic`` IR text in, numbers out, against NumPy.

Each test writes a function of kernels as IR text (no tracing, no fusion), compiles it with a
backend and compares every result with a NumPy reference: every scalar op family in every dtype
on random data that always holds the special values (every pair of them for binary ops),
reductions and scans, indexing maps (transpose, broadcast, strided and reversed slices,
constants, diagonals, clamped reads, copies), and operands passed in every layout of
``tests/layouts.py``. Floats are compared in ULPs (``tests.oracle``), everything else exactly.

``BACKENDS`` maps a name to a function ``(ir_text, arrays) -> results``. A new backend (a GPU,
a threaded runtime) adds an entry and must pass the whole file.
"""
# ruff: noqa: E501  (IR text is one op per line)

from __future__ import annotations

import contextlib
import functools
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest

from jitcore import config, ir, pytree
from jitcore.codegen.backend import backend_for
from jitcore.codegen.cpu import runtime
from jitcore.codegen.plan import LowerOptions
from jitcore.dispatch import ARRAY_HEADER, Executable
from jitcore.ir import layout_class
from jitcore.ir.attributes import numpy_dtype
from tests.gpu_emulator import run_on_cuda
from tests.layouts import LAYOUTS, relayout
from tests.oracle import assert_matches, ulp_bound


# -- backends -----------------------------------------------------------------------------------
@functools.cache
def _cpu_executable(text: str, contiguous: tuple[bool, ...], header, split: bool = False) -> Executable:
    module = ir.parse(text)
    ir.verify(module)
    (func,) = module.functions()
    # split: every kernel that may split is compiled split, however small
    with mock.patch.object(runtime, "MIN_SPLIT_WORK", 0) if split else contextlib.nullcontext():
        classes = tuple(layout_class.C if c else layout_class.STRIDED for c in contiguous)
        plan = backend_for("cpu").lower(func, classes, LowerOptions(header=header))
    results = len(func.attributes["function_type"].results)
    return Executable(plan, pytree.flatten(tuple(range(results)))[1])


def run_cpu(text: str, arrays: list[np.ndarray], header=ARRAY_HEADER) -> tuple:
    """Compile for these arrays' layouts (strided code for non-contiguous ones, as jit does) and run."""
    return _cpu_executable(text, tuple(a.flags.c_contiguous for a in arrays), header)(list(arrays))


def run_cpu_threaded(text: str, arrays: list[np.ndarray]) -> tuple:
    """The CPU backend with every launch that may split cut into chunks of 37 iteration points
    (odd, so ranges start mid-vector) on 3 threads, whatever the size: compiled split, and the
    threshold is 0."""
    contiguous = tuple(a.flags.c_contiguous for a in arrays)
    with config.using(num_threads=3, parallel_threshold=0, chunk_size=37):
        return _cpu_executable(text, contiguous, ARRAY_HEADER, split=True)(list(arrays))


BACKENDS = {"cpu": run_cpu, "cpu-threads": run_cpu_threaded, "cuda": run_on_cuda}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    return BACKENDS[request.param]


# -- IR text ----------------------------------------------------------------------------------
def ttype(shape, t: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{t}>"


def amap(num_dims: int, exprs) -> str:
    dims = ", ".join(f"d{i}" for i in range(num_dims))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


def identity(n: int) -> str:
    return amap(n, [f"d{i}" for i in range(n)])


@dataclass
class Kernel:
    """One kernel.generic. Inputs are (value, shape, element type, map); the body reads them as
    %in0, %in1, ... and its accumulators (reductions, scans) as %acc0, ...; its last line yields."""

    inputs: list[tuple[str, tuple, str, str]]
    outputs: list[tuple[tuple, str, str]]
    body: list[str]
    iterators: list[str] = field(default_factory=list)
    inits: list[str] | None = None
    attrs: str = ""

    def text(self, names: list[str]) -> str:
        iters = self.iterators or ["parallel"] * len(self.outputs[0][0])
        args = [f"%in{i}: {t}" for i, (_, _, t, _) in enumerate(self.inputs)]
        if self.inits is not None:
            args += [f"%acc{k}: {t}" for k, (_, t, _) in enumerate(self.outputs)]
        maps = [m for *_, m in self.inputs] + [m for *_, m in self.outputs]
        attrs = f"{self.attrs}indexing_maps = [{', '.join(maps)}]"
        if self.inits is not None:
            attrs += f", inits = [{', '.join(self.inits)}]"
        attrs += ", iterator_types = [" + ", ".join(f'"{i}"' for i in iters) + "]"
        in_types = ", ".join(ttype(s, t) for _, s, t, _ in self.inputs)
        out_types = ", ".join(ttype(s, t) for s, t, _ in self.outputs)
        body = "".join(f"      {line}\n" for line in self.body)
        return (f'    {", ".join(names)} = "kernel.generic"({", ".join(v for v, *_ in self.inputs)}) ({{\n'
                f"    ^bb0({', '.join(args)}):\n{body}"
                f"    }}) {{{attrs}}} : ({in_types}) -> ({out_types})\n")


def module(args: list[tuple[tuple, str]], kernels: list[Kernel]) -> str:
    """A function ``k`` of arguments ``(shape, type)`` returning every result of its kernels
    (kernel ``i``'s results are %k{i}_0, %k{i}_1, ...)."""
    body, results = "", []
    for i, k in enumerate(kernels):
        names = [f"%k{i}_{j}" for j in range(len(k.outputs))]
        body += k.text(names)
        results += [(n, ttype(s, t)) for n, (s, t, _) in zip(names, k.outputs)]
    arg_types = [ttype(s, t) for s, t in args]
    sig = f"({', '.join(arg_types)}) -> ({', '.join(t for _, t in results)})"
    bb = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arg_types))
    return ('"builtin.module"() ({\n  "func.func"() ({\n' + f"  ^bb0({bb}):\n" + body
            + f'    "func.return"({", ".join(n for n, _ in results)}) : ({", ".join(t for _, t in results)}) -> ()\n'
            + f'  }}) {{function_type = {sig}, sym_name = "k"}} : () -> ()\n}}) : () -> ()')


def scalar_op(name: str, operands: list[str], in_types: list[str], out_type: str, attrs: str = "",
              result: str = "%v") -> str:
    return f'{result} = "{name}"({", ".join(operands)}){attrs} : ({", ".join(in_types)}) -> {out_type}'


def elementwise(shape: tuple, arg_types: list[str], cases: list[tuple], more: tuple[Kernel, ...] = ()) -> str:
    """One kernel per case ``(op, argument indices, result type, attrs)``: the op applied to
    those arguments, element by element; then the kernels ``more``."""
    kernels = []
    for name, indices, out_type, attrs in cases:
        inputs = [(f"%arg{i}", shape, arg_types[i], identity(len(shape))) for i in indices]
        ins = [f"%in{j}" for j in range(len(indices))]
        body = [scalar_op(name, ins, [arg_types[i] for i in indices], out_type, attrs),
                f'"kernel.yield"(%v) : ({out_type}) -> ()']
        kernels.append(Kernel(inputs, [(shape, out_type, identity(len(shape)))], body))
    return module([(shape, t) for t in arg_types], kernels + list(more))


# -- data ---------------------------------------------------------------------------------------
FLOATS, SIGNED, UNSIGNED = ("f16", "f32", "f64"), ("i8", "i16", "i32", "i64"), ("ui8", "ui16", "ui32", "ui64")
INTEGERS = SIGNED + UNSIGNED
COMPLEX = ("complex<f32>", "complex<f64>")


def dtype(t: str) -> np.dtype:
    return numpy_dtype(ir.ScalarType(t))


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def specials(t: str) -> np.ndarray:
    dt = dtype(t)
    if dt.kind == "f":
        info = np.finfo(dt)
        return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -1.5, 2.5, 3.0, 1e4, info.max,
                         -info.max, info.tiny, info.smallest_subnormal, -info.smallest_subnormal], dt)
    if dt.kind == "b":
        return np.array([False, True])
    info = np.iinfo(dt)
    values = [0, 1, 2, 7, info.max, info.max - 1, info.min, info.min + 1]
    return np.array(values + ([-1, -2, -7] if dt.kind == "i" else [info.max // 2]), dt)


def randoms(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = dtype(t)
    if dt.kind == "f":
        magnitude = 10.0 ** rng.uniform(-4, 4, n)
        with np.errstate(over="ignore"):
            return (rng.choice([-1.0, 1.0], n) * magnitude).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)


def grid(t: str, arity: int, rng: np.random.Generator, extra: int = 64, cols: int = 8) -> list[np.ndarray]:
    """``arity`` arrays of shape (rows, cols): every combination of ``t``'s specials, then random
    values, padded to whole rows."""
    s = specials(t)
    combos = np.stack(np.meshgrid(*[s] * arity, indexing="ij"), -1).reshape(-1, arity)
    n = -(-(len(combos) + extra) // cols) * cols
    tail = np.stack([randoms(t, n - len(combos), rng) for _ in range(arity)], -1)
    data = np.concatenate([combos, tail.astype(s.dtype)])
    return [np.ascontiguousarray(data[:, i].reshape(-1, cols)) for i in range(arity)]


def make_complex(re, im):
    z = np.empty(re.shape, np.result_type(re.dtype, np.complex64))
    z.real, z.imag = re, im
    return z


def signed_view(x):
    return x.view(f"i{x.itemsize}")


def unsigned_view(x):
    return x.view(f"u{x.itemsize}")


# -- arithmetic -----------------------------------------------------------------------------------
def _maximumf(which, half):
    """NaN in either operand wins; otherwise the larger (smaller), and on a tie of 0.0 and -0.0
    the second operand (float16: the first): codegen/scalar.py's rule."""
    def ref(x, y):
        if which == "max":
            better = (x >= y) if half else (x > y)
        else:
            better = (x <= y) if half else (x < y)
        return np.where(better | np.isnan(x), x, y)
    return ref


def _round_fraction(value: Fraction, dt: np.dtype):
    """``value`` correctly rounded to ``dt`` (ties to even; beyond the largest float, inf)."""
    big = np.finfo(dt).max
    if abs(value) >= Fraction(float(big)) + (Fraction(float(big)) - Fraction(float(np.nextafter(big, 0)))) / 2:
        return dt.type(np.inf if value > 0 else -np.inf)
    guess = dt.type(float(value))
    candidates = [c for c in (np.nextafter(guess, dt.type(-np.inf)), guess, np.nextafter(guess, dt.type(np.inf)))
                  if np.isfinite(c)]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - value), int(c.view(f"u{dt.itemsize}")) & 1))


def _fma(x, y, z):
    """a * b + c rounded once, from exact rational arithmetic."""
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i in np.ndindex(x.shape):
            a, b, c = x[i], y[i], z[i]
            exact = np.isfinite(a) and np.isfinite(b) and np.isfinite(c)
            value = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)) if exact else None
            if value is None and np.isfinite(a) and np.isfinite(b):
                out[i] = c  # a finite product plus inf or NaN
            elif value is None or (value == 0 and (a == 0 or b == 0)):
                out[i] = np.float64(a) * np.float64(b) + np.float64(c)  # inf, NaN, signed zeros
            else:
                out[i] = _round_fraction(value, x.dtype)
    return out


EXACT_FLOAT = {  # op: (arity, NumPy reference)
    "arith.addf": (2, np.add), "arith.subf": (2, np.subtract), "arith.mulf": (2, np.multiply),
    "arith.divf": (2, np.divide), "arith.remf": (2, np.fmod), "arith.negf": (1, np.negative),
    "math.copysign": (2, np.copysign), "math.absf": (1, np.abs), "math.floor": (1, np.floor),
    "math.ceil": (1, np.ceil), "math.trunc": (1, np.trunc), "math.rint": (1, np.rint),
    "math.sqrt": (1, np.sqrt),
}


@pytest.mark.parametrize("t", FLOATS)
def test_float_arithmetic_is_exact(backend, t):
    x, y, z = grid(t, 3, rng_for("float arithmetic", t), extra=32)
    ops = {**EXACT_FLOAT, "arith.maximumf": (2, _maximumf("max", t == "f16")),
           "arith.minimumf": (2, _maximumf("min", t == "f16"))}
    if t != "f16":
        ops["math.fma"] = (3, _fma)
    cases = [(name, list(range(arity)), t, "") for name, (arity, _) in ops.items()]
    outs = backend(elementwise(x.shape, [t] * 3, cases), [x, y, z])
    for (name, (arity, ref)), out in zip(ops.items(), outs):
        with np.errstate(all="ignore"):
            want = ref(*[x, y, z][:arity]).astype(x.dtype)
        assert_matches(out, want, 0, f"{name} {t}")


UNARY_MATH = ("sin", "cos", "tan", "tanh", "exp", "log", "exp2", "expm1", "log2", "log10", "log1p",
              "cbrt", "sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")
BINARY_MATH = {"arctan2": "arctan2", "hypot": "hypot", "logaddexp": "logaddexp",
               "logaddexp2": "logaddexp2", "powf": "power"}


def _within_term_ulps(out, want, x, y, bound):
    """logaddexp cancels near a zero result: count its error in ULP of the largest term, as
    tests/codegen/test_mathlib.py does, and take NumPy's value where that is within bound."""
    with np.errstate(all="ignore"):
        scale = np.maximum(np.maximum(np.abs(want), np.abs(np.maximum(x, y))), np.abs(want - np.maximum(x, y)))
        err = np.abs(out.astype(np.float64) - want.astype(np.float64)) / np.spacing(scale).astype(np.float64)
    return np.where(np.isfinite(err) & (err <= bound), want, out)


@pytest.mark.parametrize("t", FLOATS)
def test_float_math_within_the_oracle_bounds(backend, t):
    x, y = grid(t, 2, rng_for("float math", t), extra=200)
    cases = [(f"math.{f}", [0], t, "") for f in UNARY_MATH] + [(f"math.{f}", [0, 1], t, "") for f in BINARY_MATH]
    outs = backend(elementwise(x.shape, [t, t], cases), [x, y])
    names = list(UNARY_MATH) + list(BINARY_MATH.values())
    for name, out in zip(names, outs):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x) if name in UNARY_MATH else getattr(np, name)(x, y)
        key = "pow" if name == "power" else name
        bound = ulp_bound(key, x.dtype)
        if name in ("logaddexp", "logaddexp2"):
            out = _within_term_ulps(out, want, x, y, bound)
        assert_matches(out, want, bound, f"math.{name} {t}")


def _floordiv(x, y):
    """arith.floordivsi: Python's //, 0 for a zero divisor, MIN // -1 wraps to MIN."""
    with np.errstate(all="ignore"):
        q = np.floor_divide(x, np.where((y == 0) | (y == -1), 1, y))
    return np.where(y == 0, 0, np.where(y == -1, np.negative(x), q)).astype(x.dtype)


def _floormod(x, y):
    with np.errstate(all="ignore"):
        r = np.remainder(x, np.where((y == 0) | (y == -1), 1, y))
    return np.where((y == 0) | (y == -1), 0, r).astype(x.dtype)


def _unsigned_divmod(fn):
    def ref(x, y):
        return np.where(y == 0, 0, fn(x, np.where(y == 0, 1, y))).astype(x.dtype)
    return ref


def _shift(kind):
    """Counts outside [0, width), read as unsigned, give 0 (or -1 for a negative x >> n)."""
    def ref(x, n):
        width = 8 * x.itemsize
        count = unsigned_view(n)
        inside = count < width
        safe = np.where(inside, count, 0).astype(x.dtype)
        if kind == "shl":
            return np.where(inside, np.left_shift(x, safe), 0).astype(x.dtype)
        if kind == "ashr":
            s = signed_view(x)
            return np.where(inside, s >> safe.view(s.dtype), np.where(s < 0, -1, 0)).astype(s.dtype).view(x.dtype)
        u = unsigned_view(x)
        return np.where(inside, u >> safe.view(u.dtype), 0).astype(u.dtype).view(x.dtype)
    return ref


def _ipow(x, e):
    """math.ipowi: x ** e wrapping; for a negative signed e, 1 / x ** -e truncated (1, -1 or 0)."""
    width, signed = 8 * x.itemsize, x.dtype.kind == "i"
    out = []
    for a, b in zip(x.ravel().tolist(), e.ravel().tolist()):
        if signed and b < 0:
            value = 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
        else:
            value = pow(a % (1 << width), b % (1 << width), 1 << width)
        out.append(value)
    return np.array([v % (1 << width) for v in out], dtype=f"u{x.itemsize}").view(x.dtype).reshape(x.shape)


def _popcount(x):
    return np.bitwise_count(unsigned_view(x)).astype(x.dtype)


def _gcd(x, y):
    return np.gcd(unsigned_view(x), unsigned_view(y)).view(x.dtype)


@pytest.mark.parametrize("t", INTEGERS)
def test_integer_arithmetic_wraps_and_is_defined_everywhere(backend, t):
    x, y = grid(t, 2, rng_for("integer arithmetic", t))
    s = "si" if t in SIGNED else "ui"
    ops = {
        "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
        "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
        "arith.shli": _shift("shl"), "arith.shrsi": _shift("ashr"), "arith.shrui": _shift("lshr"),
        f"arith.max{s}": np.maximum, f"arith.min{s}": np.minimum, "math.ipowi": _ipow,
        "math.gcdui": _gcd,
    }
    if s == "si":
        ops.update({"arith.floordivsi": _floordiv, "arith.floormodsi": _floormod, "math.absi": np.abs})
    else:
        ops.update({"arith.divui": _unsigned_divmod(np.floor_divide), "arith.remui": _unsigned_divmod(np.remainder)})
    ops["math.ctpop"] = _popcount
    unary = {"math.absi", "math.ctpop"}
    cases = [(name, [0] if name in unary else [0, 1], t, "") for name in ops]
    outs = backend(elementwise(x.shape, [t, t], cases), [x, y])
    for (name, ref), out in zip(ops.items(), outs):
        with np.errstate(all="ignore"):
            want = (ref(x) if name in unary else ref(x, y)).astype(x.dtype)
        assert_matches(out, want, 0, f"{name} {t}")


CMPF = {
    "oeq": lambda x, y: x == y, "one": lambda x, y: (x < y) | (x > y), "olt": np.less,
    "ole": np.less_equal, "ogt": np.greater, "oge": np.greater_equal,
    "ord": lambda x, y: ~(np.isnan(x) | np.isnan(y)), "uno": lambda x, y: np.isnan(x) | np.isnan(y),
    "ueq": lambda x, y: ~((x < y) | (x > y)), "une": lambda x, y: x != y, "ult": lambda x, y: ~(x >= y),
    "ule": lambda x, y: ~(x > y), "ugt": lambda x, y: ~(x <= y), "uge": lambda x, y: ~(x < y),
}
def _read_as(view, fn):
    return lambda x, y: fn(view(x), view(y))


ORDER = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
CMPI = {"eq": np.equal, "ne": np.not_equal, **{f"s{p}": _read_as(signed_view, fn) for p, fn in ORDER.items()},
        **{f"u{p}": _read_as(unsigned_view, fn) for p, fn in ORDER.items()}}


@pytest.mark.parametrize("t", FLOATS + INTEGERS + ("i1",))
def test_comparisons_select_and_constants(backend, t):
    x, y = grid(t, 2, rng_for("compare", t))
    table, name = (CMPF, "arith.cmpf") if t in FLOATS else (CMPI, "arith.cmpi")
    if t == "i1":
        table = {"eq": np.equal, "ne": np.not_equal}
    cases = [(name, [0, 1], "i1", f' {{predicate = "{p}"}}') for p in table]
    cond = randoms("i1", x.size, rng_for("select", t)).reshape(x.shape)
    cases.append(("arith.select", [2, 0, 1], t, ""))
    # select(cond, x, a body constant): -0.0, the type's minimum, or true.
    k = -0.0 if t in FLOATS else True if t == "i1" else np.iinfo(dtype(t)).min
    m = identity(2)
    constant = Kernel([("%arg2", x.shape, "i1", m), ("%arg0", x.shape, t, m)], [(x.shape, t, m)],
                      [f'%k = "arith.constant"() {{value = {init_text(k, t)}}} : () -> {t}',
                       scalar_op("arith.select", ["%in0", "%in1", "%k"], ["i1", t, t], t),
                       f'"kernel.yield"(%v) : ({t}) -> ()'])
    outs = backend(elementwise(x.shape, [t, t, "i1"], cases, (constant,)), [x, y, cond])
    for (p, ref), out in zip(table.items(), outs):
        assert_matches(out, ref(x, y), 0, f"{name} {p} {t}")
    assert_matches(outs[-2], np.where(cond, x, y), 0, f"select {t}")
    assert_matches(outs[-1], np.where(cond, x, np.array(k, x.dtype)), 0, f"select of a constant {t}")


def test_bool_logic(backend):
    x, y = grid("i1", 2, rng_for("bool"), extra=16)
    ops = {"arith.andi": np.logical_and, "arith.ori": np.logical_or, "arith.xori": np.logical_xor}
    outs = backend(elementwise(x.shape, ["i1", "i1"], [(n, [0, 1], "i1", "") for n in ops]), [x, y])
    for (name, ref), out in zip(ops.items(), outs):
        assert_matches(out, ref(x, y), 0, name)


@pytest.mark.parametrize("t", COMPLEX)
def test_complex_parts_and_select(backend, t):
    part = t[8:-1]
    re, im = grid(part, 2, rng_for("complex", t))
    cond = randoms("i1", re.size, rng_for("complex select", t)).reshape(re.shape)
    z = make_complex(re, im)
    shape, m = re.shape, identity(2)
    kernels = [
        Kernel([("%arg0", shape, part, m), ("%arg1", shape, part, m)], [(shape, t, m)],
               [scalar_op("complex.create", ["%in1", "%in0"], [part, part], t), f'"kernel.yield"(%v) : ({t}) -> ()']),
        Kernel([("%arg2", shape, t, m)], [(shape, part, m)],
               [scalar_op("complex.im", ["%in0"], [t], part), f'"kernel.yield"(%v) : ({part}) -> ()']),
        Kernel([("%arg3", shape, "i1", m), ("%arg2", shape, t, m), ("%k0_0", shape, t, m)], [(shape, t, m)],
               [scalar_op("arith.select", ["%in0", "%in1", "%in2"], ["i1", t, t], t), f'"kernel.yield"(%v) : ({t}) -> ()']),
    ]
    text = module([(shape, part), (shape, part), (shape, t), (shape, "i1")], kernels)
    swapped, imag, picked = backend(text, [re, im, z, cond])
    want_swapped = make_complex(im, re)
    assert_matches(swapped, want_swapped, 0, "complex.create")
    assert_matches(imag, im, 0, "complex.im")
    assert_matches(picked, np.where(cond, z, want_swapped), 0, "select of complex")


# -- conversions ----------------------------------------------------------------------------------
def cast_op(src: str, dst: str) -> str:
    s, d = dtype(src), dtype(dst)
    if s.kind == "f" and d.kind == "f":
        return "arith.extf" if d.itemsize > s.itemsize else "arith.truncf"
    if d.kind == "f":
        return "arith.sitofp" if s.kind == "i" else "arith.uitofp"
    if s.kind == "f":
        return "arith.fptosi" if d.kind == "i" else "arith.fptoui"
    if d.itemsize > s.itemsize or src == "i1":
        return "arith.extsi" if s.kind == "i" else "arith.extui"
    if dst == "i1" or d.itemsize < s.itemsize:
        return "arith.trunci"
    return "arith.bitcast"


def _truncate_to(x, width):
    """x86's cvtt: toward zero; NaN and out-of-range values give the minimum of int{width}."""
    limit = 2.0 ** (width - 1)
    lo, hi = np.array(-limit - 1.0).astype(x.dtype), np.array(limit).astype(x.dtype)
    with np.errstate(invalid="ignore"):
        fits = (x > lo) & (x < hi)
    out = np.trunc(np.where(fits, x, 0)).astype(f"i{width // 8}")
    return np.where(fits, out, np.iinfo(f"i{width // 8}").min).astype(f"i{width // 8}")


def _float_to_int(x, d: np.dtype):
    """codegen/scalar.py's float -> int: x86's truncating conversion (NumPy's on x86-64, on every
    host): 64-bit and int32 directly, narrower types and uint32 through a wider int, wrapping."""
    x = x.astype(np.float32) if x.dtype == np.float16 else x
    width = 8 * d.itemsize
    if d == np.uint64:
        big = x >= np.array(2.0 ** 63).astype(x.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            high = _truncate_to(x - np.array(2.0 ** 63).astype(x.dtype), 64).view(np.uint64) ^ np.uint64(1 << 63)
        return np.where(big, high, _truncate_to(x, 64).view(np.uint64))
    if width == 64 or d == np.int32:
        return _truncate_to(x, width).view(d)
    return _truncate_to(x, 64 if width == 32 else 32).astype(d)


def _convert(x, d: np.dtype):
    if d == np.bool_:
        return (unsigned_view(x) & 1).astype(bool)  # trunci to i1 keeps the low bit
    if x.dtype.kind == "f" and d.kind in "iu":
        return _float_to_int(x, d)
    with np.errstate(all="ignore"):
        return x.astype(d)


# Rounding ties (to even) of each narrower float, and the edges of each integer type.
FLOAT_EDGES = [1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 65519.0, 65520.0, 2 ** -25, 3 * 2 ** -25,
               1 + 2 ** -24, 1 + 3 * 2 ** -24, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 2.0 ** 31, -2.0 ** 31 - 1,
               2.0 ** 32, 255.5, -128.5, 65535.0, -0.5, 0.5, 2.5, -2.5]
INT_EDGES = [2049, 2051, 2 ** 24 + 1, 2 ** 24 + 3, 2 ** 53 + 1, 2 ** 53 + 3, -(2 ** 24 + 1), 2 ** 63 - 1]


def edges(t: str) -> np.ndarray:
    dt = dtype(t)
    if dt.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(FLOAT_EDGES).astype(dt)
    if dt.kind == "b":
        return np.array([], bool)
    info = np.iinfo(dt)
    return np.array([v for v in INT_EDGES if info.min <= v <= info.max], dt)


@pytest.mark.parametrize("src", FLOATS + INTEGERS + ("i1",))
def test_conversions_to_every_type(backend, src):
    (x,) = grid(src, 1, rng_for("convert", src), extra=200)
    x = np.concatenate([x.ravel(), edges(src)])
    x = np.resize(x, (-(-x.size // 8), 8))  # whole rows, the first values repeated
    dsts = [d for d in FLOATS + INTEGERS + (("i1",) if src in INTEGERS else ()) if d != src]
    cases = [(cast_op(src, d), [0], d, "") for d in dsts]
    outs = backend(elementwise(x.shape, [src], cases), [x])
    for d, out in zip(dsts, outs):
        assert_matches(out, _convert(x, dtype(d)), 0, f"{cast_op(src, d)} {src} -> {d}")


# -- reductions and scans ---------------------------------------------------------------------------
def reduction_data(t: str, kind: str, shape, rng) -> np.ndarray:
    """Values whose sum (product) is exact in every order, so that NumPy's order and the
    kernel's agree bit for bit; floats also hold NaN, inf and -inf in rows 0-2."""
    dt = dtype(t)
    if dt.kind == "b":
        x = rng.integers(0, 2, shape).astype(bool)
        x[0], x[1] = True, False
        return x
    if kind == "prod" and dt.kind == "f":
        x = rng.choice([1.0, -1.0], shape)
        for row in x:  # at most 6 factors of 2 and of 1/2 per row: exact in float16 too
            spots = rng.choice(row.size, 12, replace=False)
            row[spots[:6]] *= 2.0
            row[spots[6:]] *= 0.5
        x = x.astype(dt)
    elif dt.kind == "f":
        x = rng.integers(-8, 9, shape).astype(dt)
    else:
        x = randoms(t, int(np.prod(shape)), rng).reshape(shape)
    if dt.kind == "f":
        x[0, 3], x[1, 5], x[2, 7], x[2, 9] = np.nan, np.inf, -np.inf, np.inf
    return x


def init_text(value, t: str) -> str:
    dt = dtype(t)
    if dt.kind == "b":
        return f"{str(bool(value)).lower()} : {t}"
    if dt.kind == "f":
        return f"0x{int(np.array(value, dt).view(f'u{dt.itemsize}')):X} : {t}"
    return f"{int(value)} : {t}"


COMBINE = {  # kind: (op per family, NumPy reduction, identity per family)
    "sum": ({"f": "arith.addf", "i": "arith.addi", "u": "arith.addi"}, np.add, {"f": 0.0, "i": 0, "u": 0}),
    "prod": ({"f": "arith.mulf", "i": "arith.muli", "u": "arith.muli"}, np.multiply, {"f": 1.0, "i": 1, "u": 1}),
    "max": ({"f": "arith.maximumf", "i": "arith.maxsi", "u": "arith.maxui"}, np.maximum, None),
    "min": ({"f": "arith.minimumf", "i": "arith.minsi", "u": "arith.minui"}, np.minimum, None),
    "and": ({"b": "arith.andi"}, np.logical_and, {"b": True}),
    "or": ({"b": "arith.ori"}, np.logical_or, {"b": False}),
}


def identity_value(kind: str, t: str):
    dt = dtype(t)
    table = COMBINE[kind][2]
    if table is not None:
        return table[dt.kind]
    if dt.kind == "f":
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dt)
    return info.min if kind == "max" else info.max


def reduce_kernel(kind: str, t: str, value: str, shape, in_map: str, out_shape, out_map: str, iterators) -> Kernel:
    op = COMBINE[kind][0][dtype(t).kind]
    body = [scalar_op(op, ["%acc0", "%in0"], [t, t], t), f'"kernel.yield"(%v) : ({t}) -> ()']
    return Kernel([(value, shape, t, in_map)], [(out_shape, t, out_map)], body, iterators,
                  inits=[init_text(identity_value(kind, t), t)])


@pytest.mark.parametrize(("t", "kinds"), [
    ("f16", ("sum", "prod", "max", "min")), ("f32", ("sum", "prod", "max", "min")),
    ("f64", ("sum", "prod", "max", "min")), ("i8", ("sum", "prod", "max")), ("i32", ("sum", "min")),
    ("ui64", ("prod", "max", "min")), ("ui16", ("sum",)), ("i1", ("and", "or")),
])
def test_reductions_and_scans(backend, t, kinds):
    """Inner (the blocked multi-accumulator loop for float sums), outer and full reductions,
    and scans along either dim, from each kind's identity."""
    shape = (4, 45)  # 45 along the inner dim: several blocks of partial sums and a remainder
    rng = rng_for("reduce", t)
    m2 = identity(2)
    kernels, refs = [], []
    for i, kind in enumerate(kinds):
        ufunc, arg = COMBINE[kind][1], f"%arg{i}"
        kernels += [
            reduce_kernel(kind, t, arg, shape, m2, (4,), amap(2, ["d0"]), ["parallel", "reduction"]),
            reduce_kernel(kind, t, arg, shape, m2, (45,), amap(2, ["d1"]), ["reduction", "parallel"]),
            reduce_kernel(kind, t, arg, shape, m2, (), amap(2, []), ["reduction", "reduction"]),
        ]
        refs += [(i, f"{kind} over {axis}", functools.partial(ufunc.reduce, axis=axis)) for axis in (1, 0, None)]
        if kind in ("sum", "prod"):
            kernels += [reduce_kernel(kind, t, arg, shape, m2, shape, m2, ["parallel", "scan"]),
                        reduce_kernel(kind, t, arg, shape, m2, shape, m2, ["scan", "parallel"])]
            refs += [(i, f"{kind} scan along {axis}", functools.partial(ufunc.accumulate, axis=axis))
                     for axis in (1, 0)]
    data = [reduction_data(t, kind, shape, rng) for kind in kinds]
    outs = backend(module([(shape, t)] * len(kinds), kernels), data)
    assert len(outs) == len(refs)
    for (i, label, ref), out in zip(refs, outs):
        with np.errstate(all="ignore"):
            want = np.asarray(ref(data[i])).astype(dtype(t))
        assert_matches(out, want, 0, f"{label}, {t}")


# -- indexing maps and layouts ----------------------------------------------------------------------
def maps_module(t: str):
    """Kernels reading x (6x8) and y (8,) through every kind of map, with NumPy references."""
    x, y = (6, 8), (8,)

    def copy(value, shape, in_map, out_shape, num_dims=2):
        return Kernel([(value, shape, t, in_map)], [(out_shape, t, identity(num_dims))],
                      [f'"kernel.yield"(%in0) : ({t}) -> ()'])

    kernels = [
        copy("%arg0", x, amap(2, ["d1", "d0"]), (8, 6)),                      # transpose
        copy("%arg1", y, amap(2, ["d1"]), (5, 8)),                           # broadcast
        copy("%arg0", x, amap(2, ["d0 * 2 + 1", "d1 * -3 + 7"]), (3, 3)),    # strided, reversed slice
        copy("%arg0", x, amap(1, ["2", "d0"]), (8,), 1),                     # a constant index
        copy("%arg0", x, amap(1, ["d0", "d0 + 1"]), (6,), 1),                # a diagonal
        copy("%arg0", x, amap(3, ["d1", "d2"]), (2, 6, 8), 3),               # a new leading dim
        # A transposed read of another kernel's result.
        copy("%k0_0", (8, 6), amap(2, ["d1", "d0 * -1 + 5"]), (6, 8)),
        # Update of a strided region: the result starts as a copy of x.
        Kernel([("%arg0", x, t, amap(2, ["d0 * 2", "d1 * 3 + 1"])), ("%arg1", y, t, amap(2, ["d1 + 5"]))],
               [(x, t, amap(2, ["d0 * 2", "d1 * 3 + 1"]))], [f'"kernel.yield"(%in1) : ({t}) -> ()'],
               attrs="copy_inputs = [0], domain = [3, 2], "),
        # Clamped reads and positions: y shifted right by 2, first two taken from row 0 of x.
        Kernel([("%arg1", y, t, amap(1, ["d0 + -2"])), ("%arg0", x, t, amap(1, ["0", "d0"]))], [(y, t, identity(1))],
               ['%p = "kernel.index"() {dim = 0} : () -> index',
                '%two = "arith.constant"() {value = 2 : index} : () -> index',
                '%c = "arith.cmpi"(%p, %two) {predicate = "sge"} : (index, index) -> i1',
                f'%v = "arith.select"(%c, %in0, %in1) : (i1, {t}, {t}) -> {t}', f'"kernel.yield"(%v) : ({t}) -> ()'],
               attrs="clamped = [0], "),
        # A clamped read alone: positions past either end read the nearest element.
        Kernel([("%arg1", y, t, amap(1, ["d0 + -3"]))], [((12,), t, identity(1))],
               [f'"kernel.yield"(%in0) : ({t}) -> ()'], attrs="clamped = [0], "),
    ]

    def update(a, b):
        out = a.copy()
        out[0::2, 1:5:3] = b[5:7]
        return out

    refs = [lambda a, b: a.T, lambda a, b: np.broadcast_to(b, (5, 8)), lambda a, b: a[1::2, 7::-3],
            lambda a, b: a[2], lambda a, b: a[np.arange(6), np.arange(6) + 1],
            lambda a, b: np.broadcast_to(a, (2, 6, 8)), lambda a, b: a[::-1], update,
            lambda a, b: np.concatenate([a[0, :2], b[:6]]), lambda a, b: b[np.clip(np.arange(12) - 3, 0, 7)]]
    return module([(x, t), (y, t)], kernels), refs


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("t", ("f32", "f16", "i8", "ui64", "i1", "complex<f64>"))
def test_index_maps_on_every_layout(backend, t, layout):
    rng = rng_for("maps", t)
    if t.startswith("complex"):
        x, y = (make_complex(randoms("f64", n, rng), randoms("f64", n, rng)) for n in (48, 8))
    else:
        x, y = randoms(t, 48, rng), randoms(t, 8, rng)
    x, y = relayout(x.reshape(6, 8), layout), relayout(y, layout)
    text, refs = maps_module(t)
    outs = backend(text, [x, y])
    assert len(outs) == len(refs)
    for k, (ref, out) in enumerate(zip(refs, outs)):
        assert_matches(out, np.ascontiguousarray(ref(np.asarray(x), np.asarray(y))), 0, f"map kernel {k}, {layout}")


@pytest.mark.parametrize("layout", ("strided", "reversed", "unaligned"))
def test_elementwise_math_on_strided_operands(backend, layout):
    """A vectorizable body (sin, a product, a conversion) over views: the strided loop nest."""
    x, y = grid("f32", 2, rng_for("strided math"), extra=64)
    cases = [("math.sin", [0], "f32", ""), ("arith.mulf", [0, 1], "f32", ""), ("arith.fptosi", [1], "i16", "")]
    outs = backend(elementwise(x.shape, ["f32", "f32"], cases), [relayout(x, layout), relayout(y, layout)])
    with np.errstate(all="ignore"):
        assert_matches(outs[0], np.sin(x), ulp_bound("sin", np.float32), f"sin {layout}")
        assert_matches(outs[1], x * y, 0, f"mul {layout}")
    assert_matches(outs[2], _float_to_int(y, np.dtype(np.int16)), 0, f"fptosi {layout}")


def test_portable_descriptor_passes_strides_itself():
    """Without the array-header layout the caller passes data pointers and element strides."""
    text, refs = maps_module("f64")
    rng = rng_for("portable")
    x, y = relayout(randoms("f64", 48, rng).reshape(6, 8), "reversed"), relayout(randoms("f64", 8, rng), "strided")
    outs = run_cpu(text, [x, y], header=None)
    for k, (ref, out) in enumerate(zip(refs, outs)):
        assert_matches(out, np.ascontiguousarray(ref(x, y)), 0, f"map kernel {k}, portable descriptor")


# -- indexed reads and writes (kernel.extract, kernel.check_index, kernel.insert) ------------------------------------------------
# What kernelize makes of x[i], x[:, j], x[i, j], x[i] = v and np.add.at(x, i, v): index
# checks, extracts and inserts in kernel bodies (passes/kernelize/index.py).
GATHER = """"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<5x4xf64>, %arg1: tensor<3xi64>, %arg2: tensor<3xi64>, %arg3: tensor<3x4xf64>):
    %0 = "kernel.generic"(%arg0, %arg1) ({
    ^bb0(%arg4: tensor<5x4xf64>, %arg5: i64):
      %1 = "kernel.check_index"(%arg5) {axis = 0, size = 5} : (i64) -> index
      %2 = "kernel.index"() {dim = 1} : () -> index
      %3 = "kernel.extract"(%arg4, %1, %2) : (tensor<5x4xf64>, index, index) -> f64
      "kernel.yield"(%3) : (f64) -> ()
    }) {domain = [3, 4], indexed = [0], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3xi64>) -> tensor<3x4xf64>
    %4 = "kernel.generic"(%arg0, %arg2) ({
    ^bb0(%arg6: tensor<5x4xf64>, %arg7: i64):
      %5 = "kernel.check_index"(%arg7) {axis = 1, size = 4} : (i64) -> index
      %6 = "kernel.index"() {dim = 0} : () -> index
      %7 = "kernel.extract"(%arg6, %6, %5) : (tensor<5x4xf64>, index, index) -> f64
      "kernel.yield"(%7) : (f64) -> ()
    }) {domain = [5, 3], indexed = [0], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3xi64>) -> tensor<5x3xf64>
    %8 = "kernel.generic"(%arg1) ({
    ^bb0(%arg8: i64):
      %9 = "kernel.check_index"(%arg8) {axis = 0, size = 5} : (i64) -> index
      %10 = "arith.bitcast"(%9) : (index) -> i64
      "kernel.yield"(%10) : (i64) -> ()
    }) {domain = [3], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<3xi64>) -> tensor<3xi64>
    %11 = "kernel.generic"(%arg2) ({
    ^bb0(%arg9: i64):
      %12 = "kernel.check_index"(%arg9) {axis = 1, size = 4} : (i64) -> index
      %13 = "arith.bitcast"(%12) : (index) -> i64
      "kernel.yield"(%13) : (i64) -> ()
    }) {domain = [3], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<3xi64>) -> tensor<3xi64>
    %14 = "kernel.generic"(%arg0, %8, %11) ({
    ^bb0(%arg10: tensor<5x4xf64>, %arg11: i64, %arg12: i64):
      %15 = "arith.bitcast"(%arg11) : (i64) -> index
      %16 = "arith.bitcast"(%arg12) : (i64) -> index
      %17 = "kernel.extract"(%arg10, %15, %16) : (tensor<5x4xf64>, index, index) -> f64
      "kernel.yield"(%17) : (f64) -> ()
    }) {domain = [3], indexed = [0], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<5x4xf64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xf64>
    %18 = "kernel.generic"(%arg0, %arg3, %arg1) ({
    ^bb0(%arg13: tensor<5x4xf64>, %arg14: f64, %arg15: i64):
      %19 = "kernel.check_index"(%arg15) {axis = 0, size = 5} : (i64) -> index
      %20 = "kernel.index"() {dim = 1} : () -> index
      "kernel.insert"(%arg14, %19, %20) {mode = "set", result = 0} : (f64, index, index) -> ()
      "kernel.yield"() : () -> ()
    }) {copy_inputs = [0], domain = [3, 4], indexed = [0, 3], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3x4xf64>, tensor<3xi64>) -> tensor<5x4xf64>
    %21 = "kernel.generic"(%arg0, %arg3, %arg1) ({
    ^bb0(%arg16: tensor<5x4xf64>, %arg17: f64, %arg18: i64):
      %22 = "kernel.check_index"(%arg18) {axis = 0, size = 5} : (i64) -> index
      %23 = "kernel.index"() {dim = 1} : () -> index
      "kernel.insert"(%arg17, %22, %23) {mode = "add", result = 0} : (f64, index, index) -> ()
      "kernel.yield"() : () -> ()
    }) {copy_inputs = [0], domain = [3, 4], indexed = [0, 3], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>], iterator_types = ["parallel", "parallel"]} : (tensor<5x4xf64>, tensor<3x4xf64>, tensor<3xi64>) -> tensor<5x4xf64>
    "func.return"(%0, %4, %14, %18, %21) : (tensor<3x4xf64>, tensor<5x3xf64>, tensor<3xf64>, tensor<5x4xf64>, tensor<5x4xf64>) -> ()
  }) {function_type = (tensor<5x4xf64>, tensor<3xi64>, tensor<3xi64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<5x3xf64>, tensor<3xf64>, tensor<5x4xf64>, tensor<5x4xf64>), sym_name = "k"} : () -> ()
}) : () -> ()"""


@pytest.mark.parametrize("layout", ("C", "reversed", "F"))
def test_gather_and_scatter_with_negative_and_repeated_indices(backend, layout):
    rng = rng_for("gather", layout)
    x, v = rng.integers(-50, 50, (5, 4)).astype(np.float64), rng.integers(-50, 50, (3, 4)).astype(np.float64)
    i, j = np.array([1, -1, -4]), np.array([0, -1, 2])  # rows 1 and -4 are one row: a repeat
    outs = backend(GATHER, [relayout(x, layout), relayout(i, layout), j, relayout(v, layout)])
    overwritten, added = x.copy(), x.copy()
    for k in range(3):  # in order: the last write to a row wins
        overwritten[i[k]] = v[k]
    np.add.at(added, i, v)
    for k, want in enumerate([x[i], x[:, j], x[i, j], overwritten, added]):
        assert_matches(outs[k], want, 0, f"indexed op {k}, {layout}")
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        backend(GATHER, [x, np.array([0, 5, 1]), j, v])
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        backend(GATHER, [x, i, np.array([0, -5, 1]), v])


# x[i, j] (each index array checked by a kernel of its own, then read unchecked),
# np.multiply.at on complex numbers with a repeated index, and x[:, i] of an x with no rows.
CHECKED_FIRST = """"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<5x4xf64>, %arg1: tensor<3xi64>, %arg2: tensor<3xi64>, %arg3: tensor<3xcomplex<f64>>, %arg4: tensor<4xi64>, %arg5: tensor<4xcomplex<f64>>, %arg6: tensor<0x4xf64>):
    %0 = "kernel.generic"(%arg1) ({
    ^bb0(%arg7: i64):
      %1 = "kernel.check_index"(%arg7) {axis = 0, size = 5} : (i64) -> index
      %2 = "arith.bitcast"(%1) : (index) -> i64
      "kernel.yield"(%2) : (i64) -> ()
    }) {domain = [3], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<3xi64>) -> tensor<3xi64>
    %3 = "kernel.generic"(%arg2) ({
    ^bb0(%arg8: i64):
      %4 = "kernel.check_index"(%arg8) {axis = 1, size = 4} : (i64) -> index
      %5 = "arith.bitcast"(%4) : (index) -> i64
      "kernel.yield"(%5) : (i64) -> ()
    }) {domain = [3], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<3xi64>) -> tensor<3xi64>
    %6 = "kernel.generic"(%arg0, %0, %3) ({
    ^bb0(%arg9: tensor<5x4xf64>, %arg10: i64, %arg11: i64):
      %7 = "arith.bitcast"(%arg10) : (i64) -> index
      %8 = "arith.bitcast"(%arg11) : (i64) -> index
      %9 = "kernel.extract"(%arg9, %7, %8) : (tensor<5x4xf64>, index, index) -> f64
      "kernel.yield"(%9) : (f64) -> ()
    }) {domain = [3], indexed = [0], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<5x4xf64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xf64>
    %10 = "kernel.generic"(%arg3, %arg5, %arg4) ({
    ^bb0(%arg12: tensor<3xcomplex<f64>>, %arg13: complex<f64>, %arg14: i64):
      %11 = "kernel.check_index"(%arg14) {axis = 0, size = 3} : (i64) -> index
      "kernel.insert"(%arg13, %11) {mode = "mul", result = 0} : (complex<f64>, index) -> ()
      "kernel.yield"() : () -> ()
    }) {copy_inputs = [0], domain = [4], indexed = [0, 3], indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["parallel"]} : (tensor<3xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xi64>) -> tensor<3xcomplex<f64>>
    %12 = "kernel.generic"(%arg1) ({
    ^bb0(%arg15: i64):
      %13 = "kernel.check_index"(%arg15) {axis = 1, size = 4} : (i64) -> index
      %14 = "arith.bitcast"(%13) : (index) -> i64
      "kernel.yield"(%14) : (i64) -> ()
    }) {domain = [3], indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<3xi64>) -> tensor<3xi64>
    %15 = "kernel.generic"(%arg6, %12) ({
    ^bb0(%arg16: tensor<0x4xf64>, %arg17: i64):
      %16 = "arith.bitcast"(%arg17) : (i64) -> index
      %17 = "kernel.index"() {dim = 0} : () -> index
      %18 = "kernel.extract"(%arg16, %17, %16) : (tensor<0x4xf64>, index, index) -> f64
      "kernel.yield"(%18) : (f64) -> ()
    }) {domain = [0, 3], indexed = [0], indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} : (tensor<0x4xf64>, tensor<3xi64>) -> tensor<0x3xf64>
    "func.return"(%6, %10, %15) : (tensor<3xf64>, tensor<3xcomplex<f64>>, tensor<0x3xf64>) -> ()
  }) {function_type = (tensor<5x4xf64>, tensor<3xi64>, tensor<3xi64>, tensor<3xcomplex<f64>>, tensor<4xi64>, tensor<4xcomplex<f64>>, tensor<0x4xf64>) -> (tensor<3xf64>, tensor<3xcomplex<f64>>, tensor<0x3xf64>), sym_name = "k"} : () -> ()
}) : () -> ()"""


def test_indexed_kernels_check_every_index_array_in_order(backend):
    x = np.arange(20.0).reshape(5, 4)
    i, j = np.array([1, -1, -4]), np.array([0, -4, 3])
    z, at, v = np.array([1 + 2j, 3 - 1j, 0.5j]), np.array([2, 0, 2, -1]), np.array([2 + 1j, 1 - 1j, 3j, -1 + 0j])
    empty = np.zeros((0, 4))
    outs = backend(CHECKED_FIRST, [x, i, j, z, at, v, empty])
    want = z.copy()
    np.multiply.at(want, at, v)  # the last index, -1, is the repeated 2
    for k, w in enumerate([x[i, j], want, empty[:, i]]):
        assert_matches(outs[k], w, 0, f"indexed kernel {k}")
    # j's bad index comes first in C order, but NumPy checks i whole first.
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 5"):
        backend(CHECKED_FIRST, [x, np.array([0, 1, 7]), np.array([-9, 0, 0]), z, at, v, empty])
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        backend(CHECKED_FIRST, [x, i, j, z, np.array([0, -4, 1, 9]), v, empty])
    # x[:, i] reads nothing from an x without rows, yet checks i, as NumPy does (4 is in range
    # for x[i, j]'s axis 0 of size 5, not for the empty x's axis 1 of size 4).
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        backend(CHECKED_FIRST, [x, np.array([0, 4, 1]), j, z, at, v, empty])


def test_empty_and_zero_d_shapes(backend):
    """Loops of extent 0 run no iteration; a reduction over an empty dim gives its identity."""
    m2, t = identity(2), "f32"
    add = [scalar_op("arith.addf", ["%in0", "%in0"], [t, t], t), f'"kernel.yield"(%v) : ({t}) -> ()']
    kernels = [
        Kernel([("%arg0", (0, 8), t, m2)], [((0, 8), t, m2)], add),
        Kernel([("%arg1", (), t, amap(0, []))], [((), t, amap(0, []))], add, iterators=[]),
        reduce_kernel("sum", t, "%arg2", (4, 0), m2, (4,), amap(2, ["d0"]), ["parallel", "reduction"]),
        reduce_kernel("max", t, "%arg2", (4, 0), m2, (), amap(2, []), ["reduction", "reduction"]),
        reduce_kernel("prod", t, "%arg2", (4, 0), m2, (4, 0), m2, ["parallel", "scan"]),
        reduce_kernel("sum", t, "%arg0", (0, 8), m2, (8,), amap(2, ["d1"]), ["reduction", "parallel"]),
    ]
    text = module([((0, 8), t), ((), t), ((4, 0), t)], kernels)
    x = np.float32(-1.5)
    outs = backend(text, [np.zeros((0, 8), np.float32), np.array(x), np.zeros((4, 0), np.float32)])
    wants = [np.zeros((0, 8), np.float32), np.array(2 * x), np.zeros(4, np.float32), np.array(-np.inf, np.float32),
             np.zeros((4, 0), np.float32), np.zeros(8, np.float32)]
    assert len(outs) == len(wants)
    for k, (out, want) in enumerate(zip(outs, wants)):
        assert_matches(out, want, 0, f"kernel {k}")
