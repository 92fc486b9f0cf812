"""Scalar loops become one native loop nest (docs/control-flow.md §5).

Array-level ``scf`` programs of scalar work, written with ``tests/codegen/scalar_programs.py``,
go through the default pipeline and the CPU backend and are compared with the same loops in
plain Python on hypothesis inputs. Floats compare exactly: the kernel does the same IEEE
operations in the same order as the Python loop. Each program compiles once per shape; the
draws vary its inputs (and so its trip counts).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import ir, pytree
from jitcore.codegen.backend import backend_for
from jitcore.codegen.plan import LowerOptions
from jitcore.compiler import DEFAULT_PIPELINE
from jitcore.dispatch import ARRAY_HEADER, Executable
from jitcore.errors import LoopStepError
from jitcore.ir import layout_class
from jitcore.ir.dialects import kernel, scf
from jitcore.passes import PassManager
from tests.codegen.scalar_programs import Program, scalar

I64, F64 = scalar("i64"), scalar("f64")
EXAMPLES = settings(max_examples=25, deadline=None)
finite = st.floats(-1e3, 1e3, allow_nan=False)


def optimized(text: str):
    module = ir.parse(text)
    ir.verify(module)
    return PassManager(DEFAULT_PIPELINE).run(module)


@functools.cache
def compiled(text: str) -> tuple[Executable, str]:
    """The program through the default pipeline, lowered for contiguous arguments, and its
    optimised LLVM IR."""
    (func,) = optimized(text).functions()
    classes = (layout_class.C,) * len(func.body.args)
    plan = backend_for("cpu").lower(func, classes, LowerOptions(header=ARRAY_HEADER))
    results = len(func.attributes["function_type"].results)
    return Executable(plan, pytree.flatten(tuple(range(results)))[1]), plan.optimized_llvm_ir


def run(text: str, *args) -> list:
    executable, _ = compiled(text)
    return [np.asarray(r) for r in executable([np.ascontiguousarray(a) for a in args])]


def kernels(text: str) -> list[kernel.GenericOp]:
    (func,) = optimized(text).functions()
    return [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]


def one_loop_kernel(text: str) -> kernel.GenericOp:
    """The program is one kernel with an empty iteration space whose body runs scalar scf."""
    (k,) = kernels(text)
    assert k.iterator_types == () and any(isinstance(op, scf.ForOp | scf.WhileOp | scf.IfOp)
                                          for op in k.body.ops)
    return k


# -- programs ---------------------------------------------------------------------------------
def sum_of_squares(n: int) -> str:
    p = Program([f"tensor<{n}xf64>", I64, I64, I64])
    x, lb, ub, step = p.args
    zero = p.const(0.0, "f64")

    def body(i, acc):
        e = p.get(x, i)
        return p.binary("add", acc, p.binary("mul", e, e))

    (r,) = p.for_(lb, ub, step, [zero], body)
    return p.text([r])


def python_for(lb: int, ub: int, step: int):
    return range(lb, ub, step)


def newton_sqrt() -> str:
    """``while |x*x - a| > tol and k < 100: x = 0.5 * (x + a / x)``."""
    p = Program([F64, F64])
    a, tol = p.args
    half, limit, one, k0 = p.const(0.5, "f64"), p.const(100, "i64"), p.const(1, "i64"), p.const(0, "i64")

    def cond(x, k):
        err = p.op("array.abs", [p.binary("sub", p.binary("mul", x, x), a)], F64)
        return p.binary("and", p.binary("gt", err, tol), p.binary("lt", k, limit))

    def body(x, k):
        return p.binary("mul", half, p.binary("add", x, p.binary("div", a, x))), p.binary("add", k, one)

    x, k = p.while_([a, k0], cond, body)
    return p.text([x, k])


def python_newton(a: float, tol: float):
    x, k = a, 0
    while abs(x * x - a) > tol and k < 100:
        x, k = 0.5 * (x + a / x), k + 1
    return x, k


def running_max(n: int) -> str:
    """For each i: ``if x[i] > m: m = x[i]; count += 1`` (an scf.if with two results)."""
    p = Program([f"tensor<{n}xf64>"])
    (x,) = p.args
    lb, ub, step = p.const(0, "i64"), p.const(n, "i64"), p.const(1, "i64")
    m0, c0, one = p.const(float("-inf"), "f64"), p.const(0, "i64"), p.const(1, "i64")

    def body(i, m, c):
        e = p.get(x, i)
        return p.if_(p.binary("gt", e, m), lambda: (e, p.binary("add", c, one)), lambda: (m, c), [F64, I64])

    m, c = p.for_(lb, ub, step, [m0, c0], body)
    return p.text([m, c])


def gauss_seidel(n: int) -> str:
    """``for s in range(sweeps): for i in range(1, n - 1): u[i] = 0.5 * (u[i-1] + u[i+1])``."""
    p = Program([f"tensor<{n}xf64>", I64])
    u, sweeps = p.args
    zero, one, last, half = p.const(0, "i64"), p.const(1, "i64"), p.const(n - 1, "i64"), p.const(0.5, "f64")

    def sweep(s, v):
        def point(i, w):
            left, right = p.get(w, p.binary("sub", i, one)), p.get(w, p.binary("add", i, one))
            return p.set(w, p.binary("mul", half, p.binary("add", left, right)), i)
        return p.for_(one, last, one, [v], point)

    (out,) = p.for_(zero, sweeps, one, [u], sweep)
    return p.text([out])


def python_gauss_seidel(u: np.ndarray, sweeps: int) -> np.ndarray:
    u = u.copy()
    for _ in range(sweeps):
        for i in range(1, len(u) - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
    return u


def histogram(n: int, bins: int) -> str:
    """``for v in x: h[int(v)] += 1``."""
    p = Program([f"tensor<{n}xf64>", f"tensor<{bins}xi64>"])
    x, h = p.args
    zero, one, size = p.const(0, "i64"), p.const(1, "i64"), p.const(n, "i64")
    (out,) = p.for_(zero, size, one, [h],
                    lambda i, g: p.set(g, one, p.convert(p.get(x, i), "i64"), mode="add"))
    return p.text([out])


def floyd_warshall(n: int) -> str:
    """``d[i, j] = min(d[i, j], d[i, k] + d[k, j])`` for k, i, j."""
    p = Program([f"tensor<{n}x{n}xf64>"])
    (d,) = p.args
    zero, one, size = p.const(0, "i64"), p.const(1, "i64"), p.const(n, "i64")

    def over_k(k, d1):
        def over_i(i, d2):
            def over_j(j, d3):
                through = p.binary("add", p.get(d3, i, k), p.get(d3, k, j))
                return p.set(d3, p.binary("min", p.get(d3, i, j), through), i, j)
            return p.for_(zero, size, one, [d2], over_j)
        return p.for_(zero, size, one, [d1], over_i)

    (out,) = p.for_(zero, size, one, [d], over_k)
    return p.text([out])


def python_floyd_warshall(d: np.ndarray) -> np.ndarray:
    d = d.copy()
    n = len(d)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                d[i, j] = np.minimum(d[i, j], d[i, k] + d[k, j])
    return d


def collatz() -> str:
    """Steps of the Collatz map from n to 1 (an scf.if inside an scf.while)."""
    p = Program([I64])
    (n,) = p.args
    one, two, three, zero = p.const(1, "i64"), p.const(2, "i64"), p.const(3, "i64"), p.const(0, "i64")

    def body(m, steps):
        even = p.binary("eq", p.binary("rem", m, two), zero)
        (nxt,) = p.if_(even, lambda: p.binary("floordiv", m, two),
                       lambda: p.binary("add", p.binary("mul", three, m), one), [I64])
        return nxt, p.binary("add", steps, one)

    _, steps = p.while_([n, zero], lambda m, s: p.binary("gt", m, one), body)
    return p.text([steps])


def python_collatz(n: int) -> int:
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def mandelbrot(h: int, w: int) -> str:
    """Per pixel: ``while zr*zr + zi*zi <= 4 and k < maxit`` inside two fors over the image."""
    p = Program([f"tensor<{h}x{w}xi64>", I64, F64, F64, F64])
    out, maxit, x0, y0, d = p.args
    zero, one, rows, cols = p.const(0, "i64"), p.const(1, "i64"), p.const(h, "i64"), p.const(w, "i64")
    fzero, two, four = p.const(0.0, "f64"), p.const(2.0, "f64"), p.const(4.0, "f64")

    def row(i, o1):
        ci = p.binary("add", y0, p.binary("mul", p.convert(i, "f64"), d))

        def pixel(j, o2):
            cr = p.binary("add", x0, p.binary("mul", p.convert(j, "f64"), d))

            def cond(zr, zi, k):
                r2 = p.binary("add", p.binary("mul", zr, zr), p.binary("mul", zi, zi))
                return p.binary("and", p.binary("le", r2, four), p.binary("lt", k, maxit))

            def step(zr, zi, k):
                nzr = p.binary("add", p.binary("sub", p.binary("mul", zr, zr), p.binary("mul", zi, zi)), cr)
                nzi = p.binary("add", p.binary("mul", p.binary("mul", two, zr), zi), ci)
                return nzr, nzi, p.binary("add", k, one)

            _, _, k = p.while_([fzero, fzero, zero], cond, step)
            return p.set(o2, k, i, j)
        return p.for_(zero, cols, one, [o1], pixel)

    (res,) = p.for_(zero, rows, one, [out], row)
    return p.text([res])


def python_mandelbrot(h, w, maxit, x0, y0, d):
    out = np.zeros((h, w), np.int64)
    for i in range(h):
        ci = y0 + float(i) * d
        for j in range(w):
            cr = x0 + float(j) * d
            zr = zi = 0.0
            k = 0
            while zr * zr + zi * zi <= 4.0 and k < maxit:
                zr, zi, k = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, k + 1
            out[i, j] = k
    return out


# -- tests ------------------------------------------------------------------------------------
N = 12


@EXAMPLES
@given(st.lists(finite, min_size=N, max_size=N), st.integers(-3, N), st.integers(-3, N),
       st.sampled_from([1, 2, 5, -1, -3]))
def test_sum_of_squares_any_bounds_and_step(xs, lb, ub, step):
    """Zero-trip loops (lb >= ub going up), negative steps and strides all run as Python's."""
    x = np.array(xs)
    bounds = python_for(lb, ub, step)
    if any(not -N <= i < N for i in bounds):
        return  # out-of-range reads: test_out_of_range_index_raises
    expected = 0.0
    for i in bounds:
        expected = expected + x[i] * x[i]
    (got,) = run(sum_of_squares(N), x, np.int64(lb), np.int64(ub), np.int64(step))
    assert got == expected


