"""``array.gather_nd`` and ``array.scatter_nd`` as LLVM functions.

Both first check every index array, in operand order and each in C order, as NumPy does
(``codegen/indexed.py`` records the first index out of range in the status words). The loops
that read or write ``x`` run only while the status is clear, so no index out of range is ever
used. A scatter copies ``x`` to the result, then walks the updates in C order: with "set" the
last write to an element wins; the other modes combine each update with the element in turn, as
``np.ufunc.at`` does (``combine``).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.indexed import IndexedEmitter
from jitcore.codegen.llvm_types import I64, memory_type
from jitcore.codegen.loops import emit_nest, extents


class _Emitter(IndexedEmitter):
    def load_index(self, k: int, b_ivs):
        """Index operand ``k`` at broadcast position ``b_ivs`` (size-1 dims read position 0)."""
        zero = ll.Constant(I64, 0)
        at = [zero if d == 1 else iv for d, iv in zip(self.shapes[k], b_ivs)]
        return self.b.load(self.address(k, at, I64), typ=I64)

    def check(self, first_index: int, axes, x_shape) -> None:
        """Record the first index out of range, operand by operand, each in C order."""
        b = self.b
        for k, axis in enumerate(axes, start=first_index):
            n = x_shape[axis]
            emit_nest(b, extents(self.shapes[k]), lambda ivs, k=k, axis=axis, n=n: self.check_index(
                b.load(self.address(k, ivs, I64), typ=I64), axis, n))

    def x_position(self, ivs, first_index: int, axes, x_shape, position: int, b_rank: int):
        """The element of ``x`` that position ``ivs`` of a gather result reads."""
        b_ivs = ivs[position: position + b_rank]
        rest = iter([*ivs[:position], *ivs[position + b_rank:]])
        wrapped = {}
        for k, axis in enumerate(axes, start=first_index):
            i = self.load_index(k, b_ivs)
            wrapped[axis] = self.wrap(i, x_shape[axis])
        return [wrapped[a] if a in wrapped else next(rest) for a in range(len(x_shape))]


def emit_gather_nd(module: ll.Module, name: str, op, strided: list[bool]) -> ll.Function:
    """``void name(x, idx..., out, status, [strides of strided operands])``."""
    e = _Emitter(module, name, op, strided)
    x = op.operands[0]
    elem = memory_type(x.type.element)
    out = len(op.operands)
    b_rank = op.operands[1].type.rank
    e.check(1, op.axes, x.type.shape)

    def body(ivs):
        at = e.x_position(ivs, 1, op.axes, x.type.shape, op.position, b_rank)
        value = e.b.load(e.address(0, at, elem), typ=elem)
        e.b.store(value, e.address(out, ivs, elem))

    e.when_clear(lambda: emit_nest(e.b, extents(op.result.type.shape), body))
    e.b.ret_void()
    return e.fn


def emit_scatter_nd(module: ll.Module, name: str, op, strided: list[bool]) -> ll.Function:
    """``void name(x, updates, idx..., out, status, [strides of strided operands])``."""
    e = _Emitter(module, name, op, strided)
    x, updates = op.operands[:2]
    element = x.type.element
    elem = memory_type(element)
    out = len(op.operands)
    b_rank = op.operands[2].type.rank
    b = e.b
    emit_nest(b, extents(x.type.shape), lambda ivs: b.store(b.load(e.address(0, ivs, elem), typ=elem),
                                                    e.address(out, ivs, elem)))
    e.check(2, op.axes, x.type.shape)

    def body(ivs):
        at = e.x_position(ivs, 2, op.axes, x.type.shape, op.position, b_rank)
        target = e.address(out, at, elem)
        value = b.load(e.address(1, ivs, elem), typ=elem)
        if op.mode != "set":
            value = combine(b, op.mode, element, b.load(target, typ=elem), value)
        b.store(value, target)

    e.when_clear(lambda: emit_nest(b, extents(updates.type.shape), body))
    b.ret_void()
    return e.fn


def combine(b: ll.IRBuilder, mode: str, element, old, value):
    """NumPy's scalar loop of the ufunc behind ``mode`` on ``(old, value)``: integers wrap,
    booleans are logical, ``max``/``min`` of floats propagate a NaN (the first operand's when
    both are NaN; ties give the second, as NumPy's loop, or for float16 the first), complex
    numbers combine part by part (``mul`` with NumPy's unfused formula, ``max``/``min``
    lexicographic with NaN first)."""
    if element.is_complex:
        return _complex_combine(b, mode, old, value)
    if element.is_float:
        if mode in ("max", "min"):
            op = ">" if mode == "max" else "<"
            if element.bitwidth == 16:  # NumPy's half loop: npy_half_ge / npy_half_le
                op += "="
            better = b.fcmp_ordered(op, old, value)
            return b.select(b.or_(better, b.fcmp_unordered("uno", old, old)), old, value)
        return {"add": b.fadd, "sub": b.fsub, "mul": b.fmul}[mode](old, value)
    if element.is_bool:
        mode = {"add": "or", "mul": "and", "max": "or", "min": "and"}.get(mode, mode)
    if mode in ("max", "min"):
        cmp = b.icmp_unsigned if element.is_unsigned else b.icmp_signed
        return b.select(cmp(">" if mode == "max" else "<", old, value), old, value)
    return {"add": b.add, "sub": b.sub, "mul": b.mul, "and": b.and_, "or": b.or_,
            "xor": b.xor}[mode](old, value)


def _complex_combine(b: ll.IRBuilder, mode: str, old, value):
    (ar, ai), (br, bi) = ([b.extract_value(z, k) for k in (0, 1)] for z in (old, value))
    if mode in ("add", "sub"):
        f = b.fadd if mode == "add" else b.fsub
        re, im = f(ar, br), f(ai, bi)
    elif mode == "mul":
        re = b.fsub(b.fmul(ar, br), b.fmul(ai, bi))
        im = b.fadd(b.fmul(ar, bi), b.fmul(ai, br))
    else:  # NumPy: keep old if it has a NaN part or old >= value (<= for min) lexicographically
        op = ">" if mode == "max" else "<"
        eq = ">=" if mode == "max" else "<="
        no_nan = b.and_(b.fcmp_ordered("ord", ai, ai), b.fcmp_ordered("ord", bi, bi))
        keep = b.or_(b.and_(b.fcmp_ordered(op, ar, br), no_nan),
                     b.and_(b.fcmp_ordered("==", ar, br), b.fcmp_ordered(eq, ai, bi)))
        nan = b.or_(b.fcmp_unordered("uno", ar, ar), b.fcmp_unordered("uno", ai, ai))
        return b.select(b.or_(keep, nan), old, value)
    return b.insert_value(b.insert_value(old, re, 0), im, 1)
