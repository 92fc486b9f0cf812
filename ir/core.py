"""The SSA core: values, operations, blocks, regions, and the op registry.

Every value has exactly one definition (an op result or a block argument) and keeps the list of
its uses, so rewrites can replace a value everywhere in O(uses). Ops are instances of one class
per op name; the class declares traits, verification and folding once (see ``ir/dialects``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from jitcore.ir.errors import IRError
from jitcore.ir.location import UNKNOWN, Location, describe
from jitcore.ir.types import Type

# Trait names an op class may declare.
PURE = "Pure"  # no side effects: removable when unused, mergeable by CSE
ELEMENTWISE = "Elementwise"  # tensor op applied per element, all shapes equal
COMMUTATIVE = "Commutative"
TERMINATOR = "Terminator"
ISOLATED = "IsolatedFromAbove"  # regions may not use values defined outside the op
NO_TERMINATOR = "NoTerminator"  # its single-block regions need no terminator


class Value:
    """An SSA value: a typed definition and the (op, operand index) pairs that use it, kept as
    an insertion-ordered dict's keys so that dropping a use is O(1) (a value with thousands of
    uses, an unrolled loop's input, made erasing them quadratic)."""

    __slots__ = ("type", "uses")

    def __init__(self, type: Type):
        self.type = type
        self.uses: dict[tuple[Operation, int], None] = {}

    def replace_all_uses_with(self, new: Value) -> None:
        for op, i in list(self.uses):
            op.set_operand(i, new)

    @property
    def owner(self):
        raise NotImplementedError


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: Operation, index: int):
        super().__init__(type)
        self.op = op
        self.index = index

    @property
    def owner(self) -> Operation:
        return self.op


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: Block, index: int):
        super().__init__(type)
        self.block = block
        self.index = index

    @property
    def owner(self) -> Block:
        return self.block


OP_REGISTRY: dict[str, type[Operation]] = {}


