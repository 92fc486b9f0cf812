"""Jitted functions on Dask arrays: a call with a ``dask.array.Array`` returns a lazy Dask array.

``jit``'s call path hands a call here when an argument is a Dask array (``api.DaskArgument``);
``import jitcore`` never imports Dask. The function is traced once at the full shapes (no call
on data), and the traced IR says how it maps onto Dask (``analysis``):

- elementwise (every output element depends only on the input elements at its position): one
  ``da.blockwise`` task per chunk, running the jitted function on the chunk;
- row-wise (an output of the full shape that combines values along some axes, as softmax does
  along rows): the same, when every chunk holds whole rows along those axes; else an error
  naming the ``rechunk`` that makes it so;
- a reduction over axes (outputs without them): ``da.reduction`` with a jitted kernel per chunk
  (the function's reductions, kept partial: sums, products, max, min, any, all, and the
  centred second moment of ``np.var``), a jitted combine (Chan's update for the moments) and the
  rest of the function, jitted, on the combined values. When the reduced axes are one chunk
  already, each chunk runs the function itself.

Anything else (slices and shifts, which need neighbouring chunks; matrix products) raises
``UnsupportedError`` naming what to use: ``map_overlap`` here, ``da.tensordot``, a rechunk.

Every jitted function sent to the workers travels as ``PerProcess``: unpickled, it is the one
copy that process holds, so each worker compiles each signature once (``worker_cache_info``).
That copy, and its compiled code, is held for the life of the process (a worker keeps no other
reference between tasks).
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import uuid
from dataclasses import dataclass

import dask.array as da
import numpy as np

from jitcore import primitives, pytree
from jitcore.dtypes import ir_type, np_dtype
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.ir.core import ELEMENTWISE
from jitcore.ir.dialects import array
from jitcore.ir.types import TensorType

AXES = "abcdefghijklmnopqrstuvwxyz"


# -- one copy of each jitted function per worker process ----------------------------------

_PER_PROCESS: dict = {}


class PerProcess:
    """A jitted function as Dask's tasks carry it: called like it, and unpickled as the one copy
    this process already holds under ``token`` (so its compile cache lives across tasks)."""

    def __init__(self, jitted, token: str):
        self.jitted, self.token = jitted, token

    def __call__(self, *args, **kwargs):
        return self.jitted(*args, **kwargs)

    def __reduce__(self):
        return _per_process, (self.token, self.jitted)


def _described(jitted) -> str:
    """The function's name and where it is defined, for error messages."""
    code = getattr(getattr(jitted.fun, "__func__", jitted.fun), "__code__", None)
    where = f" (defined at {code.co_filename}:{code.co_firstlineno})" if code else ""
    return jitted.__name__ + where


def _per_process(token: str, jitted) -> PerProcess:
    return _PER_PROCESS.setdefault(token, PerProcess(jitted, token))


def shared(jitted) -> PerProcess:
    """``jitted`` wrapped to travel to the workers once per process (a token kept on it)."""
    token = jitted.__dict__.get("_dask_token")
    if token is None:
        token = jitted.__dict__.setdefault("_dask_token", f"{jitted.__name__}-{uuid.uuid4().hex}")
    return _per_process(token, jitted)


def worker_cache_info() -> dict:
    """The ``cache_info()`` of each jitted function this process runs for Dask, by name (run it
    on every worker with ``client.run(worker_cache_info)``)."""
    return {token: shared_fn.jitted.cache_info() for token, shared_fn in _PER_PROCESS.items()}


# -- the call -----------------------------------------------------------------------------

def call(jitted, args, kwargs):
    """``jitted(*args, **kwargs)`` with Dask arrays among the arguments: a lazy Dask array."""
    leaves, tree = pytree.flatten((tuple(args), dict(kwargs)))
    lazy = [i for i, leaf in enumerate(leaves) if isinstance(leaf, da.Array)]
    if not lazy:
        raise JitTypeError(f"{_described(jitted)}: an argument comes from dask but is not a "
                           "dask.array.Array; pass dask arrays (or compute it first)")
    for i, leaf in enumerate(leaves):  # NumPy arrays broadcast against the chunks: chunk them too
        if isinstance(leaf, np.ndarray) and leaf.ndim:
            leaves[i] = da.from_array(leaf, chunks=-1)
            lazy.append(i)
    lazy.sort()
    plan = analyse(jitted, leaves, tree, lazy)
    arrays = [leaves[i] for i in lazy]
    if plan.kind == "elementwise" or plan.whole(arrays):
        fixed = tuple(None if i in lazy else leaf for i, leaf in enumerate(leaves))
        return blockwise(ChunkCall(shared(jitted), tree, fixed, tuple(lazy)), arrays, plan)
    if plan.kind == "rowwise":
        raise UnsupportedError(plan.rechunk_advice(_described(jitted), "an output of the full shape"))
    return reduction(jitted, plan, arrays)


