"""An llvmlite module's text, byte for byte what ``str(module)`` gives, in a third of the time.

The text is what the backend hashes (the symbol), keeps (``plan.llvm_ir``) and gives LLVM to
parse, and printing it was over a third of our LLVM IR emission (docs/performance.md, "The
test suite's time, session 36"): llvmlite formats each instruction through nested
``str.format`` calls, each operand's type and reference through a cached property, and a
``rstrip`` of every line. Here the common instructions are written with one f-string each from
references and type strings looked up once per value; every other instruction, and any with
metadata or flags that only llvmlite knows how to spell, is llvmlite's own ``str(instr)``.
``tests/codegen/test_llvm_text.py`` compares the two on the modules of many kernels.
"""

from __future__ import annotations

import math

from llvmlite import ir as ll
from llvmlite.ir import instructions as li
from llvmlite.ir import types as lt


def module_text(module: ll.Module) -> str:
    """``str(module)``: the header, the global values (functions with bodies printed here) and
    the metadata, as llvmlite lays them out."""
    lines = [f'; ModuleID = "{module.name}"', f'target triple = "{module.triple}"',
             f'target datalayout = "{module.data_layout}"', ""]
    lines += [it.get_declaration() for it in module.get_identified_types().values()]
    shared = _Shared()
    lines += [function_text(value, shared) for value in module.globals.values()]
    lines += module._get_metadata_lines()
    return "\n".join(lines)


def function_text(value: ll.GlobalValue, shared: _Shared | None = None) -> str:
    """``str(value)`` of a module's global value: a function with a body written here, any
    other (a declaration, a global variable) by llvmlite. ``shared``: the type and constant
    texts of the module's functions printed so far."""
    if type(value) is not ll.Function or not value.blocks:
        return str(value)
    return _function(value, _Shared() if shared is None else shared)


class _Shared:
    """The text of a module's references and types, each computed once: every value and type
    by its id, each entry holding its object so that no id is reused while we print (a type
    made on the fly could otherwise be freed and its id given to another)."""

    __slots__ = ("refs", "types", "alive", "constants")

    def __init__(self):
        self.refs: dict[int, str] = {}
        self.types: dict[int, str] = {}
        self.alive: list = []
        # a number constant's text by its type and value: the emitters make a new Constant for
        # each use of 0 or 1.0, and llvmlite formats each (a float through struct, twice)
        self.constants: dict[tuple, str] = {}

    def ref(self, value) -> str:
        if type(value) is ll.Constant:
            number = value.constant
            kind = type(number)
            # the value's type in the key: True is "true" where 1 is "1"; its sign too: -0.0 ==
            # 0.0; NaNs (of any payload) are left to llvmlite
            if kind is int or kind is bool or (kind is float and number == number):
                key = (id(value.type), kind, number, kind is float and math.copysign(1.0, number) < 0)
                text = self.constants.get(key)
                if text is None:
                    text = self.constants[key] = value.get_reference()
                self.refs[id(value)] = text
                self.alive.append(value)  # (and its type, whose id is in the key)
                return text
        text = self.refs[id(value)] = value.get_reference()
        self.alive.append(value)
        return text

    def type(self, typ: lt.Type) -> str:
        text = self.types[id(typ)] = str(typ)
        self.alive.append(typ)
        return text


def _function(fn: ll.Function, shared: _Shared) -> str:
    """``str(fn)`` for a function with a body."""
    buf: list[str] = []
    fn.descr_prototype(buf)
    buf.append("{\n")
    refs = shared.refs
    shared.alive.append(fn)  # (its arguments, blocks and instructions live as long as it does)
    # the function's own values by name, written out once: arguments, blocks, instructions
    for value in fn.args:
        refs[id(value)] = _local_ref(value)
    for block in fn.blocks:
        refs[id(block)] = _local_ref(block)
        for instr in block.instructions:  # (``_local_ref``, written in: the most values)
            name = instr._name
            refs[id(instr)] = instr.get_reference() if "\\" in name or '"' in name else f'%"{name}"'
    get_ref, get_type = refs.get, shared.types.get

    def ref(value) -> str:
        return get_ref(id(value)) or shared.ref(value)

    def ty(typ) -> str:
        return get_type(id(typ)) or shared.type(typ)

    writers, void = _WRITERS, lt.VoidType
    for block in fn.blocks:
        buf.append(f"{block._format_name()}:\n")
        for instr in block.instructions:
            write = writers.get(type(instr))
            text = None if write is None or instr.metadata else write(instr, ref, ty)
            if text is None:
                buf.append(f"  {instr}\n")  # llvmlite's own spelling
            elif type(instr.type) is void:
                buf.append(f"  {text.rstrip()}\n")  # as llvmlite strips its lines
            else:
                buf.append(f"  {refs[id(instr)]} = {text.rstrip()}\n")
    buf.append("}\n")
    return "".join(buf)


def _local_ref(value) -> str:
    """``value.get_reference()`` of an argument, block or instruction: ``%"name"``."""
    name = value._name
    if "\\" in name or '"' in name:
        return value.get_reference()
    return f'%"{name}"'


