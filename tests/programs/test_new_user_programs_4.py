"""A new user's NumPy programs, fourth round (newuser26): NumPy's documented idioms the first
three rounds did not use, and program shapes they did not have. Grids (meshgrid sparse and
``indexing='ij'``, mgrid, ogrid, indices), einsum forms, digitize/bincount with weights, clip
with array bounds, take_along_axis/put_along_axis, put/place/putmask, mask and fancy
assignment on both sides, ``np.ix_``, diff with ``n``/``prepend``/``append``, gradient (traced
spacing), cross, outer/kron, tril/triu/diag, pad modes, tile/repeat (per-element counts),
arrays stacked from lists built in loops, ndindex/ndenumerate loops, bit tricks (popcount by
hand, Gray code, xorshift), dtype casts, float16, isclose/allclose, nan functions, modf,
rounding, complex Newton iterations and Mandelbrot counts; and loops with ``break``/``else``,
``while True``, ``assert`` with an f-string, closures, globals, a method jitted on an instance
with array attributes, recursion on Python ints, ``*args``, generators in ``max``/``any``,
dicts built in loops, ``out=`` into a local array. Each runs under ``jc.jit`` against NumPy on
a few inputs chosen for their edges (float16/32/64, ints, uint wraparound, 0-d, size 0,
non-contiguous views, NaN/inf/-0.0), compared as the third round's programs are
(tests/programs/like_numpy.py). Where jitcore refuses a program on purpose (a result whose
length depends on the data, a function not lowered), ``test_refusals_are_jitcores_errors``
checks the error is jitcore's own and says what to do instead.

A Python number a program returns comes back as a NumPy scalar (docs/numpy_support.md,
"Results returned from jit"); the comparison checks values, dtypes and shapes.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import EXACT, cases_and_jitted, check_program

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
f16 = np.float16
RNG = np.random.default_rng(20261202 + 4)
SPECIAL = np.array([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, -2.5, 3.0])


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------------- grids and einsum
def sinc_grid(n):
    x, y = np.meshgrid(np.linspace(-3, 3, n), np.linspace(-2, 2, n + 1), sparse=True)
    r = np.sqrt(x**2 + y**2)
    return np.sinc(r), r.shape


def mgrid_gaussian(n, sigma):
    y, x = np.mgrid[0:n, 0:n]
    c = (n - 1) / 2
    g = np.exp(-((x - c) ** 2 + (y - c) ** 2) / (2 * sigma**2))
    return g / g.sum(), np.hypot(*np.ogrid[:n, : n + 2])


def meshgrid_indexing(n, m):
    X, Y = np.meshgrid(np.arange(n), np.arange(m))
    ii, jj = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
    return X * 10 + Y, ii - jj, np.indices((n, m)).sum(axis=0)


def einsum_forms(A, B, v):
    return (
        np.einsum("ij,jk->ik", A, B),
        np.einsum("ii->", A[:, : A.shape[0]]),
        np.einsum("ij->ji", A),
        np.einsum("i,i->", v, v),
        np.einsum("ij,j->i", A.T, v),
        np.einsum("ij->i", A),
        np.einsum("i,j->ij", v, v),
    )


def batched_einsum(X, Y):
    return np.einsum("bij,bjk->bik", X, Y), np.einsum("bii->b", X @ Y)


# ------------------------------------------------------------- selection, masks, fancy writes
def digitize_histogram(x, bins, w):
    k = np.digitize(x, bins)
    return k, np.bincount(k, weights=w, minlength=bins.shape[0] + 1), np.digitize(x, bins, right=True)


def clip_to_band(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, lo, None), x.clip(max=hi)


def sort_rows_by(x):
    s = np.take_along_axis(x, np.argsort(x, axis=1), axis=1)
    top = np.take_along_axis(x, np.argmax(x, axis=0, keepdims=True), axis=0)
    y = x.copy()
    np.put_along_axis(y, np.argmin(y, axis=1, keepdims=True), -1, axis=1)
    return s, top, y


def put_and_place(a, idx, v):
    b = a.copy()
    np.put(b, idx, v)
    c = a.copy()
    np.place(c, c < 0, [0, 10])
    d = a.copy()
    np.putmask(d, d > 1, v[0])
    return b, c, d


def mask_assign(x, y):
    z = x.copy()
    z[x > y] = y[x > y] * 2
    z[np.isnan(z)] = -1
    w = x.copy()
    w[(w > 0) & (w < 1)] += 10
    return z, w


def fancy_both_sides(a, b, i, j):
    c = a.copy()
    c[i] = b[j]
    c[[0, -1]] = c[[-1, 0]]
    return c


def fancy_2d(A, rows, cols):
    B = A.copy()
    B[rows, cols] = A[cols, rows]
    B[rows[:, None], cols] = 0
    return B, A[np.ix_(rows, cols)]


def searchsorted_lookup(table_x, table_y, q):
    i = np.clip(np.searchsorted(table_x, q) - 1, 0, table_x.shape[0] - 2)
    t = (q - table_x[i]) / (table_x[i + 1] - table_x[i])
    return table_y[i] * (1 - t) + table_y[i + 1] * t


# ------------------------------------------------------- differences, products, shapes
def diff_prepend(x):
    return np.diff(x, n=2, axis=0, prepend=x[:1]), np.diff(x, axis=1, append=np.zeros((x.shape[0], 1)))


def gradients(f, dx):
    gy, gx = np.gradient(f, dx, 2 * dx)
    return gy, gx, np.gradient(f[0]), np.gradient(f[:, 0], edge_order=2)


def torque(r, F):
    planar = r[:, 0] * F[:, 1] - r[:, 1] * F[:, 0]  # 2-vectors: np.cross refuses them since NumPy 2.5
    return np.cross(r, F), np.cross(r[0], F[0]), planar


def outer_kron(a, b):
    return np.outer(a, b), np.kron(a, b), np.kron(np.eye(2), np.outer(a, a)), np.multiply.outer(a, b)


def triangles(A, v):
    return (
        np.tril(A, -1),
        np.triu(A, 1),
        np.diag(v, k=1),
        np.diag(A),
        np.diagonal(A, 1),
        np.trace(A),
        np.diagflat(v),
    )


def pad_modes(x):
    return (
        np.pad(x, 2),
        np.pad(x, (1, 3), mode="edge"),
        np.pad(x, 2, mode="reflect"),
        np.pad(x, 2, mode="wrap"),
        np.pad(x, (2, 1), mode="symmetric"),
        np.pad(x, 1, constant_values=-1),
    )


def tile_repeat(x):
    return np.tile(x, (2, 3)), np.repeat(x, 3), np.repeat(x.reshape(2, -1), [1, 2], axis=0), np.tile(x, 2)


def roll_flip_rot(A):
    return np.roll(A, 1, axis=0), np.roll(A, -2), np.flip(A), np.fliplr(A), np.rot90(A), np.rot90(A, 3)


def splits_and_stacks(x):
    parts = np.array_split(x, 3)
    return [p.sum() for p in parts], np.hsplit(x[:6], [1, 4]), np.column_stack([x, x]), np.dstack([x, -x])


# ------------------------------------------------------------------ loops building arrays
def stack_in_loop(x, n):
    rows = []
    for k in range(n):
        rows.append(np.roll(x, k))
    return np.stack(rows), np.concatenate(rows[::-1])


def apply_along_rows(A):
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        row = A[i]
        out[i] = row.max() - row.min()
    return out


def ndindex_loop(A):
    out = np.zeros(A.shape)
    for idx in np.ndindex(A.shape):
        out[idx] = A[idx] * (idx[0] + 1) - idx[1]
    s = 0.0
    for (i, j), v in np.ndenumerate(A):
        s += v * (i - j)
    return out, s


def comprehension_array(x, n):
    return np.array([x[i] * i for i in range(n)]), np.array([[i * j for j in range(3)] for i in range(n)])


def row_iteration(A):
    out = []
    for i, row in enumerate(A):
        out.append(row.sum() * i)
    acc = 0.0
    for a, b in zip(A[0], A[-1]):
        acc += a * b
    return np.array(out), acc


# ------------------------------------------------------------- integers, bits and dtypes
def popcount32(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101) >> 24


def bit_tricks(x):
    gray = x ^ (x >> 1)
    low = x & -x
    is_pow2 = (x != 0) & ((x & (x - 1)) == 0)
    return gray, low, is_pow2, np.invert(x), np.left_shift(x, 3), np.bitwise_count(x)


def xorshift(seed, n):
    out = np.empty(n, dtype=np.uint64)
    s = np.uint64(seed)
    for i in range(n):
        s ^= s << np.uint64(13)
        s ^= s >> np.uint64(7)
        s ^= s << np.uint64(17)
        out[i] = s
    return out


def uint_wraparound(a, b):
    return a - b, a + b, a * b, a // np.maximum(b, 1), (a - b).astype(np.int16)


def dtype_casts(x):
    return (
        x.astype(np.int32),
        x.astype(np.float32),
        np.clip(x, 0, 255).astype(np.uint8),
        (x > 0).astype(np.int8),
        x.astype(np.float16),
        np.trunc(x).astype(np.int64),
    )


def float16_math(h):
    return h + h, h * f16(0.5), np.sqrt(np.abs(h)), h.sum(), h.astype(np.float32) / 3, h.max(), np.cumsum(h)


def mixed_int_float(i, f):
    return i + f, i / 2, i // 2.0, i % 2.5, i * True, f**i, np.int32(3) * f


def float32_accumulation(x):
    return x.sum(), x.sum(dtype=np.float64), np.add.reduce(x, dtype=np.float64), x.mean()


# ------------------------------------------------------------------- floats and special values
def closeness(a, b):
    return (
        np.isclose(a, b),
        np.allclose(a, b),
        np.isclose(a, b, equal_nan=True),
        np.allclose(a, b, rtol=0.1, atol=0),
    )


def nan_functions(x):
    return (
        np.nanmax(x, axis=0),
        np.nanargmin(x, axis=1),
        np.nanprod(x),
        np.nancumsum(x, axis=1),
        np.nanvar(x, ddof=1),
        np.nan_to_num(x, nan=-1.0, posinf=9.0),
    )


def rounding_and_parts(x):
    frac, whole = np.modf(x)
    return (
        np.round(x, 2),
        np.around(x, -1),
        np.rint(x),
        np.fix(x),
        np.fmod(x, 3),
        np.remainder(x, -3),
        frac,
        whole,
    )


def special_ufuncs(x):
    return np.logaddexp(x, 0.5), np.expm1(x), np.log1p(np.abs(x)), np.copysign(1.0, x), np.heaviside(x, 0.5)


def extremes_with_nan(x):
    return np.argmax(x), np.argmin(x), x.max(), np.fmax.reduce(x), np.fmin.reduce(x), np.maximum.accumulate(x)


def bool_reductions(M):
    return (
        M.any(axis=0),
        M.all(axis=1),
        np.logical_xor.reduce(M, axis=0),
        M.sum(axis=1),
        np.cumsum(M),
        M.mean(),
    )


# ------------------------------------------------------------------------------- complex
def complex_newton_cube_roots(z):
    p = z**3 - 1
    for _ in range(12):
        z = z - p / (3 * z**2)
        p = z**3 - 1
    return z, np.abs(p) < 1e-12


def mandelbrot(c, iters):
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int32)
    for _ in range(iters):
        inside = np.abs(z) <= 2
        z = np.where(inside, z * z + c, z)
        count += inside
    return count


def roots_of_unity(n):
    w = np.exp(2j * np.pi * np.arange(n) / n)
    return w, np.prod(w), np.sum(w**2), np.real(w).sum(), np.isreal(w)


# ------------------------------------------------------------------------- program shapes
def collatz_array(x):
    x = x.copy()
    steps = np.zeros_like(x)
    while np.any(x > 1):
        odd = x % 2 == 1
        live = x > 1
        x = np.where(live, np.where(odd, 3 * x + 1, x // 2), x)
        steps += live
    return steps


def early_exit_search(x, target):
    for i in range(x.shape[0]):
        if x[i] == target:
            break
    else:
        i = -1
    return i


def while_break(x):
    i = 0
    total = 0.0
    while True:
        if i >= x.shape[0] or total > 10:
            break
        total += x[i]
        i += 1
    return total, i


def validated_norm(x):
    if x.size == 0:
        return np.float64(0.0)
    assert x.ndim == 1, f"validated_norm wants a vector, got {x.ndim} dimensions"
    return np.sqrt(x @ x)


def closure_scale(x, k):
    offset = x.mean()

    def scaled(y):
        return (y - offset) * k

    def twice(f, y):
        return f(f(y))

    return scaled(x), twice(scaled, x), [scaled(x[i]) for i in range(2)]


COEFFS = np.array([1.0, -0.5, 0.25, -0.125])
ORDER = 3


def global_polynomial(x):
    acc = np.zeros_like(x, dtype=np.float64)
    for c in COEFFS[::-1]:
        acc = acc * x + c
    return acc, COEFFS[:ORDER] @ COEFFS[1:]


class Accumulator:
    def __init__(self, weights):
        self.weights = weights
        self.scale = 2.0

    @jc.jit
    def apply(self, x):
        return (x * self.weights).sum(axis=-1) * self.scale

    def loss(self, x, y):
        return ((self.apply(x) - y) ** 2).mean()


def method_on_instance(w, x, y):
    acc = Accumulator(w)
    return acc.apply(x), acc.loss(x, y)


def _binom(n, k):
    if k == 0 or k == n:
        return 1
    return _binom(n - 1, k - 1) + _binom(n - 1, k)


def pascal_row(x, n):
    row = np.array([_binom(n, k) for k in range(n + 1)])
    return row, row @ x[: n + 1]


def sum_star_args(*arrays):
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total


def generators_and_dicts(x, t):
    stats = {}
    for name, fn in (("mean", np.mean), ("max", np.max), ("min", np.min)):
        stats[name] = fn(x)
    stats["biggest"] = max(x[i] for i in range(x.shape[0]))
    stats["any_above"] = any(v > t for v in x)
    return stats


def ufunc_out_local(x):
    out = np.empty_like(x)
    np.multiply(x, 2, out=out)
    np.add(out, 1, out=out)
    np.clip(out, -1, 3, out=out)
    return out


def recursive_power(x, n):
    if n == 0:
        return np.ones_like(x)
    half = recursive_power(x, n // 2)
    return half * half * (x if n % 2 else 1)


def strided_views(A):
    B = A[::2, ::-1]
    C = A.T[1:, :]
    return B * 2, C.sum(axis=0), np.ascontiguousarray(B), B[:, :2] + C[:2, :2]


def largest_before_nan(x):
    i = 0
    m = 0.0
    while i < x.shape[0] and x[i] == x[i]:  # stops at the end or at a NaN; x[n] is never read
        m = max(m, abs(x[i]))
        i += 1
    return m, i


def filled_like(x, v, k):
    small = k < 3  # k a Python int: small is a Python bool
    return (
        np.full(x.shape, v),
        np.full_like(np.zeros(2, np.int16), v),
        np.logical_not(small),
        np.invert(small),
    )


# ------------------------------------------------------------------- inputs and tolerances
# name: (function, static_argnames, rtol in eps of the result dtype, [arguments, ...])
PROGRAMS = {
    "sinc_grid": (sinc_grid, ("n",), TIGHT, [(5,), (1,)]),
    "mgrid_gaussian": (mgrid_gaussian, ("n",), TIGHT, [(5, 1.0), (4, f32(2.0))]),
    "meshgrid_indexing": (meshgrid_indexing, ("n", "m"), EXACT, [(3, 4), (1, 2)]),
    "einsum_forms": (
        einsum_forms,
        (),
        TIGHT,
        [
            (normal(3, 4), normal(4, 2), normal(3)),
            (np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2), np.arange(2)),
        ],
    ),
    "batched_einsum": (batched_einsum, (), TIGHT, [(normal(2, 3, 3), normal(2, 3, 3))]),
    "digitize_histogram": (
        digitize_histogram,
        (),
        TIGHT,
        [
            (normal(10), np.array([-1.0, 0.0, 1.0]), normal(10)),
            (np.array([0, 1, 2, 5]), np.array([1, 2, 3]), np.ones(4)),
            (np.array([np.nan, -np.inf, 1.0]), np.array([0.0, 1.0]), np.ones(3)),
        ],
    ),
    "clip_to_band": (
        clip_to_band,
        (),
        EXACT,
        [
            (normal(6), np.full(6, -0.5), np.linspace(0, 1, 6)),
            (np.arange(6), np.array(1), np.array([2, 3, 4, 5, 6, 7])),
            (SPECIAL, -1.0, np.full(8, 2.0)),
        ],
    ),
    "sort_rows_by": (sort_rows_by, (), EXACT, [(normal(3, 4),), (np.array([[3, 1, 2], [0, 5, 5]]),)]),
    "put_and_place": (
        put_and_place,
        (),
        EXACT,
        [
            (np.array([-1.0, 2.0, -3.0, 4.0]), np.array([0, 2]), np.array([9.0, 8.0])),
            (np.array([[1, -2], [3, -4]]), np.array([3, -1]), np.array([7])),
        ],
    ),
    "mask_assign": (
        mask_assign,
        (),
        EXACT,
        [(normal(6), normal(6)), (SPECIAL, np.zeros(8)), (normal(3, 4), normal(3, 4))],
    ),
    "fancy_both_sides": (
        fancy_both_sides,
        (),
        EXACT,
        [
            (normal(6), normal(5), np.array([1, 3]), np.array([4, 0])),
            (np.arange(5), np.arange(10, 15), np.array([-1, 2]), np.array([0, 0])),
        ],
    ),
    "fancy_2d": (
        fancy_2d,
        (),
        EXACT,
        [
            (normal(4, 4), np.array([0, 2]), np.array([1, 3])),
            (np.arange(9).reshape(3, 3), np.array([2, 0]), np.array([1, 1])),
        ],
    ),
    "searchsorted_lookup": (
        searchsorted_lookup,
        (),
        EXACT,
        [(np.array([0.0, 1.0, 3.0]), np.array([0.0, 10.0, 30.0]), np.array([-1.0, 0.5, 2.0, 5.0]))],
    ),
    "diff_prepend": (diff_prepend, (), EXACT, [(normal(4, 3),), (np.arange(12).reshape(4, 3) ** 2,)]),
    "gradients": (
        gradients,
        (),
        EXACT,
        [(normal(4, 5), 0.5), (np.arange(12.0, dtype=f32).reshape(3, 4) ** 2, 1.0)],
    ),
    "torque": (
        torque,
        (),
        EXACT,
        [(normal(4, 3), normal(4, 3)), (np.arange(6).reshape(2, 3), np.ones((2, 3), np.int64))],
    ),
    "outer_kron": (outer_kron, (), EXACT, [(normal(3), normal(2)), (np.arange(3), np.array([1, -1]))]),
    "triangles": (
        triangles,
        (),
        TIGHT,
        [(normal(3, 3), normal(3)), (np.arange(9).reshape(3, 3), np.arange(2))],
    ),
    "pad_modes": (pad_modes, (), EXACT, [(np.arange(5.0),), (np.array([1, 2, 3], np.int16),)]),
    "tile_repeat": (tile_repeat, (), EXACT, [(np.arange(4),), (normal(6),)]),
    "roll_flip_rot": (roll_flip_rot, (), EXACT, [(np.arange(12).reshape(3, 4),), (normal(2, 2),)]),
    "splits_and_stacks": (splits_and_stacks, (), TIGHT, [(np.arange(7.0),), (np.arange(10),)]),
    "stack_in_loop": (stack_in_loop, ("n",), EXACT, [(np.arange(4.0), 3), (normal(5), 1)]),
    "apply_along_rows": (apply_along_rows, (), EXACT, [(normal(4, 3),)]),
    "ndindex_loop": (ndindex_loop, (), TIGHT, [(normal(3, 2),), (np.arange(6).reshape(2, 3),)]),
    "comprehension_array": (comprehension_array, ("n",), EXACT, [(normal(5), 4), (np.arange(3), 2)]),
    "row_iteration": (row_iteration, (), TIGHT, [(normal(3, 4),), (np.arange(6).reshape(2, 3),)]),
    "popcount32": (
        popcount32,
        (),
        EXACT,
        [(np.array([0, 1, 255, 2**32 - 1, 0x80000000], np.uint32),), (np.array([7, 1023], np.int64),)],
    ),
    "bit_tricks": (
        bit_tricks,
        (),
        EXACT,
        [(np.array([0, 1, 6, 8, 12, 127, -128], np.int8),), (np.array([0, 5, 2**31], np.int64),)],
    ),
    "xorshift": (xorshift, ("n",), EXACT, [(np.uint64(88172645463325252), 5)]),
    "uint_wraparound": (
        uint_wraparound,
        (),
        EXACT,
        [
            (np.array([0, 1, 200, 255], np.uint8), np.array([1, 0, 100, 255], np.uint8)),
            (np.array([0, 5], np.uint64), np.array([1, 2], np.uint64)),
        ],
    ),
    "dtype_casts": (
        dtype_casts,
        (),
        EXACT,
        [(np.array([-1.7, 0.5, 2.5, 300.2, 1e3]),), (normal(5, dtype=f32) * 100,)],
    ),
    "float16_math": (
        float16_math,
        (),
        TIGHT,
        [(np.array([1.5, -2.0, 0.1, 300.0], f16),), (np.array([60000.0, 60000.0], f16),)],
    ),
    "mixed_int_float": (
        mixed_int_float,
        (),
        EXACT,
        [(np.arange(4), 1.5), (np.arange(4, dtype=np.int8), f32(2)), (7, 0.5), (np.uint8(3), f16(1.5))],
    ),
    "float32_accumulation": (
        float32_accumulation,
        (),
        TIGHT,
        [(np.full(1000, 0.1, f32),), (normal(7, dtype=f32),)],
    ),
    "closeness": (
        closeness,
        (),
        EXACT,
        [
            (np.array([1.0, np.nan, np.inf, 1e-9]), np.array([1.0 + 1e-9, np.nan, np.inf, 0.0])),
            (np.arange(3), np.arange(3) + 0.2),
        ],
    ),
    "nan_functions": (
        nan_functions,
        (),
        TIGHT,
        [
            (np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0], [0.5, np.inf, -1.0]]),),
            (normal(3, 4, dtype=f32),),
        ],
    ),
    "rounding_and_parts": (
        rounding_and_parts,
        (),
        EXACT,
        [
            (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.567, 14.9, -0.0, np.inf, np.nan]),),
            (np.array([7, -7, 15], np.int32),),
        ],
    ),
    "special_ufuncs": (special_ufuncs, (), TIGHT, [(SPECIAL,), (normal(5, dtype=f32),)]),
    "extremes_with_nan": (
        extremes_with_nan,
        (),
        EXACT,
        [
            (np.array([1.0, np.nan, 3.0]),),
            (np.array([-1.0, 2.0, -np.inf]),),
            (np.array([3, 9, 9, 1], np.int8),),
        ],
    ),
    "bool_reductions": (
        bool_reductions,
        (),
        EXACT,
        [(np.array([[True, False, True], [True, True, False]]),), (np.zeros((0, 3), bool),)],
    ),
    "complex_newton_cube_roots": (
        complex_newton_cube_roots,
        (),
        TIGHT,
        [(np.array([1 + 1j, -1 + 0.5j, -1 - 1j]),), (np.array([2 + 0j], np.complex64),)],
    ),
    "mandelbrot": (mandelbrot, ("iters",), EXACT, [(np.array([0j, 1 + 1j, -1 + 0j, 0.3 + 0.5j]), 20)]),
    "roots_of_unity": (roots_of_unity, ("n",), TIGHT * 4, [(8,), (1,)]),
    "collatz_array": (collatz_array, (), EXACT, [(np.array([1, 6, 7, 27]),), (np.array([3, 2], np.int32),)]),
    "early_exit_search": (
        early_exit_search,
        (),
        EXACT,
        [(np.array([3.0, 1.0, 4.0, 1.0]), 1.0), (np.arange(5), 7), (np.zeros(0), 0.0)],
    ),
    "while_break": (while_break, (), EXACT, [(np.arange(10.0),), (np.ones(3),)]),
    "validated_norm": (validated_norm, (), TIGHT, [(normal(5),), (np.zeros(0),), (np.arange(3),)]),
    "closure_scale": (closure_scale, (), EXACT, [(normal(4), 2.0), (np.arange(4), 3)]),
    "global_polynomial": (
        global_polynomial,
        (),
        EXACT,
        [(normal(5),), (np.arange(4, dtype=np.int32),), (f32(0.5),)],
    ),
    "method_on_instance": (
        method_on_instance,
        (),
        TIGHT,
        [(normal(3), normal(4, 3), normal(4)), (np.arange(3), np.ones((2, 3), f32), np.zeros(2, f32))],
    ),
    # row @ x: NumPy's dot is its BLAS's order (FMAs on some hosts), so not bit for bit.
    "pascal_row": (pascal_row, ("n",), TIGHT, [(normal(6), 5), (np.arange(3), 0)]),
    "sum_star_args": (
        sum_star_args,
        (),
        EXACT,
        [
            (normal(3), normal(3), np.arange(3)),
            (np.int8(3),),
            (np.arange(3, dtype=np.int8), 100, np.int8(100)),
        ],
    ),
    "generators_and_dicts": (
        generators_and_dicts,
        (),
        TIGHT,
        [(normal(5), 0.5), (np.arange(4, dtype=np.uint8), 5)],
    ),
    "ufunc_out_local": (ufunc_out_local, (), EXACT, [(normal(4),), (np.arange(4, dtype=np.int16),)]),
    "recursive_power": (
        recursive_power,
        ("n",),
        EXACT,
        [(normal(4), 5), (np.arange(4), 0), (np.arange(3, dtype=np.int8), 7)],
    ),
    "largest_before_nan": (
        largest_before_nan,
        (),
        EXACT,
        [(np.array([1.0, -3.0, np.nan, 5.0]),), (np.array([1.0, 2.0]),), (np.zeros(0),)],
    ),
    "filled_like": (filled_like, (), EXACT, [(np.ones(3), -0.0, 1), (np.ones((2, 2)), 7.9, 5)]),
    "strided_views": (strided_views, (), EXACT, [(np.arange(20.0).reshape(4, 5),), (normal(6, 3)[::2],)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def _halve_or_negate(a):
    if a > 10:  # a traced test: both branches compile, and they return float64 and int8
        return a / 2
    return -a


def test_a_branch_returning_another_dtype_is_the_dtype_the_data_chose():
    # refused until session 56; now held in the float64 with a tag (type_choice): NumPy's
    # np.float64 or np.int8, as the data chooses
    for v in (100, 3):
        a = np.array(v, np.int8)
        got, want = jc.jit(_halve_or_negate)(a), _halve_or_negate(a)
        assert type(got) is type(want) and got == want


# A program jitcore refuses: (function, arguments, error type, words of its message).
REFUSED = {
    # np.where of one argument: compiled since session 47 (test below)
    # np.nonzero: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.unique with counts: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    "np.repeat with traced counts": (  # (session 49: the message names the rewrites that compile)
        lambda x, c: np.repeat(x, c),
        (np.arange(3), np.array([1, 0, 2])),
        jc.JitTypeError,
        "numpy.repeat with traced per-element counts",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    fn, args, error, words = REFUSED[case]
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)


def test_a_selection_by_np_where_of_one_argument_is_numpys():
    # (refused until session 47: x[np.where(c)] is x[c], returned compacted)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal(6)
        np.testing.assert_array_equal(jc.jit(lambda x: x[np.where(x > 0)])(x), x[np.where(x > 0)])
