"""Printf-style formatting of traced values (``"%.3f" % loss``): each traced value becomes a
placeholder of the conversion's format spec (``jitcore/formatting.py``), filled in when the
compiled function prints or raises the text, as an f-string's field is."""

from __future__ import annotations

import re

import numpy as np

from jitcore.errors import ConcretizationError
from jitcore.formatting import REPR, STR
from jitcore.traced_text import TracedText, defer, joined, placeholder
from jitcore.tracer import Tracer

# printf-style conversions: %[(key)][flags][width][.precision][length]type
_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?"
                      r"(?:\.(?P<precision>\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])")
_INTEGER_TYPES = frozenset("diuoxX")


def percent(text: str, args):
    """``text % args`` (printf-style) where ``args`` may hold traced values: each one traced
    becomes a placeholder formatted as its conversion formats it (``%.3f``, ``%5d``, ``%s``,
    ``%r``); the others are formatted now. Without traced values, Python's ``%`` itself."""
    values = args if isinstance(args, tuple) else (args,)
    given = values if not isinstance(args, dict) else args.values()
    if not any(isinstance(v, (Tracer, TracedText)) for v in given):
        return text % args  # (a TracedText template's own %: made at each call)
    text = str.__str__(text)  # (a TracedText's placeholders hold no %: walked as text)
    pieces, position, end = [], 0, 0
    for match in _PERCENT.finditer(text):
        pieces.append(text[end:match.start()])
        end = match.end()
        kind = match["type"]
        if kind == "%":
            pieces.append("%")
            continue
        if match["width"] == "*" or match["precision"] == "*":
            return text % args  # Python's error or result for starred widths
        if match["key"] is not None:
            value = args[match["key"]]
        else:
            if position >= len(values):
                raise TypeError("not enough arguments for format string")  # Python's words
            value, position = values[position], position + 1
        own = match.group(0)
        if match["key"] is not None:
            own = own.replace(f"({match['key']})", "", 1)
        if isinstance(value, TracedText):  # "%-8s" % label: padded at each call, as Python pads
            pieces.append(defer(value._trace, str.__mod__, own, (value,)))
            continue
        pieces.append(_conversion(match, value) if isinstance(value, Tracer) else own % (value,))
    if not isinstance(args, dict) and position < len(values):
        raise TypeError("not all arguments converted during string formatting")
    pieces.append(text[end:])
    return joined("".join(pieces))


def _conversion(match, tracer) -> str:
    """The placeholder of one printf conversion of a traced value: its format spec."""
    kind, flags = match["type"], match["flags"]
    if kind in "rsa":
        return placeholder(tracer, REPR if kind == "r" else STR)
    if kind == "c":
        raise ConcretizationError("'%c' of a traced value needs its data (a character's code); "
                                  "format it outside the jitted function")
    spec = ("<" if "-" in flags else "") + ("+" if "+" in flags else " " if " " in flags else "")
    spec += ("#" if "#" in flags else "") + ("0" if "0" in flags and "-" not in flags else "")
    spec += match["width"] or ""
    if match["precision"] and kind not in _INTEGER_TYPES:
        spec += f".{match['precision']}"
    if tracer.dtype.kind == "b" or kind in _INTEGER_TYPES and tracer.dtype.kind not in "iu":
        # %d of a float truncates it, as int() does; a bool is 0 or 1
        tracer = np.trunc(tracer).astype(np.int64) if tracer.dtype.kind != "b" else tracer.astype(np.int64)
    if kind in _INTEGER_TYPES:
        return placeholder(tracer, spec + ("d" if kind in "diu" else kind))
    return placeholder(tracer, spec + kind)
