"""What to write instead where a selection's size comes from an argument's values (session 55).

``keep[fixed] = False; K[keep][:, keep]`` (boundary conditions by deletion), ``np.setdiff1d(
np.arange(n), fixed)``, ``np.ix_(keep, keep)``: the reduced array's size is set by the values of
``fixed``, which a compiled array cannot have. Each refusal used to suggest another spelling that
is refused the same way. What works is to make the size known when compiling, by passing the
values that decide it as a static tuple, or to keep the full size (for a linear system, the
penalty method). This module words that, naming the argument.
"""

from __future__ import annotations

from jitcore.tracer import Tracer


def _deciding(deciders, values) -> list[str]:
    """The arguments the ``deciders`` come from and ``values`` does not, of integers or bools,
    and short beside them: a few positions or a count (``fixed`` of ``keep[fixed] = False``),
    which a static tuple can carry; not data as long as the mask (``res`` of ``np.flatnonzero(
    np.diff(res == 1) == 1)``, nor ``x`` of ``np.nonzero(x > 0)``), whose every value would
    compile once."""
    own = set(getattr(values, "sources", ())) if values is not None else set()
    found, arguments, longest = set(), {}, 0
    for d in deciders:
        if isinstance(d, Tracer):
            found |= {s for s in d.sources if " " not in s and s not in own}  # (no draws)
            longest = max(longest, d.size if d.dtype == bool else 0)  # (a mask, not positions)
            arguments = {
                next(iter(a.sources)): a
                for a in getattr(d.owner_trace, "arguments", ())
                if len(a.sources) == 1
            }
    return sorted(s for s in found if s in arguments and arguments[s].dtype.kind in "iub"
                  and (not longest or 2 * arguments[s].size <= longest))


def _root(source: str) -> str:
    """``fixed`` of ``fixed[0]`` or ``p.dofs``: the parameter to name in static_argnames."""
    return source.split("[")[0].split(".")[0]


def data_size_advice(deciders, values=None, matrix: bool = False) -> str:
    """A sentence or two (from a space) that says a size set by the data cannot be a compiled
    array's, and where ``deciders`` (what decides the selection: a mask, indices) come from an
    argument that ``values`` does not, how to pass that argument so the size is static. With
    ``matrix``, the full-size alternative for a linear system too. "" where no argument decides."""
    names = _deciding(deciders, values)
    if not names:
        return ""
    trace = next(d for d in deciders if isinstance(d, Tracer)).owner_trace
    scalars = getattr(trace, "scalar_arguments", frozenset())
    roots = sorted({_root(s) for s in names})
    listed = ", ".join(repr(r) for r in roots)
    arrays = [s for s in names if s not in scalars and "[" not in s and "." not in s]
    # a number is static as it is; only sequences (and arrays) need to become tuples
    sequences = sorted({_root(s) for s in names if s not in scalars})
    them = "them" if len(roots) > 1 else "it"
    tuples = f"pass {', '.join(sequences)} as a tuple{'s' if len(sequences) > 1 else ''} and " \
        if sequences else ""
    text = (
        f" A size set by the values of {', '.join(roots)} cannot be a compiled array's: "
        f"{tuples}name {them} static, jit(f, static_argnames=({listed},)), "
        "and the size is known when compiling (each new value compiles once)"
    )
    numbers = sorted(s for s in names if s in scalars and "[" not in s and "." not in s)
    if numbers:
        text += (
            f"; where the selection leaves out one index (np.arange(n) != {numbers[0]}), "
            f"np.delete(x, {numbers[0]}, axis) has a size known when compiling and compiles "
            f"with {numbers[0]} traced"
        )
    if arrays:
        text += (
            f"; an array cannot be static, so call f(..., {arrays[0]}=tuple({arrays[0]}.tolist())) "
            f"and use np.asarray({arrays[0]}) inside"
        )
    if matrix:
        text += (
            ". Or keep the full size: for a linear system, the penalty method (a large number "
            "added to the removed rows' diagonal), or those rows and columns set to the "
            "identity's with np.where"
        )
    return text + "."
