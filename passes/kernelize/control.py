"""Kernel form of an array-level ``scf`` op whose regions hold only scalar work: one 0-d
``kernel.generic`` whose body runs the same ``scf`` op at the scalar level
(docs/control-flow.md §5, "Scalar loops become one kernel").

Scalar work is: ops on 0-d tensors (elementwise, select, convert, 0-d shape ops), 0-d
constants, element reads (``array.gather``/``gather_nd`` of 0-d indices giving a 0-d value, or
a one-element ``array.slice`` reshaped to 0-d, of an array or of a row gathered at a 0-d index),
element writes (``array.scatter_nd`` of a 0-d update at 0-d indices) and nested ``scf`` ops
made of the same. Anything else (an op on a non-0-d array) makes the rule return None: the loop
stays on the host (``codegen/host.py``) and ``kernelize`` converts its regions instead.

Each op of the regions is first kernelized by its own rule (a 0-d kernel: a gather's body is
``kernel.check_index`` and ``kernel.extract``, a scatter's ``kernel.insert``), and that
kernel's body is copied into the scalar ``scf`` op, its 0-d operands mapped to scalars. The
arrays the op touches are followed as *variables*: a value, the scatters writing it, the loop
arguments and results carrying it and the branch results yielding it are one variable. A
variable that is only read is an indexed input of the kernel. One that is written or carried is
an indexed result that starts as a copy of the array the op was given, is written in place by
``kernel.insert`` and read back by ``kernel.extract_result``, so later reads see earlier writes
(a Gauss–Seidel sweep). The array as given stays the kernel's input, never written, so reading
it gives its original elements wherever that happens (a Jacobi step reading ``x`` while it
writes the copy it carries). In place is only right if no other older version of the array is
used after a newer one exists; the rule checks that, walking the regions in order, and
otherwise returns None (as it does when two carried values share one array, or a write is not
carried out).
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region, Value
from jitcore.ir.dialects import array, kernel, scf
from jitcore.ir.types import TensorType
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize import elementwise, index, shape
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter

_SCALAR_RULES = {**elementwise.RULES, **shape.RULES}
_LOOPS = (scf.ForOp, scf.WhileOp, scf.IfOp)
_SCALAR = AffineMap(0, ())


class _Refused(Exception):
    """The op is not scalar work: it stays on the host."""


def _is_array(v: Value) -> bool:
    """Whether ``v`` is an array (a variable), not a 0-d value that becomes a scalar."""
    return isinstance(v.type, TensorType) and v.type.rank > 0


def _rule(op: Operation):
    """The kernelize rule giving ``op``'s 0-d kernel, or None if ``op`` is not scalar work."""
    if isinstance(op, (array.GatherOp, array.GatherNdOp)):
        x, *indices = op.operands
        if op.result_type.rank == 0 and indices and not any(map(_is_array, indices)):
            return index.gather if isinstance(op, array.GatherOp) else index.gather_nd
        return None
    if isinstance(op, array.ScatterNdOp):
        x, *rest = op.operands
        if _is_array(x) and len(rest) > 1 and not any(map(_is_array, rest)):
            return index.scatter_nd
        return None
    for cls in type(op).__mro__:
        if cls in _SCALAR_RULES:
            values = [*op.operands, *op.results]
            if all(isinstance(v.type, TensorType) and v.type.rank == 0 for v in values):
                return _SCALAR_RULES[cls]
            return None
    return None


def _only_element_reads(view: Value) -> bool:
    """Whether every use of ``view`` (a non-0-d value) is a further step of an element read:
    a slice, a reshape, or a gather of it at a 0-d index."""
    return all(isinstance(u, array.SliceOp | array.ReshapeOp) or isinstance(u, array.GatherOp)
               and u.operands[0] is view and not _is_array(u.operands[1]) for u, _ in view.uses)


def _carried(op: Operation) -> list[tuple[Value, ...]]:
    """Per carried value of an ``scf`` op: the values that are one variable with it (the init,
    the block arguments, the yields and the result)."""
    if isinstance(op, scf.ForOp):
        yields = op.body.terminator.operands
        return [(init, op.body.args[k + 1], yields[k], op.results[k]) for k, init in enumerate(op.inits)]
    if isinstance(op, scf.WhileOp):
        yields = op.body.terminator.operands
        return [(init, op.cond.args[k], op.body.args[k], yields[k], op.results[k])
                for k, init in enumerate(op.operands)]
    then, other = op.then_block.terminator.operands, op.else_block.terminator.operands
    return [(r, then[k], other[k]) for k, r in enumerate(op.results)]