def test_sum_of_squares_is_one_kernel():
    k = one_loop_kernel(sum_of_squares(N))
    assert kernel.checks_indices(k)  # the step is an argument: a zero step is checked


def test_out_of_range_index_raises():
    with pytest.raises(IndexError, match="index 12 is out of bounds for axis 0 with size 12"):
        run(sum_of_squares(N), np.ones(N), np.int64(0), np.int64(N + 1), np.int64(1))
    # Negative indices wrap, as in NumPy: x[-12] is x[0].
    (got,) = run(sum_of_squares(N), np.arange(N, dtype=np.float64), np.int64(-N), np.int64(-N + 2),
                 np.int64(1))
    assert got == 0.0 + 1.0


def first_above(n: int) -> str:
    """``k = 0; while x[k] <= t: k += 1``: reads past the end when no element is above t."""
    p = Program([f"tensor<{n}xf64>", F64])
    x, t = p.args
    zero, one = p.const(0, "i64"), p.const(1, "i64")
    (k,) = p.while_([zero], lambda k: p.binary("le", p.get(x, k), t), lambda k: p.binary("add", k, one))
    return p.text([k])


def test_a_loop_stops_at_its_first_bad_index():
    """The bad read gives 0.0 (x[0]), so the loop would run forever: the kernel returns at the
    first bad index and the call raises."""
    x = np.array([0.0, 1.0, 2.0, 3.0])
    assert run(first_above(4), x, np.float64(2.5)) == [3]
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        run(first_above(4), x, np.float64(20.0))


