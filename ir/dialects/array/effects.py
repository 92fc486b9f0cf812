"""Array ops that do something besides computing values: ``array.callback`` and
``array.raise_if``.

``array.callback`` hands its operands to a Python function at run time (``jc.debug_print``,
``jc.debug_callback``), which may fill its results (a random draw with parameters computed in
the function: ``jitcore/random.py``). It is not ``Pure``, so passes keep it, never merge
two of them, and never move work across it out of a loop: what it prints, records or draws is
its effect. The function itself is not in the IR; ``callback`` is its number in the frontend's
table (``jitcore/dispatch.py``), which the compiled code passes back when it calls out.
"""

from __future__ import annotations

from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import ArrayOp
from jitcore.ir.opdef import attr, of, one_of
from jitcore.ir.types import TensorType, i1, i64

# the samplers codegen/pcg64.py draws
NATIVE_DRAWS = ("random", "uniform", "poisson", "integers", "laplace", "gumbel", "logistic",
                "standard_normal", "normal", "standard_exponential", "exponential", "standard_gamma",
                "gamma", "chisquare", "beta", "binomial", "geometric", "random_float32",
                "lognormal", "pareto", "weibull", "power", "rayleigh", "standard_cauchy", "standard_t",
                "f", "wald", "triangular", "negative_binomial", "noncentral_chisquare", "noncentral_f",
                "logseries", "zipf", "permutation", "choice_without", "integers_bounded")


class CallbackOp(ArrayOp):
    name = "array.callback"
    __slots__ = ()
    callback = attr(of(int, ": the callback's number"))
    # A random draw the CPU code makes itself (codegen/pcg64.py): operand 0 is a PCG64 state
    # buffer (ui64 x 8), then the sampler's 0-d parameters (float64; int64 for integers' and
    # binomial's n); the callback draws instead when the buffer says so (not a PCG64) or the
    # parameters are ones NumPy refuses.
    native = attr(one_of(NATIVE_DRAWS), optional=True)

    def check(self) -> None:
        if any(not isinstance(r.type, TensorType) for r in self.results):
            self.fail("gives tensors only")
        if self.callback < 0:
            self.fail("needs a callback number of at least 0")


class RaiseIfOp(ArrayOp):
    """``array.raise_if %cond, %word... {code}``: where the 0-d i1 ``%cond`` holds when the
    function runs, the call stops and raises the error ``code`` names (``kernel.PYTHON_ERRORS``:
    Python's ``ZeroDivisionError`` for ``n / 0`` of Python numbers, ...), whose message may name
    the 0-d i64 ``%word``s (up to three: status words 1..3, as the first bad element, an axis,
    a size; a float64 as its bits), or a ``kernel.LINALG_ERRORS`` code (a singular matrix on the
    path the data took: ``real_or_complex``). Its result is ``%cond``, which nothing needs to read. Pure,
    like ``array.solve``, which may raise too: ``may_raise``
    (``passes/effects.py``) keeps it where it runs, and it lowers to ``kernel.raise`` inside
    the kernel that computes ``%cond`` (a scalar loop's included), so a check in a loop's body
    costs a compare and a branch, not a call back to the host."""

    name = "array.raise_if"
    traits = frozenset({PURE})
    __slots__ = ()
    code = attr(of(int, ": the error's code (kernel.PYTHON_ERRORS)"))

    def check(self) -> None:
        from jitcore.ir.dialects.kernel import LINALG_ERRORS, PYTHON_ERRORS  # the codes' one table

        if not 1 <= len(self.operands) <= 4 or len(self.results) != 1:
            self.fail("needs 1 to 4 operands and one result")
        if self.operands[0].type != TensorType((), i1) or self.result_type != TensorType((), i1):
            self.fail("takes and returns one 0-d i1 condition")
        if any(w.type != TensorType((), i64) for w in self.operands[1:]):
            self.fail("takes its status words as 0-d i64 values")
        if self.code not in PYTHON_ERRORS and self.code not in LINALG_ERRORS:
            self.fail("needs a 'code' of kernel.PYTHON_ERRORS or kernel.LINALG_ERRORS")
