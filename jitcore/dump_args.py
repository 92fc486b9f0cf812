"""The arguments ``dump-ir`` calls a function with, from its command line.

``--args`` specs say only shapes and dtypes (the arrays are zeros): ``f32[4096,1024]``,
``float32[4096, 1024]``, ``f32[4096x1024]``, ``f64[]`` for a 0-d array, and Python scalars
``int=3``, ``float=2.5``, ``bool``, ``complex`` (traced as Python scalars are, weakly typed;
a value not given is zero). ``--static n=3`` (a name) or ``--static 1=3`` (a position) gives a
static argument its Python value (read as a literal). For real data, ``--call module:expr``
evaluates ``expr`` in the imported ``module`` (a module name or a ``.py`` path) to the
argument tuple, and ``--setup file.py`` runs a file that defines ``args`` and optionally
``kwargs``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SHORT_DTYPES = {
    "f16": "float16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "c64": "complex64", "c128": "complex128", "bool": "bool",
}
DTYPES = {**SHORT_DTYPES, **{name: name for name in SHORT_DTYPES.values()}}
SCALARS = {"int": int, "float": float, "bool": bool, "complex": complex}
# One spec: a name, then dims in brackets or a scalar's value; specs are split at top-level commas.
_ITEM = re.compile(r"\s*(?P<name>[A-Za-z_]\w*)\s*(?:\[(?P<dims>[^\]]*)\]|=\s*(?P<value>[^,\[\]]*))?\s*")


class ArgumentSpecError(ValueError):
    """A spec on the command line that cannot be read; the message says how to write it."""


@dataclass
class CallArguments:
    """What the function is called with: positional and keyword arguments, and the names and
    positions the command line made static (for a plain function, which ``jit`` then gets)."""

    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    static_names: tuple[str, ...] = ()
    static_nums: tuple[int, ...] = ()


def _split_items(text: str) -> list[str]:
    """``text`` cut at commas outside brackets: ``f32[4,8],int=3`` → ``['f32[4,8]', 'int=3']``."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "[") - (c == "]")
        if c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _bad(item: str, text: str) -> ArgumentSpecError:
    return ArgumentSpecError(
        f"bad argument spec {item.strip()!r} in {text!r}: expected an array dtype[dims] such as "
        f"f32[1024], f32[4096,1024], float32[4, 8], i64[4x8] or f64[], or a Python scalar int=3, "
        f"float=2.5, int, float; dtypes: {' '.join(SHORT_DTYPES)} (or NumPy's names)")


def _dims(dims: str, item: str) -> tuple[int, ...]:
    dims = dims.strip()
    if not dims:
        return ()
    separator = "," if "," in dims else "x"
    parts = [d.strip() for d in dims.split(separator)]
    if not all(re.fullmatch(r"[0-9]+", d) for d in parts):
        raise ArgumentSpecError(f"bad dimensions {dims!r} in {item.strip()!r}: write them like 1024, "
                                "4x8 or 4,8")
    return tuple(int(d) for d in parts)


def parse_specs(text: str) -> list:
    """``'f32[1024],i64[4,8],int=3'`` → ``[zeros(1024, f32), zeros((4, 8), i64), 3]``."""
    out = []
    for item in _split_items(text):
        m = _ITEM.fullmatch(item)
        if m is None:
            raise _bad(item, text)
        name, dims, value = m["name"], m["dims"], m["value"]
        if name in SCALARS and dims is None:
            out.append(_scalar(name, value, item))
        elif name in DTYPES and dims is not None:
            out.append(np.zeros(_dims(dims, item), DTYPES[name]))
        else:
            raise _bad(item, text)
    return out


def _scalar(kind: str, value: str | None, item: str):
    make = SCALARS[kind]
    if value is None:
        return make()
    try:
        literal = ast.literal_eval(value.strip())
        accepted = {"bool": (bool,), "int": (int,), "float": (int, float), "complex": (int, float, complex)}
        if not isinstance(literal, accepted[kind]) or (kind != "bool" and isinstance(literal, bool)):
            raise ValueError  # int=2.5 would otherwise truncate quietly
        return make(literal)
    except (ValueError, SyntaxError, TypeError):
        raise ArgumentSpecError(f"bad value in {item.strip()!r}: {value.strip()!r} is not a "
                                f"Python {kind}") from None