class _Variables:
    """Arrays as variables: union-find over array values (see the module docstring)."""

    def __init__(self):
        self.parent: dict[Value, Value] = {}

    def find(self, v: Value) -> Value:
        self.parent.setdefault(v, v)
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, *values: Value) -> None:
        roots = [self.find(v) for v in values]
        for r in roots[1:]:
            self.parent[r] = roots[0]


class _Analysis:
    """What the kernel needs: the values from outside the op, in first-use order, and for each
    variable its array (the outside value it starts from); raises ``_Refused``."""

    def __init__(self, top: Operation):
        self.top = top
        self.vars = _Variables()
        inside: set[Value] = set()
        for op in top.walk():
            for region in op.regions:
                for block in region.blocks:
                    inside.update(block.args)
            if op is not top:
                inside.update(op.results)
        self.outside: list[Value] = []
        # An element read written as views (``x[-1]``: a slice of one element, reshaped to 0-d;
        # ``d[i][j]``: a row gathered, then an element of it): the view's array and its
        # positions (None for an axis the view still spans).
        self.views: dict[Value, tuple[Value, list]] = {}
        seen: set[Value] = set()
        for op in top.walk():
            self._admit(op)
            for v in op.operands:
                if v not in inside and v not in seen:
                    seen.add(v)
                    self.outside.append(v)
        # Each variable starts from exactly one outside array.
        self.start: dict[Value, Value] = {}
        for v in self.outside:
            if _is_array(v):
                root = self.vars.find(v)
                if root in self.start:
                    raise _Refused("two arrays from outside are one variable")
                self.start[root] = v
        for v in list(self.vars.parent):
            if self.vars.find(v) not in self.start:
                raise _Refused("a variable does not start from an array given to the op")
        # The variables the op returns become the kernel's indexed results.
        self.result_of: dict[Value, int] = {}
        for k, r in enumerate(top.results):
            if _is_array(r):
                self.result_of[self.vars.find(r)] = k
        self.starts = set(self.start.values())
        current = {root: v for root, v in self.start.items()}
        self._versions([top], current)

    def _view(self, op: Operation) -> bool:
        """Record ``op``'s result as a view if it is one step of an element read (see
        ``views``); False if it is not such an op. A view's positions, per axis of its array:
        ``("free", offset, stride, extent)`` for an axis the view still spans, ``("const", c)``,
        or ``("checked", i, axis, extent, offset, stride)``: ``offset + stride * i`` with ``i``
        checked against ``extent`` as axis ``axis`` of the view it indexed."""
        x = op.operands[0] if op.operands else None
        if isinstance(op, array.GatherOp):
            if _is_array(op.operands[1]) or not (x in self.views or _is_array(op.result)):
                return False
        elif isinstance(op, array.SliceOp | array.ReshapeOp):
            if x not in self.views and not (
                    isinstance(op, array.SliceOp) and _only_element_reads(op.result)):
                return False
        else:
            return False
        base, positions = self.views.get(x, (x, [("free", 0, 1, n) for n in x.type.shape]))
        free = [k for k, p in enumerate(positions) if p[0] == "free"]
        positions = list(positions)
        if isinstance(op, array.GatherOp):
            _, offset, stride, extent = positions[free[op.axis]]
            positions[free[op.axis]] = ("checked", op.operands[1], op.axis, extent, offset, stride)
        elif isinstance(op, array.SliceOp):
            for k, start, step, n in zip(free, op.start, op.stride, op.result_type.shape):
                _, offset, stride, _ = positions[k]
                positions[k] = ("free", offset + stride * start, stride * step, n)
        else:  # a reshape may only add or drop axes of one element
            extents = [positions[k][3] for k in free]
            if [n for n in extents if n != 1] != [n for n in op.result_type.shape if n != 1] or (
                    any(n == 1 for n in op.result_type.shape)):
                raise _Refused("a reshape of a view that moves elements")
            for k in free:
                if positions[k][3] == 1:
                    positions[k] = ("const", positions[k][1])
        if _is_array(op.results[0]) and not _only_element_reads(op.results[0]):
            raise _Refused("a view of an array used as an array")
        self.views[op.results[0]] = (base, positions)
        return True

    def _admit(self, op: Operation) -> None:
        if self._view(op):
            return
        if isinstance(op, _LOOPS):
            if scf.is_scalar_level(op):
                raise _Refused("already scalar")
            distinct = set()
            for group in _carried(op):
                if _is_array(group[0]):
                    self.vars.union(*group)
                    root = self.vars.find(group[0])
                    if root in distinct:
                        raise _Refused("two carried values are one array")
                    distinct.add(root)
        elif isinstance(op, array.ScatterNdOp):
            if _rule(op) is None:
                raise _Refused(op.op_name)
            self.vars.union(op.operands[0], op.result)
        elif isinstance(op, array.ConstantOp):
            if op.result_type.rank:
                raise _Refused("an array constant")
        elif not isinstance(op, (scf.YieldOp, scf.ConditionOp)) and _rule(op) is None:
            raise _Refused(op.op_name)

    def _versions(self, ops, current: dict) -> None:
        """Walk ``ops`` in program order with the current version of each variable: every
        array operand must be its variable's current version (an older one would have been
        overwritten in place); a region may change a variable only if it carries it out."""
        find = self.vars.find
        for op in ops:
            for k, v in enumerate(op.operands):
                if v in self.views:
                    base = self.views[v][0]
                    if current[find(base)] is not base and base not in self.starts:
                        raise _Refused("an array read after a newer version of it exists")
                    continue
                if not _is_array(v) or current[find(v)] is v:
                    continue
                reads = isinstance(op, array.GatherOp | array.GatherNdOp) or (
                    bool(op.results) and op.results[0] in self.views)
                if k == 0 and reads and v in self.starts:
                    continue  # the array as given: the kernel's input, which it never writes
                raise _Refused("an array used after a newer version of it exists")
            if isinstance(op, array.ScatterNdOp):
                current[find(op.result)] = op.result
            elif isinstance(op, _LOOPS):
                groups = [g for g in _carried(op) if _is_array(g[0])]
                carried = {find(g[0]) for g in groups}
                if isinstance(op, scf.ForOp):
                    regions = [(op.body, 1)]
                elif isinstance(op, scf.WhileOp):
                    regions = [(op.cond, 0), (op.body, 0)]
                else:
                    regions = [(op.then_block, None), (op.else_block, None)]
                for block, first in regions:
                    inner = dict(current)
                    if first is not None:
                        for arg in block.args[first:]:
                            if _is_array(arg):
                                inner[find(arg)] = arg
                    entry = dict(inner)
                    self._versions(block.ops, inner)
                    for root, v in inner.items():
                        writes_cond = isinstance(op, scf.WhileOp) and block is op.cond
                        if v is not entry[root] and (root not in carried or writes_cond):
                            raise _Refused("an array written in a region is not carried out")
                for r in op.results:
                    if _is_array(r):
                        current[find(r)] = r


