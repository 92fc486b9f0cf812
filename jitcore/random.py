"""``np.random`` inside a jitted function: each draw is made by NumPy's own sampler on every
call, so the numbers are exactly NumPy's at that point of the program and the generator's state
advances as it would without ``jit``.

Autograph's ``call`` hands this module every bound method of a ``RandomState`` or
``Generator`` (``np.random.rand`` is one: a method of the global ``RandomState``). While
tracing, a draw becomes a call-time input (``calltime.Recorder.draw``): the same method with the
same static arguments, on the same generator, called in program order before the native call;
its shape and dtype come from a draw on a copy of the generator, which leaves the real one
untouched. ``seed`` is kept in that order too. In the body of a loop with a static trip count
(``fori_loop``, or autograph's ``for i in range(N)`` that compiles), each draw is made for
every step, in the program's order, into one array that the body indexes by its step
(``calltime.LoopDraws``; a generator's sites that are all one sequential sampler, as
``rng.normal()``, are drawn for every step with one NumPy call). Traced parameters where
NumPy's own formula is arithmetic on a standard draw (``normal``: ``loc + scale * z``,
``uniform``: ``low + (high - low) * u``) run that formula compiled on a standard draw made so:
the same bits.

Any other draw that cannot be made before the call (parameters computed in the function for a
sampler whose bits depend on them: ``gamma``, ``poisson``, ``binomial``, ``beta``,
``dirichlet``, ...; or a draw in a branch, a while loop, a loop with a traced trip count) is
made by NumPy's sampler as the compiled code runs (``_draw_running``: an ``array.callback``
that fills its result), with the run-time values. From that draw on, the generator is *live*:
every later draw from it, in program order, is made so too; a static loop that pre-drew from
it for every step before meeting such a draw is traced again with it live from its start
(``calltime.Recorder.go_live``). The numbers, the state after the call and NumPy's errors for
bad parameters are then NumPy's own. From a ``Generator`` whose bit generator is a PCG64,
``random``, ``uniform``, ``standard_normal``, ``normal``, ``poisson``, ``integers``,
``laplace``, ``gumbel``, ``logistic``, the gamma family, ``lognormal``, ``pareto``,
``weibull`` and the others of ``native_draws.PARAMETERS`` so made are drawn by the compiled
code itself, bit for bit NumPy's, from a copy of the generator's state passed in and out
(``native_draws``), unless other samplers draw from that generator too.

A generator made inside the function with a seed (``np.random.default_rng(0)``) gives the same
numbers on every call in NumPy: its draws are made while tracing and are constants, except in a
compiled loop's body, whose steps each draw their own: those are made at each call, as above,
from a copy of the generator as the loop found it (so every call gives the same numbers), and
the generator is moved on past them for the draws after the loop.

One made from a seed that is an argument (``default_rng(seed)``, ``RandomState(seed)``,
``PCG64(seed)``, ``SeedSequence(seed)``, ``np.random.seed(seed)``) is made on each call from the
argument's value, before the draws after it (``construct``): a ``MadeGenerator`` stand-in, drawn
from as a generator argument is, so one compiled variant serves every seed. A seed computed in
the function cannot be known before the call: made static on demand, as before.
"""

from __future__ import annotations

import copy
import functools
import inspect

import numpy as np

from jitcore import calltime, drawn_runs, native_draws, pytree
from jitcore import primitives as prims
from jitcore.callbacks import operand_reader, register_callback, result_writer
from jitcore.dtypes import SUPPORTED_DTYPES, ir_type
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.generator_arguments import GeneratorArgument, MadeGenerator, kind_of
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType
from jitcore.primitives import constant, convert
from jitcore.tracer import Tracer, current_trace, fresh, needs_static, user_location

# Methods that draw numbers (arrays or scalars) without writing to their arguments.
SAMPLERS = frozenset({
    "rand", "randn", "random", "random_sample", "ranf", "sample", "uniform", "normal",
    "standard_normal", "randint", "random_integers", "integers", "choice", "permutation", "permuted",
    "exponential", "standard_exponential", "poisson", "binomial", "negative_binomial", "beta",
    "gamma", "standard_gamma", "laplace", "logistic", "lognormal", "geometric", "gumbel",
    "chisquare", "noncentral_chisquare", "standard_cauchy", "standard_t", "weibull", "pareto",
    "power", "rayleigh", "triangular", "vonmises", "wald", "zipf", "hypergeometric", "logseries",
    "f", "noncentral_f", "multinomial", "multivariate_normal", "dirichlet",
})
BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
                   np.random.SFC64)
_CONSTRUCTORS = (np.random.default_rng, np.random.RandomState, *BIT_GENERATORS)


def _normal(loc, scale, z):
    return loc + scale * z


def _uniform(low, high, u):
    return low + (high - low) * u


def _exponential(scale, e):
    return scale * e


# method -> (parameter names and defaults, the standard draw's method for RandomState and for
# Generator, NumPy's formula on it)
_AFFINE = {
    "normal": ((("loc", 0.0), ("scale", 1.0)), ("standard_normal", "standard_normal"), _normal),
    "uniform": ((("low", 0.0), ("high", 1.0)), ("random_sample", "random"), _uniform),
    "exponential": ((("scale", 1.0),), ("standard_exponential", "standard_exponential"), _exponential),
}


