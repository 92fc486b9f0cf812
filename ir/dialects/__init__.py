"""Dialect definitions; importing this package registers every op."""

from ir.dialects import arith, array, array_index, builtin, complex, func, gather, kernel, linalg_ops, math  # noqa: F401
