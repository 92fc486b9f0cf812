"""Ten scientific NumPy programs (issue #12, item 7) run unchanged under ``jc.jit`` and match
NumPy running the same function uncompiled.

The programs live in tools/bench_programs.py, which times them (``tools/bench.py --suite
programs``); here each runs at a small ordinary size, at an edge size (one particle, one point,
a grid without an interior, one triangle, a window as long as the data, an exact fit), and, where
a new draw costs no compile, on hypothesis data of one shape. Results must have NumPy's types,
dtypes and shapes; values are equal bit for bit where the program's arithmetic is elementwise in
the order written (or exact: integer-valued data), and otherwise within a bound stated with its
reason. No program writes its arguments; each test checks that jitcore did not either.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:
    import bench_programs as bp
finally:
    sys.path.pop(0)

PROGRAMS = {p.name: p for p in bp.PROGRAMS}
JITTED = {name: bp.jitted(p) for name, p in PROGRAMS.items()}  # one wrapper each: draws reuse its compile
EPS = np.finfo(np.float64).eps


def _leaves(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


def run_both(name: str, *args, rtol: float | tuple = 0.0, atol: float = 0.0):
    """The program by NumPy and under jit on copies of ``args``; NumPy's result, after checking
    jitcore's against it: the same number of results, each of the same Python type (ndarray or
    NumPy scalar), dtype and shape, values within ``rtol`` (one for all results, or one each) of
    the largest magnitude plus ``atol`` (NaN where NumPy has NaN), and the arguments left as they
    were."""
    fn = PROGRAMS[name].fn
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # NumPy warns of 0/0 in some edge cases: not under test
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    given_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = JITTED[name](*given_args)
    for before, after in zip(args, given_args, strict=True):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(after, before, err_msg=f"{name} wrote its argument under jit")
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves), (name, got, want)
    rtols = rtol if isinstance(rtol, tuple) else (rtol,) * len(want_leaves)
    for k, (g, w, rtol) in enumerate(zip(got_leaves, want_leaves, rtols, strict=True)):
        where = f"{name}, result {k}"
        assert isinstance(g, np.ndarray) == isinstance(w, np.ndarray), (
            f"{where}: {type(g).__name__} where NumPy gives {type(w).__name__}")
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{where}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        if rtol == 0.0 and atol == 0.0 or w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=where)
        else:
            finite = w[np.isfinite(w)]
            scale = float(np.abs(finite).max()) if finite.size else 0.0
            np.testing.assert_allclose(g, w, rtol=0, atol=rtol * scale + atol, equal_nan=True, err_msg=where)
    return want


def floats(shape, lo, hi, **kw):
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False, **kw))


# ----------------------------------------------------------------------------- particles
# Each force is a sum over the other particles, which jitcore adds in another order than NumPy:
# within n * eps of the largest force, scaled by dt into positions and velocities.
PARTICLES_RTOL = 64 * EPS


@pytest.mark.parametrize("n", [7, 2, 1])
def test_particles_step(n):
    rng = np.random.default_rng(n)
    box = 4.0
    run_both("particles", rng.uniform(0, box, (n, 3)), rng.standard_normal((n, 3)), box, 0.05,
             rtol=PARTICLES_RTOL)


@settings(max_examples=examples(15))
@given(pos=floats((6, 3), 0.5, 3.5), vel=floats((6, 3), -5, 5))
def test_particles_step_on_drawn_states(pos, vel):
    """Positions away from the box's faces: one step of dt 0.05 moves a particle less than 0.5,
    so a difference in the last bit never wraps it to the other side (the fixed test wraps)."""
    run_both("particles", pos, vel, 4.0, 0.05, rtol=PARTICLES_RTOL)


# ----------------------------------------------------------------------------- k-means
@pytest.mark.parametrize("points, k", [(50, 4), (1, 1), (9, 9)])
def test_kmeans_step(points, k):
    rng = np.random.default_rng(points)
    centroids = rng.standard_normal((k, 2))
    centroids[-1] += 100.0  # far from every point: a centroid that no point chooses stays
    # Distances are two-term sums, so the labels are NumPy's bit for bit. The centroids' sums are
    # a contraction (a BLAS call or jitcore's loop nest) and the inertia a sum over the points,
    # each possibly in another order than NumPy's: within n * eps of the largest value.
    run_both("kmeans", rng.standard_normal((points, 2)), centroids, rtol=(points * EPS, 0.0, points * EPS))


@settings(max_examples=examples(20))
@given(points=hnp.arrays(np.float64, (30, 2), elements=st.integers(-6, 6).map(float)),
       centroids=hnp.arrays(np.float64, (3, 2), elements=st.integers(-6, 6).map(float)))
def test_kmeans_step_on_integer_grids(points, centroids):
    """Integer coordinates make every distance exact, so ties (equal centroids, points halfway)
    are real ties, and both must take the first centroid."""
    run_both("kmeans", points, centroids)


# ----------------------------------------------------------------------------- heat
@pytest.mark.parametrize("shape, steps", [((12, 9), 5), ((3, 3), 1), ((3, 3), 0), ((2, 5), 3)])
def test_heat_2d(shape, steps):
    u = np.random.default_rng(steps).standard_normal(shape)
    run_both("heat", u, 0.2, steps)  # elementwise in the order written: bit for bit


@settings(max_examples=examples(15))
@given(u=floats((6, 7), -1e3, 1e3), alpha=st.floats(0.0, 0.25), steps=st.integers(0, 6))
def test_heat_2d_on_drawn_grids(u, alpha, steps):
    run_both("heat", u, alpha, steps)


# ----------------------------------------------------------------------------- 3x3 filter
SMOOTH = np.array([[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16


@pytest.mark.parametrize("shape", [(17, 23), (1, 1), (2, 3)])
def test_filter_3x3(shape):
    run_both("filter", np.random.default_rng(3).standard_normal(shape), SMOOTH)


@settings(max_examples=examples(15))
@given(image=floats((8, 8), -1e6, 1e6), weights=floats((3, 3), -2, 2))
def test_filter_3x3_on_drawn_images(image, weights):
    run_both("filter", image, weights)


def smooth_with_edge_padding(image):
    h, w = image.shape
    padded = np.pad(image, 1, mode="edge")
    return sum(padded[i:i + h, j:j + w] for i in range(3) for j in range(3)) / 9


def test_filter_with_edge_padding():
    """mode='edge' (or 'reflect') is the other way users pad an image."""
    image = np.random.default_rng(4).standard_normal((6, 5))
    np.testing.assert_array_equal(jc.jit(smooth_with_edge_padding)(image), smooth_with_edge_padding(image))


# ----------------------------------------------------------------------------- Monte-Carlo
@pytest.mark.parametrize("n", [1000, 1])
def test_monte_carlo_pi_draws_fresh_values_on_every_call(n):
    fn, jitted = PROGRAMS["monte-carlo"].fn, JITTED["monte-carlo"]
    np.random.seed(5)
    want = [fn(n), fn(n), np.random.rand()]  # the last: NumPy's state after the program's draws
    np.random.seed(5)
    got = [jitted(n), jitted(n), np.random.rand()]
    assert [type(v) for v in got] == [type(v) for v in want]
    assert got == want


# ----------------------------------------------------------------------------- interpolation
@pytest.mark.parametrize("knots, queries", [(20, 50), (2, 1), (2, 7)])
def test_interp_linear(knots, queries):
    rng = np.random.default_rng(knots)
    xp = np.sort(rng.choice(np.arange(100.0), knots, replace=False)) / 10
    x = np.concatenate([rng.uniform(-1, 11, queries - 1), xp[:1]])  # one query on a knot
    run_both("interp", xp, rng.standard_normal(knots), x)  # a search and elementwise: bit for bit


XP = np.array([-1.0, 0.0, 0.5, 2.0, 3.25, 7.0])


@settings(max_examples=examples(20))
@given(fp=floats(XP.shape, -1e3, 1e3),
       x=hnp.arrays(np.float64, 16, elements=st.one_of(st.sampled_from(list(XP)), st.floats(-3, 9))))
def test_interp_linear_on_drawn_queries(fp, x):
    run_both("interp", XP, fp, x)


# ----------------------------------------------------------------------------- moving median
@pytest.mark.parametrize("length, window", [(30, 5), (4, 4), (6, 1), (9, 2)])
def test_moving_median(length, window):
    run_both("moving-median", np.random.default_rng(length).standard_normal(length), window)


@settings(max_examples=examples(20))
@given(x=hnp.arrays(np.float64, 20, elements=st.one_of(st.integers(-3, 3).map(float), st.floats(-1e6, 1e6))))
def test_moving_median_on_drawn_data(x):
    """Small integers repeat, so windows hold ties."""
    run_both("moving-median", x, 5)


# ----------------------------------------------------------------------------- histogram
@pytest.mark.parametrize("x", [np.random.default_rng(0).standard_normal(500), np.array([0.3]),
                               np.array([-4.0, 4.0, 3.999, 5.0, -7.0]), np.array([9.0, -9.0])],
                         ids=["normal", "one", "edges", "all-outside"])
def test_normalized_histogram(x):
    run_both("histogram", x)


@settings(max_examples=examples(20))
@given(x=hnp.arrays(np.float64, 40, elements=st.one_of(st.sampled_from([-4.0, -0.125, 0.0, 4.0]),
                                                        st.floats(-5, 5))))
def test_normalized_histogram_on_drawn_samples(x):
    """Bin edges and the range's two ends among the draws."""
    run_both("histogram", x)


