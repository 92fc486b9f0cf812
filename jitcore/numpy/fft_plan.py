"""The discrete Fourier transform along the last axis, written with NumPy's array functions:
traced, each stage is one fused kernel.

Lengths whose prime factors are all at most ``LARGEST_RADIX`` run as a mixed-radix Stockham
transform, decimation in frequency: each stage of radix ``r`` views the data as
``(r, S, P)`` (``S = N / r`` points of each of the ``P`` sub-transforms still to do), and writes

    Z[s, h, p] = w_N^(s h) * sum_j w_r^(h j) * A[j, s, p]

as ``(S, r P)``: every term is a slice of ``A`` broadcast along ``h`` times a small constant, so
the stage is one elementwise kernel that reads its input once and writes its output once, in
natural order at the end (no bit reversal). Powers of two go by eights (``radices``): one pass
for three levels, and LLVM vectorizes those stages well where ``P`` is small. An even radix
first adds each pair of terms ``j`` and ``j + r/2`` with the sign ``(-1)^h`` (a real product
per part), leaving ``r/2 - 1`` complex products an output instead of ``r - 1`` (a radix-8
stage 42 float ops an output where it took 54: numpy.fft's eights 1.3-1.8x faster, fft36); the
other factors (+-i, ...) are complex products: butterflies on the float parts (adds and a part
swap per odd ``h``) measured no faster for complex128 and 1.3-1.6x slower for complex64
(docs/performance.md, fft33). An odd radix pairs ``j`` with ``r - j`` (conjugate roots): real
cosine and sine tables times the pair's sum and difference (``_odd_butterfly``), which LLVM
shares among a point's ``r`` outputs where it unrolls them (in tiles). A real transform of odd
length reads its samples as real in the first stage (half its products) and computes in the
last only the outputs it keeps (rfft's first ``n // 2 + 1`` points, irfft's real parts; fft37).
Other lengths use
Bluestein's algorithm: the transform as a convolution with a chirp, done by two transforms of a
smooth length ``m >= 2n-1`` and the precomputed transform of the chirp.

Twiddle factors are constants computed in float64 from exact integer reductions (octant
symmetry, so each is within an ulp or so of the true root) and rounded once to the data's dtype.
A stage with a long ``S`` takes ``w_N^(s h)`` as the product of two short tables
(``s = s1 B + s0``) instead of one table as long as the data.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims

# fft_real's stages (it builds on this module's, and installs itself here when imported: jitcore.numpy.fft
# imports it), by name
REAL_STAGES: dict = {}

LARGEST_RADIX = 13  # larger prime factors go through Bluestein's algorithm
SPLIT_TWIDDLES_ABOVE = 4096  # a stage whose table of w_N^(s h) would be longer splits it
# Rows transformed side by side (``_to_tiles``): 16 measured best for complex64 and complex128
# alike (8 and 32 slower, 4 slower than rows one by one; docs/performance.md, fft35).
ROW_TILE = 16
# Bytes of a column transform's data below which its stages go by fours (``lane_radices``):
# 256x256 complex128 (1 MiB) ran as fast either way, 512x512 (4 MiB) 10-25% slower by fours
FOUR_RADIX_BELOW = 1 << 20


def roots(num, den: int, sign: int, dtype) -> np.ndarray:
    """``exp(sign * 2 pi i num / den)`` for integer arrays ``num``, in float64 from the angle
    reduced to the first octant by integer arithmetic, then rounded to ``dtype``."""
    k = np.asarray(num, dtype=np.int64) % den
    quadrant, rest = np.divmod(4 * k, den)  # angle = (quadrant + rest / den) * pi / 2
    flip = 2 * rest > den
    angle = (np.pi / 2) * (np.where(flip, den - rest, rest) / den)
    c, s = np.cos(angle), np.sin(angle)
    c, s = np.where(flip, s, c), np.where(flip, c, s)  # (cos, sin) of (rest / den) * pi / 2
    # times i^quadrant: (c, s) -> (-s, c) -> (-c, -s) -> (s, -c)
    re = np.choose(quadrant, [c, -s, -c, s])
    im = np.choose(quadrant, [s, c, -s, -c])
    out = np.empty(k.shape, np.complex128)
    out.real, out.imag = re, sign * im
    return out.astype(dtype)


def radices(n: int) -> list[int] | None:
    """The radix of each stage for length ``n`` (eights first, then a four or a two for the rest
    of the power of two, then odd primes up to ``LARGEST_RADIX``), or None when ``n`` has a
    larger prime factor. Eights: LLVM vectorizes a stage across its 8 outputs ``h`` where it
    unrolls 4 of them and writes each with a strided scatter along ``s`` (the first stages, where
    ``P`` is 1 or 4), and an eight is one pass over the data where two fours are two
    (docs/performance.md, fft34: the float64 rows 1.5-2x faster)."""
    out = []
    while n % 8 == 0:
        out.append(8)
        n //= 8
    for p in (4, 2, 3, 5, 7, 11, 13):
        while n % p == 0:
            out.append(p)
            n //= p
    return out if n == 1 else None


def lane_radices(n: int) -> list[int] | None:
    """``radices`` for a transform across wide lanes (columns) whose data fits in the core's
    cache: fours, and one eight last where the power of two is odd (128: 4 4 8, where
    ``radices`` gives 8 8 2). A column stage computes each output ``h`` from its ``r`` inputs
    on its own, vectorized across the lanes (it reloads the inputs per ``h``; a row stage
    vectorizes across ``h`` instead), so an eight costs nearly twice a four there: 128
    points across 128 lanes, complex128, 55-65 -> 42-47 us of kernels (fft52). Passes over
    data out of cache cost more than that: ``FOUR_RADIX_BELOW``."""
    plan = radices(n)
    twos = (n & -n).bit_length() - 1  # the power of two in n
    if plan is None or twos < 3:
        return plan
    fours = [4] * ((twos - 3) // 2) + [8] if twos % 2 else [4] * (twos // 2)
    return fours + [r for r in plan if r % 2]


def has_real_stages(n: int) -> bool:
    """Whether ``fft_real``'s real stages take length ``n``: odd, above 1, every factor a radix."""
    return n % 2 == 1 and n > 1 and radices(n) is not None


