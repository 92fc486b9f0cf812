"""Contractions as BLAS calls: finding NumPy's OpenBLAS (codegen/cpu/blas.py), recognising a
contraction kernel (codegen/contraction.py), and, when no library is found, the loop nest that
gives the same answer (codegen/cpu/gemm.py)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jitcore
from jitcore import compiler, ir, pytree
from jitcore.codegen.backend import backend_for
from jitcore.codegen.contraction import match_contraction
from jitcore.codegen.cpu import blas, gemm
from jitcore.codegen.plan import LowerOptions
from jitcore.dispatch import ARRAY_HEADER, Executable
from jitcore.errors import JitcoreError
from jitcore.ir import layout_class

ROOT = Path(__file__).resolve().parents[2]
needs_blas = pytest.mark.skipif(blas.library() is None, reason="NumPy's OpenBLAS not found")


@pytest.fixture(autouse=True)
def products_on_blas(monkeypatch):
    """Every product here on BLAS where there is one: the tiled kernel, which gemm.py's rule
    chooses for plain matrix products, has its own tests (test_tiled_gemm.py)."""
    monkeypatch.setattr(gemm, "TILED_MIN_WORK", 1 << 62)


@pytest.fixture
def no_blas(monkeypatch):
    """This process as if NumPy had no OpenBLAS (as on a NumPy built against Accelerate)."""
    monkeypatch.setattr(blas, "library", lambda: None)


def optimized_kernels(fn, *args):
    module = compiler.optimize(jitcore.make_ir(fn)(*args), compiler.CompileOptions())
    (func,) = module.functions()
    return func, [op for op in func.body.ops if op.op_name == "kernel.generic"]


def lower(fn, *args):
    func, _ = optimized_kernels(fn, *args)
    return backend_for("cpu").lower(func, (layout_class.C,) * len(args), LowerOptions(header=ARRAY_HEADER))


def run(plan, *arrays):
    (result,) = Executable(plan, pytree.flatten((0,))[1])(list(arrays))
    return result


def test_roles_of_a_batched_transposed_contraction():
    a, b = np.ones((2, 5, 3), np.float32), np.ones((2, 5, 4), np.float32)
    _, (kernel,) = optimized_kernels(lambda a, b: np.einsum("bki,bkj->bij", a, b), a, b)
    c = match_contraction(kernel)
    assert c is not None and c.element == ir.types.f32
    assert [c.extent(dims) for dims in (c.batch, c.m, c.n, c.k)] == [2, 3, 4, 5]


def test_extent_one_dims_are_dropped_and_roles_of_many_dims_kept_in_order():
    a, b = np.ones((1, 4, 5, 6), np.float64), np.ones((5, 6, 7), np.float64)
    _, (kernel,) = optimized_kernels(lambda a, b: np.tensordot(a, b, 2), a, b)
    c = match_contraction(kernel)
    assert c.batch == () and len(c.m) == 1 and len(c.k) == 2 and len(c.n) == 1
    assert [c.extent(dims) for dims in (c.m, c.n, c.k)] == [4, 7, 30]


def test_a_role_parted_in_the_result_indexes_a_stack_of_products():
    """``(n, k) @ (B, k, m)``: the batch, read by the right operand alone once fusion folds
    the left one's broadcast, is parted from m by the rows in the result: a batch dim."""
    a, b = np.ones((6, 5), np.float32), np.ones((3, 5, 4), np.float32)
    _, (kernel,) = optimized_kernels(lambda a, b: a @ b, a, b)
    c = match_contraction(kernel)
    assert [c.extent(dims) for dims in (c.batch, c.m, c.n, c.k)] == [3, 4, 6, 5]
    assert len(c.m) == len(c.n) == len(c.k) == 1


@pytest.mark.parametrize("fn, args", [
    (lambda a, b: a * b, [np.ones((3, 4), np.float32)] * 2),  # no reduction
    (lambda a: a.sum(1), [np.ones((3, 4), np.float32)]),  # one input
    (lambda a, x: np.exp(a) @ x, [np.ones((3, 4), np.float32), np.ones(4, np.float32)]),  # fused
    (lambda a, b: np.outer(a, b), [np.ones(3, np.float32), np.ones(4, np.float32)]),
])
def test_other_kernels_are_not_contractions(fn, args):
    _, kernels = optimized_kernels(fn, *args)
    assert all(match_contraction(k) is None for k in kernels)


@needs_blas
def test_numpys_openblas_is_found_by_name():
    lib = blas.library()
    assert "openblas" in Path(lib.path).name
    assert lib.int_bits in (32, 64) and lib.routine("sgemm").endswith(lib.suffix)
    for name in blas.ROUTINES:
        assert lib.address(lib.routine(name))
    assert lib.address("no_such_routine") is None


def test_a_file_that_is_no_blas_is_not_taken(tmp_path):
    junk = tmp_path / "libopenblas_fake.so"
    junk.write_bytes(b"not a library")
    assert blas.probe(str(junk)) is None
    assert blas.probe(str(tmp_path / "missing.so")) is None


