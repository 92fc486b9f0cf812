"""perf49: searches from the last answer (np.searchsorted, np.interp), interp's neighbours read
without index checks, and (see the later sections) the spectral and ``any()``-loop paths.

Each is differential against NumPy: the same bits, dtypes and Python types. Searches run along
lanes of values in every order a search from the last answer meets: sorted (the answer moves by
0 or 1), strided (it gallops), descending (it gallops down), runs with jumps, random (it
bisects), with duplicates and NaN in the table and in the values.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples

SOME = settings(max_examples=examples(25, ci=10), deadline=None)


def same_bits(got, want, context="") -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, context
    if got.dtype.kind in "fc":
        bits = f"u{got.dtype.itemsize // (2 if got.dtype.kind == 'c' else 1)}"
        np.testing.assert_array_equal(got.view(bits), want.view(bits), context)
    else:
        np.testing.assert_array_equal(got, want, context)


def table(rng, n: int, dtype, duplicates: bool, nans: int) -> np.ndarray:
    """A sorted table of ``n`` values (ties where ``duplicates``), ``nans`` NaNs last."""
    if np.dtype(dtype).kind == "u":
        return np.sort(rng.integers(0, 60 if duplicates else 60000, n)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a = np.sort(np.round(rng.standard_normal(n) * (3 if duplicates else 100), 0 if duplicates else 6))
        a[n - min(nans, n):] = np.nan
    else:
        a = np.sort(rng.integers(-20 if duplicates else -10**6, 20 if duplicates else 10**6, n))
    return a.astype(dtype)


def ordered(rng, a: np.ndarray, m: int, order: str) -> np.ndarray:
    """``m`` values around ``a``'s range in ``order``."""
    finite = a[~np.isnan(a)] if a.dtype.kind == "f" else a
    lo, hi = (float(finite.min()) - 2, float(finite.max()) + 2) if finite.size else (-1.0, 1.0)
    v = rng.uniform(lo, hi, m)
    if order == "sorted":
        v = np.sort(v)
    elif order == "descending":
        v = np.sort(v)[::-1]
    elif order == "strided":  # every k-th knot: the answer moves by k, which gallops
        k = int(rng.integers(2, 40))
        v = np.resize(np.sort(np.concatenate([finite, finite]))[::k], m) if finite.size else v
    elif order == "runs":  # sorted runs that jump back
        v = np.concatenate([np.sort(part) for part in np.array_split(v, int(rng.integers(1, 6)))])
    if a.dtype.kind == "f" and m and rng.random() < 0.3:
        v[rng.integers(0, m, 1 + m // 10)] = np.nan
    if a.dtype.kind == "f":
        v = np.where(rng.random(m) < 0.2, rng.choice(a), v) if a.size else v  # exactly on knots
    return v.astype(a.dtype) if a.dtype.kind == "f" else np.round(v).astype(a.dtype)


ORDERS = ("sorted", "descending", "strided", "runs", "random")
SEARCH = {side: jc.jit(lambda a, v, side=side: np.searchsorted(a, v, side=side))
          for side in ("left", "right")}
INTERP = jc.jit(lambda x, xp, fp: np.interp(x, xp, fp))


@pytest.mark.parametrize("side", ["left", "right"])
@SOME
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), m=st.integers(0, 400),
       order=st.sampled_from(ORDERS), dtype=st.sampled_from(["f8", "f4", "i8", "u2"]),
       duplicates=st.booleans(), nans=st.integers(0, 3), rows=st.sampled_from([None, 1, 3]))
def test_searchsorted_from_the_last_answer_matches_numpy(side, seed, n, m, order, dtype, duplicates,
                                                         nans, rows):
    rng = np.random.default_rng(seed)
    a = table(rng, n, dtype, duplicates, nans)
    v = ordered(rng, a.astype("f8") if dtype == "u2" else a, m, order)
    v = np.clip(v, 0, None).astype(dtype) if dtype == "u2" else v
    if rows is not None:
        v = np.stack([np.roll(v, k) for k in range(rows)])
    same_bits(SEARCH[side](a, v), np.searchsorted(a, v, side=side), f"{a!r} {v!r}")


@SOME
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), m=st.integers(0, 400),
       order=st.sampled_from(ORDERS), duplicates=st.booleans(),
       kind=st.sampled_from(["plain", "lr", "complex"]))
def test_interp_of_ordered_queries_matches_numpy(seed, n, m, order, duplicates, kind):
    rng = np.random.default_rng(seed)
    xp = table(rng, n, "f8", duplicates, 0)
    fp = rng.standard_normal(n)
    if n > 3 and rng.random() < 0.3:
        fp[rng.integers(0, n)] = np.inf  # an infinite slope: NumPy's second try
    x = ordered(rng, xp, m, order)
    if kind == "plain":
        same_bits(INTERP(x, xp, fp), np.interp(x, xp, fp))
    elif kind == "lr":
        f = jc.jit(lambda x, xp, fp: np.interp(x, xp, fp, left=-7.5, right=np.float64(9)))
        same_bits(f(x, xp, fp), np.interp(x, xp, fp, left=-7.5, right=np.float64(9)))
    else:
        c = fp + 1j * rng.standard_normal(n)
        same_bits(INTERP(x, xp, c), np.interp(x, xp, c))


