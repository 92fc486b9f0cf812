"""Draws that the compiled code makes itself, bit for bit NumPy's, from a ``np.random.Generator``
whose bit generator is a PCG64 (``np.random.default_rng``'s): ``random``, ``uniform``,
``poisson``, ``integers`` (int64), ``laplace``, ``gumbel``, ``logistic``, ``standard_normal``,
``normal``, ``standard_exponential``, ``exponential``, ``standard_gamma``, ``gamma``,
``chisquare``, ``beta``, ``binomial``, ``geometric`` and (session 52, NumPy's formulas on
those: ``codegen/pcg64_derived.py``) ``lognormal``, ``pareto``, ``weibull``, ``power``,
``rayleigh``, ``standard_cauchy``, ``standard_t``, ``f``, ``wald``, ``triangular``,
``negative_binomial``, ``noncentral_chisquare``, ``noncentral_f``, ``logseries``, ``zipf``
(``PARAMETERS``; ``random``
also of ``dtype=np.float32``) in a branch, a
while loop, a loop with a traced trip count, or with parameters computed in the function
(``jitcore/random.py``'s draws made as the code runs).

Such a generator's draws go through a *state buffer* (eight uint64 words, ``codegen/pcg64.py``),
a hidden input of the compiled function: before the call, after the draws made before it, the
buffer gets the bit generator's state (``bg.state``: the 128-bit state and increment); the code
advances its copy as NumPy's C code would; after the call, returning or raising, the generator
takes the buffer's state back. A generator that NumPy's samplers draw from too in the same
trace (``gamma`` after a native ``normal``) keeps its buffer off (``States.prepare``: handing the
state over at each such callback costs more than the native draws save); the callbacks can
still hand it over (``synced``: the generator gets the buffer's state, the buffer is marked
``BEHIND`` and the next native draw reloads it), should a cost rule ever let them mix. A
generator passed at two places of one call (``f(rng, rng)``), or one whose bit generator is
not a PCG64 (``Generator(MT19937())`` passed where a PCG64 one was compiled for),
has its buffer ``OFF``: every draw calls back, as before.
"""

from __future__ import annotations

import ctypes

import numpy as np

from jitcore import ziggurat
from jitcore.callbacks import replace_callback
from jitcore.codegen import pcg64, pcg64_draws
from jitcore.codegen.pcg64 import AHEAD, BEHIND, CLEAN, MODE, OFF, REQUEST
from jitcore.generator_arguments import GeneratorArgument, kind_of
from jitcore.ir.dialects.array.effects import NATIVE_DRAWS
from jitcore.primitives import broadcast_to, constant, convert
from jitcore.tracer import Tracer

WORDS = 8
_LOW = (1 << 64) - 1
# sampler -> its parameters (name, default), in NumPy's order
PARAMETERS = {"random": (), "uniform": (("low", 0.0), ("high", 1.0)), "poisson": (("lam", 1.0),),
              "integers": (("low", None), ("high", None)), "laplace": (("loc", 0.0), ("scale", 1.0)),
              "gumbel": (("loc", 0.0), ("scale", 1.0)), "logistic": (("loc", 0.0), ("scale", 1.0)),
              "standard_normal": (), "normal": (("loc", 0.0), ("scale", 1.0)),
              "standard_exponential": (), "exponential": (("scale", 1.0),),
              "standard_gamma": (("shape", None),),
              "gamma": (("shape", None), ("scale", 1.0)), "chisquare": (("df", None),),
              "beta": (("a", None), ("b", None)), "binomial": (("n", None), ("p", None)),
              "geometric": (("p", None),),
              # codegen/pcg64_derived.py's: NumPy's formulas on the draws above
              "lognormal": (("mean", 0.0), ("sigma", 1.0)), "pareto": (("a", None),),
              "weibull": (("a", None),), "power": (("a", None),), "rayleigh": (("scale", 1.0),),
              "standard_cauchy": (), "standard_t": (("df", None),),
              "f": (("dfnum", None), ("dfden", None)), "wald": (("mean", None), ("scale", None)),
              "triangular": (("left", None), ("mode", None), ("right", None)),
              "negative_binomial": (("n", None), ("p", None)),
              "noncentral_chisquare": (("df", None), ("nonc", None)),
              "noncentral_f": (("dfnum", None), ("dfden", None), ("nonc", None)),
              "logseries": (("p", None),), "zipf": (("a", None),)}
