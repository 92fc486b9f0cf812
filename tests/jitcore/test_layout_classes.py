"""Layout classes in the signature (``ir/layout_class.py``): a function compiles once per
class of its arguments (C-contiguous, Fortran, reversed, strided, ...), never per stride, and a
call never runs the code of another class: not from the signature cache, the call memo
(``call_memo.py``), the disk cache, nor for a global array (a call-time input)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.ir.layout_class import classify
from tests.layouts import relayout


def _class(a: np.ndarray) -> str:
    return classify(a.shape, a.strides, a.itemsize)


def test_classes_of_views():
    a = np.zeros((4, 3), np.float32)
    f = np.asfortranarray(a)
    views = (a, f, a[::-1, ::-1], a[::2], a.T[::2], a[::-1], f[:, ::-1], f[::-1, ::-1])
    assert [_class(v) for v in views] == [
        "C", "F", "reversed", "strided ug", "strided order 1,0", "C flip 0", "F flip 1", "F flip 0,1"]
    # where NumPy would find a strided array partly dense: its last axis one element apart
    # (u), adjacent axes that merge (m) or not (g); a reshape or ravel views or copies by these
    assert _class(a[:, ::2]) == "strided"  # two elements apart, rows of 3 apart
    assert _class(np.zeros((4, 6))[:, ::2]) == "strided gm"
    assert _class(np.zeros((4, 6))[:, 1:]) == "strided ug"
    assert _class(np.zeros(5)[::-1]) == "reversed"
    assert _class(np.zeros((1, 5))[:, ::-1]) == "reversed"  # an axis of extent 1 does not count
    # a broadcast names its axes of stride 0 (they have no say in NumPy's iteration order)
    assert _class(np.broadcast_to(np.zeros(3), (4, 3))) == "strided ug zero 0"
    column = np.broadcast_to(np.zeros((4, 1)), (4, 3))
    assert _class(column) == "strided zero 1" and _class(column.T) == "strided ug zero 0"
    assert _class(np.broadcast_to(np.zeros((3, 1, 1)), (3, 4, 5))) == "strided gmg zero 1,2"
    assert _class(np.zeros((0, 3))[::-1]) == "C"  # empty: every layout is contiguous


def _views(a: np.ndarray, other: bool = False) -> dict:
    """``a`` in each class; ``other``: the same classes from other buffers and strides."""
    views = {kind: relayout(a, kind) for kind in ("C", "F", "reversed", "strided")}
    if other:
        big = np.zeros((3 * a.shape[0], 2 * a.shape[1]), a.dtype)
        views["strided"] = big[1::3, ::2]
        views["strided"][...] = a
        views["reversed"] = np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1]
    return views


def _both(x):
    return x.sum(), (x * 2).sum(axis=1), x * 2 + 1


@pytest.fixture
def log(caplog):
    saved = config.log_compiles
    config.log_compiles = True
    caplog.set_level(logging.WARNING, logger="jitcore")
    try:
        yield lambda: [r.getMessage() for r in caplog.records if r.name == "jitcore"]
    finally:
        config.log_compiles = saved


def test_one_compile_per_class_and_no_stale_hit(log):
    """C, F, reversed and strided in turn: one compile each, every result NumPy's bit for bit
    (integer values: every order of the sums is exact) with NumPy's layout; then each class
    again, from other buffers with other strides and in another order (keyword calls go
    through the call memo): no compile, no other class's code."""
    a = np.random.default_rng(31).integers(-50, 50, (300, 70)).astype(np.float32)
    f = jc.jit(_both)
    for round_, order in enumerate((("C", "F", "reversed", "strided"), ("strided", "reversed", "F", "C"))):
        views = _views(a, other=round_ > 0)
        for kind in order:
            x = views[kind]
            before = f.cache_info().compiles
            for results in (f(x), f(x=x)):
                total, rows, scaled = results
                want = _both(x)
                assert total == want[0] and total.dtype == want[0].dtype, kind
                np.testing.assert_array_equal(rows, want[1], err_msg=kind)
                np.testing.assert_array_equal(scaled, want[2], err_msg=kind)
                assert scaled.flags.f_contiguous == want[2].flags.f_contiguous, kind
            assert f.cache_info().compiles == before + (round_ == 0), kind
    lines = log()
    assert len(lines) == 4
    assert "x: float32[300,70] fortran" in lines[1] and "layout C-contiguous -> Fortran" in lines[1]
    assert "x: float32[300,70] reversed" in lines[2]
    assert "x: float32[300,70] strided" in lines[3]


def test_memory_order_of_each_class_bit_for_bit():
    """A sum reads a dense argument in memory order of its axes (NumPy's rule), chosen at
    compile time from its class: a Fortran one's; a reversed one, or a C matrix flipped along
    one axis, with each axis that lies backwards read backwards, as NumPy's reductions read a
    negative stride (session 52), so as the same view made inside the function; a strided one
    in C order of its values."""
    a = np.random.default_rng(4).standard_normal((300, 70)).astype(np.float32) * np.float32(1e3)
    a[::3] = np.float32(1e-3)
    total = jc.jit(lambda x: x.sum())
    rows = jc.jit(lambda x: x.sum(axis=1))
    f = relayout(a, "F")
    assert total(f) == total(np.ascontiguousarray(f.T)), _class(f)
    for view, made_inside in ((relayout(a, "reversed"), lambda m: m[::-1, ::-1].sum()),
                              (np.ascontiguousarray(a[::-1])[::-1], lambda m: m[::-1].sum())):
        memory = np.ascontiguousarray(view[::-1, ::-1] if view.strides[1] < 0 else view[::-1])
        assert total(view) == jc.jit(made_inside)(memory), _class(view)
    reversed_ = relayout(a, "reversed")
    assert total(reversed_) == reversed_.sum()  # NumPy's bits
    strided = relayout(a, "strided")
    assert (rows(strided) == rows(a)).all()


def test_the_disk_cache_keeps_a_plan_per_class(tmp_path, monkeypatch):
    """A new function (as a new process would) loads from disk only the plan of its own class."""
    monkeypatch.setattr(config, "cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(config, "disk_cache", True)
    a = np.random.default_rng(5).standard_normal((200, 30))

    def columns(x):
        return x.sum(axis=0)

    f_order = relayout(a, "F")
    first = jc.jit(columns)
    first(f_order)
    for kind, loaded in (("reversed", 0), ("F", 1), ("strided", 0), ("reversed", 1)):
        fresh = jc.jit(columns)
        x = relayout(a, kind)
        got = fresh(x)
        np.testing.assert_allclose(got, x.sum(axis=0), rtol=1e-12, err_msg=kind)
        assert fresh.cache_info().from_disk == loaded, kind


G = np.zeros((100, 40))


def test_a_global_array_of_another_class_retraces():
    """A global array's class is checked on each call, as an argument's: another one retraces
    (and compiles: its sum is read in its memory order)."""
    global G
    a = np.random.default_rng(6).integers(-9, 9, (100, 40)).astype(np.float64)
    f = jc.jit(lambda s: (G * s).sum(axis=1))
    for kind in ("F", "reversed", "strided", "F"):
        G = relayout(a, kind)
        np.testing.assert_array_equal(f(2.0), (G * 2.0).sum(axis=1), err_msg=kind)
    assert (f.cache_info().traces, f.cache_info().compiles) == (3, 3)
