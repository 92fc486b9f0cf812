"""The ``kernel`` dialect: loops over an iteration space with a scalar body (like linalg.generic).

``kernel.generic`` reads each operand through an affine indexing map from the iteration space
(so broadcasts, transposes and strided slices are maps, not copies) and writes each result
through its own map. Iterators are ``parallel``, ``reduction`` or ``scan``; a kernel with
reduction iterators starts each result from its ``inits`` value and its body also receives the
running accumulators. The iteration extents are the ``domain`` attribute; where it is absent they
are derived from the result shapes, then the operand shapes: every iteration dim must then appear
as a plain ``dN`` in some map. (Fusion always writes ``domain``: an inlined slice reads a larger
operand through a plain ``dN``, so its shape says nothing about the iteration space.)

A ``scan`` iterator (at most one per kernel, never alongside reductions) makes an inclusive
prefix computation along its dim: each result map uses it once, plainly, and the body again
receives one accumulator per result after its inputs: the result at the previous position along
the scan dim, or the result's ``inits`` value at position 0. What the body yields is the result
at the current position, so a cumulative sum is ``yield acc + x``. Code generators run the scan
dim in increasing order, so each position is computed after the previous one is stored.
``has_reduction`` is true for scans too: either way the kernel carries accumulators and one
result element depends on many input elements, so fusion never inlines such a kernel into a
consumer (an elementwise producer may still be inlined into it: it reads each element once).

A result whose entry in ``copy_inputs`` names an input (else -1) starts as a copy of that input
(same type) and the nest then overwrites only the elements its output map reaches: that is how
``x[1:-1] = v`` becomes a kernel over the slice alone.

Inputs listed in ``clamped`` may be read outside their bounds: each index is clamped into range
(and a read from an empty input gives 0). Kernels that pad or concatenate read their inputs
this way and ``select`` the value they need, using ``kernel.index`` for the iteration position.

Operands and results listed in ``indexed`` (numbered as the maps: inputs, then results) are
addressed by the body itself at computed positions, as ``tensor.extract`` inside a
``linalg.generic``: their map has no exprs, an indexed input's body argument is the whole
tensor (read by ``kernel.extract``), and an indexed result is yielded nothing: it is written
only by ``kernel.insert`` (after starting as its ``copy_inputs`` source; or, listed in
``fills``, as nothing: the body writes every element before it reads one, as a sort writes its
positions, so no copy and no input of zeros is needed). The
positions come from ``kernel.check_index``, which wraps a negative index and records the first
one out of range in the function's status words, so that no access is ever out of bounds.
Gathers and scatters are such kernels (``passes/kernelize/index.py``).

A reduction (not a scan) may have a second region, its ``epilogue``: a block with the body's
arguments (inputs, then accumulators) that yields each result's final value from its reduced
one, once per output element after the reduction combined it (``np.sqrt(np.sum(d * d, -1))``:
the sum is the reduction, the ``sqrt`` its epilogue; ``passes/reduction_epilogue.py``). It reads
the accumulators and inputs whose maps use parallel dims only (the body never reads those),
holds plain scalar ops (no ``kernel.index``, nothing with side effects or regions), and yields
each result's element type: the result's buffer holds the accumulator until it runs.

A body may hold scalar-level ``scf`` loops and branches (``passes/kernelize/control.py``): a
kernel with an empty iteration space then runs a whole scalar loop nest once. Inside it,
``kernel.extract_result`` reads an indexed result back, so a loop sees its own writes (a
Gauss–Seidel sweep). The indexed ops may sit anywhere inside the body's nested regions.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import AffineExpr, AffineMap, ScalarAttr
from jitcore.ir.core import PURE, TERMINATOR, Operation
from jitcore.ir.opdef import Kind, attr, of, one_of, tuple_of
from jitcore.ir.types import ScalarType, TensorType, i1, i64, index

PARALLEL, REDUCTION, SCAN = "parallel", "reduction", "scan"
# A kernel's ``head`` attribute: the number of a 0-d integer input, ``count``; dim 0 then runs
# over ``[0, count)`` only (a compacted selection's rows, ``jitcore/run_length.py``). Its body
# is right over the whole dim too (rows past the count unspecified results, or writes that
# repeat one before them), so a target or schedule that cannot bound the loop runs it all.
HEAD = "head"


def head_input(op) -> int | None:
    """The input whose value bounds ``op``'s dim 0 (``HEAD``), or None."""
    k = op.attributes.get(HEAD)
    if k is None or not 0 <= k < len(op.operands):
        return None
    v, m = op.operands[k], op.input_maps[k]
    if v.type.rank != 0 or not v.type.element.is_integer or any(e.dim is not None for e in m.exprs):
        return None
    return k
_ITERATORS = Kind(", each 'parallel', 'reduction' or 'scan'",
                  lambda v: isinstance(v, tuple) and all(i in (PARALLEL, REDUCTION, SCAN) for i in v))