@dataclass(frozen=True)
class ChunkCall:
    """The jitted function on one chunk of each Dask argument, the other arguments as given."""

    jitted: PerProcess
    tree: pytree.TreeDef
    fixed: tuple  # the leaves that are not Dask arrays (None where one is)
    lazy: tuple[int, ...]

    def __call__(self, *chunks):
        leaves = list(self.fixed)
        for i, chunk in zip(self.lazy, chunks):
            leaves[i] = chunk
        args, kwargs = pytree.unflatten(self.tree, leaves)
        return self.jitted(*args, **kwargs)


def blockwise(chunk_fn, arrays, plan) -> da.Array:
    """One task per chunk (Dask aligns the chunks of arguments that broadcast)."""
    rank = plan.rank
    out_index = "".join(AXES[a] for a in range(rank) if plan.keepdims or a not in plan.dropped)
    kept = {AXES[a]: 1 for a in plan.dropped} if plan.keepdims else None  # one per block
    pairs = []
    for x in arrays:
        pairs += [x, AXES[rank - x.ndim: rank]]
    out = plan.output
    meta = np.empty((0,) * len(out_index), out.dtype)
    return da.blockwise(chunk_fn, out_index, *pairs, dtype=out.dtype, meta=meta, concatenate=True,
                        align_arrays=True, adjust_chunks=kept)


# -- what the traced IR says -------------------------------------------------------------

@dataclass(frozen=True)
class Along:
    """A dim that runs along axis ``axis`` of the broadcast Dask arguments (chunked as it is)."""

    axis: int


@dataclass
class ValueInfo:
    dims: tuple  # per dim: Along(axis), or an int (a fixed size, not chunked)
    mixed: frozenset  # axes along which the value combines elements of other positions


@dataclass(frozen=True)
class OutputInfo:
    dims: tuple
    dtype: np.dtype


class Plan:
    """How the traced function relates its outputs to the Dask arguments' axes."""

    def __init__(self, kind, rank, output, mixed, dropped, keepdims, module, info, shape):
        self.kind, self.rank, self.output = kind, rank, output
        self.mixed, self.dropped, self.keepdims = mixed, dropped, keepdims  # keepdims: reduced axes kept
        self.module, self.info, self.shape = module, info, shape

    def whole(self, arrays) -> bool:
        """Whether every chunk holds whole extents along the axes the function combines."""
        for x in arrays:
            offset = self.rank - x.ndim
            if any(x.numblocks[a - offset] > 1 for a in self.mixed if a >= offset):
                return False
        return True

    def rechunk_advice(self, name: str, what: str) -> str:
        axes = sorted(self.mixed)
        spec = ", ".join(f"{a}: -1" for a in axes)
        return (f"{name}: combines values along axis {', '.join(map(str, axes))} of its Dask "
                f"argument into {what}, and its chunks split that axis: rechunk so that each chunk "
                f"holds the whole axis, x.rechunk({{{spec}}}), then call it again")


