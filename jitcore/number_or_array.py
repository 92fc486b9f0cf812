"""Values that are a number on some calls and an array on others, as the data picks.

``v = x if t else 1.0`` with ``t`` traced: Python's ``v`` is the array ``x`` or the number
``1.0``. Jitcore's value is one array of ``x``'s shape, the number broadcast where ``t`` does
not hold (``autograph.expressions._joined``). That is Python's value wherever only the
elements matter and the number broadcast gives the same elements: elementwise arithmetic
whose result has the shape the number's side would give too (``acc + (x * j if j > 0 else
0.0)``, ``out[:] = v``). Anywhere else (``v.sum()``, ``len(v)``, ``v.shape``, ``v[0]``,
``np.concatenate([v, w])``, ``v * 2.0`` returned) the result depends on which one it is,
which a compiled function's one shape cannot follow: refused, with the line.

The trace keeps, per SSA value (so that every tracer sharing it, a branch's copy or a view's
read, is seen), the ``Form`` it stands for: the shape NumPy gives on the number's side. Every
op goes through ``emitted`` (``primitives._emit`` and the few ops built elsewhere):
elementwise ops pass the form on, an update op may take such a value as its update, every
other op refuses. The elementwise entries (``primitives.ufunc``, ``primitives.where``) then
set their result's form from their operands' (``elementwise``): a result of the shape the
number's side gives too is plain again. Python-level reads of the shape (``Tracer.shape``
from the user's code, ``len``, iteration, ``np.shape``/``np.size``/``np.ndim``) refuse.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from jitcore import tracer
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import array


class Form:
    """What a traced value stands for: ``number_shape``, the shape NumPy gives it where the
    number was picked; ``made_at``, the user's line of the choice; ``returned``, the error
    that refuses it as a result of the function."""

    __slots__ = ("number_shape", "made_at", "returned", "python_type")

    def __init__(self, number_shape: tuple, made_at: str, returned: Exception, python_type=None):
        self.number_shape, self.made_at, self.returned = number_shape, made_at, returned
        # the number's type where it is a Python number (float, int, bool, complex): its methods
        # are not an array's (``method``)
        self.python_type = python_type


# Ops whose every output element is computed from the elements at the same place: a broadcast
# number through them is the number's result broadcast
_ELEMENTWISE = (array.ElementwiseOp, array.SelectOp, array.ConvertOp, array.ComplexOp, array.BroadcastInDimOp)
# Ops that write operand 1 (the update) into operand 0: a broadcast number written is the number
_UPDATES = (array.UpdateSliceOp, array.ScatterNdOp)


def form_of(x) -> Form | None:
    """The ``Form`` ``x`` stands for, or None for a value of one form (almost every one)."""
    trace = getattr(x, "owner_trace", None)
    if trace is None or not trace.number_or_array:
        return None
    return trace.number_or_array.get(x.value)


def mark(x, form: Form | None) -> None:
    """``x``'s value stands for ``form`` (None: for itself)."""
    forms = x.owner_trace.number_or_array
    if form is not None:
        forms[x.value] = form
    elif forms:
        forms.pop(x.value, None)


def refusal(form: Form, what: str) -> UnsupportedError:
    return UnsupportedError(
        f"'x if test else y' at {form.made_at} gives a number on one side and an array on the "
        f"other, and its test is traced: the data picks which one. Here, {what} at {tracer.user_location()} "
        f"depends on which one it is (the number's shape is "
        f"{form.number_shape}), but a compiled function's values have one shape each. Give "
        "both sides one shape (x if test else np.full_like(x, 1.0)), or use the value only in "
        "elementwise arithmetic with arrays of its shape"
    )


def emitted(op_cls, operands) -> Form | None:
    """The form of the result of an ``op_cls`` of ``operands`` (tracers), or the refusal of an
    op whose result depends on which of the two an operand is."""
    forms = [form_of(x) for x in operands]
    found = next((f for f in forms if f is not None), None)
    if found is None:
        return None
    if issubclass(op_cls, _ELEMENTWISE):  # (the ufunc or where around it sets its own result's:
        # ``elementwise``; its number is NumPy's where it is no longer the Python number chosen)
        return Form(found.number_shape, found.made_at, found.returned)
    if issubclass(op_cls, _UPDATES) and all(f is None for k, f in enumerate(forms) if k != 1):
        return None
    raise refusal(
        found,
        f"its use in {op_cls.name} (a reduction, reshape, index, concatenation "
        "or other op whose result depends on its shape)",
    )


def elementwise(out, operands) -> None:
    """``out``, an elementwise result of ``operands`` broadcast together: a number or an array
    where one of them is and the number's side gives another shape."""
    forms = [form_of(x) for x in operands]
    found = next((f for f in forms if f is not None), None)
    if found is None:
        return
    shapes = [f.number_shape if f is not None else np.shape(x) for x, f in zip(operands, forms)]
    number_shape = np.broadcast_shapes(*shapes)
    mark(out, None if number_shape == out.shape else Form(number_shape, found.made_at, found.returned))


def carried(leaves, what: str) -> None:
    """Refuse a value of two forms carried into or out of a traced region (a loop's carry, a
    branch's result), whose value there would be one array, its form lost."""
    for leaf in leaves:
        form = form_of(leaf)
        if form is not None:
            raise refusal(form, what)


# Frames between the user's call and the code that reads the shape: NumPy's, and jitcore's
# that pass a call of NumPy's function on to jitcore's (autograph.arrays, __array_function__)
_NUMPY = os.path.join(os.path.dirname(np.__file__), "")
_PASSING = frozenset(
    (
        ("arrays.py", "call"),
        ("arrays.py", "dispatched"),
        ("array_methods.py", "array_function"),
        ("registry.py", "apply_function"),
        ("registry.py", "array_function"),
    )
)


def _passing(frame) -> bool:
    path = os.path.abspath(frame.f_code.co_filename)
    return path.startswith(_NUMPY) or (os.path.basename(path), frame.f_code.co_name) in _PASSING


def read_by_user(x, what: str) -> None:
    """``x.shape`` (``.size``, ``.ndim``, ``np.shape(x)``, ...) read by the user's code: refused
    where ``x`` stands for a number or an array (jitcore's own reads, for broadcasting or a
    write's slot, are not)."""
    form = form_of(x)
    if form is None:
        return
    frame = sys._getframe(2)
    while frame is not None and _passing(frame):
        frame = frame.f_back
    if frame is not None and tracer.is_user_file(frame.f_code.co_filename):
        raise refusal(form, what)


def read(x, what: str) -> None:
    """``len(x)``, iteration, ``np.shape(x)``: refused where ``x`` stands for two forms."""
    form = form_of(x)
    if form is not None:
        raise refusal(form, what)


def method(x, name: str) -> None:
    """``x.name(...)``, an array's method, where ``x`` stands for a Python number or an array:
    refused where Python's number has no such method (``v.copy()``: AttributeError)."""
    form = form_of(x)
    if form is not None and form.python_type is not None and not hasattr(form.python_type, name):
        raise refusal(form, f"its method .{name}() (a Python {form.python_type.__name__} has none)")


tracer.FORM_READS[:] = [read_by_user, read]  # (the tracer asks them; it cannot import this module)
