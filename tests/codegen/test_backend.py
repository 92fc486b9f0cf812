"""The backend seam: plans are data, symbols come from the code, targets are found by name."""

from __future__ import annotations

import gc
import pickle
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import jitcore
import jitcore.numpy as jnp
from jitcore import compiler, ir, pytree
from jitcore.codegen.backend import TARGETS, backend_for
from jitcore.codegen.plan import CompiledFunction, LowerOptions, Storage
from jitcore.dispatch import ARRAY_HEADER, Executable
from jitcore.errors import JitcoreError
from jitcore.ir import layout_class

ROOT = Path(__file__).resolve().parents[2]



def f_sum(x, y):
    return jnp.tanh(x + y)


def f_difference(x, y):
    return jnp.tanh(x - y)


f_sum.__name__ = f_difference.__name__ = "f"  # one name, two functions
_ARGS = (np.zeros(64, np.float32), np.zeros(64, np.float32))
SUM_TANH = ir.print_op(jitcore.make_ir(f_sum)(*_ARGS))
DIFFERENCE = ir.print_op(jitcore.make_ir(f_difference)(*_ARGS))


def lower(text: str, contiguous=(True, True)) -> CompiledFunction:
    module = compiler.optimize(ir.parse_module(text), compiler.CompileOptions())
    (func,) = module.functions()
    classes = tuple(layout_class.C if c else layout_class.STRIDED for c in contiguous)
    return backend_for("cpu").lower(func, classes, LowerOptions(header=ARRAY_HEADER))


def run(plan: CompiledFunction, *arrays):
    (result,) = Executable(plan, pytree.flatten((0,))[1])(list(arrays))
    return result


def test_same_ir_gets_the_same_symbols_in_any_order():
    first = [lower(SUM_TANH), lower(DIFFERENCE)]
    second = [lower(DIFFERENCE), lower(SUM_TANH)][::-1]
    for a, b in zip(first, second):
        assert a.symbol == b.symbol and a.llvm_ir == b.llvm_ir
        assert [launch.kernel for launch in a.launches] == [launch.kernel for launch in b.launches]
    assert first[0].symbol != first[1].symbol  # one name, two functions: two symbols
    assert first[0].symbol.startswith("jit_f_")
    assert all(launch.kernel.startswith(first[0].symbol + "_k") for launch in first[0].launches)
    assert "_0000000000000000" not in first[0].llvm_ir + first[0].optimized_llvm_ir


def test_functions_of_one_name_run_side_by_side():
    x, y = np.linspace(-2, 2, 64, dtype=np.float32), np.full(64, 0.5, np.float32)
    add, sub = lower(SUM_TANH), lower(DIFFERENCE)
    np.testing.assert_allclose(run(add, x, y), np.tanh(x + y), rtol=1e-6)
    np.testing.assert_allclose(run(sub, x, y), np.tanh(x - y), rtol=1e-6)
    again = lower(SUM_TANH)  # same code, same name: loaded once, reused
    assert backend_for("cpu").load(again) == backend_for("cpu").load(add)


def test_a_symbol_names_one_code():
    plan = lower(SUM_TANH)
    backend_for("cpu").load(plan)
    forged = pickle.loads(pickle.dumps(plan))
    forged.llvm_ir += "; something else\n"
    with pytest.raises(JitcoreError, match="both named"):
        backend_for("cpu").load(forged)


def test_a_plan_is_data_that_pickles():
    plan = lower(SUM_TANH, contiguous=(False, True))
    copy = pickle.loads(pickle.dumps(plan))
    assert copy == plan
    assert isinstance(copy.object_code, bytes) and copy.object_code
    x = np.linspace(-2, 2, 128, dtype=np.float32)[::2]  # strided: its strides are passed
    y = np.full(64, 0.25, np.float32)
    np.testing.assert_allclose(run(copy, x, y), np.tanh(x + y), rtol=1e-6)


def test_a_pickled_plan_loads_and_runs_in_a_fresh_process(tmp_path):
    x, y = np.linspace(-3, 3, 64, dtype=np.float32), np.full(64, 0.5, np.float32)
    (tmp_path / "plan.pkl").write_bytes(pickle.dumps(lower(SUM_TANH)))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    script = f"""
import pickle, sys
import llvmlite.binding as llvm
import numpy as np
from jitcore import pytree
from jitcore.dispatch import Executable
plan = pickle.loads(open({str(tmp_path / 'plan.pkl')!r}, 'rb').read())
x, y = np.load({str(tmp_path / 'x.npy')!r}), np.load({str(tmp_path / 'y.npy')!r})
(out,) = Executable(plan, pytree.flatten((0,))[1])([x, y])
np.save({str(tmp_path / 'out.npy')!r}, out)
assert "jitcore.passes" not in sys.modules  # nothing was compiled here: the plan was loaded
"""
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=120)
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), np.tanh(x + y), rtol=1e-6)


