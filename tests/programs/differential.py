"""Running a random program (tests/programs/generator.py) under jit, unfused and with NumPy,
and comparing what each returns and leaves in its arguments."""

from __future__ import annotations

import warnings

import numpy as np

import jitcore
from jitcore.codegen.errors import CodegenError
from jitcore.compiler import DEFAULT_PIPELINE
from jitcore.ir.errors import IRError
from jitcore.passes import PassFailure
from tests.oracle import assert_matches
from tests.programs.generator import FREE, Program
from tests.programs.pinned_numpy import PINNED

# The default pipeline without ``fuse``: ``kernelize`` alone leaves one kernel per op.
UNFUSED = ",".join(p for p in DEFAULT_PIPELINE.split(",") if p != "fuse")
INTERNAL_ERRORS = (IRError, PassFailure, CodegenError)  # a compiler bug, never a user's error


def run_numpy(program: Program, inputs=None):
    """(results, arguments after the call) of the program run by NumPy (max/min ties pinned),
    on ``inputs`` (default: the program's)."""
    args = [i.make() for i in inputs or program.inputs]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return program.function(PINNED)(*args), args


def jit_compiler(pipeline: str = DEFAULT_PIPELINE):
    """A compiler for ``check``: the program under ``jitcore.jit`` with ``pipeline``."""
    def run(program: Program):
        fn = jitcore.jit(program.function(np), pipeline=pipeline)
        if program.recall and pipeline == DEFAULT_PIPELINE:
            _check_recall(program, fn)
        args = [i.make() for i in program.inputs]
        return fn(*args), args
    run.__name__ = "fused" if pipeline == DEFAULT_PIPELINE else "unfused"
    return run


COMPILERS = (jit_compiler(DEFAULT_PIPELINE), jit_compiler(UNFUSED))


def _compare(actual, expected, ulps, what, rel=None):
    """One value: dtype, shape, scalar or array, and (unless ``ulps`` is FREE) the elements;
    ``rel``: (tol, floor), within ``tol`` of the larger of NumPy's largest magnitude and ``floor``."""
    assert isinstance(actual, np.ndarray) == isinstance(expected, np.ndarray), (
        f"{what}: {type(actual).__name__} where NumPy gives {type(expected).__name__}")
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{what}: {actual.dtype}{list(actual.shape)} where NumPy gives "
        f"{expected.dtype}{list(expected.shape)}")
    if ulps != FREE:
        assert_matches(actual, expected, int(ulps), what)
    elif rel is not None:
        _assert_near(actual, expected, *rel, what)


def _assert_near(actual, expected, tol, floor, what):
    a, e = actual.astype(np.complex128), expected.astype(np.complex128)
    nan = np.isnan(a) | np.isnan(e)
    assert (np.isnan(a) == np.isnan(e)).all(), f"{what}: NaN at {np.argwhere(np.isnan(a) != np.isnan(e))[:5]}"
    finite = ~nan & np.isfinite(e)
    assert (a[~nan & ~finite] == e[~nan & ~finite]).all(), f"{what}: infinities differ"
    scale = max(float(np.abs(e[finite]).max(initial=0.0)), floor, 1e-300)
    err = np.abs(a[finite] - e[finite]).max(initial=0.0)
    assert err <= tol * scale, (f"{what}: off by {err:.3g}, more than {tol:.3g} of {scale:.3g}: "
                                f"got {actual.ravel()[:6]}, NumPy {expected.ravel()[:6]}")


def check(program: Program, compilers=COMPILERS) -> None:
    """Each compiler's results and final arguments against NumPy's (within the program's
    precisions), and against the first compiler's, bit for bit (but for the variables whose
    rounding order the pipeline chooses: ``Program.unordered``)."""
    if program.raises:
        _check_raises(program, compilers)
        return
    want, want_args = run_numpy(program)
    first = None
    for compile_and_run in compilers:
        got, got_args = compile_and_run(program)
        name = compile_and_run.__name__
        assert isinstance(got, tuple) and len(got) == len(want), f"{name}: {len(got)} results"
        values = list(got) + got_args
        for k, (g, w, p) in enumerate(zip(values, list(want) + want_args,
                                          program.precs + program.input_precs)):
            var = program.returns[k] if k < len(want) else program.inputs[k - len(want)].name
            what = (f"{name}: result {var}" if k < len(want) else f"{name}: argument {var} after the call")
            _compare(g, w, p, what, program.rel.get(var) if k < len(want) else None)
            if first is not None and var not in program.unordered:
                assert_matches(g, first[k], 0, what + ", against the fused pipeline")
        first = first or values


def _check_raises(program: Program, compilers) -> None:
    """NumPy rejects the last statement; so must jitcore, with a JitcoreError, or with NumPy's own
    exception type where jitcore mirrors NumPy's check (IndexError for an index out of range)."""
    try:
        run_numpy(program)
    except Exception as e:
        numpy_error = e
    else:
        raise AssertionError("the generator's error program runs under NumPy")
    for compile_and_run in compilers:
        _raises_too(lambda c=compile_and_run: c(program), numpy_error, compile_and_run.__name__)


def _check_recall(program: Program, fn) -> None:
    """``fn`` (the program jitted, not yet called) on ``program.recall``'s inputs: NumPy's
    types, dtypes and shapes (and values, where only the layout changed: the program's
    precisions hold), or NumPy's error; values bit for bit those of a fresh compile that reuses
    no machine code (``cache=False``). The caller then calls ``fn`` on the program's own inputs."""
    try:
        want, want_args = run_numpy(program, program.recall)
    except Exception as e:
        _raises_too(lambda: fn(*[i.make() for i in program.recall]), e, "the recalled call")
        return
    args = [i.make() for i in program.recall]
    got = fn(*args)
    fresh_args = [i.make() for i in program.recall]
    fresh = jitcore.jit(program.function(np), cache=False)(*fresh_args)
    names = program.returns + [i.name for i in program.inputs]
    precs = program.precs + program.input_precs
    for g, w, f, var, p in zip(list(got) + args, list(want) + want_args, list(fresh) + fresh_args,
                               names, precs):
        what = f"called first with other inputs ({program.recall_kind}): {var}"
        _compare(g, w, p if program.recall_kind == "layout" else FREE, what)
        assert_matches(g, f, 0, what + ", against a fresh compile")


def _raises_too(call, numpy_error: Exception, name: str) -> None:
    """``call`` must raise as NumPy did: a JitcoreError, or NumPy's own exception type where
    jitcore mirrors NumPy's check (IndexError for an index out of range)."""
    same_kind = tuple(c for c in type(numpy_error).__mro__ if c not in (Exception, BaseException, object))
    try:
        call()
    except INTERNAL_ERRORS:
        raise
    except (jitcore.JitcoreError, *same_kind):
        return
    except Exception as e:
        raise AssertionError(f"{name}: NumPy raises {type(numpy_error).__name__}, "
                             f"jitcore {type(e).__name__}: {e}") from e
    raise AssertionError(f"{name}: NumPy raises {type(numpy_error).__name__}: {numpy_error}; "
                         "jitcore runs the program")