def test_zero_step_raises():
    with pytest.raises(LoopStepError, match="step of zero"):
        run(sum_of_squares(N), np.ones(N), np.int64(0), np.int64(5), np.int64(0))


@EXAMPLES
@given(st.floats(1e-3, 1e6), st.sampled_from([1e-12, 1e-6, 1e-2, 0.0]))
def test_while_to_tolerance(a, tol):
    x, k = run(newton_sqrt(), np.float64(a), np.float64(tol))
    assert (x, k) == python_newton(a, tol)


@EXAMPLES
@given(st.lists(st.floats(allow_nan=False), min_size=N, max_size=N))
def test_if_inside_for_running_max(xs):
    m, c = run(running_max(N), np.array(xs))
    best, count = -np.inf, 0
    for v in xs:
        if v > best:
            best, count = v, count + 1
    assert (m, c) == (best, count)


@EXAMPLES
@given(st.lists(finite, min_size=N, max_size=N), st.integers(0, 4))
def test_gauss_seidel_sees_its_own_writes(us, sweeps):
    u = np.array(us)
    text = gauss_seidel(N)
    one_loop_kernel(text)
    (got,) = run(text, u, np.int64(sweeps))
    np.testing.assert_array_equal(got, python_gauss_seidel(u, sweeps))
    np.testing.assert_array_equal(u, np.array(us))  # the argument is not written


