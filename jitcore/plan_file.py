"""A ``CompiledFunction`` as bytes and back, for the disk cache: a JSON tree and raw blobs.

Never pickle: an entry may have been written by anything that could write to the cache
directory, and unpickling runs code. This format is parsed here, field by field: JSON values,
the dataclasses of ``codegen/plan.py`` by name (no other class is ever made), dtypes by their
``str``, and arrays and bytes (constants, object code) as blobs that follow the JSON.

The tree is generic over the plan's dataclasses, so a field added to one of them is stored with
no change here, as long as its value is made of the types listed in ``_encode``.
"""

from __future__ import annotations

import dataclasses
import json
import struct

import numpy as np

from jitcore.codegen import plan as plan_module
from jitcore.codegen.nvptx.kernels import LaunchShape
from jitcore.codegen.nvptx.plan import GpuPlan
from jitcore.codegen.plan import CompiledFunction
from jitcore.ir.attributes import SPLAT_SCAN, all_same_bits

# The dataclasses a file may name: those of codegen/plan.py and the CUDA backend's plan, and
# nothing else.
_CLASSES = {cls.__name__: cls for cls in vars(plan_module).values()
            if isinstance(cls, type) and dataclasses.is_dataclass(cls)
            and cls.__module__ == plan_module.__name__}
_CLASSES.update({cls.__name__: cls for cls in (GpuPlan, LaunchShape)})
_FIELDS = {name: frozenset(f.name for f in dataclasses.fields(cls)) for name, cls in _CLASSES.items()}
_LENGTH = struct.Struct("<Q")


class FormatError(ValueError):
    """The bytes are not a plan this module wrote."""


def encode(plan: CompiledFunction) -> bytes:
    """``plan`` as bytes: the JSON header's length, the header, then its blobs one after another."""
    blobs: list[bytes] = []
    header = {"plan": _encode(plan, blobs), "blobs": [len(b) for b in blobs]}
    text = json.dumps(header, separators=(",", ":")).encode()
    return b"".join([_LENGTH.pack(len(text)), text, *blobs])


def decode(data: bytes) -> CompiledFunction:
    """The plan of ``encode``'s bytes; ``FormatError`` if they are anything else."""
    try:
        (length,) = _LENGTH.unpack_from(data, 0)
        start = _LENGTH.size + length
        header = json.loads(data[_LENGTH.size:start])
        sizes = header["blobs"]
        if not all(type(n) is int and n >= 0 for n in sizes) or start + sum(sizes) != len(data):
            raise FormatError("the blobs do not fill the rest of the file")
        blobs = []
        for size in sizes:
            blobs.append(data[start:start + size])
            start += size
        plan = _decode(header["plan"], blobs)
    except FormatError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, struct.error) as e:
        raise FormatError(f"not a stored plan: {e}") from None
    if not isinstance(plan, CompiledFunction):
        raise FormatError("not a stored plan")
    return plan


def _encode(value, blobs: list[bytes]):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, list):
        return [_encode(v, blobs) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, blobs) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_encode(k, blobs), _encode(v, blobs)] for k, v in value.items()]}
    if isinstance(value, np.dtype):
        return {"dtype": _dtype_text(value)}
    if isinstance(value, np.ndarray):
        flat = np.ascontiguousarray(value).reshape(-1)
        one = flat.size > SPLAT_SCAN and all_same_bits(flat)  # np.zeros((n, p)): its value once
        blobs.append(flat[:1].tobytes() if one else flat.tobytes())
        return {"splat" if one else "array": len(blobs) - 1, "dtype": _dtype_text(value.dtype),
                "shape": list(value.shape)}
    if isinstance(value, bytes):
        blobs.append(value)
        return {"bytes": len(blobs) - 1}
    if dataclasses.is_dataclass(value) and _CLASSES.get(type(value).__name__) is type(value):
        return {"class": type(value).__name__,
                "fields": {f.name: _encode(getattr(value, f.name), blobs) for f in dataclasses.fields(value)}}
    raise TypeError(f"internal error: a compiled plan holds a {type(value).__name__}, which the disk "
                    "cache cannot store (plan.py: a plan is plain data)")


def _decode(node, blobs: list[bytes]):
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, list):
        return [_decode(v, blobs) for v in node]
    if not isinstance(node, dict) or len(node) not in (1, 2, 3):
        raise FormatError(f"unexpected {type(node).__name__} in a stored plan")
    if "tuple" in node:
        return tuple(_decode(v, blobs) for v in node["tuple"])
    if "dict" in node:
        return {_decode(k, blobs): _decode(v, blobs) for k, v in node["dict"]}
    if "dtype" in node and len(node) == 1:
        return _dtype(node["dtype"])
    if "array" in node or "splat" in node:
        dtype, shape = _dtype(node["dtype"]), tuple(node["shape"])
        if not all(type(n) is int and n >= 0 for n in shape):
            raise FormatError(f"bad array shape {shape}")
        if "splat" in node:  # every element the one stored
            (value,) = np.frombuffer(blobs[node["splat"]], dtype=dtype)
            return np.full(shape, value, dtype)
        # A copy: aligned, writable, and not a view of the whole file.
        return np.frombuffer(blobs[node["array"]], dtype=dtype).reshape(shape).copy()
    if "bytes" in node:
        return blobs[node["bytes"]]
    if "class" in node:
        cls = _CLASSES.get(node["class"])
        fields = node["fields"]
        if cls is None or fields.keys() != _FIELDS[node["class"]]:
            raise FormatError(f"unknown plan class or fields: {node['class']}")
        return cls(**{name: _decode(v, blobs) for name, v in fields.items()})
    raise FormatError(f"unexpected node {sorted(node)} in a stored plan")


def _dtype_text(dtype: np.dtype) -> str:
    if dtype.fields is not None or dtype.hasobject:
        raise TypeError(f"internal error: a compiled plan holds dtype {dtype}, which the disk cache "
                        "cannot store")
    return dtype.str


def _dtype(text) -> np.dtype:
    dtype = np.dtype(str(text))
    if dtype.hasobject or dtype.fields is not None:
        raise FormatError(f"dtype {text!r} is not a plain number type")
    return dtype
