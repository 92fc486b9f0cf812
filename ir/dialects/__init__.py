"""Dialect definitions; importing this package registers every op."""

from ir.dialects import arith, array, builtin, func, kernel, math  # noqa: F401
