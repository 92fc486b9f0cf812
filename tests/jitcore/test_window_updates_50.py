"""Window updates cost their window (session 50): an update of a slice whose bounds come from the
data (``data[a:b] /= s``, a select over the whole axis) writes only ``[a, b)`` of the carried
buffer (``masked_rows.window_update``, ``schedule._window_loop``), and a window of static size
at a traced start (``canvas[y:y + h, x:x + w] = ...``) is one kernel over the window
(XLA's dynamic_update_slice: ``indexing._window_key``, ``_check_window``'s clamped start),
written in place (``host._own_dim``). NumPy running the same Python is the oracle: values,
dtypes, Python types, the arguments after the call and the errors raised."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.masked_rows import window_update
from jitcore.codegen.plan import Copy, ForLoop, Run
from jitcore.errors import JitIndexError
from tests.jit_once import jit_once

SETTINGS = dict(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def outcome(f, *args):
    """``(result, error type, arguments after the call)`` of ``f(*args)``."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), None, args
    except (IndexError, ValueError, TypeError) as e:
        return None, type(e), args


def check(f, *args):
    want, want_err, want_args = outcome(f, *args)
    got, got_err, got_args = outcome(jit_once(f), *args)
    assert got_err is want_err, (got_err, want_err)
    if want_err is None:
        same(got, want)
    for a, b in zip(got_args, want_args):
        if isinstance(b, np.ndarray):
            same(a, b)


def _loop(f, *args):
    plan = jc.jit(f).lower(*args).plan()
    (loop,) = [s for s in plan.program if isinstance(s, ForLoop)]
    return plan, loop


def _steps(body):
    for s in body:
        yield s
        for arm in ("then", "otherwise", "then_steps", "else_steps", "arms"):
            inner = getattr(s, arm, None)
            if isinstance(inner, tuple):
                yield from _steps(inner)


def _writes_in_place(f, *args) -> bool:
    """Whether no step of ``f``'s loop copies a whole array, and none trades buffers."""
    plan, loop = _loop(f, *args)
    return not any(isinstance(s, Copy) for s in _steps(loop.body)) and not loop.swaps


# -- 1. an update of a slice whose bounds come from the data ------------------------------------

def normalize(data, indptr):
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        s = data[a:b].sum()
        if s > 0:
            data[a:b] /= s
    return data


def scale(data, indptr):
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        data[a:b] *= 2
    return data


def zero(data, indptr):
    for i in range(len(indptr) - 1):
        data[indptr[i]:indptr[i + 1]] = 0
    return data


def add_other(data, v, indptr):
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        data[a:b] += v[a:b]
    return data


def at_most(data, v, indptr):
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        data[a:b] = np.maximum(data[a:b], v[a:b])
    return data


def _data(draw, dtype, n):
    if dtype == np.bool_:
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype)
    values = np.array(draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n)), np.int64)
    if dtype == np.complex128:
        return values.astype(dtype) * (1 - 0.5j)
    return values.astype(dtype) * (0.75 if np.dtype(dtype).kind == "f" else 1)


@st.composite
def windows(draw, dtypes=(np.float64, np.float32, np.int64, np.int32, np.complex128, np.bool_)):
    n = draw(st.integers(0, 24))
    dtype = draw(st.sampled_from(dtypes))
    # bounds out of order, negative (counted from the end), past the end, empty windows
    bounds = draw(st.lists(st.integers(-n - 4, n + 4), min_size=1, max_size=8))
    index_type = draw(st.sampled_from([np.int64, np.int32]))
    return _data(draw, dtype, n), _data(draw, dtype, n), np.array(bounds, index_type)


@settings(**SETTINGS)
@given(windows(dtypes=(np.float64, np.float32)))
def test_normalize_rows_by_their_sums(case):
    data, _, bounds = case
    check(normalize, data, bounds)


@settings(**SETTINGS)
@given(windows(dtypes=(np.float64, np.float32, np.int64, np.int32, np.complex128)))
def test_scale_a_window_in_place(case):
    data, _, bounds = case
    check(scale, data, bounds)


@settings(**SETTINGS)
@given(windows())
def test_set_a_window(case):
    data, _, bounds = case
    check(zero, data, bounds)