def analyse(jitted, leaves, tree, lazy) -> Plan:
    """Trace ``jitted`` at the full shapes (stand-ins that hold no data) and classify it."""
    shape = np.broadcast_shapes(*(leaves[i].shape for i in lazy))
    stand_ins = list(leaves)
    for i in lazy:
        stand_ins[i] = np.broadcast_to(np.zeros((), leaves[i].dtype), leaves[i].shape)
    args, kwargs = pytree.unflatten(tree, stand_ins)
    chunked = primitives.CHUNKED.set(True)  # (Dask combines the chunks' partials in its order)
    try:
        _, specs, arrays, call_ = jitted._signature_key(args, kwargs)
        module, out_tree = jitted._trace(specs, call_)
    except primitives.IntRangeNeeded:  # keyed again with its ints' bounds (``JitFunction._int_range``)
        _, specs, arrays, call_ = jitted._signature_key(args, kwargs)
        module, out_tree = jitted._trace(specs, call_)
    finally:
        primitives.CHUNKED.reset(chunked)
    name = _described(jitted)
    if out_tree.mutated or out_tree.tree.kind != "leaf":
        raise UnsupportedError(f"{name}: on Dask arrays, a jitted function must return one array and "
                               "write to none of its arguments")
    block = module.body.ops[0].body
    rank = len(shape)
    lazy_ids = {id(stand_ins[i]) for i in lazy}
    dims, opaque = Dims(), []
    for arg, value in zip(block.args, arrays):
        offset = rank - value.ndim
        for k, n in enumerate(value.shape):
            lazy_dim = id(value) in lazy_ids and n == shape[offset + k]  # else 1, broadcast
            dims.label((arg, k), Along(offset + k) if lazy_dim else n)
    for op in block.ops[:-1]:
        if not _link_dims(op, dims):
            opaque.append(op.op_name)
    if opaque:
        raise UnsupportedError(_opaque_advice(name, opaque))
    if dims.conflicts:
        raise UnsupportedError(f"{name}: it combines a constant array with a chunked axis of its Dask "
                               f"argument ({dims.conflicts[0]}); pass that array as an argument")
    info = {}
    for arg in block.args:
        info[arg] = ValueInfo(dims.of(arg), frozenset())
    for op in block.ops[:-1]:
        value = op.results[0]
        mixed = frozenset().union(*(info[v].mixed for v in op.operands))
        if isinstance(op, array.ReduceOp):
            src = info[op.operands[0]].dims
            mixed |= {src[a].axis for a in op.axes if isinstance(src[a], Along)}
        info[value] = ValueInfo(dims.of(value), mixed)
    result = block.ops[-1].operands[0]
    out = info[result]
    output = OutputInfo(out.dims, np_dtype(result.type.element))
    along = [d.axis for d in out.dims if isinstance(d, Along)]
    fixed = [d for d in out.dims if not isinstance(d, Along)]
    if any(n != 1 for n in fixed) or along != sorted(along):
        raise UnsupportedError(f"{name}: its output {result.type} does not line up with the axes of its "
                               f"Dask arguments (shape {shape}); on Dask arrays jitcore runs functions "
                               "that are elementwise, row-wise or reduce over axes")
    dropped = frozenset(range(rank)) - set(along)
    keepdims = bool(fixed)
    if keepdims and (len(out.dims) != rank or any(out.dims[a] != 1 for a in dropped)):
        raise UnsupportedError(f"{name}: its output {result.type} has size-1 dims that are not the "
                               f"reduced axes of its Dask arguments (shape {shape})")
    if not out.mixed:
        kind = "elementwise"
    elif dropped and out.mixed == dropped:
        kind = "reduction"
    elif dropped:
        raise UnsupportedError(f"{name}: its output reduces axes {sorted(dropped)} but also combines "
                               f"values along axes {sorted(out.mixed - dropped)}; rechunk so those are "
                               "one chunk each")
    else:
        kind = "rowwise"
    return Plan(kind, rank, output, out.mixed, dropped, keepdims, module, info, shape)


class Dims:
    """Which dims of the traced values run along the same axis (union-find over (value, dim)):
    an argument's dims are labelled with their axis, a constant's with its size; a dim that a
    broadcast creates takes the label of the dims it meets in elementwise ops."""

    def __init__(self):
        self.parent, self.labels, self.conflicts = {}, {}, []

    def find(self, node):
        root = node
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while node != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def label(self, node, label) -> None:
        self.labels[self.find(node)] = label

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        la, lb = self.labels.pop(ra, None), self.labels.pop(rb, None)
        self.parent[rb] = ra
        if la is None or lb is None or la == lb:
            label = la if lb is None else lb
        elif isinstance(la, Along) and isinstance(lb, Along) or (la != 1 and lb != 1):
            self.conflicts.append(f"{la} meets {lb}")
            label = la
        else:
            label = la if lb == 1 else lb  # a size-1 constant dim broadcast along an axis
        if label is not None:
            self.labels[ra] = label

    def of(self, value) -> tuple:
        return tuple(self.labels.get(self.find((value, k)), n) for k, n in enumerate(value.type.shape))