def smooth_length(n: int) -> int:
    """Bluestein's convolution length: the ``2^a 3^b 5^c`` at or above ``n`` with the least
    ``length * stages``, a pass over the data per stage (the shortest is not the fastest:
    20480 = 8^4 5 in 5 stages ran 1.6-2x faster than 20250 = 2 3^4 5^3 in 8, fft34)."""
    top = 1 << max(0, (n - 1).bit_length())  # a power of two is always a candidate
    best, f5 = top, 1
    while f5 < top:
        f35 = f5
        while f35 < top:
            f = f35
            while f < n:
                f *= 2
            if f * len(radices(f)) < best * len(radices(best)):
                best = f
            f35 *= 3
        f5 *= 5
    return best


def _near_root_divisor(s: int) -> int:
    """The divisor of ``s`` nearest below ``sqrt(s)``: the short table's length."""
    b = int(np.sqrt(s))
    while s % b:
        b -= 1
    return b


def _signed(z, signs):
    """``z * signs`` for a real table of +-1 on the parts: exact, two real products."""
    return prims.complex_from_parts(np.real(z) * signs, np.imag(z) * signs)


def _odd_butterfly(term, h, r: int, sign: int, dtype, along: tuple, lanes: tuple = ()):
    """``sum_j w_r^(h j) a_j`` for odd ``r`` by the pairs ``j``, ``r - j``, whose roots are
    conjugate: ``w a_j + conj(w) a_(r-j) = c (a_j + a_(r-j)) + i s (a_j - a_(r-j))`` for
    ``w = c + i s``: real tables times the pair's sum and difference, where two complex
    products took four multiplies and a neg each (``r = 3``: 12 float ops an output where it
    took 14; 5: 24 where 28). The sum and the difference do not depend on ``h``: where LLVM
    unrolls the ``r`` outputs of a point (a stage in tiles, its loops' extents constant) it
    computes them once for all ``r``, as a butterfly does. They are formed at the stage's full
    shape (the terms broadcast along ``h`` first): written apart, ``h``-free, fusion would
    store them (a pass over the data each; fft36). The tables span the tiles' lanes
    (``lanes``): a size-generic kernel then keeps that extent (``ROW_TILE``) a constant
    (``schedule._with_table_dims_constant``), where it read as a run-time ``528 // 33`` at 524
    rows: a vector loop of one iteration behind run-time checks (fft37)."""
    part = np.dtype(dtype).char.lower()
    shape = np.broadcast_shapes(term[0].shape, (r, 1) + along)
    full = [np.broadcast_to(t, shape) for t in term]
    real = full[0].dtype.kind != "c"  # a real transform's first stage: no imaginary parts
    re, im = (full[0], None) if real else (np.real(full[0]), np.imag(full[0]))
    for j in range(1, (r + 1) // 2):
        w = roots(h * j, r, sign, np.complex128)
        c = np.broadcast_to(w.real.astype(part).reshape((r, 1) + along), (r, 1) + lanes)
        s = np.broadcast_to(w.imag.astype(part).reshape((r, 1) + along), (r, 1) + lanes)
        a, b = full[j], full[r - j]
        if real:
            re = re + c * (a + b)
            im = s * (a - b) if im is None else im + s * (a - b)
            continue
        total_re, total_im = np.real(a) + np.real(b), np.imag(a) + np.imag(b)
        diff_re, diff_im = np.real(a) - np.real(b), np.imag(a) - np.imag(b)
        re = re + c * total_re - s * diff_im
        im = im + c * total_im + s * diff_re
    return prims.complex_from_parts(re, im)


def _times(table, t, shape: tuple, dtype):
    """``table * t`` for a complex constant ``table`` (reshaped to ``shape``, in ``dtype``):
    for real ``t`` (a real transform's first stage) two real products, the parts' tables
    apart, where a complex product would multiply the zero imaginary part too."""
    if t.dtype.kind == "c":
        return table.astype(dtype).reshape(shape) * t
    part = np.dtype(dtype).char.lower()
    return prims.complex_from_parts(table.real.astype(part).reshape(shape) * t,
                                    table.imag.astype(part).reshape(shape) * t)


def _stage(a, batch: tuple, n_points: int, r: int, subs: int, sign: int, lanes: tuple = (), dtype=None,
           last: tuple = (None, False), then=None, pairs: bool = False):
    """One radix-``r`` stage on ``a`` of shape ``batch + (n_points, subs) + lanes``; returns
    ``batch + (n_points // r, r * subs) + lanes`` in complex ``dtype`` (default ``a``'s: ``a``
    is real only in a real transform's first stage). ``last`` (the last stage's: see
    ``_transform_along``) keeps only the outputs ``h`` that hold the first ``last[0]`` points
    (None: all), and only their real parts where ``last[1]``: the stage's kernel computes no
    more than that. ``then`` (elementwise) applies to the outputs before they are reshaped to
    ``(s, r * subs)``, so that it fuses into this stage's kernel (a reshape that merges dims
    stops fusion: applied after, it took a pass of its own; fft51). ``pairs`` (a first stage):
    ``a`` is real, ``batch + (n_points, subs, 2) + lanes``, each point's real and imaginary
    parts side by side (rfft's even and odd samples); the stage reads them as complex points
    after its reshape, so the packing fuses into its kernel (packed before, it was a pass and
    a buffer of its own: a reshape stops fusion; fft52)."""
    dtype = dtype or a.dtype
    s = n_points // r
    h = np.arange(r)
    split = s * r > SPLIT_TWIDDLES_ABOVE
    b = _near_root_divisor(s) if split else s
    lead = (slice(None),) * len(batch)
    if pairs:  # each term's parts as real views, so that every read fuses (``_pair_parts``)
        parts = _pair_parts(a.reshape(batch + (r, s // b, b, 1, subs, 2) + lanes), len(batch), r, dtype)
        term = [prims.complex_from_parts(re, im) for re, im in parts]
        a = term[0]
    else:
        a = a.reshape(batch + (r, s // b, b, 1, subs) + lanes)
        term = [a[lead + (slice(j, j + 1),)] for j in range(r)]
    along = (1,) * len(lanes)  # the tables broadcast along the lanes
    # spread across a tile's lanes (``_odd_butterfly``), not across wider ones: a table as
    # wide as a column transform's lanes is one more stream to read (fft51)
    spread = lanes if lanes == (ROW_TILE,) else along
    if r % 2 == 0:
        # w_r^(h (j + r/2)) = (-1)^h w_r^(h j): each pair (j, j + r/2) first, by a real sign
        # per output (exact, two real products), then half as many complex products. The
        # pair depends on h through its sign, so it stays in the stage's kernel (a pair sum
        # read along a broadcast h would be stored: fft31, fft35)
        half = r // 2
        signs = np.broadcast_to(np.where(h % 2 == 0, 1.0, -1.0).astype(np.dtype(dtype).char.lower())
                                .reshape((r, 1) + along), (r, 1) + spread)
        if pairs:
            term = [prims.complex_from_parts(tr + ur * signs, ti + ui * signs)
                    for (tr, ti), (ur, ui) in zip(parts[:half], parts[half:])]
        else:
            term = [t + (_signed(u, signs) if u.dtype.kind == "c" else u * signs)
                    for t, u in zip(term[:half], term[half:])]
    # Odd radices by conjugate pairs in tiles, in one-dimensional transforms and on real
    # samples; rows out of tiles (64 x 1000 complex128: 8 5 5 5) ran 1.3x slower so (fft37)
    if r % 2 == 1 and (lanes or not batch or a.dtype.kind != "c"):
        acc = _odd_butterfly(term, h, r, sign, dtype, along, spread)
    else:
        acc = term[0]
        for j in range(1, len(term)):
            acc = acc + _times(roots(h * j, r, sign, np.complex128), term[j], (r, 1) + along, dtype)
    if s > 1:  # w_N^(s h), s = s1 b + s0
        twiddles = roots(np.outer(np.arange(b), h), n_points, sign, np.complex128)
        acc = _times(twiddles, acc, (b, r, 1) + along, dtype)
        if split:
            s1 = np.arange(s // b) * b
            acc = roots(np.outer(s1, h), n_points, sign, dtype).reshape((s // b, 1, r, 1) + along) * acc
    if acc.dtype.kind != "c":  # a real first stage of radix 2 (or 1 point): its sums are real
        acc = acc.astype(dtype)
    first, real = last
    if first is not None and s == 1 and first < r * subs:  # point k = h subs + p
        r = -(-first // subs)
        acc = acc[(Ellipsis, slice(0, r)) + (slice(None),) * (1 + len(lanes))]
    if real:
        acc = np.real(acc)
    if then is not None:
        acc = then(acc)
    return acc.reshape(batch + (s, r * subs) + lanes)


def _pair_parts(a, lead: int, r: int, dtype) -> list[tuple]:
    """The real and imaginary parts of each of the ``r`` terms of a first stage on points
    stored as pairs (``a``: ``batch + (r, ..., 2) + lanes``, ``lead`` batch dims), as views
    of ``a`` in the parts' dtype. Taken from a complex array built of the pairs, they made
    that array a kernel of its own (its real and imaginary parts read apart)."""
    part = np.dtype(dtype).char.lower()
    tail = (slice(None),) * (a.ndim - lead - 6)  # the lanes after the pair axis
    return [tuple(a[(slice(None),) * lead + (slice(j, j + 1), Ellipsis, p) + tail].astype(part)
                  for p in (0, 1)) for j in range(r)]


def _mixed_radix(z, plan: list[int], sign: int, dtype=None, last: tuple = (None, False), then=None,
                 pairs: bool = False):
    batch, n = z.shape[:-1], z.shape[-1] // (2 if pairs else 1)
    a = z.reshape(batch + ((n, 1, 2) if pairs else (n, 1)))
    n_points, subs = n, 1
    for k, r in enumerate(plan):
        final = k == len(plan) - 1
        a = _stage(a, batch, n_points, r, subs, sign, dtype=dtype,
                   last=last if final else (None, False), then=then if final else None,
                   pairs=pairs and k == 0)
        n_points //= r
        subs *= r
    return a.reshape(batch + (-1,))


def _tiled(batch: tuple, n: int) -> bool:
    """Whether rows of length ``n`` (``batch`` of them) run in tiles (``_to_tiles``): where
    there are enough rows to fill one and the plan starts with something other than an eight
    (eights vectorize along their own outputs: rows of 1024 and 4096 ran 1.5-2x slower tiled)."""
    plan = radices(n)
    return plan is not None and n > 1 and int(np.prod(batch)) >= ROW_TILE and plan[0] != 8


def _to_tiles(z):
    """``ROW_TILE`` rows side by side: ``batch + (k,)`` to ``(tiles, k, ROW_TILE)``, the rows
    padded with zeros to a whole number of tiles. Every stage on a tile reads and writes whole
    lines of its rows contiguously, whatever its radix; the post-processing of real transforms
    reads its mirrored terms (``k`` and ``m - k``) as whole lines too."""
    k = z.shape[-1]
    z = z.reshape(-1, k)
    rows = z.shape[0]
    tiles = -(-rows // ROW_TILE)
    if tiles * ROW_TILE != rows:
        z = np.concatenate([z, np.zeros((tiles * ROW_TILE - rows, k), z.dtype)])
    return z.reshape(tiles, ROW_TILE, k).transpose(0, 2, 1)


def _from_tiles(a, batch: tuple):
    """``_to_tiles`` undone: ``(tiles, k, ROW_TILE)`` to ``batch + (k,)``."""
    tiles, k = a.shape[:2]
    rows = int(np.prod(batch))
    out = a.transpose(0, 2, 1).reshape(tiles * ROW_TILE, k)
    return (out[:rows] if rows != tiles * ROW_TILE else out).reshape(batch + (k,))


def _along(a, axis: int, index):
    """``a[..., index]`` on ``axis`` (-1, or -2 in tiles)."""
    return a[(Ellipsis, index) + (slice(None),) * (-axis - 1)]


def _transform_along(z, sign: int, axis: int, dtype=None, first: int | None = None, real: bool = False,
                     then=None, pairs: bool = False):
    """The unscaled transform along ``axis``: -1 (any batch), or -2 of tiles, in complex
    ``dtype`` (default ``z``'s). A real ``z`` (a real transform's samples) is read as real by
    the first stage (``_stage``: half its products). Where the caller needs only the first
    ``first`` points (rfft: ``n // 2 + 1``) the result may stop after them (the last stage
    computes the outputs that hold them: two of three for a radix 3), and where it needs only
    the real parts (``real``: irfft) it gets them alone, the imaginary parts never computed.
    ``then`` (elementwise) goes into the last stage's kernel. ``pairs``: ``z`` is real, each
    point's parts side by side along ``axis`` (twice the transform's length; ``dtype``
    given), read as complex by the first stage (``_stage``)."""
    n = z.shape[axis] // (2 if pairs else 1)
    dtype = dtype or z.dtype
    plan = radices(n)
    if pairs and (plan is None or n == 1):  # Bluestein's algorithm: the points packed first
        part = np.dtype(dtype).char.lower()
        z = prims.complex_from_parts(_along(z, axis, slice(0, None, 2)).astype(part),
                                     _along(z, axis, slice(1, None, 2)).astype(part))
        pairs = False
    if n == 1 or plan is None and z.dtype != dtype:
        z = z.astype(dtype)
    if n == 1:  # the identity (its real part for ``real``: no complex-to-real cast's warning)
        z = np.real(z) if real else z
        return z if then is None else then(z)
    if plan is None:
        out = _bluestein(z, sign)
        out = np.real(out) if real else out
        return out if then is None else then(out)
    if axis == -1:
        return _mixed_radix(z, plan, sign, dtype, (first, real), then, pairs)
    tiles, lanes = z.shape[0], z.shape[-1]
    if lanes != ROW_TILE and tiles * n * lanes * np.dtype(dtype).itemsize < FOUR_RADIX_BELOW:
        plan = lane_radices(n)
    a = z.reshape((tiles, n, 1, 2, lanes) if pairs else (tiles, n, 1, lanes))
    n_points, subs = n, 1
    for k, r in enumerate(plan):
        last = (first, real) if k == len(plan) - 1 else (None, False)
        a = _stage(a, (tiles,), n_points, r, subs, sign, (lanes,), dtype, last,
                   then if k == len(plan) - 1 else None, pairs and k == 0)
        n_points //= r
        subs *= r
    return a.reshape(tiles, -1, lanes)


def _bluestein(z, sign: int):
    """``X_k = c_k sum_j (z_j c_j) conj(c_(k-j))``, ``c_k = w_2n^(k^2)``: a circular convolution of
    length ``m``, by transforms of length ``m`` (the chirp's transform is a constant)."""
    batch, n = z.shape[:-1], z.shape[-1]
    m = smooth_length(2 * n - 1)
    plan = radices(m)
    k = np.arange(n, dtype=np.int64)
    chirp = roots(k * k % (2 * n), 2 * n, sign, np.complex128)
    kernel = np.zeros(m, np.complex128)
    kernel[:n] = chirp.conj()
    kernel[m - n + 1:] = chirp[1:].conj()[::-1]
    # the chirp's transform, a constant: by NumPy's own transform, once while tracing (pocketfft
    # is faster than these stages run on NumPy arrays); the inverse's 1/m folded in
    kernel_hat = np.fft.fft(kernel) / m if sign < 0 else np.fft.ifft(kernel)
    padded = np.concatenate([z * chirp.astype(z.dtype), np.zeros(batch + (m - n,), z.dtype)], axis=-1)
    spectrum = _mixed_radix(padded, plan, sign) * kernel_hat.astype(z.dtype)
    return _mixed_radix(spectrum, plan, -sign)[..., :n] * chirp.astype(z.dtype)


def transform(z, sign: int, then=None):
    """``then`` (an elementwise function; None: none) of the unscaled transform of complex
    ``z`` along its last axis: ``sign = -1`` forward (``sum_j z_j exp(-2 pi i jk/n)``), ``+1``
    backward. ``n >= 1``. ``then`` goes into the last stage's kernel (rows in tiles: before
    they are transposed back)."""
    batch, n = z.shape[:-1], z.shape[-1]
    if not _tiled(batch, n):
        return _transform_along(z, sign, -1, then=then)
    return _from_tiles(_transform_along(_to_tiles(z), sign, -2, then=then), batch)


def _lane_shape(shape: tuple, axis: int, n: int):
    """``(outer, lanes)``: an array of ``shape`` as ``(outer, shape[axis], lanes)`` for a
    transform along ``axis`` (not the last) whose complex transform has length ``n``; None
    where the lanes are too few to fill a vector loop (``ROW_TILE``) or ``n`` needs
    Bluestein's algorithm (its convolution runs along the last axis): move the axis last."""
    axis %= len(shape)
    lanes = int(np.prod(shape[axis + 1:]))
    if lanes < ROW_TILE or radices(n) is None:
        return None
    return int(np.prod(shape[:axis])), lanes


def transform_lanes(z, axis: int, sign: int, then=None):
    """``transform`` of complex ``z`` along ``axis``, not its last, in place: the axes after
    it are lanes that every stage reads and writes whole and contiguous (vectorized across
    the columns), where moving ``axis`` last took a transposed copy before the stages and one
    after (fft51: 128x128 complex128, three of ``fft2`` + ``ifft2``'s eleven passes). None
    where the lanes are too few to fill a vector loop (``ROW_TILE``) or the length needs
    Bluestein's algorithm (its convolution runs along the last axis): move the axis instead."""
    n = z.shape[axis]
    outer = _lane_shape(z.shape, axis, n)
    if outer is None:
        return None
    return _transform_along(z.reshape(outer[0], n, outer[1]), sign, -2, then=then).reshape(z.shape)


def resized(a, n: int, axis: int = -1):
    """``a`` cut or zero-padded to ``n`` along ``axis``."""
    axis %= a.ndim
    have = a.shape[axis]
    if have >= n:
        return a[(slice(None),) * axis + (slice(0, n),)]
    pad = np.zeros(a.shape[:axis] + (n - have,) + a.shape[axis + 1:], a.dtype)
    return np.concatenate([a, pad], axis=axis)


def _pieces(parts: list, axis: int = -1):
    """``np.concatenate`` of the non-empty ``parts``."""
    parts = [p for p in parts if p.shape[axis]]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=axis)


def _column(values, axis: int):
    """A 1-d table shaped to broadcast along ``axis``'s lanes."""
    return values.reshape((-1,) + (1,) * (-axis - 1))


def _real_length(n: int) -> int:
    """The complex transform's length in a real transform of length ``n``: ``n // 2`` (the
    samples packed in pairs) where ``n`` is even and at least 4, else ``n``."""
    return n if n % 2 or n < 4 else n // 2


def _forward_along(x, dtype, axis: int):
    """The first ``n // 2 + 1`` terms of the forward transform of real ``x`` along ``axis``
    (-1, any batch; or -2 of ``(outer, n, lanes)``: tiles, or a column transform's lanes), in
    complex ``dtype``. For even ``n``, by one complex transform of half the length: the even
    terms as real parts, the odd ones as imaginary parts, then the two spectra taken apart
    (terms ``k`` and ``m - k``, whole lines of lanes along -2)."""
    n = x.shape[axis]
    half = _real_length(n) == n
    m = n if half else n // 2
    part = np.dtype(dtype).char.lower()
    # real samples: the first stage's products are real (``_stage``); else the even and odd
    # samples as the parts of m points, packed by the first stage (``pairs``: no product by 1j)
    z = x.astype(part) if half else x
    spectrum = _transform_along(z, -1, axis, np.dtype(dtype), first=n // 2 + 1 if half else None,
                                pairs=not half)
    if half:
        return _along(spectrum, axis, slice(0, n // 2 + 1))
    first = _along(spectrum, axis, slice(0, 1))
    same = _pieces([spectrum, first], axis)  # Z[k], k = 0..m (Z[m] = Z[0])
    # conj(Z[(m - k) % m])
    mirror = np.conjugate(_pieces([first, _along(spectrum, axis, slice(None, 0, -1)), first], axis))
    rotate = _column((roots(np.arange(m + 1), n, -1, np.complex128) * -0.5j).astype(dtype), axis)
    return (same + mirror) * np.asarray(0.5, dtype) + rotate * (same - mirror)


def real_forward(x, dtype, then=None):
    """``then`` (elementwise; None: none) of the first ``n // 2 + 1`` terms of the forward
    transform of real ``x`` (last axis), in complex ``dtype`` (``_forward_along``)."""
    batch, n = x.shape[:-1], x.shape[-1]
    then = then or (lambda a: a)
    if not _tiled(batch, _real_length(n)):
        return then(_forward_along(x, dtype, -1))
    # the real samples into tiles (half the bytes of the packed ones; rows a whole number of
    # tiles: no copy), packed through the tiles' transpose
    return _from_tiles(then(_forward_along(_to_tiles(x), dtype, -2)), batch)


def real_forward_lanes(x, axis: int, dtype, then=None):
    """``real_forward`` along ``axis``, not the last, in place: the axes after it are lanes
    (``transform_lanes``), and the post-processing pairs terms ``k`` and ``m - k`` as whole
    lines of them, where moving the axis last took a transposed copy before and after (a
    transposed write). None where ``_lane_shape`` is."""
    n = x.shape[axis]
    outer = _lane_shape(x.shape, axis, _real_length(n))
    if outer is None:
        return None
    shape = list(x.shape)
    shape[axis] = n // 2 + 1
    out = _forward_along(x.reshape(outer[0], n, outer[1]), dtype, -2)
    return (out if then is None else then(out)).reshape(shape)


def _interleaved(z, axis: int):
    """The parts of complex ``z`` side by side along a new axis of 2 after ``axis`` (-1, or -2
    in tiles): one kernel choosing the part by its position, on the stored transform (a reshape
    stops fusion, so it comes first). ``np.stack`` of the parts was a kernel per part and one
    to join them (three passes in tiles, two outside)."""
    k = z.ndim + axis + 1
    z = z.reshape(z.shape[:k] + (1,) + z.shape[k:])
    return np.where(_column(np.arange(2) == 0, axis), np.real(z), np.imag(z))


def _backward_along(c, n: int, axis: int, lanes: tuple):
    """The unscaled backward transform, real, of length ``n``, of the Hermitian spectra ``c``
    along ``axis`` (-1, any batch; or -2 of ``(outer, n // 2 + 1, lanes)``: tiles, or a
    column transform's ``lanes``), their first ``n // 2 + 1`` terms, the imaginary parts of
    terms 0 and ``n / 2`` ignored."""
    half = n // 2 + 1
    if n % 2 and has_real_stages(n):  # odd: stages computing half their outputs (fft_real)
        return REAL_STAGES["hermitian_to_real"](c, n, lanes)
    ends = [_along(c, axis, slice(0, 1)).real.astype(c.dtype)]
    if _real_length(n) == n:
        tail_end = half - 1 if n % 2 == 0 else half
        if n % 2 == 0 and n > 1:
            ends.append(_along(c, axis, slice(half - 1, half)).real.astype(c.dtype))
        spectrum = _pieces([ends[0], _along(c, axis, slice(1, tail_end)), *ends[1:],
                            np.conjugate(_along(c, axis, slice(tail_end - 1, 0, -1)))], axis)
        return _transform_along(spectrum, 1, axis, real=True)
    # Even n: Z[k] = (X[k] + conj(X[m-k])) + i w^-k (X[k] - conj(X[m-k])), k < m, is the
    # transform of y[2j] + i y[2j+1] (y the result), so one half-length transform gives y.
    m = n // 2
    top = _along(c, axis, slice(m, m + 1)).real.astype(c.dtype)
    same = _pieces([ends[0], _along(c, axis, slice(1, m))], axis)
    mirror = np.conjugate(_pieces([top, _along(c, axis, slice(m - 1, 0, -1))], axis))
    rotate = _column((roots(np.arange(m), n, 1, np.complex128) * 1j).astype(c.dtype), axis)
    return _transform_along(same + mirror + rotate * (same - mirror), 1, axis)


def real_backward(c, n: int, then=None):
    """``then`` (elementwise; None: none) of the unscaled backward transform of the Hermitian
    spectrum ``c`` (its first ``n // 2 + 1`` terms, the imaginary parts of terms 0 and ``n / 2``
    ignored), real, of length ``n``."""
    c = resized(c, n // 2 + 1)
    batch = c.shape[:-1]
    then = then or (lambda a: a)
    packed = _real_length(n) != n  # the result's pairs y[2j], y[2j + 1] as complex terms
    if not _tiled(batch, _real_length(n)):
        out = _backward_along(c, n, -1, ())
        return then(_interleaved(out, -1)).reshape(batch + (n,)) if packed else then(out)
    out = _backward_along(_to_tiles(c), n, -2, (ROW_TILE,))
    out = then(_interleaved(out, -2) if packed else out)
    return _from_tiles(out.reshape(-1, n, ROW_TILE), batch)


def real_backward_lanes(c, n: int, axis: int, then=None):
    """``real_backward`` along ``axis``, not the last, in place over the lanes after it (as
    ``real_forward_lanes``); None where ``_lane_shape`` is."""
    c = resized(c, n // 2 + 1, axis)
    outer = _lane_shape(c.shape, axis, _real_length(n))
    if outer is None:
        return None
    shape = list(c.shape)
    shape[axis] = n
    out = _backward_along(c.reshape(outer[0], n // 2 + 1, outer[1]), n, -2, (outer[1],))
    if _real_length(n) != n:
        out = _interleaved(out, -2)
    out = out if then is None else then(out)
    return out.reshape(shape)
