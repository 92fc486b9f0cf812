"""The user's own Python control flow, converted source to source (docs/control-flow.md §3):
``converted(f)`` is ``f`` with its ``if``/``while``/``for``, ``break``/``continue``/``return``,
``and``/``or``/``not`` and calls rewritten into calls of ``runtime``'s helpers, which run them
in Python on concrete values and build ``scf`` ops through ``jitcore.control_flow`` on traced
ones. ``jit`` applies it before the first trace (``jit(f, autograph=False)`` turns it off).

Modules: ``analysis`` (names a statement assigns, reads; liveness), ``lowering`` (jumps as
flags), ``transform`` (the AST rewrite), ``convert`` (source in, function out), ``runtime``
(what converted code calls: the helpers of ``statements`` and ``expressions``).
"""

from jitcore.autograph.convert import refuse_generator, without_helper_frames
from jitcore.autograph.runtime import converted

__all__ = ["converted", "refuse_generator", "without_helper_frames"]