def intercept(f):
    """What a traced call of ``f`` runs, when ``f`` draws random numbers or makes a generator;
    else None."""
    owner = getattr(f, "__self__", None)
    if isinstance(owner, (np.random.RandomState, np.random.Generator, GeneratorArgument)):
        return functools.partial(_draw, owner, f.__name__)
    if f is np.random.seed:  # a function of its own, which reseeds the global RandomState
        return functools.partial(_draw, np.random.mtrand._rand, "seed")
    if any(f is c for c in _CONSTRUCTORS) or f is np.random.Generator or f is np.random.SeedSequence:
        return functools.partial(construct, f)
    return None


def _label(owner, method: str) -> str:
    if owner is np.random.mtrand._rand:
        return f"np.random.{method}()"
    return f"{kind_of(owner).__name__}.{method}()"


def generator_key(owner):
    """What names one generator through a trace, for its liveness: the object, or for the
    generators the call passes one name for them all (a call may pass one generator at two
    places: f(rng, rng), with the same compiled code as for two)."""
    if isinstance(owner, MadeGenerator):
        return owner
    return GeneratorArgument if isinstance(owner, GeneratorArgument) else id(owner)


def _draw(owner, method: str, *args, **kwargs):
    recorder, trace = calltime.recorder(), current_trace()
    if method == "choice":
        weights = _choice_weights(*args, **kwargs)
        if isinstance(weights, Tracer):
            return _weighted_choice(owner, *args, **kwargs)
    if method == "permuted" and args and kwargs.get("out") is None and recorder is not None \
            and (isinstance(args[0], Tracer) or prims.holds_tracer(args[0])):
        return _permuted(owner, *args, **kwargs)
    if method in ("permutation", "choice") and args and isinstance(args[0], Tracer) \
            and not (method == "choice" and args[0].ndim == 0):  # choice(k): a draw below k
        return _take_drawn(owner, method, *args, **kwargs)
    if method == "shuffle" and args and recorder is not None and trace is recorder.trace and (
            isinstance(args[0], Tracer)
            or (isinstance(args[0], np.ndarray) and not recorder.is_local(owner))):
        return _shuffle(owner, trace, *args, **kwargs)
    traced = [x for x in pytree.flatten((args, kwargs))[0] if isinstance(x, Tracer)]
    local = recorder is not None and recorder.is_local(owner)
    # A seeded local generator drawn in the region it was made in: the same numbers on every
    # call, drawn now. In a compiled loop or branch inside that region, the draws of each step
    # or of the branch taken differ: made at call time, as an outside generator's.
    per_step = local and trace is not None and trace.depth > recorder.local_depth(owner)
    if recorder is None or trace is not recorder.trace or (local and not traced and not per_step):
        return getattr(owner, method)(*args, **kwargs)
    label = _label(owner, method)
    where = f"inside {recorder.function_name}()"
    if local and method not in SAMPLERS:
        raise UnsupportedError(f"{label} {where} of a traced array: {method}() writes to its "
                               "argument; use permutation() (a shuffled copy) instead")
    if method == "seed":
        if recorder.is_live(generator_key(owner)):
            raise UnsupportedError(
                f"{label} {where}, after a draw from it that the compiled code makes as it runs "
                "(one with parameters computed in the function, or in a branch or a loop whose "
                "trip count is traced): jitcore seeds before the call, so the draws would come "
                "out of order. Seed before the first such draw, or make a new generator.")
        seed = np.random.seed if owner is np.random.mtrand._rand else owner.seed
        if trace.depth and (traced or _made(args, kwargs)):
            raise needs_static(UnsupportedError(f"{label} {where} with a traced seed in a loop "
                                                "or branch that runs compiled: seed before it"), *traced)
        recorder.effect(_SeedAtCall(seed, _seed_values(recorder, label, where, args, kwargs)))
        return None
    if method not in SAMPLERS or kwargs.get("out") is not None:
        instead = ("; a = rng.permutation(a), a shuffled copy of an array or a list, draws the "
                   "order rng.shuffle(a) would" if method == "shuffle" else "")
        raise UnsupportedError(
            f"{label} {where}: jitcore makes random draws with NumPy's samplers at each call, "
            f"and {method}() is not one it supports (it writes to its argument, or to out=, or "
            f"returns no numbers). Call it outside the jitted function{instead}.")
    size = _size_argument(owner, method, args, kwargs)
    names = [name for name, _ in native_draws.PARAMETERS.get(method, ())]
    drawn = issubclass(kind_of(owner), np.random.Generator) and \
        drawn_runs.run_size(method, names, args, kwargs) is not None  # (a loop of draws: below)
    if not drawn and any(isinstance(x, Tracer) for x in pytree.flatten(size)[0]):
        # every sampler alike: an int argument in size= is made static on demand (not the
        # parameters beside it, which may be computed: rng.beta(a + 1, 2.0, size=(3, n)))
        raise traced_size(label, where, size)
    frame = recorder.loop_frame(trace) if trace.depth and method != "seed" else None
    # A draw whose numbers depend on values computed in the function (a rejection sampler's
    # bits: gamma, poisson, binomial, ...), or which runs a number of times only the data
    # decides (a branch, a while loop), is made by NumPy's sampler as the code runs; so is
    # every later draw from the same generator, to keep NumPy's order.
    running = recorder.is_live(generator_key(owner)) or (traced and method not in _AFFINE) \
        or (trace.depth and frame is None)
    if running and not local:
        return _draw_running(recorder, owner, method, args, kwargs)
    if trace.depth and frame is None:
        why = calltime.trips_why()
        raise needs_static(UnsupportedError(
            f"{label} {where}, in a loop body or branch that runs compiled, where jitcore cannot "
            "make its draws before the call: a branch (taken or not at run time), a loop whose "
            "trip count is traced, a while loop, a loop in a loop, or a seed"
            + (f" (here: {why})" if why else "") + ". Draw the numbers "
            "of all iterations before the loop (one call with size=(n, ...)) and index them by "
            "the loop's index, or draw before the branch; a loop over a static range may draw."),
            *recorder.loop_bounds())
    if traced:
        eager = local and not per_step
        return _affine(recorder, owner, method, label, where, args, kwargs, frame, eager=eager)
    return _call_time_draw(recorder, owner, method, label, where, args, kwargs, frame)


