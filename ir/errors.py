"""Exception types shared by every layer of jitcore.

They live in ``ir`` because it is the lowest layer: ``jitcore.errors`` re-exports them, so a user
can catch ``jitcore.JitcoreError`` for anything the compiler raises.
"""


class JitcoreError(Exception):
    """Base class of every error jitcore raises on purpose."""


class IRError(JitcoreError):
    """Malformed IR built through the API (a bug in a pass or in the tracer)."""


class ParseError(IRError):
    """IR text that does not parse; the message gives line and column."""


class VerificationError(IRError):
    """IR that breaks an op's rules; the message names the op and prints it."""
