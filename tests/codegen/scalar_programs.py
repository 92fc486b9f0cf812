"""A small writer of array-level IR text with ``scf`` loops, for the scalar-loop tests.

``Program`` appends ops to a function body and returns the names of their results; loops and
branches take Python callables that write their regions. Every value is a 0-d tensor unless it
is an argument array, so what the writer builds is the scalar work that ``kernelize`` turns
into one 0-d kernel (``passes/kernelize/control.py``).
"""

from __future__ import annotations

import math
import struct

COMPARES = ("eq", "ne", "lt", "le", "gt", "ge")


def scalar(t: str) -> str:
    return f"tensor<{t}>"


def _results(types: list[str]) -> str:
    return types[0] if len(types) == 1 else f"({', '.join(types)})"


class Program:
    def __init__(self, args: list[str]):
        """``args``: the function's argument types, as IR text (``tensor<8xf64>``)."""
        self.types: dict[str, str] = {}
        self.args = []
        for i, t in enumerate(args):
            self.args.append(f"%arg{i}")
            self.types[f"%arg{i}"] = t
        self.lines: list[str] = []
        self.count = 0
        self.depth = 2

    def _fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def _emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def op(self, name: str, operands: list[str], result: str, attrs: str = "") -> str:
        r = self._fresh()
        types = ", ".join(self.types[o] for o in operands)
        attrs = f" {{{attrs}}}" if attrs else ""
        self._emit(f'{r} = "{name}"({", ".join(operands)}){attrs} : ({types}) -> {result}')
        self.types[r] = result
        return r

    def const(self, value, t: str) -> str:
        r = self._fresh()
        if isinstance(value, bool):
            text = str(value).lower()
        elif isinstance(value, float) and not math.isfinite(value):  # as the printer: its bits
            text = f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"
        else:
            text = repr(value)
        self._emit(f'{r} = "array.constant"() {{value = dense<{text}> : tensor<{t}>}} : () -> tensor<{t}>')
        self.types[r] = scalar(t)
        return r

    def binary(self, kind: str, a: str, b: str) -> str:
        return self.op(f"array.{kind}", [a, b], scalar("i1") if kind in COMPARES else self.types[a])

    def convert(self, a: str, t: str) -> str:
        return self.op("array.convert", [a], scalar(t))

    def select(self, c: str, a: str, b: str) -> str:
        return self.op("array.select", [c, a, b], self.types[a])

    def _element(self, x: str) -> str:
        return self.types[x].split("x")[-1].rstrip(">")

    def get(self, x: str, *indices: str) -> str:
        """``x[i, ...]``: an element read."""
        if len(indices) == 1:
            return self.op("array.gather", [x, *indices], scalar(self._element(x)), "axis = 0")
        axes = ", ".join(str(a) for a in range(len(indices)))
        return self.op("array.gather_nd", [x, *indices], scalar(self._element(x)),
                       f"axes = [{axes}], position = 0")

    def set(self, x: str, value: str, *indices: str, mode: str = "set") -> str:
        """``x`` with ``x[i, ...]`` written (``mode`` as ``np.ufunc.at``: add, max, ...)."""
        axes = ", ".join(str(a) for a in range(len(indices)))
        return self.op("array.scatter_nd", [x, value, *indices], self.types[x],
                       f'axes = [{axes}], mode = "{mode}", position = 0')

    def _region(self, args: list[tuple[str, str]], write, terminator: str) -> None:
        if args:
            self._emit(f"^bb0({', '.join(f'{a}: {t}' for a, t in args)}):")
        self.depth += 1
        for a, t in args:
            self.types[a] = t
        out = write(*[a for a, _ in args])
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        self._emit(f'"{terminator}"({", ".join(out)}) : ({", ".join(self.types[o] for o in out)}) -> ()')
        self.depth -= 1

    def _open(self, name: str, operands: list[str], count: int) -> list[str]:
        results = [self._fresh() for _ in range(count)]
        lhs = f"{', '.join(results)} = " if results else ""
        self._emit(f'{lhs}"{name}"({", ".join(operands)}) ({{')
        return results

    def _close(self, operands: list[str], results: list[str], types: list[str]) -> list[str]:
        ins = ", ".join(self.types[o] for o in operands)
        self._emit(f"}}) : ({ins}) -> {_results(types) if types else '()'}")
        for r, t in zip(results, types):
            self.types[r] = t
        return results

    def for_(self, lb: str, ub: str, step: str, inits: list[str], body) -> list[str]:
        """``scf.for``: ``body(i, *carried)`` returns the next carried values."""
        types = [self.types[v] for v in inits]
        operands = [lb, ub, step, *inits]
        results = self._open("scf.for", operands, len(inits))
        args = [(self._fresh(), scalar("i64"))] + [(self._fresh(), t) for t in types]
        self._region(args, body, "scf.yield")
        return self._close(operands, results, types)

    def while_(self, inits: list[str], cond, body) -> list[str]:
        """``scf.while``: ``cond(*carried)`` returns an i1, ``body(*carried)`` the next values."""
        types = [self.types[v] for v in inits]
        results = self._open("scf.while", inits, len(inits))
        self._region([(self._fresh(), t) for t in types], cond, "scf.condition")
        self._emit("}, {")
        self._region([(self._fresh(), t) for t in types], body, "scf.yield")
        return self._close(inits, results, types)

    def if_(self, c: str, then, other, types: list[str]) -> list[str]:
        results = self._open("scf.if", [c], len(types))
        self._region([], then, "scf.yield")
        self._emit("}, {")
        self._region([], other, "scf.yield")
        return self._close([c], results, types)

    def text(self, returns: list[str], name: str = "f") -> str:
        arg_list = ", ".join(f"{a}: {self.types[a]}" for a in self.args)
        ins = ", ".join(self.types[a] for a in self.args)
        outs = _results([self.types[r] for r in returns])
        body = "\n".join(self.lines)
        ret = f'"func.return"({", ".join(returns)}) : ({", ".join(self.types[r] for r in returns)}) -> ()'
        return ('"builtin.module"() ({\n  "func.func"() ({\n'
                f"  ^bb0({arg_list}):\n{body}\n    {ret}\n"
                f'  }}) {{function_type = ({ins}) -> {outs}, sym_name = "{name}"}} : () -> ()\n'
                "}) : () -> ()\n")