class GenericOp(Operation):
    name = "kernel.generic"
    traits = frozenset({PURE})
    __slots__ = ()
    iterator_types = attr(_ITERATORS)
    indexing_maps = attr(tuple_of(AffineMap, ": one indexing map per operand and per result"))
    clamped = attr(tuple_of(int), optional=True, default=())
    inits = attr(tuple_of(ScalarAttr), optional=True)
    indexed = attr(tuple_of(int), optional=True, default=())  # operands, then results, by number
    fills = attr(tuple_of(int), optional=True, default=())  # indexed results (by result) written whole

    @property
    def has_reduction(self) -> bool:
        """Whether the body takes accumulators: there is a reduction or a scan iterator."""
        return REDUCTION in self.iterator_types or SCAN in self.iterator_types

    @property
    def scan_dim(self) -> int | None:
        """The iteration dim of the ``scan`` iterator, or None."""
        iters = self.iterator_types
        return iters.index(SCAN) if SCAN in iters else None

    @property
    def input_maps(self) -> tuple[AffineMap, ...]:
        return self.indexing_maps[: len(self.operands)]

    @property
    def output_maps(self) -> tuple[AffineMap, ...]:
        return self.indexing_maps[len(self.operands):]

    @property
    def body(self):
        return self.regions[0].block

    @property
    def epilogue(self):
        """The block applied to each reduced result before it is final, or None."""
        return self.regions[1].block if len(self.regions) > 1 else None

    @property
    def copy_inputs(self) -> tuple[int, ...]:
        """Per result: the input it starts as a copy of, or -1."""
        return self.attributes.get("copy_inputs", (-1,) * len(self.results))

    def domain(self) -> tuple[int, ...]:
        """The extent of each iteration dim: the ``domain`` attribute, or else read off the
        first result, then operand, that maps it plainly."""
        if "domain" in self.attributes:
            return self.attributes["domain"]
        return derive_domain([v.type for v in self.operands], self.result_types, self.indexing_maps,
                             len(self.iterator_types), self.clamped)

    def verify_op(self) -> None:
        self._verify_structure()
        domain = self.attributes.get("domain")
        if domain is not None:
            if not isinstance(domain, tuple) or len(domain) != len(self.iterator_types) or any(
                not isinstance(d, int) or d < 0 for d in domain
            ):
                self.fail("'domain' needs one non-negative extent per iteration dim")
            for r, m, copied in zip(self.results, self.output_maps, self.copy_inputs):
                if copied >= 0:
                    continue  # written only where its map reaches
                for axis, e in enumerate(m.exprs):
                    plain = e.dim is not None and e.scale == 1 and e.offset == 0
                    if plain and r.type.shape[axis] != domain[e.dim]:
                        self.fail(f"result dim {axis} has size {r.type.shape[axis]}, "
                                  f"but d{e.dim} spans {domain[e.dim]}")
        self._verify_ranges()
        self._verify_body()

    def _verify_structure(self) -> None:
        iters, maps = self.iterator_types, self.indexing_maps
        if iters.count(SCAN) > 1 or (SCAN in iters and REDUCTION in iters):
            self.fail("may have at most one 'scan' iterator, and then no 'reduction' iterator")
        shaped = [*self.operands, *self.results]
        if len(maps) != len(shaped):
            self.fail("needs one indexing map per operand and per result")
        if not self.results:
            self.fail("needs at least one result")
        indexed = self.indexed
        if any(not 0 <= i < len(shaped) for i in indexed):
            self.fail("'indexed' must list operand and result numbers")
        for i, (v, m) in enumerate(zip(shaped, maps)):
            if not isinstance(v.type, TensorType):
                self.fail("takes and returns tensors only")
            rank = 0 if i in indexed else v.type.rank  # an indexed one's map has no exprs
            if m.num_dims != len(iters) or len(m.exprs) != rank:
                self.fail(f"map {m} does not fit {v.type} over {len(iters)} iteration dims")
        for m in self.output_maps:
            if any(e.dim is not None and iters[e.dim] == REDUCTION for e in m.exprs):
                self.fail("result maps may only use parallel dims")
            if SCAN in iters:
                scan = iters.index(SCAN)
                uses = [e for e in m.exprs if e.dim == scan]
                if len(uses) != 1 or uses[0].scale != 1 or uses[0].offset != 0:
                    self.fail(f"result map {m} must use the scan dim d{scan} once, plainly")
        clamped = self.clamped
        if any(not 0 <= i < len(self.operands) for i in clamped):
            self.fail("'clamped' must list input operand indices")
        copies = self.attributes.get("copy_inputs", (-1,) * len(self.results))
        if not isinstance(copies, tuple) or len(copies) != len(self.results):
            self.fail("'copy_inputs' needs one entry per result")
        for k, (r, i) in enumerate(zip(self.results, copies)):
            if not isinstance(i, int) or not -1 <= i < len(self.operands):
                self.fail("'copy_inputs' entries must be -1 or an input operand index")
            if len(self.operands) + k in indexed and ((i < 0 and k not in self.fills)
                                                      or SCAN in iters or REDUCTION in iters):
                self.fail("an indexed result must start as a copy of an input, in a kernel "
                          "without reduction or scan iterators")
            if k in self.fills and (i >= 0 or len(self.operands) + k not in indexed):
                self.fail("'fills' lists indexed results that start as no copy")
            if i >= 0 and (self.operands[i].type != r.type or i in clamped):
                self.fail(f"result {r.type} cannot start as a copy of input #{i}")

    def _verify_ranges(self) -> None:
        domain = self.domain()
        if None in domain:
            self.fail(f"iteration dim d{domain.index(None)} is not a plain dim of any map")
        shaped = [*self.operands, *self.results]
        for i, (v, m) in enumerate(zip(shaped, self.indexing_maps)):
            if i in self.clamped:
                continue
            for axis, e in enumerate(m.exprs):
                if v.type.shape[axis] == 0 or 0 in domain:
                    continue
                top = e.offset + (e.scale * (domain[e.dim] - 1) if e.dim is not None else 0)
                low = e.offset if e.dim is None or e.scale >= 0 else top
                high = top if e.dim is None or e.scale >= 0 else e.offset
                if low < 0 or high >= v.type.shape[axis]:
                    self.fail(f"map {m} reads outside dim {axis} of {v.type}")

    def _verify_body(self) -> None:
        if not 1 <= len(self.regions) <= 2 or any(len(r.blocks) != 1 for r in self.regions):
            self.fail("needs one region with one block (and maybe an epilogue region)")
        indexed = self.indexed
        expected = [v.type if i in indexed else v.type.element for i, v in enumerate(self.operands)]
        n_in = len(self.operands)
        yields = [r.type.element for k, r in enumerate(self.results) if n_in + k not in indexed]
        inits = self.inits
        if self.has_reduction:
            expected += [r.type.element for r in self.results]
            if inits is None or len(inits) != len(self.results) or any(
                a.type != r.type.element for a, r in zip(inits, self.results)
            ):
                self.fail("a reduction or scan needs 'inits': one scalar of each result's element type")
        elif inits is not None:
            self.fail("only reductions and scans take 'inits'")
        got = [a.type for a in self.body.args]
        if got != expected:
            self.fail(f"body arguments must be {[str(t) for t in expected]}, got {[str(t) for t in got]}")
        term = self.body.terminator
        if term is None or term.op_name != "kernel.yield":
            self.fail("body must end with kernel.yield")
        if [v.type for v in term.operands] != yields:
            term.fail("must yield one scalar of each result's element type")
        _verify_isolated(self.body)
        if self.epilogue is not None:
            self._verify_epilogue(expected, yields)

    def _verify_epilogue(self, expected: list, yields: list) -> None:
        epilogue = self.epilogue
        if (self.scan_dim is not None or REDUCTION not in self.iterator_types or self.indexed
                or any(i >= 0 for i in self.copy_inputs)):
            self.fail("only a reduction without indexed or copied operands takes an epilogue")
        if [a.type for a in epilogue.args] != expected:
            self.fail(f"epilogue arguments must be {[str(t) for t in expected]}")
        term = epilogue.terminator
        if term is None or term.op_name != "kernel.yield" or [v.type for v in term.operands] != yields:
            self.fail("epilogue must end with kernel.yield of one scalar of each result's element type")
        reduced = {d for d, it in enumerate(self.iterator_types) if it == REDUCTION}
        for i, (arg, m) in enumerate(zip(epilogue.args, self.input_maps)):
            if arg.uses and any(e.dim in reduced for e in m.exprs):
                self.fail(f"epilogue reads input #{i}, whose map {m} uses a reduction dim")
        for op in epilogue.ops:
            if op.regions or isinstance(op, IndexOp) or (PURE not in op.traits):
                op.fail("cannot be in an epilogue (plain scalar ops only)")
        _verify_isolated(epilogue)