def _link_dims(op, dims: Dims) -> bool:
    """Join the dims of ``op``'s result with its operands'; False for an op the analysis cannot
    map onto chunks."""
    if len(op.results) != 1 or op.regions:
        return False
    result = op.results[0]
    if isinstance(op, (array.ConstantOp, array.IotaOp)):  # (a ramp: a table the size of its type)
        for k, n in enumerate(result.type.shape):
            dims.label((result, k), n)
        return True
    if op.has_trait(ELEMENTWISE):
        for v in op.operands:
            for k in range(result.type.rank):
                dims.union((result, k), (v, k))
        return True
    if isinstance(op, array.BroadcastInDimOp):
        src = op.operands[0]
        for k, j in enumerate(op.broadcast_dimensions):
            if src.type.shape[k] == result.type.shape[j]:
                dims.union((result, j), (src, k))
        return True
    if isinstance(op, array.ReshapeOp):
        src_shape, out_shape = op.operands[0].type.shape, result.type.shape
        if [n for n in src_shape if n != 1] != [n for n in out_shape if n != 1]:
            return False
        kept = iter(j for j, n in enumerate(out_shape) if n != 1)
        for k, n in enumerate(src_shape):
            if n != 1:
                dims.union((result, next(kept)), (op.operands[0], k))
        return True
    if isinstance(op, array.ReduceOp):
        kept = (k for k in range(op.operands[0].type.rank) if k not in op.axes)
        for j, k in enumerate(kept):
            dims.union((result, j), (op.operands[0], k))
        return True
    return False


_NEIGHBOURS = ("array.slice", "array.concatenate", "array.pad", "array.gather", "array.roll")
_CONTRACTIONS = ("array.dot_general", "array.matmul", "array.dot")


def _opaque_advice(name: str, ops: list[str]) -> str:
    if any(op in _CONTRACTIONS for op in ops):
        return (f"{name}: contracts arrays ({', '.join(sorted(set(ops)))}), which on Dask arrays "
                "combines chunks of both operands: use da.tensordot / da.matmul on the Dask arrays "
                "(each chunk product runs in NumPy), or rechunk so each operand is one chunk along "
                "the contracted axis and call it on each block with da.map_blocks")
    if any(op in _NEIGHBOURS for op in ops):
        return (f"{name}: reads neighbouring elements ({', '.join(sorted(set(ops)))}), which cross "
                "chunk edges on a Dask array: use jitcore.dask_arrays.map_overlap(f, x, depth=..., "
                "boundary=...) (Dask's map_overlap with the jitted function), or rechunk to one chunk")
    return (f"{name}: uses {', '.join(sorted(set(ops)))}, which jitcore does not map onto Dask "
            "chunks: call it on each block with da.map_blocks after rechunking to whole axes")


# -- reductions ----------------------------------------------------------------------------

# How each reduction kind's partial results combine (the kind of the second reduction).
COMBINE_KIND = {"sum": "sum", "prod": "prod", "max": "max", "min": "min", "and": "and", "or": "or"}
_NUMPY_REDUCTION = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "and": np.all,
                    "or": np.any}


@dataclass(frozen=True)
class Step:
    """One op of the traced function, replayed on chunk-sized values (``Replay``)."""

    op: type
    operands: tuple[int, ...]  # numbers of earlier values
    attributes: tuple  # sorted (name, value) pairs; a constant's value as (bytes, dtype, shape)
    dtype: str  # the result's element dtype
    dims: tuple  # the result's dims (Along or a fixed size)


@dataclass(frozen=True)
class Root:
    """A reduction kept partial per chunk: ``kind`` of value ``operand`` over ``axes``;
    ``moments``: the centred second moment of ``np.var`` (``operand`` is the centred values'
    source, their mean taken by the function itself)."""

    kind: str
    operand: int
    axes: tuple[int, ...]
    result: int
    dtype: str  # the reduction's result dtype, which the combined partial is converted to
    moments: bool = False