@settings(**SETTINGS)
@given(windows(dtypes=(np.float64, np.int64, np.int32, np.complex128)))
def test_add_another_arrays_window(case):
    data, v, bounds = case
    check(add_other, data, v, bounds)


@settings(**SETTINGS)
@given(windows(dtypes=(np.float64, np.float32, np.int64, np.bool_)))
def test_maximum_with_another_arrays_window(case):
    data, v, bounds = case
    check(at_most, data, v, bounds)


def rows_window(img, r):
    for i in range(len(r) - 1):
        img[r[i]:r[i + 1]] += 1
    return img


def planes_window(vol, r):
    for i in range(len(r) - 1):
        vol[r[i]:r[i + 1]] *= -2
    return vol


@settings(**SETTINGS)
@given(st.integers(0, 9), st.integers(0, 9), st.lists(st.integers(-12, 12), min_size=1, max_size=6),
       st.sampled_from([np.int32, np.int64]), st.sampled_from([np.float64, np.int32, np.complex128]))
def test_windows_of_a_matrix_and_a_volume(rows, cols, bounds, index_type, dtype):
    """The window on the first axis, the other axes whole: a box over the first dim."""
    img = np.arange(rows * cols).reshape(rows, cols).astype(dtype)
    check(rows_window, img, np.array(bounds, index_type))
    check(planes_window, img.reshape(rows, cols, 1) - 3, np.array(bounds, index_type))


def test_complex_normalize_within_an_ulp():
    """Complex division's bits are not NumPy's (before this session too: its own algorithm),
    so complex rows are compared within a few ulps."""
    rng = np.random.default_rng(3)
    data = rng.random(40) + 1j * rng.random(40)
    indptr = np.array([0, 5, 5, -3, 12, 40, 38, 100])
    want = normalize(data.copy(), indptr)
    got = jc.jit(normalize)(data.copy(), indptr)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


def test_the_update_writes_only_its_window_in_place():
    """The update kernel is a window update, and its result is the carried buffer itself: no
    step copies or trades the array (the kernel then runs over ``[a, b)`` alone)."""
    indptr = np.arange(0, 121, 3, dtype=np.int64)  # 40 rows: a loop, not unrolled
    data = np.linspace(1.0, 2.0, 120)
    for f, args in ((normalize, (data, indptr)), (scale, (data, indptr)), (zero, (data, indptr)),
                    (add_other, (data, data, indptr))):
        assert _writes_in_place(f, *args), f.__name__
        module = jc.jit(f).lower(*args).optimized()
        kernels = [op for op in module.walk() if op.op_name == "kernel.generic"]
        assert any(window_update(op) is not None for op in kernels), f.__name__


def test_a_long_csr_normalize_runs_over_its_rows():
    """20,000 rows of 0-20 elements: O(nnz) in all, where the whole array per row was
    O(rows * nnz) (seconds)."""
    rng = np.random.default_rng(5)
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 21, 20_000))]).astype(np.int64)
    data = rng.random(int(indptr[-1]))
    want = normalize(data.copy(), indptr)
    got = jc.jit(normalize)(data.copy(), indptr)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def clip_from_other(out, x, indptr, t):
    """A window of one array written from another's (``out`` is the carried buffer)."""
    for i in range(len(indptr) - 1):
        a, b = indptr[i], indptr[i + 1]
        out[a:b] = np.minimum(x[a:b], t) - out[a:b]
    return out


def test_a_window_written_from_another_array():
    x = np.linspace(-1.0, 1.0, 12)
    for bounds in ([0, 4, 9, 12], [5, -2, 3, 40, -40, 6]):
        check(clip_from_other, x[::-1].copy(), x, np.array(bounds), 0.25)


# -- 2. a window of static size at a traced start ------------------------------------------------

def blit(canvas, sprite, pos):
    h, w = sprite.shape
    for k in range(len(pos)):
        y, x = pos[k, 0], pos[k, 1]
        canvas[y:y + h, x:x + w] = np.maximum(canvas[y:y + h, x:x + w], sprite)
    return canvas


