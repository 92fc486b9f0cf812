"""The code generator's own error: a module it cannot lower is a compiler bug, not a user's."""

from __future__ import annotations

from jitcore.ir.errors import JitcoreError


class CodegenError(JitcoreError):
    """The module holds something the code generator cannot lower."""