class Replay:
    """A function of chunks: the steps of the traced function (from a plan that holds no IR)
    re-emitted at the chunk's extents, then either the roots' partial reductions (``partials``)
    or, given the combined roots, the rest of the function (``finish``)."""

    def __init__(self, steps, inputs, roots, output, rank, mode):
        self.steps, self.inputs, self.roots = steps, inputs, roots
        self.output, self.rank, self.mode = output, rank, mode
        self.__name__ = f"dask_{mode}"

    def __reduce__(self):
        return Replay, (self.steps, self.inputs, self.roots, self.output, self.rank, self.mode)

    def key(self) -> str:
        return hashlib.sha256(pickle.dumps(self.__reduce__()[1])).hexdigest()[:24]

    def __call__(self, *values):
        trace = values[0].owner_trace
        env = dict(zip(self.inputs, values))
        extents = _extents(values, [self.steps_dims(i) for i in self.inputs])
        if self.mode == "partials":
            needed = _needed(self.steps, [r.operand for r in self.roots], set(self.inputs))
            for i in needed:
                env[i] = _emit_step(trace, self.steps[i], env, extents)
            out = []
            for r in self.roots:
                x = env[r.operand]
                if r.moments:
                    n = float(np.prod([x.shape[a] for a in r.axes]))  # weak: keeps x's dtype
                    total = np.sum(x, axis=r.axes, keepdims=True)
                    centred = x - total / n
                    m2 = np.sum(centred * centred, axis=r.axes, keepdims=True)
                    out += [np.full(total.shape, n), total, m2]
                else:
                    out.append(_NUMPY_REDUCTION[r.kind](x, axis=r.axes, keepdims=True))
            return tuple(out)
        needed = _needed(self.steps, [self.output], set(self.inputs))
        for i in needed:
            env[i] = _emit_step(trace, self.steps[i], env, extents)
        return env[self.output]

    def steps_dims(self, i):
        return self.steps[i].dims


def _extents(values, dims_list) -> dict:
    extents = {}
    for v, dims in zip(values, dims_list):
        for d, n in zip(dims, v.shape):
            if isinstance(d, Along):
                extents[d.axis] = n
    return extents


def _needed(steps, targets, known) -> list[int]:
    seen, stack = set(), [t for t in targets if t not in known]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack += [j for j in steps[i].operands if j not in known and j not in seen]
    return sorted(seen)


def _emit_step(trace, step: Step, env, extents):
    attributes = dict(step.attributes)
    if step.op is array.ConstantOp:
        data, dtype, shape = attributes["value"]
        return primitives.constant(trace, np.frombuffer(data, dtype).reshape(shape).copy())
    shape = tuple(extents[d.axis] if isinstance(d, Along) else d for d in step.dims)
    operands = [env[j] for j in step.operands]
    result_type = TensorType(shape, ir_type(np.dtype(step.dtype)))
    if step.op is array.ReshapeOp:
        return primitives.reshape(operands[0], shape)
    return primitives._emit(trace, step.op, operands, result_type, attributes or None)


def reduction(jitted, plan: Plan, arrays) -> da.Array:
    """``da.reduction`` with the function's reductions kept partial per chunk."""
    if len(arrays) > 2 or any(x.shape != plan.shape for x in arrays):
        raise UnsupportedError(f"{_described(jitted)}: a reduction across chunks takes one or two Dask "
                               f"arrays of one shape (got shapes {', '.join(str(x.shape) for x in arrays)}); "
                               "compute the elementwise part as its own jitted function first, or "
                               "rechunk so the reduced axes are one chunk")
    steps, numbers, roots, inputs = _steps(_described(jitted), plan)
    output = numbers[plan.module.body.ops[0].body.ops[-1].operands[0]]
    make = functools.partial(type(jitted), options=jitted.options, autograph=False)
    partials = Replay(steps, inputs, roots, output, plan.rank, "partials")
    finish = Replay(steps, tuple(r.result for r in roots), roots, output, plan.rank, "finish")
    chunk = Partials(_per_process(f"{jitted.__name__}.partials-{partials.key()}", make(partials)))
    combine = Combine(roots, _combine_kernels(make, roots))
    finish_fn = _per_process(f"{jitted.__name__}.finish-{finish.key()}", make(finish))
    aggregate = Aggregate(combine, finish_fn, tuple(sorted(plan.dropped)))
    out = plan.output
    # A second array goes in as Dask's weights: its chunks are aligned and passed after x's.
    return da.reduction(arrays[0], chunk, aggregate, axis=tuple(sorted(plan.dropped)), keepdims=plan.keepdims,
                        dtype=out.dtype, combine=combine, concatenate=False,
                        meta=np.empty((0,) * len(out.dims), out.dtype),
                        weights=arrays[1] if len(arrays) == 2 else None)