def _verify_isolated(block) -> None:
    """Every value ``block``'s ops use is defined inside it (nested regions included; their ops
    are checked by their own verifiers for order)."""
    inside = {id(a) for a in block.args}
    for top in block.ops:
        for op in top.walk() if top.regions else (top,):  # most body ops have no regions
            for v in op._operands:
                if id(v) not in inside:
                    op.fail("uses a value from outside its kernel.generic")
            for r in op.results:
                inside.add(id(r))
            for region in op.regions:
                for inner in region.blocks:
                    inside.update(map(id, inner.args))


def derive_domain(operand_types, result_types, maps, num_dims: int, clamped=()) -> tuple:
    """Iteration extents from the first result, then operand, mapping each dim plainly (None
    where no map does); clamped operands say nothing about the iteration space."""
    extents: list[int | None] = [None] * num_dims
    n_in = len(operand_types)
    candidates = [*zip(result_types, maps[n_in:]),
                  *(tm for i, tm in enumerate(zip(operand_types, maps[:n_in])) if i not in clamped)]
    for t, amap in candidates:
        for axis, e in enumerate(amap.exprs):
            if e.dim is not None and e.scale == 1 and e.offset == 0 and extents[e.dim] is None:
                extents[e.dim] = t.shape[axis]
    return tuple(extents)


class IndexOp(Operation):
    """``kernel.index {dim = k}``: the current position along iteration dim ``k``."""

    name = "kernel.index"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (0, 1)
    dim = attr(of(int))

    def verify_op(self) -> None:
        if self.results[0].type != index:
            self.fail("must return index")
        parent = _enclosing_generic(self)
        if not 0 <= self.dim < len(parent.attributes.get("iterator_types", ())):
            self.fail("needs a 'dim' that is one of its kernel's iteration dims")


class YieldOp(Operation):
    name = "kernel.yield"
    traits = frozenset({TERMINATOR, PURE})
    __slots__ = ()

    def verify_op(self) -> None:
        if self.results:
            self.fail("has no results")
        if self.parent_op is None or self.parent_op.op_name != "kernel.generic":
            self.fail("must be inside a kernel.generic")


def _enclosing_generic(op: Operation) -> GenericOp:
    """The ``kernel.generic`` whose body holds ``op``, maybe inside scalar ``scf`` ops."""
    parent = op.parent_op
    while parent is not None and parent.op_name.startswith("scf."):
        parent = parent.parent_op
    if parent is None or parent.op_name != "kernel.generic":
        op.fail("must be inside a kernel.generic")
    return parent


