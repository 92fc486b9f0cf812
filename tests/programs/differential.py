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


def run_numpy(program: Program):
    """(results, arguments after the call) of the program run by NumPy (max/min ties pinned)."""
    args = [i.make() for i in program.inputs]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return program.function(PINNED)(*args), args


def jit_compiler(pipeline: str = DEFAULT_PIPELINE):
    """A compiler for ``check``: the program under ``jitcore.jit`` with ``pipeline``."""
    def run(program: Program):
        fn = jitcore.jit(program.function(np), pipeline=pipeline)
        args = [i.make() for i in program.inputs]
        return fn(*args), args
    run.__name__ = "fused" if pipeline == DEFAULT_PIPELINE else "unfused"
    return run


COMPILERS = (jit_compiler(DEFAULT_PIPELINE), jit_compiler(UNFUSED))


def _compare(actual, expected, ulps, what):
    """One value: dtype, shape, scalar or array, and (unless ``ulps`` is FREE) the elements."""
    assert isinstance(actual, np.ndarray) == isinstance(expected, np.ndarray), (
        f"{what}: {type(actual).__name__} where NumPy gives {type(expected).__name__}")
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{what}: {actual.dtype}{list(actual.shape)} where NumPy gives "
        f"{expected.dtype}{list(expected.shape)}")
    if ulps != FREE:
        assert_matches(actual, expected, int(ulps), what)


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
            _compare(g, w, p, what)
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
    same_kind = tuple(c for c in type(numpy_error).__mro__ if c not in (Exception, BaseException, object))
    for compile_and_run in compilers:
        try:
            compile_and_run(program)
        except INTERNAL_ERRORS:
            raise
        except (jitcore.JitcoreError, *same_kind):
            continue
        except Exception as e:
            raise AssertionError(f"{compile_and_run.__name__}: NumPy raises {type(numpy_error).__name__}, "
                                 f"jitcore {type(e).__name__}: {e}") from e
        raise AssertionError(f"{compile_and_run.__name__}: NumPy raises {type(numpy_error).__name__}: "
                             f"{numpy_error}; jitcore runs the program")