def test_jitcore_blas_none_turns_the_library_off():
    before = blas.CHOICE
    blas.choose("none")  # what jitcore.config does with JITCORE_BLAS=none
    try:
        assert blas.library() is None
    finally:
        blas.choose(before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("shapes", [[(33, 17), (17, 9)], [(33, 17), (17,)], [(17,), (17,)],
                                    [(3, 5, 4), (3, 4, 6)]], ids=str)
def test_without_a_library_contractions_are_loops_and_correct(no_blas, shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
    plan = lower(lambda a, b: a @ b, a, b)
    assert "cblas" not in plan.llvm_ir and all(not launch.calls for launch in plan.launches)
    np.testing.assert_allclose(run(plan, a, b), a @ b, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-5)


@needs_blas
def test_a_plan_names_its_routines_and_loads_them_when_loaded():
    a, b = np.ones((8, 4), np.float32), np.ones((4, 8), np.float32)
    plan = lower(lambda a, b: a @ b, a, b)
    (launch,) = plan.launches
    assert launch.calls == (blas.library().routine("sgemm"),) and launch.parallel_extent == ()
    assert f'declare void @"{launch.calls[0]}"' in plan.llvm_ir
    assert np.array_equal(run(pickle.loads(pickle.dumps(plan)), a, b), a @ b)


@needs_blas
def test_a_plan_that_calls_a_missing_routine_is_refused_at_load(monkeypatch):
    a, b = np.ones((8, 4), np.float64), np.ones((4, 8), np.float64)
    plan = lower(lambda a, b: a @ b, a, b)
    plan.symbol = plan.symbol + "_elsewhere"  # not loaded yet in this process
    monkeypatch.setattr(blas, "library", lambda: None)
    with pytest.raises(JitcoreError, match="calls the BLAS routine .*dgemm"):
        backend_for("cpu").load(plan)


@needs_blas
@pytest.mark.parametrize("view", ["every other column", "reversed rows", "unaligned", "nested dims"])
def test_operands_blas_cannot_take_are_packed_like_numpy(view):
    """No unit stride, a negative stride, a misaligned start, or two contracted dims whose
    strides do not nest: the kernel copies that operand into a row-major buffer first, as
    NumPy does, and gets NumPy's result bit for bit."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((9, 14)), rng.standard_normal((7, 5))
    if view == "every other column":
        a = a[:, ::2]
    elif view == "reversed rows":
        a = a[::-1, :7]
    elif view == "unaligned":
        raw = np.zeros(9 * 7 * 8 + 1, np.uint8)[1:].view(np.float64).reshape(9, 7)
        raw[...] = a[:, :7]
        a = raw
    if view == "nested dims":
        x, y = rng.standard_normal((4, 6, 10))[:, :, ::3], rng.standard_normal((6, 4, 5))
        fn = jitcore.jit(lambda x, y: np.tensordot(x, y, ([0, 1], [1, 0])))
        np.testing.assert_allclose(fn(x, y), np.tensordot(x, y, ([0, 1], [1, 0])), rtol=1e-12)
        return
    fn = jitcore.jit(lambda a, b: a @ b)
    assert "cblas_dgemm" in fn.lower(a, b).as_text("llvm")
    assert np.array_equal(fn(a, b), a @ b)


def test_jitcore_blas_none_in_a_fresh_process():
    """The environment variable alone turns the library off, and the answer is the same."""
    script = """
import numpy as np, jitcore
a = np.arange(12.0).reshape(3, 4); b = np.arange(20.0).reshape(4, 5)
fn = jitcore.jit(lambda a, b: a @ b)
assert "cblas" not in fn.lower(a, b).as_text("llvm")
assert np.array_equal(fn(a, b), a @ b)
print("ok")
"""
    env = {"JITCORE_BLAS": "none", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
           "JITCORE_CACHE_DIR": os.environ["JITCORE_CACHE_DIR"]}  # the run's (tests/conftest.py)
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.stdout.strip() == "ok", out.stderr


@needs_blas
def test_a_pickled_blas_plan_resolves_its_routine_in_a_fresh_process(tmp_path):
    """The plan carries the routine's name, not an address: a new process finds it again."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((6, 5)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)
    (tmp_path / "plan.pkl").write_bytes(pickle.dumps(lower(lambda a, b: a @ b, a, b)))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    script = f"""
import pickle, sys
import numpy as np
from jitcore import pytree
from jitcore.dispatch import Executable
plan = pickle.loads(open({str(tmp_path / 'plan.pkl')!r}, 'rb').read())
a, b = np.load({str(tmp_path / 'a.npy')!r}), np.load({str(tmp_path / 'b.npy')!r})
(out,) = Executable(plan, pytree.flatten((0,))[1])([a, b])
np.save({str(tmp_path / 'out.npy')!r}, out)
assert "jitcore.passes" not in sys.modules  # nothing was compiled here: the plan was loaded
"""
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=120)
    assert np.array_equal(np.load(tmp_path / "out.npy"), a @ b)