def _local_draw(method: str, args, kwargs, generator):
    return getattr(generator, method)(*args, **kwargs)


def _size_argument(owner, method: str, args, kwargs):
    """The ``size=`` a sampler call passes, by keyword or in its place (None if none)."""
    if "size" in kwargs:
        return kwargs["size"]
    try:  # the class's method: the owner may be a stand-in that forwards to each call's generator
        bound = inspect.signature(getattr(kind_of(owner), method)).bind_partial(None, *args)
    except (TypeError, ValueError, AttributeError):  # no signature (rand(*args)), or arguments NumPy refuses
        return None
    return bound.arguments.get("size")


def _choice_weights(a=None, size=None, replace=True, p=None, *rest, **kwargs):
    return p


def _weighted_choice(owner, a, size=None, replace=True, p=None, axis=0, shuffle=True, **kwargs):
    """``choice(a, size, p=p)`` with traced probabilities, drawn as NumPy draws it: a uniform
    draw per choice (``random(size)``, the same stream) placed in the normalised cumulative sum
    of ``p`` (``searchsorted(..., side='right')``). NumPy's checks of ``p`` (no NaN,
    non-negative, summing to 1) are made when the compiled code runs (``_check_parameters``)."""
    label = _label(owner, "choice")
    if not replace or kwargs:
        raise UnsupportedError(f"{label} with traced probabilities p and replace=False: NumPy "
                               "draws without replacement by a method that needs p's values; "
                               "draw outside the jitted function")
    generator = issubclass(kind_of(owner), np.random.Generator)
    _check_parameters("choice", generator, p.astype(np.float64), _sum_tolerance(p.dtype))
    uniform = "random" if generator else "random_sample"
    draws = _draw(owner, uniform, size)
    cdf = np.cumsum(p.astype(np.float64))
    index = np.searchsorted(cdf / cdf[-1], draws, side="right")
    if isinstance(a, (int, np.integer)):
        return index if size is not None else fresh(index.astype(np.int64), scalar=True, weak=True)
    items = a if isinstance(a, Tracer) else constant(index.owner_trace, np.asarray(a))
    return np.take(items, index, axis=axis)


def _take_drawn(owner, method: str, x: Tracer, *args, **kwargs):
    """``permutation(x)`` and ``choice(x, ...)`` of a traced array: NumPy draws the indices
    as it would for ``len(x)`` (the same draws: the shuffle of ``arange(len(x))``, the
    choice among ``len(x)``) and takes them along ``axis``; the draw is then an index draw."""
    axis = kwargs.pop("axis", 0) if issubclass(kind_of(owner), np.random.Generator) else 0
    if x.ndim == 0 and x.dtype.kind in "iu":  # permutation(n), choice(n, k): n items
        raise needs_static(UnsupportedError(
            f"{_label(owner, method)} of a traced integer n (at {user_location()}): how many "
            "numbers it draws must be known while compiling. Pass n as a static argument "
            "(static_argnames), or draw from an array of n items (permutation(x), x.shape[0])"), x)
    if x.ndim == 0:
        raise UnsupportedError(f"{_label(owner, method)} of a 0-d traced array: NumPy needs an "
                               "integer or an array of at least one dimension")
    axis = axis + x.ndim if axis < 0 else axis
    if method == "permutation" and args:
        raise UnsupportedError(f"{_label(owner, method)}: unexpected arguments")
    index = _draw(owner, method, x.shape[axis], *args, **kwargs)
    return np.take(x, index, axis=axis)


def _shuffle(owner, trace, x, axis=0):
    """``shuffle(x)`` of a traced array (or of a NumPy array the function made), in place:
    NumPy's Fisher-Yates swaps depend on the length along ``axis`` only and are the swaps of
    ``permutation(n)`` (which shuffles ``arange(n)``), so ``x`` becomes ``x`` taken at that
    permutation, the same numbers drawn. An empty ``x`` draws nothing and stays, as in NumPy."""
    label = _label(owner, "shuffle")
    if not issubclass(kind_of(owner), np.random.Generator) and axis != 0:
        raise TypeError("shuffle() got an unexpected keyword argument 'axis'")
    if isinstance(x, np.ndarray):  # a write makes it the traced copy every holder reads
        from jitcore.autograph.local_arrays import shared_copy  # (autograph imports this module)

        seen = calltime.written_array(trace, x, create=True)
        x = shared_copy(x, trace) if seen is None else seen
    if x.ndim == 0:
        raise JitTypeError(f"{label} of a 0-d array (at {user_location()}): NumPy shuffles "
                           "along an axis, which a 0-d array has not (len() of unsized object)")
    (at,) = prims.normalize_axes(axis, x.ndim, "shuffle")
    if x.size:
        prims.assign(x, np.take(x, _draw(owner, "permutation", x.shape[at]), axis=at))