@EXAMPLES
@given(st.lists(st.floats(0, 7.99), min_size=N, max_size=N))
def test_histogram_scatter_add(xs):
    h = np.arange(8, dtype=np.int64)  # starts from the given counts
    (got,) = run(histogram(N, 8), np.array(xs), h)
    expected = h.copy()
    for v in xs:
        expected[int(v)] += 1
    np.testing.assert_array_equal(got, expected)


def test_histogram_bad_bin_raises():
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 8"):
        run(histogram(N, 8), np.full(N, 9.5), np.zeros(8, np.int64))


@EXAMPLES
@given(st.lists(st.floats(0, 100) | st.just(np.inf), min_size=25, max_size=25))
def test_floyd_warshall(ds):
    d = np.array(ds).reshape(5, 5)
    np.fill_diagonal(d, 0.0)
    (got,) = run(floyd_warshall(5), d)
    np.testing.assert_array_equal(got, python_floyd_warshall(d))


@EXAMPLES
@given(st.integers(1, 10**6))
def test_collatz_steps(n):
    (got,) = run(collatz(), np.int64(n))
    assert got == python_collatz(n)


@EXAMPLES
@given(st.integers(0, 40), st.floats(-2.2, -1.5), st.floats(-1.3, -0.9), st.floats(0.05, 0.3))
def test_mandelbrot(maxit, x0, y0, d):
    h, w = 9, 11
    (got,) = run(mandelbrot(h, w), np.zeros((h, w), np.int64), np.int64(maxit), np.float64(x0),
                 np.float64(y0), np.float64(d))
    np.testing.assert_array_equal(got, python_mandelbrot(h, w, maxit, x0, y0, d))


# -- the code is a native loop nest -----------------------------------------------------------
def _functions(llvm_ir: str) -> str:
    """The text of the module's functions (the kernel, inlined into the entry or not)."""
    return "\n".join(llvm_ir.split("\ndefine ")[1:])


@pytest.mark.parametrize("text", [sum_of_squares(1000), mandelbrot(4, 4)],
                         ids=["sum-of-squares", "mandelbrot"])
def test_carried_scalars_live_in_registers(text):
    """The optimised LLVM IR keeps carried scalars in phis: no calls, no stack slots, and the
    only stores are the final result (and, for Mandelbrot, the pixel writes)."""
    _, llvm_ir = compiled(text)
    code = _functions(llvm_ir)
    assert " phi double " in code
    assert "alloca" not in code
    assert not [line for line in code.splitlines() if " call " in line and "llvm." not in line]
    float_stores = [line for line in code.splitlines() if "store double" in line]
    assert len(float_stores) <= 1  # the sum, once after the loop; Mandelbrot stores integers


def test_array_work_in_body_stays_on_the_host():
    """A loop whose body holds a non-0-d op is not a scalar loop: kernelize leaves the scf.for
    (its body kernelized) for the host to run."""
    p = Program(["tensor<4xf64>", I64])
    x, n = p.args
    zero, one = p.const(0, "i64"), p.const(1, "i64")
    (r,) = p.for_(zero, n, one, [x], lambda i, v: p.binary("add", v, v))
    module = ir.parse(p.text([r]))
    PassManager("kernelize").run(module)
    (func,) = module.functions()
    (loop,) = [op for op in func.body.ops if isinstance(op, scf.ForOp)]
    assert not scf.is_scalar_level(loop)
    assert [type(op) for op in loop.body.ops] == [kernel.GenericOp, scf.YieldOp]


def test_reading_an_old_version_after_a_write_is_not_done_in_place():
    """``y = x.at[i].set(v); x[j]`` reads the old x after a newer one exists: writing in place
    would be wrong, so the loop is left for the host."""
    p = Program(["tensor<4xf64>"])
    (x,) = p.args
    zero, one, four, v = p.const(0, "i64"), p.const(1, "i64"), p.const(4, "i64"), p.const(2.0, "f64")

    def body(i, a):
        b = p.set(a, v, i)
        stale = p.get(a, i)
        return p.set(b, stale, zero)

    (r,) = p.for_(zero, four, one, [x], body)
    module = ir.parse(p.text([r]))
    PassManager("kernelize").run(module)
    (func,) = module.functions()
    assert any(isinstance(op, scf.ForOp) for op in func.body.ops)


