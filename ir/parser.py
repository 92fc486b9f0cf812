"""Parser for the MLIR generic form that ``ir.printer`` writes.

A hand-written recursive-descent parser over the raw text: the grammar is small, and parsing
characters directly handles ``tensor<4x8xf32>`` without a lexer mode switch.
"""

from __future__ import annotations

import json
import re

import numpy as np

from jitcore.ir.attributes import AffineExpr, AffineMap, DenseAttr, ScalarAttr, SymbolRef, numpy_dtype
from jitcore.ir.core import ISOLATED, Block, Operation, Region, Value
from jitcore.ir.errors import ParseError
from jitcore.ir.location import UNKNOWN, FileLineCol, Location, fuse
from jitcore.ir.types import _SCALAR_NAMES, FunctionType, ScalarType, TensorType, Type

_SPACE = re.compile(r"(\s|//[^\n]*)*")
_NUMBER = re.compile(r"-?(0x[0-9a-fA-F]+|\d+\.\d*(e[-+]?\d+)?|\d+e[-+]?\d+|\d+)")
_IDENT = re.compile(r"[A-Za-z_][\w.$]*")
_VALUE_ID = re.compile(r"%[\w$.#]+")
_STRING = re.compile(r'"(\\.|[^"\\])*"')
_ELEMENT = r"complex<f\d+>|[a-z]+\d*"
_TENSOR = re.compile(rf"tensor<((?:\d+x)*)({_ELEMENT})>")
_SCALAR_TYPE = re.compile(_ELEMENT)


def parse(text: str) -> Operation:
    """Parse one top-level op (usually ``builtin.module``) and everything nested in it."""
    parser = _Parser(text)
    op = parser.operation()
    parser.skip()
    if parser.pos != len(text):
        parser.error("expected end of input")
    return op


def parse_module(text: str) -> Operation:
    """A ``builtin.module``, or bare top-level ops (``func.func``) wrapped in one, as mlir-opt
    reads a file. Line numbers in errors stay those of ``text``."""
    if not re.sub(r"(\s|//[^\n]*)*", "", text, count=1).startswith('"builtin.module"'):
        text = '"builtin.module"() ({' + text + "\n}) : () -> ()"
    return parse(text)


def parse_type(text: str) -> Type:
    parser = _Parser(text)
    t = parser.type()
    parser.skip()
    if parser.pos != len(text):
        parser.error("expected end of type")
    return t