def blit_set(canvas, sprite, pos):
    h, w = sprite.shape
    for k in range(len(pos)):
        canvas[pos[k, 0]:pos[k, 0] + h, pos[k, 1]:pos[k, 1] + w] = sprite
    return canvas


def blit_add(canvas, sprite, pos):
    h, w = sprite.shape
    for k in range(len(pos)):
        y, x = pos[k, 0], pos[k, 1]
        canvas[y:y + h, x:x + w] += sprite
    return canvas


def blit_mul(canvas, sprite, pos):
    h, w = sprite.shape
    for k in range(len(pos)):
        y, x = pos[k, 0], pos[k, 1]
        canvas[y:y + h, x:x + w] *= sprite
    return canvas


def blit_div(canvas, sprite, pos):
    h, w = sprite.shape
    for k in range(len(pos)):
        y, x = pos[k, 0], pos[k, 1]
        canvas[y:y + h, x:x + w] /= sprite
    return canvas


def blit_3d(volume, block, pos):
    d, h, w = block.shape
    for k in range(len(pos)):
        z, y, x = pos[k, 0], pos[k, 1], pos[k, 2]
        volume[z:z + d, y:y + h, x:x + w] += block
    return volume


def read_windows(canvas, pos, sprite):
    h, w = sprite.shape
    total = canvas[0:h, 0:w] * 0
    for k in range(len(pos)):
        total = total + canvas[pos[k, 0]:pos[k, 0] + h, pos[k, 1]:pos[k, 1] + w]
    return total


def check_window(f, *args):
    """NumPy's results where the window lies inside the array; where NumPy's slice would be
    another (a negative start, counted from the end; shorter past the edge) jitcore raises
    its IndexError (``kernel.SLICE_CLAMPED``) where NumPy raises ValueError (a shorter window's
    shapes do not broadcast) or succeeds from the end; the arguments as Python leaves them at
    the first such window."""
    want, want_err, want_args = outcome(f, *args)
    got, got_err, got_args = outcome(jit_once(f), *args)
    if got_err is None:
        assert want_err is None
        same(got, want)
    else:
        assert got_err is JitIndexError, got_err
    for a, b in zip(got_args, want_args):
        if isinstance(b, np.ndarray) and want_err is None is got_err:
            same(a, b)


def _inside(pos, shape, window) -> np.ndarray:
    return np.all((pos >= 0) & (pos + np.array(window) <= np.array(shape)), axis=1)


@st.composite
def blits(draw, dtypes=(np.float64, np.float32, np.int64, np.int32, np.complex128)):
    H, W = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    h, w = draw(st.integers(1, min(H, 5))), draw(st.integers(1, min(W, 5)))  # (a longer one never fits)
    dtype = draw(st.sampled_from(dtypes))
    count = draw(st.integers(0, 6))
    pos = np.array(draw(st.lists(st.tuples(st.integers(-H - 3, H + 3), st.integers(-W - 3, W + 3)),
                                 min_size=count, max_size=count)), np.int64).reshape(count, 2)
    if draw(st.booleans()):  # mostly windows inside, at the edges too
        pos = np.clip(pos, 0, [max(H - h, 0), max(W - w, 0)])
    canvas = (np.arange(H * W).reshape(H, W) % 7).astype(dtype)
    sprite = (np.arange(h * w).reshape(h, w) % 5 + 1).astype(dtype)
    return canvas, sprite, pos.astype(draw(st.sampled_from([np.int64, np.int32])))


@settings(**SETTINGS)
@given(blits(dtypes=(np.float64, np.float32, np.int64, np.int32)))
def test_blit_maximum(case):
    check_window(blit, *case)


@settings(**SETTINGS)
@given(blits(dtypes=(np.float64, np.int64, np.complex128)) | blits(dtypes=(np.bool_,)))
def test_blit_set(case):
    canvas, sprite, pos = case
    if canvas.dtype == np.bool_:
        canvas, sprite = canvas.astype(bool), sprite.astype(bool)
    check_window(blit_set, canvas, sprite, pos)


@settings(**SETTINGS)
@given(blits())
def test_blit_add_and_multiply(case):
    check_window(blit_add, *case)
    check_window(blit_mul, *case)