def _permuted(owner, x, axis=None, out=None):
    """``Generator.permuted(x, axis)`` of a traced ``x`` (a new array: NumPy shuffles a copy):
    NumPy's Fisher-Yates draws depend on the lengths only, not the values, so the same call on
    an index grid (each slice along ``axis`` holding ``arange(n)``) draws the same numbers, and
    the result is ``x`` taken along the axis at the shuffled indices. With ``axis=None`` NumPy
    shuffles a 2-d or larger copy in its memory order, which a traced array does not have."""
    x = prims.array_operand(x)
    label = _label(owner, "permuted")
    if axis is None and x.ndim > 1:
        raise UnsupportedError(
            f"{label} of a {x.ndim}-d traced array with axis=None (at {user_location()}): NumPy "
            "shuffles all of it in its memory order, which a traced array does not have. Give "
            "an axis (rows shuffled independently: axis=1), or write "
            "rng.permuted(x.ravel()).reshape(x.shape) for C order")
    if x.ndim == 0:
        raise UnsupportedError(f"{label} of a 0-d traced array (at {user_location()}): NumPy "
                               "needs an array of at least one dimension")
    at = 0 if axis is None else prims.normalize_axes(axis, x.ndim, "permuted")[0]
    n = x.shape[at]
    grid = np.ascontiguousarray(np.broadcast_to(
        np.arange(n, dtype=np.intp).reshape([n if k == at else 1 for k in range(x.ndim)]), x.shape))
    index = _draw(owner, "permuted", grid, axis=None if axis is None else at)
    return np.take_along_axis(x, index, axis=at)


def _call_time_draw(recorder, owner, method, label, where, args, kwargs, frame=None):
    sample = getattr(copy.deepcopy(owner), method)(*args, **kwargs)  # shape and dtype only
    dtype = np.asarray(sample).dtype
    numeric = isinstance(sample, (np.ndarray, np.generic, bool, int, float, complex))
    if not numeric or dtype not in SUPPORTED_DTYPES:
        raise UnsupportedError(f"{label} {where} returns a {type(sample).__name__} of dtype "
                               f"{dtype}, which jitcore cannot use")
    fn = functools.partial(getattr(owner, method), *args, **kwargs)
    if frame is not None:
        frame.drawn.add(generator_key(owner))
    if frame is None:
        tracer = recorder.draw(fn, sample)
    else:  # in a loop's body: this step's row of every step's draws, a new array as NumPy's
        if recorder.is_local(owner):  # drawn from a copy of it as the loop found it, on each call
            fn, generator = functools.partial(_local_draw, method, args, kwargs), id(owner)
        else:
            generator = None
        tracer = fresh(recorder.loop_draw(frame, fn, sample, generator),
                       scalar=not isinstance(sample, np.ndarray))
    # A Python number (bool included: integers(2, dtype=bool)) is weak; np.float64, a float
    # subclass (choice([1.5, 2.5])), is not.
    tracer.weak = type(sample) in (bool, int, float, complex)
    return tracer


def traced_size(label: str, where: str, size) -> UnsupportedError:
    """The refusal of a draw whose size is traced: an int argument could be static; a count the
    data computes (``hit.sum()``) never can, so the advice is the full shape and a choice."""
    traced = [x for x in pytree.flatten(size)[0] if isinstance(x, Tracer)]
    arguments = traced[0].owner_trace.scalar_arguments
    if all(s in arguments for x in traced for s in x.sources):
        return needs_static(UnsupportedError(
            f"{label} {where} (at {user_location()}) with a traced size: the size must be a "
            "Python value (make the int argument it comes from static: static_argnums or "
            "static_argnames)"), *traced)
    return UnsupportedError(
        f"{label} {where} (at {user_location()}) with a size the data chooses (a count "
        "computed from arrays, such as mask.sum()): compiled code fixes every array's shape "
        "when it compiles. Draw the full shape and choose with the mask instead: "
        "new = rng.normal(..., size=v.shape); v[:] = np.where(mask[:, None], new, v). "
        "(That draws more numbers than NumPy's call did, so the generator's stream after it "
        "differs from NumPy's)")


def _affine(recorder, owner, method, label, where, args, kwargs, frame=None, eager=False):
    """A draw with traced parameters, where NumPy computes it as arithmetic on a standard draw.
    ``eager``: a seeded local generator's, whose standard draw is made now, in program order."""
    spec = _AFFINE.get(method)
    if spec is None:  # (a generator made in the function with a seed: see _draw)
        raise needs_static(UnsupportedError(
            f"{label} {where} with a traced argument, from a generator made in the function "
            "with a seed: jitcore gives its draws the same numbers on every call, made while "
            "compiling, so the arguments must be Python values or arrays known then (only "
            "normal(), uniform() and exponential() take traced parameters from it). Make the "
            "generator outside the jitted function and pass it in (its draws then take any "
            "parameters), or pass the parameters as static arguments."),
            *pytree.flatten((args, kwargs))[0])
    params, standard, formula = spec
    names = [p for p, _ in params] + ["size"]
    if len(args) > len(names) or set(kwargs) - set(names):
        raise UnsupportedError(f"{label} {where}: unexpected arguments")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound:
            raise UnsupportedError(f"{label} {where}: {k} given twice")
        bound[k] = v
    size = bound.get("size")
    if any(isinstance(x, Tracer) for x in pytree.flatten(size)[0]):
        raise traced_size(label, where, size)
    values = [bound.get(p, default) for p, default in params]
    values = [convert(v, np.float64) if isinstance(v, Tracer) else np.asarray(v, np.float64) for v in values]
    if size is None:
        shape = np.broadcast_shapes(*(np.shape(v) for v in values))
        size = shape or None
    generator = issubclass(kind_of(owner), np.random.Generator)
    _check_parameters(method, generator, values)
    std = standard[generator]
    if eager:
        z = getattr(owner, std)(size=size)
    else:
        z = _call_time_draw(recorder, owner, std, label, where, (), {"size": size}, frame)
    out = formula(*values, z)
    if isinstance(z, float) or (isinstance(z, Tracer) and z.weak):  # no size: NumPy's is a Python float
        out = fresh(out, scalar=True, weak=True)
    return out