def _check_positions(op: Operation, positions, rank: int) -> None:
    if len(positions) != rank or any(v.type != index for v in positions):
        op.fail(f"needs {rank} index positions, one per dim of the tensor it addresses")


class ExtractOp(Operation):
    """``kernel.extract %t, %i...``: the element of the indexed input ``%t`` (a body argument
    of tensor type) at positions ``%i...`` (index values), which must be in range: they come
    from ``kernel.index`` or ``kernel.check_index``."""

    name = "kernel.extract"
    traits = frozenset({PURE})
    __slots__ = ()

    def verify_op(self) -> None:
        parent = _enclosing_generic(self)
        if not self.operands:
            self.fail("needs a tensor and its positions")
        tensor, *positions = self.operands
        if not isinstance(tensor.type, TensorType) or not any(tensor is a for a in parent.body.args):
            self.fail("reads a tensor argument of its kernel's body (an indexed input)")
        _check_positions(self, positions, tensor.type.rank)
        if len(self.results) != 1 or self.results[0].type != tensor.type.element:
            self.fail(f"returns one {tensor.type.element}")


class CheckIndexOp(Operation):
    """``kernel.check_index %i {axis, size}``: the i64 index ``%i`` into a dim of ``size``
    elements as an in-range position. A negative index counts from the end; one outside
    ``[-size, size)`` gives position 0 and is recorded in the status words (index, axis, size)
    unless an earlier one is, so the caller raises NumPy's IndexError for the first. Not pure:
    the record is a side effect that CSE and DCE keep and fusion never duplicates."""

    name = "kernel.check_index"
    traits = frozenset()
    __slots__ = ()
    arity = (1, 1)
    axis = attr(of(int))
    size = attr(of(int))

    def verify_op(self) -> None:
        _enclosing_generic(self)
        if self.operands[0].type != i64 or self.results[0].type != index:
            self.fail("takes one i64 index and returns one index")
        if self.axis < 0 or self.size < 0:
            self.fail("needs a non-negative 'axis' and 'size'")


SCATTER_MODES = ("set", "add", "sub", "mul", "max", "min", "and", "or", "xor")


class InsertOp(Operation):
    """``kernel.insert %v, %i... {result = k, mode}``: writes ``%v`` into the indexed result
    ``k`` at positions ``%i...`` (in range, as for ``kernel.extract``). With mode ``set`` the
    value replaces the element; otherwise it combines with it (``add``: old + v, ...) as
    ``np.ufunc.at`` does. Not pure: the kernel's iterations run in order, so for repeated
    positions the last ``set`` wins and every combine applies."""

    name = "kernel.insert"
    traits = frozenset()
    __slots__ = ()

    result = attr(of(int))
    mode = attr(one_of(SCATTER_MODES))

    def verify_op(self) -> None:
        parent = _enclosing_generic(self)
        if self.results:
            self.fail("has no results")
        k = self.result
        if not 0 <= k < len(parent.results) or (
            len(parent.operands) + k not in parent.attributes.get("indexed", ())
        ):
            self.fail("needs a 'result': one of its kernel's indexed results")
        target = parent.results[k].type
        if not self.operands or not isinstance(self.operands[0].type, ScalarType) or (
            self.operands[0].type != target.element
        ):
            self.fail(f"writes one {target.element}")
        _check_positions(self, self.operands[1:], target.rank)


class ExtractResultOp(Operation):
    """``kernel.extract_result %i... {result = k}``: the element of the indexed result ``k``
    at positions ``%i...`` (in range, as for ``kernel.extract``) as the body has written it so
    far (or as copied from its input). Not pure: a ``kernel.insert`` between two reads changes
    what the second one sees, so CSE must not merge them."""

    name = "kernel.extract_result"
    traits = frozenset()
    __slots__ = ()
    result = attr(of(int))

    def verify_op(self) -> None:
        parent = _enclosing_generic(self)
        k = self.result
        if not 0 <= k < len(parent.results) or (
            len(parent.operands) + k not in parent.attributes.get("indexed", ())
        ):
            self.fail("needs a 'result': one of its kernel's indexed results")
        target = parent.results[k].type
        _check_positions(self, self.operands, target.rank)
        if len(self.results) != 1 or self.results[0].type != target.element:
            self.fail(f"returns one {target.element}")


# What status word 0 holds after a compiled call stopped on an error (0: none), one table for
# every producer (index checks and loop steps in kernels, callbacks on the host, ``kernel.raise``)
# and for the dispatcher that raises the matching Python error.
INDEX_ERROR, ZERO_STEP, CALLBACK_FAILED, SINGULAR_MATRIX, NOT_POSITIVE_DEFINITE = 1, 2, 3, 4, 5
# numpy.linalg's "must not contain infs or NaNs", "Eigenvalues did not converge", "SVD did not converge"
NOT_FINITE, NO_CONVERGENCE, SVD_NO_CONVERGENCE = 6, 7, 8
LINALG_ERRORS = (SINGULAR_MATRIX, NOT_POSITIVE_DEFINITE, NOT_FINITE, NO_CONVERGENCE, SVD_NO_CONVERGENCE)
# Python's errors on Python numbers (``array.raise_if``): code -> (exception, message), codes from
# 40 (the GPU's own codes are 16 and up: ``codegen/nvptx``); the
# dispatcher raises jitcore's subclass of that exception (``jitcore/python_arithmetic.py``).
(DIVISION_BY_ZERO, FLOAT_DIVISION_BY_ZERO, FLOAT_FLOOR_DIVISION_BY_ZERO, FLOAT_MODULO_BY_ZERO,
 FLOAT_DIVMOD_BY_ZERO, INT_FLOOR_DIVISION_BY_ZERO, INT_MODULO_BY_ZERO, COMPLEX_DIVISION_BY_ZERO,
 ZERO_TO_NEGATIVE_POWER, INT_OF_NAN, INT_OF_INFINITY, INT_OF_LARGE_FLOAT, INT_OVERFLOW,
 NEGATIVE_SHIFT, NEGATIVE_INT_EXPONENT, COMPLEX_POWER, POWER_OVERFLOW) = range(40, 57)
