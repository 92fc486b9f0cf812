"""The vector width of CPU kernels: chosen per target (codegen/cpu/target.py), applied to the
machine code, and part of magic(). Machine code is checked on fixed x86 CPUs only, never the
host's, so these tests pass alike on AVX2, AVX-512 and non-x86 hosts."""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen.cpu import target
from jitcore.ir.errors import JitcoreError
from tests.codegen.x86_target import requires_x86_target

ROOT = Path(__file__).resolve().parents[2]
TRIPLE = "x86_64-unknown-linux-gnu"
AVX512 = "+avx,+avx2,+fma,+avx512f,+avx512vl,+avx512dq,+avx512bw"


@pytest.mark.parametrize(("cpu", "bits"), [
    ("znver5", 512), ("znver4", 512),  # measured
    ("icelake-server", 512), ("sapphirerapids", 512), ("x86-64-v4", 512),
    ("skylake-avx512", 256), ("cascadelake", 256), ("cooperlake", 256),  # the clock drops at 512
])
def test_the_choice_on_avx512_cpus(cpu, bits):
    assert target.vector_bits(cpu, AVX512) == bits
    assert target.MEASURED_VECTOR_BITS.get(cpu, bits) == bits


def test_no_choice_without_avx512():
    # LLVM's widest registers there: nothing to prefer, the features stay the host's.
    assert target.vector_bits("haswell", "+avx,+avx2,+fma,-avx512f") is None
    assert target.vector_bits("neoverse-v2", "+neon,+sve") is None
    assert target.with_vector_bits("+avx,+avx2", None) == "+avx,+avx2"


def test_the_override_replaces_the_choice_on_avx512_only():
    assert target.vector_bits("znver5", AVX512, override="256") == 256
    assert target.vector_bits("skylake-avx512", AVX512, override="512") == 512
    assert target.vector_bits("haswell", "+avx2", override="512") is None
    with pytest.raises(JitcoreError, match="JITCORE_VECTOR_BITS must be 256 or 512"):
        target.vector_bits("znver5", AVX512, override="1024")


def test_the_width_is_one_tuning_flag_in_the_features():
    assert target.with_vector_bits("+avx512f", 512) == "+avx512f,-prefer-256-bit"
    assert target.with_vector_bits("+avx512f", 256) == "+avx512f,+prefer-256-bit"
    # A flag already there is replaced, not contradicted.
    assert target.with_vector_bits("+avx512f,+prefer-256-bit", 512) == "+avx512f,-prefer-256-bit"


@functools.cache
def _tanh_kernel_ir(dtype) -> str:
    """jitcore's unoptimised LLVM IR for tanh(2x+1): free of any target."""
    return jc.jit(lambda x: jnp.tanh(x * 2 + 1)).lower(np.ones(1000, dtype)).as_text("llvm")


@requires_x86_target
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cpu", ["skylake-avx512", "x86-64-v4", "icelake-server", "znver4"])
@pytest.mark.parametrize("bits", [256, 512])
def test_the_width_is_applied_on_a_fixed_cpu(cpu, bits, dtype):
    machine = (TRIPLE, cpu, target.with_vector_bits("", bits))
    module, _ = target.compile_ir(_tanh_kernel_ir(dtype), machine)
    asm = target.target_machine(*machine).emit_assembly(module)
    lanes = (16 if dtype == np.float32 else 8) * bits // 512
    kind = "float" if dtype == np.float32 else "double"
    assert f"<{lanes} x {kind}>" in str(module)
    assert re.search(r"vfn?m(add|sub)\w*p[sd]\s.*%zmm", asm) if bits == 512 else "%zmm" not in asm


@requires_x86_target
def test_at_256_bits_no_function_uses_512_bit_registers():
    # Not even for explicit 512-bit types (a reduction's wide accumulators, f32 math in f64
    # lanes): a zmm register lowers the clock on the CPUs that get 256 bits.
    text = jc.jit(lambda x: jnp.sum(jnp.exp(x))).lower(np.ones((64, 1000), np.float32)).as_text("llvm")
    machine = (TRIPLE, "skylake-avx512", target.with_vector_bits("", 256))
    module, _ = target.compile_ir(text, machine)
    assert "%zmm" not in target.target_machine(*machine).emit_assembly(module)
    limited = target.with_legal_width(text, machine[2])
    defines = [line for line in limited.splitlines() if line.startswith("define")]
    assert defines and all('"min-legal-vector-width"="256"' in line for line in defines)
    assert target.with_legal_width(text, target.with_vector_bits("", 512)) == text


def test_magic_holds_the_features_the_code_is_compiled_with():
    triple, cpu, features = target.magic()
    assert features == target.host_features()
    host = llvm.get_host_cpu_features().flatten()
    bits = target.vector_bits(cpu, host, target.VECTOR_BITS_OVERRIDE)
    assert features == target.with_vector_bits(host, bits)


def _magic_with(bits: str) -> str:
    script = "import jitcore.config; from jitcore.codegen.cpu import target; print(repr(target.magic()))"
    env = {**os.environ, target.VECTOR_BITS_VARIABLE: bits}
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_code_for_one_width_is_never_keyed_as_the_other():
    # On an AVX-512 host the two widths give two magics; elsewhere the variable is ignored.
    host_has_avx512 = "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")
    assert (_magic_with("256") != _magic_with("512")) == host_has_avx512
