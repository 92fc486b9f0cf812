"""The known bugs of the coverage table: each a strict xfail with a minimal reproducer, and a
rule saying which drawn examples of its rows it accounts for (tests/coverage/table.py hands each
bug to its rows, whose ``run_case`` then counts those examples as the bug's)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import jitcore as jc
from tests.coverage.draw import ALL
from tests.coverage.harness import check_same
from tests.coverage.indexing import decode_key
from tests.oracle import assert_matches


@dataclass
class Bug:
    """A known bug, named by a short stable id: ``repro()`` raises ``raises`` while it exists (the
    suite runs it as a strict xfail). ``cases`` are the rows it affects (each checked by hand,
    for the ``families`` given); a drawn example of those rows that hits it (by its ``inputs``,
    or by the ``error`` jitcore raises) counts as the bug's, not as a new failure."""

    name: str
    cases: tuple[str, ...]
    families: tuple[str, ...]
    raises: type
    reason: str
    repro: Callable[[], None] = field(repr=False, default=None)
    inputs: Callable | None = field(repr=False, default=None)
    error: Callable | None = field(repr=False, default=None)


BUGS: list[Bug] = []


def bug(name, cases, families, raises, reason, inputs=None, error=None):
    cases = (cases,) if isinstance(cases, str) else tuple(cases)

    def register(repro):
        BUGS.append(Bug(name, cases, tuple(families), raises, reason, repro, inputs, error))
        return repro
    return register


def numpy_differs(a, b) -> bool:
    """Whether two NumPy results differ bit for bit (the sign of zero counts; NaN matches NaN)."""
    try:
        assert_matches(a, b, 0)
    except AssertionError:
        return True
    return False


def _quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _empty_in_numpy(e, arrays, params) -> bool:
    return isinstance(e, IndexError) and _quiet(lambda x: x[decode_key(params["key"])], arrays[0]).size == 0


# NumPy checks the bounds of integer index arrays only where an element is read: when the index
# arrays broadcast to size 0 (an empty mask or list among them), out-of-range ones pass.
@bug("out-of-range-index-in-an-empty-selection", "x[[i, j], :, mask] (arrays among slices, ints, None)",
     ALL, IndexError, "x[[], [5]] of a (2, 3) array is an empty array in NumPy; jitcore checks the "
     "index 5 against the axis anyway and raises IndexError", error=_empty_in_numpy)
def _repro_out_of_range_index_in_an_empty_selection():
    x = np.zeros((2, 3))
    jc.jit(lambda v: v[np.array([], dtype=np.intp), np.array([5])])(x)  # NumPy: shape (0,)


# Converted code (autograph) builds a list literal of traced arrays as one array where one is
# needed, so np.choose's choices of different shapes (broadcast by NumPy) raise. Hidden until
# session 56: the table renames its functions, and conversion looked functions up by that name.
@bug("choose-ragged-choices-in-converted-code", "np.choose(i, choices, mode)", ALL, ValueError,
     "np.choose(i, [a, b, a]) with b of another (broadcastable) shape than a raises 'setting an "
     "array element with a sequence' under jit, where NumPy broadcasts the choices",
     inputs=lambda arrays, params: np.shape(arrays[1]) != np.shape(arrays[2]))
def _repro_choose_ragged_choices_in_converted_code():
    def choose(i, a, b):
        return np.choose(i, [a, b, a], mode="clip")
    check_same(choose, np.zeros((2, 3), np.int64), np.ones((2, 3)), np.arange(3.0))


def _nonfinite_beside_negative_zero(arrays, params) -> bool:
    z = np.asarray(arrays[0])
    if z.dtype.kind != "c":
        return False
    re, im = z.real, z.imag
    bad_re, bad_im = ~np.isfinite(re), ~np.isfinite(im)
    return bool(((bad_re & (im == 0) & np.signbit(im)) | (bad_im & (re == 0) & np.signbit(re))).any())


# jitcore has no op that joins two float parts into a complex number: nan_to_num rebuilds an
# element with a NaN or inf part as re + im * 1j, which turns a -0.0 other part into +0.0.
@bug("nan-to-num-complex-negative-zero", "np.nan_to_num(x, nan, posinf, neginf)", ["complex"],
     AssertionError, "np.nan_to_num(complex(nan, -0.0)) has imaginary part +0.0 under jit, -0.0 "
     "in NumPy", inputs=_nonfinite_beside_negative_zero)
def _repro_nan_to_num_complex_negative_zero():
    check_same(np.nan_to_num, np.array([complex(np.nan, -0.0)]))


def _complex_infinity_with_where(arrays, params) -> bool:
    z = np.asarray(arrays[0])
    return z.dtype.kind == "c" and params.get("mask") is not None and not np.isfinite(z).all()


# A reduction with where= reads a masked-out element as the identity: for a complex product
# that is a multiplication by 1+0j, and an infinite part times that 0 is NaN, where NumPy
# skips the element (found by tools/parity_report.py, seed 0).
@bug("complex-prod-where-infinity", "np.prod(x, axis, keepdims, where, initial)", ["complex"],
     AssertionError, "np.prod(x, where=m) of complex x with an infinite part gives NaN parts under "
     "jit where NumPy gives inf (a masked element is multiplied in as 1+0j)",
     inputs=_complex_infinity_with_where)
def _repro_complex_prod_where_infinity():
    x = np.array([-22.5 + 88.8j, complex(-39.8, -np.inf), 60.5 + 77.5j])
    check_same(lambda x: np.prod(x, where=np.array([True, True, False]), initial=5), x)