# Python's and NumPy's errors for the first bad element of data (``raise_at_first``): a message
# may name the status words a ``kernel.raise`` records after its code: ``{index}``, ``{axis}``,
# ``{size}`` (words 1..3 as int64) and ``{float}`` (word 1 as the bits of a float64).
(MATH_DOMAIN, MATH_RANGE, NEGATIVE_TOLERANCE, LIST_INDEX, TUPLE_INDEX, INVALID_COORDINATE,
 FLAT_INDEX_OUT_OF_BOUNDS, FSUM_OVERFLOW, FSUM_FULL, FSUM_INF_MINUS_INF, MIN_OF_EMPTY,
 MAX_OF_EMPTY, INT_TO_NEGATIVE_POWER) = range(57, 70)
FSUM_CAPACITY = 64  # math.fsum's partial sums under jit (``autograph/fsum.py`` keeps them)


def _empty_message(builtin) -> str:
    """``min([])``'s message, as this Python words it."""
    try:
        builtin([])
    except ValueError as error:
        return str(error)
    raise AssertionError(f"{builtin.__name__}([]) returned")


PYTHON_ERRORS = {
    DIVISION_BY_ZERO: ("ZeroDivisionError", "division by zero"),
    FLOAT_DIVISION_BY_ZERO: ("ZeroDivisionError", "float division by zero"),
    FLOAT_FLOOR_DIVISION_BY_ZERO: ("ZeroDivisionError", "float floor division by zero"),
    FLOAT_MODULO_BY_ZERO: ("ZeroDivisionError", "float modulo"),
    FLOAT_DIVMOD_BY_ZERO: ("ZeroDivisionError", "float divmod()"),
    INT_FLOOR_DIVISION_BY_ZERO: ("ZeroDivisionError", "integer division or modulo by zero"),
    INT_MODULO_BY_ZERO: ("ZeroDivisionError", "integer modulo by zero"),
    COMPLEX_DIVISION_BY_ZERO: ("ZeroDivisionError", "complex division by zero"),
    ZERO_TO_NEGATIVE_POWER: ("ZeroDivisionError", "0.0 cannot be raised to a negative power"),
    INT_OF_NAN: ("ValueError", "cannot convert float NaN to integer"),
    INT_OF_INFINITY: ("OverflowError", "cannot convert float infinity to integer"),
    INT_OF_LARGE_FLOAT: ("OverflowError", "int() of a float past int64's range: Python's ints have no limit, "
         "compiled code's are int64. Keep the number a float, or compute it outside the jitted "
         "function"),
    INT_OVERFLOW: ("OverflowError", "a Python int past int64's range: Python's ints have no limit, "
         "compiled code's are int64, and this result (a sum, difference, product, power, shift, negation or "
         "quotient) does not fit (it would wrap around). Compute with floats (float(n) * m), mask as you go "
         "(h = (h * 31 + c) & 0xFFFFFFFF), or compute it outside the jitted function; where it comes "
         "from an int argument ((1 << width) - 1, a bit mask of width 64), make that argument static "
         "(static_argnames=('width',)): Python then computes it exactly, once per value, while "
         "compiling"),
    NEGATIVE_SHIFT: ("ValueError", "negative shift count"),
    NEGATIVE_INT_EXPONENT: ("ValueError", "a Python int raised to a negative int is a float in "
         "Python, but this power's type was fixed as int when the function compiled (the exponent "
         "was not known then). Write float(n) ** k for a float, or make the exponent static"),
    COMPLEX_POWER: ("ValueError", "a negative Python float raised to a fractional power is a complex number "
         "in Python, but this power's type was fixed as float when the function compiled. Write "
         "complex(x) ** y for Python's complex result, or np.power(x, y) for NumPy's NaN"),
    POWER_OVERFLOW: ("OverflowError", "(34, 'Numerical result out of range')"),
    MATH_DOMAIN: ("ValueError", "math domain error"),
    MATH_RANGE: ("OverflowError", "math range error"),
    NEGATIVE_TOLERANCE: ("ValueError", "tolerances must be non-negative"),
    LIST_INDEX: ("IndexError", "list index out of range"),
    TUPLE_INDEX: ("IndexError", "tuple index out of range"),
    INVALID_COORDINATE: ("ValueError", "invalid entry in coordinates array"),
    FLAT_INDEX_OUT_OF_BOUNDS: ("ValueError", "index {index} is out of bounds for array with size {size}"),
    FSUM_OVERFLOW: ("OverflowError", "intermediate overflow in fsum"),
    FSUM_FULL: ("OverflowError", f"math.fsum under jit keeps at most {FSUM_CAPACITY} partial sums; "
         "these items need more (call math.fsum outside the jitted function)"),
    FSUM_INF_MINUS_INF: ("ValueError", "-inf + inf in fsum"),
    MIN_OF_EMPTY: ("ValueError", _empty_message(min)),
    MAX_OF_EMPTY: ("ValueError", _empty_message(max)),
    INT_TO_NEGATIVE_POWER: ("ValueError", "Integers to negative integer powers are not allowed."),
}
# numpy.random's checks of traced parameters (``jitcore/random.py``), Generator's and the
# legacy RandomState's wording, from 70
_RANDOM_ERRORS = (
    ("ValueError", "scale < 0"), ("ValueError", "high - low < 0"),
    ("OverflowError", "high - low range exceeds valid bounds"),
    ("OverflowError", "Range exceeds valid bounds"),
    ("ValueError", "probabilities contain NaN"), ("ValueError", "Probabilities contain NaN"),
    ("ValueError", "probabilities are not non-negative"),
    ("ValueError", "Probabilities are not non-negative"),
    ("ValueError", "probabilities do not sum to 1"),
    ("ValueError", "Probabilities do not sum to 1. See Notes section of docstring for more "
     "information."))
