"""Loops and branches of array work, run by the host plan: array-level ``scf`` IR in, numbers out.

Each test writes a function as array-level IR text (as tracing would give it, with ``scf.for``,
``scf.while`` and ``scf.if`` around array work), runs ``kernelize,fuse`` on it, compiles it with
the CPU backend once, and compares it with plain NumPy on hypothesis draws of the run-time
values: data, trip counts, steps (negative, zero trips), tolerances and conditions. The plan's
program runs the loops as LLVM loops in the entry function: no Python between iterations.
The last section runs the same kinds of loops written with the frontend's ``jc.fori_loop``,
``jc.while_loop``, ``jc.cond`` and ``jc.scan``.
"""
# ruff: noqa: E501  (IR text is one op per line)

from __future__ import annotations

import contextlib
import functools
import pickle
import subprocess
import sys
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore import config, ir, passes, pytree
from jitcore.codegen.backend import backend_for
from jitcore.codegen.cpu import runtime
from jitcore.codegen.plan import Copy, ForLoop, LowerOptions, Run, WhileLoop
from jitcore.dispatch import ARRAY_HEADER, Executable
from jitcore.errors import LoopStepError
from jitcore.ir import layout_class
from tests.budget import examples


def _classes(contiguous: tuple[bool, ...]) -> tuple[str, ...]:
    return tuple(layout_class.C if c else layout_class.STRIDED for c in contiguous)


def lower(text: str, contiguous: tuple[bool, ...], header=ARRAY_HEADER, split: bool = False):
    module = ir.parse(text)
    passes.PassManager("canonicalize,cse,dce,kernelize,fuse,canonicalize,cse,dce", verify_each=True).run(module)
    (func,) = module.functions()
    with mock.patch.object(runtime, "MIN_SPLIT_WORK", 0) if split else contextlib.nullcontext():
        plan = backend_for("cpu").lower(func, _classes(contiguous), LowerOptions(header=header))
    return plan, len(func.attributes["function_type"].results)


@functools.cache
def compiled(text: str, contiguous: tuple[bool, ...], header=ARRAY_HEADER, split: bool = False) -> Executable:
    plan, results = lower(text, contiguous, header, split)
    return Executable(plan, pytree.flatten(tuple(range(results)))[1])


def run(text: str, *arrays, header=ARRAY_HEADER) -> tuple:
    arrays = [np.asarray(a) for a in arrays]
    return compiled(text, tuple(a.flags.c_contiguous for a in arrays), header)(arrays)


def module(args: str, results: str, body: str, returned: str) -> str:
    """A module of one function ``f(args) -> results`` whose ops are ``body``."""
    types = ", ".join(a.split(": ")[1] for a in args.split(", "))
    return f'''"builtin.module"() ({{
  "func.func"() ({{
  ^bb0({args}):
{body}
    "func.return"({returned}) : ({results}) -> ()
  }}) {{function_type = ({types}) -> ({results}), sym_name = "f"}} : () -> ()
}}) : () -> ()
'''


def i64(name: str, value: int) -> str:
    return f'    %{name} = "array.constant"() {{value = dense<{value}> : tensor<i64>}} : () -> tensor<i64>'


# -- the heat equation: u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2]), steps times -----
def heat_step(u: str, c: str, n: int, out: str) -> str:
    """The ops of one step on ``%u`` (tensor<nxf64>), giving ``%out``; names are prefixed by ``out``."""
    m, t, s = n - 2, f"tensor<{n}xf64>", f"tensor<{n - 2}xf64>"
    return f'''      %{out}_mid = "array.slice"(%{u}) {{start = [1], stride = [1]}} : ({t}) -> {s}
      %{out}_right = "array.slice"(%{u}) {{start = [2], stride = [1]}} : ({t}) -> {s}
      %{out}_left = "array.slice"(%{u}) {{start = [0], stride = [1]}} : ({t}) -> {s}
      %{out}_two = "array.constant"() {{value = dense<2.0> : tensor<f64>}} : () -> tensor<f64>
      %{out}_twos = "array.broadcast_in_dim"(%{out}_two) {{broadcast_dimensions = []}} : (tensor<f64>) -> {s}
      %{out}_twice = "array.mul"(%{out}_twos, %{out}_mid) : ({s}, {s}) -> {s}
      %{out}_d1 = "array.sub"(%{out}_right, %{out}_twice) : ({s}, {s}) -> {s}
      %{out}_d2 = "array.add"(%{out}_d1, %{out}_left) : ({s}, {s}) -> {s}
      %{out}_cs = "array.broadcast_in_dim"(%{c}) {{broadcast_dimensions = []}} : (tensor<f64>) -> {s}
      %{out}_dt = "array.mul"(%{out}_cs, %{out}_d2) : ({s}, {s}) -> {s}
      %{out}_new = "array.add"(%{out}_mid, %{out}_dt) : ({s}, {s}) -> {s}
      %{out} = "array.update_slice"(%{u}, %{out}_new) {{start = [1], stride = [1]}} : ({t}, {s}) -> {t}'''.replace(
        f"tensor<{m}xf64>", s)