_COUNTS = ("poisson", "integers", "binomial", "geometric", "negative_binomial", "logseries", "zipf")
RESULT_DTYPE = {name: np.dtype(np.int64 if name in _COUNTS else np.float64) for name in PARAMETERS}
RESULT_DTYPE["integers_bounded"] = np.dtype(np.int64)
# sampler -> its native sampler for dtype=np.float32 (NumPy's float samplers draw 32-bit words)
FLOAT32 = {"random": "random_float32"}
# sampler -> the places of its int64 parameters (the others are float64)
INTEGRAL = {"integers": (0, 1), "binomial": (0,)}
# the ziggurats a sampler's code draws through (jitcore/ziggurat.py's kinds)
_GAMMA = ("standard_gamma", "gamma", "chisquare", "beta", "standard_t", "f", "negative_binomial",
          "noncentral_chisquare", "noncentral_f")
_NORMALS = ("standard_normal", "normal", "lognormal", "standard_cauchy", "wald")
ZIGGURATS = {**{m: ("normal",) for m in _NORMALS},
             **{m: ("exponential",) for m in ("standard_exponential", "exponential", "geometric", "pareto",
                                               "weibull", "power", "rayleigh")},
             **{m: ("normal", "exponential") for m in _GAMMA}}
_INT64 = (-(2**63), 2**63 - 1)
# samplers that fill their whole result at once (codegen/pcg64_shuffles.py), from static ints
WHOLE = ("permutation", "choice_without")
# integers(low, high, dtype=..., endpoint=...) other than int64's [low, high): the bounds, then
# whether high is in, and the least low and greatest high NumPy accepts for the dtype
BOUNDED = "integers_bounded"
# integers' dtypes whose draws are the int64 draws of the same bounds, converted (NumPy's 32-bit
# fill draws as its 64-bit one does below 2**32); 8- and 16-bit ones share 32-bit words
INTEGER_DTYPES = tuple(np.dtype(t) for t in (np.int64, np.int32, np.uint32, np.uint64))
assert set(PARAMETERS) | set(FLOAT32.values()) | set(WHOLE) | {BOUNDED} == set(NATIVE_DRAWS)


def _bit_generator(owner):
    generator = owner.current() if isinstance(owner, GeneratorArgument) else owner
    return generator.bit_generator


def may_be_pcg64(owner) -> bool:
    """Whether ``owner``'s draws may go through a state buffer: a ``Generator`` (an argument's,
    whose bit generator each call tells; else one whose bit generator is a PCG64 now)."""
    if kind_of(owner) is not np.random.Generator:
        return False
    return isinstance(owner, GeneratorArgument) or type(owner.bit_generator) is np.random.PCG64


def state_key(owner):
    """One state buffer per place a generator comes from in the traced code."""
    return owner if isinstance(owner, GeneratorArgument) else id(owner)


class _Buffer:
    """One state buffer: its hidden slot, its generator (or stand-in), whether the code draws
    from it, and the callbacks of its other draws (number, the draw without the bookkeeping)."""

    __slots__ = ("slot", "owner", "native", "callbacks")

    def __init__(self, slot: int, owner):
        self.slot, self.owner, self.native, self.callbacks = slot, owner, False, []