class Operation:
    """An operation ``dialect.op``: operands, typed results, attributes and regions.

    Subclasses set ``name`` (which registers them) and ``traits``, and override ``verify_op``
    and ``fold`` where they have rules or a folder. ``class AddOp(BinaryOp, commutative=True)``
    adds the commutative trait to the base's traits. ``arity = (operands, results)`` and the
    attributes declared with ``ir.opdef.attr`` are checked by ``verify_declared``, before
    ``verify_op``, which then holds only the op's own rules.
    """

    __slots__ = ("_operands", "results", "attributes", "regions", "parent", "loc")
    name: ClassVar[str] = ""
    traits: ClassVar[frozenset[str]] = frozenset()
    arity: ClassVar[tuple[int, int] | None] = None  # (operands, results); None: the op checks
    declared_attributes: ClassVar[tuple] = ()  # ir.opdef.attr declarations, collected by attr

    def __init_subclass__(cls, commutative: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        if commutative:
            cls.traits = cls.traits | {COMMUTATIVE}
        if "name" in cls.__dict__ and cls.name:
            if cls.name in OP_REGISTRY:
                raise IRError(f"op {cls.name} registered twice")
            OP_REGISTRY[cls.name] = cls

    def __init__(self, operands=(), result_types=(), attributes=None, regions=()):
        self._operands: list[Value] = []
        self.results = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: dict = dict(attributes or {})
        self.regions: list[Region] = []
        self.parent: Block | None = None
        self.loc: Location = UNKNOWN  # where in the user's code it came from (ir.location)
        mine = self._operands
        for v in operands:  # _append_operand, inline: kernels with thousands of operands are built
            if not isinstance(v, Value):
                raise IRError(f"operand of {self.op_name} must be a Value, got {type(v).__name__}")
            v.uses[self, len(mine)] = None
            mine.append(v)
        for r in regions:
            self.add_region(r)

    @classmethod
    def create(cls, name: str, operands=(), result_types=(), attributes=None, regions=()):
        """Instantiate the registered class for ``name`` (or a plain, unregistered op)."""
        op_cls = OP_REGISTRY.get(name)
        if op_cls is None:
            op = UnregisteredOp(operands, result_types, attributes, regions)
            op.unregistered_name = name
            return op
        return op_cls(operands, result_types, attributes, regions)

    @property
    def op_name(self) -> str:
        return self.name

    # -- operands -------------------------------------------------------------------------
    @property
    def operands(self) -> tuple[Value, ...]:
        return tuple(self._operands)

    def _append_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise IRError(f"operand of {self.op_name} must be a Value, got {type(v).__name__}")
        v.uses[self, len(self._operands)] = None
        self._operands.append(v)

    def set_operand(self, i: int, v: Value) -> None:
        old = self._operands[i]
        del old.uses[self, i]
        v.uses[self, i] = None
        self._operands[i] = v

    def drop_operands(self) -> None:
        for i, v in enumerate(self._operands):
            del v.uses[self, i]
        self._operands = []

    # -- results, regions, placement ------------------------------------------------------
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise IRError(f"{self.op_name} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def result_types(self) -> list[Type]:
        return [r.type for r in self.results]

    def add_region(self, region: Region) -> Region:
        region.parent = self
        self.regions.append(region)
        return region

    def has_trait(self, trait: str) -> bool:
        return trait in self.traits

    @property
    def commutes(self) -> bool:
        """Its two operands may be swapped without changing a bit of the result: Commutative,
        and not on complex numbers, whose products (fused multiply-adds on the parts, as in
        NumPy's loop) can differ in the last bit or the sign of a zero part when swapped."""
        operands = self._operands
        if COMMUTATIVE not in self.traits or len(operands) != 2:
            return False
        for v in operands:  # (a loop: canonicalize and CSE ask every op)
            t = getattr(v.type, "element", v.type)
            if getattr(t, "is_complex", False):
                return False
        return True

    @property
    def parent_op(self) -> Operation | None:
        if self.parent is None or self.parent.parent is None:
            return None
        return self.parent.parent.parent

    def erase(self) -> None:
        """Remove this op from its block; its results must have no uses left."""
        for r in self.results:
            if r.uses:
                raise IRError(f"cannot erase {self.op_name}: a result still has uses")
        for region in self.regions:
            for block in region.blocks:
                for op in reversed(list(block.ops)):
                    op.drop_all_references()
        self.drop_operands()
        if self.parent is not None:
            del self.parent.ops[self.parent.position(self)]
            self.parent = None

    def drop_all_references(self) -> None:
        """Forget operands here and in nested ops (used when erasing whole regions)."""
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    op.drop_all_references()
        self.drop_operands()

    def walk(self) -> Iterator[Operation]:
        """This op and every op nested in it, in pre-order."""
        yield self
        if self.regions:
            yield from _nested(self)

    def clone(self, mapping: dict[Value, Value]) -> Operation:
        """A detached copy; operands are looked up in ``mapping`` (kept as they are if absent),
        and the copy's results and nested block arguments are added to it."""
        new = type(self)(
            [mapping.get(v, v) for v in self._operands], self.result_types, self.attributes
        )
        new.loc = self.loc
        if isinstance(self, UnregisteredOp):
            new.unregistered_name = self.unregistered_name
        for region in self.regions:
            new_region = new.add_region(Region())
            for block in region.blocks:
                new_block = new_region.append(Block([a.type for a in block.args]))
                mapping.update(zip(block.args, new_block.args))
                for op in block.ops:
                    new_block.append(op.clone(mapping))
        mapping.update(zip(self.results, new.results))
        return new

    # -- hooks for op classes -------------------------------------------------------------
    def verify_declared(self) -> None:
        """Check the declared ``arity`` and attributes (see ``ir.opdef``)."""
        arity = self.arity
        if arity is not None and (len(self._operands) != arity[0] or len(self.results) != arity[1]):
            self.fail(f"needs {arity[0]} operand(s) and {arity[1]} result(s)")
        for declared in self.declared_attributes:
            declared.check(self)

    def verify_op(self) -> None:
        """Check this op's own rules; raise ``VerificationError`` via ``self.fail``."""

    def fold(self, constants: list) -> list | None:
        """Given operand constants (an attribute or None each), return the results as
        attributes or existing Values, or None when this op does not fold."""
        return None

    def fail(self, message: str):
        from jitcore.ir.errors import VerificationError
        from jitcore.ir.printer import print_op

        where = f"\n  at {describe(self.loc)}" if self.loc.known else ""
        raise VerificationError(f"'{self.op_name}' op {message}{where}\n  {print_op(self)}")

    def __repr__(self) -> str:
        from jitcore.ir.printer import print_op

        return print_op(self)


def _nested(op: Operation) -> Iterator[Operation]:
    """The ops nested in ``op``, in pre-order. Each block's ops are a copy taken when the walk
    reaches it, and an op's regions are read after it was yielded, so a caller may rewrite the
    op it was given. An op without regions needs no generator of its own: most ops (scalar
    bodies' ``arith``) have none, and a generator per op was the most of a walk's cost."""
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.ops):
                yield inner
                if inner.regions:
                    yield from _nested(inner)


class UnregisteredOp(Operation):
    """An op whose name no dialect declares; it parses and prints but never verifies."""

    __slots__ = ("unregistered_name",)

    @property
    def op_name(self) -> str:
        return self.unregistered_name


class Block:
    """A list of ops with typed arguments; the last op is its terminator where one is needed."""

    __slots__ = ("args", "ops", "parent", "_hint")

    def __init__(self, arg_types=()):
        self.args = [BlockArgument(t, self, i) for i, t in enumerate(arg_types)]
        self.ops: list[Operation] = []
        self.parent: Region | None = None
        self._hint = 0  # where the last op looked up or inserted was (see ``position``)

    def position(self, op: Operation) -> int:
        """The index of ``op`` in ``ops``. Passes rewrite a block in order, inserting and
        erasing next to the op they are at, so the places around the last one looked up or
        inserted are tried first: a search of the whole block for each rewrite would make a
        pass over a long block quadratic."""
        ops, hint = self.ops, self._hint
        for i in (hint, hint + 1, hint - 1):
            if 0 <= i < len(ops) and ops[i] is op:
                self._hint = i
                return i
        # (searched by hand: a ValueError from list.index(op, lo, hi) formats its message with
        # repr(op), which prints the op and every region in it, a loop's whole body)
        near = next((i for i in range(max(hint - 64, 0), min(hint + 64, len(ops))) if ops[i] is op), None)
        self._hint = ops.index(op) if near is None else near
        return self._hint

    def add_arg(self, t: Type) -> BlockArgument:
        arg = BlockArgument(t, self, len(self.args))
        self.args.append(arg)
        return arg

    def append(self, op: Operation) -> Operation:
        return self.insert(len(self.ops), op)

    def insert(self, position: int, op: Operation) -> Operation:
        if op.parent is not None:
            raise IRError(f"{op.op_name} is already in a block")
        op.parent = self
        self.ops.insert(position, op)
        self._hint = position
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.position(anchor), op)

    @property
    def terminator(self) -> Operation | None:
        if self.ops and self.ops[-1].has_trait(TERMINATOR):
            return self.ops[-1]
        return None


class Region:
    """A list of blocks owned by an op."""

    __slots__ = ("blocks", "parent")

    def __init__(self, blocks=()):
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        for b in blocks:
            self.append(b)

    def append(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def block(self) -> Block:
        """The entry block; most regions here have exactly one."""
        return self.blocks[0]
