"""The CUDA backend's code without a GPU: PTX for every op family, assembled by ``ptxas``.

Each family is one jitted function returning several results (one LLVM compile, one PTX
module); its PTX is made for ``sm_80`` and for ``sm_90`` and each is assembled by ``ptxas
-arch=<that arch>`` where ``ptxas`` is on PATH, which catches PTX that the driver would refuse.
The tests also check which schedule each kernel got (``codegen/nvptx/kernels.py``) and that the
PTX calls nothing outside itself (no libm: the math library is inline code). Running the code
is ``tests/jitcore/test_cuda_runtime.py``'s, where a GPU is present.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from llvmlite import ir as ll

import jitcore as jc
from jitcore.codegen import mathlib
from jitcore.codegen.backend import backend_for
from jitcore.codegen.nvptx import kernels, ptxas, target

ARCHS = ("sm_80", "sm_90")
PTXAS = shutil.which("ptxas")
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) is not on PATH: "
                                 "PTX is generated but not assembled")


@contextlib.contextmanager
def arch(name: str):
    backend = backend_for("cuda")
    saved = backend.arch
    backend.use_arch(name)
    try:
        yield
    finally:
        backend.arch = saved


def gpu_plan(f, *args, arch_name: str = "sm_80", **jit_kwargs):
    with arch(arch_name):
        return jc.jit(f, backend="cuda", **jit_kwargs).lower(*args).plan()


def assemble(ptx: str, arch_name: str, tmp_path=None, label: str = "") -> list[ptxas.KernelStats]:
    """``ptx`` assembled by ``ptxas -v``: a report for each of its entry functions. With
    ``JITCORE_PTXAS_REPORT`` set (``tools/ptxas_report.py``), the reports are added to that file
    as a JSON line, under the test's name and ``label``."""
    try:
        stats = ptxas.assemble(ptx, arch_name, PTXAS)
    except ptxas.PtxasError as e:
        pytest.fail(str(e))
    assert sorted(s.name for s in stats) == sorted(re.findall(r"\.entry (\w+)\(", ptx))
    assert all(s.arch == arch_name and s.registers > 0 for s in stats), stats
    report = os.environ.get("JITCORE_PTXAS_REPORT")
    if report:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[-1].split(" ")[0]
        family = f"{test} {label}".strip()
        with open(report, "a") as out:
            out.write(json.dumps({"family": family, "arch": arch_name,
                                  "kernels": [dataclasses.asdict(k) for k in stats]}) + "\n")
    return stats


def check_family(f, args, tmp_path, kinds: set[str], label: str = "", **jit_kwargs) -> None:
    """``f``'s PTX for each arch: its kernels' schedules include ``kinds``, it is self-contained,
    and ptxas assembles it (where it is installed)."""
    for arch_name in ARCHS:
        plan = gpu_plan(f, *args, arch_name=arch_name, **jit_kwargs)
        assert plan.target == "cuda" and plan.arch == arch_name
        assert f".target {arch_name}" in plan.ptx
        assert kinds <= {shape.kind for shape in plan.shapes}, [s.kind for s in plan.shapes]
        assert len(plan.shapes) == len(plan.launches)
        assert ".extern" not in plan.ptx, "the PTX calls a function it does not define (libm?)"
        for launch, shape in zip(plan.launches, plan.shapes):
            assert (f".entry {launch.kernel}(" in plan.ptx) == (shape.grid > 0)  # 0: in a row group
        if PTXAS is not None:
            assemble(plan.ptx, arch_name, tmp_path, label)


RNG = np.random.default_rng(0)
X32 = RNG.standard_normal((40, 30)).astype(np.float32)
X64 = RNG.standard_normal((6, 5, 70)).astype(np.float64)
I64 = RNG.integers(-50, 50, (40, 30))


