"""The optimized program as a Graphviz graph (``dump-ir --graph``), as MLIR's --view-op-graph.

One node per op of the function's body: a kernel is a box listing its scalar ops (the ops
fusion put in it), its iteration space and the source lines it came from; the function's
arguments and results are ellipses; other ops (a constant, a reshape, a host loop) are plain
boxes. An edge is an array going from the op that makes it to an op that reads it, labelled
with its shape, dtype and size in bytes. A host loop (``scf``) is one node: the kernels
inside its regions are not drawn.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import kernel
from jitcore.ir.types import TensorType

MAX_LISTED_OPS = 12  # a kernel's box lists this many kinds of op, then "... and N more"


def to_dot(module: Operation) -> str:
    """The Graphviz text of the (first) function of ``module``."""
    (func, *_) = module.functions()
    body = func.body
    lines = [f'digraph "{_escape(func.sym_name)}" {{', "  rankdir=TB;",
             '  node [fontname="monospace", fontsize=10];', '  edge [fontname="monospace", fontsize=9];']
    names: dict[int, str] = {}
    for i, arg in enumerate(body.args):
        names[id(arg)] = f"arg{i}"
        lines.append(f'  arg{i} [shape=ellipse, label="%arg{i}"];')
    number = 0
    for op in body.ops:
        if op.op_name == "func.return":
            for k, value in enumerate(op.operands):
                lines.append(f'  out{k} [shape=ellipse, label="result {k}"];')
                lines.append(f"  {_source(value, names)} -> out{k} [label=\"{_array_label(value.type)}\"];")
            continue
        node = f"op{number}"
        number += 1
        for r in op.results:
            names[id(r)] = node
        shape = "box" if isinstance(op, kernel.GenericOp) else "box, style=rounded"
        lines.append(f'  {node} [shape={shape}, label="{_escape(_op_label(op))}"];')
        for value in dict.fromkeys(op.operands):  # one edge per array, however often it is read
            lines.append(f'  {_source(value, names)} -> {node} [label="{_array_label(value.type)}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(module: Operation, path_text: str) -> list[str]:
    """Write ``module``'s graph to ``path_text``, and beside it as SVG when Graphviz's ``dot``
    is installed; the paths written."""
    path = Path(path_text)
    path.write_text(to_dot(module))
    written = [str(path)]
    dot = shutil.which("dot")
    if dot is not None:
        svg = path.with_suffix(".svg")
        subprocess.run([dot, "-Tsvg", str(path), "-o", str(svg)], check=True, timeout=60)
        written.append(str(svg))
    return written


def _source(value: Value, names: dict[int, str]) -> str:
    return names.get(id(value), "unknown")


def _op_label(op: Operation) -> str:
    if not isinstance(op, kernel.GenericOp):
        lines = [op.op_name]
    else:
        dims = " x ".join(map(str, op.domain())) or "scalar"
        kinds = Counter(inner.op_name for inner in op.body.ops if inner.op_name != "kernel.yield")
        listed = [f"{name}" + (f" x{n}" if n > 1 else "") for name, n in kinds.items()]
        if len(listed) > MAX_LISTED_OPS:
            listed = [*listed[:MAX_LISTED_OPS], f"... and {len(listed) - MAX_LISTED_OPS} more"]
        iterators = ", ".join(op.iterator_types)
        lines = ["kernel.generic", f"[{dims}] ({iterators})" if iterators else f"[{dims}]", *listed]
    where = sorted({p.line for p in op.loc.parts()})
    if where:
        lines.append(("line " if len(where) == 1 else "lines ") + ", ".join(map(str, where)))
    return "\n".join(lines)


def _array_label(t) -> str:
    if not isinstance(t, TensorType):
        return _escape(str(t))
    dims = "x".join(map(str, t.shape)) or "0-d"
    nbytes = t.size * numpy_dtype(t.element).itemsize
    return _escape(f"{dims} {t.element}\n{_bytes(nbytes)}")


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