# ----------------------------------------------------------------------------- mesh
def grid_mesh(side: int, rng) -> tuple[np.ndarray, np.ndarray]:
    vertices, faces = bp._mesh_args(rng, (side / 300) ** 2)
    return vertices + 0.01 * rng.standard_normal(vertices.shape), faces


def mesh_rtol(faces) -> tuple:
    """Normals come from elementwise work and ``np.add.at`` in face order: bit for bit. The area
    is a sum over the faces, in another order than NumPy's: within n * eps of it."""
    return (0.0, len(faces) * EPS, 0.0)


@pytest.mark.parametrize("side", [4, 2])
def test_mesh_normals(side):
    vertices, faces = grid_mesh(side, np.random.default_rng(side))
    run_both("mesh", vertices, faces, rtol=mesh_rtol(faces))


def test_mesh_normals_of_one_triangle():
    faces = np.array([[0, 1, 2]])
    run_both("mesh", np.array([[0.0, 0, 0], [2, 0, 0], [0, 3, 1]]), faces, rtol=mesh_rtol(faces))


FACES = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [1, 2, 3]])


@settings(max_examples=examples(15))
@given(vertices=hnp.arrays(np.float64, (5, 3), elements=st.integers(-4, 4).map(float)))
def test_mesh_normals_on_drawn_vertices(vertices):
    """Integer coordinates: cross products and their sums are exact, degenerate triangles (NaN
    normals in NumPy too) come up, and so do vertex normals that sum to zero."""
    run_both("mesh", vertices, FACES, rtol=mesh_rtol(FACES))