@needs_ptxas
def test_elementwise_family(tmp_path):
    def f(x, y, i):
        j = i // 7 + i % 5 - (i << 2) + (i >> 1)
        b = (x > 0) & ~(y < 0.5) | (x == y)
        return (x * y - x / (y + 3), np.where(b, x, -y), np.abs(x), np.floor(x) + np.ceil(y),
                np.sqrt(np.abs(x)), x.astype(np.int32), j.astype(np.float64), np.maximum(x, y),
                np.remainder(x, 1.5), x.T + y.T, (x + 1j * y).conj(), np.float16(1) + x.astype(np.float16))

    check_family(f, (X32, X32 + 1, I64), tmp_path, {"elementwise"})


def _math_module(kind: str) -> str:
    """One kernel calling every function of the math library on ``kind`` (f32 or f64)."""
    t = ll.FloatType() if kind == "f32" else ll.DoubleType()
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ll.PointerType()] * 2), f"math_{kind}")
    fn.calling_convention = "ptx_kernel"
    b = ll.IRBuilder(fn.append_basic_block())
    x = b.load(fn.args[0], typ=t)
    y = b.load(b.gep(fn.args[0], [ll.Constant(ll.IntType(64), 1)], source_etype=t), typ=t)
    names = sorted(mathlib.SUPPORTED_UNARY) + sorted(mathlib.SUPPORTED_BINARY)
    for k, name in enumerate(names):
        value = (mathlib.emit_unary(b, name, x) if name in mathlib.SUPPORTED_UNARY
                 else mathlib.emit_binary(b, name, x, y))
        b.store(value, b.gep(fn.args[1], [ll.Constant(ll.IntType(64), k)], source_etype=t))
    for name in sorted(mathlib.FAST_UNARY):
        b.store(mathlib.emit_unary(b, name, x, fast=True), fn.args[1])
    b.ret_void()
    return str(module)


@needs_ptxas
@pytest.mark.parametrize("kind", ["f32", "f64"])
def test_every_math_function(kind, tmp_path):
    """Every function of ``codegen/mathlib.py`` (accurate and fast variants): PTX with no
    calls (NVPTX has no libm), assembled for each arch."""
    text = _math_module(kind)
    for arch_name in ARCHS:
        _, ptx = target.compile_ptx(text, arch_name)
        assert ".extern" not in ptx and "call" not in ptx.split(".entry")[1]
        assemble(ptx, arch_name, tmp_path, "(every function, accurate and fast)")


@needs_ptxas
def test_math_through_jit(tmp_path):
    """The math functions as NumPy calls them, f32 and f64, through the whole pipeline."""
    def f(x, y):
        return np.exp(x), np.log(np.abs(x) + 1), np.sin(x), np.arctan2(x, y), np.power(np.abs(x), y)

    check_family(f, (X32, X32 * 0.5), tmp_path, {"elementwise"}, "f32")
    check_family(f, (X64, X64 * 0.5), tmp_path, {"elementwise"}, "f64")


@needs_ptxas
def test_reductions_along_each_axis(tmp_path):
    def f(x, i):
        return (x.sum(axis=0), x.sum(axis=1), x.sum(axis=2), x.sum(), x.max(axis=1), x.min(),
                x.prod(axis=(0, 2)), x.argmax(), x.argmin(axis=2), i.sum(), (i > 3).any(axis=0),
                (x + 1j).sum(), i.max())

    check_family(f, (X64, I64), tmp_path, {"block-reduce", "thread-reduce"}, "(each axis)")
    big = np.ones(1 << 16, np.float32)
    check_family(lambda x: (x.sum(), x.argmax(), (x + 1j).sum(), (x > 0).all()), (big,), tmp_path,
                 {"grid-reduce"}, "(to one value)")


def test_reduction_schedules():
    """A long reduction is a block's (one combine order for all devices); a short one, or one
    whose combine cannot be reordered, one thread's per result."""
    big = np.ones((4, 5000), np.float32)
    shapes = lambda f, *a: [s.kind for s in gpu_plan(f, *a).shapes]  # noqa: E731
    assert shapes(lambda x: x.sum(axis=1), big) == ["block-reduce"]
    assert shapes(lambda x: x.sum(), np.ones(kernels.GRID_REDUCE_MIN)) == ["grid-reduce"]
    assert shapes(lambda x: x.sum(), big) == ["block-reduce"]
    assert shapes(lambda x: x.argmax(axis=1), big) == ["block-reduce"]
    assert shapes(lambda x: x.sum(axis=0), big) == ["thread-reduce"]
    assert shapes(lambda x: np.cumsum(x, axis=1), big) == ["serial"]
    assert kernels.merging_of is not None and kernels.BLOCK % kernels.WARP == 0