def test_an_unknown_target_is_a_clear_error():
    with pytest.raises(JitcoreError, match=r"unknown compilation target 'nope'.*cpu"):
        backend_for("nope")
    with pytest.raises(JitcoreError, match="cpu"):
        compiler.CompileOptions(target="nope")
    assert "cpu" in TARGETS


def test_magic_is_triple_cpu_and_features():
    magic = backend_for("cpu").magic()
    assert isinstance(magic, tuple) and len(magic) == 3
    assert all(isinstance(part, str) and part for part in magic[:2])
    assert isinstance(magic[2], str)


def test_jit_compiles_through_the_backend():
    @jitcore.jit
    def f(x):
        return jnp.tanh(x * 2 + 1)

    x = np.linspace(-1, 1, 100)
    np.testing.assert_allclose(f(x), np.tanh(x * 2 + 1), rtol=1e-12)
    plan = f.lower(x).plan()
    assert plan.target == "cpu" and plan.symbol.startswith("jit_f_")
    assert plan.launches and all(launch.parallel_extent == (100,) for launch in plan.launches)


def test_launches_name_their_kernels_operands_and_parallel_dims():
    def g(x, i):
        return jnp.sum(x, axis=0), x[i]

    x, i = np.arange(12.0).reshape(3, 4), np.array([2, -1])
    plan = jitcore.jit(g).lower(x, i).plan()
    by_operands = {len(launch.operands): launch for launch in plan.launches}
    total, gather = by_operands[2], by_operands[4]
    assert total.operands[0] == Storage("input", 0) and total.operands[1].kind == "buffer"
    assert total.parallel_extent == (4,)  # the reduced dim is not split
    assert gather.operands[:2] == (Storage("input", 0), Storage("input", 1))
    assert gather.operands[3] == Storage("status", 0) and gather.parallel_extent == ()
    assert plan.has_status


def test_a_function_jitted_anew_takes_its_code_from_the_memo(monkeypatch):
    """The backend's memo of recent compiles: the same LLVM IR compiled again (a new ``jit`` of
    the same code, its first plan gone) runs no LLVM and gets the same machine code; other IR,
    or the memo turned off, does run LLVM."""
    from jitcore.codegen.cpu import backend, target

    compiled = []
    real = target.compile_ir

    def counting(llvm_ir, *args, **kwargs):
        compiled.append(llvm_ir)
        return real(llvm_ir, *args, **kwargs)

    monkeypatch.setattr(target, "compile_ir", counting)
    x = np.linspace(-2.0, 2.0, 37)
    y = x[::-1].copy()

    def run():
        f = jitcore.jit(lambda a, b: jnp.tanh(a * 3.0 - b), cache=False)
        result = f(x, y)
        plan = next(iter(f._cache.values())).plan
        code = plan.object_code, plan.optimized_llvm_ir, plan.code_source
        del f, plan
        gc.collect()  # the plan and its loaded code are gone: only the memo has the code
        return result, code

    first, code = run()
    assert len(compiled) == 1
    again, code_again = run()
    assert len(compiled) == 1 and code_again[2] in ("memory", "memo")
    assert code_again[:2] == code[:2]
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(first, np.tanh(x * 3.0 - y), rtol=1e-15, atol=1e-15)
    jitcore.jit(lambda a, b: jnp.tanh(a * 3.0 + b), cache=False)(x, y)  # other IR: compiled
    assert len(compiled) == 2
    monkeypatch.setattr(backend, "MEMO_BYTES", 0)
    run()
    assert len(compiled) == 3


def test_the_code_memo_keeps_its_budget_dropping_the_least_recently_used(monkeypatch):
    """The memo (``_CodeMemo``) holds at most ``MEMO_BYTES`` of compressed code: the suite runs
    with a larger budget than users' (tests/conftest.py), so the bound is checked here on its
    own, with incompressible entries of known size and no compile."""
    import os

    from jitcore.codegen.cpu import backend

    monkeypatch.setattr(backend, "MEMO_BYTES", 64 * 1024)
    for name in ("get", "put"):  # this process's memo alone (the suite shares it between workers)
        method = getattr(backend._CodeMemo, name)
        monkeypatch.setattr(backend._CodeMemo, name, getattr(method, "__wrapped__", method))
    memo = backend._CodeMemo()
    entries = {i: (os.urandom(8 * 1024), os.urandom(2048).hex()) for i in range(20)}
    for i, (code, text) in entries.items():
        memo.put(("f", i), b"digest %d" % i, code, text)
        assert memo.get(("f", 0), b"digest 0") is not None  # used each time: kept
        assert memo._bytes <= backend.MEMO_BYTES
    assert memo.get(("f", 0), b"digest 0") == entries[0]
    assert memo.get(("f", 19), b"digest 19") == entries[19]
    assert memo.get(("f", 1), b"digest 1") is None  # the least recently used went first
    assert memo.get(("f", 19), b"digest other IR") is None  # only for the IR it was made from
    kept = sum(memo.get(("f", i), b"digest %d" % i) is not None for i in range(20))
    assert 3 <= kept < 20