class States:
    """The state buffers of one compiled variant."""

    def __init__(self):
        self.buffers: dict = {}  # state_key -> _Buffer

    def __bool__(self) -> bool:
        return bool(self.buffers)

    def prepare(self) -> None:
        """When the trace is done: a generator the code never draws from itself keeps no
        buffer (always ``OFF``), and its callbacks skip the bookkeeping (~1 us a draw). Nor does
        one that NumPy's samplers draw from too (a Gibbs step's ``normal`` and ``gamma``): each
        hand-over between the buffer and the generator (``bg.state`` set, then read back
        through one more callback) costs more than the native draws save (measured: the Gibbs
        loop 1.5-2x slower than with callbacks alone). Its native draws then call back."""
        for buffer in self.buffers.values():
            if buffer.callbacks:
                buffer.native = False
            if not buffer.native:
                for number, plain in buffer.callbacks:
                    replace_callback(number, plain)
        self._used = [(b.slot, b.owner) for b in self.buffers.values() if b.native]
        self._unused = [(b.slot, b.owner) for b in self.buffers.values() if not b.native]

    def fill(self, values: list) -> None:
        """Each buffer, from its bit generator now (after the draws made before the call)."""
        first: dict = {}  # id(bit generator) -> its first buffer (None: an off one's)
        for k, owner in self._unused:
            values[k] = _OFF_BUFFER
            first[id(_bit_generator(owner))] = None  # (f(rng, rng): its draws call back)
        for k, owner in self._used:
            buffer = np.zeros(WORDS, np.uint64)
            bg = _bit_generator(owner)
            if type(bg) is np.random.PCG64 and id(bg) not in first:
                load(bg, buffer)
                buffer[MODE] = CLEAN
            else:  # two buffers of one stream would each draw the same numbers
                buffer[MODE] = OFF
                if first.get(id(bg)) is not None:
                    values[first[id(bg)]][MODE] = OFF
            first.setdefault(id(bg), k)
            values[k] = buffer

    def finish(self, values: list) -> None:
        """After the call (returned or raised): each generator takes its buffer's state."""
        for k, owner in self._used:
            buffer = values[k]
            if buffer is not None and buffer[MODE] == AHEAD:
                store(_bit_generator(owner), buffer)
                buffer[MODE] = CLEAN


_OFF_BUFFER = np.zeros(WORDS, np.uint64)  # read by no one: its generator's draws all call back
_OFF_BUFFER[MODE] = OFF
_OFF_BUFFER.flags.writeable = False


def store(bg, words) -> None:
    """``bg``'s state made the buffer's (a NumPy array before or after the call, a ctypes array
    in a callback)."""
    w = words[:6].tolist() if isinstance(words, np.ndarray) else words[:6]
    bg.state = {"bit_generator": "PCG64", "state": {"state": w[0] | (w[1] << 64), "inc": w[2] | (w[3] << 64)},
                "has_uint32": w[4], "uinteger": w[5]}


def load(bg, words) -> None:
    """The buffer's first six words made ``bg``'s state."""
    s = bg.state
    state, inc = s["state"]["state"], s["state"]["inc"]
    words[0:6] = [state & _LOW, state >> 64, inc & _LOW, inc >> 64, s["has_uint32"], s["uinteger"]]


def synced(owner, draw):
    """``draw(data)`` (a callback's body, data[0] the state buffer's address) made on the
    generator in step with the buffer: a native draw's request to reload the buffer, or a draw
    by NumPy's sampler from the generator given the buffer's state first."""
    words_at = (ctypes.c_uint64 * WORDS).from_address

    def run(data) -> None:
        words = words_at(data[0])
        mode = words[MODE]
        if mode >= BEHIND and not words[REQUEST]:  # the generator holds the stream (or is off)
            draw(data)
            return
        bg = _bit_generator(owner)
        if words[REQUEST]:  # the buffer is behind the generator: reload it, the code draws
            words[REQUEST] = 0
            load(bg, words)
            words[MODE] = CLEAN
            return
        if mode == AHEAD:
            store(bg, words)
        words[MODE] = BEHIND  # (also when the draw raises: the generator holds the state)
        draw(data)
    return run