def heat(n: int) -> str:
    t = f"tensor<{n}xf64>"
    body = "\n".join([
        i64("zero", 0), i64("one", 1),
        f'''    %r = "scf.for"(%zero, %steps, %one, %u0) ({{
    ^bb0(%i: tensor<i64>, %u: {t}):
{heat_step("u", "c", n, "next")}
      "scf.yield"(%next) : ({t}) -> ()
    }}) : (tensor<i64>, tensor<i64>, tensor<i64>, {t}) -> {t}'''])
    return module(f"%u0: {t}, %c: tensor<f64>, %steps: tensor<i64>", t, body, "%r")


def heat_numpy(u: np.ndarray, c: float, steps: int) -> np.ndarray:
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


floats = st.floats(-100, 100, allow_nan=False, width=64)


@pytest.mark.parametrize("n", [3, 17, 64])
@settings(max_examples=examples(15))
@given(data=st.data(), c=st.floats(0, 0.5), steps=st.integers(-3, 40))
def test_heat_equation_matches_numpy(n, data, c, steps):
    u = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
    before = u.copy()
    (got,) = run(heat(n), u, np.float64(c), np.int64(steps))
    np.testing.assert_allclose(got, heat_numpy(u, c, steps), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(u, before)  # the init is the caller's array: never written


def test_heat_equation_threads_and_portable_descriptor():
    u = np.random.default_rng(0).standard_normal(5000)
    want = heat_numpy(u, 0.25, 30)
    with config.using(num_threads=3, parallel_threshold=0, chunk_size=37):
        ex = compiled(heat(5000), (True, True, True), ARRAY_HEADER, True)
        (threaded,) = ex([u, np.asarray(0.25), np.asarray(30)])
    np.testing.assert_allclose(threaded, want, rtol=1e-12)
    (portable,) = run(heat(5000), u, np.float64(0.25), np.int64(30), header=None)
    np.testing.assert_allclose(portable, want, rtol=1e-12)


def test_heat_equation_strided_init_is_not_written():
    base = np.random.default_rng(1).standard_normal(34)
    u = base[::2]
    before = base.copy()
    (got,) = run(heat(17), u, np.float64(0.3), np.int64(5))
    np.testing.assert_allclose(got, heat_numpy(u, 0.3, 5), rtol=1e-12)
    np.testing.assert_array_equal(base, before)


def test_ten_thousand_steps_compile_once_and_run_at_kernel_speed():
    text = heat(200)
    plan, results = lower(text, (True, True, True))  # its compile time: tools/bench_compile.py
    # the step's kernels, once, in the loop's body: nothing unrolled
    (loop,) = [s for s in plan.program if isinstance(s, ForLoop)]
    assert [s.launch for s in loop.body if isinstance(s, Run)] == list(range(len(plan.launches)))
    ex = Executable(plan, pytree.flatten((0,))[1])
    u = np.random.default_rng(2).standard_normal(200)
    args = [u, np.asarray(0.2), np.asarray(10_000)]
    ex(args)  # loads the code
    start = time.perf_counter()
    (got,) = ex(args)
    run_s = time.perf_counter() - start
    np.testing.assert_allclose(got, heat_numpy(u, 0.2, 10_000), rtol=1e-9, atol=1e-12)
    # 10,000 steps of 200 points: microseconds each in compiled code; a Python round trip per
    # step would alone take longer than this.
    assert run_s < 0.05, f"ran in {run_s:.3f} s"


# -- scf.for with traced bounds and step: acc = acc + i * x for i in range(lo, hi, step) -------
FOR_RANGE = module(
    "%x: tensor<5xf64>, %lo: tensor<i64>, %hi: tensor<i64>, %by: tensor<i64>",
    "tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<i64>",
    '''    %zero = "array.constant"() {value = dense<0.0> : tensor<5xf64>} : () -> tensor<5xf64>
    %c0 = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %r0, %r1 = "scf.for"(%lo, %hi, %by, %zero, %c0) ({
    ^bb0(%i: tensor<i64>, %acc: tensor<5xf64>, %count: tensor<i64>):
      %f = "array.convert"(%i) : (tensor<i64>) -> tensor<f64>
      %fs = "array.broadcast_in_dim"(%f) {broadcast_dimensions = []} : (tensor<f64>) -> tensor<5xf64>
      %ix = "array.mul"(%fs, %x) : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
      %next = "array.add"(%acc, %ix) : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64>
      %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
      %more = "array.add"(%count, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "scf.yield"(%next, %more) : (tensor<5xf64>, tensor<i64>) -> ()
    }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<5xf64>, tensor<i64>) -> (tensor<5xf64>, tensor<i64>)''',
    "%r0, %r0, %x, %r1")


@settings(max_examples=examples(60))
@given(x=st.lists(floats, min_size=5, max_size=5), lo=st.integers(-30, 30), hi=st.integers(-30, 30),
       by=st.integers(-7, 7).filter(bool))
def test_for_with_traced_bounds_and_step(x, lo, hi, by):
    x = np.array(x)
    acc, twice, same, count = run(FOR_RANGE, x, np.int64(lo), np.int64(hi), np.int64(by))
    want = np.zeros(5)
    for i in range(lo, hi, by):
        want = want + i * x
    np.testing.assert_allclose(acc, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(twice, acc)  # a loop result returned twice
    np.testing.assert_array_equal(same, x)  # an argument returned beside it
    assert int(count) == len(range(lo, hi, by))


def test_zero_step_raises_instead_of_hanging():
    x = np.ones(5)
    with pytest.raises(LoopStepError, match="step of zero"):
        run(FOR_RANGE, x, np.int64(0), np.int64(10), np.int64(0))
    with pytest.raises(LoopStepError, match="step of zero"):  # even when it would run no trip
        run(FOR_RANGE, x, np.int64(10), np.int64(0), np.int64(0))
    run(FOR_RANGE, x, np.int64(0), np.int64(3), np.int64(1))  # the status is per call


# -- scf.while to a tolerance, its condition computed by kernels in the cond region ------------
WHILE_TOL = module(
    "%x: tensor<6xf64>, %tol: tensor<f64>",
    "tensor<6xf64>, tensor<i64>",
    '''    %c0 = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %r0, %r1 = "scf.while"(%x, %c0) ({
    ^bb0(%u: tensor<6xf64>, %k: tensor<i64>):
      %a = "array.abs"(%u) : (tensor<6xf64>) -> tensor<6xf64>
      %m = "array.reduce"(%a) {axes = [0], kind = "max"} : (tensor<6xf64>) -> tensor<f64>
      %big = "array.gt"(%m, %tol) : (tensor<f64>, tensor<f64>) -> tensor<i1>
      "scf.condition"(%big) : (tensor<i1>) -> ()
    }, {
    ^bb0(%u: tensor<6xf64>, %k: tensor<i64>):
      %half = "array.constant"() {value = dense<0.5> : tensor<6xf64>} : () -> tensor<6xf64>
      %v = "array.mul"(%u, %half) : (tensor<6xf64>, tensor<6xf64>) -> tensor<6xf64>
      %one = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
      %k1 = "array.add"(%k, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "scf.yield"(%v, %k1) : (tensor<6xf64>, tensor<i64>) -> ()
    }) : (tensor<6xf64>, tensor<i64>) -> (tensor<6xf64>, tensor<i64>)''',
    "%r0, %r1")


@settings(max_examples=examples(40))
@given(x=st.lists(floats, min_size=6, max_size=6), tol=st.floats(1e-3, 200))
def test_while_to_tolerance(x, tol):
    x = np.array(x)
    before = x.copy()
    u, k = run(WHILE_TOL, x, np.float64(tol))
    want, count = x.copy(), 0
    while np.abs(want).max() > tol:
        want, count = want * 0.5, count + 1
    np.testing.assert_array_equal(u, want)
    assert int(k) == count
    np.testing.assert_array_equal(x, before)


# -- scf.if on a traced condition -------------------------------------------------------------
IF_SUM = module(
    "%x: tensor<7xf32>, %flip: tensor<i1>",
    "tensor<7xf32>, tensor<7xf32>",
    '''    %s = "array.reduce"(%x) {axes = [0], kind = "sum"} : (tensor<7xf32>) -> tensor<f32>
    %z = "array.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %pos = "array.gt"(%s, %z) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %a = "scf.if"(%pos) ({
      %two = "array.constant"() {value = dense<2.0> : tensor<7xf32>} : () -> tensor<7xf32>
      %d = "array.mul"(%x, %two) : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
      "scf.yield"(%d) : (tensor<7xf32>) -> ()
    }, {
      %e = "array.exp"(%x) : (tensor<7xf32>) -> tensor<7xf32>
      %one = "array.constant"() {value = dense<1.0> : tensor<7xf32>} : () -> tensor<7xf32>
      %m = "array.sub"(%e, %one) : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
      "scf.yield"(%m) : (tensor<7xf32>) -> ()
    }) : (tensor<i1>) -> tensor<7xf32>
    %b = "scf.if"(%flip) ({
      "scf.yield"(%x) : (tensor<7xf32>) -> ()
    }, {
      "scf.yield"(%a) : (tensor<7xf32>) -> ()
    }) : (tensor<i1>) -> tensor<7xf32>''',
    "%a, %b")


@settings(max_examples=examples(40))
@given(x=st.lists(st.floats(-10, 10, width=32), min_size=7, max_size=7), flip=st.booleans())
def test_if_chooses_between_two_computations(x, flip):
    x = np.array(x, dtype=np.float32)
    a, b = run(IF_SUM, x, np.bool_(flip))
    want = x * np.float32(2) if x.sum() > 0 else np.exp(x) - np.float32(1)
    np.testing.assert_allclose(a, want, rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(b, x if flip else a)
    assert not np.shares_memory(b, x)  # a new array, as NumPy's np.where(...) would be


# -- nested loops, a branch inside a loop, carried values that swap -----------------------------
NESTED = module(
    "%x: tensor<4xf64>, %n: tensor<i64>, %m: tensor<i64>, %k: tensor<i64>",
    "tensor<4xf64>, tensor<4xf64>",
    '''    %c0 = "array.constant"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
    %c1 = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
    %zero = "array.constant"() {value = dense<0.0> : tensor<4xf64>} : () -> tensor<4xf64>
    %r0, %r1 = "scf.for"(%c0, %n, %c1, %x, %zero) ({
    ^bb0(%i: tensor<i64>, %a: tensor<4xf64>, %b: tensor<4xf64>):
      %inner = "scf.for"(%c0, %m, %c1, %b) ({
      ^bb0(%j: tensor<i64>, %acc: tensor<4xf64>):
        %small = "array.lt"(%j, %k) : (tensor<i64>, tensor<i64>) -> tensor<i1>
        %picked = "scf.if"(%small) ({
          %s = "array.add"(%acc, %a) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
          "scf.yield"(%s) : (tensor<4xf64>) -> ()
        }, {
          %fj = "array.convert"(%j) : (tensor<i64>) -> tensor<f64>
          %fjs = "array.broadcast_in_dim"(%fj) {broadcast_dimensions = []} : (tensor<f64>) -> tensor<4xf64>
          %d = "array.sub"(%acc, %fjs) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
          "scf.yield"(%d) : (tensor<4xf64>) -> ()
        }) : (tensor<i1>) -> tensor<4xf64>
        "scf.yield"(%picked) : (tensor<4xf64>) -> ()
      }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf64>) -> tensor<4xf64>
      "scf.yield"(%inner, %a) : (tensor<4xf64>, tensor<4xf64>) -> ()
    }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)''',
    "%r0, %r1")


def nested_numpy(x, n, m, k):
    a, b = x.copy(), np.zeros(4)
    for _ in range(n):
        acc = b
        for j in range(m):
            acc = acc + a if j < k else acc - j
        a, b = acc, a  # the outer loop yields (inner, a): the carried values swap places
    return a, b


@settings(max_examples=examples(40))
@given(x=st.lists(floats, min_size=4, max_size=4), n=st.integers(-1, 6), m=st.integers(-1, 6),
       k=st.integers(-1, 6))
def test_nested_loops_with_a_branch_and_swapped_carries(x, n, m, k):
    x = np.array(x)
    got = run(NESTED, x, np.int64(n), np.int64(m), np.int64(k))
    for g, w in zip(got, nested_numpy(x, n, m, k)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-9)


def test_plan_is_a_program_with_buffers_allocated_once():
    plan, _ = lower(NESTED, (True,) * 4)
    (outer,) = [s for s in plan.program if isinstance(s, ForLoop)]
    assert any(isinstance(s, ForLoop) for s in outer.body)
    assert not outer.check_step  # a constant step of 1 needs no check
    # every buffer, loop bodies' included, is in the plan: the caller allocates each once per call
    assert {s.index for launch in plan.launches for s in launch.operands if s.kind == "buffer"} <= set(
        range(len(plan.buffers)))
    plan, _ = lower(heat(17), (True,) * 3)
    (loop,) = [s for s in plan.program if isinstance(s, ForLoop)]
    # the new u is a kernel result of the body: it trades buffers with u instead of a copy
    assert len(loop.swaps) == 1 and not any(isinstance(s, Copy) for s in loop.body)
    plan, _ = lower(WHILE_TOL, (True, True))
    (loop,) = [s for s in plan.program if isinstance(s, WhileLoop)]
    assert loop.before and loop.body


# -- the plan is data: it pickles and runs in a fresh process ----------------------------------
FRESH_PROCESS = '''
import pickle, sys
import numpy as np
from jitcore import pytree
from jitcore.dispatch import Executable
plan = pickle.loads(sys.stdin.buffer.read())
u = np.linspace(0.0, 1.0, 17) ** 2
(got,) = Executable(plan, pytree.flatten((0,))[1])([u, np.asarray(0.3), np.asarray(25)])
print(repr(got.tolist()))
'''


def test_pickled_plan_runs_in_a_fresh_process():
    plan, _ = lower(heat(17), (True, True, True))
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS], input=pickle.dumps(plan),
                         capture_output=True, check=True, timeout=120)
    u = np.linspace(0.0, 1.0, 17) ** 2
    np.testing.assert_allclose(eval(out.stdout.decode()), heat_numpy(u, 0.3, 25), rtol=1e-12)


# -- a kernel that checks indices, in a loop: a bad index stops the call -----------------------
ROW_SUM = module(
    "%x: tensor<3x4xf64>, %lo: tensor<i64>, %hi: tensor<i64>",
    "tensor<4xf64>",
    '''    %c1 = "array.constant"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
    %zero = "array.constant"() {value = dense<0.0> : tensor<4xf64>} : () -> tensor<4xf64>
    %r = "scf.for"(%lo, %hi, %c1, %zero) ({
    ^bb0(%i: tensor<i64>, %acc: tensor<4xf64>):
      %row = "array.gather"(%x, %i) {axis = 0} : (tensor<3x4xf64>, tensor<i64>) -> tensor<4xf64>
      %next = "array.add"(%acc, %row) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
      "scf.yield"(%next) : (tensor<4xf64>) -> ()
    }) : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<4xf64>) -> tensor<4xf64>''',
    "%r")


@settings(max_examples=examples(40))
@given(lo=st.integers(-5, 5), hi=st.integers(-5, 5))
def test_rows_indexed_by_the_loop_variable(lo, hi):
    x = np.arange(12.0).reshape(3, 4) ** 2
    want = np.zeros(4)
    try:
        for i in range(lo, hi):
            want = want + x[i]
    except IndexError as e:
        with pytest.raises(IndexError, match=str(e).split(" is ")[0]):
            run(ROW_SUM, x, np.int64(lo), np.int64(hi))
        return
    (got,) = run(ROW_SUM, x, np.int64(lo), np.int64(hi))
    np.testing.assert_array_equal(got, want)


# -- through the frontend: jc.fori_loop, jc.while_loop, jc.cond, jc.scan of array work -----------
def heat_fori(u, c, steps):
    def step(t, u):
        return u.at[1:-1].set(u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2]))
    return jc.fori_loop(0, steps, step, u)