def test_the_light_pipeline_inlines_its_kernels():
    """The light pipeline (target.LIGHT_PASSES, not an O-level one) inlines a tiny function's
    kernels into its entry, as O2 did; the results are NumPy's, special values included."""
    from jitcore.codegen.cpu import backend

    x = np.array([[0.5, -1.0, np.inf, 2.0], [np.nan, 0.0, -0.0, 3.0]], dtype=np.float32)

    def softmax(a):
        e = jnp.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    f = jitcore.jit(softmax, cache=False)
    with np.errstate(invalid="ignore"):
        want = np.exp(x - x.max(axis=1, keepdims=True))
        want = want / want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(f(x), want, rtol=1e-6, atol=1e-7)
    plan = next(iter(f._cache.values())).plan
    assert f"!{backend.LIGHT_METADATA} =" in plan.llvm_ir
    assert plan.llvm_ir.count("\ndefine ") > 1  # a kernel function per kernel, before LLVM
    defined = [line for line in plan.optimized_llvm_ir.splitlines()
               if line.startswith("define ") and "available_externally" not in line]
    assert len(defined) == 1, defined  # the entry alone


_LOOP_SUM = """
define double @total(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %body]
  %s = phi double [0.0, %entry], [%t, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %w = fmul double %v, 3.0
  %t = fadd double %s, %w
  %next = add i64 %i, 1
  br label %loop
done:
  ret double %s
}
"""


def test_light_machine_code_keeps_loop_values_in_registers():
    """The light pipeline's machine code (level 0, target.LEVEL_0_CODEGEN_OPTIONS) allocates
    registers as the higher levels do: a loop's running sum and index stay in registers. Level
    0's own fast allocator would store and reload both on the stack in every iteration (it
    ran the math library's chains 2-5x slower). A fixed CPU: the same code on every host."""
    from jitcore.codegen.cpu import target

    machine = target.target_machine("x86_64-unknown-linux-gnu", "x86-64-v2", "", target.LIGHT_CODEGEN_OPT)
    asm = machine.emit_assembly(llvm.parse_assembly(_LOOP_SUM))
    assert "mulsd" in asm and "addsd" in asm
    assert "rsp" not in asm, asm


def test_the_light_pipeline_is_for_tiny_functions_without_loops(monkeypatch):
    """A function whose kernels are all tiny and run once is compiled light (named in its IR,
    its assembly emitted as it was compiled); a larger one, or a tiny kernel in a loop, keeps
    O3. Every result is NumPy's."""
    from jitcore.codegen.cpu import backend, target

    pipelines = []
    real = target.compile_ir

    def recording(llvm_ir, *args, light=False, **kwargs):
        pipelines.append(light)
        return real(llvm_ir, *args, light=light, **kwargs)

    monkeypatch.setattr(target, "compile_ir", recording)
    monkeypatch.setattr(backend, "MEMO_BYTES", 0)

    def compiled(fn, *args):
        pipelines.clear()
        f = jitcore.jit(fn, cache=False)
        result = f(*args)
        plan = next(iter(f._cache.values())).plan
        # the function's own compile is the last (support code it calls may come first)
        assert pipelines[-1] == (f"!{backend.LIGHT_METADATA} =" in plan.llvm_ir)
        return result, pipelines[-1], f

    x = np.linspace(-2.0, 2.0, backend.TINY_WORK, dtype=np.float32)
    got, light, f = compiled(lambda a: jnp.tanh(a * 3.0 - 1.0), x)
    assert light
    np.testing.assert_allclose(got, np.tanh(x * 3.0 - 1.0), rtol=1e-6, atol=1e-6)
    assert "ret" in f.lower(x).as_text("asm")
    big = np.linspace(-2.0, 2.0, backend.TINY_WORK + 1, dtype=np.float32)
    got, light, _ = compiled(lambda a: jnp.tanh(a * 3.0 - 1.0), big)
    assert not light
    np.testing.assert_allclose(got, np.tanh(big * 3.0 - 1.0), rtol=1e-6, atol=1e-6)
    looped = jitcore.fori_loop
    got, light, _ = compiled(lambda a, n: looped(0, n, lambda i, v: v * 0.5 + a, a), x, np.int64(5))
    assert not light
    want = x.copy()
    for _ in range(5):
        want = want * np.float32(0.5) + x
    np.testing.assert_allclose(got, want, rtol=1e-6)
