"""Compile time is about linear in the size of the traced program (issue 11 item 4), and a long
compile warns once per function, naming the stage that took longest (``jitcore.compile_time``)."""

import time
import warnings

import numpy as np
import pytest

import jitcore as jc
from jitcore import compile_time
from jitcore.codegen.cpu import backend
from jitcore.errors import CompileTimeWarning

# 3, not 5: CPU time (process_time) is little disturbed by other processes, and the least of
# three stays far under the bound (unloaded ratios 3-6 against 10); each repeat is ~1.5 s.
REPEATS = 3


def chain(steps: int):
    """A straight-line program of about 4 ops per step: a scalar sum of squared elements read at
    static positions (each read its own kernel) and an elementwise chain on a vector, which fuse
    into long kernel bodies, the case that made ``fuse`` quadratic."""
    def f(x, y):
        s = x[0] * 0.0
        for i in range(steps):
            if i % 2:
                s = s + x[i % x.shape[0]] * x[(3 * i) % x.shape[0]]
            else:
                y = y * 0.999 + x[i % 5: i % 5 + y.shape[0]]
        return s, y
    return f, (np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 32))


def traced_ops(f, args) -> int:
    return sum(1 for _ in jc.jit(f, autograph=False).lower(*args).traced.walk())


def compile_seconds(f, args) -> float:
    """Trace, optimise and lower (LLVM included) once, timed in this process's CPU time: the
    machine is shared, and other processes stretch wall time, not the work done here."""
    start = time.process_time()
    lowered = jc.jit(f, autograph=False).lower(*args)  # Python's loop: straight-line code
    lowered.optimized()
    lowered.plan()
    return time.process_time() - start


def test_four_times_the_ops_compile_in_well_under_sixteen_times_the_time(record_property, monkeypatch):
    monkeypatch.setattr(backend, "MEMO_BYTES", 0)  # each repeat runs LLVM, not the backend's memo
    small, large = chain(180), chain(720)
    n_small, n_large = traced_ops(*small), traced_ops(*large)
    assert 3.5 < n_large / n_small < 4.5 and n_small >= 950
    compile_seconds(*small)  # warm up: imports, LLVM's first target machine
    t_small = min(compile_seconds(*small) for _ in range(REPEATS))  # the least disturbed run
    t_large = min(compile_seconds(*large) for _ in range(REPEATS))
    record_property("compile_seconds", {n_small: round(t_small, 3), n_large: round(t_large, 3)})
    print(f"{n_small} ops: {t_small:.2f} s; {n_large} ops: {t_large:.2f} s; "
          f"ratio {t_large / t_small:.1f}")
    assert t_large / t_small < 10.0  # linear is 4, quadratic 16; unloaded runs give 3-6


def test_the_fused_chain_still_computes_what_numpy_does():
    f, args = chain(40)
    got = jc.jit(f)(*args)
    want = f(*args)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


@pytest.fixture
def warn_after(monkeypatch):
    def set_threshold(seconds: float):
        monkeypatch.setattr(compile_time, "WARN_AFTER_SECONDS", seconds)
    return set_threshold


def test_a_long_compile_warns_once_per_function_naming_it_and_its_slowest_stage(warn_after):
    warn_after(0.0)

    def slow_to_compile(x):
        return np.tanh(x * 2.0 + 1.0)

    jitted = jc.jit(slow_to_compile)
    with pytest.warns(CompileTimeWarning) as caught:
        jitted(np.ones(4))
    (warning,) = caught
    message = str(warning.message)
    assert "slow_to_compile()" in message
    stage = message.split("most of it in ")[1].split(" (")[0]
    assert stage in ("tracing", "optimizing", "code generation", "verifier") or stage.startswith("pass '")
    assert "holds only" in message and "not in an unrolled loop" in message  # a small program
    assert warning.filename == __file__  # it points at the call that compiled
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileTimeWarning)
        jitted(np.ones(5, np.float32))  # a second compile of the same function: no warning
        assert jitted.cache_info().compiles == 2


def test_a_long_compile_of_an_unrolled_loop_says_how_large_the_trace_is(warn_after):
    warn_after(0.0)

    def unrolled(x):
        # a list's items, functions (a list of numbers is a table a compiled loop reads: session 49)
        for scale in [(lambda v, k=k: v * (0.5 + k / 1000)) for k in range(120)]:
            x = scale(x) + 1.0
        return x

    with pytest.warns(CompileTimeWarning) as caught:
        jc.jit(unrolled)(np.ones(4))
    message = str(caught[0].message)
    ops = int(message.split("holds ")[1].split(" operations")[0])
    assert ops > compile_time.UNROLLED_OPS and "list or tuple" in message and "is unrolled" in message


def test_a_quick_compile_does_not_warn(warn_after):
    warn_after(60.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileTimeWarning)
        jc.jit(lambda x: x + 1)(np.ones(3))


def test_the_clock_splits_a_compile_into_tracing_each_pass_the_verifier_and_code_generation():
    clock = compile_time.CompileClock()
    jitted = jc.jit(lambda x: np.exp(x) * 2.0)
    lowered = None
    with clock.stage("tracing"):
        lowered = jitted.lower(np.ones(3))
    with clock.stage("optimizing"):
        lowered.optimized()
    with clock.stage("code generation"):
        lowered.plan()
    stages = clock.stages
    assert {"tracing", "optimizing", "code generation", "verifier", "pass 'fuse'",
            "pass 'canonicalize'", "pass 'kernelize'"} <= set(stages)
    assert all(seconds >= 0 for seconds in stages.values())
    assert clock.slowest()[1] == max(stages.values())
    assert clock.total == pytest.approx(sum(stages.values()))


def test_a_function_of_many_kernels_keeps_them_as_functions_and_computes_what_numpy_does():
    # Past codegen/cpu/backend.py's INLINED_KERNELS, LLVM does not inline the kernels into the
    # entry function, whose optimisation would take time superlinear in the program's length.
    from jitcore.codegen.cpu.backend import INLINED_KERNELS

    def heat(u):
        u = u * 1.0
        for _ in range(40):
            u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
        return u

    u = np.linspace(0.0, 1.0, 50) ** 2
    jitted = jc.jit(heat, autograph=False)  # Python unrolls the loop: AutoGraph would roll it
    lowered = jitted.lower(u)
    kernels = [line for line in lowered.as_text("llvm").splitlines() if line.startswith("define internal")]
    assert len(kernels) > INLINED_KERNELS
    assert all(line.endswith("noinline") for line in kernels)
    defined = [line for line in lowered.as_text("llvm-opt").splitlines() if line.startswith("define")]
    assert len(defined) > INLINED_KERNELS
    np.testing.assert_array_equal(jitted(u), heat(u))