# -- through the API: jc.fori_loop and jc.while_loop under jit ----------------------------------
def _one_scalar_kernel_under_jit(f, *args) -> str:
    """The optimised LLVM IR of ``jit(f)``, checking its optimised IR: no scf op left for the
    host, and one kernel running the loops (loop-invariant kernels may sit before it)."""
    lowered = jc.jit(f).lower(*args)
    (func,) = lowered.optimized().functions()
    text = lowered.as_text("optimized")
    assert not [op for op in func.body.ops if op.op_name.startswith("scf.")], text
    loops = [op for op in func.body.ops if isinstance(op, kernel.GenericOp) and kernel.runs_in_order(op)
             and any(inner.regions for inner in op.body.ops)]
    assert len(loops) == 1, text
    return lowered.as_text("llvm-opt")


def api_gauss_seidel(u, sweeps):
    def sweep(_, v):
        def point(i, w):
            w[i] = 0.5 * (w[i - 1] + w[i + 1])
            return w
        return jc.fori_loop(1, v.shape[0] - 1, point, v)
    return jc.fori_loop(0, sweeps, sweep, u)


@EXAMPLES
@given(st.lists(finite, min_size=N, max_size=N), st.integers(0, 3))
def test_api_gauss_seidel(us, sweeps):
    u = np.array(us)
    got = jc.jit(api_gauss_seidel)(u, np.int64(sweeps))
    np.testing.assert_array_equal(got, python_gauss_seidel(u, sweeps))


def test_api_gauss_seidel_is_one_kernel():
    _one_scalar_kernel_under_jit(api_gauss_seidel, np.zeros(N), np.int64(2))


def api_histogram(x, h):
    def body(i, g):
        g[x[i].astype(np.int64)] += 1
        return g
    return jc.fori_loop(0, x.shape[0], body, h)


@EXAMPLES
@given(st.lists(st.floats(0, 7.99), min_size=N, max_size=N))
def test_api_histogram(xs):
    h = np.zeros(8, np.int64)
    expected = h.copy()
    for v in xs:
        expected[int(v)] += 1
    np.testing.assert_array_equal(jc.jit(api_histogram)(np.array(xs), h), expected)


def api_mandelbrot(out, maxit, x0, y0, d):
    def row(i, o1):
        ci = y0 + i.astype(np.float64) * d

        def pixel(j, o2):
            cr = x0 + j.astype(np.float64) * d

            def cond(s):
                zr, zi, k = s
                return (zr * zr + zi * zi <= 4.0) & (k < maxit)

            def step(s):
                zr, zi, k = s
                return zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, k + 1

            _, _, k = jc.while_loop(cond, step, (np.float64(0.0), np.float64(0.0), np.int64(0)))
            o2[i, j] = k
            return o2
        return jc.fori_loop(0, o1.shape[1], pixel, o1)
    return jc.fori_loop(0, out.shape[0], row, out)


@EXAMPLES
@given(st.integers(0, 40), st.floats(-2.2, -1.5), st.floats(-1.3, -0.9), st.floats(0.05, 0.3))
def test_api_mandelbrot(maxit, x0, y0, d):
    h, w = 9, 11
    got = jc.jit(api_mandelbrot)(np.zeros((h, w), np.int64), np.int64(maxit), np.float64(x0),
                                 np.float64(y0), np.float64(d))
    np.testing.assert_array_equal(got, python_mandelbrot(h, w, maxit, x0, y0, d))


def api_sum_of_squares(x, n):
    return jc.fori_loop(0, n, lambda i, s: s + x[i] * x[i], 0.0)


@pytest.mark.parametrize("f, args", [
    (api_sum_of_squares, (np.ones(1000), np.int64(1000))),
    (api_mandelbrot, (np.zeros((4, 4), np.int64), np.int64(50), np.float64(-2.0), np.float64(-1.0),
                      np.float64(0.5))),
], ids=["sum-of-squares", "mandelbrot"])
def test_api_loops_are_native_loops(f, args):
    """``as_text("llvm-opt")``: carried scalars in phis, no calls, no stack slots."""
    code = _functions(_one_scalar_kernel_under_jit(f, *args))
    assert " phi double " in code and "alloca" not in code
    assert not [line for line in code.splitlines() if " call " in line and "llvm." not in line]


def test_api_traced_zero_step_raises():
    f = jc.jit(lambda x, s: jc.fori_loop(0, 4, lambda i, c: c + x[i], 0.0, step=s))
    with pytest.raises(LoopStepError, match="step of zero"):
        f(np.ones(4), np.int64(0))
    assert f(np.ones(4), np.int64(2)) == 2.0


