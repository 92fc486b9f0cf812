"""One LLVM function for the kernels of a function whose code comes out the same.

Two launches of one function often emit the same kernel: the stages of two transforms of one
length (Bluestein's algorithm runs two), the same step unrolled by a Python loop, a row and a
column pass of one shape. Their LLVM functions differ only in their names, yet LLVM's O3 and
its code generation would run on each; in a function of twenty such kernels that is most of
the compile. ``SameCode`` compares each kernel's new functions, names aside, with the
ones emitted before it, and when an earlier kernel's text is the same, drops the new ones and
has the launch call the earlier function, kept out of line so LLVM compiles it once.
"""

from __future__ import annotations

import re

from llvmlite import ir as ll

from jitcore.codegen.llvm_text import function_text


class SameCode:
    """The kernels emitted into ``module`` so far, by their text with their own names blanked."""

    def __init__(self, module: ll.Module):
        self.module = module
        # by shape (each defined function's type and instructions per block): [kernel, its
        # functions, their text or None]; a kernel is printed only once another of its shape
        # comes, as printing is most of the check's cost and most kernels have no twin
        self._by_shape: dict[tuple, list[list]] = {}
        self.reused = 0  # launches that call an earlier launch's function
        # each numbered metadata node's text by its name, added as the module gains nodes (they
        # never change once made): spelling all of them per check was quadratic in the kernels
        self._nodes: dict[str, str] = {}

    def names(self) -> set[str]:
        """The module's global names now: pass them to ``earlier_or`` after the next kernel."""
        return set(self.module.globals)

    def earlier_or(self, fn: ll.Function, before: set[str]) -> ll.Function:
        """``fn``, the kernel just emitted (its functions: the module's globals not in
        ``before``), or an earlier kernel's function of the same text, the new ones dropped."""
        new = [g for name, g in self.module.globals.items() if name not in before]
        if fn not in new or not all(isinstance(g, ll.Function) for g in new):
            return fn  # a library call, or code with data of its own: left as it is
        shape = tuple((str(g.function_type), tuple(len(b.instructions) for b in g.blocks))
                      for g in new if not g.is_declaration)
        group = self._by_shape.setdefault(shape, [])
        if not group:
            group.append([fn, new, None])
            return fn
        nodes = self._metadata_nodes()
        for entry in group:
            if entry[2] is None:
                entry[2] = _blanked(nodes, entry[1])
        key = _blanked(nodes, new)
        earlier = next((f for f, _, text in group if text == key), None)
        if earlier is None:
            group.append([fn, new, key])
            return fn
        for g in new:
            del self.module.globals[g.name]
        if "noinline" not in earlier.attributes:
            earlier.attributes.add("noinline")  # one copy, not one inlined per caller
        self.reused += 1
        return earlier

    def _metadata_nodes(self) -> dict[str, str]:
        """The module's numbered metadata nodes' texts by name, those made since the last call added."""
        metadata = self.module.metadata
        for md in metadata[len(self._nodes):]:
            self._nodes[md.name] = str(md).split(" = ", 1)[1]
        return self._nodes


def _blanked(nodes: dict[str, str], functions: list[ll.Function]) -> tuple[str, ...]:
    """The text of the functions defined (a declaration says what it is by its name, which
    the definitions' text holds), each of their names replaced by its position (the longest
    first, so that ``k1`` is not replaced inside ``k12``), and each numbered metadata node
    (``!llvm.loop !4``) by what it holds (``nodes``), its number being the module's count so far."""
    defined = [g for g in functions if not g.is_declaration]
    names = sorted((g.name for g in defined), key=len, reverse=True)
    texts = []
    for g in defined:
        text = function_text(g)
        for name in names:
            text = text.replace(name, f"<own {names.index(name)}>")
        texts.append(_METADATA.sub(lambda m: _node(nodes, m.group(1), ()), text))
    return tuple(texts)


_METADATA = re.compile(r"!(\d+)\b")


def _node(nodes: dict[str, str], name: str, inside: tuple[str, ...]) -> str:
    """Metadata node ``name`` spelled out, the nodes it names too (a loop's id names itself)."""
    if name in inside or name not in nodes:
        return f"!<{inside.index(name) if name in inside else name}>"
    return _METADATA.sub(lambda m: _node(nodes, m.group(1), inside + (name,)), nodes[name])
