"""LLVM's unroller chosen per loop (docs/performance.md, "LLVM's unroller chosen per loop
(unroll51)"): every loop the emitter makes asks that the scalar remainder LLVM's loop vectorizer
leaves after it is not runtime-unrolled (``loops.REMAINDER_HINTS``), but a row's tail of lanes
(``unroll_remainder``). The metadata must be where chosen, and must change no result: the same
bits with and without it, and NumPy's."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen import loops
from tests.budget import examples

rng = np.random.default_rng(51)
A32 = rng.standard_normal((40, 67)).astype(np.float32) * 300
A64 = rng.standard_normal((40, 67)) * 3
A32[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
V = rng.standard_normal(2 * 1000 + 7)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# A few kernels of each emitter kind: elementwise (the remainder of a vectorized loop: C, Fortran,
# reversed and strided layouts), row and full reductions (pairwise leaves, lanes, in order), a
# scan, a row-wise plan, an argmax's lanes.
KERNELS = {
    "astype F": (lambda x: x.astype(np.int16), lambda: np.asfortranarray(A32)),
    "astype reversed": (lambda x: x.astype(np.int16), lambda: A32[::-1, ::-1]),
    "affine step 2": (lambda x: x * 2.0 + 1.0, lambda: V[::2]),
    "exp column": (lambda x: np.exp(x), lambda: A64[:, 5]),
    "row sums": (lambda x: np.sqrt(np.sum(np.abs(x) ** 2, 1)), lambda: A64),
    "full sum f32": (lambda x: np.sum(np.log(np.exp(x))), lambda: (V[:1003] / 3).astype(np.float32)),
    "column max": (lambda x: x.max(axis=0), lambda: A64),
    "argmax rows": (lambda x: x.argmax(axis=1), lambda: A64),
    "cumsum rows": (lambda x: np.cumsum(x, axis=1), lambda: A64),
    "softmax": (softmax, lambda: A32[1:]),
}


def _loop_ids(text: str) -> list[str]:
    """The operands of each loop id in ``text`` (LLVM IR), each spelled out."""
    nodes = dict(re.findall(r"^(!\d+) = !\{ (.*) \}$", text, re.MULTILINE))

    def spelled(name: str, inside=()) -> str:
        if name in inside:
            return "self"
        return re.sub(r"!\d+", lambda m: spelled(m.group(0), inside + (name,)), nodes[name])

    return [spelled(n) for n in dict.fromkeys(re.findall(r"!llvm\.loop (!\d+)", text))]


REMAINDER = '!"llvm.loop.vectorize.followup_epilogue", !"llvm.loop.unroll.runtime.disable"'


ELEMENTWISE = ["astype F", "astype reversed", "affine step 2", "exp column", "cumsum rows"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_loop_asks_that_its_vectorized_remainder_is_not_unrolled(name):
    fn, arg = KERNELS[name]
    ids = _loop_ids(jc.jit(fn).lower(arg()).as_text("llvm"))
    assert ids, "no loop in the kernel"
    for spelled in ids:
        # CHECK: !N = !{ !N, ..., !{ !"llvm.loop.vectorize.followup_epilogue", !{ !"...runtime.disable" } } }
        assert spelled.startswith("self") and REMAINDER in spelled, spelled


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_rows_tail_keeps_its_remainder_unrolled(dtype):
    """Softmax's rows: the lanes' tail (fewer than a chunk of elements, ``unroll_remainder``)
    leaves its remainder to LLVM, the other loops do not."""
    text = jc.jit(softmax).lower(A32[1:].astype(dtype)).as_text("llvm")
    headers = re.findall(r'^"?loop(?:\.\d+)?"?:', text, re.MULTILINE)  # emit_loop's, one a loop
    with_it = [s for s in _loop_ids(text) if REMAINDER in s]
    assert 0 < len(with_it) < len(headers)


def test_the_hints_keep_the_loops_own():
    """A loop's own hints stay beside the follow-up (the loop id holds both)."""
    text = jc.jit(lambda x: np.sum(np.log(np.exp(x)), -1)).lower(A64).as_text("llvm")
    ids = _loop_ids(text)
    assert any('!"llvm.loop.unroll.disable", i32 1' in s and REMAINDER in s for s in ids)


def _compiled(fn, x, hints: dict, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(loops, "REMAINDER_HINTS", hints)
        f = jc.jit(fn)
        assert ("followup_epilogue" in f.lower(x).as_text("llvm")) is bool(hints)  # compiled as asked
        before = x.copy()
        got = f(x)
        np.testing.assert_array_equal(x, before)  # the argument as it was
        return got


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_metadata_changes_no_bit(name, monkeypatch):
    fn, arg = KERNELS[name]
    x = arg()
    with_it = _compiled(fn, x, loops.REMAINDER_HINTS, monkeypatch)
    without = _compiled(fn, x, {}, monkeypatch)
    with np.errstate(all="ignore"):
        want = fn(x)
    assert type(with_it) is type(without) is type(want)
    assert with_it.dtype == without.dtype == want.dtype and with_it.shape == want.shape
    bits = [np.ascontiguousarray(r).reshape(-1).view(np.uint8) for r in (with_it, without)]
    np.testing.assert_array_equal(*bits)
    if want.dtype.kind == "f":  # the math library's exp and log: within its bounds of NumPy's
        np.testing.assert_allclose(with_it, want, rtol=2e-6 if want.dtype == np.float32 else 1e-14)
    else:
        np.testing.assert_array_equal(with_it, want)


CONVERT = jc.jit(lambda x: x.astype(np.int16))
AFFINE = jc.jit(lambda x: x * 2.0 + 1.0)


@settings(max_examples=examples(12, 4), deadline=None)
@given(rows=st.integers(1, 5), cols=st.sampled_from([1, 15, 16, 17, 63, 64, 67]),
       step=st.sampled_from([1, 2, -1, 3]), seed=st.integers(0, 2**16))
def test_remainders_of_every_length_match_numpy(rows, cols, step, seed):
    """The remainder runs 0 to one vector step's iterations (lengths about the vector width),
    and is the whole loop where the stride is not 1 (steps 2, 3 and -1)."""
    r = np.random.default_rng(seed)
    a = (r.standard_normal((rows, cols * abs(step))) * 1000).astype(np.float32)[:, ::step]
    with np.errstate(invalid="ignore"):
        want = a.astype(np.int16)
    got = CONVERT(a)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    v = a.astype(np.float64).reshape(-1)[::abs(step)]
    np.testing.assert_array_equal(AFFINE(v), v * 2.0 + 1.0)