def jacobi(n: int) -> str:
    """``w = x.copy(); for i in 1..n-1: w[i] = 0.5 * (x[i-1] + x[i+1])``: the loop carries the
    copy it writes (starting from ``x``) and reads ``x`` as given."""
    p = Program([f"tensor<{n}xf64>"])
    (x,) = p.args
    one, last, half = p.const(1, "i64"), p.const(n - 1, "i64"), p.const(0.5, "f64")

    def point(i, w):
        left, right = p.get(x, p.binary("sub", i, one)), p.get(x, p.binary("add", i, one))
        return p.set(w, p.binary("mul", half, p.binary("add", left, right)), i)

    (out,) = p.for_(one, last, one, [x], point)
    return p.text([out])


@EXAMPLES
@given(st.lists(finite, min_size=N, max_size=N))
def test_reading_the_array_as_given_while_writing_its_copy(xs):
    x = np.array(xs)
    text = jacobi(N)
    one_loop_kernel(text)
    expected = x.copy()
    expected[1:-1] = 0.5 * (x[:-2] + x[2:])
    (got,) = run(text, x)
    np.testing.assert_array_equal(got, expected)


def test_api_jacobi_step_is_one_kernel():
    def step(x):
        def point(i, w):
            w[i] = 0.5 * (x[i - 1] + x[i + 1])
            return w
        return jc.fori_loop(1, x.shape[0] - 1, point, x)

    x = np.arange(N, dtype=np.float64) ** 2
    _one_scalar_kernel_under_jit(step, x)
    expected = x.copy()
    expected[1:-1] = 0.5 * (x[:-2] + x[2:])
    np.testing.assert_array_equal(jc.jit(step)(x), expected)


def test_two_carried_values_from_one_array_stay_on_the_host():
    """Both carried values start as ``x``: one array cannot hold both, so kernelize leaves the
    loop (it must not return None halfway, leaving the regions half converted)."""
    p = Program(["tensor<4xf64>"])
    (x,) = p.args
    zero, one, four, v = p.const(0, "i64"), p.const(1, "i64"), p.const(4, "i64"), p.const(2.0, "f64")
    a, b = p.for_(zero, four, one, [x, x], lambda i, a, b: (p.set(a, v, i), b))
    text = p.text([a, b])
    module = ir.parse(text)
    PassManager("kernelize").run(module)
    (func,) = module.functions()
    (loop,) = [op for op in func.body.ops if isinstance(op, scf.ForOp)]
    assert [type(op) for op in loop.body.ops] == [kernel.GenericOp, scf.YieldOp]  # the scatter


def api_reads_through_views(d, x):
    """``d[i][j]`` (a row, then an element), ``x[-1]`` and ``w[0]`` of the carried array: one
    kernel, each read an element read."""
    def body(i, w):
        w[i] = d[i][(i + 1) % d.shape[1]] + x[-1] * w[0] + d[-1][i]
        return w
    return jc.fori_loop(0, x.shape[0], body, x)


@EXAMPLES
@given(st.lists(finite, min_size=N * N, max_size=N * N), st.lists(finite, min_size=N, max_size=N))
def test_api_element_reads_through_slices_and_rows(ds, xs):
    d, x = np.array(ds).reshape(N, N), np.array(xs)
    _one_scalar_kernel_under_jit(api_reads_through_views, d, x)
    w = x.copy()
    for i in range(N):
        w[i] = d[i][(i + 1) % N] + x[-1] * w[0] + d[-1][i]
    np.testing.assert_array_equal(jc.jit(api_reads_through_views)(d, x), w)


def api_strided_views(x):
    """Element reads of strided views of the carried array, which the loop writes:
    ``w[::-1][i]``, ``w[1::2][i // 2]``."""
    def body(i, w):
        w[i] = w[::-1][i] * 0.5 - w[1::2][i // 2]
        return w
    return jc.fori_loop(0, x.shape[0], body, x)


@EXAMPLES
@given(st.lists(finite, min_size=N, max_size=N))
def test_api_element_reads_of_strided_views(xs):
    x = np.array(xs)
    _one_scalar_kernel_under_jit(api_strided_views, x)
    w = x.copy()
    for i in range(N):
        w[i] = w[::-1][i] * 0.5 - w[1::2][i // 2]
    np.testing.assert_array_equal(jc.jit(api_strided_views)(x), w)