PYTHON_ERRORS.update(zip(range(70, 70 + len(_RANDOM_ERRORS)), _RANDOM_ERRORS))
SLICE_CLAMPED = 70 + len(_RANDOM_ERRORS)  # a window of static length at a traced start
PYTHON_ERRORS[SLICE_CLAMPED] = (
    "IndexError", "a slice of static length at a traced start (x[p:p + s]) reaches "
         "outside the array: its start is negative (NumPy would count it from the end) or start + s "
         "is past the axis' size (NumPy would give a shorter slice), but under jit its length was "
         "fixed at s when the function compiled. Keep the window inside the array (p = min(max(p, "
         "0), n - s)), or pad the array first (np.pad)")


def python_error_code(name: str, message: str) -> int:
    """The code of the error ``name(message)`` in ``PYTHON_ERRORS`` (a message with no fields)."""
    return next(code for code, error in PYTHON_ERRORS.items() if error == (name, message))


class RaiseOp(Operation):
    """``kernel.raise %cond, %word... {code}``: where ``%cond`` (i1) holds, records ``code`` in
    status word 0 and the i64 ``%word``s (up to three: the first bad element, an axis, a size)
    in words 1.. unless an earlier error is, and the kernel returns; the caller then raises the
    error the code names (``LINALG_ERRORS``: ``numpy.linalg.LinAlgError`` with NumPy's message;
    ``PYTHON_ERRORS``: the words fill in its message). Not pure."""

    name = "kernel.raise"
    traits = frozenset()
    __slots__ = ()
    code = attr(of(int))

    def verify_op(self) -> None:
        _enclosing_generic(self)
        if self.results or not 1 <= len(self.operands) <= 4:
            self.fail("needs 1 to 4 operands and no results")
        if self.operands[0].type != i1 or any(w.type != i64 for w in self.operands[1:]):
            self.fail("takes one i1 condition and up to three i64 status words")
        if self.code not in LINALG_ERRORS and self.code not in PYTHON_ERRORS:
            self.fail(f"needs a known 'code' ({SINGULAR_MATRIX}: singular matrix, {NOT_POSITIVE_DEFINITE}: "
                      f"not positive definite, {NOT_FINITE}: not finite, {NO_CONVERGENCE}: no convergence, "
                      f"{SVD_NO_CONVERGENCE}: svd without convergence)")


def body_ops(op: GenericOp):
    """Every op of ``op``'s body, those inside nested (scalar ``scf``) regions included, then
    those of its epilogue."""
    for region in op.regions:
        for inner in region.block.ops:
            yield from inner.walk()


def checks_step(op: Operation) -> bool:
    """A scalar ``scf.for`` whose step is not a constant other than zero: the code checks it at
    run time and records a zero step in the status words."""
    if op.op_name != "scf.for":
        return False
    step = getattr(op.operands[2], "op", None)
    return not (step is not None and step.op_name == "arith.constant"
                and step.attributes["value"].value != 0)


# A decomposition kernel that the CPU code generator may run as the LAPACK routine NumPy calls
# (passes/kernelize/lapack.py marks it, codegen/cpu/lapack.py emits the calls): its kind, the
# generic's operand positions of the array op's operands, and the op's parameters (ints).
LAPACK, LAPACK_OPERANDS, LAPACK_PARAMS = "lapack", "lapack_operands", "lapack_params"


def checks_indices(op: GenericOp) -> bool:
    """Whether ``op``'s body records errors in the status words (a bad index, or a zero loop
    step), or may run as a LAPACK call, which does (``LAPACK``): it then needs them."""
    return LAPACK in op.attributes or any(isinstance(inner, (CheckIndexOp, RaiseOp)) or checks_step(inner)
                                            for inner in body_ops(op))


def runs_in_order(op: GenericOp) -> bool:
    """Whether ``op``'s iterations must run one after another, in C order: it records the
    first bad index, writes at computed positions (repeats apply in order), or runs scalar
    loops and branches (a whole program, never to be repeated per consumer element)."""
    return any(isinstance(inner, (CheckIndexOp, InsertOp, RaiseOp)) or inner.regions
               for inner in body_ops(op))


