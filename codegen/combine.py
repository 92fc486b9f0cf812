"""How ``kernel.insert`` combines an update with the element it writes (every mode but
"set"): NumPy's scalar loop of the ufunc behind the mode, as ``np.ufunc.at`` applies it."""

from __future__ import annotations

from llvmlite import ir as ll


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
