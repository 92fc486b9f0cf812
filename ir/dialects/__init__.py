"""Dialect definitions; importing this package registers every op."""

from jitcore.ir.dialects import (  # noqa: F401
    arith,
    array,
    builtin,
    complex,
    func,
    kernel,
    math,
    scf,
)