def parameters(method: str, args, kwargs, sample) -> tuple | None:
    """(parameters, size, single, native sampler, other keywords) when the code can draw
    ``method(*args, **kwargs)`` itself: scalar parameters (each a 0-d traced value or a Python
    number), no out=, NumPy's float64 (int64 for the counts) result, or float32 where
    ``FLOAT32`` has a sampler for ``dtype=np.float32``; else None."""
    kwargs, other = dict(kwargs), {}
    native = method
    if method == "integers" and ("dtype" in kwargs or "endpoint" in kwargs):
        try:
            dtype = np.dtype(kwargs.get("dtype", np.int64))
        except TypeError:
            return None
        endpoint = kwargs.pop("endpoint", False)
        if dtype not in INTEGER_DTYPES or not isinstance(endpoint, (bool, np.bool_)):
            return None
        other = {"dtype": kwargs.pop("dtype", np.int64), "endpoint": endpoint}
        if endpoint or dtype != np.int64:
            native = BOUNDED
    if "dtype" in kwargs and method in FLOAT32:
        try:
            float32 = np.dtype(kwargs["dtype"]) == np.float32
        except TypeError:
            return None
        other["dtype"] = kwargs.pop("dtype")
        if float32:
            native = FLOAT32[method]
    if method == "integers":  # (drawn as int64, then converted)
        if np.asarray(sample).dtype not in INTEGER_DTYPES:
            return None
    elif method not in PARAMETERS or np.asarray(sample).dtype != RESULT_DTYPE.get(native, np.float32):
        return None
    for kind in ZIGGURATS.get(method, ()):  # NumPy's ziggurat tables, read back from it
        zig = ziggurat.tables(ziggurat.EXPONENTIAL if kind == "exponential" else ziggurat.NORMAL)
        if zig is None:
            return None
        if kind == "normal":
            pcg64.ZIGGURAT = zig
        else:
            pcg64_draws.MoreSamplers.EXPONENTIAL = zig
    names = [name for name, _ in PARAMETERS[method]] + ["size"]
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = dict(zip(names, args))
    if set(bound) & set(kwargs):
        return None
    bound.update(kwargs)
    size = bound.get("size")
    if size is not None and not isinstance(size, (int, np.integer, tuple, list)):
        return None
    values = [bound.get(name, default) for name, default in PARAMETERS[method]]
    single = method == "integers" and values[1] is None  # integers(high): [0, high)
    if single:
        values = [0, values[0]]
    shape = np.shape(sample)
    for k, v in enumerate(values):
        integral = k in INTEGRAL.get(method, ())
        if isinstance(v, Tracer):
            fits = v.dtype.kind in "bi" or (v.dtype.kind == "u" and v.dtype.itemsize < 8)  # int64
            if v.ndim and not _broadcasts(method, v.shape, shape):
                return None
            if not (fits or (not integral and v.dtype.kind in "uf")):
                return None
        elif integral:
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not _INT64[0] <= v <= _INT64[1]:
                return None
        elif not isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
            return None
    extra = []
    if native == BOUNDED:
        extra = _bounds_checked(np.asarray(sample).dtype, bool(other["endpoint"]))
    return values, (tuple(size) if isinstance(size, list) else size), single, native, other, extra


def _bounds_checked(dtype: np.dtype, closed: bool) -> list:
    """``integers_bounded``'s constants after the bounds: [closed, least low, greatest high]
    that NumPy accepts for ``dtype`` (``high`` one past the dtype's greatest unless closed; at
    most int64's, as every bound here is an int64), which the code checks before it draws
    (others call back, and NumPy raises its error)."""
    info = np.iinfo(dtype)
    return [int(closed), int(info.min), min(int(info.max) + (not closed), _INT64[1])]


def _static_int(x) -> bool:
    integral = isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
    return integral and _INT64[0] <= x <= _INT64[1]