# One writer per instruction class (exactly that class: a subclass may print differently),
# each giving what the class's ``descr`` gives with no metadata; None hands the instruction
# back to llvmlite. ``ref`` and ``ty`` give a value's reference and a type's text.

def _plain(instr, ref, ty) -> str:  # binary operators: ``Instruction.descr``
    opname = instr.opname
    if instr.flags:
        opname = " ".join([opname, *instr.flags])
    return f"{opname} {ty(instr.type)} {', '.join([ref(op) for op in instr.operands])}"


def _terminator(instr, ref, ty) -> str:  # br, conditional br: ``Terminator.descr``
    return f"{instr.opname} {', '.join([f'{ty(op.type)} {ref(op)}' for op in instr.operands])}"


def _ret(instr, ref, ty) -> str:
    if instr.operands:
        value = instr.operands[0]
        return f"{instr.opname} {ty(value.type)} {ref(value)}"
    return instr.opname


def _select(instr, ref, ty) -> str:
    cond, lhs, rhs = instr.operands
    return (f"select {' '.join(instr.flags)} {ty(cond.type)} {ref(cond)}, {ty(lhs.type)} {ref(lhs)}, "
            f"{ty(rhs.type)} {ref(rhs)}")


def _compare(instr, ref, ty) -> str:
    flags = "".join([" " + flag for flag in instr.flags])
    lhs, rhs = instr.operands
    return f"{instr.opname}{flags} {instr.op} {ty(lhs.type)} {ref(lhs)}, {ref(rhs)}"


def _cast(instr, ref, ty) -> str:
    value = instr.operands[0]
    return f"{instr.opname} {ty(value.type)} {ref(value)} to {ty(instr.type)}"


def _load(instr, ref, ty) -> str:
    ptr = instr.operands[0]
    align = "" if instr.align is None else f", align {instr.align}"
    return f"load {ty(instr.type)}, {ty(ptr.type)} {ref(ptr)}{align}"


def _store(instr, ref, ty) -> str:
    val, ptr = instr.operands
    align = "" if instr.align is None else f", align {instr.align}"
    return f"store {ty(val.type)} {ref(val)}, {ty(ptr.type)} {ref(ptr)}{align}"


def _gep(instr, ref, ty) -> str:
    op = "getelementptr inbounds" if instr.inbounds else "getelementptr"
    indices = ", ".join([f"{ty(i.type)} {ref(i)}" for i in instr.indices])
    ptr = instr.pointer
    return f"{op} {ty(instr.source_etype)}, {ty(ptr.type)} {ref(ptr)}, {indices}"


def _phi(instr, ref, ty) -> str:
    incoming = ", ".join([f"[{ref(v)}, {ref(b)}]" for v, b in instr.incomings])
    return f"phi {' '.join(instr.flags)} {ty(instr.type)} {incoming}"


def _elements(instr, ref, ty) -> str:  # extractelement, insertelement, shufflevector
    return f"{instr.opname} {', '.join([f'{ty(op.type)} {ref(op)}' for op in instr.operands])}"


def _extract_value(instr, ref, ty) -> str:
    agg = instr.aggregate
    return f"extractvalue {ty(agg.type)} {ref(agg)}, {', '.join([str(i) for i in instr.indices])}"


def _insert_value(instr, ref, ty) -> str:
    agg, value = instr.aggregate, instr.value
    return (f"insertvalue {ty(agg.type)} {ref(agg)}, {ty(value.type)} {ref(value)}, "
            f"{', '.join([str(i) for i in instr.indices])}")


def _alloca(instr, ref, ty) -> str:
    text = f"{instr.opname} {ty(instr.allocated_type)}"
    if instr.operands:
        count = instr.operands[0]
        text += f", {ty(count.type)} {ref(count)}"
    return text if instr.align is None else f"{text}, align {instr.align}"


def _call(instr, ref, ty) -> str | None:
    callee = instr.callee
    if type(callee) is not ll.Function or instr.arg_attributes or instr.attributes or instr.fastmath:
        return None
    fnty = callee.function_type
    called = f"{ty(fnty if fnty.var_arg else fnty.return_type)} {ref(callee)}"
    if instr.cconv:
        called = f"{instr.cconv} {called}"
    tail = f"{instr.tail} " if instr.tail else ""
    args = ", ".join([f"{ty(a.type)} {ref(a)}" for a in instr.operands[1:]])
    return f"{tail}{instr.opname} {called}({args})"


_WRITERS = {
    li.Instruction: _plain,
    li.Branch: _terminator,
    li.ConditionalBranch: _terminator,
    li.Ret: _ret,
    li.SelectInstr: _select,
    li.ICMPInstr: _compare,
    li.FCMPInstr: _compare,
    li.CastInstr: _cast,
    li.LoadInstr: _load,
    li.StoreInstr: _store,
    li.GEPInstr: _gep,
    li.PhiInstr: _phi,
    li.ExtractElement: _elements,
    li.InsertElement: _elements,
    li.ShuffleVector: _elements,
    li.CallInstr: _call,
    li.ExtractValue: _extract_value,
    li.InsertValue: _insert_value,
    li.AllocaInstr: _alloca,
}