def parse_static(texts: list[str]) -> tuple[dict[str, object], dict[int, object]]:
    """``['n=3', '1=(2, 2)']`` → ``({'n': 3}, {1: (2, 2)})``: values are Python literals."""
    names, nums = {}, {}
    for text in texts:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not (key.isidentifier() or key.isdigit()):
            raise ArgumentSpecError(f"bad --static {text!r}: expected name=value or position=value, "
                                    "such as n=3 or 1=3")
        try:
            literal = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            raise ArgumentSpecError(f"bad --static {text!r}: {value.strip()!r} is not a Python literal "
                                    "(a number, string, tuple, None, True/False)") from None
        (nums.__setitem__(int(key), literal) if key.isdigit() else names.__setitem__(key, literal))
    return names, nums


def _import(module: str):
    """A module by name (on ``sys.path``, with the working directory first) or a ``.py`` path."""
    if module.endswith(".py"):
        path = Path(module)
        if not path.is_file():
            raise ArgumentSpecError(f"no such file: {module}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(path.resolve().parent))
        spec.loader.exec_module(mod)
        return mod
    if "" not in sys.path:
        sys.path.insert(0, "")
    return importlib.import_module(module)


def from_call(text: str) -> tuple[list, dict]:
    """``module:expr`` → the arguments ``expr`` evaluates to in ``module``: a tuple is the
    positional arguments, a ``(tuple, dict)`` pair adds keywords, anything else is one argument."""
    # The module ends at the first ':' (after '.py' for a path): the expression may hold colons.
    cut = text.find(".py:")
    module, sep, expr = (text[:cut + 3], ":", text[cut + 4:]) if cut >= 0 else text.partition(":")
    if not sep or not module or not expr.strip():
        raise ArgumentSpecError(f"bad --call {text!r}: expected module:expression, such as "
                                "'mydata:(x, y)' or 'path/to/data.py:make_args()'")
    try:
        namespace = vars(_import(module))
        value = eval(expr, namespace)  # the user's own expression, as python -c would run it
    except ArgumentSpecError:
        raise
    except Exception as e:
        raise ArgumentSpecError(f"--call {text!r} failed: {type(e).__name__}: {e}") from None
    pair = isinstance(value, tuple) and len(value) == 2
    if pair and isinstance(value[0], tuple) and isinstance(value[1], dict):
        return list(value[0]), dict(value[1])
    return (list(value) if isinstance(value, tuple) else [value]), {}


def from_setup(path_text: str) -> tuple[list, dict]:
    """The ``args`` (and ``kwargs``) that the Python file ``path_text`` defines."""
    path = Path(path_text)
    if not path.is_file():
        raise ArgumentSpecError(f"no such file: {path_text}")
    namespace: dict = {"__name__": "__dump_ir_setup__", "__file__": str(path)}
    try:
        exec(compile(path.read_text(), str(path), "exec"), namespace)
    except Exception as e:
        raise ArgumentSpecError(f"--setup {path_text} failed: {type(e).__name__}: {e}") from None
    if "args" not in namespace:
        raise ArgumentSpecError(f"--setup {path_text} must define args (a tuple of the arguments), "
                                "and may define kwargs (a dict)")
    args, kwargs = namespace["args"], namespace.get("kwargs", {})
    if not isinstance(kwargs, dict):
        raise ArgumentSpecError(f"--setup {path_text}: kwargs must be a dict, not {type(kwargs).__name__}")
    return (list(args) if isinstance(args, (tuple, list)) else [args]), dict(kwargs)


def call_arguments(specs: list[str], static: list[str], call: str | None = None,
                   setup: str | None = None) -> CallArguments:
    """The arguments from ``--args`` (or ``--call``/``--setup``) and ``--static``."""
    if sum(bool(x) for x in (specs, call, setup)) > 1:
        raise ArgumentSpecError("give the arguments one way: --args, --call or --setup")
    if call:
        args, kwargs = from_call(call)
    elif setup:
        args, kwargs = from_setup(setup)
    else:
        args, kwargs = [a for text in specs for a in parse_specs(text)], {}
    names, nums = parse_static(static)
    for position in sorted(nums):
        if position > len(args):
            raise ArgumentSpecError(f"--static {position}=...: position {position} is past the "
                                    f"{len(args)} other argument(s)")
        args.insert(position, nums[position])
    kwargs.update(names)
    return CallArguments(args, kwargs, tuple(names), tuple(sorted(nums)))
