"""Print which of jitcore's modules import which, and find import circles.

    python tools/import_graph.py              # package-level arrows and any circles
    python tools/import_graph.py --modules    # every module-level arrow, too

Reads the source with `ast` (nothing is imported), so it sees imports inside functions as
well as at the top of a file; an import inside a function still makes a circle in the design
even when Python tolerates it at run time. The layers are the repository's top-level folders:
`jitcore`, `passes`, `codegen`, `ir`; `jitcore.ir` and friends name the same modules.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("jitcore", "passes", "codegen", "ir")
# `jitcore.ir.x` is how the layers are imported once installed; they live in `ir/x.py`.
ALIASES = {f"jitcore.{layer}": layer for layer in LAYERS[1:]}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def canonical(name: str) -> str:
    for alias, layer in ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            return layer + name[len(alias):]
    return name


def _resolve(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of ours that `path` imports, anywhere in the file."""
    here = module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(node, here, path.name == "__init__.py")
            # `from pkg import mod` imports the module `pkg.mod`; `from mod import name`, `mod`.
            names = [f"{source}.{alias.name}" if canonical(f"{source}.{alias.name}") in known
                     else source for alias in node.names]
        else:
            continue
        for name in names:
            name = canonical(name)
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != here:
                found.add(name)
    return found


def module_graph() -> dict[str, set[str]]:
    files = [p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))]
    known = {module_name(p) for p in files}
    graph = {module_name(p): imports_of(p, known) for p in files}
    # A package's own `__init__` re-exporting its modules is not an arrow between modules.
    for name, deps in graph.items():
        graph[name] = {d for d in deps if not (d == name.rpartition(".")[0] or name.startswith(d + "."))}
    return graph


def package_of(module: str) -> str:
    return module.split(".")[0]


def circles(graph: dict[str, set[str]], within: str | None = None) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    nodes = [n for n in graph if within is None or package_of(n) == within]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in graph or (within and package_of(w) != within):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(nodes)))
    for v in nodes:
        if v not in index:
            visit(v)
    return found


def package_arrows(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    arrows: dict[str, set[str]] = {layer: set() for layer in LAYERS}
    for module, deps in graph.items():
        for dep in deps:
            if package_of(dep) != package_of(module):
                arrows[package_of(module)].add(package_of(dep))
    return arrows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", action="store_true", help="print every module-level arrow")
    args = parser.parse_args(argv)
    graph = module_graph()
    print("package arrows:")
    for layer, deps in package_arrows(graph).items():
        print(f"  {layer} -> {', '.join(sorted(deps)) or '(nothing of ours)'}")
    if args.modules:
        print("module arrows:")
        for module in sorted(graph):
            print(f"  {module} -> {', '.join(sorted(graph[module])) or '-'}")
    print("circles inside a package:")
    any_circle = False
    for layer in LAYERS:
        for component in circles(graph, within=layer):
            any_circle = True
            print(f"  {layer}: {' <-> '.join(component)}")
    if not any_circle:
        print("  none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