def parse_attribute(text: str):
    parser = _Parser(text)
    a = parser.attribute()
    parser.skip()
    if parser.pos != len(text):
        parser.error("expected end of attribute")
    return a


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.scopes: list[tuple[dict[str, Value], bool]] = [({}, True)]

    # -- low-level ------------------------------------------------------------------------
    def error(self, message: str):
        line = self.text.count("\n", 0, self.pos) + 1
        col = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        snippet = self.text[self.pos : self.pos + 30].split("\n")[0]
        raise ParseError(f"line {line}, column {col}: {message} (at {snippet!r})")

    def skip(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()

    def peek(self, s: str) -> bool:
        self.skip()
        return self.text.startswith(s, self.pos)

    def accept(self, s: str) -> bool:
        if self.peek(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str) -> None:
        if not self.accept(s):
            self.error(f"expected {s!r}")

    def match(self, pattern: re.Pattern, what: str) -> str:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if not m:
            self.error(f"expected {what}")
        self.pos = m.end()
        return m.group(0)

    def comma_list(self, item, close: str) -> list:
        items = []
        if self.accept(close):
            return items
        while True:
            items.append(item())
            if self.accept(close):
                return items
            self.expect(",")

    # -- values ---------------------------------------------------------------------------
    def lookup(self, name: str) -> Value:
        for names, isolated in reversed(self.scopes):
            if name in names:
                return names[name]
            if isolated:
                break
        self.error(f"use of undefined value {name}")

    def define(self, name: str, value: Value) -> None:
        names = self.scopes[-1][0]
        if name in names:
            self.error(f"redefinition of value {name}")
        names[name] = value

    # -- operations -----------------------------------------------------------------------
    def operation(self) -> Operation:
        result_names = []
        if self.peek("%"):
            result_names = [self.match(_VALUE_ID, "a value name")]
            while self.accept(","):
                result_names.append(self.match(_VALUE_ID, "a value name"))
            self.expect("=")
        start = self.pos
        name = json.loads(self.match(_STRING, "an op name in quotes"))
        self.expect("(")
        operand_names = self.comma_list(lambda: self.match(_VALUE_ID, "a value name"), ")")
        operands = [self.lookup(n) for n in operand_names]
        region_texts_at = None
        if self.peek("("):
            region_texts_at = self.pos
            self.skip_balanced()
        attributes = self.attribute_dict() if self.peek("{") else {}
        self.expect(":")
        signature = self.type()
        if not isinstance(signature, FunctionType):
            self.error("expected the op's function type")
        if len(signature.inputs) != len(operands):
            self.pos = start
            self.error(f"{name} has {len(operands)} operands but its type lists {len(signature.inputs)}")
        for v, t in zip(operands, signature.inputs):
            if v.type != t:
                self.pos = start
                self.error(f"operand type mismatch in {name}: value has {v.type}, signature says {t}")
        if len(result_names) != len(signature.results):
            self.pos = start
            self.error(f"{name} names {len(result_names)} results but its type has {len(signature.results)}")
        op = Operation.create(name, operands, signature.results, attributes)
        at = self.pos
        if self.peek("loc("):
            op.loc = self.location()
        else:
            self.pos = at  # errors about this op point at its end, not at the next line
        if region_texts_at is not None:
            end = self.pos
            self.pos = region_texts_at
            self.regions(op)
            self.pos = end
        for n, r in zip(result_names, op.results):
            self.define(n, r)
        return op

    def skip_balanced(self) -> None:
        """Skip a parenthesised region list; regions are parsed after the op exists."""
        depth = 0
        while True:
            self.skip()
            if self.pos >= len(self.text):
                self.error("unbalanced parentheses in regions")
            c = self.text[self.pos]
            if c == '"':
                self.match(_STRING, "a string")
                continue
            self.pos += 1
            if c in "({[":
                depth += 1
            elif c in ")}]":
                depth -= 1
                if depth == 0:
                    return

    def regions(self, op: Operation) -> None:
        self.expect("(")
        self.scopes.append(({}, op.has_trait(ISOLATED)))
        while True:
            op.add_region(self.region())
            if self.accept(")"):
                break
            self.expect(",")
        self.scopes.pop()

    def region(self) -> Region:
        self.expect("{")
        region = Region()
        self.scopes.append(({}, False))
        block = None
        while not self.accept("}"):
            if self.peek("^"):
                block = region.append(self.block_label())
            elif block is None:
                block = region.append(Block())
            if self.peek("}") or self.peek("^"):
                continue
            block.append(self.operation())
        if not region.blocks:
            region.append(Block())  # `{}` is one empty block, as the printer writes it
        self.scopes.pop()
        return region

    def block_label(self) -> Block:
        self.match(re.compile(r"\^[\w$.]+"), "a block label")
        block = Block()
        if self.accept("("):

            def arg():
                name = self.match(_VALUE_ID, "a block argument")
                self.expect(":")
                self.define(name, block.add_arg(self.type()))

            self.comma_list(arg, ")")
        self.expect(":")
        return block

    # -- locations ------------------------------------------------------------------------
    def location(self) -> Location:
        """``loc(unknown)``, ``loc("f.py":3:5)`` or ``loc(fused["f.py":3:5, ...])``."""
        self.expect("loc(")
        if self.accept("unknown"):
            loc = UNKNOWN
        elif self.accept("fused"):
            self.expect("[")
            loc = fuse(*self.comma_list(self.file_line_col, "]"))
        else:
            loc = self.file_line_col()
        self.expect(")")
        return loc

    def file_line_col(self) -> FileLineCol:
        file = json.loads(self.match(_STRING, 'a location like "file.py":3:5'))
        self.expect(":")
        line = int(self.match(re.compile(r"\d+"), "a line number"))
        self.expect(":")
        column = int(self.match(re.compile(r"\d+"), "a column number"))
        return FileLineCol(file, line, column)

    # -- types ----------------------------------------------------------------------------
    def type(self) -> Type:
        self.skip()
        if self.peek("tensor<"):
            text = self.match(_TENSOR, "a tensor type like tensor<4x8xf32>")
            m = _TENSOR.fullmatch(text)
            dims = tuple(int(d) for d in m.group(1).split("x") if d)
            return TensorType(dims, self.scalar(m.group(2)))
        if self.accept("("):
            inputs = self.comma_list(self.type, ")")
            self.expect("->")
            if self.accept("("):
                results = self.comma_list(self.type, ")")
            else:
                results = [self.type()]
            return FunctionType(tuple(inputs), tuple(results))
        return self.scalar(self.match(_SCALAR_TYPE, "a type"))

    def scalar(self, name: str) -> ScalarType:
        if name not in _SCALAR_NAMES:
            self.error(f"unknown element type {name!r}")
        return ScalarType(name)

    # -- attributes -----------------------------------------------------------------------
    def attribute_dict(self) -> dict:
        self.expect("{")
        attrs = {}

        def entry():
            key = self.match(_IDENT, "an attribute name")
            self.expect("=")
            if key in attrs:
                self.error(f"attribute {key} given twice")
            attrs[key] = self.attribute()

        self.comma_list(entry, "}")
        return attrs

    def attribute(self):
        self.skip()
        if self.peek('"'):
            return json.loads(self.match(_STRING, "a string"))
        if self.accept("["):
            return tuple(self.comma_list(self.attribute, "]"))
        if self.accept("@"):
            return SymbolRef(self.match(_IDENT, "a symbol name"))
        if self.peek("(") and _NUMBER.match(self.text, self.pos + 1):
            return self.typed_scalar(self.complex_pair())
        if self.peek("dense_resource<"):
            self.error("this constant was elided when the IR was printed (dense_resource<__elided__>), "
                       "so its data is not in the text; print it in full (dump-ir "
                       "--print-large-constants, or print_op without elide_larger_than) to parse it")
        if self.accept("dense<"):
            body = self.dense_body()
            self.expect(">")
            self.expect(":")
            t = self.type()
            if not isinstance(t, TensorType):
                self.error("dense attributes need a tensor type")
            return DenseAttr(self.dense_array(body, t), t)
        if self.accept("affine_map<"):
            return self.affine_map()
        if self.peek("true") or self.peek("false"):
            value = self.match(re.compile(r"true|false"), "a boolean") == "true"
            return self.typed_scalar(value) if self.peek(":") and not self.peek("::") else value
        if _NUMBER.match(self.text, self.pos):
            token = self.match(_NUMBER, "a number")
            if self.peek(":"):
                return self.typed_scalar(token)
            if token.lstrip("-").startswith("0x"):
                return int(token, 16)
            return float(token) if any(c in token for c in ".e") else int(token)
        return self.type()

    def typed_scalar(self, token) -> ScalarAttr:
        self.expect(":")
        t = self.type()
        if not isinstance(t, ScalarType):
            self.error("a typed scalar needs a scalar type")
        return ScalarAttr(self.scalar_value(token, t), t)

    def complex_pair(self) -> tuple[str, str]:
        """``(re, im)``: a complex number's two float tokens."""
        self.expect("(")
        real = self.match(_NUMBER, "a number")
        self.expect(",")
        imag = self.match(_NUMBER, "a number")
        self.expect(")")
        return real, imag

    def scalar_value(self, token, t: ScalarType):
        if t.is_complex != isinstance(token, tuple):
            self.error(f"{t} needs {'a (re, im) pair' if t.is_complex else 'a single value'}")
        if t.is_complex:
            return complex(*(self.scalar_value(part, t.component) for part in token))
        if isinstance(token, bool):
            return token
        if token.lstrip("-").startswith("0x"):
            bits = int(token, 16)
            if t.is_float:
                width = t.bitwidth // 8
                return np.array(bits, dtype=f"u{width}").view(numpy_dtype(t))[()]
            return bits
        if t.is_float:
            return float(token)
        if any(c in token for c in ".e"):
            self.error(f"{token} is not an integer, but the type is {t}")
        return int(token)

    def dense_body(self):
        self.skip()
        if self.peek('"'):
            return bytes.fromhex(json.loads(self.match(_STRING, "hex data"))[2:])
        if self.accept("["):
            return self.comma_list(self.dense_body, "]")
        if self.peek("true") or self.peek("false"):
            return self.match(re.compile(r"true|false"), "a boolean") == "true"
        if self.peek("("):
            return self.complex_pair()
        return self.match(_NUMBER, "a number")

    def dense_array(self, body, t: TensorType) -> np.ndarray:
        dtype = numpy_dtype(t.element)
        if isinstance(body, bytes):
            if len(body) != t.size * dtype.itemsize:
                self.error(f"dense hex data has {len(body)} bytes, {t} needs {t.size * dtype.itemsize}")
            return np.frombuffer(body, dtype=dtype).reshape(t.shape)

        def convert(b):
            if isinstance(b, list):
                return [convert(x) for x in b]
            return self.scalar_value(b, t.element)

        arr = np.array(convert(body), dtype=dtype)
        if arr.size == 0 and t.size == 0:
            return arr.reshape(t.shape)  # `[]` cannot spell the dims after the first zero one
        if arr.shape != t.shape and arr.ndim != 0:
            self.error(f"dense literal has shape {arr.shape}, type says {t.shape}")
        return arr

    def affine_map(self) -> AffineMap:
        self.expect("(")
        dims = self.comma_list(lambda: self.match(re.compile(r"d\d+"), "a dim like d0"), ")")
        if dims != [f"d{i}" for i in range(len(dims))]:
            self.error("affine map dims must be d0, d1, ... in order")
        self.expect("->")
        self.expect("(")

        def expr() -> AffineExpr:
            if not self.peek("d"):
                return AffineExpr(None, 1, int(self.match(_NUMBER, "a constant")))
            dim = int(self.match(re.compile(r"d\d+"), "a dim")[1:])
            scale = int(self.match(_NUMBER, "a scale")) if self.accept("*") else 1
            offset = int(self.match(_NUMBER, "an offset")) if self.accept("+") else 0
            if dim >= len(dims):
                self.error(f"d{dim} is not a dim of this map")
            return AffineExpr(dim, scale, offset)

        exprs = self.comma_list(expr, ")")
        self.expect(">")
        return AffineMap(len(dims), tuple(exprs))