# ----------------------------------------------------------------------------- least squares
def lstsq_bounds(x, y, degree) -> dict:
    """The normal equations are solved by NumPy's LAPACK and by jitcore's own LU: the two
    solutions differ by about cond(A^T A) * eps relative to the coefficients, and the residual
    sums of squares by that times sum(y^2)."""
    design = x[:, None] ** np.arange(degree + 1)
    cond = np.linalg.cond(design.T @ design)
    return {"rtol": 16 * cond * EPS, "atol": 16 * cond * EPS * float(y @ y)}


@pytest.mark.parametrize("n, degree", [(30, 3), (4, 3), (5, 0)])
def test_polyfit_lstsq(n, degree):
    rng = np.random.default_rng(n)
    x = np.linspace(-1, 1, n) + 0.01 * rng.standard_normal(n)
    y = np.cos(2 * x) + 0.1 * rng.standard_normal(n)
    run_both("lstsq", x, y, degree, **lstsq_bounds(x, y, degree))


X_FIT = np.linspace(-2, 2, 12)


@settings(max_examples=examples(15))
@given(y=floats(X_FIT.shape, -100, 100))
def test_polyfit_lstsq_on_drawn_data(y):
    run_both("lstsq", X_FIT, y, 3, **lstsq_bounds(X_FIT, y, 3))


def fit_with_vander(x, y):
    design = np.vander(x, 4)
    return np.linalg.solve(design.T @ design, design.T @ y)


def test_polyfit_with_vander():
    """np.vander is how many users build the design matrix."""
    y = np.cos(X_FIT)
    got, want = jc.jit(fit_with_vander)(X_FIT, y), fit_with_vander(X_FIT, y)
    np.testing.assert_allclose(got, want, rtol=0, atol=lstsq_bounds(X_FIT, y, 3)["rtol"] * np.abs(want).max())