def _steps(name, plan: Plan):
    """The plan's ops as ``Step``s, and the partial roots: every reduction over the dropped axes
    of a value that does not combine along them (a nested one is accepted in the one shape
    ``np.var`` traces to: the sum of squares of ``x - mean(x)``)."""
    block = plan.module.body.ops[0].body
    numbers, steps, inputs = {}, [], []
    for arg in block.args:
        numbers[arg] = len(steps)
        inputs.append(len(steps))
        steps.append(Step(type(None), (), (), "", plan.info[arg].dims))
    lazy_inputs = tuple(i for i in inputs if any(isinstance(d, Along) for d in steps[i].dims))
    fixed = [a for a in block.args if numbers[a] not in lazy_inputs]
    if fixed:
        raise UnsupportedError(f"{name}: a reduction across chunks takes the Dask array as its only "
                               "array argument; pass other values as static arguments or closures")
    roots = []
    for op in block.ops[:-1]:
        value = op.results[0]
        attributes = []
        for k, v in sorted(op.attributes.items()):
            if k == "value":
                arr = v.array
                v = (arr.tobytes(), arr.dtype.str, arr.shape)
            attributes.append((k, v))
        numbers[value] = len(steps)
        steps.append(Step(type(op), tuple(numbers[o] for o in op.operands), tuple(attributes),
                          np_dtype(value.type.element).str, plan.info[value].dims))
        if isinstance(op, array.ReduceOp):
            src = plan.info[op.operands[0]]
            over = {src.dims[a].axis for a in op.axes if isinstance(src.dims[a], Along)}
            if over != set(plan.dropped) or len(src.dims) != plan.rank:
                raise UnsupportedError(f"{name}: a reduction over axes {sorted(over)} beside the output's "
                                       f"{sorted(plan.dropped)}; rechunk so they are one chunk")
            if not (src.mixed & plan.dropped):
                roots.append(Root(op.kind, numbers[op.operands[0]], tuple(op.axes), numbers[value],
                             steps[-1].dtype))
                continue
            centred = _variance_source(op, plan)
            if centred is None:
                raise UnsupportedError(f"{name}: a reduction of values that depend on another "
                                       f"reduction over axes {sorted(plan.dropped)} across chunks; "
                                       "rechunk so those axes are one chunk")
            roots.append(Root("sum", numbers[centred], tuple(op.axes), numbers[value], steps[-1].dtype,
                         moments=True))
    return steps, numbers, tuple(roots), lazy_inputs


def _variance_source(op, plan):
    """``x`` when ``op`` sums ``(x - mean(x)) ** 2`` over its axes (``np.var``'s trace), else None."""
    if op.kind != "sum":
        return None
    square = op.operands[0].owner
    if not isinstance(square, array.BINARY_OPS["mul"]) or square.operands[0] is not square.operands[1]:
        return None
    sub = square.operands[0].owner
    if not isinstance(sub, array.BINARY_OPS["sub"]):
        return None
    x, mean = sub.operands
    if plan.info[x].mixed & plan.dropped:
        return None
    # mean: broadcast(reshape?(div(reduce_sum(x), n))) over the same axes
    node = mean.owner
    while isinstance(node, (array.BroadcastInDimOp, array.ReshapeOp)):
        node = node.operands[0].owner
    if not isinstance(node, array.BINARY_OPS["div"]):
        return None
    total, count = node.operands
    reduced = total.owner
    while isinstance(reduced, array.ReshapeOp):
        reduced = reduced.operands[0].owner
    if not isinstance(reduced, array.ReduceOp) or reduced.kind != "sum" or reduced.operands[0] is not x \
            or tuple(reduced.axes) != tuple(op.axes):
        return None
    n = count.owner
    while isinstance(n, array.BroadcastInDimOp):
        n = n.operands[0].owner
    expected = np.prod([plan.shape[a] for a in plan.dropped])
    if not isinstance(n, array.ConstantOp) or not np.all(n.value.array == expected):
        return None
    return x


@dataclass(frozen=True)
class Partials:
    """Dask's chunk function: the jitted partial reductions of one chunk."""

    kernel: PerProcess

    def __call__(self, *chunks, axis=None, keepdims=True, computing_meta=False):
        return self.kernel(*chunks)


def _combine_sum(p, axes):
    return np.sum(p, axis=axes, keepdims=True)


def _combine_prod(p, axes):
    return np.prod(p, axis=axes, keepdims=True)


def _combine_max(p, axes):
    return np.max(p, axis=axes, keepdims=True)


