"""A module written in vectors already is optimised without the SLP vectorizer (session 54).

The float32 quicksort's modules (``sort_quick.py``) carry ``target.NO_SLP_METADATA``; O3 then
leaves the SLP vectorizer out, which found nothing to vectorize there (the same object code)
and took 60% of their passes' time (docs/performance.md, "Session 54: compile time"). The
marker is in the text, so every compile of the text makes the same code. Not float64's: there
SLP reorders scalar compares, and the sort measured slower without it.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import sort_quick, target
from jitcore.codegen.llvm_text import module_text


def _four_adds(marked: bool) -> str:
    """``c[i] = a[i] + b[i]`` for i < 4, written as four scalar adds: what SLP vectorizes."""
    module = ll.Module()
    f64, ptr = ll.DoubleType(), ll.PointerType()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ptr, ptr, ptr]), "four_adds")
    for arg in fn.args:
        arg.add_attribute("noalias")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    a, x, c = fn.args
    for i in range(4):
        at = [ll.Constant(ll.IntType(64), i)]
        total = b.fadd(
            b.load(b.gep(a, at, source_etype=f64), typ=f64), b.load(b.gep(x, at, source_etype=f64), typ=f64)
        )
        b.store(total, b.gep(c, at, source_etype=f64))
    b.ret_void()
    if marked:
        module.add_named_metadata(target.NO_SLP_METADATA, [])
    return module_text(module)


def test_the_marker_leaves_slp_out():
    vectorized = str(target.compile_ir(_four_adds(marked=False))[0].get_function("four_adds"))
    scalar = str(target.compile_ir(_four_adds(marked=True))[0].get_function("four_adds"))
    assert "x double>" in vectorized
    assert "x double>" not in scalar and scalar.count("fadd double") == 4


def test_float32_quicksort_modules_carry_the_marker():
    marker = f"!{target.NO_SLP_METADATA} ="
    assert marker in module_text(sort_quick._QuickKernel(32, 16).module)
    assert marker not in module_text(sort_quick._QuickKernel(64, 8).module)
