"""Counted loops in LLVM IR, shared by every emitter that walks an iteration space.

Extents are LLVM values (constants today; kernel parameters once kernels are size-generic), so
the loop structure never depends on a Python int. ``extent`` turns a Python int into one.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64


def extent(n: int) -> ll.Constant:
    """A compile-time extent (or index) as an i64 value."""
    return ll.Constant(I64, n)


def static_value(v: ll.Value) -> int | None:
    """The Python int of an i64 constant, or None for a value known only at run time."""
    return v.constant if isinstance(v, ll.Constant) and isinstance(v.constant, int) else None


def emit_loop(b: ll.IRBuilder, trip_count: ll.Value, body) -> None:
    """``for iv in range(trip_count): body(iv)`` at the builder's position; the builder ends
    after the loop. The trip count is checked first, so a count of 0 runs nothing."""
    pre = b.block
    fn = b.function
    header, inner, done = (fn.append_basic_block(n) for n in ("loop", "body", "done"))
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(I64)
    iv.add_incoming(ll.Constant(I64, 0), pre)
    b.cbranch(b.icmp_signed("<", iv, trip_count), inner, done)
    b.position_at_end(inner)
    body(iv)
    iv.add_incoming(b.add(iv, ll.Constant(I64, 1)), b.block)
    b.branch(header)
    b.position_at_end(done)


def emit_nest(b: ll.IRBuilder, extents, body) -> None:
    """Nested loops over ``extents`` (values, outermost first); ``body(ivs)`` at the innermost."""

    def level(depth: int, ivs: list) -> None:
        if depth == len(extents):
            body(ivs)
        else:
            emit_loop(b, extents[depth], lambda iv: level(depth + 1, ivs + [iv]))

    level(0, [])


def extents(shape) -> list[ll.Constant]:
    """A static shape as extent values."""
    return [extent(d) for d in shape]


def contiguous_strides(shape) -> list[int]:
    """Element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return strides[::-1]


def element_pointer(b: ll.IRBuilder, base: ll.Value, positions, strides, elem: ll.Type) -> ll.Value:
    """The address of the element at ``positions`` (values) of an array at ``base`` with
    element ``strides`` (values): the one element-address computation of every emitter."""
    offset: ll.Value = ll.Constant(I64, 0)
    for position, stride in zip(positions, strides):
        offset = b.add(offset, b.mul(position, stride))
    return b.gep(base, [offset], inbounds=True, source_etype=elem)
