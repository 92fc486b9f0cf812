"""Session 47: an array from outside the jitted function (a global, a closure cell, a default,
a bound method's attribute, a global list's or dict's item, a class's or a module's attribute)
used both directly and through a value NumPy computed from it alone (``-L``, ``F.T``,
``np.linalg.norm(W)``, ``L * 2``, a helper's ``G * 0.5``). The derived value was computed once,
while tracing, and frozen into the code, while the array itself was read at each call: after
``L[:] = 0.5`` the jitted function mixed the new ``L`` with the old ``-L`` (REPORT t47 h1 W0).
Now the array is a traced input where the code reads it, so every value computed from it is
computed at each call. Each test compares with the plain Python function: results, dtypes,
types, arguments after the call, printed text and errors.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

# -- the functions, generated per holder and form into a real file (autograph reads source) ----

# How each holder spells the array ``X`` in the function; ``{body}`` is the form's expression.
HOLDERS = {
    "global": "A",
    "closure": "A",
    "default": "A",
    "method": "self.A",
    "list": "LST[0]",
    "dict": 'DCT["A"]',
    "class": "Holder.A",
    "module": "holder_mod.A",
}

# Derived from X alone, and X itself used with the traced e.
FORMS = {
    "neg": "X @ e + (-X) @ (e * 2.0)",
    "T": "X @ e + X.T @ e",
    "reshape": "X @ e + X.reshape(-1)[: e.shape[0]] * e",
    "norm": "X @ e / np.linalg.norm(X)",
    "times2": "X @ e + (X * 2) @ e",
    "sum_method": "X @ e + X.sum()",
    "helper": "X @ e + half() @ e",
}

# Each holder's helper reads the holder's array as the function does.
HELPERS = {"global": "half_global()", "closure": "half()", "default": "(A * 0.5)",
           "method": "self.half()", "list": "half_list()", "dict": "half_dict()",
           "class": "half_class()", "module": "half_module()"}

_SOURCE = '''
import numpy as np
import {modname}_holder as holder_mod

A = np.eye(2)
LST = [np.eye(2)]
DCT = {{"A": np.eye(2)}}


class Holder:
    A = np.eye(2)


def half_global():
    return A * 0.5


def half_list():
    return LST[0] * 0.5


def half_dict():
    return DCT["A"] * 0.5


def half_class():
    return Holder.A * 0.5


def half_module():
    return holder_mod.A * 0.5


def f_global(e):
    return {global_}


def f_list(e):
    return {list_}


def f_dict(e):
    return {dict_}


def f_class(e):
    return {class_}


def f_module(e):
    return {module}


def make_closure(A):
    def half():
        return A * 0.5

    def f(e):
        return {closure}

    def get():
        return A

    def put(v):
        nonlocal A
        A = v
    return f, get, put


def f_default(e, A=np.eye(2)):
    return {default}


class Method:
    def __init__(self):
        self.A = np.eye(2)

    def half(self):
        return self.A * 0.5

    def f(self, e):
        return {method}
'''


def _expression(holder: str, form: str) -> str:
    return FORMS[form].replace("X", HOLDERS[holder]).replace("half()", HELPERS[holder])


_made: dict = {}


def _module(form: str, tmp_path_factory):
    """The generated module of ``form`` (one per form, with its holder module)."""
    if form in _made:
        return _made[form]
    where = tmp_path_factory.mktemp(f"derived47_{form}")
    name = f"derived47_{form}"
    (where / f"{name}_holder.py").write_text("import numpy as np\nA = np.eye(2)\n")
    parts = {f"{h}_" if h in ("global", "list", "dict", "class") else h: _expression(h, form)
             for h in HOLDERS}
    (where / f"{name}.py").write_text(_SOURCE.format(modname=name, **parts))
    sys.path.insert(0, str(where))
    try:
        holder_mod = importlib.import_module(f"{name}_holder")
        spec = importlib.util.spec_from_file_location(name, where / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(where))
    _made[form] = (mod, holder_mod)
    return _made[form]


def _case(holder: str, form: str, tmp_path_factory):
    """(plain function, getter, setter) for the holder: the setter rebinds the array."""
    mod, holder_mod = _module(form, tmp_path_factory)
    if holder == "global":
        return mod.f_global, lambda: mod.A, lambda v: setattr(mod, "A", v)
    if holder == "list":
        return mod.f_list, lambda: mod.LST[0], lambda v: mod.LST.__setitem__(0, v)
    if holder == "dict":
        return mod.f_dict, lambda: mod.DCT["A"], lambda v: mod.DCT.__setitem__("A", v)
    if holder == "class":
        return mod.f_class, lambda: mod.Holder.A, lambda v: setattr(mod.Holder, "A", v)
    if holder == "module":
        return mod.f_module, lambda: holder_mod.A, lambda v: setattr(holder_mod, "A", v)
    if holder == "closure":
        return mod.make_closure(np.eye(2))
    if holder == "default":
        f = mod.f_default
        return f, lambda: f.__defaults__[0], lambda v: setattr(f, "__defaults__", (v,))
    obj = mod.Method()
    return obj.f, lambda: obj.A, lambda v: setattr(obj, "A", v)


def _check(jitted, plain, e):
    e_before = e.copy()
    got, want = jitted(e), plain(e.copy())
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(e, e_before)  # the argument after the call


CHANGES = ("in_place", "rebind", "rebind_other")


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("holder", sorted(HOLDERS))
def test_every_holder_and_derived_form_sees_every_change(holder, form, tmp_path_factory):
    plain, get, put = _case(holder, form, tmp_path_factory)
    put(np.eye(2))
    jitted = jc.jit(plain)
    e = np.array([-3.0, 3.0])
    _check(jitted, plain, e)
    get()[0, 1] = 0.5  # written in place between calls
    _check(jitted, plain, e)
    put(np.array([[2.0, -1.0], [0.25, 3.0]]))  # bound anew, the same shape: a cache hit
    _check(jitted, plain, e)
    if form != "reshape":
        put(np.array([[1.5, 0.5], [-2.0, 1.0]], np.float32))  # another dtype
        _check(jitted, plain, e)
    put(np.eye(2))


@settings(max_examples=6, deadline=None)
@given(st.lists(st.floats(-4, 4), min_size=4, max_size=4),
       st.lists(st.floats(-4, 4), min_size=4, max_size=4),
       st.sampled_from(sorted(FORMS)), st.sampled_from(sorted(HOLDERS)))
def test_values_written_between_calls(tmp_path_factory, first, second, form, holder):
    plain, get, put = _case(holder, form, tmp_path_factory)
    put(np.array(first).reshape(2, 2) + 3 * np.eye(2))  # (norm(X) not near zero)
    jitted = jc.jit(plain)
    e = np.array([1.0, -2.0])
    _check(jitted, plain, e)
    get()[...] = np.array(second).reshape(2, 2) + 3 * np.eye(2)
    _check(jitted, plain, e)
    put(np.eye(2))


# -- the reported forms, as written ---------------------------------------------------------

L = np.array([1.0, 1.0])


def clip_both(e):
    return np.clip(e, -L, L)


def plus_twice(e):
    return e + L + (L * 2)


def min_max(e):
    return np.maximum(np.minimum(e, L), -L)


F = np.array([[1.0, 0.1], [0.0, 1.0]])
Q = 0.01 * np.eye(2)


def predict(P):
    return F @ P @ F.T + Q


W = np.array([3.0, 4.0])


def unit(x):
    return x * W / np.linalg.norm(W)


PARAMS = {"K": np.array([1.0, 2.0])}


def params(x):
    return x * PARAMS["K"] - PARAMS["K"].sum()


@pytest.mark.parametrize("fn", [clip_both, plus_twice, min_max, unit, params])
def test_reported_forms(fn):
    global L, W
    saved = L, W, PARAMS["K"]
    try:
        jitted = jc.jit(fn)
        e = np.array([-3.0, 3.0])
        _check(jitted, fn, e)
        L[:] = 0.5
        W[:] = [1.0, 0.0]
        PARAMS["K"][:] = [4.0, 1.0]
        _check(jitted, fn, e)
        L, W = np.array([0.1, 0.1]), np.array([0.0, 2.0])  # rebound: a cache hit
        PARAMS["K"] = np.array([-1.0, 5.0])
        _check(jitted, fn, e)
        assert jitted.cache_info().traces == 1
        L, W = np.array([0.1, 0.2, 0.3]), np.array([1.0, 1.0, 1.0])  # another shape
        PARAMS["K"] = np.array([1.0, 2.0, 3.0])
        _check(jitted, fn, np.array([-3.0, 3.0, 0.0]))
    finally:
        L, W = np.array([1.0, 1.0]), np.array([3.0, 4.0])
        PARAMS["K"] = saved[2]


def test_kalman_predict_sees_a_new_dt():
    jitted = jc.jit(predict)
    P = np.eye(2)
    _check(jitted, predict, P)
    try:
        F[0, 1] = 0.5
        _check(jitted, predict, P)
    finally:
        F[0, 1] = 0.1


def test_the_native_call_stays_on():
    """The function reads L at each call from the native path: no Python-way fallback."""
    jitted = jc.jit(clip_both)
    e = np.array([-3.0, 3.0])
    for _ in range(3):
        jitted(e)
    before = jitted._native_hits.value
    for _ in range(4):
        jitted(e)
    assert jitted._native_hits.value == before + 4
    L[:] = 0.25
    try:
        np.testing.assert_array_equal(jitted(e), clip_both(e))
    finally:
        L[:] = 1.0


def test_a_shape_error_after_a_rebind_is_numpys():
    global L
    jitted = jc.jit(plus_twice)
    e = np.array([-3.0, 3.0])
    _check(jitted, plus_twice, e)
    L = np.array([1.0, 2.0, 3.0])
    try:
        with pytest.raises(ValueError):
            plus_twice(e)
        with pytest.raises(ValueError):
            jitted(e)
    finally:
        L = np.array([1.0, 1.0])


def printed(e):
    print(-L)
    return e + L


def test_printed_text_of_a_derived_value(capsys):
    jitted = jc.jit(printed)
    e = np.zeros(2)
    jitted(e)
    printed(e)
    L[:] = 0.5
    try:
        jitted(e)
        printed(e)
        out = capsys.readouterr().out.splitlines()
        assert len(out) == 4 and out[0] == out[1] and out[2] == out[3] and out[0] != out[2]
    finally:
        L[:] = 1.0


# -- the code that needs an array's data while tracing: as before -----------------------------

MASK = np.array([True, False, True])
N = np.array([3])
SIGN = np.array([1.0, 2.0])


def masked(x):
    return x[MASK] * 2 + MASK.sum()


def first_n(x):
    return x[: int(N[0])] + N


def branch(x):
    if SIGN[0] > 0:
        return x + SIGN
    return x - SIGN


@pytest.mark.parametrize("fn, x, change", [
    (masked, np.arange(3.0), lambda: MASK.__setitem__(1, True)),
    (first_n, np.arange(5.0), lambda: N.__setitem__(0, 2)),
    (branch, np.ones(2), lambda: SIGN.__setitem__(0, -1.0)),
])
def test_data_read_while_tracing_is_still_seen(fn, x, change):
    saved = MASK.copy(), N.copy(), SIGN.copy()
    try:
        jitted = jc.jit(fn)
        _check(jitted, fn, x)
        change()
        _check(jitted, fn, x)
    finally:
        MASK[:], N[:], SIGN[:] = saved