@needs_ptxas
def test_rowwise_softmax(tmp_path):
    def softmax(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def layernorm(x):
        m = x.mean(axis=1, keepdims=True)
        return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + 1e-5)

    for f in (softmax, layernorm):
        check_family(f, (np.ones((8, 3000), np.float32),), tmp_path, {"row-group", "in-row-group"},
                     f.__name__)
    plan = gpu_plan(softmax, np.ones((8, 3000)))  # one launch: max, sum, quotient by row
    assert [s.kind for s in plan.shapes] == ["row-group", "in-row-group", "in-row-group"]
    assert len(plan.program) == 1 and plan.ptx.count(".entry") == 1
    check_family(softmax, (np.ones((300, 100), np.float32),), tmp_path, {"warp-row-group"}, "short rows")
    plan = gpu_plan(layernorm, np.ones((300, 100)))  # a warp a row: shuffles, warp barriers
    assert (plan.shapes[0].kind, plan.shapes[0].grid) == ("warp-row-group", -(-300 // kernels.WARPS))
    assert "bar.warp.sync" in plan.ptx and "bar.sync" not in plan.ptx


@needs_ptxas
def test_gather_and_scatter(tmp_path):
    def f(x, idx, v, i):
        y = x.copy()
        y[idx] = v
        z = x.copy()
        z[1:7:2, ::-3] = v
        return (x[idx], x[:, idx], y, x[x > 0].sum(), np.take(x, idx, axis=1), z, x.at[0, idx].add(v),
                i.at[idx].add(3), i.astype(np.int32).at[idx, 2].max(7))

    check_family(f, (X32, np.array([3, 1, 4, 1, 5]), np.float32(2.5), I64), tmp_path,
                 {"serial", "elementwise", "scatter", "scatter-write"})
    plan = gpu_plan(lambda x, idx, v, i: (x.at[idx].set(v), i.at[idx].add(3), x.at[idx].add(v)),
                    X32, np.array([3, 1, 3]), np.float32(2.5), I64)  # claims; atomics; in order
    assert [s.kind for s in plan.shapes] == ["scatter", "scatter", "serial", "scatter-write", "scatter-write"]
    assert "atom.global.max.u32" in plan.ptx and "atom.global.add.u64" in plan.ptx
    plan = gpu_plan(lambda x, idx: x[:, idx], X32, np.array([3, 1, 4]))  # a gather checks in parallel
    assert [s.kind for s in plan.shapes] == ["elementwise"] and "atom" in plan.ptx
    assert len(plan.check_places) == 1 and "test_nvptx.py" in next(iter(plan.check_places.values()))


@needs_ptxas
def test_matmul(tmp_path):
    """Float products are the tiled kernel (shared-memory slabs, barriers, fma), f32 and f64,
    batched and transposed too; an integer product and a matrix-vector product are reductions
    (one thread per result, or a block per result for a long k)."""
    a64 = X32.astype(np.float64)
    check_family(lambda a, b, i, c: (a @ b, i @ i.T, np.einsum("ij,kj->ik", a, a), c @ c.T,
                                     np.stack([c, c]) @ np.stack([c.T, c.T]), a @ a[0], c.T @ c[:, 0]),
                 (X32, X32.T.copy(), I64, a64), tmp_path, {"thread-reduce", "tiled-matmul"})
    long_k = np.ones((4, 3000), np.float32)
    check_family(lambda a, i: (a @ a[0], i @ i.T), (long_k, long_k.astype(np.int64)), tmp_path,
                 {"block-reduce"}, "(long k)")
    plan = gpu_plan(lambda a, b: a @ b, X32, X32.T.copy())
    assert [s.kind for s in plan.shapes] == ["tiled-matmul"]
    assert "fma.rn.f32" in plan.ptx and "bar.sync" in plan.ptx and ".shared" in plan.ptx


@needs_ptxas
def test_control_flow_and_scans(tmp_path):
    def f(x, n):
        def step(k, carry):
            return carry * 0.5 + x[k % 3]

        total = jc.fori_loop(0, n, step, np.zeros(x.shape[1], x.dtype))
        count = 0
        m = x[0, 0]
        while m < 100.0:  # a scalar loop in a kernel body
            m = m * 2.0 + 1.0
            count += 1
        return total, np.cumsum(x, axis=0), count, m

    check_family(f, (np.abs(X32) + 1, 5), tmp_path, {"serial"})


@needs_ptxas
def test_sorting_and_linalg(tmp_path):
    """The other op families, whose kernels run in order on one thread (sort, argsort,
    searchsorted, median, nanmedian at ranks found when it runs; det and solve by LU): PTX that
    assembles, so the backend takes every function the CPU does (no GPU schedules of their own
    yet)."""
    a = X32[:5, :5].astype(np.float64) + 5 * np.eye(5)

    def f(x, m, v):
        s = np.sort(x, axis=1)
        return (s, np.argsort(x[0]), np.searchsorted(s[0], x[1]), np.median(x, axis=0),
                np.nanmedian(x, axis=1), np.linalg.det(m), np.linalg.solve(m, v))

    check_family(f, (X32, a, a[0]), tmp_path, {"serial"})


def test_dump_ir_ptx_stage():
    """``dump-ir --stage ptx`` reaches the backend: PTX for the arch asked for, on any machine."""
    from jitcore.codegen.nvptx.dump import ptx_text

    x = np.ones(8, np.float32)
    lowered = jc.jit(lambda a: a * 2, backend="cuda").lower(x)
    text = ptx_text(lowered.optimized(), "sm_90")
    assert ".target sm_90" in text and ".entry" in text
    with pytest.raises(jc.JitcoreError, match="unknown GPU architecture"):
        ptx_text(lowered.optimized(), "gfx90a")


def test_callbacks_are_steps_of_the_gpu_plan():
    """A callback runs on the host between the GPU's launches (``jitcore.cuda.executable``):
    the plan keeps it as a step, with its operands' shapes and dtypes."""
    from jitcore.codegen.plan import Callback

    def f(x):
        jc.debug_print("x={}", x)
        return x + 1

    plan = gpu_plan(f, np.ones(3))
    steps = [s for s in plan.program if isinstance(s, Callback)]
    assert len(steps) == 1 and plan.callbacks[steps[0].number] == (((3,), np.dtype(np.float64)),)


def test_dump_ir_tool_prints_ptx(tmp_path):
    """``dump-ir file.py:f --stage ptx --gpu-arch sm_90``, run as a user would."""
    import os
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    source = tmp_path / "prog.py"
    source.write_text("import numpy as np\n\ndef g(x):\n    return np.tanh(x).sum(axis=1)\n")
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run([sys.executable, str(repo / "tools" / "dump-ir"), f"{source}:g", "--args",
                           "f32[4x2000]", "--stage", "ptx", "--gpu-arch", "sm_90"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "// ===== stage: ptx (sm_90) =====" in done.stdout and ".target sm_90" in done.stdout
    assert "shfl.sync.down" in done.stdout  # the row sums are block reductions


def test_ptxas_report_is_read_per_kernel():
    """``ptxas -v``'s report (as ptxas 13 writes it) read into one record per entry function."""
    report = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 31 registers, used 1 barriers, 8192 bytes smem
ptxas info    : Compile time = 70.343 ms
ptxas info    : Compiling entry function 'k0' for 'sm_90'
ptxas info    : Function properties for k0
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
"""
    assert ptxas.parse(report) == [ptxas.KernelStats("k1", "sm_90", 31, 4, 12, 8, 8192),
                                   ptxas.KernelStats("k0", "sm_90", 12, 0, 0, 0, 0)]


def test_ptxas_report_table(monkeypatch):
    """``tools/ptxas_report.py``'s table from the tests' JSON lines: a family's modules add up,
    per arch; the totals row counts kernels and spills."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import ptxas_report

    kernel = {"name": "k", "registers": 40, "spill_stores": 8, "spill_loads": 4, "stack": 16, "shared": 0}
    lines = [{"family": "test_matmul", "arch": arch, "kernels": [kernel, {**kernel, "registers": 90}]}
             for arch in ("sm_80", "sm_90")]
    lines.append({"family": "test_matmul", "arch": "sm_80", "kernels": [kernel]})
    lines.append({"family": "test_newer", "arch": "sm_120", "kernels": [kernel]})
    text = ptxas_report.markdown(ptxas_report.families(lines), "3 passed", "ptxas 13", per_kernel=True)
    assert "| matmul | 3 | 90 | 36 | 2 | 90 | 24 |" in text
    assert "| **all** | **3** | | **36** | **2** | | **24** |" in text
    assert "| test_matmul | sm_90 | k | 90 | 8/4 | 16 | 0 |" in text
    assert "| newer |" not in text and "Also assembled: 1 kernel(s) for sm_120." in text


def test_newer_devices_get_the_newest_listed_architecture(tmp_path):
    """A device whose architecture needs a PTX ISA this LLVM does not list (sm_103, sm_110,
    sm_121: an LLVM error would end the process) gets PTX for the newest listed one below it,
    which its driver JIT-compiles; listed ones and arch-specific ones (sm_90a) are kept."""
    text = 'define ptx_kernel void @k(ptr %p) {\n  store float 1.0, ptr %p\n  ret void\n}\n'
    expected = {"sm_86": "sm_86", "sm_90a": "sm_90a", "sm_100": "sm_100", "sm_103": "sm_100",
                "sm_110": "sm_100", "sm_120": "sm_120", "sm_121": "sm_120", "sm_130": "sm_120"}
    for device, made in expected.items():
        assert target.check_arch(device) == made
        ptx = target.compile_ptx(text, device)[1]
        assert f".target {made}\n" in ptx, (device, ptx[:300])
        if PTXAS is not None and made in ("sm_100", "sm_120"):
            assemble(ptx, made)
    for bad in ("sm_61", "sm_80a", "sm_100f", "gfx90a"):
        with pytest.raises(jc.JitcoreError, match="unknown GPU architecture"):
            target.check_arch(bad)


def test_kernels_with_many_operands(tmp_path, monkeypatch):
    """A kernel's parameters (a pointer per operand) past 4352 bytes need PTX ISA 8.1 (the
    first real GPU run refused such PTX: ``np.resize`` was a concatenation of one piece per
    copy); past 32764 bytes no PTX can take them: a clear ``UnsupportedOnGpuError``. The limits
    are lowered here so that a few operands cross them (a kernel of 4000 operands takes
    seconds to build)."""
    from jitcore.codegen.nvptx import UnsupportedOnGpuError

    monkeypatch.setattr(target, "PARAMETER_BYTES", 40)
    monkeypatch.setattr(target, "LARGE_PARAMETER_BYTES", 80)
    x = np.arange(3, dtype=np.float32)
    few = gpu_plan(lambda x: np.concatenate([x] * 6), x, arch_name="sm_80")  # 7 pointers: 56 bytes
    assert re.search(r"^\.version 8\.1$", few.object_code.decode(), re.M)
    if PTXAS is not None:
        assemble(few.object_code.decode(), "sm_80", tmp_path, "many-operands")
    with pytest.raises(UnsupportedOnGpuError, match="88 bytes of parameters"):
        gpu_plan(lambda x: np.concatenate([x] * 10), x)
    resized = gpu_plan(lambda x: np.resize(x, (515, 2)), x)  # a broadcast: two operands
    assert re.search(r"^\.version 8\.0$", resized.object_code.decode(), re.M)
