"""Loop indices as affine forms, so that ``x[i:i + w]`` in a traced loop is a slice of static length.

A traced ``for i in range(a, b)`` gives the body an index whose value is unknown while tracing,
so the slice ``x[i:i + w]`` would have a shape that depends on data, and jitcore used to unroll
such a loop (one copy of the body per step). But the two bounds are ``i`` plus constants: their
difference, and so the slice's length, is static, and the loop's range bounds ``i``. When every
value ``i`` takes keeps both bounds inside the axis (so NumPy would clamp nothing), the slice is
``x`` gathered at ``i + arange(w)``: the loop stays a loop.

An ``IndexForm`` is ``scale * base + offset`` for a loop index ``base`` (a token: the forms of
one index share it), with the bounds ``lo <= value <= hi`` over the loop's range. Operators on
a traced integer scalar and a Python (or NumPy) integer carry the form (``i + 1``, ``w + i``,
``2 * i``); any other op drops it, so a form is only ever a proved fact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitcore.ir.core import PURE, OpResult


@dataclass(frozen=True)
class IndexForm:
    base: object
    scale: int
    offset: int
    lo: int
    hi: int
    # False for a traced int that is no loop index (``p[0]``, an int argument): its bounds are
    # unknown (beyond int64's), and a slice at it is checked when the function runs
    known: bool = True

    def plus(self, c: int) -> IndexForm:
        return IndexForm(self.base, self.scale, self.offset + c, self.lo + c, self.hi + c, self.known)

    def times(self, c: int) -> IndexForm:
        lo, hi = sorted((self.lo * c, self.hi * c))
        return IndexForm(self.base, self.scale * c, self.offset * c, lo, hi, self.known)

    def negated(self) -> IndexForm:
        return self.times(-1)


def loop_index(steps: range) -> IndexForm | None:
    """The form of the index of a loop over ``steps`` (None for an empty range: no value)."""
    if not len(steps):
        return None
    first, last = steps[0], steps[-1]
    return IndexForm(object(), 1, 0, min(first, last), max(first, last))


def _static_int(v) -> int | None:
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    return None


def form_of(v) -> IndexForm | None:
    return getattr(v, "index_form", None)


# The bounds of an open form: past int64's either way, so no check on them is ever skipped
_UNKNOWN = 2 ** 64


def _form_or_open(v) -> IndexForm | None:
    """``v``'s form, or for a traced int scalar without one (``p[0]``, an int argument) an
    open form with ``v``'s value as its base: ``p[0] + s`` is then ``p[0]``, shifted."""
    form = form_of(v) or getattr(v, "open_form", None)
    if form is None and getattr(v, "ndim", None) == 0 and getattr(v, "dtype", np.dtype(float)).kind in "iu" \
            and hasattr(v, "value"):
        form = IndexForm(v.value, 1, 0, -_UNKNOWN, _UNKNOWN, known=False)
    return form


def same_base(a, b) -> bool:
    """One loop index's token, or the values of two traced ints computed the same way (``p[0]``
    read twice)."""
    if a is b:
        return True
    if not (hasattr(a, "type") and hasattr(b, "type")):
        return False  # a loop index's token matches only itself
    return same_value(a, b)


def combine(ufunc, a, b) -> IndexForm | None:
    """The form of ``ufunc(a, b)`` for add, subtract and multiply of a form and a static int."""
    fa, fb, ca, cb = _form_or_open(a), _form_or_open(b), _static_int(a), _static_int(b)
    if ufunc is np.add:
        return fa.plus(cb) if fa and cb is not None else fb.plus(ca) if fb and ca is not None else None
    if ufunc is np.subtract:
        if fa and cb is not None:
            return fa.plus(-cb)
        return fb.negated().plus(ca) if fb and ca is not None else None
    if ufunc is np.multiply:
        return fa.times(cb) if fa and cb is not None else fb.times(ca) if fb and ca is not None else None
    return None


