"""Source locations of ops, as MLIR's: where in the user's code an op came from.

Three kinds, printed in MLIR's syntax by ``ir.printer`` (with ``debug_locations``) and read
back by ``ir.parser``:

- ``UNKNOWN``: ``loc(unknown)``, an op made with no user code behind it;
- ``FileLineCol``: ``loc("file.py":12:5)``, the line and (1-based) column of the call that
  recorded it;
- ``Fused``: ``loc(fused["a.py":3:5, "a.py":4:9])``, an op that stands for several (a kernel
  that fusion made of two), as MLIR's FusedLoc.

Locations are values: immutable, hashable, compared by contents. Passes that make an op from
others give it theirs (``fuse``); no pass looks at them to decide anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


class Location:
    """Base of the three kinds; ``str(loc)`` is the text inside ``loc(...)``."""

    __slots__ = ()

    @property
    def known(self) -> bool:
        return self is not UNKNOWN

    def parts(self) -> tuple[FileLineCol, ...]:
        """The file locations this one stands for, in order."""
        return ()

    def text(self) -> str:
        return f"loc({self})"


class _Unknown(Location):
    __slots__ = ()

    def __str__(self) -> str:
        return "unknown"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True, slots=True)
class FileLineCol(Location):
    file: str
    line: int
    column: int

    def parts(self) -> tuple[FileLineCol, ...]:
        return (self,)

    def __str__(self) -> str:
        return f"{json.dumps(self.file)}:{self.line}:{self.column}"

    def short(self) -> str:
        """``file.py:12:5``, as an error message names a place."""
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Fused(Location):
    locations: tuple[FileLineCol, ...]

    def parts(self) -> tuple[FileLineCol, ...]:
        return self.locations

    def __str__(self) -> str:
        return "fused[" + ", ".join(str(p) for p in self.locations) + "]"


def fuse(*locations: Location) -> Location:
    """One location for an op made of ops at ``locations``: their file locations, each once
    (as MLIR's FusedLoc::get folds), in source order for a reader; one alone is itself, none
    is ``UNKNOWN``."""
    parts = tuple(sorted({p for loc in locations for p in loc.parts()},
                         key=lambda p: (p.file, p.line, p.column)))
    if not parts:
        return UNKNOWN
    if len(parts) == 1:
        return parts[0]
    return Fused(parts)


def describe(location: Location) -> str:
    """A place for an error message: ``file.py:12:5`` (the first of a fused location's)."""
    parts = location.parts()
    return parts[0].short() if parts else "an unknown location"