# Values that stand for traced parameters in a draw made on a copy of the generator while
# tracing, for the result's shape, dtype and Python type: the first two sets NumPy accepts (a
# probability, a count, a shape > 1 for zipf, a bound above 0) are used, and must agree.
_STAND_INS = (0.5, 1, 2, 3, 0.25, 0.1)


def _draw_running(recorder, owner, method: str, args, kwargs):
    """A draw made by NumPy's own sampler while the compiled code runs: an ``array.callback``
    that calls ``owner.method`` with the run-time values of the traced arguments and fills its
    result. The numbers, the generator's state after it, and the errors NumPy raises for bad
    parameters (``ValueError: lam < 0``) are NumPy's, since NumPy makes them."""
    trace = current_trace()
    label, where = _label(owner, method), f"inside {recorder.function_name}()"
    names = [name for name, _ in native_draws.PARAMETERS.get(method, ())]
    generator = issubclass(kind_of(owner), np.random.Generator)
    run = drawn_runs.run_size(method, names, args, kwargs) if generator else None
    if run is not None:  # rng.lognormal(mu, s, n) of a drawn n: a loop of single draws, reduced
        bound, size = run
        refusal = _run_time_size_message(recorder, owner, method, label, where, [size])
        kind = native_draws.RESULT_DTYPE[method]
        return drawn_runs.drawn_run(functools.partial(_draw, owner, method), bound, size, kind, refusal)
    leaves, tree = pytree.flatten((args, kwargs))
    traced = [isinstance(x, Tracer) for x in leaves]
    samples, errors = [], []
    # each traced argument c times its place among them (low < high, left <= mode <= right),
    # then all of them c (a probability and a count)
    rising = [sum(traced[:i + 1]) for i in range(len(leaves))]
    tried = set()  # stand-ins that differ (0.25 and 0.5 are both 0 for an integer)
    # last, each array's c spread over its elements (c / size): probabilities that sum to at
    # most c whatever the length (multinomial's pvals of 6 or more categories)
    modes = [(c, "rise") for c in _STAND_INS] + [(c, "flat") for c in _STAND_INS] + \
        [(c, "spread") for c in _STAND_INS]
    for c, mode in modes:
        stand = [_stand_in(x, c * r if mode == "rise" else c / max(x.size, 1) if mode == "spread" else c)
                 if t else x for x, t, r in zip(leaves, traced, rising)]
        seen = tuple(np.asarray(v).tobytes() for v, t in zip(stand, traced) if t)
        if seen in tried:
            continue
        tried.add(seen)
        a, k = pytree.unflatten(tree, stand)
        try:
            samples.append(getattr(copy.deepcopy(owner), method)(*a, **k))
        except (ValueError, TypeError, OverflowError) as e:
            errors.append(e)
        if len(samples) == 2 or not any(traced):
            break
    if not samples and errors and all(isinstance(e, ValueError) for e in errors):
        # NumPy refuses the parameters' values (rng.integers(0, i) at i = 0), which it does only
        # when the draw runs, and a draw under a traced if may never run: the result's kind
        # comes from stand-ins for every number among the parameters, and the call draws with
        # the real values, raising NumPy's error where it reaches the draw.
        samples = _probed_with_numbers(owner, method, names, args, kwargs)
    if len(samples) < (2 if any(traced) else 1):  # two that agree, or the shape is not known
        raise needs_static(UnsupportedError(
            f"{label} {where} (at {user_location()}): NumPy refuses the stand-ins jitcore tries "
            f"for its traced arguments ({errors[0]}), so it cannot tell the shape of its "
            "result while compiling. Pass the parameters as static arguments, or draw outside "
            "the jitted function."), *(x for x, t in zip(leaves, traced) if t))
    sample = samples[0]
    kinds = {(np.shape(x), np.asarray(x).dtype, type(x)) for x in samples}
    if len(kinds) > 1:  # size=n, permutation(n) of a traced n
        sizes = [x for x, t in zip(leaves, traced) if t]
        why = _run_time_size_message(recorder, owner, method, label, where, sizes)
        raise needs_static(UnsupportedError(why), *sizes)
    dtype = np.asarray(sample).dtype
    if not isinstance(sample, (np.ndarray, np.generic, bool, int, float)) or dtype not in SUPPORTED_DTYPES:
        raise UnsupportedError(f"{label} {where} returns a {type(sample).__name__} of dtype "
                               f"{dtype}, which jitcore cannot use")
    write = result_writer(np.shape(sample), dtype)
    sampler = getattr(owner, method)  # a stand-in's forwards to each call's generator
    # A Generator's draws may go through a PCG64 state buffer that the code draws from itself
    # (native_draws): its first operand.
    state = native_draws.state_for(recorder, owner)
    if state is not None and not any(traced):
        whole = native_draws.whole(method, args, kwargs, sample)
        if whole is not None:
            return _native_whole_draw(recorder, trace, owner, state, whole, sampler, (args, kwargs), write,
                                      sample)
    native = native_draws.parameters(method, args, kwargs, sample) if state is not None else None
    if native is not None:
        return _native_draw(recorder, trace, owner, method, state, native, sampler, write, sample)
    first = 0 if state is None else 1  # the traced arguments' first place among the data pointers
    kept = [None if t else (x.copy() if isinstance(x, np.ndarray) else x) for x, t in zip(leaves, traced)]
    # per traced argument: (its data pointer's place, its place among the leaves, a reader)
    reads = [(first + k, i, _run_time_reader(x)) for k, i in enumerate(i for i, t in enumerate(traced) if t)
             for x in (leaves[i],)]
    last = first + len(reads)  # the result's place among the data pointers
    # arguments that are no containers: rebuilt by position, without unflattening a tree
    flat = len(leaves) == len(args) + len(kwargs)
    names, n = list(kwargs), len(args)

    def run(data) -> None:  # (runs once per draw: a loop's step pays for each line)
        values = kept.copy()
        for k, i, read in reads:
            values[i] = read(data[k])
        if not flat:
            a, kw = pytree.unflatten(tree, values)
            write(data[last], sampler(*a, **kw))
        elif names:
            write(data[last], sampler(*values[:n], **dict(zip(names, values[n:]))))
        else:
            write(data[last], sampler(*values))

    operands = [x.value for x, t in zip(leaves, traced) if t]
    plain = run
    if state is not None:
        operands.insert(0, state.value)
        run = native_draws.synced(owner, run)
    sources = frozenset().union(*(x.sources for x, t in zip(leaves, traced) if t))
    out = _running_result(recorder, trace, owner, run, operands, {}, sample, sources)
    if state is not None:
        native_draws.note_draw(recorder, owner, out.value.owner.callback, plain)
    return out