def whole(method: str, args, kwargs, sample) -> tuple | None:
    """(native sampler, its int64 parameters) when the code can draw ``permutation(n)`` or
    ``choice(n, size, replace, shuffle=...)`` itself: ``n`` and the size Python ints, no ``p``
    (``choice`` with replacement is NumPy's ``integers(0, n)``); None for anything else, or
    for values NumPy refuses (its sampler then raises its error)."""
    if np.asarray(sample).dtype != np.int64:
        return None
    if method == "permutation":
        n = args[0] if len(args) == 1 and not kwargs else kwargs.get("x") if len(kwargs) == 1 else None
        return ("permutation", []) if _static_int(n) and n >= 0 else None
    if method != "choice":
        return None
    names = ("a", "size", "replace", "p", "axis", "shuffle")
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = {"size": None, "replace": True, "p": None, "axis": 0, "shuffle": True, **dict(zip(names, args))}
    if set(kwargs) & set(names[:len(args)]):
        return None
    bound.update(kwargs)
    n, size = bound.get("a"), bound["size"]
    axis_zero = _static_int(bound["axis"]) and bound["axis"] == 0
    if not _static_int(n) or bound["p"] is not None or not axis_zero:
        return None
    sizes = () if size is None else tuple(size) if isinstance(size, (tuple, list)) else (size,)
    if not all(_static_int(s) and s >= 0 for s in sizes):
        return None
    count = int(np.prod(sizes, dtype=np.int64))
    if not all(isinstance(bound[k], (bool, np.bool_)) for k in ("replace", "shuffle")):
        return None
    if bound["replace"]:
        return ("integers", [0, int(n)]) if n >= 1 else None
    return ("choice_without", [int(n), int(bool(bound["shuffle"]))]) if 0 <= count <= n else None


def _broadcasts(method: str, have: tuple, result: tuple) -> bool:
    """Whether an array parameter of shape ``have`` is one the code draws with, an element per
    draw in the result's C order, as NumPy's ``cont``/``disc`` loops do (NumPy checks every
    element before the first draw: so does ``codegen/pcg64.py``). Not ``integers`` (its array
    bounds take another of NumPy's paths)."""
    if method == "integers" or len(have) > len(result):
        return False
    return all(h in (1, r) for h, r in zip(have[::-1], result[::-1]))


def parameter_dtypes(method: str) -> list[np.dtype]:
    """The native sampler's parameter types: float64, int64 at ``INTEGRAL``'s places."""
    return [np.dtype(np.int64 if k in INTEGRAL.get(method, ()) else np.float64)
            for k in range(len(PARAMETERS[method]))]


def operands(trace, method: str, values, shape: tuple) -> list:
    """The parameters as values of the native sampler's types (``parameter_dtypes``), its
    operands after the state buffer: 0-d, or an array parameter broadcast to the result's
    ``shape``."""
    out = []
    for v, dtype in zip(values, parameter_dtypes(method)):
        if isinstance(v, Tracer) and v.ndim:
            out.append(broadcast_to(convert(v, dtype), shape).value)
        elif isinstance(v, Tracer):
            out.append(convert(v, dtype).value)
        else:
            number = int(v) if isinstance(v, (bool, np.bool_)) else v
            out.append(constant(trace, np.asarray(number, dtype)).value)
    return out


def state_for(recorder, owner) -> Tracer | None:
    """The state buffer of ``owner``'s draws in this trace (made at its first draw made as the
    code runs: a hidden input, filled after the draws before the call), or None when it is no
    generator whose draws the code may make itself."""
    if not may_be_pcg64(owner):
        return None
    key = state_key(owner)
    tracer = recorder.state_buffers.get(key)
    if tracer is None:
        from jitcore.calltime import layout_class  # (calltime imports tracing, which imports us)

        tracer = recorder._argument(((WORDS,), np.dtype(np.uint64), layout_class.C), ("state",),
                                    "a random generator's state")
        if recorder.inputs.states is None:
            recorder.inputs.states = States()
        recorder.inputs.states.buffers[key] = _Buffer(len(recorder.inputs.slots) - 1, owner)
        recorder.state_buffers[key] = tracer
    return tracer


def note_draw(recorder, owner, number: int, plain=None) -> None:
    """A draw through ``owner``'s buffer: the code's own (``plain`` None), or callback
    ``number``, which is ``plain`` when the code never draws from that buffer itself."""
    buffer = recorder.inputs.states.buffers[state_key(owner)]
    if plain is None:
        buffer.native = True
    else:
        buffer.callbacks.append((number, plain))
