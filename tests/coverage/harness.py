"""The coverage table's harness: a row (``Case``), how one drawn example of it runs under
``jit`` and on NumPy (``run_case``), and how a family table builds its rows (``case_adder``,
``ufunc_case``).

Every function is written in plain NumPy spelling (``np.exp(x)``, ``np.sum(x, axis=...)``,
``x[::-1, None]``): under ``jit`` it reaches jitcore through NumPy's protocols
(``__array_ufunc__``, ``__array_function__``), and on NumPy arrays it is the oracle. Static
parameters (axes, keys, shapes) are drawn too and passed to the jitted function as one hashable
static argument, so each case has one ``JitFunction`` and repeated signatures hit its cache.
Results are compared as the case's ``Tol`` says (tests/coverage/compare.py). Where NumPy raises,
jitcore must refuse (``REFUSALS``) or raise the same.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

import jitcore as jc
from tests.coverage.compare import EXACT, Tol, compare
from tests.layouts import relayout

NUMPY_ERRORS = (TypeError, ValueError, IndexError, OverflowError)


@dataclass
class Case:
    """One row of the table.

    ``fn(*arrays, **params)`` is what runs under ``jit`` (plain NumPy spelling); ``ref`` is the
    NumPy oracle when ``fn`` itself cannot run on NumPy arrays (``x.at[...]``). ``gen(draw,
    family)`` returns ``(arrays, params)``; ``params`` must be hashable. ``unsupported`` lists
    the families jitcore does not lower yet (strict xfail, ``UnsupportedError``); ``raises``
    overrides the exception those xfails expect. ``error`` cases must raise a ``JitcoreError``
    under jit (a data-dependent output shape). ``bugs`` are the known bugs that affect the row
    (``BUGS`` of tests/coverage/bugs.py; tests/coverage/table.py hands them to their rows)."""

    name: str
    group: str
    fn: Callable
    gen: Callable
    tol: Tol = EXACT
    ref: Callable | None = None
    unsupported: tuple[str, ...] = ()
    raises: type = jc.UnsupportedError
    reason: str = "not lowered yet"
    error: bool = False
    note: str = ""
    bugs: list = field(default_factory=list, repr=False)

    @cached_property
    def jitted(self):
        fn = self.fn

        def run(arrays, params):
            return fn(*arrays, **dict(params))

        run.__name__ = run.__qualname__ = "case"
        return jc.jit(run, static_argnums=1)

    def oracle(self, arrays, params):
        return (self.ref or self.fn)(*arrays, **dict(params))


class Outcome:
    PASS, NA, UNSUPPORTED, KNOWN_BUG = "pass", "n/a", "unsupported", "known bug"


def run_case(case: Case, arrays, params) -> str:
    """Run one drawn example; raises AssertionError on a mismatch and lets ``UnsupportedError``
    out. Returns ``Outcome.PASS``, ``NA`` (NumPy refuses and jitcore too) or ``KNOWN_BUG`` (the
    example hits one of the row's ``bugs``, each with its own strict-xfail reproducer)."""
    arrays = tuple(arrays)
    params = tuple(sorted(params.items())) if isinstance(params, dict) else tuple(params)
    if any(b.inputs is not None and b.inputs(arrays, dict(params)) for b in case.bugs):
        return Outcome.KNOWN_BUG
    try:
        return _run_case(case, arrays, params)
    except Exception as e:
        if any(b.error is not None and b.error(e, arrays, dict(params)) for b in case.bugs):
            return Outcome.KNOWN_BUG
        raise


# What jitcore may raise where NumPy raises: a refusal (an unsupported type, dtype, shape or
# parameter), or the exception NumPy raises. Anything else (an IRError, a VerificationError, a
# PassFailure, a CodegenError, a ConcretizationError) is a bug that NumPy's refusal must not hide.
REFUSALS = (jc.JitTypeError, jc.UnsupportedError)
# What a row whose output shape depends on the data must raise, and what the message must say.
DATA_DEPENDENT = (jc.JitTypeError, "depends on the data")


# The order-tolerance rows whose float16 loops jitcore follows (session 57): sums, products,
# means, variances (their nan* forms, where=, initial=).
_FLOAT16_AS_NUMPY = ("sum", "prod", "mean", "var", "std")


def _float16_expected(case: Case, arrays, plain, params, expected):
    """The answer for float16 operands. Sums, products, means and variances: NumPy's own,
    computed on the operands in their own layouts, as NumPy's float16 loops round to float16
    at points the layout decides (its reduce loop after each inner-loop call: a row, a run of
    kept terms of a ``where=`` sum; its elementwise loop after every add:
    np.ones((5000, 2), np.float16).sum(axis=0) is 2048, a Fortran array's row sums too) and
    jitcore follows both loops (session 57). Contractions (einsum, whose float16
    intermediates NumPy rounds): NumPy's answer computed in float32 and rounded once, as
    jitcore computes them."""
    if case.tol.key in _FLOAT16_AS_NUMPY:
        return case.oracle(arrays, params)
    wide = tuple(a.astype(np.float32) if np.asarray(a).dtype == np.float16 else a for a in plain)
    result = case.oracle(wide, params)

    def narrow(r, e):
        return np.asarray(r).astype(np.float16) if np.asarray(e).dtype == np.float16 else e
    if isinstance(expected, tuple):
        return tuple(narrow(r, e) for r, e in zip(result, expected))
    return narrow(result, expected)


def _run_case(case: Case, arrays, params) -> str:
    context = f"{case.name} on {describe(arrays)} with {dict(params)}"
    # NumPy sees C-contiguous copies of the same values: its own answer can depend on the layout
    # (complex64 np.abs of a negative-stride array comes from hypotf, 1 ULP from its SIMD loop),
    # and the layouts are there to test jitcore.
    plain = tuple(np.array(a, order="C") if isinstance(a, np.ndarray) else a for a in arrays)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = case.oracle(plain, params)
            numpy_error = None
        except NUMPY_ERRORS as e:
            numpy_error = e
        if numpy_error is None and case.tol.mode == "order" and any(
                np.asarray(a).dtype == np.float16 for a in arrays):
            expected = _float16_expected(case, arrays, plain, params, expected)
    if numpy_error is not None or case.error:
        try:
            got = case.jitted(arrays, params)
        except Exception as e:  # noqa: BLE001  (checked below: only a refusal passes)
            if numpy_error is not None and (isinstance(e, REFUSALS) or isinstance(e, type(numpy_error))):
                return Outcome.NA
            if numpy_error is None and isinstance(e, DATA_DEPENDENT[0]) and DATA_DEPENDENT[1] in str(e):
                return Outcome.PASS
            wanted = (f"NumPy raises {type(numpy_error).__name__}: {numpy_error}" if numpy_error
                      else f"expected a {DATA_DEPENDENT[0].__name__} saying the shape "
                           f"{DATA_DEPENDENT[1]}")
            raise AssertionError(f"jitcore raised {type(e).__name__}: {e}; {wanted} ({context})") from e
        if numpy_error is None:
            raise AssertionError(f"expected a JitcoreError under jit, got {got!r} ({context})")
        raise AssertionError(f"NumPy raises {type(numpy_error).__name__}: {numpy_error}; jitcore "
                             f"returned {got!r} ({context})")
    actual = case.jitted(arrays, params)
    compare(case.tol, actual, expected, plain, context, case.ref or case.fn, params)
    return Outcome.PASS


def layout_kind(a) -> str:
    """Which of tests/layouts.py's LAYOUTS an array's layout is."""
    if not isinstance(a, np.ndarray) or a.flags.c_contiguous and a.flags.aligned:
        return "C"
    if not a.flags.aligned:
        return "unaligned"
    if a.flags.f_contiguous:
        return "F"
    if any(s == 0 for s, n in zip(a.strides, a.shape) if n > 1):
        return "broadcast"
    return "reversed" if any(s < 0 for s in a.strides) else "strided"


def same_layout(new: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``new`` (values computed from ``like``) in ``like``'s layout."""
    return new if new is like else relayout(new, layout_kind(like))


def describe(arrays) -> str:
    def one(a):
        kind = layout_kind(a)
        return f"{np.asarray(a).dtype}{list(np.shape(a))}{'' if kind == 'C' else ' ' + kind}"
    return "(" + ", ".join(one(a) for a in arrays) + ")"


def case_adder(cases: list[Case]) -> Callable[..., Case]:
    """A family table's ``case(name, group, fn, gen, **kw)``: builds a row and appends it to the
    table's ``cases``."""
    def case(name, group, fn, gen, **kw) -> Case:
        row = Case(name, group, fn, gen, **kw)
        cases.append(row)
        return row
    return case


def ufunc_case(case, name, group, gen, tol=EXACT, unsupported=(), **kw) -> Case:
    """The row of ``np.<name>``, labelled by its arity (``np.exp(x)``, ``np.add(x, y)``), added
    with the table's ``case``."""
    uf = getattr(np, name)
    label = f"np.{name}(x{', y' if uf.nin == 2 else ''})"
    return case(label, group, uf, gen, tol=tol, unsupported=unsupported, **kw)


def check_same(fn, *args, tol=EXACT):
    """Reproducer helper: jit(fn)(*args) against fn(*args); AssertionError when they differ."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = fn(*args)
    compare(tol, jc.jit(fn)(*args), expected, args, getattr(fn, "__name__", "repro"), fn)