def _run_time_size_message(recorder, owner, method: str, label: str, where: str, sizes) -> str:
    """Why a draw whose size the code computes (``rng.lognormal(mu, s, n)`` of a drawn ``n``,
    ``N.sum()``) is refused, and the rewrite that works: a loop of single draws, which NumPy
    draws as the same numbers in the same order (its ``size=n`` fills one at a time)."""
    computed = any(recorder.argument_index(x) is None for x in sizes)
    head = (f"{label} {where} (at {user_location()}): the shape of its result depends on a "
            "traced value, and jitcore must know every array's shape while compiling.")
    if not computed:
        return head + " Pass that argument (a size, a count) as a static argument."
    name = "rng" if isinstance(owner, (np.random.Generator, GeneratorArgument)) else "np.random"
    return (head + " Here the size is computed in the function (a drawn count, a sum), so it "
            "cannot be made static. From a Generator, only its reductions compile (.sum(), "
            ".mean(), .max(), .min(), np.sum(...): a loop of single draws); for anything else "
            "draw one number at a time in a loop: "
            f"`total = 0.0` then `for _ in range(n): total += {name}.{method}(...)` (or "
            f"`out[i] += {name}.{method}(...)`) compiles, draws NumPy's numbers in NumPy's order "
            f"and leaves the generator where `{method}(..., size=n)` would (NumPy draws size=n "
            "one number after another); a total of more than 8 terms may differ from NumPy's "
            "pairwise .sum() in the last bits.")


def _running_result(recorder, trace, owner, run, operands, attributes, sample, sources) -> Tracer:
    """The ``array.callback`` op of a draw made as the code runs, and its result as NumPy's."""
    result = TensorType(np.shape(sample), ir_type(np.asarray(sample).dtype))
    number = register_callback(run, raw=True)
    op = trace.builder.create(array.CallbackOp, operands, [result], {"callback": number, **attributes})
    out = Tracer(op.results[0], trace, sources | {"a random draw"})
    out.scalar = not isinstance(sample, np.ndarray)
    out.weak = type(sample) in (bool, int, float)  # a Python number, as NumPy's scalar draw gives
    recorder.go_live(generator_key(owner))
    return out


def _native_draw(recorder, trace, owner, method, state, parameters, sampler, write, sample) -> Tracer:
    """A draw the code makes itself from the state buffer (``codegen/pcg64.py``), bit for bit
    NumPy's; its callback draws with NumPy's sampler when the buffer is off (not a PCG64) or
    the parameters are ones the code leaves to NumPy (bad ones: NumPy raises its error)."""
    values, size, single, native, other, extra = parameters
    shape = np.shape(sample)
    reads = [operand_reader(shape if isinstance(v, Tracer) and v.ndim else (), dtype)
             for v, dtype in zip(values, native_draws.parameter_dtypes(method))]
    count = len(values) + len(extra)  # (the result's place after the operands)
    if size is not None:
        other = {**other, "size": size}
    dtype = np.asarray(sample).dtype
    drawn = native_draws.RESULT_DTYPE.get(native, dtype)  # integers of int32, ...: drawn as int64
    if drawn != dtype:
        write = result_writer(shape, drawn)  # (NumPy's int32 values, cast)

    def draw(data) -> None:
        params = [read(data[1 + k]) for k, read in enumerate(reads)]
        if single:  # integers(high)
            params = params[1:]
        write(data[1 + count], sampler(*params, **other))

    operands = [state.value, *native_draws.operands(trace, method, values, shape),
                *(constant(trace, np.asarray(v, np.int64)).value for v in extra)]
    sources = frozenset().union(*(v.sources for v in values if isinstance(v, Tracer)))
    native_draws.note_draw(recorder, owner, None)
    wide = sample if drawn == dtype else np.asarray(sample).astype(drawn) if shape else drawn.type(sample)
    out = _running_result(recorder, trace, owner, native_draws.synced(owner, draw), operands,
                          {"native": native}, wide, sources)
    if drawn != dtype:  # NumPy's scalar of that dtype, or its array
        out = convert(out, dtype)
        out.scalar, out.weak = not isinstance(sample, np.ndarray), False
    return out