def _combine_min(p, axes):
    return np.min(p, axis=axes, keepdims=True)


def _combine_and(p, axes):
    return np.all(p, axis=axes, keepdims=True)


def _combine_or(p, axes):
    return np.any(p, axis=axes, keepdims=True)


def _combine_moments(n, total, m2, axes):
    """Chan's parallel update: the count, sum and centred second moment of the union."""
    count = np.sum(n, axis=axes, keepdims=True)
    mean = np.sum(total, axis=axes, keepdims=True) / count
    delta = np.where(n > 0, total / np.maximum(n, 1) - mean, 0)
    m2_all = np.sum(m2, axis=axes, keepdims=True) + np.sum(n * delta * delta, axis=axes, keepdims=True)
    return count, np.sum(total, axis=axes, keepdims=True), m2_all


_COMBINES = {"sum": _combine_sum, "prod": _combine_prod, "max": _combine_max, "min": _combine_min,
             "and": _combine_and, "or": _combine_or, "moments": _combine_moments}


def _combine_kernels(make, roots) -> dict:
    kinds = {"moments" if r.moments else COMBINE_KIND[r.kind] for r in roots}
    return {kind: _per_process(f"combine.{kind}-dask", make(_COMBINES[kind], static_argnames=("axes",)))
            for kind in sorted(kinds)}


@dataclass(frozen=True)
class Combine:
    """Dask's combine: the partials of many chunks (nested lists along the reduced axes), each
    root's combined by its jitted kernel into one partial of the same form."""

    roots: tuple
    kernels: dict

    def __call__(self, pairs, axis=None, keepdims=True, computing_meta=False):
        axes = tuple(sorted(axis))
        parts = _concatenate(pairs, axes)
        out, i = [], 0
        for r in self.roots:
            if r.moments:
                out += self.kernels["moments"](*parts[i:i + 3], axes=axes)
                i += 3
            else:
                out.append(self.kernels[COMBINE_KIND[r.kind]](parts[i], axes=axes))
                i += 1
        return tuple(out)


@dataclass(frozen=True)
class Aggregate:
    """Dask's aggregate: combine, then the jitted rest of the function on each root's value."""

    combine: Combine
    finish: PerProcess
    axes: tuple

    def __call__(self, pairs, axis=None, keepdims=False, computing_meta=False):
        parts = self.combine(pairs, axis=axis)
        values, i = [], 0
        for r in self.combine.roots:
            part = parts[i + 2] if r.moments else parts[i]
            i += 3 if r.moments else 1
            values.append(np.squeeze(part, axis=self.axes).astype(r.dtype, copy=False))
        return self.finish(*values)


def _concatenate(pairs, axes):
    """Nested lists of partial tuples (one list level per reduced axis) as one tuple of arrays."""
    if not isinstance(pairs, list):
        return pairs
    parts = [_concatenate(p, axes[1:]) for p in pairs]
    return tuple(np.concatenate(column, axis=axes[0]) for column in zip(*parts))


# -- map_overlap ---------------------------------------------------------------------------

def map_overlap(jitted, *arrays, depth, boundary="reflect", **kwargs) -> da.Array:
    """``da.map_overlap`` with a jitted function: each chunk extended by ``depth`` elements of
    its neighbours (``boundary`` at the array's edges), the jitted function run on it, and the
    borders cut off again. The function must keep its argument's shape (a stencil written
    with ``np.roll`` or ``x[1:-1]`` writes into a copy)."""
    arrays = [a if isinstance(a, da.Array) else da.from_array(np.asarray(a), chunks=-1) for a in arrays]
    stand_ins = [np.broadcast_to(np.zeros((), a.dtype), a.shape) for a in arrays]
    _, specs, _, call_ = jitted._signature_key(tuple(stand_ins), {})
    module, out_tree = jitted._trace(specs, call_)
    result = module.body.ops[0].body.ops[-1].operands
    if out_tree.tree.kind != "leaf" or tuple(result[0].type.shape) != tuple(arrays[0].shape):
        raise UnsupportedError(f"{_described(jitted)}: map_overlap needs a function that returns one array "
                               f"of its argument's shape {arrays[0].shape}")
    dtype = np_dtype(result[0].type.element)
    return da.map_overlap(shared(jitted), *arrays, depth=depth, boundary=boundary, dtype=dtype,
                          meta=np.empty((0,) * arrays[0].ndim, dtype), **kwargs)
