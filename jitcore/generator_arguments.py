"""A random generator passed as an argument (``f(rng, n)`` with ``rng = np.random.default_rng()``),
the way NumPy's documentation tells users to thread randomness through their code.

The generator cannot be traced (it is not numbers) and, as a static argument, each new generator
would compile anew and its draws would be bound to the first one's object. Instead, the call
replaces it by a stand-in (``GeneratorArgument``) that is equal for every generator of the same
class in the same place of the call, so one compiled variant serves them all; while the call
runs, the stand-in forwards to that call's generator. ``jitcore.random`` makes each draw a
call-time input through the stand-in's methods, so on every call NumPy's own sampler draws from
the generator that call passed, in program order, advancing it as NumPy would.
"""

from __future__ import annotations

import copy
import threading
from contextlib import contextmanager

import numpy as np

from jitcore.errors import UnsupportedError

_KINDS = (np.random.Generator, np.random.RandomState)
_CALL = threading.local()  # .generators: {place: generator} of the call running on this thread


class GeneratorArgument:
    """The generator at ``place`` (a position or a keyword) of the current call, of class ``kind``."""

    __slots__ = ("place", "kind")

    def __init__(self, place, kind: type):
        self.place, self.kind = place, kind

    def __eq__(self, other) -> bool:
        return type(other) is GeneratorArgument and (self.place, self.kind) == (other.place, other.kind)

    def __hash__(self) -> int:
        return hash((GeneratorArgument, self.place, self.kind))

    def __repr__(self) -> str:
        return f"<the call's {self.kind.__name__} at {self.place!r}>"

    def current(self):
        """The generator this call passed at this place."""
        generators = getattr(_CALL, "generators", None) or {}
        if self.place not in generators:
            raise RuntimeError(f"{self!r} used outside the jitted call that received it")
        return generators[self.place]

    def __getattr__(self, name: str):
        attribute = getattr(self.current(), name)
        if callable(attribute) and getattr(attribute, "__self__", None) is not None:
            return GeneratorMethod(self, name)  # bound to the stand-in: each call's generator
        return attribute

    def __deepcopy__(self, memo):
        return copy.deepcopy(self.current(), memo)  # a copy to draw a sample from (its shape)


class GeneratorMethod:
    """``rng.method`` of a stand-in: calls the method of the current call's generator."""

    __slots__ = ("__self__", "__name__")

    def __init__(self, owner: GeneratorArgument, name: str):
        self.__self__, self.__name__ = owner, name

    def __call__(self, *args, **kwargs):
        return getattr(self.__self__.current(), self.__name__)(*args, **kwargs)


class MadeGenerator(GeneratorArgument):
    """A generator (or bit generator, or SeedSequence) the function makes from a traced seed
    (``default_rng(seed)`` with ``seed`` an argument): ``jitcore.random`` makes it anew on each
    call from the seed's value, before the draws after it (a call-time effect), so one compiled
    variant serves every seed. ``sample``, made from a stand-in seed, gives the draws' shapes
    while tracing."""

    __slots__ = ("sample", "_now")

    def __init__(self, kind: type, sample):
        super().__init__(None, kind)
        self.sample, self._now = sample, threading.local()

    def __eq__(self, other) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<the {self.kind.__name__} made from the call's seed>"

    def __getattr__(self, name: str):
        attribute = getattr(self.current(), name)
        if callable(attribute) and getattr(attribute, "__self__", None) is not None:
            return GeneratorMethod(self, name)
        if name.startswith("__"):
            return attribute
        # the sample's attribute (rng.bit_generator.state) would be frozen into the code
        raise UnsupportedError(
            f"{self.kind.__name__}.{name} of a generator made inside the function from a traced "
            "seed: jitcore makes that generator when the call runs, so its attributes are not "
            "known while compiling. Draw from it with its methods, or make it outside the jitted "
            "function and pass it in.")

    def current(self):
        """The one this call made (the sample while tracing)."""
        return getattr(self._now, "made", self.sample)

    def make(self, made) -> None:
        self._now.made = made


def kind_of(owner) -> type:
    """The generator class of ``owner``, a generator or a stand-in for one."""
    return owner.kind if isinstance(owner, GeneratorArgument) else type(owner)


def stand_ins(args: tuple, kwargs: dict, signature):
    """``args`` and ``kwargs`` with each generator a stand-in, and the generators by place
    (None when the call passes none). Keywords are bound to ``signature`` first, so a generator
    passed by name or by position is the same stand-in."""
    if not any(isinstance(a, _KINDS) for a in (*args, *kwargs.values())):
        return args, kwargs, None
    if kwargs and signature is not None:
        try:
            bound = signature.bind(*args, **kwargs)
            args, kwargs = bound.args, bound.kwargs
        except TypeError:
            pass  # the call's own error comes from binding it again
    generators = {}

    def standing(place, value):
        if not isinstance(value, _KINDS):
            return value
        generators[place] = value
        return GeneratorArgument(place, type(value))

    args = tuple(standing(i, a) for i, a in enumerate(args))
    kwargs = {k: standing(k, v) for k, v in kwargs.items()}
    return args, kwargs, generators


@contextmanager
def bound(generators: dict):
    """While one call (its trace and its run) goes on: the stand-ins forward to ``generators``."""
    previous = getattr(_CALL, "generators", None)
    _CALL.generators = generators
    try:
        yield
    finally:
        _CALL.generators = previous


def current_generators() -> list:
    """The generators of the call running on this thread (a trace watches them: a draw it did
    not make a call-time input would advance them and be frozen into the code)."""
    return list((getattr(_CALL, "generators", None) or {}).values())


def positions() -> frozenset:
    """The positions of the generators the running call passed (names its other arguments by
    their parameters, as static arguments are)."""
    return frozenset(p for p in (getattr(_CALL, "generators", None) or {}) if isinstance(p, int))


GENERATOR_KINDS = (*_KINDS, GeneratorArgument)  # what draws random numbers in traced code