def _native_whole_draw(recorder, trace, owner, state, whole, sampler, call, write, sample) -> Tracer:
    """``permutation(n)`` or ``choice(n, ...)`` of static ints, drawn by the code itself
    (``codegen/pcg64_shuffles.py``; ``choice`` with replacement as ``integers(0, n)``); its
    callback, for a buffer that is off, is NumPy's own call."""
    native, values = whole
    (args, kwargs), last = call, 1 + len(values)

    def draw(data) -> None:
        write(data[last], sampler(*args, **kwargs))

    operands = [state.value, *(constant(trace, np.asarray(v, np.int64)).value for v in values)]
    native_draws.note_draw(recorder, owner, None)
    return _running_result(recorder, trace, owner, native_draws.synced(owner, draw), operands,
                           {"native": native}, sample, frozenset())


def _probed_with_numbers(owner, method: str, names: list, args, kwargs) -> list:
    """Two draws on copies of ``owner`` (or none) with a stand-in for each parameter that is a
    number or a traced value (its place among them times ``c``, so that low < high), for the
    shape, dtype and Python type of a draw whose own values NumPy refuses."""
    if len(args) > len(names) + 1:
        return []
    bound = {**dict(zip([*names, "size"], args)), **kwargs}
    numbers = [k for k in names if k in bound and (isinstance(bound[k], Tracer) or (
        isinstance(bound[k], (int, float, np.integer, np.floating)) and not isinstance(bound[k], bool)))]
    samples = []
    for c in _STAND_INS:
        stand = dict(bound)
        for r, k in enumerate(numbers, 1):
            x = bound[k]
            stand[k] = _stand_in(x, c * r) if isinstance(x, Tracer) else type(x)(c * r)
        try:
            samples.append(getattr(copy.deepcopy(owner), method)(**stand))
        except (ValueError, TypeError, OverflowError):
            continue
        if len(samples) == 2:
            return samples
    return []


def _stand_in(x: Tracer, c):
    """A value of ``x``'s kind (a Python number, a NumPy scalar, an array) holding ``c``."""
    a = np.full(x.shape, c).astype(x.dtype)
    return _run_time_value(a, x.weak, x.scalar)


def _run_time_reader(x: Tracer):
    """``read(address)``: a traced argument's run-time value as the user's code holds it, a
    Python number, a NumPy scalar or an array (``operand_reader`` gives a 0-d one as a number)."""
    read = operand_reader(x.shape, x.dtype)
    if x.ndim or x.weak:
        return read
    kind = x.dtype.type
    if x.scalar:
        return lambda address: kind(read(address))
    return lambda address: np.array(read(address), dtype=kind)


def _run_time_value(a: np.ndarray, weak: bool, scalar: bool):
    """A traced argument's run-time value as the user's code holds it."""
    if a.ndim == 0 and weak:
        return a.item()
    return a[()] if a.ndim == 0 and scalar else a


def _sum_tolerance(dtype) -> float:
    """How far from 1 ``choice``'s probabilities may sum, as NumPy allows: the square root of
    float64's epsilon, or of ``p``'s own float dtype's where that is larger (3.5e-4 for a
    float32 softmax, 0.031 for float16)."""
    tolerance = float(np.sqrt(np.finfo(np.float64).eps))
    if np.dtype(dtype).kind == "f":
        tolerance = max(tolerance, float(np.sqrt(np.finfo(dtype).eps)))
    return tolerance


def _check_parameters(method: str, generator: bool, values, tolerance: float = 0.0) -> None:
    """NumPy's checks of traced parameters, made when the compiled code runs: it raises the
    same error as NumPy's sampler (which checks before it draws: here the draw is made).
    ``tolerance``: how far ``choice``'s probabilities may sum from 1 (``_sum_tolerance``)."""
    checks = []
    if method == "normal":
        checks.append((values[1] < 0, ValueError, "scale < 0"))
    elif method == "exponential":
        checks.append((values[0] < 0, ValueError, "scale < 0"))
    elif method == "uniform":
        span = values[1] - values[0]
        if generator:
            checks.append((span < 0, ValueError, "high - low < 0"))
        message = "high - low range exceeds valid bounds" if generator else "Range exceeds valid bounds"
        checks.append((~np.isfinite(span), OverflowError, message))
    elif method == "choice":
        p = values
        capital = (lambda m: m[0].upper() + m[1:]) if generator else (lambda m: m)
        checks += [(np.isnan(p), ValueError, capital("probabilities contain NaN")),
                   (p < 0, ValueError, capital("probabilities are not non-negative")),
                   (np.abs(np.sum(p) - 1.0) > tolerance, ValueError,
                    "Probabilities do not sum to 1. See Notes section of docstring for more "
                    "information." if generator else "probabilities do not sum to 1")]
    for bad, error, message in checks:
        if isinstance(bad, Tracer):
            prims.RAISE_AT_FIRST(bad, bad, kernel.python_error_code(error.__name__, message))
        elif np.any(bad):
            raise error(message)