def convert(op: Operation) -> kernel.GenericOp | None:
    """``op`` (``scf.for``/``scf.while``/``scf.if``) as one 0-d kernel, or None if its regions
    hold more than scalar work."""
    if not op.results or scf.is_scalar_level(op):
        return None
    try:
        analysis = _Analysis(op)
    except _Refused:
        return None
    return _Converter(op, analysis).kernel


class _Converter:
    def __init__(self, top: Operation, analysis: _Analysis):
        self.analysis = analysis
        self.find = analysis.vars.find
        kb = self.kb = KernelBuilder(0)
        self.scalars: dict[Value, Value] = {}  # 0-d array-level value -> scalar in the body
        self.tensors: dict[Value, Value] = {}  # variable -> the indexed input it starts as
        for v in analysis.outside:
            if _is_array(v):
                self.tensors[self.find(v)] = kb.indexed_input(v)
            else:
                self.scalars[v] = kb.input(v, _SCALAR)
        self._ops([top], kb.body)
        results = top.results
        copies = [-1] * len(results)
        for root, k in analysis.result_of.items():
            copies[k] = next(i for i, (v, x) in enumerate(zip(kb.operands, kb.indexed))
                             if x and v is analysis.start[root])
        self.kernel = kb.finish(top, [r.type for r in results], [_SCALAR] * len(results), [],
                                [self.scalars[r] for r in results if not _is_array(r)], domain=(),
                                copy_inputs=copies,
                                indexed_results=[k for k, r in enumerate(results) if _is_array(r)])

    def _scalar(self, v: Value) -> Value:
        return self.scalars[v]

    def _ops(self, ops, block: Block) -> None:
        """Convert ``ops`` into scalar ops appended to ``block``."""
        builder = Builder(block)
        ops = list(ops)
        original = {id(op) for op in ops}
        for op in ops:
            if isinstance(op, _LOOPS):
                self._structured(op, builder)
            elif isinstance(op, scf.YieldOp):
                builder.create(scf.YieldOp, [self._scalar(v) for v in op.operands if not _is_array(v)])
            elif isinstance(op, scf.ConditionOp):
                builder.create(scf.ConditionOp, [self._scalar(op.operands[0])])
            elif op.results and op.results[0] in self.analysis.views:
                # A step of an element read: read where it becomes 0-d (here, or at a reshape).
                if op.results[0].type.rank == 0:
                    self.scalars[op.results[0]] = self._read_view(op.results[0], builder)
            elif isinstance(op, array.ConstantOp):
                value = op.value.array.reshape(-1)[0].item()
                self.scalars[op.result] = ComplexEmitter(builder).const(value, op.result_type.element)
            else:
                self._kernelized(op, builder, original)

    def _structured(self, op: Operation, builder: Builder) -> None:
        scalar_results = [r for r in op.results if not _is_array(r)]
        types = [r.type.element for r in scalar_results]

        def region(source: Block, leading=(), carries=True) -> Region:
            block = Block(leading + (tuple(types) if carries else ()))
            scalar_args = [a for a in source.args[len(leading):] if not _is_array(a)]
            self.scalars.update(zip(source.args[:len(leading)], block.args[:len(leading)]))
            self.scalars.update(zip(scalar_args, block.args[len(leading):]))
            self._ops(source.ops, block)
            return Region([block])

        if isinstance(op, scf.ForOp):
            bounds = [self._scalar(v) for v in op.operands[:3]]
            inits = [self._scalar(v) for v in op.inits if not _is_array(v)]
            iv = op.induction_variable.type.element
            new = builder.create(scf.ForOp, [*bounds, *inits], types, None, [region(op.body, (iv,))])
        elif isinstance(op, scf.WhileOp):
            inits = [self._scalar(v) for v in op.operands if not _is_array(v)]
            new = builder.create(scf.WhileOp, inits, types, None, [region(op.cond), region(op.body)])
        else:
            new = builder.create(scf.IfOp, [self._scalar(op.condition)], types, None,
                                 [region(op.then_block, carries=False),
                                  region(op.else_block, carries=False)])
        self.scalars.update(zip(scalar_results, new.results))

    def _kernelized(self, op: Operation, builder: Builder, original: set[int]) -> None:
        """``op`` kernelized by its own rule (in place, in the source region, which the pass
        then erases with the loop), and the bodies of the kernels it made (the ops before it
        that were not there) copied in, in order."""
        block = op.parent
        main = _rule(op)(op)
        end = block.ops.index(op)
        first = end
        while first > 0 and id(block.ops[first - 1]) not in original:
            first -= 1
        for k in block.ops[first:end]:
            self._inline(k, builder)
        for old, new in zip(op.results, main.results):
            if not _is_array(old):
                self.scalars[old] = self.scalars[new]

    def _read(self, source: Value, positions, element, builder: Builder) -> Value:
        """The element of ``source`` (the array as given, or a version of a variable) at
        ``positions`` (in range)."""
        root = self.find(source)
        if root in self.analysis.result_of and source not in self.analysis.starts:
            new = builder.create(kernel.ExtractResultOp, positions, [element],
                                 {"result": self.analysis.result_of[root]})
        else:
            new = builder.create(kernel.ExtractOp, [self.tensors[root], *positions], [element])
        return new.results[0]

    def _read_view(self, view: Value, builder: Builder) -> Value:
        base, positions = self.analysis.views[view]
        emit = ComplexEmitter(builder)
        at = []
        for p in positions:
            if p[0] != "checked":  # a constant, or an axis of one element left in the view
                at.append(emit.const(p[1], index_type))
                continue
            _, i, axis, extent, offset, stride = p
            position = builder.create(kernel.CheckIndexOp, [self._scalar(i)], [index_type],
                                      {"axis": axis, "size": extent}).results[0]
            if stride != 1:
                position = emit.op("arith.muli", position, emit.const(stride, index_type))
            if offset:
                position = emit.op("arith.addi", position, emit.const(offset, index_type))
            at.append(position)
        return self._read(base, at, base.type.element, builder)

    def _inline(self, k: kernel.GenericOp, builder: Builder) -> None:
        n_in = len(k.operands)
        mapping: dict[Value, Value] = {}
        tensors: dict[Value, Value] = {}  # an indexed body argument -> the array it reads
        for i, (v, arg) in enumerate(zip(k.operands, k.body.args)):
            if i in k.indexed:
                tensors[arg] = v
            else:
                mapping[arg] = self._scalar(v)
        for inner in k.body.ops[:-1]:
            if isinstance(inner, kernel.ExtractOp):
                _, *positions = (mapping.get(v, v) for v in inner.operands)
                source = tensors[inner.operands[0]]
                mapping[inner.results[0]] = self._read(source, positions, inner.results[0].type, builder)
            elif isinstance(inner, kernel.InsertOp):
                source = k.operands[k.copy_inputs[inner.result]]
                builder.create(kernel.InsertOp, [mapping.get(v, v) for v in inner.operands], [],
                               {"result": self.analysis.result_of[self.find(source)],
                                "mode": inner.mode})
            else:
                builder.insert(inner.clone(mapping))
        yielded = iter(k.body.terminator.operands)
        for j, r in enumerate(k.results):
            if n_in + j not in k.indexed:
                y = next(yielded)
                self.scalars[r] = mapping.get(y, y)



RULES = {scf.ForOp: convert, scf.WhileOp: convert, scf.IfOp: convert}