@settings(**SETTINGS)
@given(blits(dtypes=(np.float64, np.float32)))
def test_blit_divide(case):
    check_window(blit_div, *case)


@settings(**SETTINGS)
@given(blits(dtypes=(np.float64, np.int64)))
def test_read_windows(case):
    canvas, sprite, pos = case
    check_window(read_windows, canvas, pos, sprite)


@settings(**SETTINGS)
@given(st.integers(1, 6), st.lists(st.tuples(*[st.integers(-2, 7)] * 3), min_size=0, max_size=4))
def test_blit_3d(n, corners):
    volume = np.arange(8 * 7 * 6, dtype=np.float64).reshape(8, 7, 6)
    block = np.full((min(n, 3), 2, n), 0.5)
    pos = np.array(corners, np.int64).reshape(-1, 3)
    check_window(blit_3d, volume, block, pos)


def test_windows_inside_match_numpy_exactly():
    rng = np.random.default_rng(1)
    canvas, sprite = rng.random((64, 64)), rng.random((16, 16))
    pos = np.array([[0, 0], [48, 48], [0, 48], [48, 0], [20, 31]], np.int32)
    for f in (blit, blit_set, blit_add, blit_mul):
        check(f, canvas, sprite, pos)


@pytest.mark.parametrize("start", [-3, 49, 70, -16, -70])
def test_a_window_over_the_edge_raises_at_that_window(start):
    """NumPy's slice there is shorter (or empty): its ValueError; jitcore's IndexError says
    why, at the same window, the blits before it written."""
    canvas, sprite = np.zeros((64, 64)), np.ones((16, 16))
    pos = np.array([[1, 1], [start, 0], [30, 30]])
    want, want_err, want_args = outcome(blit, canvas, sprite, pos)
    got, got_err, got_args = outcome(jc.jit(blit), canvas, sprite, pos)
    assert want_err is ValueError and got_err is JitIndexError
    same(got_args[0], want_args[0])
    with pytest.raises(JitIndexError, match="static length at a traced start"):
        jc.jit(blit)(canvas.copy(), sprite, pos)


def test_blit_is_one_kernel_over_its_window_in_place():
    """Each blit is one kernel over the 16x16 window, written in the carried canvas: no step
    copies the canvas or gathers its rows."""
    canvas, sprite = np.zeros((64, 64)), np.ones((16, 16))
    pos = np.arange(80).reshape(40, 2) % 48
    assert _writes_in_place(blit, canvas, sprite, pos)
    plan, loop = _loop(blit, canvas, sprite, pos)
    domains = [plan.launches[s.launch] for s in _steps(loop.body) if isinstance(s, Run)]
    module = jc.jit(blit).lower(canvas, sprite, pos).optimized()
    big = [op for op in module.walk() if op.op_name == "kernel.generic" and op.domain()
           and np.prod(op.domain()) > 16 * 16]
    assert domains and not big, [op.domain() for op in big]


def shifted_blit(canvas, pos):
    """Each window reads the rows just above it: in place, the reads must not see this
    window's own writes (``host._own_dim`` compares the positions' values, not only dims)."""
    for k in range(len(pos)):
        y, x = pos[k, 0], pos[k, 1]
        canvas[y + 1:y + 11, x:x + 16] = canvas[y:y + 10, x:x + 16] * 0.5 + 1.0
    return canvas


def test_a_window_read_one_row_above_where_it_is_written():
    canvas = np.arange(40 * 40, dtype=np.float64).reshape(40, 40)
    pos = np.array([[0, 0], [3, 4], [10, 9], [29, 24]] * 10)
    check(shifted_blit, canvas, pos)


def update_once(x, bounds):
    """An update outside a loop, of an argument (not written in its buffer): the whole
    result, the positions outside the window copied."""
    x[bounds[0]:bounds[1]] *= 3
    return x


@pytest.mark.parametrize("bounds", [[2, 6], [-5, 40], [7, 3], [0, 0]])
def test_an_update_not_in_place_writes_every_position(bounds):
    check(update_once, np.arange(10.0), np.array(bounds))
    check(update_once, np.arange(10), np.array(bounds, np.int32))