def construct(f, *args, **kwargs):
    """A generator made while tracing: with a seed it gives NumPy's same numbers on every call,
    so its draws are made now; without one, NumPy would draw fresh entropy on every call."""
    recorder = calltime.recorder()
    if recorder is None:
        return f(*args, **kwargs)
    name = getattr(f, "__name__", "generator")
    label = f"np.random.{name}()"
    if any(isinstance(x, Tracer) for x in pytree.flatten((args, kwargs))[0]) or _made(args, kwargs):
        return _construct_at_call(recorder, f, label, args, kwargs)
    seed = args[0] if args else next(iter(kwargs.values()), None)
    if seed is None:
        raise UnsupportedError(
            f"{label} without a seed inside {recorder.function_name}(): NumPy would draw new "
            "entropy on every call. Make the generator outside the jitted function (a global "
            "or a closure variable) and draw from it inside: draws then advance it on each call.")
    made = f(*args, **kwargs)
    if f is not np.random.Generator or recorder.is_local(seed):
        trace = current_trace()
        recorder.make_local(made, trace.depth if trace is not None else 0)
    return made


# -- a generator made from a traced seed ---------------------------------------------------------

def _made(args, kwargs) -> bool:
    """Whether a generator made from a traced seed is among the arguments (``Generator(PCG64(seed))``)."""
    return any(isinstance(x, MadeGenerator) for x in pytree.flatten((args, kwargs))[0])


class _ArgumentValue:
    """The value of the call's flat argument ``index``, as NumPy's seeding takes it: a Python
    number for a scalar (its ``int``), else the array."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __call__(self, arguments):
        a = np.asarray(arguments[self.index])
        return a.item() if a.ndim == 0 else a


class _SeedValues:
    """The arguments of a seeding call (``default_rng([seed, 7])``), made on each call: each
    traced seed the call's argument's value, each generator made from one the call's own."""

    __slots__ = ("tree", "reads")

    def __init__(self, tree, reads):
        self.tree, self.reads = tree, reads

    def __call__(self, arguments):
        leaves = [r(arguments) if isinstance(r, _ArgumentValue)
                  else r.current() if isinstance(r, MadeGenerator) else r for r in self.reads]
        return pytree.unflatten(self.tree, leaves)


def _seed_values(recorder, label: str, where: str, args, kwargs) -> _SeedValues:
    """How to make a seeding call's arguments on each call; a seed computed in the function
    is refused (the host could not know it before the compiled code runs)."""
    leaves, tree = pytree.flatten((args, kwargs))
    reads = []
    for x in leaves:
        if isinstance(x, Tracer):
            index = recorder.argument_index(x)
            if index is None:
                raise needs_static(UnsupportedError(
                    f"{label} {where} (at {user_location()}) with a seed computed in the "
                    "function: jitcore makes the generator before the compiled code runs, from "
                    "the call's arguments, so a seed must be an argument itself (or a list of "
                    "arguments and Python ints: default_rng([seed, k])). Pass the seed as an "
                    "argument, or make the generator outside and pass it in."), *leaves)
            if x.dtype.kind not in "iub":
                raise UnsupportedError(f"{label} {where}: a seed of dtype {x.dtype}; NumPy "
                                       "seeds with integers")
            reads.append(_ArgumentValue(index))
        else:
            reads.append(x)
    return _SeedValues(tree, reads)


def _sample_seed(args, kwargs):
    """The seeding call's arguments while tracing: 0 for each traced seed (of its shape)."""
    leaves, tree = pytree.flatten((args, kwargs))
    leaves = [np.zeros(x.shape, x.dtype).tolist() if isinstance(x, Tracer)
              else x.current() if isinstance(x, MadeGenerator) else x for x in leaves]
    return pytree.unflatten(tree, leaves)


class _SeedAtCall:
    """``np.random.seed(seed)`` (or ``rs.seed(seed)``) with a traced seed: on each call, with its value."""

    __slots__ = ("seed", "values")

    def __init__(self, seed, values: _SeedValues):
        self.seed, self.values = seed, values

    def __call__(self, arguments):
        args, kwargs = self.values(arguments)
        self.seed(*args, **kwargs)


class _MakeAtCall:
    """Makes ``made``'s generator on each call from the seed's value, in program order."""

    __slots__ = ("f", "values", "made")

    def __init__(self, f, values: _SeedValues, made: MadeGenerator):
        self.f, self.values, self.made = f, values, made

    def __call__(self, arguments):
        args, kwargs = self.values(arguments)
        self.made.make(self.f(*args, **kwargs))


def _construct_at_call(recorder, f, label: str, args, kwargs):
    """``default_rng(seed)`` (``RandomState``, a bit generator, ``SeedSequence``, or
    ``Generator`` of one made so) with ``seed`` an argument: made on each call from its value,
    before the draws after it, which then come from it as from a generator argument."""
    where = f"inside {recorder.function_name}()"
    trace = current_trace()
    if trace is not None and trace.depth:
        raise needs_static(UnsupportedError(
            f"{label} {where} (at {user_location()}) with a traced seed, in a loop body or branch "
            "that runs compiled: jitcore makes such a generator once per call, before the "
            "compiled code runs. Make it before the loop or branch."),
            *(x for x in pytree.flatten((args, kwargs))[0] if isinstance(x, Tracer)))
    values = _seed_values(recorder, label, where, args, kwargs)
    sample_args, sample_kwargs = _sample_seed(args, kwargs)
    sample = f(*sample_args, **sample_kwargs)
    made = MadeGenerator(type(sample), sample)
    recorder.effect(_MakeAtCall(f, values, made))
    return made
