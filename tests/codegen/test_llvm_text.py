"""codegen/llvm_text.py writes llvmlite's text byte for byte: every instruction form it writes
itself, the forms it hands back to llvmlite, and the modules the CPU backend emits."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as ll

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen import llvm_text
from jitcore.codegen.cpu import backend
from jitcore.codegen.name_scope import EmissionModule

F64, I64, I32, I1 = ll.DoubleType(), ll.IntType(64), ll.IntType(32), ll.IntType(1)
V4 = ll.VectorType(F64, 4)


def _every_form(module_type=ll.Module) -> ll.Module:
    module = module_type(name="forms")
    module.triple = "x86_64-unknown-linux-gnu"
    table = ll.GlobalVariable(module, ll.ArrayType(I64, 2), "table")
    table.initializer = ll.Constant(ll.ArrayType(I64, 2), [1, 2])
    callee = ll.Function(module, ll.FunctionType(F64, [F64, I64]), "callee")
    callee.calling_convention = "fastcc"
    printf = ll.Function(module, ll.FunctionType(I32, [ll.PointerType()], var_arg=True), "printf")
    fn = ll.Function(module, ll.FunctionType(F64, [F64, F64, I64, ll.PointerType(), V4]), 'f"quoted\\')
    x, y, n, p, v = fn.args
    p.name = 'name "with" quotes'
    entry, loop, done = (fn.append_basic_block(name) for name in ("entry", "loop", 'done"x'))
    b = ll.IRBuilder(entry)
    s = b.fadd(x, y, flags=("fast",))
    s = b.fmul(s, ll.Constant(F64, -0.0))
    s = b.fneg(s)
    m = b.add(n, ll.Constant(I64, 3), name="same")
    m = b.add(m, m, name="same")
    m = b.sub(m, n, name='back\\slash "quoted"')
    c = b.icmp_signed("<", m, n)
    f = b.fcmp_unordered("!=", x, y, flags=("nnan",))
    o = b.fcmp_ordered("==", x, y)
    sel = b.select(b.and_(c, b.or_(f, o)), x, y)
    # number constants of one value and different texts (kept by type and value, llvm_text)
    b.or_(b.and_(c, ll.Constant(I1, True)), ll.Constant(I1, 1))
    b.fadd(b.fadd(x, ll.Constant(F64, 0.0)), ll.Constant(F64, -0.0))
    b.fadd(b.fadd(x, ll.Constant(F64, float("nan"))), ll.Constant(F64, 0))
    b.fadd(ll.Constant(ll.FloatType(), 0.1), ll.Constant(ll.FloatType(), -0.0))
    q = b.gep(p, [n], inbounds=True, source_etype=F64)
    q2 = b.gep(table, [ll.Constant(I64, 0), ll.Constant(I32, 1)], source_etype=ll.ArrayType(I64, 2))
    w = b.load(q, typ=F64, align=8)
    b.load(q2, typ=I64)
    b.store(sel, q, align=8)
    b.store(w, q)
    b.sitofp(n, F64)
    b.bitcast(w, I64)
    slot = b.alloca(F64, size=ll.Constant(I32, 4), name="slot")
    slot.align = 32
    b.store(w, slot)
    b.alloca(I64)
    pair = ll.LiteralStructType([F64, ll.LiteralStructType([I64, F64])])
    whole = b.insert_value(ll.Constant(pair, None), w, 0)
    whole = b.insert_value(whole, n, [1, 0])
    b.extract_value(whole, [1, 1])
    b.extract_value(whole, 0)
    e = b.extract_element(v, ll.Constant(I32, 1))
    v2 = b.insert_element(v, e, ll.Constant(I32, 0))
    b.shuffle_vector(v2, v2, ll.Constant(ll.VectorType(I32, 2), [0, 5]))
    r = b.call(callee, [w, n], tail=True)
    b.call(callee, [r, n], fastmath=("fast",))
    b.call(printf, [p, r])
    b.call(module.declare_intrinsic("llvm.fabs", [F64]), [r], attrs=("nounwind",))
    b.fadd(r, r).set_metadata("note", module.add_metadata([ll.Constant(I64, 7)]))
    b.comment("a comment")
    b.branch(loop)
    b.position_at_end(loop)
    phi = b.phi(F64, name="acc")
    phi.add_incoming(r, entry)
    more = b.fadd(phi, x)
    phi.add_incoming(more, loop)
    back = b.cbranch(b.fcmp_ordered("<", more, y), loop, done)
    back.set_metadata("llvm.loop", module.add_metadata([]))
    b.position_at_end(done)
    b.switch(n, done)
    b2 = ll.IRBuilder(fn.insert_basic_block(1, "spare"))
    b2.unreachable()
    g = ll.Function(module, ll.FunctionType(ll.VoidType(), []), "g")
    ll.IRBuilder(g.append_basic_block()).ret_void()
    module.add_named_metadata("jitcore.light", [])
    return module


def test_every_instruction_form_as_llvmlite_writes_it():
    module = _every_form()
    assert llvm_text.module_text(module) == str(module)
    for value in module.globals.values():
        assert llvm_text.function_text(value) == str(value)


def test_the_emission_module_names_values_as_llvmlite_does():
    # name_scope.EmissionModule: the same names (repeated, quoted, unnamed) in the same order
    assert str(_every_form(EmissionModule)) == str(_every_form())


def test_the_backends_modules_as_llvmlite_writes_them(monkeypatch):
    # every module the CPU backend prints while these compile: elementwise with the math
    # library, a reduction along rows, an argmax (selects, compares), a sort (calls, loops)
    printed = []

    def both(module):
        ours = llvm_text.module_text(module)
        printed.append((ours, str(module)))
        return ours

    monkeypatch.setattr(backend, "module_text", both)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 67))
    for fn in (lambda a: jnp.exp(a) * 2 - a, lambda a: a.sum(axis=1), lambda a: jnp.argmax(a, axis=0),
               lambda a: jnp.sort(a[0].astype(np.float32))):
        jc.jit(fn, cache=False)(x)
    assert len(printed) >= 4
    for ours, theirs in printed:
        assert ours == theirs