def reads_in_memory_order(op: GenericOp) -> bool:
    """Whether ``op`` is a reduction that ``memory_order`` may reorder (``passes/interchange.py``
    says why the others keep their order)."""
    return (op.has_reduction and op.scan_dim is None and len(op.iterator_types) >= 1
            and not op.indexed and not op.clamped and not runs_in_order(op)
            and all(i < 0 for i in op.copy_inputs) and _sums_or_products(op)
            and not any(isinstance(inner, IndexOp) for inner in body_ops(op)))


_ACCUMULATING = frozenset({"arith.addf", "arith.mulf", "arith.addi", "arith.muli"})


def _sums_or_products(op: GenericOp) -> bool:
    """Whether each result is its accumulator plus (or times) the point's value: a sum or a
    product. A max or min keeps C order, where NumPy's choice between 0.0 and -0.0 in a tie
    is also taken (tests/jitcore/test_numpy_parity.py)."""
    block = op.body
    accumulators = block.args[len(op.operands):]
    terminator = block.ops[-1] if block.ops else None
    if terminator is None or len(terminator.operands) != len(accumulators):
        return False
    for acc, value in zip(accumulators, terminator.operands):
        producer = getattr(value, "op", None)
        if producer is None or producer.name not in _ACCUMULATING or acc not in producer.operands:
            return False
    return True


def _read_order(amap: AffineMap, live: set[int]) -> list[int] | None:
    """The live dims ``amap`` reads, outermost first (the order of its exprs); None when it
    reads one twice or not with scale 1 or -1 (a strided slice, a diagonal)."""
    dims = [e.dim for e in amap.exprs if e.dim in live]
    if len(set(dims)) != len(dims) or any(abs(e.scale) != 1 for e in amap.exprs if e.dim in live):
        return None
    return dims


def numpy_axis_order(orders: list[list[int]], backwards: list[set[int]], n: int,
                     zeros: list[set[int]] | None = None) -> list[int]:
    """The dims (of ``orders``' union), outermost first, in which NumPy's iterator lays out
    the result of an elementwise op on inputs that read them in ``orders`` (each outermost
    first, the dims in ``backwards`` read with a negative stride; a dim an input does not
    read, or one of its ``zeros``, a broadcast argument's, is stride 0 and has no say):
    ``var``'s ``x - mean`` of a Fortran-ordered ``x``. Asked of NumPy itself, on arrays of
    two elements per dim with those strides."""
    live = sorted({d for o in orders for d in o})
    shape = tuple(2 if d in live else 1 for d in range(n))
    models = []
    for order, flipped, zero in zip(orders, backwards, zeros or [set()] * len(orders)):
        base = np.zeros((2,) * len(order))
        base = base[tuple(slice(None, None, -1) if d in flipped else slice(None) for d in order)]
        strides = tuple(base.strides[order.index(d)] if d in order and d not in zero else 0
                        for d in range(n))
        models.append(np.lib.stride_tricks.as_strided(base, shape, strides, writeable=False))
    it = np.nditer([*models, None], op_flags=[["readonly"]] * len(models) + [["writeonly", "allocate"]])
    out = it.operands[-1]
    return sorted(live, key=lambda d: -abs(out.strides[d]))


def memory_order(op: GenericOp, zeros: dict[int, set[int]] | None = None) -> bool:
    """Reorder a reduction so that its inputs are read in memory order of their dims (NumPy's
    rule, ``passes/interchange.py``; inputs that disagree in NumPy's iterator's order,
    ``numpy_axis_order``; a dim read backwards stays backwards), in place; False when they
    already are in that order. The CPU's code generator also applies it to a twin of
    a kernel whose strided argument's layout class says it is dense in another order
    (``codegen/cpu/schedule.py``), whose broadcast arguments' dims of stride 0 (``zeros``,
    per input) have no say."""
    domain = op.domain()
    n = len(domain)
    live = {d for d in range(n) if domain[d] != 1}
    orders = [_read_order(m, live) for m in op.input_maps if any(e.dim is not None for e in m.exprs)]
    if not orders or any(o is None for o in orders):
        return False
    if set(max(orders, key=len)) != live:
        return False  # no input reads every dim: no order to follow
    reading = [k for k, m in enumerate(op.input_maps) if any(e.dim is not None for e in m.exprs)]
    backwards = [{e.dim for e in op.input_maps[k].exprs if e.dim in live and e.scale < 0} for k in reading]
    lead = numpy_axis_order(orders, backwards, n, [(zeros or {}).get(k, set()) for k in reading])
    slots = sorted(live)  # the live dims take the lead's order; dims of extent 1 stay put
    order = list(range(n))  # new position -> old dim
    for slot, d in zip(slots, lead):
        order[slot] = d
    if order == list(range(n)):
        return False
    new_of = {old: new for new, old in enumerate(order)}

    def remap(amap: AffineMap) -> AffineMap:
        exprs = []
        for e in amap.exprs:
            if e.dim is None:
                exprs.append(e)
            else:
                exprs.append(AffineExpr(new_of[e.dim], e.scale, e.offset))
        return AffineMap(n, tuple(exprs))

    its = op.iterator_types
    op.attributes["indexing_maps"] = tuple(remap(m) for m in op.indexing_maps)
    op.attributes["domain"] = tuple(domain[d] for d in order)
    op.attributes["iterator_types"] = tuple(its[d] for d in order)
    return True
