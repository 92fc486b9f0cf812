"""The run-time half of ``type_choice.py``: a value the compiled code held in the promoted
dtype, given the kind (a Python type or a NumPy scalar's dtype) its tag names, where that is
exact. Results (``dispatch``, ``native_call``) and printed values (``formatting``) are converted
here; nothing here needs a tracer.
"""

from __future__ import annotations

import functools

import numpy as np

_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}
_STRONG = {"bool": np.dtype(bool), "int": np.dtype(np.int64), "float": np.dtype(np.float64),
           "complex": np.dtype(np.complex128)}


# The kinds of an array whose dtype the data chose: NumPy's eig, eigvals and roots give the
# real part where every eigenvalue is real (``real_or_complex``): eig's own results as NumPy's
# ``w.real`` view, what is computed from them as a new array (``"array.real copy"``).
COMPLEX_ARRAY, REAL_ARRAY, REAL_COPY = "array", "array.real", "array.real copy"
ARRAY_KINDS = (COMPLEX_ARRAY, REAL_ARRAY, REAL_COPY)
# An array of items whose kinds the data chose (``np.array([v if v > 0 else 0 for v in x])``),
# held in their promotion: NumPy's dtype is that of the kinds present (``chosen_dtype.array_of``).
ARRAY_AS = "array as "


def array_as(dtype) -> str:
    return ARRAY_AS + np.dtype(dtype).name


def _real_part(value):
    return value.real  # NumPy's own ``w = w.real``: a view of the complex array


def _real_copy(value):
    return value.real.copy()


def _conversion(kind: str, held: np.dtype):
    """The function that gives a value held as ``held`` the kind ``kind``, where that is exact:
    an int (or bool) held as a float below 2**(mantissa bits + 1) in magnitude, checked on the
    value; a narrower dtype held in a wider one. Else None: the promoted value stays as it is
    (a Python float rounded into a float32 where it met one)."""
    if kind in ARRAY_KINDS:  # an array held complex, real where the data made it so (eig)
        return {REAL_ARRAY: _real_part, REAL_COPY: _real_copy}.get(kind)
    if kind.startswith(ARRAY_AS):  # (Python ints below 2**53 in a float64: exact)
        target = np.dtype(kind[len(ARRAY_AS):])
        if target.kind != "c" and held.kind == "c":  # a real candidate held complex (np.emath)
            return lambda value: value.real.astype(target)
        return None if target == held else (lambda value: value.astype(target))
    python = kind in _STRONG
    source = _STRONG[kind] if python else np.dtype(kind[3:])
    make = _TYPES[kind] if python else source.type
    if source.kind in "biu" and held.kind in "fc":  # an int carried as a float
        bound = 2.0 ** (np.finfo(held).nmant + 1)

        def from_float(value):
            real = value.real
            if value.imag != 0 or not abs(real) < bound:  # (NaN fails too)
                return value  # an int past 2**53 in a float64: not known exactly
            return make(int(real))
        return from_float
    if python and source.kind in "biu" and held.kind in "biu":  # a Python int held as int32
        return lambda value: make(int(value))
    if np.promote_types(source, held) != held:  # rounded when it met the narrower dtype
        return None
    if source.kind != "c" and held.kind == "c":
        return lambda value: make(value.real)
    return make


@functools.cache
def converter(among: tuple, held: np.dtype):
    """For values of ``among`` held as ``held``, one callable of (value, tag) that gives the
    value the kind its tag names: what results and printed values are converted by (the
    native call calls it too: ``native_call.result_program``)."""
    table = tuple(_conversion(kind, held) or _same for kind in among)
    return functools.partial(_convert_tagged, table)


def convert_many(values: np.ndarray, kind: str) -> list:
    """Each of ``values`` (a 1-d array of the held dtype) as ``kind``, as ``converter`` gives
    them one at a time: at once where that is a plain cast (a Python float of a float64,
    ``tolist``), else one by one."""
    make = _conversion(kind, values.dtype)
    if make is None or make in (_real_part, _real_copy):
        return list(values)
    if make in (float, int, bool, complex) and values.dtype == _STRONG[kind]:
        return values.tolist()
    if not isinstance(make, type) or values.dtype.kind != np.dtype(make).kind:
        return [make(v) for v in values]
    return list(values.astype(make))


def _same(value):
    return value


def _convert_tagged(table, value, tag_value):
    value = value[()] if type(value) is np.ndarray else value
    # the native call hands the tag over as its one-element buffer (shape (1,)), Python as 0-d
    tag = tag_value.reshape(-1)[0] if type(tag_value) is np.ndarray else tag_value
    return table[int(tag)](value)


def convert_by_tag(value, among: tuple, tag_value):
    """``value`` (a NumPy scalar or 0-d array of the promoted dtype) as the kind its run-time
    tag names."""
    return converter(among, value.dtype)(value, tag_value)


def own_dtype(kind: str) -> np.dtype:
    """The dtype of a value of ``kind`` by itself (a Python int's: int64)."""
    return _STRONG[kind] if kind in _STRONG else np.dtype(kind[3:])


def check_one_dtype(among: tuple, held: np.dtype, what: str, at: str) -> None:
    """Refuse ``np.array`` of values whose kinds (``among``) the data chose where the array's
    dtype would depend on which it chose: NumPy's ``np.array([0, 0])`` is int64 where
    ``np.array([np.float64(1.5), 0])`` is float64, and the compiled code holds one dtype."""
    from jitcore.errors import JitTypeError

    if any(k not in ARRAY_KINDS and not k.startswith(ARRAY_AS) and own_dtype(k) != held for k in among):
        shown = " or ".join(k if k.startswith("np.") else f"Python {k}s" for k in among)
        raise JitTypeError(
            f"{what} of values that are {shown}, as a traced condition chose (at "
            f"{at}): NumPy's dtype for it depends on which the data chose "
            f"({' or '.join(dict.fromkeys(str(own_dtype(k)) for k in among))}), and the "
            f"compiled code holds one. Make the values one type (0.0 in place of 0, float(v)), "
            f"or give the dtype (np.array(..., dtype=np.{held.name}))")
