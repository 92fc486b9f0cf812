"""``array.compact``'s loop a vector group at a time: each group's kept elements stored
packed at the running count (``llvm.masked.compressstore``, one ``vcompressps``/``pd`` on
AVX-512), which then advances by the group's popcount.

The scalar loop (``passes/kernelize/compact.py``) writes every element at the count and adds
its mask bit, a dependent add per element that LLVM does not vectorize: at 10^5 float32 it
took 3-5x the time of the sum it fed (docs/performance.md, "Exact masked sums at speed").
A group writes only its kept elements, so it writes nothing past the final count; it leaves
out the scalar loop's write of a dropped row at the count, which the loop's ``compaction``
mark says no one reads (``array.compact`` leaves the slots after the count unspecified).
What the groups leave (fewer than ``lanes`` rows, or all of them where an operand is not
contiguous) runs the scalar loop on from where they stopped. A group is the target's vector
width (``_vector_bytes``); the register form of the compress plus a whole-vector store measured
1.2-1.5x slower at 10^5 than the store form here.

Only where the target has AVX-512 (elsewhere LLVM expands the compress lane by lane, a branch
per lane, no faster than the scalar loop), for 4- and 8-byte elements (``vcompress``'s sizes),
read in place or as the positions themselves (``np.flatnonzero``), one element a row.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I1, I8, I64, PTR, memory_type
from jitcore.codegen.loops import loop_id, static_value
from jitcore.ir.dialects import kernel, scf

I32 = ll.IntType(32)


def _constant(v) -> int | None:
    owner = getattr(v, "op", None)
    if owner is None or owner.op_name != "arith.constant":
        return None
    return owner.attributes["value"].value


def _pattern(generic: kernel.GenericOp, loop: scf.ForOp) -> tuple[int, int | None, int] | None:
    """(mask operand, source operand or None for the positions, result) of a loop of the form
    ``out[k] = src[i] (or i); k += mask[i]``, each a 1-d tensor of the kernel; else None."""
    if not loop.attributes.get("compaction") or len(loop.body.args) != 2 or _constant(loop.step) != 1:
        return None
    i, k = loop.body.args
    args = list(generic.body.args)
    ops = loop.body.ops
    step = getattr(loop.body.terminator.operands[0], "op", None)
    if step is None or step.op_name != "arith.addi" or step.operands[0] is not k:
        return None
    select = getattr(step.operands[1], "op", None)
    if select is None or select.op_name != "arith.select" or \
            [_constant(v) for v in select.operands[1:]] != [1, 0]:
        return None
    kept = getattr(select.operands[0], "op", None)
    inserts = [o for o in ops if isinstance(o, kernel.InsertOp)]
    if not isinstance(kept, kernel.ExtractOp) or list(kept.operands[1:]) != [i] or len(inserts) != 1:
        return None
    write = inserts[0]
    if write.attributes["mode"] != "set" or list(write.operands[1:]) != [k]:
        return None
    value = getattr(write.operands[0], "op", None)
    if isinstance(value, kernel.ExtractOp) and list(value.operands[1:]) == [i]:
        source = args.index(value.operands[0])
    elif value is not None and value.op_name == "arith.bitcast" and value.operands[0] is i:
        source = None
    else:
        return None
    if len(ops) != 6:  # those five and the yield: nothing else written or read
        return None
    return args.index(kept.operands[0]), source, len(generic.operands) + write.result


def compressed_groups(body, loop: scf.ForOp, lb: ll.Value, ub: ll.Value, k: ll.Value):
    """Emit the whole groups of ``loop`` (an ``scf.for`` marked ``compaction``) from ``lb``,
    the count starting at ``k``; returns where the scalar loop goes on (position, count), or
    None where the loop is not one this module packs (then nothing is emitted)."""
    if "avx512" not in body.precision.isa:
        return None
    found = _pattern(body.op, loop)
    if found is None:
        return None
    mask, source, result = found
    element = body.op.results[result - len(body.op.operands)].type.element
    typ = memory_type(element)
    width = _bytes(typ)
    if width is None or element.is_bool:
        return None
    lanes = _vector_bytes() // width
    b = body.b
    operands = [mask, result] + ([source] if source is not None else [])
    contiguous = ll.Constant(I1, 1)
    for index in operands:
        stride = body.operands[index].strides[0]
        if static_value(stride) == 1:
            continue
        if static_value(stride) is not None:
            return None
        contiguous = b.and_(contiguous, b.icmp_signed("==", stride, I64(1)))
    span = b.sub(ub, lb)
    span = b.select(b.icmp_signed(">", span, I64(0)), span, I64(0))
    groups = b.select(contiguous, b.udiv(span, I64(lanes)), I64(0))
    vec = ll.VectorType(typ, lanes)
    bits = ll.VectorType(I1, lanes)
    compress = _declare(b.module, f"llvm.masked.compressstore.v{lanes}{_suffix(typ)}",
                        ll.VoidType(), [vec, PTR, bits])
    popcount = _declare(b.module, f"llvm.ctpop.i{lanes}", ll.IntType(lanes), [ll.IntType(lanes)])

    entry = b.block
    header, inner, done = (b.append_basic_block(n) for n in ("pack.header", "pack.body", "pack.done"))
    b.branch(header)
    b.position_at_end(header)
    g = b.phi(I64)
    count = b.phi(I64)
    g.add_incoming(I64(0), entry)
    count.add_incoming(k, entry)
    b.cbranch(b.icmp_signed("<", g, groups), inner, done)
    b.position_at_end(inner)
    at = b.add(lb, b.mul(g, I64(lanes)))
    flags = b.load(_vector_at(b, body, mask, at, I8), typ=ll.VectorType(I8, lanes), align=1)
    keep = b.icmp_unsigned("!=", flags, ll.Constant(flags.type, [0] * lanes))
    if source is None:  # the positions at..at + lanes - 1
        first = b.insert_element(ll.Constant(vec, ll.Undefined), at, I32(0))
        spread = b.shuffle_vector(first, ll.Constant(vec, ll.Undefined),
                                  ll.Constant(ll.VectorType(I32, lanes), [0] * lanes))
        values = b.add(spread, ll.Constant(vec, list(range(lanes))))
    else:
        values = b.load(_vector_at(b, body, source, at, typ), typ=vec, align=width)
    b.call(compress, [values, _vector_at(b, body, result, count, typ), keep])
    kept = b.zext(b.call(popcount, [b.bitcast(keep, ll.IntType(lanes))]), I64)
    following = b.add(count, kept)
    g.add_incoming(b.add(g, I64(1)), b.block)
    count.add_incoming(following, b.block)
    back = b.branch(header)  # already vectors: LLVM's vectorizer would only add a copy
    back.set_metadata("llvm.loop", loop_id(b.module, {"llvm.loop.vectorize.enable": 0}))
    b.position_at_end(done)
    return b.add(lb, b.mul(g, I64(lanes))), count


def _vector_bytes() -> int:
    """The target's vector width in bytes: a group wider than the width LLVM is told to
    prefer is split into halves that it packs through the stack (2x slower)."""
    from jitcore.codegen.cpu import target  # (only on a CPU target with AVX-512)
    return 32 if "+prefer-256-bit" in target.magic()[2].split(",") else 64


def _bytes(t: ll.Type) -> int | None:
    if isinstance(t, ll.DoubleType):
        return 8
    if isinstance(t, ll.FloatType):
        return 4
    if isinstance(t, ll.IntType) and t.width in (32, 64):
        return t.width // 8
    return None


def _suffix(t: ll.Type) -> str:
    return {ll.DoubleType: "f64", ll.FloatType: "f32"}.get(type(t)) or f"i{t.width}"


def _declare(module: ll.Module, name: str, ret: ll.Type, args: list[ll.Type]) -> ll.Function:
    return module.globals.get(name) or ll.Function(module, ll.FunctionType(ret, args), name)


def _vector_at(b: ll.IRBuilder, body, index: int, at: ll.Value, typ: ll.Type) -> ll.Value:
    """The address of operand ``index``'s element ``at`` (its stride 1), for a vector access."""
    operand = body.operands[index]
    return b.gep(operand.pointer, [at], inbounds=True, source_etype=typ)