LIST_ASSIGNMENT_INDEX = SLICE_CLAMPED + 1  # lst[k] = v at a traced k past the list's end
PYTHON_ERRORS[LIST_ASSIGNMENT_INDEX] = ("IndexError", "list assignment index out of range")
INT_OF_LARGE_UINT64 = LIST_ASSIGNMENT_INDEX + 1  # int() of a uint64 at or past 2**63
PYTHON_ERRORS[INT_OF_LARGE_UINT64] = (
    "OverflowError", "int() of a uint64 at or past 2**63: Python's ints have no limit, compiled "
         "code's are int64, which cannot hold it. Keep the value a uint64 (drop the int()), mask "
         "it (int(v & 0x7FFFFFFFFFFFFFFF)), or compute it outside the jitted function")
ROOTS_LEADING_ZERO = INT_OF_LARGE_UINT64 + 1  # np.roots of p with p[0] == 0
PYTHON_ERRORS[ROOTS_LEADING_ZERO] = (
    "ValueError", "numpy.roots of coefficients whose first is zero: NumPy strips leading zeros "
         "and returns fewer roots, a count known only from the data, but under jit the count was "
         "fixed at len(p) - 1 when the function compiled. Strip the leading zeros before the "
         "call (p = np.trim_zeros(p, 'f')) and pass the stripped coefficients")
STACK_OF_EMPTY = ROOTS_LEADING_ZERO + 1  # np.stack of a list a compiled loop appended nothing to
PYTHON_ERRORS[STACK_OF_EMPTY] = ("ValueError", "need at least one array to stack")
INDEX_OUT_OF_BOUNDS = STACK_OF_EMPTY + 1  # a kept index of x[ys[m], xs[m]] = v (indexing.py)
PYTHON_ERRORS[INDEX_OUT_OF_BOUNDS] = ("IndexError", "index {index} is out of bounds for axis {axis} "
                                      "with size {size}")
# ufunc.reduceat at traced indices: NumPy's IndexError for one out of [0, n), per ufunc
REDUCEAT_INDEX = {name: INDEX_OUT_OF_BOUNDS + 1 + k
                  for k, name in enumerate(("add", "multiply", "maximum", "minimum"))}
PYTHON_ERRORS.update({code: ("IndexError", f"index {{index}} out-of-bounds in {name}.reduceat [0, {{size}})")
                      for name, code in REDUCEAT_INDEX.items()})
# list.index(v) where no item equals v (``autograph/list_methods.py``): Python's "v is not in
# list", v written as its repr is (a Python int or float, NumPy's int64 or float64), from word 1;
# tuple.index's own words
NOT_IN_LIST_MESSAGES = ("{index} is not in list", "{float} is not in list",
                        "np.int64({index}) is not in list", "np.float64({float}) is not in list",
                        "the value is not in list", "tuple.index(x): x not in tuple")
NOT_IN_LIST = max(REDUCEAT_INDEX.values()) + 1
PYTHON_ERRORS.update((NOT_IN_LIST + k, ("ValueError", m)) for k, m in enumerate(NOT_IN_LIST_MESSAGES))
# x[i + 1:][m], both of traced bounds (``masked.MaskedSelection.__getitem__``): the mask must
# select the positions the slice does (NumPy: the same length; jitcore: the same positions)
MASK_POSITIONS_APART = NOT_IN_LIST + len(NOT_IN_LIST_MESSAGES)
PYTHON_ERRORS[MASK_POSITIONS_APART] = (
    "IndexError", "boolean index did not match indexed array along axis 0: under jit, a slice "
         "of traced bounds (x[i + 1:]) may be indexed by a mask made from a slice at the same "
         "bounds (x[i + 1:][r[i + 1:] < rc]), and these select other positions. Slice both arrays "
         "alike, or mask the whole arrays (x[(np.arange(n) > i) & (r < rc)])")
# math.comb/perm/factorial of traced ints (``autograph/math_counts.py``): Python's ValueErrors
MATH_COUNT_MESSAGES = ("n must be a non-negative integer", "k must be a non-negative integer",
                       "factorial() not defined for negative values")
MATH_COUNTS = MASK_POSITIONS_APART + 1
PYTHON_ERRORS.update((MATH_COUNTS + k, ("ValueError", m)) for k, m in enumerate(MATH_COUNT_MESSAGES))
ISQRT_NEGATIVE = MATH_COUNTS + len(MATH_COUNT_MESSAGES)  # math.isqrt of a traced int below 0
PYTHON_ERRORS[ISQRT_NEGATIVE] = ("ValueError", "isqrt() argument must be nonnegative")
# an int of 64 bits held in a float64 where the data chose between it and a float (``best =
# np.inf`` then ``best = min(best, x[i])``: ``type_choice``), at or past 2**53: not exact there
INT_HELD_AS_FLOAT = ISQRT_NEGATIVE + 1
PYTHON_ERRORS[INT_HELD_AS_FLOAT] = (
    "OverflowError", "the int {index} (at {where}) is a value whose type the data chooses, an int "
         "on one path and a float on another (best = np.inf, then best = min(best, x[i]) or "
         "best = x[i] under a traced if), which jitcore holds as a float64, and float64 holds "
         "ints exactly only below 2**53 in magnitude. Start from the data instead of the float "
         "(best = x[0] before the loop, for i in range(1, len(x))), or make both paths floats "
         "(float(x[i]))")