def static_slice(k: slice, size: int) -> tuple[object, int, int, bool] | None:
    """``(start, length, step, checked)`` of a slice whose bounds are forms of one index with
    the same scale, where NumPy would clamp neither for any value of the index, or where the
    index's bounds are unknown (``p[0]``, an int argument: ``checked``, NumPy's clamping is
    then refused when the function runs); else None."""
    if k.start is None or k.stop is None:
        return None
    step = 1 if k.step is None else _static_int(k.step)
    start, stop = _form_or_open(k.start), _form_or_open(k.stop)
    if step is None or step <= 0 or start is None or stop is None:
        return None
    if not same_base(start.base, stop.base) or start.scale != stop.scale:
        return None
    length = max(0, -(-(stop.offset - start.offset) // step))
    if not length:
        return k.start, 0, step, False
    if not start.known:
        return k.start, length, step, True
    if start.lo < 0 or stop.hi > size:
        return None
    return k.start, length, step, False


def static_span(start, stop) -> int | None:
    """``stop - start`` where it is static for every value of their traced index (two forms of
    one index with one scale: ``d - w`` and ``d + w + 1``; ``p`` and ``p + 5`` for any traced
    int ``p``); else None."""
    a, b = _form_or_open(start), _form_or_open(stop)
    if a is None or b is None or not same_base(a.base, b.base) or a.scale != b.scale:
        return None
    return b.offset - a.offset


def bounded_slice(k: slice, size: int) -> tuple[object, object] | None:
    """``(start, stop)`` of a step-1 slice with a traced bound whose length is not static
    (``x[:i]``, ``x[i:]``, ``x[j:i]``), each bound a traced index or a static int, where NumPy
    would clamp no traced bound for any value of its index; else None."""
    if k.step not in (None, 1):
        return None
    start = _bound(k.start, size, 0)
    stop = _bound(k.stop, size, 1)
    return None if start is None or stop is None else (start, stop)


def bound_in_range(b, size: int, which: int):
    """A traced bound ``b`` of a step-1 slice (``which``: 0 start, 1 stop) as NumPy reads it
    for every value of its loop index, where its form proves NumPy clamps it never; else None."""
    return _bound(b, size, which) if form_of(b) is not None else None


def _bound(b, size: int, which: int):
    if b is None:
        return (0, size)[which]
    c = _static_int(b)
    if c is not None:  # NumPy's own clamping of a static bound
        return slice(c, None).indices(size)[0] if which == 0 else slice(None, c).indices(size)[1]
    form = form_of(b)
    if form is not None and -size <= form.lo and form.hi < 0:
        return b + size  # x[:-k]: NumPy counts from the end, for every value of the index
    return b if form is not None and 0 <= form.lo and form.hi <= size else None


# v OP c -> the bounds of v where it holds and where it does not, from v's [lo, hi]
_HOLDS = {
    np.greater_equal: lambda lo, hi, c: ((max(lo, c), hi), (lo, min(hi, c - 1))),
    np.greater: lambda lo, hi, c: ((max(lo, c + 1), hi), (lo, min(hi, c))),
    np.less_equal: lambda lo, hi, c: ((lo, min(hi, c)), (max(lo, c + 1), hi)),
    np.less: lambda lo, hi, c: ((lo, min(hi, c - 1)), (max(lo, c), hi)),
    np.equal: lambda lo, hi, c: ((max(lo, c), min(hi, c)), (lo, hi)),
}
_MIRRORED = {np.greater_equal: np.less_equal, np.greater: np.less, np.less_equal: np.greater_equal,
             np.less: np.greater, np.equal: np.equal}


def refinement(ufunc, a, b):
    """``(x, form where it holds, form where not)`` for a comparison ``a OP b`` of a loop index's
    form ``x`` with a static int: inside ``if t >= w:`` the index is at least ``w``, so
    ``x[t - w:t]`` there needs no clamping and stays a gather in the loop. None where nothing
    narrows (an empty side keeps the loop's bounds: that branch never runs)."""
    if ufunc not in _HOLDS:
        return None
    if form_of(a) is not None and _static_int(b) is not None:
        x, c, op = a, _static_int(b), ufunc
    elif form_of(b) is not None and _static_int(a) is not None:
        x, c, op = b, _static_int(a), _MIRRORED[ufunc]
    else:
        return None
    form = form_of(x)
    if not form.known:
        return None
    sides = []
    for lo, hi in _HOLDS[op](form.lo, form.hi, c):
        narrower = lo <= hi and (lo, hi) != (form.lo, form.hi)
        sides.append(IndexForm(form.base, form.scale, form.offset, lo, hi, form.known) if narrower else form)
    return None if sides[0] is form and sides[1] is form else (x, *sides)


def refining(fn, x, form):
    """``fn`` run with ``x``'s form narrowed to ``form`` (a branch where a test on it held)."""
    if form is x.index_form:
        return fn

    def run(*args):
        before = x.index_form
        x.index_form = form
        try:
            return fn(*args)
        finally:
            x.index_form = before
    return run


def length_key(start, stop) -> tuple | None:
    """``stop - start`` as ``(base, scale, offset)`` when the two bounds (static ints or forms
    of one index) make it a form (``x[:n - k]`` and ``x[k:]``: ``n - k`` both); else None.
    Two slices with the same key have the same length for every value of the index."""
    a, b = _as_form(start), _as_form(stop)
    if a is None or b is None or (a[0] is not None and b[0] is not None and a[0] is not b[0]):
        return None
    scale = b[1] - a[1]
    return (a[0] if a[0] is not None else b[0]) if scale else None, scale, b[2] - a[2]


def _as_form(b) -> tuple | None:
    c = _static_int(b)
    if c is not None:
        return None, 0, c
    form = form_of(b)
    return None if form is None else (form.base, form.scale, form.offset)


def same_value(a, b, depth: int = 8) -> bool:
    """Do ``a`` and ``b`` hold the same values by construction: one value, or the results of
    the same pure ops on the same values (what CSE would merge), ``x < 0`` computed twice?"""
    if a is b:
        return True
    if depth == 0 or not (isinstance(a, OpResult) and isinstance(b, OpResult)) or a.index != b.index:
        return False
    p, q = a.op, b.op
    return (p.op_name == q.op_name and p.has_trait(PURE) and not p.regions and not q.regions
            and p.attributes == q.attributes and len(p.operands) == len(q.operands)
            and [r.type for r in p.results] == [r.type for r in q.results]
            and all(same_value(u, v, depth - 1) for u, v in zip(p.operands, q.operands)))