def test_interp_at_the_last_knot_nan_and_scalars():
    xp = np.linspace(0.0, 1.0, 50)
    fp = np.cos(7 * xp)
    x = np.concatenate([xp, [1.0, 1.0, np.nan, 2.0, -1.0], xp[::-1]])
    same_bits(INTERP(x, xp, fp), np.interp(x, xp, fp))
    one = jc.jit(lambda x, xp, fp: np.interp(x[3], xp, fp))(x, xp, fp)
    assert type(one) is np.float64 and one == np.interp(x[3], xp, fp)


def test_semi_lagrangian_advection_matches_numpy():
    """The reporter's program: sorted departure points each step, 20 steps."""

    def advect(u, x, length, shift, steps):
        for _ in range(steps):
            u = np.interp((x - shift) % length, x, u, period=length)
        return u

    x = np.linspace(0.0, 1.0, 2000, endpoint=False)
    u = np.sin(2 * np.pi * x)
    f = jc.jit(advect, static_argnames=("steps",))
    same_bits(f(u, x, 1.0, 0.013, steps=20), advect(u, x, 1.0, 0.013, 20))


def kernels(f, *args) -> list[str]:
    text = f.lower(*args).as_text("optimized")
    return re.findall(r'"kernel\.generic"', text), text


def test_interp_reads_its_neighbours_unchecked_in_one_kernel():
    """searchsorted's answers lie in [0, len(xp)], so interp's ``clip(j - 1, 0, n - 2)`` and
    ``+ 1`` are proved positions: its four reads of xp and fp fuse into the arithmetic (two
    kernels: the search, the rest), with no index check."""
    xp = np.linspace(0.0, 1.0, 100)
    found, text = kernels(INTERP, (xp - 0.013) % 1, xp, np.sin(xp))
    assert len(found) == 2 and "kernel.check_index" not in text, text


def test_a_lane_of_values_is_searched_in_order():
    """A 1-d lane of values is one kernel iteration (a scalar loop that carries the last
    answer), not one independent bisection per value."""
    xp = np.linspace(0.0, 1.0, 100)
    _, text = kernels(SEARCH["right"], xp, xp)
    assert "fills = [0]" in text and "domain = []" in text, text


def test_positions_beyond_the_table_are_still_checked():
    """An answer may be len(a): a gather at it is not proved, and NumPy's IndexError stays."""
    a = np.array([1.0, 2.0, 3.0])
    f = jc.jit(lambda a, v: a[np.searchsorted(a, v)])
    same_bits(f(a, np.array([0.5, 2.5])), a[np.searchsorted(a, np.array([0.5, 2.5]))])
    with pytest.raises(IndexError):
        f(a, np.array([0.5, 9.0]))
    g = jc.jit(lambda a, v: a[np.minimum(np.searchsorted(a, v), 2)])
    same_bits(g(a, np.array([0.5, 9.0])), a[np.minimum(np.searchsorted(a, np.array([0.5, 9.0])), 2)])


# ---- loops that break on any(): the rest of the body is a branch that fusion now reaches ----


def mandelbrot_split(cr, ci, max_iter):
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    it = np.zeros(cr.shape, dtype=np.int32)
    for _ in range(max_iter):
        zr2 = zr * zr
        zi2 = zi * zi
        alive = (zr2 + zi2) <= 4.0
        if not alive.any():
            break
        zi = np.where(alive, 2 * zr * zi + ci, zi)
        zr = np.where(alive, zr2 - zi2 + cr, zr)
        it += alive
    return it


def test_mandelbrot_breaking_on_any_matches_numpy_and_fuses_into_the_branch():
    """``zr * zr`` and ``zi * zi`` (computed before the break's test, read after it, in the
    branch the break leaves) fuse into the update that reads them, and the ``<= 4.0``'s
    broadcast constant, taken out of the loop, is no array read at each iteration: per
    iteration the kernels are the alive test, any(), the three updates and the counters."""
    c = np.linspace(-2, 0.6, 30)[None, :] + 1j * np.linspace(-1.2, 1.2, 20)[:, None]
    cr, ci = c.real.copy(), c.imag.copy()
    f = jc.jit(mandelbrot_split)
    for n in (0, 1, 7, 60):
        got = f(cr, ci, n)
        same_bits(got, mandelbrot_split(cr, ci, n))
    far = np.full((4, 5), 3.0)  # all escape at once: the break is taken
    same_bits(f(far, far, 50), mandelbrot_split(far, far, 50))
    big = np.zeros((400, 600))  # (small arrays' constants stay constants: no fill kernel)
    text = f.lower(big, big, 60).as_text("optimized")
    head, loop = text[:text.index('"scf.while"')], text[text.index('"scf.while"'):]
    assert loop.count('"kernel.generic"') == 9 and "value = 4.0" not in head, text


def test_a_producer_is_not_fused_into_a_loop_body_it_would_rerun_in():
    """A kernel outside a loop that reads memory stays outside (computed once), while one
    before a branch fuses into it; both give NumPy's values."""

    def f(x, n):
        y = x * x + 1.0
        s = np.zeros_like(x)
        for _ in range(n):
            s = s + y
        if s.sum() > 0:
            s = s + x * 3.0
        return s

    x = np.linspace(-1, 1, 50)
    jitted = jc.jit(f)
    same_bits(jitted(x, 5), f(x, 5))
    text = jitted.lower(x, 5).as_text("optimized")
    before_loop = text[:text.index('"scf.while"') if '"scf.while"' in text else text.index('"scf.for"')]
    assert before_loop.count('"kernel.generic"') >= 1, text
