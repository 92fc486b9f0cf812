"""Counted loops in LLVM IR, shared by every emitter that walks an iteration space."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64


def emit_loop(b: ll.IRBuilder, extent: int, body) -> None:
    """``for iv in range(extent): body(iv)`` at the builder's position; the builder ends after
    the loop. The trip count is checked first, so an extent of 0 runs nothing."""
    pre = b.block
    fn = b.function
    header, inner, done = (fn.append_basic_block(n) for n in ("loop", "body", "done"))
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(I64)
    iv.add_incoming(ll.Constant(I64, 0), pre)
    b.cbranch(b.icmp_signed("<", iv, ll.Constant(I64, extent)), inner, done)
    b.position_at_end(inner)
    body(iv)
    iv.add_incoming(b.add(iv, ll.Constant(I64, 1)), b.block)
    b.branch(header)
    b.position_at_end(done)


def emit_nest(b: ll.IRBuilder, extents, body) -> None:
    """Nested loops over ``extents`` (outermost first); ``body(ivs)`` at the innermost."""

    def level(depth: int, ivs: list) -> None:
        if depth == len(extents):
            body(ivs)
        else:
            emit_loop(b, extents[depth], lambda iv: level(depth + 1, ivs + [iv]))

    level(0, [])


def contiguous_strides(shape) -> list[int]:
    """Element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return strides[::-1]