@settings(max_examples=examples(25))
@given(u=hnp.arrays(np.float64, st.integers(3, 40), elements=floats), c=st.floats(0, 0.5),
       steps=st.integers(-2, 30))
def test_jit_heat_equation(u, c, steps):
    before = u.copy()
    got = jc.jit(heat_fori)(u, c, np.int64(steps))
    np.testing.assert_allclose(got, heat_numpy(u, c, steps), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(u, before)


def test_jit_heat_equation_ten_thousand_steps_first_call():
    u = np.random.default_rng(3).standard_normal(1000)
    f = jc.jit(heat_fori)
    start = time.process_time()  # this process's CPU time: other processes' load does not count
    got = f(u, 0.2, np.int64(10_000))
    first_call = time.process_time() - start
    np.testing.assert_allclose(got, heat_numpy(u, 0.2, 10_000), rtol=1e-9, atol=1e-12)
    assert first_call < 0.5, f"first call took {first_call:.2f} s of CPU"


def newton_sqrt(a, tol):
    def far(x):
        return np.abs(x * x - a).max() > tol
    return jc.while_loop(far, lambda x: 0.5 * (x + a / x), a + 1.0)


@settings(max_examples=examples(25))
@given(a=hnp.arrays(np.float64, st.integers(1, 9), elements=st.floats(0.01, 1e4)),
       tol=st.floats(1e-9, 1.0))
def test_jit_newton_iteration_to_tolerance(a, tol):
    x = a + 1.0
    while np.abs(x * x - a).max() > tol:
        x = 0.5 * (x + a / x)
    np.testing.assert_array_equal(jc.jit(newton_sqrt)(a, tol), x)


def choose(x):
    return jc.cond(x.sum() > 0, lambda v: np.sqrt(v * v + 1), lambda v: v[::-1] * 2, x)


@settings(max_examples=examples(25))
@given(x=hnp.arrays(np.float64, st.integers(1, 12), elements=floats))
def test_jit_cond_between_two_array_computations(x):
    want = np.sqrt(x * x + 1) if x.sum() > 0 else x[::-1] * 2
    np.testing.assert_allclose(jc.jit(choose)(x), want, rtol=1e-15)


def nested(x, n, m):
    def outer(i, acc):
        def inner(j, v):
            return jc.cond(j < i, lambda w: w + x, lambda w: w * 0.5, v)
        return jc.fori_loop(0, m, inner, acc) - i
    return jc.fori_loop(0, n, outer, x)


@settings(max_examples=examples(25))
@given(x=hnp.arrays(np.float64, 4, elements=floats), n=st.integers(-1, 5), m=st.integers(-1, 5))
def test_jit_nested_loops_with_a_branch(x, n, m):
    acc = x.copy()
    for i in range(n):
        for j in range(m):
            acc = acc + x if j < i else acc * 0.5
        acc = acc - i
    np.testing.assert_allclose(jc.jit(nested)(x, np.int64(n), np.int64(m)), acc, rtol=1e-12)


def running(xs, c0):
    return jc.scan(lambda c, row: (c * 0.5 + row, c.sum()), c0, xs)


@settings(max_examples=examples(20))
@given(xs=hnp.arrays(np.float64, st.tuples(st.integers(0, 6), st.just(3)), elements=floats),
       c0=hnp.arrays(np.float64, 3, elements=floats))
def test_jit_scan_of_rows(xs, c0):
    c, ys = c0, []
    for row in xs:
        c, y = c * 0.5 + row, c.sum()
        ys.append(y)
    got_c, got_ys = jc.jit(running)(xs, c0)
    np.testing.assert_allclose(got_c, c, rtol=1e-12)
    np.testing.assert_allclose(got_ys, np.array(ys).reshape(len(ys)), rtol=1e-12)
