"""Dialect definitions; importing this package registers every op."""

from jitcore.ir.dialects import (  # noqa: F401
    arith,
    array,
    array_index,
    builtin,
    complex,
    func,
    gather,
    kernel,
    linalg_ops,
    math,
)
